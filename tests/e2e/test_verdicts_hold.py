"""What `kairos check` accepts holds when the system runs: models of the shapes that once passed
the check and missed at run time, each run against the bounds the check printed for it.

- A blocking gate's wait is no processor time (tests/e2e/models/gatewait): `client.work` computes
  1 ms and waits up to 5 ms for its reply, so the analysis charges it 6 ms and bounds its response
  by 6 ms. On sim the engine once charged the whole 6 ms as processor time after the body had
  really waited for the reply, and every activation missed its deadline; the node's channel hub,
  below every lane, waited out that charge too and delivered the other node's samples later than
  their analysed bound.
- `max-rate` holds against the model's callers and at run time (tests/e2e/models/rates): a client
  calling every 4 ms a service method of max-rate 50 Hz once passed the check, and the server
  served every request, so that the hard SpM beside it missed its deadlines. Check now adds up the
  callers' rates, and a node refuses the requests beyond the rate it was analysed with (the
  client sees kRateExceeded), so the SpM keeps its deadline even when such a model is run anyway.
  Two callers whose rates add up to max-rate, released together, are never refused: independent
  callers may call up to (n - 1) / max-rate early, and the analysis counts that as release jitter.
- A node's first request is served at once (tests/e2e/models/gatewait on Linux): an ORB reader
  whose band had no connection yet slept out its 20 ms idle wait before it watched the first one,
  so the first call of a run took up to 3.7 ms against an analysed round trip of 1.2 ms, and the
  server, taking that late request as the rate's reference, refused the next, on-time one as
  beyond max-rate (3 or 4 runs in 10). Now the first calls keep the bound, but for one run a
  stall of the shared machine may hold back.
- Channels on Linux cross Cyclone DDS's own threads (tests/e2e/models/gatewait on Linux): those
  ran time-shared, so ordinary processes on the reader's CPU delayed delivery by tens of ms. They
  now run at the hub's real-time band, as the node's set-up does. And DDS's own time was in no
  bound (2.5 ms were measured against 1.86 ms): `kairos probe` now times the channel transport
  through Cyclone DDS, and the analysis adds it to every sample between Linux nodes. The test
  probes the machine under the busy loops the nodes then run beside, and every delivery keeps the
  bound the check printed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, build_node_project, host_taken_ns, kairos, parse_activations, run

GATEWAIT = ROOT / "tests" / "e2e" / "models" / "gatewait"
RATES = ROOT / "tests" / "e2e" / "models" / "rates"
RUN_S = 2
STARTS = 10  # client starts against a running server, in the first-call test


def fields_of(kind: str, stdout: str) -> list[dict[str, str]]:
    """Every `kind` line (summary, gate, channel) of a run's output, as its fields."""
    return [
        dict(item.split("=", 1) for item in line.split()[1:])
        for line in stdout.splitlines()
        if line.startswith(kind + " ")
    ]


