"""Property test: service methods under the basic concurrency constraint (BCC) keep the response
bound `kairos check` reports, even for requests that arrive at the worst instants.

Hundreds of random TMOs (seeded), each one node with `os sim` under RMS, EDF or MUF: periodic
SpMs with start windows that open late in their period, some writing a shared segment, and one
or two service methods with a max-rate, reading or writing it. `kairos check --format json`
analyses them all; then each set is played on the real engine over the simulated platform for
two hyperperiods, every method taking exactly its WCET (runtime-cpp/tests/sim/taskset_runner.cpp),
with requests arriving where admission hurts most: just inside a slot before a conflicting start
window opens, just outside it, a GCT before it (where an admission that asked for the whole GCT
would wait), just after it opens, plus random instants, each service method's requests spaced by
its minimum inter-arrival time. For every set whose service methods check found bounded:

- no request responds later than its method's analysed response (wait for admission included);
- a service method never runs while an SpM it conflicts with has started and not finished;
- when the node is schedulable, no GCT and no SpM deadline is missed.

And the instants must bite: many requests wait for admission, and the worst of them come close
to the analysed bound. KAIROS_BCC_SEED and KAIROS_BCC_SETS choose other sets.
"""

import json
import math
import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import TIMEOUT_S, kairos
from test_schedulability_property import RUNNER, uunifast_discard

SEED = int(os.environ.get("KAIROS_BCC_SEED", "1"))
SETS = int(os.environ.get("KAIROS_BCC_SETS", "1500"))
STRATEGIES = ("rms", "edf", "muf")
PERIODS_MS = (5, 10, 20, 25, 40, 50, 100)
RATES_HZ = (10, 20, 25, 50, 100)
GRAIN_NS = 10_000
# The engine holds 64 SpM rows: the set's own and one one-shot client per request.
MAX_ROWS = 64
FAILURES_SHOWN = 10


@dataclass
class Spm:
    period_ns: int
    wcet_ns: int
    open_ns: int
    close_ns: int
    deadline_ns: int
    writes: bool  # writes segment s (else it uses none)


@dataclass
class Svm:
    gct_ns: int
    wcet_ns: int
    rate_hz: int
    writes: bool  # writes s (else reads it)
    arrivals_ns: list[int] = field(default_factory=list)

    @property
    def min_interarrival_ns(self) -> int:
        return 1_000_000_000 // self.rate_hz


@dataclass
class BccSet:
    index: int
    strategy: str
    spms: list[Spm]
    svms: list[Svm]
    verdict: bool | None = None
    spm_bands: list[int] = field(default_factory=list)
    svm_bands: list[int] = field(default_factory=list)
    svm_response_ns: list[int] = field(default_factory=list)
    svm_ok: list[bool] = field(default_factory=list)
    slots_ns: list[int] = field(default_factory=list)
    spm_response_ns: list[int] = field(default_factory=list)
    outcome: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"b{self.index}"

    @property
    def hyperperiod_ns(self) -> int:
        return math.lcm(*(s.period_ns for s in self.spms))

    def conflicts(self) -> int:
        """Every SpM that writes s conflicts with every service method (all use s)."""
        return sum(1 << i for i, spm in enumerate(self.spms) if spm.writes)

    def model(self) -> str:
        def us(ns: int) -> str:
            return f"{ns // 1_000} us"

        spms = "".join(
            f"  spm t{i} for t = from 0 s to forever every {s.period_ns // 1_000_000} ms"
            f" start-during (t + {us(s.open_ns)}, t + {us(s.close_ns)})"
            f" finish-by t + {us(s.deadline_ns)} wcet {us(s.wcet_ns)} criticality hard"
            f"{' uses s write' if s.writes else ''};\n"
            for i, s in enumerate(self.spms)
        )
        svms = "".join(
            f"  svm q{j} gct {us(q.gct_ns)} wcet {us(q.wcet_ns)} criticality hard"
            f" max-rate {q.rate_hz} Hz uses s {'write' if q.writes else 'read'};\n"
            for j, q in enumerate(self.svms)
        )
        return (
            f"tmo B{self.index} {{\n  ods {{ segment s {{ double x; }} }}\n{spms}{svms}}}\n"
            f"node nb{self.index} {{ os sim scheduling {self.strategy}"
            f" deploy B{self.index} as {self.name} }}\n"
        )

    def runner_line(self) -> str:
        users = self.spm_bands + self.svm_bands
        uses = [s.writes for s in self.spms] + [True for _ in self.svms]
        ceiling = max(b for b, used in zip(users, uses) if used)
        words = [self.name, self.strategy, f"seg:{ceiling}"]
        words += [
            f"spm:{s.period_ns}:{s.wcet_ns}:{s.open_ns}:{s.close_ns}:{s.deadline_ns}:{band}:"
            f"{1 if s.writes else 0}"
            for s, band in zip(self.spms, self.spm_bands)
        ]
        words += [
            f"svm:{q.gct_ns}:{q.wcet_ns}:{band}:{slot}:{self.conflicts()}:1:"
            + ",".join(map(str, q.arrivals_ns))
            for q, band, slot in zip(self.svms, self.svm_bands, self.slots_ns)
        ]
        return " ".join(words)


