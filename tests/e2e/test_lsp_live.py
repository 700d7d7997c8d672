"""The language server's live schedulability over LSP: after each edit, the same analysis as
`kairos check` runs off the edit thread and its verdicts reach the editor as diagnostics, code
lenses, hover figures, quick fixes and the `kairos/report` notification."""

import json

import pytest

from conftest import ROOT, copy_example, kairos
from lsp_client import NoAnswer, apply_edits, change_document, open_document, position_of, start

# Two SpMs under RMS: `slow` (band 1) is preempted by `fast` (band 2). With a WCET of 3 ms its
# response is 7 ms (deadline 12 ms); with 7 ms it grows beyond 12 ms, and 15 ms would be needed.
PLANT = """package plant

struct Reading {
  uint64 stamp_ns;
  double value;
}

struct Track {
  string<8> label;
  sequence<Reading, 4> readings;
}

tmo Control {
  spm fast
    for t = from 0 s to forever every 10 ms
    start-during (t, t + 5 ms) finish-by t + 10 ms
    wcet 4 ms criticality hard;
  spm slow
    for t = from 0 s to forever every 20 ms
    start-during (t, t + 10 ms) finish-by t + 12 ms
    wcet 3 ms criticality hard;
}

node board {
  os linux
  scheduling rms
  deploy Control as control
}
"""
BROKEN = PLANT.replace("wcet 3 ms", "wcet 7 ms")
SCHEDULABILITY_CODES = {"kairos.unschedulable", "kairos.may-miss", "kairos.node-unschedulable",
                        "kairos.remote-call-unschedulable", "kairos.message-too-large",
                        "kairos.platform-file"}


@pytest.fixture
def plant(workdir):
    """A server on a workspace holding plant.tmo, opened in the editor, analysed once."""
    path = workdir / "plant.tmo"
    path.write_text(PLANT)
    ls, _ = start(workdir)
    uri = open_document(ls, path, PLANT)
    report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 1)
    assert report["analysed"], report
    ls.uri = uri
    yield ls
    ls.close()


def codes(diagnostics):
    return [d.get("code") for d in diagnostics]


def errors_of_kairos_check(tmp_path_factory, text: str) -> list[dict]:
    """The errors `kairos check --format json` reports for `text` as plant.tmo, run where it is
    (a directory outside the server's workspace, whose every .tmo file is the system)."""
    where = tmp_path_factory.mktemp("cli")
    (where / "plant.tmo").write_text(text)
    checked = kairos("check", "--format", "json", "plant.tmo", cwd=where)
    return json.loads(checked.stdout)["errors"]


def edit(ls, text: str, version: int) -> dict:
    """Changes the document and waits for the analysis of exactly this version."""
    ls.forget_pending()
    change_document(ls, ls.uri, text, version)
    return ls.notification("kairos/report", lambda p: p["versions"].get(ls.uri) == version)


def hover(ls, text, fragment, offset=1):
    result = ls.request("textDocument/hover", {
        "textDocument": {"uri": ls.uri}, "position": position_of(text, fragment, offset)})
    return result["contents"]["value"]


def test_hover_shows_analysed_figures_and_wire_layouts(plant):
    method = hover(plant, PLANT, "spm slow", 5)
    assert "deadline t + 12 ms" in method, method  # the model's own words come first
    for figure in ("on node `board` (rms)", "band 1, priority 2 of 2", "period 20 ms",
                   "WCET 3 ms", "deadline 12 ms, response 7 ms, slack 5 ms", "meets its deadline"):
        assert figure in method, method
    node = hover(plant, PLANT, "node board", 6)
    assert "utilization 55.0% (Liu-Layland bound 82.8%): schedulable" in node, node

    # Wire layouts (docs/marshalling.md): 8 + 8 bytes from an aligned start, up to 7 of padding
    # before the uint64 elsewhere; a bounded string and sequence make Track's size vary.
    reading = hover(plant, PLANT, "struct Reading", 8)
    assert "at most 16 bytes as a message body, 23 wherever it starts" in reading, reading
    assert "aligned to 8" in reading and "fixed size" in reading, reading
    assert hover(plant, PLANT, "Reading, 4") == reading  # on a use of the type as well
    track = hover(plant, PLANT, "struct Track", 8)
    assert "at most 80 bytes as a message body" in track and "size varies" in track, track


