"""examples/avionics end to end: two nodes, both generated, built and run."""

from conftest import (
    ROOT,
    build_node_project,
    copy_example,
    kairos,
    parse_activations,
    parse_summary,
    run,
)


MS = 1_000_000

# Every SpM of the mission computer: its node and period (40, 20, 10, 5 and 1 Hz).
SPMS = {
    "mission1": {
        ("nav", "update"): 25 * MS,
        ("hud", "refresh"): 50 * MS,
        ("planner", "replan"): 100 * MS,
        ("hud", "status"): 200 * MS,
        ("hud", "survey"): 200 * MS,
        ("planner", "log"): 1000 * MS,
    },
    "mission2": {
        ("sensors", "poll"): 25 * MS,
        ("tracker", "fuse"): 50 * MS,
        ("weapons", "status"): 100 * MS,
        ("tracker", "rank"): 200 * MS,
        ("tracker", "locate"): 50 * MS,
        ("weapons", "bit"): 1000 * MS,
    },
}


def test_the_mission_computer_is_schedulable_with_its_table_printed():
    result = kairos("check", ROOT / "examples" / "avionics" / "avionics.tmo")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all nodes schedulable" in result.stdout
    assert "scheduling muf" in result.stdout and "scheduling rms+mlf" in result.stdout
    for spms in SPMS.values():
        for instance, method in spms:
            assert f"{instance}.{method}" in result.stdout
    assert "planner.sensors -> sensors.sample" in result.stdout


def test_both_mission_nodes_build_and_release_every_spm_at_its_rate(workdir):
    example = copy_example("avionics", workdir)
    out = workdir / "generated"
    result = kairos("generate", example / "avionics.tmo", "-o", out)
    assert result.returncode == 0, result.stderr
    build_node_project(out, workdir / "build")

    duration_ns = 1000 * MS
    for node, spms in SPMS.items():
        # Alone: its peer is not there, so it starts at once and its gates fail (counted).
        ran = run([workdir / "build" / node, "--duration", "1s", "--peer-wait", "0s"], timeout=60)
        activations = parse_activations(ran.stdout)
        assert {(a.instance, a.method) for a in activations} == set(spms), ran.stdout
        for (instance, method), period_ns in spms.items():
            mine = [a for a in activations if (a.instance, a.method) == (instance, method)]
            releases = duration_ns // period_ns
            assert sorted(a.release_ns for a in mine) == [i * period_ns for i in range(releases)]
        assert int(parse_summary(ran.stdout)["activations"]) == sum(
            duration_ns // period for period in spms.values()
        )


def test_examples_are_in_canonical_format():
    models = sorted(str(p) for p in (ROOT / "examples").rglob("*.tmo"))
    assert models
    result = kairos("format", "--check", *models)
    assert result.returncode == 0, result.stdout + result.stderr