def generate(seed: int, index: int) -> BccSet:
    rng = random.Random(f"bcc/{seed}/{index}")
    strategy = STRATEGIES[index % len(STRATEGIES)]
    n = rng.randint(1, 4)
    spms = []
    for share in uunifast_discard(rng, n, rng.uniform(0.05, 0.3)):
        period = rng.choice(PERIODS_MS) * 1_000_000
        wcet = max(GRAIN_NS, round(share * period / GRAIN_NS) * GRAIN_NS)
        slack = period - wcet
        open_ns = round(rng.uniform(0, 0.5) * slack / GRAIN_NS) * GRAIN_NS
        close_ns = open_ns + round(rng.uniform(0, 0.3) * (slack - open_ns) / GRAIN_NS) * GRAIN_NS
        deadline = min(period, max(close_ns, open_ns + wcet) + rng.choice((0, wcet, 2 * wcet)))
        spms.append(Spm(period, wcet, open_ns, close_ns, deadline, rng.random() < 0.7))
    if not any(s.writes for s in spms):
        spms[0].writes = True
    svms = []
    for _ in range(rng.randint(1, 2)):
        rate = rng.choice(RATES_HZ)
        interarrival = 1_000_000_000 // rate
        wcet = GRAIN_NS * rng.randint(1, 50)
        gct = max(wcet, round(rng.uniform(0.4, 1.0) * interarrival / GRAIN_NS) * GRAIN_NS)
        svms.append(Svm(gct, wcet, rate, rng.random() < 0.3))
    return BccSet(index, strategy, spms, svms)


def attach_verdicts(sets: list[BccSet], report: dict):
    assert not report["errors"], report["errors"][:5]
    by_node = {node["node"]: node for node in report["nodes"]}
    for s in sets:
        node = by_node[f"nb{s.index}"]
        tasks = {t["name"]: t for t in node["tasks"]}
        admission = {b["svm"]: b for b in node["bcc"]}
        s.verdict = node["schedulable"]
        s.spm_bands = [tasks[f"{s.name}.t{i}"]["priority"] for i in range(len(s.spms))]
        s.spm_response_ns = [
            tasks[f"{s.name}.t{i}"]["response_time_ns"] for i in range(len(s.spms))
        ]
        names = [f"{s.name}.q{j}" for j in range(len(s.svms))]
        s.svm_bands = [tasks[name]["priority"] for name in names]
        s.svm_response_ns = [tasks[name]["response_time_ns"] for name in names]
        s.svm_ok = [tasks[name]["schedulable"] for name in names]
        s.slots_ns = [admission[name]["slot_ns"] for name in names]
        assert all(admission[name]["conflicts"] for name in names), s.model()


def choose_arrivals(s: BccSet, rng: random.Random):
    """The worst instants around every conflicting opening of the first hyperperiod, then
    random ones, spaced by each method's minimum inter-arrival time, within the engine's rows."""
    budget = (MAX_ROWS - len(s.spms)) // len(s.svms)
    hyperperiod = s.hyperperiod_ns
    for q, slot in zip(s.svms, s.slots_ns):
        adversarial = []
        for spm, response in zip(s.spms, s.spm_response_ns):
            if not spm.writes:
                continue
            for release in range(0, hyperperiod, spm.period_ns):
                opening = release + spm.open_ns
                adversarial += [opening - slot + 1, opening - slot, opening - q.gct_ns + 1,
                                opening + 1, opening + max(response, 0) - 1]
        rng.shuffle(adversarial)
        candidates = adversarial + [rng.randrange(hyperperiod) for _ in range(2 * budget)]
        chosen: list[int] = []
        for instant in candidates:
            if len(chosen) == budget:
                break
            if 0 <= instant < hyperperiod and all(
                abs(instant - other) >= q.min_interarrival_ns for other in chosen
            ):
                chosen.append(instant)
        q.arrivals_ns = sorted(chosen)


