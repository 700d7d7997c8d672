package dev.kairos.dsl.scoping;

import org.eclipse.xtext.scoping.impl.ImportNormalizer;
import org.eclipse.xtext.scoping.impl.ImportedNamespaceAwareLocalScopeProvider;

/**
 * Xtext's import scoping, tolerant of the half-written imports an editor sees while typing (`import
 * .`, `import a..b`): such an import resolves nothing instead of failing the whole resource. The
 * syntax error is reported by the parser.
 */
public class TolerantNamespaceScopeProvider extends ImportedNamespaceAwareLocalScopeProvider {
  @Override
  protected ImportNormalizer doCreateImportNormalizer(
      org.eclipse.xtext.naming.QualifiedName importedNamespace,
      boolean wildcard,
      boolean ignoreCase) {
    if (importedNamespace == null || importedNamespace.isEmpty()) {
      // A damaged package name (`package .`): scope as if there were no package.
      return new ImportNormalizer(
          org.eclipse.xtext.naming.QualifiedName.create("__kairos_unnamed__"),
          wildcard,
          ignoreCase);
    }
    return super.doCreateImportNormalizer(importedNamespace, wildcard, ignoreCase);
  }

  @Override
  protected ImportNormalizer createImportedNamespaceResolver(String namespace, boolean ignoreCase) {
    if (namespace == null || namespace.isBlank()) {
      return null;
    }
    try {
      return super.createImportedNamespaceResolver(namespace, ignoreCase);
    } catch (IllegalArgumentException malformed) {
      return null;
    }
  }
}
