package dev.kairos.reports.diagram;

import dev.kairos.reports.diagram.ArchitectureDiagram.Box;
import dev.kairos.reports.diagram.ArchitectureDiagram.Link;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.elk.alg.layered.options.LayeredMetaDataProvider;
import org.eclipse.elk.alg.layered.options.LayeredOptions;
import org.eclipse.elk.core.RecursiveGraphLayoutEngine;
import org.eclipse.elk.core.data.LayoutMetaDataService;
import org.eclipse.elk.core.math.ElkPadding;
import org.eclipse.elk.core.math.KVector;
import org.eclipse.elk.core.options.CoreOptions;
import org.eclipse.elk.core.options.Direction;
import org.eclipse.elk.core.options.EdgeLabelPlacement;
import org.eclipse.elk.core.options.EdgeRouting;
import org.eclipse.elk.core.options.HierarchyHandling;
import org.eclipse.elk.core.options.SizeConstraint;
import org.eclipse.elk.core.util.BasicProgressMonitor;
import org.eclipse.elk.graph.ElkBendPoint;
import org.eclipse.elk.graph.ElkEdge;
import org.eclipse.elk.graph.ElkEdgeSection;
import org.eclipse.elk.graph.ElkLabel;
import org.eclipse.elk.graph.ElkNode;
import org.eclipse.elk.graph.util.ElkGraphUtil;

/**
 * Lays out an {@link ArchitectureDiagram} with the Eclipse Layout Kernel: its layered algorithm
 * over the whole hierarchy at once (nodes are compound boxes holding their TMOs, which hold their
 * called service methods), links routed orthogonally between boxes at any depth, labels placed by
 * the algorithm. Every coordinate comes from ELK; this class only sizes the boxes for their text
 * and converts ELK's relative coordinates into absolute ones. The same diagram gives the same
 * layout: ELK's layered algorithm is deterministic for a given input order and seed.
 */
public final class DiagramLayout {
  private DiagramLayout() {}

  /** A point of the drawing, in px from its top-left corner. */
  public record Point(double x, double y) {}

  /** A box where the layout put it (absolute coordinates); depth 0 for top-level boxes. */
  public record PlacedBox(Box box, int depth, double x, double y, double width, double height) {}

  /**
   * A link's route from its source's border to its target's border (at least two points), and the
   * box of its label (absent for an unlabelled link).
   */
  public record PlacedLink(
      Link link,
      List<Point> points,
      double labelX,
      double labelY,
      double labelWidth,
      double labelHeight) {
    public boolean labelled() {
      return !link.label().isEmpty();
    }
  }

  /** The laid-out diagram: boxes with parents before children, links in the diagram's order. */
  public record Placement(
      double width, double height, List<PlacedBox> boxes, List<PlacedLink> links) {}

  private static final double MIN_LEAF_WIDTH = 96;
  private static final double MARGIN = 12;

  static {
    // Outside OSGi, ELK finds its algorithms through META-INF/services; registering the one used
    // here explicitly keeps it working in shaded jars whatever their service files say.
    LayoutMetaDataService.getInstance()
        .registerLayoutMetaDataProviders(new LayeredMetaDataProvider());
  }

  public static Placement layout(ArchitectureDiagram diagram) {
    final ElkNode root = ElkGraphUtil.createGraph();
    root.setProperty(CoreOptions.ALGORITHM, LayeredOptions.ALGORITHM_ID);
    root.setProperty(CoreOptions.HIERARCHY_HANDLING, HierarchyHandling.INCLUDE_CHILDREN);
    root.setProperty(CoreOptions.EDGE_ROUTING, EdgeRouting.ORTHOGONAL);
    root.setProperty(CoreOptions.DIRECTION, Direction.RIGHT);
    root.setProperty(CoreOptions.PADDING, new ElkPadding(MARGIN));
    root.setProperty(LayeredOptions.SPACING_NODE_NODE, 24.0);
    root.setProperty(LayeredOptions.SPACING_NODE_NODE_BETWEEN_LAYERS, 40.0);
    root.setProperty(LayeredOptions.SPACING_EDGE_NODE_BETWEEN_LAYERS, 16.0);
    root.setProperty(LayeredOptions.SPACING_EDGE_EDGE, 12.0);
    root.setProperty(LayeredOptions.SPACING_EDGE_LABEL, 4.0);
    root.setProperty(LayeredOptions.RANDOM_SEED, 1);

    final Map<String, ElkNode> nodes = new HashMap<>();
    final Map<ElkNode, Box> boxes = new HashMap<>();
    for (Box box : diagram.boxes()) {
      add(root, box, nodes, boxes);
    }
    final List<ElkEdge> edges = new ArrayList<>();
    for (Link link : diagram.links()) {
      final ElkNode source = nodes.get(link.source());
      final ElkNode target = nodes.get(link.target());
      if (source == null || target == null) {
        throw new IllegalArgumentException("link " + link.id() + " joins an unknown box");
      }
      final ElkEdge edge = ElkGraphUtil.createSimpleEdge(source, target);
      edge.setIdentifier(link.id());
      if (!link.label().isEmpty()) {
        final ElkLabel label = ElkGraphUtil.createLabel(String.join("\n", link.label()), edge);
        label.setDimensions(
            TextMetrics.labelWidth(link.label()), TextMetrics.labelHeight(link.label()));
        label.setProperty(CoreOptions.EDGE_LABELS_PLACEMENT, EdgeLabelPlacement.CENTER);
      }
      edges.add(edge);
    }

    new RecursiveGraphLayoutEngine().layout(root, new BasicProgressMonitor());

    final List<PlacedBox> placedBoxes = new ArrayList<>();
    for (ElkNode child : root.getChildren()) {
      place(child, 0, 0, 0, boxes, placedBoxes);
    }
    final List<PlacedLink> placedLinks = new ArrayList<>();
    for (int i = 0; i < edges.size(); i++) {
      placedLinks.add(place(diagram.links().get(i), edges.get(i)));
    }
    return new Placement(
        root.getWidth(), root.getHeight(), List.copyOf(placedBoxes), List.copyOf(placedLinks));
  }

