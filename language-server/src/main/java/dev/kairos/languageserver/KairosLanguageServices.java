package dev.kairos.languageserver;

import com.google.inject.Binder;
import dev.kairos.languageserver.live.LatestAnalysis;
import dev.kairos.languageserver.services.KairosCodeActions;
import dev.kairos.languageserver.services.KairosHover;
import dev.kairos.languageserver.services.SchedulabilityLenses;
import org.eclipse.xtext.ide.server.codeActions.ICodeActionService2;
import org.eclipse.xtext.ide.server.codelens.ICodeLensService;
import org.eclipse.xtext.ide.server.hover.IHoverService;
import org.eclipse.xtext.service.AbstractGenericModule;

/**
 * The language's services that need the live analysis (bound over dsl.ide's KairosIdeModule, which
 * holds those that need only the language): hover with analysed figures, code lenses, quick fixes.
 */
public class KairosLanguageServices extends AbstractGenericModule {
  private final LatestAnalysis latest;

  public KairosLanguageServices(LatestAnalysis latest) {
    this.latest = latest;
  }

  public void configureLatestAnalysis(Binder binder) {
    binder.bind(LatestAnalysis.class).toInstance(latest);
  }

  public Class<? extends IHoverService> bindIHoverService() {
    return KairosHover.class;
  }

  public Class<? extends ICodeLensService> bindICodeLensService() {
    return SchedulabilityLenses.class;
  }

  public Class<? extends ICodeActionService2> bindICodeActionService2() {
    return KairosCodeActions.class;
  }
}