def test_code_lenses_show_response_and_deadline(plant):
    lenses = plant.request("textDocument/codeLens", {"textDocument": {"uri": plant.uri}})
    titles = {(lens["range"]["start"]["line"], lens["command"]["title"]) for lens in lenses}
    assert titles == {
        (position_of(PLANT, "spm fast")["line"], "response 4 ms / deadline 10 ms"),
        (position_of(PLANT, "spm slow")["line"], "response 7 ms / deadline 12 ms"),
        (position_of(PLANT, "node board")["line"], "utilization 55.0%: schedulable"),
    }, lenses


def test_live_diagnostics_follow_an_edit_and_its_undo(plant):
    report = edit(plant, BROKEN, 2)
    assert report["analysed"] and not report["report"]["schedulable"], report
    diagnostics = plant.diagnostics(plant.uri, lambda d: "kairos.unschedulable" in codes(d))
    assert sorted(codes(diagnostics)) == ["kairos.node-unschedulable", "kairos.unschedulable"]
    (miss,) = [d for d in diagnostics if d["code"] == "kairos.unschedulable"]
    assert miss["severity"] == 1, miss
    assert miss["range"]["start"] == position_of(BROKEN, "spm slow", 4), miss
    assert miss["message"].startswith("control.slow misses its deadline on node board"), miss
    assert "beyond its deadline of 12 ms" in miss["message"], miss
    (node,) = [d for d in diagnostics if d["code"] == "kairos.node-unschedulable"]
    assert node["range"]["start"] == position_of(BROKEN, "node board", 5), node
    assert "utilization 75.0%" in node["message"], node
    # Editors that refresh code lenses on request are asked to after each analysis.
    assert any(r["method"] == "workspace/codeLens/refresh" for r in plant.requests_from_server)
    lenses = plant.request("textDocument/codeLens", {"textDocument": {"uri": plant.uri}})
    assert "response > 12 ms / deadline 12 ms (misses)" in [l["command"]["title"] for l in lenses]

    report = edit(plant, PLANT, 3)
    assert report["report"]["schedulable"], report
    diagnostics = plant.diagnostics(plant.uri, lambda d: not SCHEDULABILITY_CODES & set(codes(d)))
    assert diagnostics == [], diagnostics


def test_a_message_the_orb_cannot_carry_is_an_error_on_its_operation(plant, tmp_path_factory):
    # 9000 octets: more than the ORB's 8192-byte message body (runtime-cpp/capacities.properties).
    big = PLANT + "\nstruct Chunk { octet data[9000]; }\ninterface Sink {\n  void put(in Chunk c);\n}\n"
    report = edit(plant, big, 2)
    assert report["analysed"] is False, report
    assert report["reason"] == "not analysed: the model has 1 error", report
    (error,) = report["report"]["errors"]
    assert error["line"] == position_of(big, "void put")["line"] + 1, error
    # The editor and the command line take one pipeline: the same error, field for field (the
    # editor's report once gave it the code kairos.error).
    assert report["report"]["errors"] == errors_of_kairos_check(tmp_path_factory, big)
    assert error["code"] == "kairos.message-too-large", error
    diagnostics = plant.diagnostics(plant.uri, lambda d: "kairos.message-too-large" in codes(d))
    (too_large,) = [d for d in diagnostics if d["code"] == "kairos.message-too-large"]
    assert too_large["severity"] == 1, too_large
    assert too_large["range"]["start"] == position_of(big, "put("), too_large
    assert too_large["message"] == error["message"], too_large
    assert too_large["message"].startswith("the request of Sink.put may take 9000 bytes"), too_large

    report = edit(plant, PLANT, 3)
    assert report["analysed"] and report["report"]["schedulable"], report
    diagnostics = plant.diagnostics(plant.uri, lambda d: not SCHEDULABILITY_CODES & set(codes(d)))
    assert diagnostics == [], diagnostics


def test_a_platform_file_that_cannot_be_read_is_an_error_on_its_hardware(plant, tmp_path_factory):
    named = PLANT.replace("node board {\n  os linux", "node board {\n  hardware Lab\n  os linux") + \
        '\nhardware Lab { cores 1; platform "lab.platform.json"; }\n'
    report = edit(plant, named, 2)
    assert report["analysed"] is False, report
    (error,) = report["report"]["errors"]
    assert error["message"].startswith("platform file 'lab.platform.json' does not exist"), error
    assert report["report"]["errors"] == errors_of_kairos_check(tmp_path_factory, named)
    diagnostics = plant.diagnostics(plant.uri, lambda d: "kairos.platform-file" in codes(d))
    (unreadable,) = [d for d in diagnostics if d["code"] == "kairos.platform-file"]
    assert unreadable["severity"] == 1, unreadable
    assert unreadable["range"]["start"] == position_of(named, "Lab {"), unreadable

    report = edit(plant, PLANT, 3)
    assert report["analysed"] and report["report"]["schedulable"], report


