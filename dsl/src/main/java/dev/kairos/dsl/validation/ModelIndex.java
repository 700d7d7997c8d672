package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Channel;
import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Network;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Tmo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.util.SimpleAttributeResolver;

/**
 * What the system-wide checks need to know about every file of a system, gathered in one pass and
 * shared by all checks of one validation run: without it, each TMO, deployment and node would walk
 * the whole system again, and a model of thousands of TMOs would validate in quadratic time.
 */
final class ModelIndex {
  /** Top-level declarations by qualified name (`pkg.Name`), in the system's order. */
  final Map<String, List<EObject>> topLevel = new HashMap<>();

  /** The first deployment of each TMO, and where it is. */
  final Map<Tmo, Deployment> firstDeployment = new HashMap<>();

  final Map<Tmo, Node> placement = new HashMap<>();

  /** The first node listening on each endpoint. */
  final Map<String, Node> firstOnEndpoint = new LinkedHashMap<>();

  final List<Network> networks = new ArrayList<>();

  /**
   * TMOs by lower-case qualified name: their generated files (in a folder per package) must differ
   * on any file system, including those that ignore case.
   */
  final Map<String, List<Tmo>> tmosByFoldedName = new HashMap<>();

  /** Nodes by lower-case simple name: each builds an executable of that name. */
  final Map<String, List<Node>> nodesByFoldedName = new HashMap<>();

  /** The first declaration of each real-time multicast channel, by name. */
  final Map<String, Channel> firstChannel = new HashMap<>();

  /**
   * By channel name, the deployments (in model order) whose TMO has a method that reads the
   * channel: the instances its fan-out counts.
   */
  final Map<String, List<Deployment>> channelReaders = new HashMap<>();

  /** The names of the channels some method of some TMO publishes. */
  final Set<String> publishedChannels = new HashSet<>();

  /** The names of the channels some method of some TMO reads. */
  final Set<String> readChannels = new HashSet<>();

  private ModelIndex(List<EObject> roots) {
    for (EObject root : roots) {
      if (!(root instanceof Model model)) {
        continue;
      }
      for (EObject element : model.getElements()) {
        final String name = SimpleAttributeResolver.NAME_RESOLVER.apply(element);
        if (name != null) {
          topLevel.computeIfAbsent(qualified(model, name), key -> new ArrayList<>()).add(element);
        }
        if (element instanceof Tmo tmo && tmo.getName() != null) {
          tmosByFoldedName
              .computeIfAbsent(
                  qualified(model, tmo.getName()).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
              .add(tmo);
          if (tmo.getEac() != null) {
            for (Channel channel : tmo.getEac().getChannels()) {
              if (channel.getName() != null) {
                firstChannel.putIfAbsent(channel.getName(), channel);
              }
            }
          }
          for (Method method : tmo.getMethods()) {
            for (Channel channel : method.getPublishes()) {
              if (channel != null && !channel.eIsProxy() && channel.getName() != null) {
                publishedChannels.add(channel.getName());
              }
            }
            for (Channel channel : method.getReads()) {
              if (channel != null && !channel.eIsProxy() && channel.getName() != null) {
                readChannels.add(channel.getName());
              }
            }
          }
        }
        if (element instanceof Node node && node.getName() != null) {
          nodesByFoldedName
              .computeIfAbsent(node.getName().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
              .add(node);
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
              for (String channel : channelsRead(tmo)) {
                channelReaders.computeIfAbsent(channel, k -> new ArrayList<>()).add(deployment);
              }
            }
          }
        } else if (element instanceof Network network) {
          networks.add(network);
        }
      }
    }
  }

  /** The names of the channels some method of a TMO reads, each once, in model order. */
  static Set<String> channelsRead(Tmo tmo) {
    final Set<String> names = new LinkedHashSet<>();
    for (Method method : tmo.getMethods()) {
      for (Channel channel : method.getReads()) {
        if (channel != null && !channel.eIsProxy() && channel.getName() != null) {
          names.add(channel.getName());
        }
      }
    }
    return names;
  }

  /** `pkg.Name`, or `Name` in a file without a package. */
  static String qualified(Model model, String name) {
    return model.getName() == null || model.getName().isEmpty()
        ? name
        : model.getName() + "." + name;
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
