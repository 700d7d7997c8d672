package dev.kairos.dsl.validation;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.Element;
import dev.kairos.dsl.kairos.Import;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.emf.ecore.EcorePackage;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.naming.IQualifiedNameConverter;
import org.eclipse.xtext.naming.IQualifiedNameProvider;
import org.eclipse.xtext.naming.QualifiedName;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.resource.IEObjectDescription;
import org.eclipse.xtext.resource.IResourceDescriptions;
import org.eclipse.xtext.resource.XtextResource;
import org.eclipse.xtext.resource.impl.ResourceDescriptionsProvider;
import org.eclipse.xtext.validation.Check;

/**
 * Files, packages and imports: a package's names are unique across all its files, every import
 * imports something, and a file declares something. The system is what the index holds (every file
 * given to one command, every file of an editor's workspace), so these checks see other files
 * without loading them.
 */
public class PackageValidator extends ConcernValidator {
  @Inject private ResourceDescriptionsProvider descriptionsProvider;
  @Inject private IQualifiedNameProvider qualifiedNames;
  @Inject private IQualifiedNameConverter nameConverter;

  /** Within one file Xtext's unique-name check applies; this one looks across files. */
  @Check
  public void checkNamesUniqueAcrossFiles(Model model) {
    final Resource resource = model.eResource();
    if (resource == null) {
      return;
    }
    final IResourceDescriptions index = descriptionsProvider.getResourceDescriptions(resource);
    final Map<QualifiedName, Integer> inThisFile = new HashMap<>();
    for (Element element : model.getElements()) {
      final QualifiedName name = qualifiedNames.getFullyQualifiedName(element);
      if (name != null) {
        inThisFile.merge(name, 1, Integer::sum);
      }
    }
    for (Element element : model.getElements()) {
      final QualifiedName name = qualifiedNames.getFullyQualifiedName(element);
      if (name == null || name.isEmpty() || inThisFile.get(name) > 1) {
        continue; // a duplicate within this file is reported as such
      }
      for (IEObjectDescription other :
          index.getExportedObjects(EcorePackage.Literals.EOBJECT, name, false)) {
        if (other.getEClass() == Literals.MODEL || inResource(resource, other)) {
          continue;
        }
        error(
            DeclarationKinds.word(element)
                + " '"
                + name.getLastSegment()
                + "' is also declared in "
                + where(resource, other)
                + (name.getSegmentCount() > 1
                    ? "; package " + name.skipLast(1) + " declares each name once, across its files"
                    : "; outside packages, each name is declared once across all files"),
            element,
            nameFeature(element),
            IssueCodes.DUPLICATE_NAME);
        break;
      }
    }
  }

  /** Whether a description is of a declaration in `resource` (URIs in an index are normalized). */
  private static boolean inResource(Resource resource, IEObjectDescription description) {
    final EObject object = description.getEObjectOrProxy();
    if (object != null && !object.eIsProxy()) {
      return object.eResource() == resource;
    }
    final URI uri = description.getEObjectURI().trimFragment();
    if (uri.equals(resource.getURI())) {
      return true;
    }
    final var resourceSet = resource.getResourceSet();
    return resourceSet != null
        && resourceSet
            .getURIConverter()
            .normalize(uri)
            .equals(resourceSet.getURIConverter().normalize(resource.getURI()));
  }

  /** "b.tmo:3" when the other file is loaded here, else "b.tmo". */
  private static String where(Resource resource, IEObjectDescription other) {
    final URI uri = other.getEObjectURI();
    final String file = URI.decode(uri.trimFragment().lastSegment());
    final EObject loaded =
        resource.getResourceSet() == null ? null : resource.getResourceSet().getEObject(uri, false);
    final INode node = loaded == null ? null : NodeModelUtils.getNode(loaded);
    return node == null ? file : file + ":" + node.getStartLine();
  }

  private static EStructuralFeature nameFeature(EObject element) {
    return element.eClass().getEStructuralFeature("name");
  }

  /**
   * An import names a package (with `.*`) or a declaration that some file of the system has; a
   * misspelt or missing one would otherwise only show up as unresolved names further down.
   */
  @Check
  public void checkImportMatchesSomething(Import imported) {
    final String text = imported.getImportedNamespace();
    if (text == null || text.isBlank()) {
      return;
    }
    final boolean wildcard = text.endsWith(".*");
    final QualifiedName name =
        nameConverter.toQualifiedName(wildcard ? text.substring(0, text.length() - 2) : text);
    if (name.isEmpty() || imported.eResource() == null) {
      return;
    }
    final IResourceDescriptions index =
        descriptionsProvider.getResourceDescriptions(imported.eResource());
    boolean found = false;
    for (IEObjectDescription declared :
        index.getExportedObjects(EcorePackage.Literals.EOBJECT, name, false)) {
      if (wildcard || declared.getEClass() != Literals.MODEL) {
        found = true;
        break;
      }
    }
    if (!found && wildcard) {
      for (IEObjectDescription pkg : index.getExportedObjectsByType(Literals.MODEL)) {
        if (pkg.getName().startsWith(name)) {
          found = true;
          break;
        }
      }
    }
    if (!found) {
      error(
          "import "
              + text
              + " matches nothing: "
              + (wildcard
                  ? "no file of the system is in package " + name + " or a package inside it"
                  : "no file of the system declares " + name)
              + " (all files of a system are given to one kairos command)",
          Literals.IMPORT__IMPORTED_NAMESPACE,
          IssueCodes.UNRESOLVED_IMPORT);
    }
  }

  /** A file that declares nothing is most likely the wrong file, or one saved empty. */
  @Check
  public void checkDeclaresSomething(Model model) {
    if (!model.getElements().isEmpty()
        || (model.eResource() instanceof XtextResource resource
            && resource.getParseResult() != null
            && resource.getParseResult().hasSyntaxErrors())) {
      return;
    }
    warning(
        "this file declares nothing (no types, interfaces, TMOs or platform)",
        model,
        model.getName() != null ? Literals.MODEL__NAME : null,
        IssueCodes.EMPTY_MODEL);
  }
}
