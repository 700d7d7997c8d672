package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.KairosPackage;
import java.util.List;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.xtext.validation.AbstractDeclarativeValidator;
import org.eclipse.xtext.validation.EValidatorRegistrar;

/** Base of the per-concern validators that {@link KairosValidator} composes. */
abstract class ConcernValidator extends AbstractDeclarativeValidator {
  @Override
  protected List<EPackage> getEPackages() {
    return List.of(KairosPackage.eINSTANCE);
  }

  @Override
  public void register(EValidatorRegistrar registrar) {
    // Composed into KairosValidator, which is the one registered for the package.
  }
}
