"""The interactive timeline of `kairos check --html`, used in headless Chromium as an engineer
would: a processor lane per core, zoom (buttons, wheel, keys) with an axis that re-labels, drag to
pan, a tooltip per activation, and a node's measured run drawn over the analysed activations.

The run log is tests/e2e/fixtures/avionics-mission1.log: what examples/avionics' mission1 printed
in a one-second run on Linux (`mission1 --duration 1s --peer-wait 0s`, without mission2, so its
gates fail). Screenshots of every step go to build/screenshots/."""

from pathlib import Path

import pytest

from browser import chromium
from conftest import ROOT, kairos

SCREENSHOTS = ROOT / "build" / "screenshots"
RUN_LOG = ROOT / "tests" / "e2e" / "fixtures" / "avionics-mission1.log"
VIEWPORT = {"width": 1400, "height": 1000}

# The SpMs of each node by core, in priority order (examples/avionics: hud and planner are pinned
# to core 1 of mission1; the placement puts tracker on core 1 of mission2).
AVIONICS_CORES = {
    "mission1": {0: ["nav.update"],
                 1: ["hud.refresh", "planner.replan", "hud.status", "hud.survey", "planner.log"]},
    "mission2": {0: ["sensors.poll", "weapons.status", "weapons.bit"],
                 1: ["tracker.fuse", "tracker.locate", "tracker.rank"]},
}

# Two SpMs on one processor under RMS: `fast` preempts `slow` at 5 ms, which resumes at 6 ms.
PREEMPTING_MODEL = """\
tmo T {
  spm fast for t = from 0 s to forever every 5 ms start-during (t, t + 1 ms) finish-by t + 5 ms wcet 1 ms;
  spm slow for t = from 0 s to forever every 20 ms start-during (t, t + 2 ms) finish-by t + 20 ms wcet 6 ms;
}
node n { os sim scheduling rms deploy T as t1 }
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("timeline")
    analysed = out / "avionics.html"
    result = kairos("check", "examples/avionics/avionics.tmo", "--html", analysed)
    assert result.returncode == 0, result.stderr
    measured = out / "avionics-measured.html"
    result = kairos(
        "check", "examples/avionics/avionics.tmo", "--html", measured,
        "--measured", f"mission1={RUN_LOG}",
    )
    assert result.returncode == 0, result.stderr
    model = out / "preempt.tmo"
    model.write_text(PREEMPTING_MODEL)
    preempting = out / "preempt.html"
    result = kairos("check", model, "--html", preempting, cwd=out)
    assert result.returncode == 0, result.stderr
    return {"analysed": analysed, "measured": measured, "preempting": preempting}


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture
def open_page(browser):
    opened = []

    def open_(path: Path):
        page = browser.new_page(viewport=VIEWPORT)
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(path.resolve().as_uri())
        page.wait_for_selector(".kt-view svg.kt-svg")
        page.errors = errors
        opened.append(page)
        return page

    yield open_
    for page in opened:
        assert page.errors == [], page.errors
        page.close()


def screenshot(target, name: str):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def view(page, node: str):
    index = sorted(AVIONICS_CORES).index(node) if node in AVIONICS_CORES else 0
    return page.locator(f".kt-view[data-node-index='{index}']")


def ticks(timeline) -> list[str]:
    return [tick.text_content() for tick in timeline.locator(".kt-tick").all()]


def shown(timeline) -> tuple[int, int]:
    span = timeline.locator(".kt-range")
    return int(span.get_attribute("data-from-ns")), int(span.get_attribute("data-to-ns"))


def inside_plot(timeline, locator):
    """The first element of `locator` drawn wholly inside the timeline's plot area, with its box."""
    plot = timeline.locator(".kt-plot").bounding_box()
    left = plot["x"] + 210
    for element in locator.all():
        box = element.bounding_box()
        if box and box["x"] >= left and box["x"] + box["width"] <= plot["x"] + plot["width"]:
            return element, box
    raise AssertionError("nothing of that kind is inside the plot")


def hover_center(page, box):
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_a_gantt_lane_per_processor_and_a_row_per_method(pages, open_page):
    page = open_page(pages["analysed"])
    assert page.locator(".static-timeline").first.is_hidden(), "the script's view replaces it"
    for node, cores in AVIONICS_CORES.items():
        timeline = view(page, node)
        lanes = timeline.locator(".kt-lane")
        assert [lane.get_attribute("data-core") for lane in lanes.all()] == ["0", "1"], node
        rows = [row.get_attribute("data-spm") for row in timeline.locator(".kt-spm").all()]
        assert rows == cores[0] + cores[1], node
        for core, methods in cores.items():
            drawn = {
                s.get_attribute("data-method")
                for s in timeline.locator(f".kt-lane[data-core='{core}'] .kt-slice").all()
            }
            assert drawn and drawn <= set(methods), (node, core, drawn)
    # Service methods get a row with their BCC admission windows.
    mission1 = view(page, "mission1")
    svms = [row.get_attribute("data-svm") for row in mission1.locator(".kt-svm").all()]
    assert set(svms) == {"nav.current", "nav.setRoute", "nav.nudge"}
    assert mission1.locator(".kt-svm[data-svm='nav.current'] .kt-admit").count() > 0
    screenshot(page, "timeline-01-page")
    screenshot(mission1, "timeline-02-mission1")


