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

  public Class<? extends org.eclipse.xtext.linking.ILinkingDiagnosticMessageProvider>
      bindILinkingDiagnosticMessageProvider() {
    return dev.kairos.dsl.linking.KairosLinkingMessages.class;
  }

  public Class<? extends ISyntaxErrorMessageProvider> bindISyntaxErrorMessageProvider() {
    return KairosSyntaxErrorMessages.class;
  }

  public Class<? extends org.eclipse.xtext.naming.IQualifiedNameConverter>
      bindIQualifiedNameConverter() {
    return dev.kairos.dsl.scoping.TolerantQualifiedNameConverter.class;
  }

  @Override
  public void configureIScopeProviderDelegate(com.google.inject.Binder binder) {
    binder
        .bind(org.eclipse.xtext.scoping.IScopeProvider.class)
        .annotatedWith(
            com.google.inject.name.Names.named(
                org.eclipse.xtext.scoping.impl.AbstractDeclarativeScopeProvider.NAMED_DELEGATE))
        .to(dev.kairos.dsl.scoping.TolerantNamespaceScopeProvider.class);
  }

  /**
   * Models are UTF-8 whatever the locale: with the platform default, a C locale would read every
   * non-ASCII character of a string or comment as garbage.
   */
  @Override
  public void configureRuntimeEncodingProvider(com.google.inject.Binder binder) {
    binder
        .bind(org.eclipse.xtext.parser.IEncodingProvider.class)
        .annotatedWith(org.eclipse.xtext.service.DispatchingProvider.Runtime.class)
        .toInstance(uri -> java.nio.charset.StandardCharsets.UTF_8.name());
  }

  public Class<? extends org.eclipse.xtext.documentation.IEObjectDocumentationProvider>
      bindIEObjectDocumentationProvider() {
    return dev.kairos.dsl.documentation.KairosDocumentation.class;
  }
}
