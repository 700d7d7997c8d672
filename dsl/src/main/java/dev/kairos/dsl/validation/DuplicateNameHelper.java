package dev.kairos.dsl.validation;

import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.xtext.resource.IEObjectDescription;
import org.eclipse.xtext.validation.NamesAreUniqueValidationHelper;

/**
 * Xtext's unique-name check within one file, reporting in Kairos's words and under a Kairos issue
 * code. (Across the files of a package, {@link PackageValidator} checks the same rule.)
 */
public class DuplicateNameHelper extends NamesAreUniqueValidationHelper {
  @Override
  protected String getErrorCode() {
    return IssueCodes.DUPLICATE_NAME;
  }

  @Override
  public String getDuplicateNameErrorMessage(
      IEObjectDescription description, EClass clusterType, EStructuralFeature feature) {
    final EObject declaration = description.getEObjectOrProxy();
    final String name = description.getName().getLastSegment();
    return DeclarationKinds.word(declaration)
        + " '"
        + name
        + "' is declared more than once in "
        + DeclarationKinds.scopeOf(declaration)
        + "; names in one scope must differ, whatever they declare";
  }
}
