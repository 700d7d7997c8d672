package dev.kairos.generator.verdicts;

import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Tmo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.nodemodel.ICompositeNode;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.util.LineAndColumn;

/**
 * Finds the model elements the analysis speaks of. The analysis names a TMO class by its package
 * and name, a method by its name inside the class, a node by its name: the same keys are read off
 * the EMF model here, so findings land on the elements they concern, in whichever file.
 */
public final class ModelElements {
  private final Map<String, Tmo> tmos = new HashMap<>();
  private final Map<String, Node> nodes = new HashMap<>();

  public ModelElements(List<Model> models) {
    for (Model model : models) {
      for (EObject element : model.getElements()) {
        if (element instanceof Tmo tmo && tmo.getName() != null) {
          tmos.putIfAbsent(qualifiedName(tmo), tmo);
        } else if (element instanceof Node node && node.getName() != null) {
          nodes.putIfAbsent(node.getName(), node);
        }
      }
    }
  }

  /** The name the IR gives a TMO class: its package, a dot, its name (`avionics.SensorTMO`). */
  public static String qualifiedName(Tmo tmo) {
    final Model model = EcoreUtil2.getContainerOfType(tmo, Model.class);
    final String namespace = model == null ? null : model.getName();
    return namespace == null || namespace.isEmpty()
        ? tmo.getName()
        : namespace + "." + tmo.getName();
  }

  /** The key of a method in analysis results: its class's qualified name, '#', its name. */
  public static String methodKey(String tmoQualifiedName, String method) {
    return tmoQualifiedName + "#" + method;
  }

  /** The key of a method of the EMF model, or empty while it is incomplete. */
  public static Optional<String> methodKey(Method method) {
    if (method.getName() == null || !(method.eContainer() instanceof Tmo tmo)) {
      return Optional.empty();
    }
    return Optional.of(methodKey(qualifiedName(tmo), method.getName()));
  }

  public Optional<Method> method(String tmoQualifiedName, String name) {
    final Tmo tmo = tmos.get(tmoQualifiedName);
    if (tmo == null) {
      return Optional.empty();
    }
    return tmo.getMethods().stream().filter(m -> name.equals(m.getName())).findFirst();
  }

  public Optional<Gate> gate(String tmoQualifiedName, String name) {
    final Tmo tmo = tmos.get(tmoQualifiedName);
    if (tmo == null || tmo.getEac() == null) {
      return Optional.empty();
    }
    return tmo.getEac().getGates().stream().filter(g -> name.equals(g.getName())).findFirst();
  }

  public Optional<Node> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  /** Where an element's name is written, in offsets and in lines and columns from 1. */
  public record Region(int offset, int length, int line, int column, int endLine, int endColumn) {}

  /** The region of an element's name, or of the whole element when it has none. */
  public static Optional<Region> nameRegion(EObject element) {
    final EStructuralFeature name = element.eClass().getEStructuralFeature("name");
    INode node = null;
    if (name != null) {
      final List<INode> named = NodeModelUtils.findNodesForFeature(element, name);
      node = named.isEmpty() ? null : named.get(0);
    }
    if (node == null) {
      node = NodeModelUtils.getNode(element);
    }
    if (node == null) {
      return Optional.empty();
    }
    final ICompositeNode root = node.getRootNode();
    final LineAndColumn start = NodeModelUtils.getLineAndColumn(root, node.getOffset());
    final LineAndColumn end = NodeModelUtils.getLineAndColumn(root, node.getEndOffset());
    return Optional.of(
        new Region(
            node.getOffset(),
            node.getLength(),
            start.getLine(),
            start.getColumn(),
            end.getLine(),
            end.getColumn()));
  }
}
