"""`kairos check --html`: the page as a browser renders it (headless Chromium), plus a screenshot.

Chromium is Debian's `chromium` package (scripts/setup-tests.sh installs it). Since Chromium 132 plain
`--headless` is the new headless mode (the old one is a separate binary now), so the flag is
spelled without a value and works with older and newer builds alike.
"""

import re
import shutil
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import OVERLOADED_MODEL, ROOT, kairos, run

BROWSER_TIMEOUT_S = 120
SCREENSHOT = ROOT / "build" / "reports" / "avionics-check.png"
WINDOW = (1400, 2400)

AVIONICS_NODES = {"mission1", "mission2"}
AVIONICS_TASKS = {
    "nav.update", "nav.current", "nav.nudge", "nav.setRoute", "hud.refresh", "hud.status",
    "planner.replan", "planner.log", "sensors.poll", "sensors.sample", "tracker.fuse",
    "tracker.tracks", "tracker.rank", "weapons.status", "weapons.bit", "hud.survey",
    "tracker.locate",
}


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is not installed: run scripts/setup-tests.sh (Debian package 'chromium')")


def browse(page: Path, profile: Path, *extra: str):
    """Opens a local page in headless Chromium with a throw-away profile and no network use."""
    return run(
        [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--no-first-run", "--hide-scrollbars",
            "--force-device-scale-factor=1", f"--user-data-dir={profile}", *extra,
            page.resolve().as_uri(),
        ],
        timeout=BROWSER_TIMEOUT_S,
    )


class Elements(HTMLParser):
    """Every element of a document as (tag, attributes), and the text of each task row."""

    def __init__(self):
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def having(self, tag: str, css_class: str | None = None) -> list[dict[str, str]]:
        return [
            attrs for name, attrs in self.elements
            if name == tag and (css_class is None or css_class in attrs.get("class", "").split())
        ]


@pytest.fixture(scope="module")
def avionics_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    page = out / "report.html"
    result = kairos("check", "examples/avionics/avionics.tmo", "--html", page)
    assert result.returncode == 0, result.stderr
    assert "all nodes schedulable" in result.stdout, "the text report is printed as before"
    assert page.is_file()
    return page


def test_the_rendered_page_shows_every_node_task_and_timeline(avionics_page, tmp_path):
    result = browse(avionics_page, tmp_path / "profile", "--dump-dom")
    dom = Elements()
    dom.feed(result.stdout)

    nodes = {attrs["data-node"] for attrs in dom.having("section", "node")}
    assert nodes == AVIONICS_NODES
    # Per node the timeline drawn where no script runs and the interactive one the script draws
    # over it, by the same renderer: each a lane per core, with the instances it runs.
    timelines = dom.having("svg", "kt-svg")
    assert len(timelines) == 4, "a static and an interactive SVG timeline per node"
    static = [t.split("</svg>")[0] for t in result.stdout.split('<div class="static-timeline">')[1:]]
    assert len(static) == 2, "a static timeline per node"
    lanes = re.findall(r'kt-lane-label">(core \d)</text><text [^>]*>([^<]*)</text>', result.stdout)
    # Each node's interactive view comes before its static one.
    assert lanes == [("core 0", "nav"), ("core 1", "hud, planner")] * 2 + [
        ("core 0", "sensors, weapons"), ("core 1", "tracker")] * 2, lanes
    executions = dom.having("rect", "kt-exec")
    assert len(executions) >= 4, "execution bars on every timeline"
    assert all(float(attrs["width"]) > 0 for attrs in executions)
    assert dom.having("path", "kt-release") and dom.having("path", "kt-deadline")
    assert dom.having("rect", "kt-window"), "start windows shaded"
    assert all("<title>" in view and "kt-exec" in view for view in static), "tooltips as titles"
    tasks = [attrs["data-task"] for attrs in dom.having("tr", "task")]
    assert sorted(tasks) == sorted(AVIONICS_TASKS)
    assert dom.having("table", "bcc")
    assert dom.having("tr", "gate"), "the remote call planner.sensors -> sensors.sample"
    scripts = dom.having("script")
    assert scripts and not [s for s in scripts if "src" in s], "inline scripts only"
    assert dom.having("div", "kt-view"), "the interactive timeline (test_report_timeline.py)"
    assert "all nodes schedulable" in result.stdout


def test_a_screenshot_of_the_page_is_kept(avionics_page, tmp_path):
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    browse(
        avionics_page, tmp_path / "profile",
        f"--screenshot={SCREENSHOT}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
    )
    data = SCREENSHOT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "a PNG file"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == WINDOW
    # A blank or broken page compresses to a few kilobytes; the report is text, tables and SVG.
    assert 20_000 < len(data) < 20_000_000, len(data)


def test_an_unschedulable_model_still_gets_its_page(tmp_path):
    model = tmp_path / "overload.tmo"
    model.write_text(OVERLOADED_MODEL)
    page = tmp_path / "out" / "overload.html"
    result = kairos("check", model, "--html", page, cwd=tmp_path)
    assert result.returncode == 1
    text = page.read_text()
    assert "not schedulable" in text
    assert 'class="kt-activation window-missed"' in text


def test_a_page_that_cannot_be_written_is_a_usage_error(tmp_path):
    result = kairos("check", "examples/hello/hello.tmo", "--html", tmp_path)
    assert result.returncode == 2
    assert "cannot write the HTML report" in result.stderr
    assert "Exception" not in result.stderr
