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


def test_both_mission_nodes_build_and_release_their_spms(workdir):
    example = copy_example("avionics", workdir)
    out = workdir / "generated"
    result = kairos("generate", example / "avionics.tmo", "-o", out)
    assert result.returncode == 0, result.stderr
    build_node_project(out, workdir / "build")

    expected = {"mission1": ("nav", "update", 25_000_000), "mission2": ("sensors", "poll", 10_000_000)}
    for node, (instance, method, period_ns) in expected.items():
        ran = run([workdir / "build" / node, "--duration", "500ms"], timeout=60)
        activations = [a for a in parse_activations(ran.stdout) if a.method == method]
        releases = 500_000_000 // period_ns
        assert len(activations) == releases, ran.stdout
        assert {a.instance for a in activations} == {instance}
        assert sorted(a.release_ns for a in activations) == [i * period_ns for i in range(releases)]
        assert int(parse_summary(ran.stdout)["activations"]) == releases


def test_examples_are_in_canonical_format():
    models = sorted(str(p) for p in (ROOT / "examples").rglob("*.tmo"))
    assert models
    result = kairos("format", "--check", *models)
    assert result.returncode == 0, result.stdout + result.stderr