def play(sets: list[BccSet], workdir: Path):
    parts = max(1, min(os.cpu_count() or 1, 4))
    listings = []
    for part in range(parts):
        listing = workdir / f"bcc{part}.txt"
        listing.write_text("".join(s.runner_line() + "\n" for s in sets[part::parts]))
        listings.append(listing)
    runners = [
        subprocess.Popen([RUNNER, listing], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for listing in listings
    ]
    by_name = {s.name: s for s in sets}
    per_item = ("missed", "worst_response_ns", "served", "worst_service_ns", "waited")
    for runner in runners:
        stdout, stderr = runner.communicate(timeout=TIMEOUT_S)
        assert runner.returncode == 0, f"{runner.args} exited {runner.returncode}:\n{stderr}"
        for line in stdout.splitlines():
            name, *pairs = line.split()
            by_name[name].outcome = {
                key: [int(v) for v in value.split(",")] if key in per_item else int(value)
                for key, value in (pair.split("=", 1) for pair in pairs)
            }
    missing = [s.name for s in sets if not s.outcome]
    assert not missing, f"the runner did not report {missing[:10]}"


def disagreement(s: BccSet) -> str | None:
    o = s.outcome
    requests = sum(len(q.arrivals_ns) for q in s.svms)
    if o["refused"] != 0 or sum(o["served"]) != requests:
        return f"served {sum(o['served'])} of {requests} requests ({o['refused']} refused)"
    if o["bcc_overlaps"] != 0:
        return f"{o['bcc_overlaps']} service executions overlapped a conflicting SpM"
    for j, (seen, analysed, ok) in enumerate(
        zip(o["worst_service_ns"], s.svm_response_ns, s.svm_ok)
    ):
        if ok and seen > analysed:
            return f"q{j} responded in {seen} ns, beyond the analysed {analysed} ns"
    if s.verdict and (o["gct_misses"] or o["deadline_misses"] or o["window_misses"]):
        return "check says schedulable, yet the run missed"
    return None


def test_service_methods_keep_their_analysed_bound_under_bcc(workdir, capsys):
    if not RUNNER.is_file():
        pytest.fail(f"{RUNNER} is not built: run `make cpp` first")
    sets = [generate(SEED, index) for index in range(SETS)]
    model = workdir / "bcc.tmo"
    model.write_text("".join(s.model() for s in sets))
    checked = kairos("check", "--format", "json", model)
    assert checked.returncode in (0, 1), checked.stdout[-2000:] + checked.stderr
    attach_verdicts(sets, json.loads(checked.stdout))
    rng = random.Random(f"bcc-arrivals/{SEED}")
    for s in sets:
        choose_arrivals(s, rng)
    play(sets, workdir)

    failures = [(s, why) for s in sets if (why := disagreement(s)) is not None]
    bounded = [(s, j) for s in sets for j, ok in enumerate(s.svm_ok) if ok]
    requests = sum(len(q.arrivals_ns) for s in sets for q in s.svms)
    waited = sum(sum(s.outcome["waited"]) for s in sets)
    closeness = [
        s.outcome["worst_service_ns"][j] / s.svm_response_ns[j] for s, j in bounded
    ]
    tight = sum(c >= 0.5 for c in closeness)
    with capsys.disabled():
        print(
            f"\n  seed {SEED}: {SETS} sets, {requests} requests, {waited} waited for admission;"
            f" {len(bounded)} service methods with a bound, worst response / bound: median"
            f" {sorted(closeness)[len(closeness) // 2]:.2f}, >= 0.5 for {tight};"
            f" {sum(s.verdict for s in sets)} nodes schedulable; {len(failures)} disagreements"
        )
    assert not failures, (
        f"{len(failures)} sets disagree with kairos check (the first"
        f" {min(len(failures), FAILURES_SHOWN)}):\n"
        + "\n".join(
            f"--- {s.name} ({s.strategy}): {why}\nanalysed svm responses {s.svm_response_ns},"
            f" slots {s.slots_ns}\nrun: {s.outcome}\nreplay: echo '{s.runner_line()}' | {RUNNER}\n"
            f"{s.model()}"
            for s, why in failures[:FAILURES_SHOWN]
        )
    )
    # The instants must bite, or the property would hold vacuously.
    assert waited >= requests // 10, f"only {waited} of {requests} requests waited"
    assert len(bounded) >= SETS // 10, f"only {len(bounded)} service methods had a bound"
    assert tight >= len(bounded) // 20, f"only {tight} worst responses reached half their bound"
