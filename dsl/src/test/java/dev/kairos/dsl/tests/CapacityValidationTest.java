package dev.kairos.dsl.tests;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.ir.RuntimeCapacities;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.eclipse.xtext.testing.util.ParseHelper;
import org.eclipse.xtext.testing.validation.ValidationTestHelper;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A node that holds more than the runtime's tables is refused before it is generated. */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class CapacityValidationTest {
  @Inject private ParseHelper<Model> parser;
  @Inject private ValidationTestHelper validation;

  /** Node `big` deploying TMOs of one SpM, one SvM and one segment each, up to the counts. */
  private static String node(int spms, int svms, int segments) {
    final StringBuilder text = new StringBuilder();
    final int tmos = Math.max(1, Math.max(spms, Math.max(svms, segments)));
    final StringBuilder deployments = new StringBuilder();
    for (int k = 0; k < tmos; k++) {
      text.append("tmo T").append(k).append(" {\n");
      if (k < segments) {
        text.append("  ods { segment s { int32 v; } }\n");
      }
      if (k < spms) {
        text.append(
            "  spm tick for t = from 0 s to forever every 1 s start-during (t, t + 1 ms)"
                + " finish-by t + 2 ms wcet 10 us;\n");
      }
      if (k < svms) {
        text.append("  svm serve gct 1 ms wcet 10 us max-rate 1 Hz;\n");
      }
      text.append("}\n");
      deployments.append(" deploy T").append(k).append(" as t").append(k);
    }
    return text.append("node big { os sim").append(deployments).append(" }\n").toString();
  }

  private void assertRefused(String text, String what, int count) throws Exception {
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.NODE_EXCEEDS_RUNTIME,
        text.indexOf("big"),
        "big".length(),
        "deploys " + count + " " + what + "; the runtime holds at most");
  }

  @Test
  void moreCoresThanTheRuntimeSchedules() throws Exception {
    final int cores = RuntimeCapacities.CORES + 1;
    final String text = "hardware Big { cores " + cores + "; }\n";
    validation.assertError(
        parser.parse(text),
        Literals.HARDWARE,
        IssueCodes.NODE_EXCEEDS_RUNTIME,
        text.indexOf(String.valueOf(cores)),
        String.valueOf(cores).length(),
        "the runtime schedules at most " + RuntimeCapacities.CORES + " per node");
    validation.assertNoIssue(
        parser.parse("hardware Fits { cores " + RuntimeCapacities.CORES + "; }\n"),
        Literals.HARDWARE,
        IssueCodes.NODE_EXCEEDS_RUNTIME);
  }

  @Test
  void moreSpmsThanTheRuntimeHolds() throws Exception {
    assertRefused(
        node(RuntimeCapacities.SPMS + 1, 0, 0), "spontaneous methods", RuntimeCapacities.SPMS + 1);
  }

  @Test
  void moreSvmsThanTheRuntimeHolds() throws Exception {
    assertRefused(
        node(0, RuntimeCapacities.SVMS + 1, 0), "service methods", RuntimeCapacities.SVMS + 1);
  }

  @Test
  void moreSegmentsThanTheRuntimeHolds() throws Exception {
    assertRefused(
        node(1, 0, RuntimeCapacities.SEGMENTS + 1), "ODS segments", RuntimeCapacities.SEGMENTS + 1);
  }

  @Test
  void aNodeFilledToCapacityIsFine() throws Exception {
    final int most =
        Math.min(
            RuntimeCapacities.SPMS, Math.min(RuntimeCapacities.SVMS, RuntimeCapacities.SEGMENTS));
    validation.assertNoIssue(
        parser.parse(node(most, most, most)), Literals.NODE, IssueCodes.NODE_EXCEEDS_RUNTIME);
  }

  @Test
  void theCapacitiesAreTheRuntimes() {
    // Read from the file the runtime's header is made from; the runtime's masks are 64 bits.
    Assertions.assertTrue(RuntimeCapacities.SPMS > 0 && RuntimeCapacities.SPMS <= Long.SIZE);
    Assertions.assertTrue(
        RuntimeCapacities.SEGMENTS > 0 && RuntimeCapacities.SEGMENTS <= Long.SIZE);
    Assertions.assertTrue(RuntimeCapacities.SVMS > 0 && RuntimeCapacities.BANDS > 0);
  }
}
