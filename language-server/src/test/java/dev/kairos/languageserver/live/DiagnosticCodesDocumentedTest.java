package dev.kairos.languageserver.live;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.timing.MessageCapacity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every code the language server's analysis publishes is explained in docs/diagnostics.md. */
class DiagnosticCodesDocumentedTest {
  @Test
  void everySchedulabilityCodeIsDocumented() throws Exception {
    final String docs = Files.readString(Path.of("..", "docs", "diagnostics.md"));
    for (String code :
        List.of(
            SchedulabilityDiagnostic.UNSCHEDULABLE,
            SchedulabilityDiagnostic.MAY_MISS,
            SchedulabilityDiagnostic.NODE_UNSCHEDULABLE,
            SchedulabilityDiagnostic.REMOTE_CALL_UNSCHEDULABLE,
            MessageCapacity.MESSAGE_TOO_LARGE)) {
      assertTrue(docs.contains("| `" + code + "` |"), code + " is missing from diagnostics.md");
    }
  }
}
