package dev.kairos.languageserver;

import com.google.gson.JsonObject;
import com.google.inject.Inject;
import com.google.inject.Singleton;
import dev.kairos.languageserver.live.LatestAnalysis;
import dev.kairos.languageserver.live.LiveSchedulability;
import java.util.concurrent.CompletableFuture;
import org.eclipse.lsp4j.ClientCapabilities;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidChangeWatchedFilesParams;
import org.eclipse.lsp4j.DidCloseTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializeResult;
import org.eclipse.lsp4j.InitializedParams;
import org.eclipse.lsp4j.ServerCapabilities;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.xtext.ide.server.LanguageServerImpl;

/**
 * Xtext's language server with live schedulability: every change of the models restarts the
 * analysis's quiet period ({@link LiveSchedulability}); its diagnostics reach the editor merged
 * with validation's ({@link KairosWorkspaceManager}), its report as the `kairos/report`
 * notification.
 */
@Singleton
public class KairosLanguageServer extends LanguageServerImpl {
  /** How long the models must stay unchanged before the analysis runs. */
  public static final long DEFAULT_QUIET_MILLIS = 300;

  /** The initialization option that sets the quiet period, in milliseconds. */
  public static final String QUIET_OPTION = "analysisDelayMs";

  /** The initialization option that asks for the HTML page in each report notification. */
  public static final String HTML_OPTION = "reportHtml";

  /** The initialization option that asks for the architecture diagram (SVG) in each report. */
  public static final String ARCHITECTURE_OPTION = "architectureSvg";

  @Inject private LatestAnalysis latest;

  private volatile KairosLanguageClient kairosClient;
  private volatile LiveSchedulability live;

  @Override
  public void connect(LanguageClient client) {
    super.connect(client);
    kairosClient = client instanceof KairosLanguageClient kairos ? kairos : null;
  }

  @Override
  public CompletableFuture<InitializeResult> initialize(InitializeParams params) {
    // Xtext refuses a second initialize (it throws): only a first one gets its live analysis.
    final CompletableFuture<InitializeResult> result = super.initialize(params);
    live =
        new LiveSchedulability(
            getRequestManager(),
            (KairosWorkspaceManager) getWorkspaceManager(),
            latest,
            new LiveSchedulability.Publisher() {
              @Override
              public void report(JsonObject notification) {
                final KairosLanguageClient client = kairosClient;
                if (client != null) {
                  client.report(notification);
                }
              }

              @Override
              public void refreshCodeLenses() {
                if (clientRefreshesCodeLenses(params.getCapabilities())) {
                  getLanguageClient().refreshCodeLenses();
                }
              }
            },
            quietMillis(params),
            option(params, HTML_OPTION),
            option(params, ARCHITECTURE_OPTION));
    return result;
  }

  @Override
  protected ServerCapabilities createServerCapabilities(InitializeParams params) {
    final ServerCapabilities capabilities = super.createServerCapabilities(params);
    // Clients learn from here that this server sends `kairos/report` (docs/editors.md).
    final JsonObject kairos = new JsonObject();
    kairos.addProperty("reportNotification", KairosLanguageClient.REPORT);
    kairos.addProperty(QUIET_OPTION, quietMillis(params));
    final JsonObject experimental = new JsonObject();
    experimental.add("kairos", kairos);
    capabilities.setExperimental(experimental);
    return capabilities;
  }

  @Override
  public void initialized(InitializedParams params) {
    super.initialized(params);
    live.changed();
  }

  @Override
  public void didOpen(DidOpenTextDocumentParams params) {
    super.didOpen(params);
    changed();
  }

  @Override
  public void didChange(DidChangeTextDocumentParams params) {
    super.didChange(params);
    changed();
  }

  @Override
  public void didClose(DidCloseTextDocumentParams params) {
    super.didClose(params);
    changed();
  }

  @Override
  public void didChangeWatchedFiles(DidChangeWatchedFilesParams params) {
    super.didChangeWatchedFiles(params);
    changed();
  }

  @Override
  public CompletableFuture<Object> shutdown() {
    if (live != null) {
      live.stop();
    }
    return super.shutdown();
  }

  private void changed() {
    if (live != null) {
      live.changed();
    }
  }

  private static long quietMillis(InitializeParams params) {
    if (params.getInitializationOptions() instanceof JsonObject options
        && options.get(QUIET_OPTION) != null
        && options.get(QUIET_OPTION).isJsonPrimitive()
        && options.get(QUIET_OPTION).getAsJsonPrimitive().isNumber()) {
      return Math.max(0, Math.min(60_000, options.get(QUIET_OPTION).getAsLong()));
    }
    return DEFAULT_QUIET_MILLIS;
  }

  private static boolean option(InitializeParams params, String name) {
    return params.getInitializationOptions() instanceof JsonObject options
        && options.get(name) != null
        && options.get(name).isJsonPrimitive()
        && options.get(name).getAsJsonPrimitive().isBoolean()
        && options.get(name).getAsBoolean();
  }

  private static boolean clientRefreshesCodeLenses(ClientCapabilities capabilities) {
    return capabilities != null
        && capabilities.getWorkspace() != null
        && capabilities.getWorkspace().getCodeLens() != null
        && Boolean.TRUE.equals(capabilities.getWorkspace().getCodeLens().getRefreshSupport());
  }
}