  private static void add(
      ElkNode parent, Box box, Map<String, ElkNode> nodes, Map<ElkNode, Box> boxes) {
    final ElkNode node = ElkGraphUtil.createNode(parent);
    node.setIdentifier(box.id());
    nodes.put(box.id(), node);
    boxes.put(node, box);
    final double textWidth = TextMetrics.textWidth(box.title(), box.details());
    final double header = TextMetrics.headerHeight(1 + box.details().size());
    if (box.children().isEmpty()) {
      node.setDimensions(
          Math.max(MIN_LEAF_WIDTH, textWidth + 2 * TextMetrics.PAD), header + TextMetrics.PAD / 2);
      return;
    }
    // A compound box: ELK sizes it around its children; the padding keeps its text clear of them
    // and the minimum size keeps the text inside.
    final double pad = TextMetrics.PAD * 1.5;
    node.setProperty(
        CoreOptions.PADDING, new ElkPadding(header + TextMetrics.PAD / 2, pad, pad, pad));
    node.setProperty(CoreOptions.NODE_SIZE_CONSTRAINTS, EnumSet.of(SizeConstraint.MINIMUM_SIZE));
    node.setProperty(
        CoreOptions.NODE_SIZE_MINIMUM,
        new KVector(textWidth + 2 * TextMetrics.PAD, header + 2 * TextMetrics.PAD));
    for (Box child : box.children()) {
      add(node, child, nodes, boxes);
    }
  }

  private static void place(
      ElkNode node,
      int depth,
      double offsetX,
      double offsetY,
      Map<ElkNode, Box> boxes,
      List<PlacedBox> into) {
    final double x = offsetX + node.getX();
    final double y = offsetY + node.getY();
    into.add(new PlacedBox(boxes.get(node), depth, x, y, node.getWidth(), node.getHeight()));
    for (ElkNode child : node.getChildren()) {
      place(child, depth + 1, x, y, boxes, into);
    }
  }

  private static PlacedLink place(Link link, ElkEdge edge) {
    // Route points and edge labels are relative to the edge's containing node.
    double offsetX = 0;
    double offsetY = 0;
    for (ElkNode n = edge.getContainingNode();
        n != null && n.getParent() != null;
        n = n.getParent()) {
      offsetX += n.getX();
      offsetY += n.getY();
    }
    final List<Point> points = new ArrayList<>();
    for (ElkEdgeSection section : edge.getSections()) {
      addPoint(points, offsetX + section.getStartX(), offsetY + section.getStartY());
      for (ElkBendPoint bend : section.getBendPoints()) {
        addPoint(points, offsetX + bend.getX(), offsetY + bend.getY());
      }
      addPoint(points, offsetX + section.getEndX(), offsetY + section.getEndY());
    }
    if (edge.getLabels().isEmpty()) {
      return new PlacedLink(link, List.copyOf(points), 0, 0, 0, 0);
    }
    final ElkLabel label = edge.getLabels().get(0);
    return new PlacedLink(
        link,
        List.copyOf(points),
        offsetX + label.getX(),
        offsetY + label.getY(),
        label.getWidth(),
        label.getHeight());
  }

  /** Adds a point unless it repeats the previous one (sections of one edge share their joints). */
  private static void addPoint(List<Point> points, double x, double y) {
    final Point point = new Point(x, y);
    if (points.isEmpty() || !points.get(points.size() - 1).equals(point)) {
      points.add(point);
    }
  }
}
