"""Property test: what `kairos check` concludes about a task set, the engine bears out on sim.

Thousands of random periodic task sets (seeded), each one node with `os sim` under RMS, EDF
(preemptive), NP-EDF (Kokyu's non-preemptive queue), MLF, MUF or RMS+MLF (the last three mixing hard and soft methods with importances, and twins
of equal timing so that ties decide),
go into one model and one `kairos check --format json`. The same sets, with the priority bands
the analysis assigned, are then played on the real engine over the simulated platform for one
hyperperiod, every method taking exactly its WCET (runtime-cpp/tests/sim/taskset_runner.cpp),
once as a simulated node dispatches and once 200 us ahead as a real one does, walking the
release table as generated nodes do. Every set is
synchronous (all tasks released at 0); most have implicit deadlines, a quarter constrained ones
(start window and deadline both t + D, C <= D <= P). Every other EDF and NP-EDF set has about
half its methods write one ODS segment: under EDF the Stack Resource Policy arbitrates it, in the
release table as on the engine. For each set and each run:

- schedulable => no miss (deadline, start window or overrun), every deadline miss reported at
  the deadline, no response longer than the analysed one; under RMS the analysed response is
  also reached in every band (synchronous release is the critical instant);
- not schedulable => at least one miss wherever the analysis is exact: under preemptive EDF
  without a shared segment (the release table plays the synchronous schedule), and under RMS for
  implicit deadlines or when a task
  found late has its band to itself. RTA counts the other tasks of a band (same period) as
  interference, since their lane may serve them first; with constrained deadlines FIFO may in
  fact serve the tight one first, so such verdicts are counted, not failed.

Under every strategy, each method the analysis finds on time must be on time on the engine,
within its analysed response: analysis and engine order ready activations by one rule
(docs/language.md#dispatching).

A second property plays methods that call gates (KAIROS_PROPERTY_GATE_SETS sets, the
strategies in turn): in each set one to three methods call a gate to a service method on another
node, with a deadline W. Half the gates are blocking, and the analysis counts W as execution
(C + W): the runner's method waits for its reply for the whole W every other activation and for
a time drawn from [0, W] otherwise, blocked (its lane and segments held, no processor time), then
computes C, as an `os sim` node does. The others are oneway or non-blocking: the caller waits for
no reply, the analysis charges it none (its analysed WCET must stay C) and the runner plays C. A schedulable set must then miss nothing and every method found on time must respond
within its analysed bound; a wait shorter than W ends sooner than the analysis assumes, so these
sets are not held to the exact schedule of the release table, nor "not schedulable" to a miss;
and on an EDF node found not schedulable, whose overload may then fall on other methods than in
the release table, no single method is held to its own verdict. Every other EDF and NP-EDF gate
set shares a segment too: a method that ends sooner than the table played it may let one due
later start or take the segment, which then holds the processor or the segment from a more
urgent one, so such sets are judged by the demand test and its blocking term, not by the table
(docs/cli.md#check).

A third property plays channels (KAIROS_PROPERTY_CHANNEL_SETS sets, drawn as the gate sets):
each set's node has a channel hub below every lane, as a node does, and a peer node on a second
simulated processor, 10 us of link away. About half the set's methods publish on a channel the
peer reads, each as its activation ends, after its computation and any wait for a reply (the
latest a method can); the peer's feed publishes every 997 us on a channel a method of the set
reads, at every phase of the set's schedule. The runner notes, for each sample, the time from the
release of the activation that published it to its delivery to the reader's history on the other
node, and the worst of each publisher must be within the `deliver` hop that `kairos check` gives
the chain (the publisher's sample also within its `publish` hop plus the link): the set's hub
waits for its methods, gate waits and the work they hold back included, on the way out and on
the way in. (Sets are checked a hundred to a model: a model's chains are bounded in number.)

KAIROS_PROPERTY_SEED and KAIROS_PROPERTY_SETS (the strategies in turn) choose other sets; a
failure prints the seed, the offending sets, their model text and the runner's input line.
"""

import json
import math
import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT, TIMEOUT_S, kairos

SEED = int(os.environ.get("KAIROS_PROPERTY_SEED", "1"))
SETS = int(os.environ.get("KAIROS_PROPERTY_SETS", "5000"))
GATE_SETS = int(os.environ.get("KAIROS_PROPERTY_GATE_SETS", "2000"))
CHANNEL_SETS = int(os.environ.get("KAIROS_PROPERTY_CHANNEL_SETS", "1000"))
CHANNEL_SETS_PER_MODEL = 100
RUNNER = Path(
    os.environ.get(
        "KAIROS_TASKSET_RUNNER",
        ROOT / "build" / "cpp" / "runtime-cpp" / "tests" / "kairos_taskset_runner",
    )
)

