package dev.kairos.languageserver;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.util.Modules;
import java.util.concurrent.ExecutionException;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.services.LanguageServer;
import org.eclipse.xtext.ide.server.LaunchArgs;
import org.eclipse.xtext.ide.server.ServerLauncher;
import org.eclipse.xtext.ide.server.ServerModule;

/**
 * Starts the language server on stdin/stdout: `java -jar kairos-language-server.jar`. Xtext's
 * launcher options apply (`-log` keeps a log file, `-trace` traces messages, `-noValidate` skips
 * checking messages); the process ends when the client sends `exit` or closes stdin.
 */
public final class KairosLanguageServerMain {
  private KairosLanguageServerMain() {}

  public static void main(String[] args) throws InterruptedException {
    // Taken before anything can print: stdout carries the protocol, stray output goes elsewhere.
    final LaunchArgs launch = ServerLauncher.createLaunchArgs("kairos-language-server", args);
    final Injector injector =
        Guice.createInjector(Modules.override(new ServerModule()).with(new KairosServerModule()));
    final KairosLanguageServer server =
        (KairosLanguageServer) injector.getInstance(LanguageServer.class);
    final Launcher<KairosLanguageClient> launcher =
        Launcher.createLauncher(
            server,
            KairosLanguageClient.class,
            launch.getIn(),
            launch.getOut(),
            launch.isValidate(),
            launch.getTrace());
    server.connect(launcher.getRemoteProxy());
    try {
      launcher.startListening().get();
    } catch (ExecutionException closed) {
      // the client went away: nothing to answer any more
    }
    System.exit(0);
  }
}
