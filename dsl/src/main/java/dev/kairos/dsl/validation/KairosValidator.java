package dev.kairos.dsl.validation;

import org.eclipse.xtext.validation.ComposedChecks;

/**
 * Entry point of validation. Each concern lives in its own small validator; this class only
 * composes them (plus Xtext's unique-name check, configured in the MWE2 workflow).
 */
@ComposedChecks(
    validators = {
      TimingValidator.class,
      TypesValidator.class,
      InitialValueValidator.class,
      TmoValidator.class,
      PlatformValidator.class,
      NamingValidator.class,
      DeploymentValidator.class,
      PackageValidator.class,
      ChannelValidator.class,
      IdlNamesValidator.class,
      CapacityValidator.class
    })
public class KairosValidator extends AbstractKairosValidator {}