STRATEGIES = ("rms", "edf", "mlf", "muf", "rms+mlf", "np-edf")
# Criticality-aware strategies guarantee the hard set; their sets mix hard and soft methods.
CRITICALITY_AWARE = ("mlf", "muf", "rms+mlf")
# Strategies whose "not schedulable" must show as a miss (see TaskSet.exact).
EXACT_STRATEGIES = ("rms", "edf", "np-edf")
# Strategies whose sets may share an ODS segment: those the release table plays exactly with one
# (response-time analysis with ceiling blocking is a bound, not the synchronous schedule).
SEGMENT_STRATEGIES = ("edf", "np-edf")
TASKS = (2, 8)
UTILIZATION = (0.5, 1.05)
# Divisors of 200 ms: every hyperperiod is at most 200 ms, a few hundred activations.
PERIODS_MS = (5, 8, 10, 20, 25, 40, 50, 100, 200)
# WCETs are whole multiples of a grain chosen per set (at most a tenth of the period): coarse
# grains make completions fall exactly on releases and deadlines, where ties are decided.
WCET_GRAINS_NS = (10_000, 100_000, 1_000_000)
# Every fourth set of each strategy has constrained deadlines, D between C and P.
CONSTRAINED_EVERY = 4
# How the runner hands releases to lanes: as a simulated node does, and 200 us ahead of the
# start window as on a real platform (the lane then holds the activation when its window opens),
# walking a release table of the hyperperiod as generated nodes do.
DISPATCH_MODES = {
    "sim dispatch": [],
    "dispatch 200 us ahead, walking a release table": [
        "--dispatch-ahead-ns", "200000", "--release-table",
    ],
}
# The mode in which the engine runs exactly the schedule the release table plays.
EXACT_MODE = "sim dispatch"
# Runner output fields with one value per task.
PER_TASK = ("missed", "worst_response_ns", "worst_outbound_ns", "worst_inbound_ns")
FAILURES_SHOWN = 10


@dataclass
class Task:
    period_ns: int
    wcet_ns: int
    deadline_ns: int
    soft: bool = False
    importance: int = 0
    writes: bool = False  # writes the set's one ODS segment
    gate_ns: int = 0  # the deadline of the gate it calls (0: it calls none)
    gate: str = "blocking"  # how: "blocking", "oneway" or "non-blocking"
    publishes: bool = False  # publishes on its set's outbound channel as each activation ends
    reads: bool = False  # reads its set's inbound channel

    @property
    def wait_ns(self) -> int:
        """What it waits for a reply: a blocking gate's deadline, counted as execution. A oneway
        call is over once sent and a non-blocking one is collected later: no wait."""
        return self.gate_ns if self.gate == "blocking" else 0


