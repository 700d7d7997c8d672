package dev.kairos.cli;

import com.google.inject.Injector;
import dev.kairos.dsl.KairosStandaloneSetup;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.reports.Diagnostic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.xtext.resource.XtextResourceSet;
import org.eclipse.xtext.util.CancelIndicator;
import org.eclipse.xtext.validation.CheckMode;
import org.eclipse.xtext.validation.IResourceValidator;
import org.eclipse.xtext.validation.Issue;

/**
 * Loads .tmo files into one resource set (so names resolve across files), validates them, and turns
 * Xtext's issues into {@link Diagnostic}s named after the files as the user wrote them.
 */
final class ModelLoader {
  /** Raised for problems with the command line itself (missing files): exit code 2. */
  static final class UsageProblem extends Exception {
    private static final long serialVersionUID = 1L;

    UsageProblem(String message) {
      super(message);
    }
  }

  /**
   * @param shownNames each file as the user named it, as diagnostics name it
   * @param portableNames each file relative to the working directory (else its name), as reports
   *     and generated code name it
   */
  record Loaded(
      List<Model> models,
      List<Diagnostic> diagnostics,
      Map<URI, String> portableNames,
      Map<URI, String> shownNames) {
    boolean hasErrors() {
      return diagnostics.stream().anyMatch(d -> d.severity() == Diagnostic.Severity.ERROR);
    }
  }

  /** Creating the injector costs far more than loading a model: one per JVM is enough. */
  private static Injector sharedInjector;

  private final Injector injector;
  private XtextResourceSet resourceSet;

  private ModelLoader(Injector injector) {
    this.injector = injector;
  }

  static synchronized ModelLoader create() {
    if (sharedInjector == null) {
      sharedInjector = new KairosStandaloneSetup().createInjectorAndDoEMFRegistration();
    }
    return new ModelLoader(sharedInjector);
  }

  Loaded load(List<Path> files) throws UsageProblem {
    final List<Diagnostic> diagnostics = new ArrayList<>();
    final List<Path> unreadable = new ArrayList<>();
    for (Path file : files) {
      if (Files.isDirectory(file)) {
        throw new UsageProblem(
            file + " is a directory, not a model file (name the .tmo files in it)");
      }
      if (!Files.isRegularFile(file)) {
        throw new UsageProblem("no such model file: " + file);
      }
      if (!file.getFileName().toString().endsWith(".tmo")) {
        throw new UsageProblem("not a Kairos model (expected a .tmo file): " + file);
      }
      final byte[] bytes;
      try {
        bytes = Files.readAllBytes(file);
      } catch (java.io.IOException e) {
        throw new UsageProblem("cannot read " + file + ": " + e.getMessage());
      }
      final Optional<TextFiles.Position> binary = TextFiles.firstNul(bytes);
      if (binary.isPresent()) {
        // Parsing binary data would only bury this one message under syntax errors.
        diagnostics.add(
            new Diagnostic(
                file.normalize().toString(),
                binary.get().line(),
                binary.get().column(),
                Diagnostic.Severity.ERROR,
                "this is not a text file: it holds binary data (a NUL byte here); a model is"
                    + " UTF-8 text",
                IssueCodes.INVALID_ENCODING));
        unreadable.add(file);
        continue;
      }
      TextFiles.firstMalformedUtf8(bytes)
          .ifPresent(
              at ->
                  diagnostics.add(
                      new Diagnostic(
                          file.normalize().toString(),
                          at.position().line(),
                          at.position().column(),
                          Diagnostic.Severity.ERROR,
                          "this file is not UTF-8 text (the byte 0x"
                              + String.format("%02X", at.value())
                              + " starts no UTF-8 character); save it as UTF-8",
                          IssueCodes.INVALID_ENCODING)));
    }
    resourceSet = injector.getInstance(XtextResourceSet.class);
    final Map<URI, String> shownNames = new HashMap<>();
    final Map<URI, String> portableNames = new HashMap<>();
    final List<Resource> resources = new ArrayList<>();
    final Path workingDirectory = Path.of("").toAbsolutePath();
    for (Path file : files) {
      if (unreadable.contains(file)) {
        continue;
      }
      final Path absolute = file.toAbsolutePath().normalize();
      final URI uri = URI.createFileURI(absolute.toString());
      shownNames.put(uri, file.normalize().toString());
      portableNames.put(
          uri,
          absolute.startsWith(workingDirectory)
              ? workingDirectory.relativize(absolute).toString()
              : absolute.getFileName().toString());
      if (resourceSet.getResource(uri, false) == null) {
        resources.add(resourceSet.getResource(uri, true));
      }
    }
    EcoreUtil.resolveAll(resourceSet);

    final IResourceValidator validator = injector.getInstance(IResourceValidator.class);
    final List<Model> models = new ArrayList<>();
    for (Resource resource : resources) {
      final String shown = shownNames.get(resource.getURI());
      for (Issue issue : validator.validate(resource, CheckMode.ALL, CancelIndicator.NullImpl)) {
        diagnostics.add(CheckPipeline.diagnostic(shown, issue));
      }
      if (resource.getContents().isEmpty() && resource.getErrors().isEmpty()) {
        // Nothing but whitespace and comments: no model object for the validator to warn on.
        diagnostics.add(
            new Diagnostic(
                shown,
                1,
                1,
                Diagnostic.Severity.WARNING,
                "this file declares nothing (no types, interfaces, TMOs or platform)",
                IssueCodes.EMPTY_MODEL));
      }
      if (!resource.getContents().isEmpty() && resource.getContents().get(0) instanceof Model m) {
        models.add(m);
      }
    }
    // Where a file is not UTF-8, the parser saw a replacement character: one message is enough.
    final List<Diagnostic> encodingErrors =
        diagnostics.stream().filter(d -> d.code().equals(IssueCodes.INVALID_ENCODING)).toList();
    diagnostics.removeIf(
        d ->
            d.code().equals(IssueCodes.SYNTAX)
                && encodingErrors.stream()
                    .anyMatch(
                        e ->
                            e.file().equals(d.file())
                                && e.line() == d.line()
                                && e.column() == d.column()));
    diagnostics.sort(Diagnostic.ORDER);
    return new Loaded(models, diagnostics, portableNames, shownNames);
  }

  /** The canonical text of a file loaded by {@link #load}. */
  String format(Path file) {
    final URI uri = URI.createFileURI(file.toAbsolutePath().normalize().toString());
    final org.eclipse.xtext.resource.XtextResource resource =
        (org.eclipse.xtext.resource.XtextResource) resourceSet.getResource(uri, false);
    return injector.getInstance(dev.kairos.dsl.formatting2.ModelFormatter.class).format(resource);
  }
}
