package dev.kairos.dsl;

import dev.kairos.dsl.parser.KairosSyntaxErrorMessages;
import dev.kairos.dsl.validation.DuplicateNameHelper;
import org.eclipse.xtext.parser.antlr.ISyntaxErrorMessageProvider;
import org.eclipse.xtext.validation.INamesAreUniqueValidationHelper;

/** Guice bindings of the Kairos language that differ from Xtext's defaults. */
public class KairosRuntimeModule extends AbstractKairosRuntimeModule {
  public Class<? extends INamesAreUniqueValidationHelper> bindINamesAreUniqueValidationHelper() {
    return DuplicateNameHelper.class;
  }

  public Class<? extends ISyntaxErrorMessageProvider> bindISyntaxErrorMessageProvider() {
    return KairosSyntaxErrorMessages.class;
  }
}
