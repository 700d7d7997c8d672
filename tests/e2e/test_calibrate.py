"""Measured execution times back into the model: a node runs on Linux with --timings, then
`kairos calibrate` compares what it measured with the model's WCETs and analyses the model again
with the measured figures. A second node's method overruns its WCET on purpose: the runtime
counts it, calibrate names it, and --update raises its WCET in the model text."""

import json
import signal
import subprocess
import time

from conftest import build_node_project, kairos, parse_summary, run

MODEL = """\
package plant

// A controller with a fast hard method and a slow soft one.
tmo Plant {
  ods {
    segment state {
      uint64 ticks;
    }
  }

  spm control
    for t = from 0 s to forever every 20 ms
    start-during (t, t + 2 ms) finish-by t + 15 ms
    wcet 1 ms criticality hard // budget agreed with the plant team
    uses state write;

  spm report
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 10 ms) finish-by t + 90 ms
    wcet 2 ms criticality soft
    uses state read;
}

node cell {
  os linux
  scheduling rms
  deploy Plant as plant
}
"""

# control computes for CONTROL_CPU_NS of its own CPU time (measured by the thread's CPU clock, so
# a preemption cannot shorten it): far below its 1 ms WCET, or twice it.
BODIES = """\
#include "plant/Plant.hpp"

#include <time.h>

namespace plant {{

namespace {{
::std::int64_t cpu_now() {{
  timespec now{{}};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<::std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}}

void compute_for(::std::int64_t nanoseconds) {{
  const ::std::int64_t end = cpu_now() + nanoseconds;
  while (cpu_now() < end) {{
  }}
}}
}}  // namespace

void Plant::control(ControlAccess ods) {{
  compute_for({control_cpu_ns});
  ++ods.state.ticks;
}}

void Plant::report(ReportAccess ods) {{
  compute_for(20'000);
  last_ticks_seen_ = ods.state.ticks;
}}

}}  // namespace plant
"""

HEADER_MEMBER = "::std::uint64_t last_ticks_seen_ = 0;"
RUN_FOR_S = 2
CONTROL_RUNS = RUN_FOR_S * 1000 // 20
REPORT_RUNS = RUN_FOR_S * 1000 // 100


def build_plant(workdir, control_cpu_ns):
    """Writes the model and its bodies, generates and builds node `cell`; returns the model path
    and the executable."""
    model = workdir / "plant.tmo"
    model.write_text(MODEL)
    assert kairos("format", "--check", model).returncode == 0, "the test's model is canonical"
    out = workdir / "generated"
    generated = kairos("generate", model, "-o", out)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    header = workdir / "src" / "plant" / "Plant.hpp"
    text = header.read_text()
    if HEADER_MEMBER not in text:
        # The starter's class ends with its private overrides; the report body keeps a value.
        text = text.replace("};\n\n}  // namespace plant", f"  {HEADER_MEMBER}\n}};\n\n}}  // namespace plant")
        header.write_text(text)
    (workdir / "src" / "plant" / "Plant.cpp").write_text(BODIES.format(control_cpu_ns=control_cpu_ns))
    build_node_project(out, workdir / "build")
    return model, workdir / "build" / "cell"


def method(report, name):
    matches = [m for m in report["methods"] if m["method"] == name]
    assert len(matches) == 1, report
    return matches[0]


def test_a_run_measures_every_method_and_calibrate_reports_it(workdir):
    model, node = build_plant(workdir, control_cpu_ns=50_000)
    timings = workdir / "run.json"
    done = run([node, "--duration", f"{RUN_FOR_S}s", "--quiet", "--timings", timings], timeout=60)
    summary = parse_summary(done.stdout)
    assert summary["wcet_overruns"] == "0", done.stdout

    measured = json.loads(timings.read_text())
    assert measured["format"] == "kairos-timings" and measured["version"] == 1
    assert measured["node"] == "cell" and measured["complete"] is True
    assert measured["execution_clock"] == "thread-cpu"
    # Releases are computed: every one is run and measured, unless a machine busy with other
    # programs made it miss its start window (counted in the summary), which a few may.
    assert int(summary["activations"]) == CONTROL_RUNS + REPORT_RUNS, done.stdout
    not_run = int(summary["start_window_misses"]) + int(summary["overruns"])
    assert not_run <= (CONTROL_RUNS + REPORT_RUNS) // 10, done.stdout
    measured_runs = 0
    for name, runs in (("control", CONTROL_RUNS), ("report", REPORT_RUNS)):
        row = method(measured, name)
        assert row["kind"] == "spm" and row["source"].endswith("plant.tmo:" + str(
            MODEL.splitlines().index(f"  spm {name}") + 1)), row
        assert runs - not_run <= row["execution"]["count"] <= runs, row
        measured_runs += row["execution"]["count"]
        assert row["response"]["count"] == row["execution"]["count"], row
        execution = row["execution"]
        assert 0 < execution["p99_ns"] <= execution["p999_ns"] <= execution["max_ns"], row
        assert row["response"]["max_ns"] >= execution["max_ns"], row
        assert row["wcet_overruns"] == 0, row
    assert measured_runs == CONTROL_RUNS + REPORT_RUNS - not_run, (measured_runs, done.stdout)
    assert method(measured, "control")["execution"]["max_ns"] >= 50_000

    calibrated = kairos("calibrate", model, timings, "--format", "json")
    assert calibrated.returncode == 0, calibrated.stdout + calibrated.stderr
    report = json.loads(calibrated.stdout)
    assert report["within_bounds"] and report["schedulable_measured"], report
    assert report["runs"] == [{"file": str(timings), "node": "cell", "complete": True,
                               "execution_clock": "thread-cpu"}]
    for name in ("control", "report"):
        row = method(report, name)
        for key in ("declared_wcet_ns", "calibrated_wcet_ns", "deadline_ns", "execution",
                    "response", "wcet_overruns", "response_declared_ns", "response_measured_ns",
                    "slack_ns", "verdict", "file", "line"):
            assert key in row, (key, row)
        assert row["execution"]["count"] > 0, row
        assert row["verdict"] == "ok", row
        # The measured maximum plus the default 20%, rounded up by less than 1%.
        wanted = row["execution"]["max_ns"] * 1.2
        assert wanted <= row["calibrated_wcet_ns"] <= wanted * 1.01 + 1, row
        assert row["response_measured_ns"] + row["slack_ns"] == row["deadline_ns"], row
    assert report["updates"] == []

    text = kairos("calibrate", model, timings)
    assert text.returncode == 0, text.stdout + text.stderr
    assert "plant.control" in text.stdout and "plant.report" in text.stdout, text.stdout
    assert "every measured method within its WCET; schedulable" in text.stdout, text.stdout


