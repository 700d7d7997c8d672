package dev.kairos.dsl.ide;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.kairos.dsl.KairosRuntimeModule;
import dev.kairos.dsl.KairosStandaloneSetup;
import org.eclipse.xtext.util.Modules2;

/** Initialization support for running Xtext languages as language servers. */
public class KairosIdeSetup extends KairosStandaloneSetup {

  @Override
  public Injector createInjector() {
    return Guice.createInjector(Modules2.mixin(new KairosRuntimeModule(), new KairosIdeModule()));
  }
}
