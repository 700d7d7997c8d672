package dev.kairos.languageserver;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.kairos.dsl.KairosRuntimeModule;
import dev.kairos.dsl.KairosStandaloneSetup;
import dev.kairos.dsl.ide.KairosIdeModule;
import dev.kairos.languageserver.live.LatestAnalysis;
import org.eclipse.lsp4j.services.LanguageServer;
import org.eclipse.xtext.ide.server.WorkspaceManager;
import org.eclipse.xtext.resource.FileExtensionProvider;
import org.eclipse.xtext.resource.IResourceServiceProvider;
import org.eclipse.xtext.resource.impl.ResourceServiceProviderRegistryImpl;
import org.eclipse.xtext.util.Modules2;

/**
 * The Kairos language server, bound over Xtext's ServerModule: the server with live schedulability,
 * the workspace that merges its diagnostics, and the Kairos language registered directly (runtime,
 * IDE and server-side services in one injector), not discovered through ServiceLoader, so exactly
 * this configuration serves `.tmo` files.
 */
public class KairosServerModule extends AbstractModule {
  private final LatestAnalysis latest = new LatestAnalysis();

  @Override
  protected void configure() {
    bind(LanguageServer.class).to(KairosLanguageServer.class);
    bind(WorkspaceManager.class).to(KairosWorkspaceManager.class);
    bind(LatestAnalysis.class).toInstance(latest);
  }

  @Provides
  @Singleton
  IResourceServiceProvider.Registry languages() {
    final Injector language = new Setup(latest).createInjectorAndDoEMFRegistration();
    final IResourceServiceProvider services = language.getInstance(IResourceServiceProvider.class);
    final IResourceServiceProvider.Registry registry = new ResourceServiceProviderRegistryImpl();
    for (String extension : language.getInstance(FileExtensionProvider.class).getFileExtensions()) {
      registry.getExtensionToFactoryMap().put(extension, services);
    }
    return registry;
  }

  /** The language as the server runs it: runtime, IDE services, then the server's own. */
  private static final class Setup extends KairosStandaloneSetup {
    private final LatestAnalysis latest;

    Setup(LatestAnalysis latest) {
      this.latest = latest;
    }

    @Override
    public Injector createInjector() {
      return Guice.createInjector(
          Modules2.mixin(
              new KairosRuntimeModule(),
              new KairosIdeModule(),
              new KairosLanguageServices(latest)));
    }
  }
}
