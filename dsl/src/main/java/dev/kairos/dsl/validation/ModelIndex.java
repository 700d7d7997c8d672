package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Network;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Tmo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.util.SimpleAttributeResolver;

/**
 * What the system-wide checks need to know about every file of a system, gathered in one pass and
 * shared by all checks of one validation run: without it, each TMO, deployment and node would walk
 * the whole system again, and a model of thousands of TMOs would validate in quadratic time.
 */
final class ModelIndex {
  /** Top-level declarations by name, in the system's order. */
  final Map<String, List<EObject>> topLevel = new HashMap<>();

  /** The first deployment of each TMO, and where it is. */
  final Map<Tmo, Deployment> firstDeployment = new HashMap<>();

  final Map<Tmo, Node> placement = new HashMap<>();

  /** The first node listening on each endpoint. */
  final Map<String, Node> firstOnEndpoint = new LinkedHashMap<>();

  final List<Network> networks = new ArrayList<>();

  /** TMOs by lower-case name: generated file names must differ on any file system. */
  final Map<String, List<Tmo>> tmosByFoldedName = new HashMap<>();

  private ModelIndex(List<EObject> roots) {
    for (EObject root : roots) {
      if (!(root instanceof Model model)) {
        continue;
      }
      for (EObject element : model.getElements()) {
        final String name = SimpleAttributeResolver.NAME_RESOLVER.apply(element);
        if (name != null) {
          topLevel.computeIfAbsent(name, key -> new ArrayList<>()).add(element);
        }
        if (element instanceof Tmo tmo && tmo.getName() != null) {
          tmosByFoldedName
              .computeIfAbsent(
                  tmo.getName().toLowerCase(java.util.Locale.ROOT), k -> new ArrayList<>())
              .add(tmo);
        }
        if (element instanceof Node node) {
          if (node.getEndpoint() != null) {
            firstOnEndpoint.putIfAbsent(node.getEndpoint(), node);
          }
          for (Deployment deployment : node.getDeployments()) {
            final Tmo tmo = deployment.getTmo();
            if (tmo != null && !tmo.eIsProxy()) {
              firstDeployment.putIfAbsent(tmo, deployment);
              placement.putIfAbsent(tmo, node);
            }
          }
        } else if (element instanceof Network network) {
          networks.add(network);
        }
      }
    }
  }

  /** The index of the system `context` belongs to, built once per validation run. */
  static ModelIndex of(EObject context, Map<Object, Object> validationContext) {
    final Object key = ModelIndex.class;
    final Object cached = validationContext == null ? null : validationContext.get(key);
    if (cached instanceof ModelIndex index) {
      return index;
    }
    final ModelIndex index = new ModelIndex(roots(context));
    if (validationContext != null) {
      validationContext.put(key, index);
    }
    return index;
  }

  static List<EObject> roots(EObject context) {
    final List<EObject> roots = new ArrayList<>();
    final Resource resource = context.eResource();
    if (resource == null) {
      return roots;
    }
    if (resource.getResourceSet() == null) {
      roots.addAll(resource.getContents());
      return roots;
    }
    for (Resource other : resource.getResourceSet().getResources()) {
      roots.addAll(other.getContents());
    }
    return roots;
  }
}