@dataclass
class TaskSet:
    index: int
    strategy: str
    tasks: list[Task]
    verdict: bool | None = None
    bands: list[int] = field(default_factory=list)
    analysed_ns: list[int] = field(default_factory=list)
    table_ns: list[int | None] = field(default_factory=list)  # as the release table played
    late: list[bool] = field(default_factory=list)  # tasks the analysis found late
    outcomes: dict[str, dict] = field(default_factory=dict)  # per dispatch mode
    channels: bool = False  # has an outbound and an inbound channel to a peer node
    # Per task, of the chains from its activation over the outbound channel: the latest its
    # sample is sent by its node's hub, and the latest it is delivered on the peer (-1: none).
    publish_bound_ns: list[int] = field(default_factory=list)
    outbound_bound_ns: list[int] = field(default_factory=list)
    inbound_bound_ns: int = -1  # the latest the feed's sample is delivered on the set's node

    @property
    def name(self) -> str:
        return f"s{self.index}"

    @property
    def implicit(self) -> bool:
        return all(t.deadline_ns == t.period_ns for t in self.tasks)

    @property
    def waits(self) -> bool:
        """Whether some method of the set waits for replies of a gate."""
        return any(t.wait_ns for t in self.tasks)

    @property
    def exact(self) -> bool:
        """Whether a "not schedulable" verdict must show as a miss on a synchronous run."""
        alone = [self.bands.count(band) == 1 for band in self.bands]
        # Under EDF the release table decides exactly only preemptive sets of independent
        # methods; a non-preemptive set, or one whose methods share a segment, is judged by the
        # demand test, whose blocking term the synchronous schedule need not reach.
        return not self.waits and self.strategy in EXACT_STRATEGIES and (
            (self.strategy == "edf" and sum(t.writes for t in self.tasks) < 2)
            or (self.strategy == "rms" and self.implicit)
            or any(late and own for late, own in zip(self.late, alone))
        )

    @property
    def hyperperiod_ns(self) -> int:
        return math.lcm(*(t.period_ns for t in self.tasks))

    @property
    def utilization(self) -> float:
        return sum(t.wcet_ns / t.period_ns for t in self.tasks)

    def model(self) -> str:
        spms = "".join(
            f"  spm t{i} for t = from 0 s to forever every {t.period_ns // 1_000_000} ms"
            f" start-during (t, t + {t.deadline_ns // 1_000} us)"
            f" finish-by t + {t.deadline_ns // 1_000} us"
            f" wcet {t.wcet_ns // 1_000} us criticality {'soft' if t.soft else 'hard'}"
            f" importance {t.importance}{' uses s write' if t.writes else ''}"
            f"{f' calls g{i}' if t.gate_ns else ''}"
            f"{f' publishes out{self.index}' if t.publishes else ''}"
            f"{f' reads in{self.index}' if t.reads else ''};\n"
            for i, t in enumerate(self.tasks)
        )
        ods = "  ods { segment s { double x; } }\n" if self.shares_segment else ""
        gates = "".join(
            f"    gate g{i} -> Server.{'nudge' if t.gate == 'oneway' else 'get'}"
            f"{' non-blocking' if t.gate == 'non-blocking' else ''}"
            f" deadline {t.gate_ns // 1_000} us;\n"
            for i, t in enumerate(self.tasks)
            if t.gate_ns
        )
        channels = self.channel_declarations("    ") if self.channels else ""
        eac = f"  eac {{\n{gates}{channels}  }}\n" if gates or channels else ""
        return (
            f"tmo S{self.index} {{\n{ods}{eac}{spms}}}\n"
            f"node n{self.index} {{ os sim scheduling {self.strategy}"
            f" deploy S{self.index} as {self.name} }}\n"
            + (self.peer_model() if self.channels else "")
        )

    def channel_declarations(self, indent: str) -> str:
        return "".join(
            f"{indent}channel {name}{self.index} : rmmc<uint64> best-effort depth 4;\n"
            for name in ("out", "in")
        )

    def peer_model(self) -> str:
        """The peer node of a set with channels: its feed publishes the set's inbound channel
        every FEED_PERIOD_US, its reader takes the outbound one."""
        window = f"start-during (t, t + {FEED_PERIOD_US} us) finish-by t + {FEED_PERIOD_US} us"
        return (
            f"tmo P{self.index} {{\n  eac {{\n{self.channel_declarations('    ')}  }}\n"
            f"  spm feed for t = from 0 s to forever every {FEED_PERIOD_US} us {window}"
            f" wcet 1 us criticality soft publishes in{self.index};\n"
            f"  spm take for t = from 0 s to forever every {FEED_PERIOD_US} us {window}"
            f" wcet 1 us criticality soft reads out{self.index};\n}}\n"
            f"node p{self.index} {{ os sim deploy P{self.index} as p{self.index} }}\n"
        )

    @property
    def shares_segment(self) -> bool:
        return any(t.writes for t in self.tasks)

    def runner_line(self) -> str:
        if self.waits:
            ceiling = max((band for t, band in zip(self.tasks, self.bands) if t.writes), default=0)
            tasks = (f"seg:{ceiling} " if self.shares_segment else "") + " ".join(
                f"spm:{t.period_ns}:{t.wcet_ns}:0:{t.deadline_ns}:{t.deadline_ns}:{band}"
                f":{int(t.writes)}:{t.wait_ns}:{int(t.soft)}:{t.importance}"
                for t, band in zip(self.tasks, self.bands)
            )
        elif self.shares_segment:
            # The segment's priority ceiling is the highest band of its users (under preemptive
            # EDF the engine derives its SRP ceiling from their relative deadlines instead).
            ceiling = max(band for t, band in zip(self.tasks, self.bands) if t.writes)
            tasks = f"seg:{ceiling} " + " ".join(
                f"spm:{t.period_ns}:{t.wcet_ns}:0:{t.deadline_ns}:{t.deadline_ns}:{band}"
                f":{int(t.writes)}"
                for t, band in zip(self.tasks, self.bands)
            )
        else:
            tasks = " ".join(
                f"{t.period_ns}:{t.wcet_ns}:{t.deadline_ns}:{band}:{int(t.soft)}:{t.importance}"
                for t, band in zip(self.tasks, self.bands)
            )
        if self.channels:
            publishers = sum(1 << i for i, t in enumerate(self.tasks) if t.publishes)
            tasks += f" channels:{publishers}:{FEED_PERIOD_US * 1_000}:{GATE_LATENCY_US * 1_000}"
        return f"{self.name} {self.strategy} {tasks}"


