package dev.kairos.languageserver;

import com.google.gson.JsonObject;
import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;
import org.eclipse.lsp4j.services.LanguageClient;

/** The editor as the Kairos server sees it: an LSP client that also receives analysis reports. */
public interface KairosLanguageClient extends LanguageClient {
  /** The method name of the report notification (docs/editors.md describes its payload). */
  String REPORT = "kairos/report";

  /**
   * After each run of the live analysis: the JSON report of `kairos check --format json` for the
   * workspace's models, whether they were analysed (and why not) and the document versions seen.
   */
  @JsonNotification(REPORT)
  void report(JsonObject report);
}