def test_quick_fix_widens_the_deadline_to_the_analysed_response(plant):
    edit(plant, BROKEN, 2)
    diagnostics = plant.diagnostics(plant.uri, lambda d: "kairos.unschedulable" in codes(d))
    (miss,) = [d for d in diagnostics if d["code"] == "kairos.unschedulable"]
    actions = plant.request("textDocument/codeAction", {
        "textDocument": {"uri": plant.uri}, "range": miss["range"],
        "context": {"diagnostics": [miss], "only": ["quickfix"]}})
    (action,) = actions
    assert action["title"] == (
        "Widen the deadline to the analysed response time: finish-by t + 15 ms"), action
    assert action["kind"] == "quickfix" and action["diagnostics"] == [miss], action
    fixed = apply_edits(BROKEN, action["edit"]["changes"][plant.uri])
    assert fixed == BROKEN.replace("finish-by t + 12 ms", "finish-by t + 15 ms"), fixed

    report = edit(plant, fixed, 3)
    assert report["analysed"] and report["report"]["schedulable"], report
    slow = [t for t in report["report"]["nodes"][0]["tasks"] if t["name"] == "control.slow"]
    assert slow[0]["response_time_ns"] == slow[0]["deadline_ns"] == 15_000_000, slow
    assert plant.diagnostics(plant.uri, lambda d: not SCHEDULABILITY_CODES & set(codes(d))) == []


def test_quick_fix_for_a_validation_diagnostic(plant):
    text = PLANT.replace("node board", "tmo Server {\n  svm get gct 1 ms wcet 3 ms;\n}\n\nnode board")
    text = text.replace("deploy Control as control", "deploy Control as control\n  deploy Server as server")
    plant.forget_pending()
    change_document(plant, plant.uri, text, 2)
    (too_long,) = plant.diagnostics(plant.uri, bool)
    assert too_long["code"] == "kairos.wcet-exceeds-gct", too_long
    (action,) = plant.request("textDocument/codeAction", {
        "textDocument": {"uri": plant.uri}, "range": too_long["range"],
        "context": {"diagnostics": [too_long]}})
    assert action["title"] == "Raise the GCT to the WCET: gct 3 ms", action
    fixed = apply_edits(text, action["edit"]["changes"][plant.uri])
    assert "svm get gct 3 ms wcet 3 ms;" in fixed, fixed
    report = edit(plant, fixed, 3)
    assert report["analysed"], report


def test_report_notification_carries_the_json_of_kairos_check(workdir):
    # Types in one file, TMOs and the node in another: one system, as `kairos check a b` sees it.
    types_end = PLANT.index("tmo Control")
    (workdir / "a_types.tmo").write_text(PLANT[:types_end])
    plant = workdir / "b_plant.tmo"
    plant.write_text("package plant\n\n" + PLANT[types_end:])
    ls, capabilities = start(workdir)
    try:
        assert capabilities["experimental"]["kairos"]["reportNotification"] == "kairos/report"
        report = ls.notification("kairos/report")
        assert report["workspace"].rstrip("/") == workdir.as_uri(), report
        assert report["analysed"] is True and report["versions"] == {}, report
        check = kairos("check", "--format", "json", "a_types.tmo", "b_plant.tmo", cwd=workdir)
        assert json.loads(check.stdout) == report["report"]
        assert report["report"]["nodes"][0]["tasks"][1]["source"] == "b_plant.tmo:8"

        # With a validation error the model is not analysed: the report says why and lists the
        # errors, as `kairos check --format json` does.
        text = plant.read_text()
        uri = open_document(ls, plant, text)
        broken = text.replace("wcet 4 ms", "wcet 40 ms")
        change_document(ls, uri, broken, 2)
        report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 2)
        assert report["analysed"] is False, report
        assert report["reason"] == "not analysed: the model has 1 error", report
        plant.write_text(broken)
        check = kairos("check", "--format", "json", "a_types.tmo", "b_plant.tmo", cwd=workdir)
        assert check.returncode == 1
        assert json.loads(check.stdout) == report["report"]
        assert report["report"]["errors"][0]["file"] == "b_plant.tmo", report
    finally:
        ls.close()