def uunifast_discard(rng: random.Random, n: int, total: float) -> list[float]:
    """Bini and Buttazzo's UUniFast: n utilizations summing to `total`, uniformly spread;
    drawn again while one exceeds 1 (no task may need more than its period)."""
    while True:
        shares = []
        remaining = total
        for i in range(1, n):
            following = remaining * rng.random() ** (1.0 / (n - i))
            shares.append(remaining - following)
            remaining = following
        shares.append(remaining)
        if max(shares) <= 1.0:
            return shares


def generate(seed: int, index: int, utilization=UTILIZATION) -> TaskSet:
    """Set `index` of the run with `seed`: reproducible on its own, whatever the count."""
    rng = random.Random(f"{seed}/{index}")
    strategy = STRATEGIES[index % len(STRATEGIES)]
    constrained = (index // len(STRATEGIES)) % CONSTRAINED_EVERY == CONSTRAINED_EVERY - 1
    shares = uunifast_discard(rng, rng.randint(*TASKS), rng.uniform(*utilization))
    set_grain_ns = rng.choice(WCET_GRAINS_NS)
    tasks = []
    for share in shares:
        period_ns = rng.choice(PERIODS_MS) * 1_000_000
        grain_ns = min(set_grain_ns, period_ns // 10)
        wcet_ns = min(period_ns, max(grain_ns, round(share * period_ns / grain_ns) * grain_ns))
        deadline_ns = period_ns
        if constrained:
            slack = round(rng.uniform(0.3, 1.0) * (period_ns - wcet_ns) / grain_ns) * grain_ns
            deadline_ns = min(period_ns, wcet_ns + slack)
        tasks.append(Task(period_ns, wcet_ns, deadline_ns))
    if strategy in CRITICALITY_AWARE:
        for task in tasks:
            task.soft = rng.random() < 0.4
            task.importance = rng.randint(0, 3)
        # Twins: the same timing with another criticality or importance, so that MUF's
        # importance and the bands' ties decide who runs first.
        for task in list(tasks):
            if len(tasks) < TASKS[1] and rng.random() < 0.3:
                tasks.append(Task(task.period_ns, task.wcet_ns, task.deadline_ns,
                                  rng.random() < 0.4, rng.randint(0, 3)))
    if strategy in SEGMENT_STRATEGIES and (index // len(STRATEGIES)) % 2 == 1:
        # Every other such set: about half its methods write one shared segment, which the
        # Stack Resource Policy (edf) or the lane's run to completion (np-edf) arbitrates.
        for task in tasks:
            task.writes = rng.random() < 0.5
    return TaskSet(index, strategy, tasks)


def attach_verdicts(sets: list[TaskSet], report: dict):
    assert not report["errors"], report["errors"][:5]
    by_node = {node["node"]: node for node in report["nodes"]}
    for s in sets:
        node = by_node[f"n{s.index}"]
        tasks = {t["name"]: t for t in node["tasks"]}
        analysed = [tasks[f"{s.name}.t{i}"] for i in range(len(s.tasks))]
        # A method that calls a blocking gate is analysed with its wait counted as execution.
        assert [(t["period_ns"], t["wcet_ns"], t["deadline_ns"]) for t in analysed] == [
            (t.period_ns, t.wcet_ns + t.wait_ns, t.deadline_ns) for t in s.tasks
        ], s.model()
        s.verdict = node["schedulable"]
        s.bands = [t["priority"] for t in analysed]
        s.analysed_ns = [t["response_time_ns"] for t in analysed]
        s.table_ns = [t.get("table_worst_response_ns") for t in analysed]
        s.late = [not t["schedulable"] for t in analysed]
    if any(s.channels for s in sets):
        attach_channel_bounds(sets, report)


def channel_hops(report: dict) -> tuple[dict, dict]:
    """The latest `publish` and `deliver` hop of every (publishing method, channel) over all the
    chains that carry it; -1 where one chain has no bound."""
    publish: dict[tuple[str, str], int] = {}
    deliver: dict[tuple[str, str], int] = {}

    def merge(into: dict, key: tuple[str, str], latest: int):
        before = into.get(key, latest)
        into[key] = -1 if -1 in (before, latest) else max(before, latest)

    for chain in report["chains"]:
        key = None
        for hop in chain["hops"]:
            if hop["kind"] == "publish":
                method, _, channel = hop["what"].removesuffix(", sent").partition(" publishes ")
                key = (method, channel)
                merge(publish, key, hop["latest_ns"])
            elif hop["kind"] == "deliver":
                merge(deliver, key, hop["latest_ns"])
    return publish, deliver


def attach_channel_bounds(sets: list[TaskSet], report: dict):
    publish, deliver = channel_hops(report)
    for s in (s for s in sets if s.channels):
        outbound = [(f"{s.name}.t{i}", f"out{s.index}") for i in range(len(s.tasks))]
        inbound = (f"p{s.index}.feed", f"in{s.index}")
        published = [key for key, t in zip(outbound, s.tasks) if t.publishes] + [inbound]
        missing = [key for key in published if key not in publish or key not in deliver]
        assert not missing, f"check reported no chain for {missing}:\n{s.model()}"
        s.publish_bound_ns = [publish.get(key, -1) for key in outbound]
        s.outbound_bound_ns = [deliver.get(key, -1) for key in outbound]
        s.inbound_bound_ns = deliver[inbound]


def play(sets: list[TaskSet], workdir: Path):
    """Runs the sets through the runner in every dispatch mode, in parallel on the processors."""
    parts = max(1, min(os.cpu_count() or 1, 4))
    listings = []
    for part in range(parts):
        listing = workdir / f"sets{part}.txt"
        listing.write_text("".join(s.runner_line() + "\n" for s in sets[part::parts]))
        listings.append(listing)
    runs = [
        (
            mode,
            subprocess.Popen(
                [RUNNER, *options, listing],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
        for mode, options in DISPATCH_MODES.items()
        for listing in listings
    ]
    by_name = {s.name: s for s in sets}
    for mode, runner in runs:
        stdout, stderr = runner.communicate(timeout=TIMEOUT_S)
        assert runner.returncode == 0, f"{runner.args} exited {runner.returncode}:\n{stderr}"
        for line in stdout.splitlines():
            name, *pairs = line.split()
            by_name[name].outcomes[mode] = {
                key: [int(v) for v in value.split(",")] if key in PER_TASK else int(value)
                for key, value in (pair.split("=", 1) for pair in pairs)
            }
    missing = [s.name for s in sets if len(s.outcomes) != len(DISPATCH_MODES)]
    assert not missing, f"the runner did not report {missing[:10]}"


def misses(s: TaskSet, mode: str) -> int:
    o = s.outcomes[mode]
    return o["deadline_misses"] + o["window_misses"] + o["overruns"]


def disagreement(s: TaskSet, mode: str) -> str | None:
    """Why the run in `mode` contradicts the verdict on `s`, or None when it bears it out."""
    o = s.outcomes[mode]
    releases = sum(s.hyperperiod_ns // t.period_ns for t in s.tasks)
    # Every activation leaves one record with its outcome, an overrun too.
    if o["records"] != releases or o["trace_drops"] != 0:
        return f"the run accounted for {o['records']} of {releases} activations"
    if o["late_reports"] != 0:
        return f"{o['late_reports']} deadline misses were reported after the deadline"
    # The release table the analysis plays is the schedule the engine runs, to the nanosecond:
    # same bands, same order inside each band (the one dispatch rule), same preemptions.
    # (Where activations miss, the engine drops what the table still plays: compared only
    # where nothing missed.)
    if mode == EXACT_MODE and misses(s, mode) == 0 and not s.waits:
        for i, (seen, played) in enumerate(zip(o["worst_response_ns"], s.table_ns)):
            if played is not None and played > 0 and seen != played:
                return f"t{i} responded in {seen} ns at worst; the release table played {played} ns"
    # Every method the analysis finds on time is on time, whatever the node's verdict: under
    # fixed priorities its band and those above decide; under EDF the release table plays the
    # node's one schedule. (An overloaded EDF node whose methods wait less than their gates'
    # deadlines runs another schedule, in which the overload may fall elsewhere: its verdict is
    # the node's.)
    per_task = not (s.waits and not s.verdict and s.strategy in ("edf", "np-edf"))
    for i, (late, missed) in enumerate(zip(s.late, o["missed"]) if per_task else ()):
        if not late and missed > 0:
            return f"t{i} was found on time, yet {missed} of its activations missed"
    responses = zip(s.late, o["worst_response_ns"], s.analysed_ns) if per_task else ()
    for i, (late, seen, analysed) in enumerate(responses):
        if not late and seen > analysed:
            return f"t{i} responded in {seen} ns, beyond the analysed {analysed} ns"
    if s.channels and (why := channel_disagreement(s, mode)) is not None:
        return why
    if not s.verdict:
        if misses(s, mode) == 0 and s.exact:
            return "check says not schedulable, yet the run missed nothing"
        return None
    if s.strategy not in CRITICALITY_AWARE and misses(s, mode) > 0:
        return "check says schedulable, yet the run missed"
    if s.strategy == "rms" and not s.waits:
        # Synchronous release is the critical instant: in each band the activation served last
        # reaches the response time found by response-time analysis, exactly.
        for band in sorted(set(s.bands)):
            members = [i for i, b in enumerate(s.bands) if b == band]
            worst = max(o["worst_response_ns"][i] for i in members)
            analysed = s.analysed_ns[members[0]]
            if worst != analysed:
                return f"band {band} responded in {worst} ns at worst, analysed {analysed} ns"
    return None


def channel_disagreement(s: TaskSet, mode: str) -> str | None:
    """Why the channels of `s` contradict their analysed bounds in `mode`, or None."""
    o = s.outcomes[mode]
    for direction in ("outbound", "inbound"):
        published, delivered, lost = (
            o[f"{direction}_{count}"] for count in ("published", "delivered", "lost"))
        if delivered + lost != published:
            return f"{direction}: {published} samples published, {delivered} delivered, {lost} lost"
    if o["inbound_delivered"] == 0:
        return "no sample of the feed reached the set's node"
    # Counted from the release of the activation that published it (one whose task missed
    # nothing: its k-th run is its k-th release), to its delivery to the peer's reader.
    latency_ns = GATE_LATENCY_US * 1_000
    for i, t in enumerate(s.tasks):
        seen = o["worst_outbound_ns"][i]
        if not t.publishes or o["missed"][i] > 0:
            continue
        if seen < 0:
            return f"t{i} ran and published, yet none of its samples reached the peer"
        delivered, sent = s.outbound_bound_ns[i], s.publish_bound_ns[i]
        if 0 <= delivered < seen:
            return (f"a sample of t{i} reached the peer {seen} ns after its release, beyond the"
                    f" analysed deliver hop of {delivered} ns")
        # The peer's hub has nothing to wait for: a sample arrives one link latency after it
        # was sent and is delivered at once.
        if 0 <= sent < seen - latency_ns:
            return (f"a sample of t{i} was sent {seen - latency_ns} ns after its release, beyond"
                    f" the analysed publish hop of {sent} ns")
    seen = o["worst_inbound_ns"][0]
    if 0 <= s.inbound_bound_ns < seen:
        return (f"a sample of the feed reached the set's reader {seen} ns after its release,"
                f" beyond the analysed deliver hop of {s.inbound_bound_ns} ns")
    return None


def describe(s: TaskSet, mode: str, why: str) -> str:
    options = " ".join(DISPATCH_MODES[mode])
    return (
        f"--- set {s.name} (KAIROS_PROPERTY_SEED={SEED}, index {s.index}), {mode}: {why}\n"
        f"strategy {s.strategy}, U = {s.utilization:.4f}, hyperperiod {s.hyperperiod_ns} ns,"
        f" check: {'schedulable' if s.verdict else 'NOT schedulable'}\n"
        f"bands {s.bands}, analysed response (ns) {s.analysed_ns}\n"
        f"run: {s.outcomes[mode]}\n"
        f"replay: echo '{s.runner_line()}' | {RUNNER} {options}\n"
        f"{s.model()}"
    )


# The server every gate of the gate sets calls: on a node of its own, reached over one network.
# Its rate and its own schedulability are no part of the property (each set's verdict is its
# node's); its GCT and the network let every gate's deadline of at least 200 us pass the checks.
GATE_SERVER = (
    "interface Store {\n  uint32 get();\n  oneway void nudge();\n}\n"
    "tmo Server implements Store {\n"
    "  svm get gct 100 us wcet 1 us criticality soft max-rate 1000000 Hz;\n"
    "  svm nudge gct 100 us wcet 1 us criticality soft max-rate 1000000 Hz;\n}\n"
    "node server { os sim deploy Server as server }\n"
)
GATE_LATENCY_US = 10
# The period of the peer's feed in the channel sets.
FEED_PERIOD_US = 997
GATE_UTILIZATION = (0.3, 0.9)


def generate_with_gates(seed: int, index: int) -> TaskSet:
    """Set `index` of the gate sets: a set as generate() draws it, one to three of whose methods
    call a gate whose deadline W fits with their WCET in their deadline (C + W <= D), W a whole
    multiple of 100 us, at least 200 us: a blocking gate (half of them), whose wait is counted as
    execution, or a oneway or a non-blocking one (a quarter each), which charges the caller no
    wait and which the runner plays as no wait. Their computation loads the processor less than
    the other sets' (the waits are counted as execution on top)."""
    s = generate(seed + 7919, index, GATE_UTILIZATION)
    rng = random.Random(f"gates/{seed}/{index}")
    unit_ns = 100_000
    candidates = [t for t in s.tasks if t.deadline_ns - t.wcet_ns >= 2 * unit_ns]
    for task in rng.sample(candidates, min(len(candidates), rng.randint(1, 3))):
        room = (task.deadline_ns - task.wcet_ns) // unit_ns
        task.gate_ns = rng.randint(2, max(2, round(room * rng.uniform(0.1, 0.6)))) * unit_ns
        task.gate = rng.choice(("blocking", "blocking", "oneway", "non-blocking"))
    return s


def generate_with_channels(seed: int, index: int) -> TaskSet:
    """Set `index` of the channel sets: a gate set as generate_with_gates() draws it whose node
    has a channel to a peer node and one from it. About half its methods publish on the outbound
    channel, among them one that waits for a gate's reply where there is one (its sample leaves
    after the wait); one reads the inbound channel, which the peer's feed publishes every
    FEED_PERIOD_US (coprime to the sets' periods, so that its samples arrive at every phase of
    the set's schedule)."""
    s = generate_with_gates(seed + 104_729, index)
    rng = random.Random(f"channels/{seed}/{index}")
    s.channels = True
    for task in s.tasks:
        task.publishes = rng.random() < 0.5
    waiting = [t for t in s.tasks if t.wait_ns]
    rng.choice(waiting or s.tasks).publishes = True
    rng.choice(s.tasks).reads = True
    return s


def gates_model(sets: list[TaskSet]) -> str:
    nodes = ", ".join([f"n{s.index}" for s in sets
                       if s.channels or any(t.gate_ns for t in s.tasks)]
                      + [f"p{s.index}" for s in sets if s.channels] + ["server"])
    return (
        "".join(s.model() for s in sets)
        + GATE_SERVER
        + f"network lan {{ latency {GATE_LATENCY_US} us; connects {nodes}; }}\n"
    )


def check_and_play(sets: list[TaskSet], model_of, workdir: Path, capsys, title: str,
                   per_model: int | None = None):
    """Checks the sets, `per_model` of them to a model (`model_of` writes its text; all in one by
    default), plays them, and fails with every disagreement."""
    per_model = per_model or len(sets)
    for first in range(0, len(sets), per_model):
        part = sets[first:first + per_model]
        model = workdir / f"tasksets{first // per_model}.tmo"
        model.write_text(model_of(part))
        checked = kairos("check", "--format", "json", model)
        # Exit 1 is the verdict "not schedulable" for some node; anything else is a failure.
        assert checked.returncode in (0, 1), checked.stdout[-2000:] + checked.stderr
        attach_verdicts(part, json.loads(checked.stdout))
    play(sets, workdir)

    failures = [
        (s, mode, why)
        for s in sets
        for mode in DISPATCH_MODES
        if (why := disagreement(s, mode)) is not None
    ]
    categories = {
        strategy: {
            "schedulable": [s for s in mine if s.verdict],
            "not schedulable, missed": [
                s for s in mine if not s.verdict and all(misses(s, m) for m in DISPATCH_MODES)
            ],
            # Where the analysis is a bound, not the synchronous schedule: tasks late under RTA
            # share their band, the EDF demand test's blocking or a gate's shorter wait.
            "not schedulable, no miss (a bound, not the schedule played)": [
                s for s in mine if not s.verdict and not all(misses(s, m) for m in DISPATCH_MODES)
            ],
        }
        for strategy in STRATEGIES
        if (mine := [s for s in sets if s.strategy == strategy])
    }
    activations = sum(o["records"] for s in sets for o in s.outcomes.values())
    with capsys.disabled():
        constrained = sum(not s.implicit for s in sets)
        print(
            f"\n  {title}, seed {SEED}: {len(sets)} sets ({constrained} with constrained"
            f" deadlines), each played {len(DISPATCH_MODES)} ways: {activations} activations"
        )
        for strategy, groups in categories.items():
            print(f"  {strategy}: " + ", ".join(f"{len(g)} {name}" for name, g in groups.items()))
        print(f"  {len(failures)} disagreements")
    assert not failures, (
        f"{len(failures)} runs disagree with kairos check"
        f" (the first {min(len(failures), FAILURES_SHOWN)}):\n"
        + "\n".join(describe(s, mode, why) for s, mode, why in failures[:FAILURES_SHOWN])
    )
    return categories


def test_check_verdicts_hold_on_the_simulated_engine(workdir, capsys):
    if not RUNNER.is_file():
        pytest.fail(f"{RUNNER} is not built: run `make cpp` first")
    sets = [generate(SEED, index) for index in range(SETS)]
    categories = check_and_play(
        sets, lambda part: "".join(s.model() for s in part), workdir, capsys, "periodic sets")
    # Both verdicts must occur often, or the property would hold vacuously.
    for strategy, groups in categories.items():
        if strategy not in EXACT_STRATEGIES:
            assert len(groups["schedulable"]) >= 1, f"{strategy}: no schedulable set"
            continue
        enough = max(1, sum(len(g) for g in groups.values()) // 10)
        for name in ("schedulable", "not schedulable, missed"):
            assert len(groups[name]) >= enough, (
                f"{strategy}: only {len(groups[name])} sets were {name}; want {enough}"
            )


def test_methods_that_wait_on_gates_keep_their_verdicts_on_the_simulated_engine(workdir, capsys):
    if not RUNNER.is_file():
        pytest.fail(f"{RUNNER} is not built: run `make cpp` first")
    sets = [generate_with_gates(SEED, index) for index in range(GATE_SETS)]
    calling = {kind: sum(1 for s in sets for t in s.tasks if t.gate_ns and t.gate == kind)
               for kind in ("blocking", "oneway", "non-blocking")}
    assert calling["blocking"] >= len(sets) // 2, calling
    assert min(calling.values()) >= len(sets) // 5, calling
    categories = check_and_play(sets, gates_model, workdir, capsys, "sets with gate waits")
    for strategy, groups in categories.items():
        enough = max(1, sum(len(g) for g in groups.values()) // 20)
        assert len(groups["schedulable"]) >= enough, (
            f"{strategy}: only {len(groups['schedulable'])} sets with gate waits were"
            f" schedulable; want {enough}"
        )


def test_channel_samples_reach_their_readers_within_the_analysed_hops_on_the_simulated_engine(
        workdir, capsys):
    if not RUNNER.is_file():
        pytest.fail(f"{RUNNER} is not built: run `make cpp` first")
    sets = [generate_with_channels(SEED, index) for index in range(CHANNEL_SETS)]
    # A model holds at most HolisticAnalysis.MAX_CHAINS (1,024) chains: a set has one for each
    # method that calls a gate or publishes, and one for its feed.
    categories = check_and_play(sets, gates_model, workdir, capsys, "sets with channels",
                                per_model=CHANNEL_SETS_PER_MODEL)
    compared = [
        (seen, bound)
        for s in sets
        for o in s.outcomes.values()
        for t, missed, seen, bound in zip(
            s.tasks, o["missed"], o["worst_outbound_ns"], s.outbound_bound_ns)
        if t.publishes and missed == 0 and bound >= 0
    ] + [(o["worst_inbound_ns"][0], s.inbound_bound_ns)
         for s in sets for o in s.outcomes.values() if s.inbound_bound_ns >= 0]
    samples = sum(o["outbound_delivered"] + o["inbound_delivered"]
                  for s in sets for o in s.outcomes.values())
    closest = max(seen / bound for seen, bound in compared)
    with capsys.disabled():
        print(f"  {samples} samples delivered; {len(compared)} worst deliveries compared with"
              f" their analysed deliver hop, the closest at {closest:.0%} of it")
    # Most channels must have a bound to compare with, or the property would hold vacuously.
    assert len(compared) >= len(sets) * len(DISPATCH_MODES), len(compared)
    for strategy, groups in categories.items():
        enough = max(1, sum(len(g) for g in groups.values()) // 20)
        assert len(groups["schedulable"]) >= enough, (
            f"{strategy}: only {len(groups['schedulable'])} sets with channels were"
            f" schedulable; want {enough}"
        )
