"""The kairos CLI and generated nodes answer bad input with clear errors and exit codes."""

import re

from conftest import OVERLOADED_MODEL, build_node_project, copy_example, kairos, run

DIAGNOSTIC = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>[\w.-]+)\]: .+$")


def write(path, text):
    path.write_text(text)
    return path


def test_model_errors_are_reported_with_location_and_code(workdir):
    model = write(
        workdir / "bad.tmo",
        "tmo T {\n"
        "  spm tick for t = from 0 s to forever every 10 ms\n"
        "    start-during (t, t + 12 ms) finish-by t + 15 ms wcet 1 ms;\n"
        "  svm slow gct 1 ms wcet 2 ms;\n"
        "}\n"
        "node n { os linux deploy T as t1 }\n",
    )
    for command in ("validate", "check", "generate"):
        extra = ["-o", workdir / "out"] if command == "generate" else []
        result = kairos(command, model.name, *extra, cwd=workdir)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        lines = (result.stdout + result.stderr).splitlines()
        found = [DIAGNOSTIC.match(line) for line in lines]
        found = [m for m in found if m]
        codes = {(m["line"], m["code"]) for m in found}
        assert ("3", "kairos.window-outside-period") in codes, lines
        assert ("4", "kairos.wcet-exceeds-gct") in codes, lines
        assert all(m["file"] == "bad.tmo" for m in found)
        assert "Exception" not in result.stderr
    assert not (workdir / "out").exists(), "nothing may be generated from a broken model"


def test_syntax_errors_do_not_crash(workdir):
    model = write(workdir / "broken.tmo", "tmo { spm every every ; node")
    result = kairos("validate", model, cwd=workdir)
    assert result.returncode == 1
    assert "kairos.syntax" in result.stdout
    assert "Exception" not in result.stderr


def test_usage_errors_exit_with_2(workdir):
    assert kairos().returncode == 2
    assert kairos("frobnicate").returncode == 2
    missing = kairos("validate", workdir / "nope.tmo")
    assert missing.returncode == 2
    assert "no such model file" in missing.stderr
    not_a_model = kairos("validate", write(workdir / "notes.txt", "hello"))
    assert not_a_model.returncode == 2
    assert kairos("generate", write(workdir / "ok.tmo", "")).returncode == 2  # no -o
    assert kairos("check", "--format", "yaml", workdir / "ok.tmo").returncode == 2


def test_unschedulable_models_fail_check_and_are_not_generated(workdir):
    model = write(workdir / "overload.tmo", OVERLOADED_MODEL)
    checked = kairos("check", model, cwd=workdir)
    assert checked.returncode == 1
    assert "NOT schedulable" in checked.stdout
    as_json = kairos("check", "--format", "json", model, cwd=workdir)
    assert as_json.returncode == 1
    assert '"schedulable": false' in as_json.stdout
    generated = kairos("generate", model, "-o", workdir / "out", cwd=workdir)
    assert generated.returncode == 1
    assert not (workdir / "out").exists()


def test_check_json_carries_integer_nanoseconds(workdir):
    import json

    example = copy_example("hello", workdir)
    result = kairos("check", "--format", "json", example / "hello.tmo")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["schedulable"] is True and report["errors"] == []
    (node,) = report["nodes"]
    assert node["node"] == "board" and node["strategy"] == "rms"
    tick = next(t for t in node["tasks"] if t["name"] == "greeter.tick")
    assert tick["period_ns"] == 100_000_000
    assert tick["wcet_ns"] == 1_000_000
    assert tick["deadline_ns"] == 50_000_000
    assert isinstance(tick["response_time_ns"], int) and tick["schedulable"] is True


def test_generated_node_rejects_bad_arguments(workdir):
    example = copy_example("hello", workdir)
    out = workdir / "out"
    assert kairos("generate", example / "hello.tmo", "-o", out).returncode == 0
    build_node_project(out, workdir / "build")
    board = workdir / "build" / "board"
    for args in (["--duration"], ["--duration", "soon"], ["--duration", "0s"], ["--fast"]):
        result = run([board, *args], check=False, timeout=30)
        assert result.returncode == 2, args
        assert "error" in result.stderr
    assert run([board, "--help"], timeout=30).returncode == 0


