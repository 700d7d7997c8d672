"""Kokyu's operating regions, replayed exactly on the simulated platform.

Gill et al. (Kokyu: RMS+MLF vs MUF in Bold Stroke avionics, §3.2-§4) raise the non-critical
load and the jitter of the critical load through operating regions 0..11 and report that RMS
keeps every hard deadline through region 6, loses hard deadlines in some samples of region 7 and
in every sample of regions 8 to 11, while MUF and RMS+MLF keep every hard deadline in every
region. bench/kokyu_regions.cpp plays the regions on the TMO engine (the task set and its
reasoning are in its header); on sim the outcome is a function of the seed, so this test asserts
the paper's pattern, which methods miss, and that two runs agree to the byte. The same program
is the Linux benchmark (`make bench`).
"""

import json
import subprocess

from conftest import KAIROS, ROOT, TIMEOUT_S

RUNNER = ROOT / "build" / "cpp" / "bench" / "kairos_bench_kokyu_regions_sim"
PLOT = ROOT / "bench" / "cubit_plot.py"

# The hard methods in the order of the program's table (hard_missed_by_method).
HARD = ["critical20", "critical10", "critical5", "critical1", "consumer10", "consumer5",
        "consumer1"]


def play(tmp_path, name, *args):
    out = tmp_path / f"{name}.json"
    result = subprocess.run([str(RUNNER), "--samples", "20", "--json", str(out), *args],
                            capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout, json.loads(out.read_text(encoding="utf-8"))


def by_strategy(data):
    return {s["strategy"]: s["regions"] for s in data["strategies"]}


def test_rms_loses_hard_deadlines_from_region_7_while_muf_and_rms_mlf_keep_them(tmp_path):
    table, data = play(tmp_path, "regions")
    regions = by_strategy(data)
    assert list(regions) == ["rms", "muf", "rms+mlf", "np-edf", "edf", "mlf"]
    for strategy in regions.values():
        assert [r["region"] for r in strategy] == list(range(12))
        assert all(r["samples"] == 20 for r in strategy)

    rms = regions["rms"]
    assert [r["samples_with_hard_miss"] for r in rms[:7]] == [0] * 7, table
    assert 0 < rms[7]["samples_with_hard_miss"] < 20, table  # some samples of region 7
    assert all(r["samples_with_hard_miss"] == 20 for r in rms[8:]), table  # every sample
    # Under RMS the route legs share the top band with the 20 Hz critical method, which never
    # misses; the hard methods below them do.
    for r in rms[7:]:
        missed = dict(zip(HARD, r["hard_missed_by_method"]))
        assert missed["critical20"] == 0, (r["region"], missed)
        assert missed["critical1"] > 0, (r["region"], missed)
    # The soft route legs, above them, keep their deadlines while the load is below 100%.
    assert all(r["soft_made"] == r["soft_released"] for r in rms[:10]), table

    for name in ("muf", "rms+mlf"):
        assert all(r["hard_missed"] == 0 for r in regions[name]), (name, table)
        # Soft work pays: the route legs lose deadlines once the load passes 100%.
        assert all(r["soft_made"] < r["soft_released"] for r in regions[name][7:]), table

    # Preemptive EDF is optimal up to a full processor (no hard miss through region 8, at most
    # as many soft misses as the non-preemptive queue) and collapses past it: the domino effect
    # makes every sample of regions 9 to 11 miss hard deadlines, more of them than the queue.
    edf, queued = regions["edf"], regions["np-edf"]
    assert all(r["hard_missed"] == 0 for r in edf[:9]), table
    assert all(e["soft_made"] >= q["soft_made"] for e, q in zip(edf[:9], queued[:9])), table
    assert all(r["soft_made"] == r["soft_released"] for r in edf[:7]), table
    assert all(r["samples_with_hard_miss"] == 20 for r in edf[9:]), table
    assert all(e["hard_missed"] > q["hard_missed"] for e, q in zip(edf[9:], queued[9:])), table

    # Same regions, same draws: every strategy was offered the same load in each region.
    for i in range(12):
        loads = {name: strategy[i]["offered_load"] for name, strategy in regions.items()}
        assert len(set(loads.values())) == 1, loads
    assert [r["offered_load"] for r in rms[:7]] == sorted(r["offered_load"] for r in rms[:7])
    assert rms[6]["offered_load"] < 1.0 < rms[8]["offered_load"]


def test_the_simulated_regions_are_the_same_on_every_run_and_plot(tmp_path):
    first_table, first = play(tmp_path, "first", "--strategies", "rms,muf")
    second_table, second = play(tmp_path, "second", "--strategies", "rms,muf")
    assert first == second
    assert first_table == second_table
    _, other_seed = play(tmp_path, "other", "--strategies", "rms", "--seed", "7")
    assert by_strategy(other_seed)["rms"] != by_strategy(first)["rms"]

    plot = subprocess.run(["python3", str(PLOT), str(tmp_path / "first.json"), "-o",
                           str(tmp_path / "plots")], capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)
    assert plot.returncode == 0, plot.stderr
    svg = (tmp_path / "plots" / "kokyu_regions_sim.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.count("<polyline") == 4  # 2 strategies x 2 panels


def region_model(strategies):
    """The experiment's task set, one node per (region, strategy), as a model `kairos check`
    analyses: the consumers at their declared (largest) execution time, 10 ms."""
    hard = [("critical20", 50, "4 ms"), ("critical10", 100, "8 ms"), ("critical5", 200, "16 ms"),
            ("critical1", 1000, "40 ms"), ("consumer10", 100, "10 ms"),
            ("consumer5", 200, "10 ms"), ("consumer1", 1000, "10 ms")]
    text = []
    for region in range(12):
        methods = [(name, period, wcet, "hard") for name, period, wcet in hard]
        methods += [(f"leg{k}", 50, "4550 us", "soft") for k in range(1, max(1, region) + 1)]
        for strategy in strategies:
            tmo = f"Ofp{region}{strategy.replace('+', '_')}"
            text.append(f"tmo {tmo} {{")
            for name, period, wcet, criticality in methods:
                text.append(f"  spm {name} for t = from 0 s to forever every {period} ms"
                            f" start-during (t, t + {period} ms) finish-by t + {period} ms"
                            f" wcet {wcet} criticality {criticality};")
            text.append("}")
            text.append(f"node n{region}{strategy.replace('+', '_')} {{ os sim scheduling"
                        f" {strategy} deploy {tmo} as ofp }}")
    return "\n".join(text) + "\n"


def test_kairos_check_predicts_which_strategies_keep_the_hard_deadlines(tmp_path):
    """The analysis, from the declared WCETs, agrees with the engine: under RMS the hard methods
    are unschedulable from region 7 (and only there do they miss on sim), under RMS+MLF they are
    schedulable in every region; and no hard method the analysis passes ever misses. Under MUF
    the seven hard methods share one band, which the analysis bounds as if its lane could serve
    all the others first (the 20 Hz method behind 98 ms of hard work at each second's start):
    it passes fewer methods there than keep their deadlines, soundly."""
    strategies = ["rms", "muf", "rms+mlf"]
    model = tmp_path / "regions.tmo"
    model.write_text(region_model(strategies), encoding="utf-8")
    check = subprocess.run([str(KAIROS), "check", "--format", "json", str(model)],
                           capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert check.returncode in (0, 1), check.stderr
    verdicts = {}
    for node in json.loads(check.stdout)["nodes"]:
        hard = [t for t in node["tasks"] if t["criticality"] == "hard"]
        verdicts[node["node"]] = {t["name"].split(".")[1]: t["schedulable"] for t in hard}
    _, data = play(tmp_path, "analysed", "--strategies", ",".join(strategies))
    regions = by_strategy(data)
    for strategy in strategies:
        for region in range(12):
            analysed = verdicts[f"n{region}{strategy.replace('+', '_')}"]
            if strategy == "rms":
                assert all(analysed.values()) == (region <= 6), (region, analysed)
            elif strategy == "rms+mlf":
                assert all(analysed.values()), (region, analysed)
            measured = dict(zip(HARD, regions[strategy][region]["hard_missed_by_method"]))
            for method, schedulable in analysed.items():
                if schedulable:
                    assert measured[method] == 0, (strategy, region, method)


def test_bad_arguments_are_refused_with_the_usage():
    for args in (["--samples", "0"], ["--strategies", "fifo"], ["--seed"], ["--bogus"]):
        result = subprocess.run([str(RUNNER), *args], capture_output=True, text=True,
                                timeout=TIMEOUT_S, check=False)
        assert result.returncode == 2, args
        assert result.stderr.startswith("usage:"), result.stderr
    # Partitioned EDF pins the deadline lanes to --cpu: without one it has nothing to pin to.
    result = subprocess.run([str(RUNNER), "--edf-partitioned"], capture_output=True, text=True,
                            timeout=TIMEOUT_S, check=False)
    assert result.returncode == 2
    assert "--edf-partitioned pins the edf lanes to --cpu" in result.stderr