def analysed(model) -> dict:
    """`kairos check --format json` of a model the check accepts."""
    result = kairos("check", model, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def responses(report: dict) -> dict[tuple[str, str], int]:
    """(node, instance.method) -> analysed worst-case response in ns."""
    return {
        (node["node"], task["name"]): task["response_time_ns"]
        for node in report["nodes"]
        for task in node["tasks"]
    }


def built(tmp_path, model_dir, name: str, text: str, *generate_args):
    """`text` as the model `name` with the method bodies of `model_dir`, generated and built.
    Returns (model, build directory)."""
    impl = tmp_path / "impl"
    shutil.copytree(model_dir / "src", impl)
    model = tmp_path / f"{name}.tmo"
    model.write_text(text)
    out = tmp_path / "generated"
    result = kairos("generate", model, "-o", out, "--impl", impl, *generate_args)
    assert result.returncode == 0, result.stdout + result.stderr
    build_node_project(out, tmp_path / "build", impl)
    return model, tmp_path / "build"


def on_sim(text: str, system: str) -> str:
    """The model with every node on sim, as one system."""
    text = text.replace("os linux", "os sim")
    nodes = ", ".join(re.findall(r"^node (\w+)", text, re.MULTILINE))
    return text + f"\nsystem {system} {{\n  nodes {nodes};\n}}\n"


def sim_system(tmp_path, model_dir, name: str, system: str, *generate_args):
    """The model with every node on sim, as one system; built. Returns (model, binary)."""
    text = on_sim((model_dir / f"{name}.tmo").read_text(), system)
    model, build = built(tmp_path, model_dir, name, text, *generate_args)
    return model, build / system


@pytest.fixture(scope="module")
def gatewait_on_sim(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("gatewait-sim")
    model, system = sim_system(tmp_path, GATEWAIT, "gatewait", "GateWait")
    report = analysed(model)
    first = run([system, "--duration", f"{RUN_S}s"], timeout=120)
    second = run([system, "--duration", f"{RUN_S}s"], timeout=120)
    assert first.stdout == second.stdout, "two runs of one system differ"
    return report, first.stdout


def test_a_blocking_gates_wait_is_no_processor_time_on_sim(gatewait_on_sim):
    report, stdout = gatewait_on_sim
    bound = responses(report)[("a", "client.work")]
    assert bound == 6_000_000, "the analysis charges the 1 ms body and the gate's 5 ms wait"
    works = [a for a in parse_activations(stdout) if (a.instance, a.method) == ("client", "work")]
    assert len(works) == RUN_S * 100, len(works)
    for work in works:
        assert work.deadline == "met", work
        assert work.finish_ns - work.release_ns <= bound, work
    # The body really waited for its reply (two crossings of the 100 us link and the server), and
    # then computed its 1 ms: no activation may take the 6 ms the analysis allows for both.
    longest = max(work.finish_ns - work.release_ns for work in works)
    assert 1_200_000 < longest < 3_000_000, longest
    gate = next(g for g in fields_of("gate", stdout) if g["gate"] == "client.server")
    assert gate["calls"] == gate["answered"] == str(RUN_S * 100), gate
    summary = next(s for s in fields_of("summary", stdout) if s["node"] == "a")
    assert summary["deadline_misses"] == "0" and summary["start_window_misses"] == "0", summary


def test_the_hub_delivers_within_its_bound_beside_a_gate_calling_method_on_sim(gatewait_on_sim):
    _, stdout = gatewait_on_sim
    channel = next(c for c in fields_of("channel", stdout) if c["node"] == "a")
    assert channel["channel"] == "status", channel
    # Every beat of node b reached node a's monitor, none too old, each within the analysed
    # delivery bound (the network hop and node a's hub waiting for the methods above it).
    assert int(channel["delivered"]) >= RUN_S * 100 - 1, channel
    assert channel["dropped_late"] == "0", channel
    assert float(channel["delivery_max_us"]) <= float(channel["analysed_bound_us"]), channel


def client_calls(stdout: str) -> dict[str, int]:
    """How the rates client's calls ended, as it prints them when it ends."""
    lines = [line for line in stdout.splitlines() if line.startswith("client calls ")]
    assert len(lines) == 1, stdout
    return {k: int(v) for k, v in (item.split("=", 1) for item in lines[0].split()[2:])}


def with_client_copy(tmp_path: Path, text: str, name: str) -> tuple[str, Path]:
    """The rates model `text` with a copy of its TMO Client named `name`, and a directory of
    method bodies with a copy of Client's for it (printing `<name> calls ...`)."""
    client = re.search(r"^tmo Client \{.*?^\}\n", text, re.MULTILINE | re.DOTALL).group(0)
    text = text.replace(client, client + "\n" + client.replace("tmo Client", f"tmo {name}"))
    impl = tmp_path / "impl"
    shutil.copytree(RATES / "src", impl)
    for suffix in ("hpp", "cpp"):
        body = (impl / "rates" / f"Client.{suffix}").read_text()
        (impl / "rates" / f"{name}.{suffix}").write_text(
            body.replace("Client", name).replace("client calls", f"{name.lower()} calls"))
    return text, impl


def test_check_rejects_callers_faster_than_max_rate():
    result = kairos("check", RATES / "rates.tmo")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "server.bump (server): max-rate 50 Hz, called at up to 250 Hz" in result.stdout
    assert "EXCEEDS MAX-RATE" in result.stdout
    errors = [line for line in result.stderr.splitlines() if "error[" in line]
    # The rate is the model's only flaw: its node is schedulable at the rate it declares.
    assert len(errors) == 1, result.stderr
    assert re.match(r".*rates\.tmo:17:7: error\[kairos\.service-rate-exceeded\]: server\.bump is "
                    r"called at up to 250 Hz, beyond its max-rate of 50 Hz \(client\.flood through "
                    r"gate counter every 4 ms\)", errors[0]), errors[0]
    report = json.loads(kairos("check", RATES / "rates.tmo", "--format", "json").stdout)
    (rate,) = report["service_rates"]
    assert rate["service"] == "server.bump" and rate["schedulable"] is False, rate
    assert rate["calls_per_second"] == 250.0 and rate["min_inter_arrival_ns"] == 20_000_000, rate


def assert_refused_beyond_max_rate(server_out: str, client_out: str, seconds: float):
    """The server served bump at most at its max-rate (and its jitter), refused the rest, and
    the hard SpM beside it kept every deadline; the client saw the refusals as such."""
    summary = next(s for s in fields_of("summary", server_out) if s["node"] == "server")
    assert summary["deadline_misses"] == "0", summary
    # Refused as beyond max-rate, or as beyond the client's own budget (its gate's rate and the
    # jitter the analysis counted: a machine that bunches its calls may pass that first).
    orb = next(o for o in fields_of("orb", server_out) if o["node"] == "server")
    served = int(summary["requests_served"])
    over = int(summary["requests_over_rate"]) + int(orb["over_budget"])
    # 50 Hz, and one more for the jitter its requests may have (the analysed arrival jitter).
    assert served <= 50 * seconds + 2, summary
    calls = client_calls(client_out)
    assert calls["over_rate"] >= over - 5 and calls["over_rate"] <= over, (calls, summary)
    # The client called far beyond the rate: 250 a second where the machine lets it run at its
    # period (on sim: four in five refused), at least twice max-rate on a busy one; and what the
    # server did not serve it refused as beyond the rate, not otherwise.
    made = sum(calls.values())
    assert made >= 100 * seconds, calls
    assert over >= made - served - calls["other"] - 5, (calls, summary)
    crunches = [a for a in parse_activations(server_out) if a.method == "crunch"]
    assert crunches and all(a.deadline == "met" for a in crunches), crunches


def test_a_node_refuses_requests_beyond_max_rate_on_sim(tmp_path):
    model, system = sim_system(
        tmp_path, RATES, "rates", "Rates", "--allow-unschedulable")
    first = run([system, "--duration", f"{RUN_S}s"], timeout=120)
    second = run([system, "--duration", f"{RUN_S}s"], timeout=120)
    assert first.stdout == second.stdout, "two runs of one system differ"
    assert_refused_beyond_max_rate(first.stdout, first.stdout, RUN_S)
    summary = next(s for s in fields_of("summary", first.stdout) if s["node"] == "server")
    assert summary["gct_misses"] == "0", summary
    # Four in five of the client's 250 calls a second are beyond the 50 Hz: the lone caller's
    # budget is all of max-rate, and its node refuses them as over that budget.
    orb = next(o for o in fields_of("orb", first.stdout) if o["node"] == "server")
    assert int(summary["requests_over_rate"]) + int(orb["over_budget"]) >= 150 * RUN_S, orb
    # What was served came within the analysed bound of its GCT, every crunch within its bound.
    bound = responses(json.loads(kairos("check", model, "--format", "json").stdout))
    crunches = [a for a in parse_activations(first.stdout) if a.method == "crunch"]
    assert max(a.finish_ns - a.release_ns for a in crunches) <= bound[("server", "cruncher.crunch")]


def test_a_node_refuses_requests_beyond_max_rate_on_linux(tmp_path):
    text = (RATES / "rates.tmo").read_text().replace(
        "/tmp/kairos-rates-", f"/tmp/kairos-rates-{tmp_path.name}-")
    _, build = built(tmp_path, RATES, "rates", text, "--allow-unschedulable")
    # The server for 2 s, the client from 0.2 s on for 1.5 s: every call meets a running server.
    server = subprocess.Popen([build / "server", "--duration", "2s", "--peer-wait", "0s"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.2)
    # A second node on the same Unix socket path is refused, saying why, and takes nothing over:
    # the first one serves the client below as if it had not tried.
    intruder = subprocess.run([build / "server", "--duration", "1s", "--peer-wait", "0s"],
                              capture_output=True, text=True, timeout=60)
    endpoint = f"uds:/tmp/kairos-rates-{tmp_path.name}-server"
    assert intruder.returncode != 0, intruder.stdout + intruder.stderr
    assert (f"the ORB could not start listening on {endpoint}: address in use"
            in intruder.stderr), intruder.stderr
    client = subprocess.run([build / "client", "--duration", "1500ms", "--quiet"],
                            capture_output=True, text=True, timeout=60)
    server_out, server_err = server.communicate(timeout=60)
    assert client.returncode == 0 and server.returncode == 0, client.stderr + server_err
    assert_refused_beyond_max_rate(server_out, client.stdout, 1.5)
    # About max-rate was served: no more (above), and not much less. A shared machine that holds
    # a request back (its release lateness reached 1 ms in a probe here) may make the next one
    # come sooner than the rate and its analysed jitter allow, refused; so may a request late
    # past its GCT be, and neither is what this test is about.
    summary = next(s for s in fields_of("summary", server_out) if s["node"] == "server")
    assert int(summary["requests_served"]) >= 50 * 1.5 * 0.8, summary


def test_two_callers_at_max_rate_together_are_never_refused_on_sim(tmp_path):
    # Two clients every 40 ms, released together: their requests arrive in pairs, 20 ms closer
    # than 1 / max-rate; the analysis counts that as release jitter and the node admits it.
    text, impl = with_client_copy(
        tmp_path, (RATES / "rates.tmo").read_text().replace("every 4 ms", "every 40 ms"), "Twin")
    text = text.replace("deploy Client as client", "deploy Client as client\n  deploy Twin as twin")
    text = on_sim(text, "Rates")
    model = tmp_path / "rates.tmo"
    model.write_text(text)
    report = analysed(model)
    (rate,) = report["service_rates"]
    assert rate["calls_per_second"] == 50.0 and rate["burst_jitter_ns"] == 20_000_000, rate
    out = tmp_path / "generated"
    result = kairos("generate", model, "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    build_node_project(out, tmp_path / "build", impl)
    stdout = run([tmp_path / "build" / "Rates", "--duration", f"{RUN_S}s"], timeout=120).stdout
    summary = next(s for s in fields_of("summary", stdout) if s["node"] == "server")
    assert summary["requests_over_rate"] == "0", summary
    assert int(summary["requests_served"]) == 2 * RUN_S * 25, summary
    assert client_calls(stdout)["over_rate"] == 0, stdout


def scheduling_of_threads(pid: int) -> dict[str, int]:
    """Thread name -> scheduling policy (0 time-shared, 1 SCHED_FIFO, 6 SCHED_DEADLINE)."""
    policies = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{task}/stat").read()
        except OSError:
            continue  # the thread ended meanwhile
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        policies[name] = int(fields[38])  # field 41 of proc(5), counted after the name
    return policies


def busy_loops(cpu: int, seconds: float, count: int = 3) -> list[subprocess.Popen]:
    """`count` time-shared busy loops on `cpu`, each ending by itself after `seconds`."""
    return [subprocess.Popen([sys.executable, "-c",
                              f"import os,time\nos.sched_setaffinity(0,{{{cpu}}})\n"
                              f"end=time.monotonic()+{seconds}\n"
                              "while time.monotonic()<end: pass"])
            for _ in range(count)]


def stop(loops: list[subprocess.Popen]):
    for loop in loops:
        loop.kill()
        loop.wait()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_dds_delivers_within_its_bound_beside_time_shared_busy_loops_on_linux(tmp_path):
    reader_cpu, other_cpu = sorted(os.sched_getaffinity(0))[:2]
    # The platform, probed on the reader's CPU under the load the nodes will meet: its figures,
    # the channel transport through Cyclone DDS among them, go into the bounds.
    loops = busy_loops(reader_cpu, 30)
    try:
        probed = kairos("probe", "--cpu", str(reader_cpu), "--duration", "1s",
                        "-o", tmp_path / "lab.platform.json")
    finally:
        stop(loops)
    assert probed.returncode == 0, probed.stdout + probed.stderr
    platform = json.loads((tmp_path / "lab.platform.json").read_text())
    assert platform["channel_transport_ns"]["samples"] == 2000, probed.stdout
    text = (GATEWAIT / "gatewait.tmo").read_text()
    # Room in the server's GCT, the gate's deadline and the caller's period for what the platform
    # charges them behind the loops (release lateness, switches, the ORB call, and a request
    # jitter that a busy host measured at 680 us, which took a 3 ms GCT's last 86 us; this room
    # holds for twice every figure that host measured); the delivery bound is what this test is
    # about.
    text = text.replace("svm get gct 1 ms", "svm get gct 6 ms")
    text = text.replace("gate server -> Server.get deadline 5 ms",
                        "gate server -> Server.get deadline 7 ms")
    text = text.replace("every 10 ms\n    start-during (t, t + 200 us) finish-by t + 6200 us",
                        "every 20 ms\n    start-during (t, t + 200 us) finish-by t + 18 ms")
    assert "svm get gct 6 ms" in text and "deadline 7 ms" in text and "t + 18 ms" in text
    text = text.replace("node a {", 'hardware Lab { cores 1; platform "lab.platform.json"; }\n\n'
                                     "node a {\n  hardware Lab")
    text = text.replace("node b {", "node b {\n  hardware Lab")
    model, build = gatewait_on_linux(tmp_path, text)
    hop = next(h for c in analysed(model)["chains"] for h in c["hops"] if h["kind"] == "deliver")
    bound = float(hop["latest_ns"]) / 1000
    transport = platform["channel_transport_ns"]
    # A run in which the host took the processor from the whole machine for milliseconds (no
    # real-time priority helps then) is played once more; each run's largest delivery is shown.
    for attempt in range(2):
        channel = run_beside_busy_loops(build, reader_cpu, other_cpu)
        print(f"\n  DDS delivery behind three busy loops: max {channel['delivery_max_us']} us,"
              f" p99 {channel['delivery_p99_us']} us; analysed bound {bound:.1f} us with the"
              f" channel transport's p99.9 {transport['p99.9'] / 1000:.1f} us (p50"
              f" {transport['p50'] / 1000:.1f} us, max {transport['max'] / 1000:.1f} us)")
        assert float(channel["analysed_bound_us"]) == pytest.approx(bound, abs=0.1), channel
        if float(channel["delivery_max_us"]) <= bound:
            break
    # DDS's own time is in the bound now: every delivery keeps it.
    assert float(channel["delivery_max_us"]) <= bound, channel


def run_beside_busy_loops(build, reader_cpu: int, other_cpu: int) -> dict[str, str]:
    """Runs gatewait's nodes, a pinned to `reader_cpu` beside three time-shared busy loops, b on
    `other_cpu`, for 3 s; checks how DDS's threads and the channel fared and returns a's channel
    line."""
    loops = busy_loops(reader_cpu, 8)
    try:
        b = subprocess.Popen([build / "b", "--duration", "4s", "--cpu", str(other_cpu),
                              "--peer-wait", "0s", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        a = subprocess.Popen([build / "a", "--duration", "3s", "--cpu", str(reader_cpu), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        policies = scheduling_of_threads(a.pid)
        a_out, a_err = a.communicate(timeout=60)
        b_out, b_err = b.communicate(timeout=60)
    finally:
        stop(loops)
    assert a.returncode == 0 and b.returncode == 0, a_err + b_err
    # Cyclone's receive and delivery threads run real-time, as the hub does.
    dds_threads = {name: policy for name, policy in policies.items()
                   if name.startswith("recv") or name.startswith("dq.")}
    assert dds_threads and all(p == 1 for p in dds_threads.values()), policies
    channel = next(c for c in fields_of("channel", a_out) if c["node"] == "a")
    # 100 a second for 3 s, less DDS's discovery, which beside the busy loops on a host busy
    # elsewhere once took 1.7 s: at least one second's worth.
    assert int(channel["delivered"]) >= 100, channel
    # Time-shared processes no longer hold samples back (deliveries behind the busy loops once
    # took up to 33 ms).
    assert channel["dropped_late"] == "0", channel
    return channel


def gatewait_on_linux(tmp_path, text: str | None = None):
    """gatewait with its endpoints made this test's own, generated and built: (model, build)."""
    text = text or (GATEWAIT / "gatewait.tmo").read_text()
    text = text.replace("/tmp/kairos-gatewait-a", f"/tmp/kairos-gatewait-{tmp_path.name}-a")
    port = 20000 + os.getpid() % 20000
    return built(tmp_path, GATEWAIT, "gatewait",
                 text.replace("tcp:127.0.0.1:7331", f"tcp:127.0.0.1:{port}"))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_the_first_call_of_every_run_keeps_its_analysed_round_trip_on_linux(tmp_path):
    model, build = gatewait_on_linux(tmp_path)
    report = analysed(model)
    limit = next(lim for c in report["chains"] for lim in c["limits"]
                 if lim["kind"] == "gate-deadline")
    bound_ns = limit["bound_ns"]
    # Held back, a run's first call waited out the rest of the reader's 20 ms sleep whenever it
    # came before that ended: about a third of the runs, up to 5.2 ms (and the server then refused
    # the next call as too soon). A shared machine that stalls may hold back one run's first call
    # as it may any call, not two; ten runs in which it held back more are played once more (a
    # host busy elsewhere once held five of ten back for 1.4-3.3 ms; the defect holds a third
    # back every time).
    for attempt in range(2):
        firsts, refused = first_calls(build)
        print(f"\n  first calls of {STARTS} runs: {[round(f / 1000, 1) for f in firsts]} us;"
              f" analysed round trip {bound_ns / 1000:.1f} us; requests refused over rate"
              f" {refused}")
        if sum(f > bound_ns for f in firsts) <= 1:
            break
    assert sum(f > bound_ns for f in firsts) <= 1, (firsts, bound_ns)


def first_calls(build) -> tuple[list[int], list[int]]:
    """Starts gatewait's client STARTS times against a running server: each run's first round
    trip, and the requests the server refused over rate (or over the client's budget, its share
    of it) in each."""
    client_cpu, server_cpu = sorted(os.sched_getaffinity(0))[:2]
    firsts, refused, taken = [], [], []
    for _ in range(STARTS):
        b = subprocess.Popen([build / "b", "--duration", "900ms", "--cpu", str(server_cpu),
                              "--peer-wait", "0s", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)  # the server runs already: only the client's start is under test
        taken_before = host_taken_ns()  # a host that takes a CPU away holds calls back
        a = run([build / "a", "--duration", "300ms", "--cpu", str(client_cpu)], timeout=60)
        b_out, b_err = b.communicate(timeout=60)
        assert b.returncode == 0, b_err
        server = next(s for s in fields_of("summary", b_out) if s["node"] == "b")
        orb = next(o for o in fields_of("orb", b_out) if o["node"] == "b")
        refused.append(int(server["requests_over_rate"]) + int(orb["over_budget"]))
        # The client's body only calls: the first activation that ran made the run's first call.
        # (One that missed its 200 us start window was not run: a busy host wakes an idle CPU
        # 280-420 us late, and held five of ten runs' first activations back that long.)
        works = [w for w in parse_activations(a.stdout) if w.method == "work"]
        first = next(w for w in works if w.window == "met")
        assert first.seq < 10, works[:10]
        firsts.append(first.finish_ns - first.start_ns)
        taken.append(max((after - taken_before.get(cpu, 0) for cpu, after in host_taken_ns().items()),
                         default=0))
    print(f"\n  the host took at most {[round(ns / 1e6, 1) for ns in taken]} ms of a CPU in each run")
    return firsts, refused
