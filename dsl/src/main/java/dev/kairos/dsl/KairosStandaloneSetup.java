package dev.kairos.dsl;

/** Initialization support for running Xtext languages without Equinox extension registry. */
public class KairosStandaloneSetup extends KairosStandaloneSetupGenerated {

  public static void doSetup() {
    new KairosStandaloneSetup().createInjectorAndDoEMFRegistration();
  }
}