def test_zoom_and_pan_relabel_the_axis(pages, open_page):
    page = open_page(pages["analysed"])
    timeline = view(page, "mission1")
    whole = shown(timeline)
    before = ticks(timeline)
    assert before[0] == "0 ms" and len(before) >= 5, before

    for _ in range(3):
        timeline.locator(".kt-zoom-in").click()
    zoomed = shown(timeline)
    assert zoomed[1] - zoomed[0] == pytest.approx((whole[1] - whole[0]) / 8, rel=0.01)
    after_buttons = ticks(timeline)
    assert after_buttons != before, "the axis re-labels at the new zoom"
    screenshot(timeline, "timeline-03-zoomed-buttons")

    # The wheel zooms around the pointer, down to microseconds.
    plot = timeline.locator(".kt-plot")
    box = plot.bounding_box()
    page.mouse.move(box["x"] + 400, box["y"] + 60)
    for _ in range(12):
        page.mouse.wheel(0, -400)
    wheeled = shown(timeline)
    assert wheeled[1] - wheeled[0] < (zoomed[1] - zoomed[0]) / 20
    after_wheel = ticks(timeline)
    assert after_wheel != after_buttons
    assert any(label.endswith(" us") for label in after_wheel), after_wheel
    screenshot(timeline, "timeline-04-zoomed-wheel")

    # A drag to the left shows later times.
    page.mouse.move(box["x"] + 700, box["y"] + 60)
    page.mouse.down()
    page.mouse.move(box["x"] + 500, box["y"] + 60, steps=5)
    page.mouse.up()
    panned = shown(timeline)
    assert panned[0] > wheeled[0]
    assert panned[1] - panned[0] == pytest.approx(wheeled[1] - wheeled[0], rel=0.01)

    # Keys: 0 shows everything again, - and + zoom about the middle.
    plot.focus()
    page.keyboard.press("0")
    assert shown(timeline) == whole
    assert ticks(timeline) == before
    page.keyboard.press("+")
    page.keyboard.press("+")
    assert shown(timeline)[1] - shown(timeline)[0] == pytest.approx((whole[1] - whole[0]) / 4,
                                                                     rel=0.01)
    page.keyboard.press("-")
    assert shown(timeline)[1] - shown(timeline)[0] == pytest.approx((whole[1] - whole[0]) / 2,
                                                                     rel=0.01)


def test_hovering_an_activation_shows_its_numbers(pages, open_page):
    page = open_page(pages["analysed"])
    timeline = view(page, "mission1")
    for _ in range(4):
        timeline.locator(".kt-zoom-in").click()
    _, box = inside_plot(timeline, timeline.locator(".kt-spm[data-spm='hud.refresh'] .kt-exec"))
    hover_center(page, box)
    tip = page.locator(".kt-tip")
    assert tip.is_visible()
    text = tip.text_content()
    assert text.startswith("hud.refresh seq="), text
    for field in ("release", "start", "finish", "response", "deadline", "slack", "bound"):
        assert f"\n{field} " in text, (field, text)
    assert "outcome      met" in text
    screenshot(page, "timeline-05-tooltip")
    page.mouse.move(1, 1)
    assert tip.is_hidden()


def test_preemptions_are_slices_of_one_activation(pages, open_page):
    page = open_page(pages["preempting"])
    timeline = page.locator(".kt-view").first
    slices = timeline.locator(".kt-lane .kt-slice[data-method='t1.slow'][data-slices='2']")
    assert slices.count() == 2, "slow runs 1..5 ms and, after fast preempts it, 6..8 ms"
    assert len({s.get_attribute("data-act") for s in slices.all()}) == 1, "one activation"
    assert timeline.locator(".kt-lane .kt-preempt").count() == 1
    _, box = inside_plot(timeline, slices)
    hover_center(page, box)
    text = page.locator(".kt-tip").text_content()
    assert "preempted    1 time(s)" in text and "slice        1 of 2" in text, text
    highlighted = timeline.locator(".kt-hl")
    assert highlighted.count() >= 3, "both slices and the link between them stand out"
    screenshot(timeline, "timeline-06-preemption")


def test_a_measured_run_is_drawn_over_the_analysed_one(pages, open_page):
    page = open_page(pages["measured"])
    mission1 = view(page, "mission1")
    logged = sum(1 for line in RUN_LOG.read_text().splitlines() if line.startswith("activation"))
    marks = mission1.locator(".kt-measured")
    # The whole run is in view at first: every measured activation has its mark.
    assert marks.count() == logged
    assert view(page, "mission2").locator(".kt-measured").count() == 0, "no run for mission2"
    assert mission1.locator(".kt-spm[data-spm='hud.survey'] .kt-measured").count() == 5

    # The table: measured maximum beside the analysed bound, per SpM.
    rows = page.locator("table.measured tr.measured-row")
    assert rows.count() == 6
    nav = page.locator("table.measured tr[data-task='nav.update']")
    assert nav.locator("td").nth(2).text_content() == "40", "activations of nav.update"
    assert nav.locator("td.bound").text_content() == "2.7 ms"
    assert nav.locator("td.max").text_content().endswith("us")
    screenshot(page.locator("table.measured"), "timeline-07-measured-table")

    for _ in range(5):
        mission1.locator(".kt-zoom-in").click()
    _, box = inside_plot(mission1, mission1.locator(".kt-spm[data-spm='nav.update'] .kt-measured"))
    hover_center(page, box)
    text = page.locator(".kt-tip").text_content()
    assert text.startswith("nav.update seq=") and "(measured, avionics-mission1.log:" in text, text
    assert "outcome      window=met deadline=met" in text
    screenshot(mission1, "timeline-08-measured")
