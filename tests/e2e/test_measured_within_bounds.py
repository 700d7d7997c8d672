"""The analysis's claim checked against the real engine: examples/avionics, with a platform file
that `kairos probe` measures on this machine in the same run, is analysed by `kairos check` (which
charges the measured overheads), then each node runs on Linux with --timings, and every hard SpM's
longest measured response must lie within the bound the analysis gave it.

Each node runs alone, as the analysis assumes its processors to be its own (two nodes of two
cores each would share this machine's CPUs); its gates then fail at once, which only shortens
the responses that the bounds cover with the gates' waits included."""

import json

import pytest

from conftest import build_node_project, copy_example, kairos, run

RUN_S = 3


def analysed_bounds(model):
    checked = kairos("check", "--format", "json", model)
    report = json.loads(checked.stdout)
    for node in report["nodes"]:
        assert node["overheads"] == "measured", node
        if not node["schedulable"]:
            pytest.skip(f"with this machine's measured overheads node {node['node']} is not "
                        "schedulable, so the analysis promises nothing to compare with:\n"
                        + checked.stdout)
    return {(node["node"], task["name"]): task for node in report["nodes"] for task in node["tasks"]}


def test_every_measured_hard_response_is_within_its_analysed_bound(workdir):
    example = copy_example("avionics", workdir)
    platform = example / "x86.platform.json"
    probed = kairos("probe", "--duration", "2s", "-o", platform)
    assert probed.returncode == 0, probed.stdout + probed.stderr
    model = example / "avionics.tmo"
    text = model.read_text(encoding="utf-8")
    hardware = "hardware X86 {\n  cores 2;\n  speed 1.0;\n"
    assert text.count(hardware) == 1, "the example's hardware block changed"
    model.write_text(text.replace(hardware, hardware + '  platform "x86.platform.json";\n'),
                     encoding="utf-8")
    bounds = analysed_bounds(model)

    generated = kairos("generate", model, "-o", workdir / "generated")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    build_node_project(workdir / "generated", workdir / "build")

    compared = []
    for node in ("mission1", "mission2"):
        timings = workdir / f"{node}.timings.json"
        run([workdir / "build" / node, "--duration", f"{RUN_S}s", "--peer-wait", "0s", "--quiet",
             "--timings", timings], timeout=60)
        for method in json.loads(timings.read_text(encoding="utf-8"))["methods"]:
            if method["kind"] != "spm" or method["criticality"] != "hard":
                continue
            task = bounds[(node, f"{method['instance']}.{method['method']}")]
            # The analysis counts an SpM's response from its window's opening, the node from t:
            # the opening is the node's deadline (from t) less the analysis's (from the opening).
            opening = method["deadline_ns"] - task["deadline_ns"]
            bound = opening + task["response_time_ns"]
            measured = method["response"]["max_ns"]
            assert method["response"]["count"] > 0, method
            compared.append((node, task["name"], measured, bound))
    print("\nnode      method               measured max   analysed bound")
    for node, name, measured, bound in compared:
        print(f"{node:9} {name:20} {measured / 1000:10.1f} us {bound / 1000:12.1f} us")
    hard_spms = {key for key, task in bounds.items()
                 if task["kind"] == "spm" and task["criticality"] == "hard"}
    assert {(node, name) for node, name, _, _ in compared} == hard_spms, compared
    over = [c for c in compared if c[2] > c[3]]
    assert not over, f"measured beyond the analysed bound: {over}"
