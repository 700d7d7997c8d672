package dev.kairos.dsl.tests;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.kairos.dsl.validation.IssueCodes;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.xtext.diagnostics.Severity;
import org.eclipse.xtext.resource.XtextResourceSet;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.eclipse.xtext.util.CancelIndicator;
import org.eclipse.xtext.validation.CheckMode;
import org.eclipse.xtext.validation.IResourceValidator;
import org.eclipse.xtext.validation.Issue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The reference documentation and the language cannot drift apart. */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class DocumentationTest {
  private static final Path DOCS = Path.of("..", "docs");
  private static final Pattern TMO_BLOCK = Pattern.compile("```tmo\\n(.*?)```", Pattern.DOTALL);

  @Inject private Provider<XtextResourceSet> resourceSets;
  @Inject private IResourceValidator validator;

  @Test
  void everyExampleInTheLanguageReferenceIsAValidModel() throws Exception {
    final String reference = Files.readString(DOCS.resolve("language.md"));
    final Matcher blocks = TMO_BLOCK.matcher(reference);
    final XtextResourceSet system = resourceSets.get();
    final List<Resource> examples = new ArrayList<>();
    while (blocks.find()) {
      final Resource resource =
          system.createResource(URI.createURI("memory:/example" + examples.size() + ".tmo"));
      resource.load(
          new ByteArrayInputStream(blocks.group(1).getBytes(StandardCharsets.UTF_8)), null);
      examples.add(resource);
    }
    assertTrue(examples.size() >= 6, "expected the reference to show its examples");
    EcoreUtil.resolveAll(system);
    for (int i = 0; i < examples.size(); i++) {
      final List<Issue> errors =
          validator.validate(examples.get(i), CheckMode.ALL, CancelIndicator.NullImpl).stream()
              .filter(issue -> issue.getSeverity() == Severity.ERROR)
              .toList();
      assertTrue(errors.isEmpty(), "example " + (i + 1) + " of language.md: " + errors);
    }
  }

  @Test
  void everyIssueCodeIsDocumented() throws Exception {
    final String diagnostics = Files.readString(DOCS.resolve("diagnostics.md"));
    final List<String> missing = new ArrayList<>();
    for (Field field : IssueCodes.class.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers())
          && Modifier.isPublic(field.getModifiers())
          && field.getType() == String.class) {
        final String code = (String) field.get(null);
        if (!diagnostics.contains("`" + code + "`")) {
          missing.add(code);
        }
      }
    }
    assertFalse(IssueCodes.class.getDeclaredFields().length == 0);
    assertTrue(missing.isEmpty(), "codes missing from docs/diagnostics.md: " + missing);
  }
}
