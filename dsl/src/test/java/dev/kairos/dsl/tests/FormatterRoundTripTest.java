package dev.kairos.dsl.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.kairos.dsl.formatting2.ModelFormatter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.xtext.resource.XtextResource;
import org.eclipse.xtext.resource.XtextResourceSet;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every example, formatted: it re-parses without errors into the same model, and formatting the
 * result again changes nothing.
 */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class FormatterRoundTripTest {
  @Inject private Provider<XtextResourceSet> resourceSets;
  @Inject private ModelFormatter formatter;

  static Stream<Path> examples() throws IOException {
    final Path examples = Path.of("..", "examples");
    try (Stream<Path> files = Files.walk(examples)) {
      final List<Path> models = files.filter(p -> p.toString().endsWith(".tmo")).sorted().toList();
      assertFalse(models.isEmpty(), "no example models found under " + examples);
      return models.stream();
    }
  }

  private XtextResource parse(String text, String name) throws IOException {
    final XtextResourceSet set = resourceSets.get();
    final XtextResource resource =
        (XtextResource) set.createResource(URI.createURI("memory:/" + name));
    resource.load(new java.io.ByteArrayInputStream(text.getBytes()), null);
    EcoreUtil.resolveAll(resource);
    return resource;
  }

  @ParameterizedTest
  @MethodSource("examples")
  void formattingKeepsTheModelAndIsIdempotent(Path example) throws IOException {
    final String original = Files.readString(example);
    final XtextResource parsed = parse(original, "original.tmo");
    assertTrue(parsed.getErrors().isEmpty(), parsed.getErrors().toString());

    final String formatted = formatter.format(parsed);
    final XtextResource reparsed = parse(formatted, "formatted.tmo");
    assertTrue(reparsed.getErrors().isEmpty(), formatted + "\n" + reparsed.getErrors());
    final EObject before = parsed.getContents().get(0);
    final EObject after = reparsed.getContents().get(0);
    assertTrue(EcoreUtil.equals(before, after), "formatting changed the model of " + example);

    assertEquals(formatted, formatter.format(reparsed), "formatting twice changed " + example);
  }

  @Test
  void producesTheCanonicalLayout() throws IOException {
    final String messy =
        "package  demo\n"
            + "struct P{double x;double y ;}\n"
            + "tmo T{ods{segment s{P p;}} spm tick for t=from 0 s to forever every 10 ms"
            + " start-during(t,t+1 ms)finish-by t+5 ms wcet 1 ms uses s write;"
            + "svm get gct 1 ms wcet 100 us uses s read;}\n"
            + "node n{os linux deploy T as t1}";
    final String expected =
        """
        package demo

        struct P {
          double x;
          double y;
        }

        tmo T {
          ods {
            segment s {
              P p;
            }
          }
          spm tick
            for t = from 0 s to forever every 10 ms
            start-during (t, t + 1 ms) finish-by t + 5 ms
            wcet 1 ms
            uses s write;
          svm get gct 1 ms wcet 100 us uses s read;
        }

        node n {
          os linux
          deploy T as t1
        }
        """;
    assertEquals(expected, formatter.format(parse(messy, "messy.tmo")));
  }
}
