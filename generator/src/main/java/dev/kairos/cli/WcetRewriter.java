package dev.kairos.cli;

import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.reports.calibrate.Calibration;
import dev.kairos.reports.calibrate.Calibration.Update;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;

/**
 * Writes calibrated WCETs into model files in place: only the text of each {@code wcet} duration
 * changes (found through the parser's node model, so comments and layout stay as they are), then a
 * file that was in the canonical layout before is formatted again by the model formatter.
 */
final class WcetRewriter {
  private WcetRewriter() {}

  /** One WCET rewritten: where, which method, and its text before and after. */
  record Change(String file, int line, String method, String before, String after) {}

  /** What was rewritten, and which files were formatted again afterwards. */
  record Outcome(List<Change> changes, List<Path> formatted, List<Path> leftAsWritten) {}

  private record Edit(int offset, int length, String text, Change change) {}

  /**
   * Applies {@code updates} to the files of {@code loaded} (loaded by {@code loader} from {@code
   * files}), then re-formats, with a fresh load of all files, those that were formatted before.
   */
  static Outcome apply(
      ModelLoader loader, ModelLoader.Loaded loaded, List<Path> files, List<Update> updates)
      throws IOException {
    final Map<Path, List<Edit>> edits = new LinkedHashMap<>();
    for (Update update : updates) {
      final Method method = find(loaded.models(), update.tmo(), update.method());
      if (method == null || method.getWcet() == null) {
        continue; // the IR came from these models: this cannot happen for a validated model
      }
      final INode node = NodeModelUtils.findActualNodeFor(method.getWcet());
      final Path file =
          Path.of(method.eResource().getURI().toFileString()).toAbsolutePath().normalize();
      final String after = Calibration.spell(update.calibratedNs());
      final String shown =
          loaded.shownNames().getOrDefault(method.eResource().getURI(), file.toString());
      edits
          .computeIfAbsent(file, f -> new ArrayList<>())
          .add(
              new Edit(
                  node.getOffset(),
                  node.getLength(),
                  after,
                  new Change(
                      shown,
                      node.getStartLine(),
                      update.tmo() + "." + update.method(),
                      node.getText().strip(),
                      after)));
    }
    final List<Change> changes = new ArrayList<>();
    final List<Path> wasFormatted = new ArrayList<>();
    final List<Path> leftAsWritten = new ArrayList<>();
    for (Map.Entry<Path, List<Edit>> entry : edits.entrySet()) {
      final Path file = entry.getKey();
      final String original = Files.readString(file, StandardCharsets.UTF_8);
      if (original.equals(loader.format(file))) {
        wasFormatted.add(file);
      } else {
        leftAsWritten.add(file);
      }
      final StringBuilder text = new StringBuilder(original);
      // From the end of the file back, so that earlier offsets stay valid.
      final List<Edit> inFile = new ArrayList<>(entry.getValue());
      inFile.sort(Comparator.comparingInt(Edit::offset).reversed());
      for (Edit edit : inFile) {
        text.replace(edit.offset(), edit.offset() + edit.length(), edit.text());
      }
      Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
      entry.getValue().forEach(e -> changes.add(e.change()));
    }
    if (!wasFormatted.isEmpty()) {
      final ModelLoader fresh = ModelLoader.create();
      try {
        fresh.load(files);
      } catch (ModelLoader.UsageProblem e) {
        throw new IOException(e.getMessage(), e);
      }
      for (Path file : wasFormatted) {
        final String formatted = fresh.format(file);
        if (!formatted.equals(Files.readString(file, StandardCharsets.UTF_8))) {
          Files.writeString(file, formatted, StandardCharsets.UTF_8);
        }
      }
    }
    changes.sort(Comparator.comparing(Change::file).thenComparingInt(Change::line));
    return new Outcome(changes, wasFormatted, leftAsWritten);
  }

  /** The method of TMO {@code qualifiedTmo} (`package.Name`) named {@code name}, or null. */
  private static Method find(List<Model> models, String qualifiedTmo, String name) {
    for (Model model : models) {
      final String prefix =
          model.getName() == null || model.getName().isEmpty() ? "" : model.getName() + ".";
      for (EObject element : model.getElements()) {
        if (element instanceof Tmo tmo && qualifiedTmo.equals(prefix + tmo.getName())) {
          for (Method method : tmo.getMethods()) {
            if (name.equals(method.getName())) {
              return method;
            }
          }
        }
      }
    }
    return null;
  }
}
