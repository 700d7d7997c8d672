"""`kairos diagram` and the architecture section of `kairos check --html`, as Chromium renders
them (Debian's chromium through Playwright, tests/e2e/browser.py): every box, link and label of
examples/avionics drawn, the text of each box inside it, a screenshot kept under
build/screenshots/."""

from pathlib import Path

import pytest

import browser
from conftest import ROOT, kairos

SCREENSHOTS = ROOT / "build" / "screenshots"
AVIONICS = "examples/avionics/avionics.tmo"

NODES = {"arch-node-mission1", "arch-node-mission2"}
TMOS = {f"arch-tmo-mission1.{i}" for i in ("nav", "hud", "planner")} | {
    f"arch-tmo-mission2.{i}" for i in ("sensors", "tracker", "weapons")}
GATES = {"arch-gate-mission1.hud.tracking", "arch-gate-mission1.planner.sensors",
         "arch-gate-mission2.tracker.navigation"}

# For each box: its rectangle and how far its text reaches, as laid out in the browser's font.
BOXES_JS = """() => [...document.querySelectorAll('g.box')].map(g => {
  const rect = g.querySelector(':scope > rect').getBBox();
  const texts = [...g.querySelectorAll(':scope > text')].map(t => t.getBBox());
  return {id: g.id, classes: g.getAttribute('class'),
          x: rect.x, y: rect.y, width: rect.width, height: rect.height,
          textRight: Math.max(...texts.map(t => t.x + t.width)),
          textBottom: Math.max(...texts.map(t => t.y + t.height))};
})"""
LINKS_JS = """() => [...document.querySelectorAll('g.link')].map(g => ({
  id: g.id, classes: g.getAttribute('class'),
  length: g.querySelector('path').getTotalLength(),
  label: [...g.querySelectorAll('text')].map(t => t.textContent)}))"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with browser.chromium_profile(
        tmp_path_factory.mktemp("profile"), viewport={"width": 1400, "height": 900}
    ) as ctx:
        ctx.set_default_timeout(30_000)
        yield ctx.pages[0] if ctx.pages else ctx.new_page()


def test_kairos_diagram_draws_the_avionics_architecture(page, tmp_path):
    svg = tmp_path / "avionics.svg"
    result = kairos("diagram", AVIONICS, "-o", svg)
    assert result.returncode == 0, result.stderr
    page.goto(svg.as_uri())
    page.wait_for_selector("#arch-diagram")

    boxes = {box["id"]: box for box in page.evaluate(BOXES_JS)}
    assert NODES | TMOS | {"arch-channel-track", "arch-network-lan"} <= boxes.keys()
    for box in boxes.values():
        assert box["width"] > 0 and box["height"] > 0, box
        # The layout sized the box for its text: the rendered text stays inside it.
        assert box["textRight"] <= box["x"] + box["width"] + 0.5, box
        assert box["textBottom"] <= box["y"] + box["height"] + 0.5, box

    links = {link["id"]: link for link in page.evaluate(LINKS_JS)}
    assert GATES <= links.keys()
    assert {"arch-member-track-mission1.nav", "arch-member-track-mission2.tracker",
            "arch-joins-lan-mission1", "arch-joins-lan-mission2"} <= links.keys()
    assert all(link["length"] > 0 for link in links.values())
    assert links["arch-gate-mission1.planner.sensors"]["label"] == [
        "sensors: deadline 5 ms", "worst round trip 3.55 ms"]

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "avionics-architecture.png"
    shot.unlink(missing_ok=True)
    page.locator("#arch-diagram").screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000, "a drawing, not a blank image"


def test_the_check_page_shows_the_architecture_above_the_timelines(page, tmp_path):
    report = tmp_path / "report.html"
    result = kairos("check", AVIONICS, "--html", report)
    assert result.returncode == 0, result.stderr
    page.goto(report.as_uri())
    section = page.locator("section#architecture")
    section.wait_for()
    assert section.locator("h2").inner_text() == "Architecture"
    diagram = section.locator("svg.kairos-architecture")
    assert diagram.is_visible()
    assert {"width", "height"} <= diagram.bounding_box().keys()
    assert diagram.bounding_box()["width"] > 400
    assert section.locator("g.gate").count() == len(GATES)
    # Above the first node's timeline.
    assert page.evaluate("""() => {
      const arch = document.querySelector('section#architecture');
      const node = document.querySelector('section.node');
      return !!(arch.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    # The page's own styles leave the diagram's text alone.
    title = section.locator("#arch-node-mission1 text.title")
    assert title.evaluate("t => getComputedStyle(t).fontWeight") in ("700", "bold")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SCREENSHOTS / "avionics-report-architecture.png"))
