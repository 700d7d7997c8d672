package dev.kairos.dsl.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.OperatingSystem;
import dev.kairos.dsl.kairos.PeriodicAac;
import dev.kairos.dsl.kairos.Spm;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.units.Quantities;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.eclipse.xtext.testing.util.ParseHelper;
import org.eclipse.xtext.testing.validation.ValidationTestHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class KairosParsingTest {
  @Inject private ParseHelper<Model> parser;
  @Inject private ValidationTestHelper validation;

  static final String HELLO =
      """
      package hello

      interface Greeting {
        uint32 greet(in uint32 times);
      }

      tmo Greeter implements Greeting {
        ods { segment counters { uint64 ticks; } }
        spm tick
          for t = from 0 s to forever every 100 ms
          start-during (t, t + 5 ms) finish-by t + 50 ms
          wcet 1 ms criticality hard
          uses counters write;
        svm greet gct 2 ms wcet 200 us criticality soft max-rate 10 Hz uses counters read;
      }

      hardware Reference { cores 2; speed 1.0; }

      node board {
        hardware Reference
        os linux
        scheduling rms
        deploy Greeter as greeter
      }
      """;

  @Test
  void parsesTheFoundationSliceWithoutIssues() throws Exception {
    final Model model = parser.parse(HELLO);
    validation.assertNoIssues(model);
    assertEquals("hello", model.getName());

    final Tmo greeter = (Tmo) model.getElements().get(1);
    final Spm tick = (Spm) greeter.getMethods().get(0);
    final PeriodicAac aac = assertInstanceOf(PeriodicAac.class, tick.getAac());
    assertTrue(aac.isForever());
    assertEquals(100_000_000L, Quantities.nanoseconds(aac.getPeriod()));
    assertEquals(5_000_000L, Quantities.nanoseconds(aac.getWindow().getLatest().getOffset()));
    assertEquals("counters", tick.getUses().get(0).getSegment().getName());

    final Svm greet = (Svm) greeter.getMethods().get(1);
    assertEquals(2_000_000L, Quantities.nanoseconds(greet.getGct()));
    assertEquals(100_000_000L, Quantities.periodOf(greet.getMaxRate()));

    final Node board = (Node) model.getElements().get(3);
    assertEquals(OperatingSystem.LINUX, board.getOs());
    assertEquals(greeter, board.getDeployments().get(0).getTmo());
  }

  @Test
  void reportsSyntaxErrorsInsteadOfThrowing() throws Exception {
    final Model model = parser.parse("tmo Broken { spm tick for t = from 0 s every ; }");
    assertFalse(model.eResource().getErrors().isEmpty());
  }

  @Test
  void fractionalDurationsAreExactInNanoseconds() throws Exception {
    final Model model =
        parser.parse(
            """
            tmo T {
              spm s for t = from 0 s to forever every 1.5 ms
                start-during (t, t + 0.25 ms) finish-by t + 1 ms wcet 100 us;
            }
            node n { os linux deploy T as t1 }
            """);
    validation.assertNoErrors(model);
    final Spm spm = (Spm) ((Tmo) model.getElements().get(0)).getMethods().get(0);
    assertEquals(1_500_000L, Quantities.nanoseconds(((PeriodicAac) spm.getAac()).getPeriod()));
  }
}