def test_sigusr1_writes_timings_during_a_run_and_sigterm_ends_it_at_a_clean_point(workdir):
    _, node = build_plant(workdir, control_cpu_ns=50_000)
    timings = workdir / "snapshot.json"
    process = subprocess.Popen(
        [str(node), "--duration", "forever", "--quiet", "--timings", str(timings)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 2
        while not timings.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert timings.exists(), "no timings file within 2 s of SIGUSR1"
        snapshot = json.loads(timings.read_text())
        assert snapshot["complete"] is False
        assert method(snapshot, "control")["execution"]["count"] > 0, snapshot
        assert process.poll() is None, "the node ended on SIGUSR1"
        # A run without an end ends when it is stopped: at a clean point, as at its end.
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=30)
        took = time.monotonic() - stopped
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stdout + stderr
    assert took < 5, f"the node took {took:.1f} s to stop"
    assert "SIGINT or SIGTERM came: the run ended at the first clean point" in stderr, stderr
    summary = parse_summary(stdout)
    assert summary["node"] == "cell", stdout
    final = json.loads(timings.read_text())
    assert final["complete"] is True
    control = method(final, "control")["execution"]["count"]
    assert control >= method(snapshot, "control")["execution"]["count"]
    # Everything released ran to completion: no activation was cut off by the stop.
    assert int(summary["overruns"]) == 0, summary
    assert int(summary["activations"]) >= control, summary


def test_a_method_that_overruns_its_wcet_is_counted_named_and_raised_by_update(workdir):
    # control computes for 2 ms of CPU time on every run: twice its 1 ms WCET.
    model, node = build_plant(workdir, control_cpu_ns=2_000_000)
    timings = workdir / "overrun.json"
    done = run([node, "--duration", f"{RUN_FOR_S}s", "--quiet", "--timings", timings], timeout=60)

    measured = json.loads(timings.read_text())
    control = method(measured, "control")
    # The runtime counts every run past the WCET, in the file and in the summary line.
    assert control["wcet_overruns"] == control["execution"]["count"] > 0, control
    assert control["execution"]["max_ns"] >= 2_000_000, control
    assert method(measured, "report")["wcet_overruns"] == 0
    assert int(parse_summary(done.stdout)["wcet_overruns"]) == control["wcet_overruns"]

    calibrated = kairos("calibrate", model, timings, "--format", "json")
    assert calibrated.returncode == 1, calibrated.stdout + calibrated.stderr
    report = json.loads(calibrated.stdout)
    assert method(report, "control")["verdict"] == "wcet-exceeded", report
    assert method(report, "control")["wcet_exceeded"] is True
    assert method(report, "report")["verdict"] == "ok", report
    assert [u["method"] for u in report["updates"]] == ["control"], report

    text = kairos("calibrate", model, timings)
    assert text.returncode == 1
    control_line = [line for line in text.stdout.splitlines() if "plant.control" in line][0]
    assert control_line.endswith("WCET exceeded"), text.stdout

    before = model.read_text()
    updated = kairos("calibrate", model, timings, "--update")
    assert updated.returncode == 1, updated.stdout + updated.stderr
    assert "updated " in updated.stdout and "Plant.control wcet 1 ms ->" in updated.stdout, \
        updated.stdout
    after = model.read_text()
    changed = [(old, new) for old, new in zip(before.splitlines(), after.splitlines()) if old != new]
    assert len(changed) == 1, changed  # only the wcet line, its comment kept
    assert "// budget agreed with the plant team" in changed[0][1], changed
    new_wcet = report["updates"][0]["new_wcet_ns"]
    assert new_wcet >= 2_000_000 * 1.2, report["updates"]
    assert kairos("format", "--check", model).returncode == 0
    # The raised WCET holds what was measured: the same run is now within it.
    again = kairos("calibrate", model, timings, "--format", "json")
    assert again.returncode == 0, again.stdout + again.stderr
    assert method(json.loads(again.stdout), "control")["verdict"] == "ok"