def test_check_junit_has_a_case_per_method_and_fails_the_missed_ones(workdir):
    import xml.etree.ElementTree as ElementTree

    example = copy_example("avionics", workdir)
    result = kairos("check", "--format", "junit", example / "avionics.tmo")
    assert result.returncode == 0, result.stderr
    suites = ElementTree.fromstring(result.stdout).findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "mission1", "mission2", "remote calls", "service rates", "chains"]
    cases = {c.get("name") for c in suites[1].findall("testcase")}
    assert cases == {
        "sensors.poll", "sensors.sample", "tracker.fuse", "tracker.tracks", "tracker.rank",
        "tracker.locate", "weapons.status", "weapons.bit",
    }
    assert all(s.get("failures") == "0" for s in suites)
    calls = {c.get("name") for c in suites[2].findall("testcase")}
    assert "planner.sensors -> sensors.sample" in calls and len(calls) == 3

    # A callee that can no longer keep its GCT fails the remote call's case too.
    model = example / "avionics.tmo"
    model.write_text(
        model.read_text().replace("wcet 1 ms criticality hard", "wcet 4900 us criticality hard")
    )
    late = kairos("check", "--format", "junit", model)
    assert late.returncode == 1
    calls = next(
        s for s in ElementTree.fromstring(late.stdout).findall("testsuite")
        if s.get("name") == "remote calls"
    )
    failed_calls = {
        c.get("name"): c.find("failure").get("message")
        for c in calls.findall("testcase")
        if c.find("failure") is not None
    }
    assert calls.get("failures") == str(len(failed_calls))
    assert "avionics.tmo:" in failed_calls["planner.sensors -> sensors.sample"]
    assert "tracker.navigation -> nav.current" not in failed_calls

    overload = write(
        workdir / "overload.tmo",
        "tmo T {\n"
        "  spm a for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
        " finish-by t + 10 ms wcet 6 ms;\n"
        "  spm b for t = from 0 s to forever every 20 ms start-during (t, t + 1 ms)"
        " finish-by t + 20 ms wcet 9 ms;\n"
        "}\n"
        "node n { os linux deploy T as t1 }\n",
    )
    failed = kairos("check", "--format", "junit", overload, cwd=workdir)
    assert failed.returncode == 1
    (suite,) = ElementTree.fromstring(failed.stdout).findall("testsuite")
    failures = [c.get("name") for c in suite.findall("testcase") if c.find("failure") is not None]
    assert failures == ["t1.b"]


def test_check_reports_end_to_end_deadlines_of_remote_calls(workdir):
    import json

    example = copy_example("avionics", workdir)
    result = kairos("check", "--format", "json", example / "avionics.tmo")
    assert result.returncode == 0, result.stderr
    gates = {g["gate"]: g for g in json.loads(result.stdout)["gates"]}
    assert set(gates) == {"planner.sensors", "hud.tracking", "tracker.navigation"}
    gate = gates["planner.sensors"]
    assert gate["callee"] == "sensors.sample"
    assert gate["deadline_ns"] == 5_000_000
    assert gate["network_ns"] == 2 * (100_000 + 50_000)
    assert gate["callee_gct_ns"] == 4_000_000
    assert 0 <= gate["callee_response_time_ns"] <= gate["callee_gct_ns"]
    assert gate["schedulable"] is True

    # The callee's node overloaded: its SvM can no longer keep its GCT, so the call fails.
    model = example / "avionics.tmo"
    model.write_text(model.read_text().replace("wcet 1 ms criticality hard", "wcet 4900 us criticality hard"))
    failed = kairos("check", "--format", "json", model)
    assert failed.returncode == 1
    gates = {g["gate"]: g for g in json.loads(failed.stdout)["gates"]}
    assert gates["planner.sensors"]["schedulable"] is False
    assert gates["tracker.navigation"]["schedulable"] is True


def worker_model(package, node):
    return (
        f"package {package}\n"
        "tmo Worker { spm run for t = from 0 s to forever every 10 ms"
        " start-during (t, t + 1 ms) finish-by t + 10 ms wcet 1 ms; }\n"
        f"node {node} {{ os sim deploy Worker as worker }}\n"
    )


def test_equal_names_in_two_packages_generate_two_files(workdir):
    a = write(workdir / "geo.tmo", worker_model("geo", "a"))
    b = write(workdir / "nav.tmo", worker_model("nav", "b"))
    result = kairos("generate", a, b, "-o", workdir / "out", cwd=workdir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (workdir / "out" / "geo" / "Worker.base.hpp").is_file()
    assert (workdir / "out" / "nav" / "Worker.base.hpp").is_file()
    written = [line.split()[-1] for line in result.stdout.splitlines()]
    assert len(written) == len(set(written)), "a file was written twice:\n" + result.stdout


def test_bad_inputs_say_what_is_wrong(workdir):
    model = write(workdir / "ok.tmo", worker_model("p", "n"))
    taken = write(workdir / "taken", "a file")
    result = kairos("generate", model, "-o", taken, cwd=workdir)
    assert result.returncode == 2 and "exists and is not a directory" in result.stderr
    (workdir / "dir.tmo").mkdir()
    result = kairos("validate", "dir.tmo", cwd=workdir)
    assert result.returncode == 2 and "dir.tmo is a directory" in result.stderr
    (workdir / "blob.tmo").write_bytes(b"\x7fELF\x00\x00\x01")
    result = kairos("validate", "blob.tmo", cwd=workdir)
    assert result.returncode == 1 and "blob.tmo:1:5: error[kairos.invalid-encoding]: this is not a text file" in result.stdout
    for result in (kairos("validate", "dir.tmo", cwd=workdir), kairos("validate", "blob.tmo", cwd=workdir)):
        assert "Exception" not in result.stderr
