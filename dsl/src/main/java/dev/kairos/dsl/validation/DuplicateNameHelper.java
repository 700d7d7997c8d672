package dev.kairos.dsl.validation;

import org.eclipse.xtext.validation.NamesAreUniqueValidationHelper;

/** Xtext's unique-name check, reporting under a Kairos issue code. */
public class DuplicateNameHelper extends NamesAreUniqueValidationHelper {
  @Override
  protected String getErrorCode() {
    return IssueCodes.DUPLICATE_NAME;
  }
}