def test_report_carries_the_html_page_when_asked(workdir):
    (workdir / "plant.tmo").write_text(PLANT)
    ls, _ = start(workdir, report_html=True)
    try:
        report = ls.notification("kairos/report")
        assert report["analysed"], report
        page = report["html"]
        assert page.startswith("<!DOCTYPE html>") and "<title>kairos check: plant.tmo</title>" in page
        assert "<svg" in page and "control.slow" in page
    finally:
        ls.close()
    (workdir / "plant.tmo").write_text(PLANT)
    ls, _ = start(workdir)
    try:
        assert "html" not in ls.notification("kairos/report")
    finally:
        ls.close()


def test_report_carries_the_architecture_diagram_when_asked(workdir):
    """The `architectureSvg` option: each analysed report carries the diagram of `kairos diagram`,
    redrawn after an edit; a model with errors is not drawn; without the option nothing is sent."""
    model = workdir / "avionics.tmo"
    text = (ROOT / "examples" / "avionics" / "avionics.tmo").read_text()
    model.write_text(text)
    ls, _ = start(workdir, architecture_svg=True)
    try:
        uri = open_document(ls, model, text)
        report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 1)
        assert report["analysed"], report
        svg = report["architectureSvg"]
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), svg[:200]
        for element in ("arch-node-mission1", "arch-node-mission2", "arch-tmo-mission1.planner",
                        "arch-svm-mission2.sensors.sample", "arch-gate-mission1.planner.sensors",
                        "arch-channel-track", "arch-network-lan"):
            assert f'id="{element}"' in svg, element
        assert "sensors: deadline 5 ms" in svg
        assert "html" not in report, "the page only with reportHtml"
        # The same drawing as `kairos diagram` in the folder; only its title names the system
        # differently (the server names it after the workspace folder).
        drawn = kairos("diagram", "avionics.tmo", cwd=workdir).stdout
        assert untitled(svg) == untitled(drawn)

        edited = text.replace("SensorTMO.sample deadline 5 ms", "SensorTMO.sample deadline 6 ms")
        change_document(ls, uri, edited, 2)
        report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 2)
        assert "sensors: deadline 6 ms" in report["architectureSvg"]

        change_document(ls, uri, edited.replace("deploy WeaponTMO as weapons", "deploy Nothing"), 3)
        report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 3)
        assert not report["analysed"] and "architectureSvg" not in report, report.get("reason")
    finally:
        ls.close()
    ls, _ = start(workdir)
    try:
        assert "architectureSvg" not in ls.notification("kairos/report")
    finally:
        ls.close()


def untitled(svg: str) -> list[str]:
    return [line for line in svg.splitlines() if "architecture of " not in line]


def test_the_html_page_shows_the_diagram_when_both_are_asked(workdir):
    (workdir / "plant.tmo").write_text(PLANT)
    ls, _ = start(workdir, report_html=True, architecture_svg=True)
    try:
        report = ls.notification("kairos/report")
        assert report["architectureSvg"] in report["html"]
        assert '<section class="architecture" id="architecture">' in report["html"]
    finally:
        ls.close()


def test_a_burst_of_edits_is_analysed_once(plant):
    """Edits closer together than the quiet period: only the last version is analysed."""
    plant.forget_pending()
    for version in range(2, 12):
        change_document(plant, plant.uri, BROKEN if version % 2 else PLANT, version)
    report = plant.notification("kairos/report")
    assert report["versions"] == {plant.uri: 11}, report
    assert not report["report"]["schedulable"]
    with pytest.raises(NoAnswer):
        plant.notification("kairos/report", timeout_s=2)


def test_the_avionics_example_opens_with_no_diagnostics_at_all(workdir):
    """The model of `make demo` is what a new user opens first: no error, no warning, nothing."""
    example = copy_example("avionics", workdir)
    model = example / "avionics.tmo"
    ls, _ = start(example)
    try:
        uri = open_document(ls, model)
        report = ls.notification("kairos/report", lambda p: p["versions"].get(uri) == 1)
        assert report["analysed"] and report["report"]["schedulable"], report
        # Live diagnostics are published before the report is sent, so every publication for the
        # model up to the report has arrived by now.
        published = [
            params["diagnostics"]
            for _, message in ls.pending + drain(ls)
            if message.get("method") == "textDocument/publishDiagnostics"
            for params in [message["params"]]
            if params["uri"] == uri
        ]
        assert published, "the server published no diagnostics for the opened model"
        assert all(d == [] for d in published), published
        lenses = ls.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        titles = [lens["command"]["title"] for lens in lenses]
        assert not [t for t in titles if "miss" in t], titles
    finally:
        ls.close()


def drain(ls) -> list:
    """What the server sent that nobody has read yet."""
    arrived = []
    while not ls.messages.empty():
        arrived.append(ls.messages.get_nowait())
    return arrived
