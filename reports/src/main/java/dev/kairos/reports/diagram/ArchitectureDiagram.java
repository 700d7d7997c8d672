package dev.kairos.reports.diagram;

import java.util.List;

/**
 * The architecture of a system as boxes and links, before any layout: what the diagram shows, with
 * no positions. Nodes contain their deployed TMOs, TMOs contain the service methods other TMOs
 * call; channels and networks are boxes of their own. Built from the IR by {@link
 * ArchitectureModel}, laid out by {@link DiagramLayout}, drawn by {@link ArchitectureSvg}.
 *
 * @param boxes the top-level boxes, in a stable order (nodes, channels, networks)
 * @param links every link, in a stable order (gates, channel members, network members)
 */
public record ArchitectureDiagram(List<Box> boxes, List<Link> links) {

  public enum BoxKind {
    NODE,
    TMO,
    SERVICE,
    CHANNEL,
    NETWORK
  }

  public enum LinkKind {
    /** A remote call: from the calling TMO to the service method its gate names. */
    GATE,
    /** A TMO that publishes or subscribes to a channel. */
    CHANNEL,
    /** A node that a network joins. */
    NETWORK
  }

  /** What the analysis says of an element: unknown without an analysis. */
  public enum Verdict {
    UNKNOWN,
    HOLDS,
    FAILS
  }

  /**
   * A box of the diagram.
   *
   * @param id unique in the diagram, stable across runs (used as the SVG element's id)
   * @param title its first line
   * @param details further lines under the title
   * @param tooltip the text a viewer shows on hover
   * @param children boxes drawn inside it
   */
  public record Box(
      String id,
      BoxKind kind,
      String title,
      List<String> details,
      String tooltip,
      Verdict verdict,
      List<Box> children) {}

  /**
   * A link between two boxes (by id).
   *
   * @param label the lines written beside the link, none for an unlabelled one
   */
  public record Link(
      String id,
      LinkKind kind,
      String source,
      String target,
      List<String> label,
      String tooltip,
      Verdict verdict) {}

  /** Every box, parents before their children, in the diagram's order. */
  public List<Box> allBoxes() {
    final java.util.ArrayList<Box> all = new java.util.ArrayList<>();
    collect(boxes, all);
    return all;
  }

  private static void collect(List<Box> level, List<Box> into) {
    for (Box box : level) {
      into.add(box);
      collect(box.children(), into);
    }
  }
}
