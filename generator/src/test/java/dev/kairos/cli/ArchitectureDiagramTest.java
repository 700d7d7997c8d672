package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.diagram.ArchitectureDiagram;
import dev.kairos.reports.diagram.ArchitectureDiagram.Box;
import dev.kairos.reports.diagram.ArchitectureDiagram.BoxKind;
import dev.kairos.reports.diagram.ArchitectureDiagram.Link;
import dev.kairos.reports.diagram.ArchitectureDiagram.LinkKind;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.reports.diagram.ArchitectureModel;
import dev.kairos.reports.diagram.ArchitectureSvg;
import dev.kairos.reports.diagram.DiagramLayout;
import dev.kairos.reports.diagram.DiagramLayout.PlacedBox;
import dev.kairos.reports.diagram.DiagramLayout.PlacedLink;
import dev.kairos.reports.diagram.DiagramLayout.Point;
import dev.kairos.timing.HolisticAnalysis;
import dev.kairos.timing.TimingPlan;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The architecture diagram of examples/avionics: what it holds, how ELK lays it out, the SVG it
 * becomes, and `kairos diagram` / `kairos check --html` around it.
 */
class ArchitectureDiagramTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final String AVIONICS =
      REPOSITORY.resolve("examples/avionics/avionics.tmo").toString();

  private static SystemModel system;
  private static TimingPlan report;
  private static ArchitectureDiagram diagram;

  @TempDir Path temp;

  @BeforeAll
  static void loadAvionics() throws Exception {
    final ModelLoader.Loaded loaded = ModelLoader.create().load(List.of(Path.of(AVIONICS)));
    assertFalse(loaded.hasErrors(), loaded.diagnostics().toString());
    system = new ModelLowering(uri -> "avionics.tmo").lower("avionics", loaded.models());
    report = HolisticAnalysis.analyse(system);
    diagram = ArchitectureModel.of(system, report);
  }

  private static Map<String, Box> boxesById() {
    return diagram.allBoxes().stream().collect(Collectors.toMap(Box::id, b -> b));
  }

  private static Set<String> ids(List<Box> boxes) {
    return boxes.stream().map(Box::id).collect(Collectors.toSet());
  }

  @Test
  void nodesHoldTheirTmosAndTheServicesGatesCall() {
    assertEquals(
        List.of("node-mission1", "node-mission2", "channel-track", "network-lan"),
        diagram.boxes().stream().map(Box::id).toList());
    final Map<String, Box> boxes = boxesById();
    assertEquals(
        Set.of("tmo-mission1.nav", "tmo-mission1.hud", "tmo-mission1.planner"),
        ids(boxes.get("node-mission1").children()));
    assertEquals(
        Set.of("tmo-mission2.sensors", "tmo-mission2.tracker", "tmo-mission2.weapons"),
        ids(boxes.get("node-mission2").children()));
    assertEquals(Set.of("svm-mission1.nav.current"), ids(boxes.get("tmo-mission1.nav").children()));
    assertEquals(
        Set.of("svm-mission2.sensors.sample"), ids(boxes.get("tmo-mission2.sensors").children()));
    assertEquals(
        Set.of("svm-mission2.tracker.tracks"), ids(boxes.get("tmo-mission2.tracker").children()));
    assertTrue(boxes.get("tmo-mission1.hud").children().isEmpty(), "no gate calls hud");
    assertEquals(BoxKind.SERVICE, boxes.get("svm-mission1.nav.current").kind());
    assertEquals("hud : DisplayTMO", boxes.get("tmo-mission1.hud").title());
    assertEquals(
        List.of("X86 x1.0, 2 cores", "linux, muf", "schedulable"),
        boxes.get("node-mission1").details());
    assertEquals(List.of("rmmc<NavState>"), boxes.get("channel-track").details());
    assertEquals(
        List.of("latency 100 us, jitter 50 us, 100 Mbps"), boxes.get("network-lan").details());
    assertEquals(ArchitectureDiagram.Verdict.HOLDS, boxes.get("tmo-mission1.nav").verdict());
  }

  @Test
  void gatesChannelsAndNetworksAreLinks() {
    final Map<String, Link> links =
        diagram.links().stream().collect(Collectors.toMap(Link::id, l -> l));
    assertEquals(
        Set.of(
            "gate-mission1.hud.tracking",
            "gate-mission1.planner.sensors",
            "gate-mission2.tracker.navigation",
            "member-track-mission1.nav",
            "member-track-mission2.tracker",
            "joins-lan-mission1",
            "joins-lan-mission2"),
        links.keySet());
    final Link sensors = links.get("gate-mission1.planner.sensors");
    assertEquals(LinkKind.GATE, sensors.kind());
    assertEquals("tmo-mission1.planner", sensors.source());
    assertEquals("svm-mission2.sensors.sample", sensors.target());
    // network 2 x (100 + 50) us + sensors.sample's response 3250 us, as `kairos check` reports:
    // the holistic analysis adds the release jitter of the chains' requests to the interference
    // sensors.poll suffers from sensors.sample, which then waits longer for admission
    assertEquals(List.of("sensors: deadline 5 ms", "worst round trip 3.55 ms"), sensors.label());
    assertEquals(ArchitectureDiagram.Verdict.HOLDS, sensors.verdict());
    assertEquals(
        "svm-mission1.nav.current", links.get("gate-mission2.tracker.navigation").target());
    assertEquals(LinkKind.CHANNEL, links.get("member-track-mission2.tracker").kind());
    assertEquals("channel-track", links.get("member-track-mission2.tracker").target());
    assertEquals("node-mission2", links.get("joins-lan-mission2").target());
  }

  @Test
  void withoutAnAnalysisGatesCarryTheirDeadlineOnly() {
    final ArchitectureDiagram plain = ArchitectureModel.of(system, null);
    final Link sensors =
        plain.links().stream()
            .filter(l -> l.id().equals("gate-mission1.planner.sensors"))
            .findFirst()
            .orElseThrow();
    assertEquals(List.of("sensors: deadline 5 ms"), sensors.label());
    assertEquals(ArchitectureDiagram.Verdict.UNKNOWN, sensors.verdict());
  }

  @Test
  void theLayoutNestsBoxesWithoutOverlapsAndRoutesEveryLink() {
    final DiagramLayout.Placement placement = DiagramLayout.layout(diagram);
    assertEquals(diagram.allBoxes().size(), placement.boxes().size());
    final Map<String, PlacedBox> placed = new HashMap<>();
    placement.boxes().forEach(p -> placed.put(p.box().id(), p));
    for (PlacedBox box : placement.boxes()) {
      assertTrue(box.width() > 0 && box.height() > 0, box.box().id());
      assertTrue(
          box.x() >= 0
              && box.y() >= 0
              && box.x() + box.width() <= placement.width() + 0.01
              && box.y() + box.height() <= placement.height() + 0.01,
          box.box().id() + " inside the drawing");
    }
    // Siblings never overlap; children lie inside their parent.
    assertSiblingsApart(diagram.boxes(), placed);
    for (Box parent : diagram.allBoxes()) {
      assertSiblingsApart(parent.children(), placed);
      final PlacedBox outer = placed.get(parent.id());
      for (Box child : parent.children()) {
        final PlacedBox inner = placed.get(child.id());
        assertTrue(
            inner.x() >= outer.x()
                && inner.y() >= outer.y()
                && inner.x() + inner.width() <= outer.x() + outer.width()
                && inner.y() + inner.height() <= outer.y() + outer.height(),
            child.id() + " inside " + parent.id());
      }
    }
    assertEquals(diagram.links().size(), placement.links().size());
    for (PlacedLink link : placement.links()) {
      assertTrue(link.points().size() >= 2, link.link().id() + " has a route");
      // Orthogonal routing: every segment is horizontal or vertical.
      for (int i = 1; i < link.points().size(); i++) {
        final Point a = link.points().get(i - 1);
        final Point b = link.points().get(i);
        assertTrue(
            Math.abs(a.x() - b.x()) < 0.01 || Math.abs(a.y() - b.y()) < 0.01,
            link.link().id() + " segment " + a + " -> " + b);
      }
      // It starts on its source's border and ends on its target's.
      assertOnBorder(placed.get(link.link().source()), link.points().get(0), link.link().id());
      assertOnBorder(
          placed.get(link.link().target()),
          link.points().get(link.points().size() - 1),
          link.link().id());
      if (link.labelled()) {
        assertTrue(link.labelWidth() > 0 && link.labelHeight() > 0, link.link().id());
      }
    }
  }

  private static void assertSiblingsApart(List<Box> siblings, Map<String, PlacedBox> placed) {
    for (int i = 0; i < siblings.size(); i++) {
      for (int j = i + 1; j < siblings.size(); j++) {
        final PlacedBox a = placed.get(siblings.get(i).id());
        final PlacedBox b = placed.get(siblings.get(j).id());
        final boolean apart =
            a.x() + a.width() <= b.x()
                || b.x() + b.width() <= a.x()
                || a.y() + a.height() <= b.y()
                || b.y() + b.height() <= a.y();
        assertTrue(apart, a.box().id() + " overlaps " + b.box().id());
      }
    }
  }

  private static void assertOnBorder(PlacedBox box, Point point, String what) {
    final double slack = 1.0;
    final boolean inside =
        point.x() >= box.x() - slack
            && point.x() <= box.x() + box.width() + slack
            && point.y() >= box.y() - slack
            && point.y() <= box.y() + box.height() + slack;
    final boolean onEdge =
        Math.abs(point.x() - box.x()) <= slack
            || Math.abs(point.x() - box.x() - box.width()) <= slack
            || Math.abs(point.y() - box.y()) <= slack
            || Math.abs(point.y() - box.y() - box.height()) <= slack;
    assertTrue(inside && onEdge, what + ": " + point + " on the border of " + box);
  }

  @Test
  void theSvgIsWellFormedDeterministicAndNamesEveryElement() throws Exception {
    final String svg = ArchitectureDiagrams.svg(system, report);
    assertEquals(svg, ArchitectureDiagrams.svg(system, report), "same model, same bytes");
    final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    final Document document =
        factory
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertEquals("svg", document.getDocumentElement().getLocalName());
    final Set<String> ids = new java.util.HashSet<>();
    final NodeList groups = document.getElementsByTagName("g");
    for (int i = 0; i < groups.getLength(); i++) {
      final Element group = (Element) groups.item(i);
      if (!group.getAttribute("id").isEmpty()) {
        assertTrue(ids.add(group.getAttribute("id")), "unique id " + group.getAttribute("id"));
        assertEquals(
            "title",
            ((Element) group.getElementsByTagName("title").item(0)).getTagName(),
            "a tooltip on " + group.getAttribute("id"));
      }
    }
    for (Box box : diagram.allBoxes()) {
      assertTrue(ids.contains(ArchitectureSvg.ID_PREFIX + box.id()), box.id());
    }
    for (Link link : diagram.links()) {
      assertTrue(ids.contains(ArchitectureSvg.ID_PREFIX + link.id()), link.id());
    }
    // Model text is escaped: the channel's payload type has angle brackets.
    assertTrue(svg.contains(">rmmc&lt;NavState&gt;</text>"), "escaped text");
    assertTrue(svg.contains("marker-end=\"url(#arch-arrow)\""), "gates end in arrows");
  }

  @Test
  void kairosDiagramWritesTheSvg() throws Exception {
    final Path out = temp.resolve("deep/dir/avionics.svg");
    final CliRun run = CliRun.kairos("diagram", AVIONICS, "-o", out.toString());
    assertEquals(0, run.exit(), run.all());
    final String svg = Files.readString(out);
    assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg);
    assertTrue(svg.contains("id=\"arch-gate-mission1.planner.sensors\""));

    final CliRun toStdout = CliRun.kairos("diagram", AVIONICS);
    assertEquals(0, toStdout.exit(), toStdout.all());
    assertEquals(svg, toStdout.out());
  }

  @Test
  void kairosDiagramRejectsBadInputClearly() throws Exception {
    final CliRun directory = CliRun.kairos("diagram", AVIONICS, "-o", temp.toString());
    assertEquals(2, directory.exit());
    assertTrue(directory.err().contains("is a directory"), directory.err());

    final CliRun missing = CliRun.kairos("diagram", temp.resolve("none.tmo").toString());
    assertEquals(2, missing.exit(), missing.all());

    final Path broken = temp.resolve("broken.tmo");
    Files.writeString(broken, "node n { deploy Missing as m }\n");
    final CliRun errors =
        CliRun.kairos("diagram", broken.toString(), "-o", temp.resolve("b.svg").toString());
    assertEquals(1, errors.exit(), errors.all());
    assertTrue(errors.err().contains("no diagram drawn"), errors.err());
    assertFalse(Files.exists(temp.resolve("b.svg")));
  }

  @Test
  void theCheckPageShowsTheDiagram() throws Exception {
    final Path page = temp.resolve("report.html");
    final CliRun run = CliRun.kairos("check", AVIONICS, "--html", page.toString());
    assertEquals(0, run.exit(), run.all());
    final String html = Files.readString(page);
    assertTrue(html.contains("<section class=\"architecture\" id=\"architecture\">"), "section");
    final int architecture = html.indexOf("id=\"architecture\"");
    final int firstNode = html.indexOf("<section class=\"node\"");
    assertTrue(architecture > 0 && architecture < firstNode, "above the nodes' timelines");
    assertTrue(html.contains("class=\"kairos-architecture\""));
  }
}
