"""Shared pieces of the end-to-end tests: model -> kairos -> C++ -> build -> run -> assert.

They expect `make java cpp` to have run (make test-e2e does it): the kairos CLI jar, and for
tests that build generated nodes the runtime installed into build/prefix.
"""

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KAIROS = ROOT / "kairos"
PREFIX = ROOT / "build" / "prefix"
CLANG_FORMAT_STYLE = ROOT / ".clang-format"
# The project's pinned clang-format, the one kairos generate formats with (never the PATH's).
CLANG_FORMAT = ROOT / "scripts" / "clang-format.sh"

# Two SpMs of 6 ms every 10 ms on one processor: a model that validates and can never be scheduled.
OVERLOADED_MODEL = (
    "tmo T {\n"
    "  spm a for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
    " finish-by t + 10 ms wcet 6 ms;\n"
    "  spm b for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
    " finish-by t + 10 ms wcet 6 ms;\n"
    "}\n"
    "node n { os linux deploy T as t1 }\n"
)

# Nodes with RMMC channels join a DDS domain (Cyclone DDS reads CYCLONEDDS_URI): every test run
# stays on loopback, with unicast discovery (loopback has no multicast), in a domain of its own
# so that runs side by side never meet.
DDS_DOMAIN = 1 + os.getpid() % 200
os.environ.setdefault(
    "CYCLONEDDS_URI",
    f'<CycloneDDS><Domain Id="{DDS_DOMAIN}"><General><Interfaces>'
    '<NetworkInterface name="lo"/></Interfaces><AllowMulticast>false</AllowMulticast>'
    "</General><Discovery><ParticipantIndex>auto</ParticipantIndex>"
    '<MaxAutoParticipantIndex>20</MaxAutoParticipantIndex>'
    '<Peers><Peer Address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>',
)

# A generous bound for every child process: nothing here should take long, and nothing may hang.
TIMEOUT_S = 300

# Nodes on tcp: endpoints prove their names by TLS (docs/security.md) with keys of the system's
# CA. The tests start nodes of many models by hand: they run with one keystore, made once per
# session, of a test CA and a key for every node name a test's model or an example declares, in
# KAIROS_KEYS, which a node without --keys loads (kairos run and kairos deploy give their own).
NODE_DECLARATION = re.compile(r"\bnode\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{")


def make_keystore(directory: Path, nodes) -> Path:
    """ca.pem and NODE.pem, NODE.key for each of `nodes` in `directory`, as kairos keys makes
    them: P-256 keys, certificates of one CA whose common name is the node's name."""
    directory.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    quiet = {"cwd": directory, "check": True, "capture_output": True, "timeout": 60}
    subprocess.run(["openssl", "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem",
                    "-subj", "/CN=Kairos test CA", "-days", "7"], **quiet)
    for node in sorted(set(nodes)):
        subprocess.run(["openssl", "req", *ec, "-keyout", f"{node}.key", "-out", f"{node}.csr",
                        "-subj", f"/CN={node}"], **quiet)
        subprocess.run(["openssl", "x509", "-req", "-in", f"{node}.csr", "-CA", "ca.pem",
                        "-CAkey", "ca.key", "-CAcreateserial", "-out", f"{node}.pem",
                        "-days", "7"], **quiet)
        (directory / f"{node}.csr").unlink()
    return directory


def declared_node_names() -> set[str]:
    names = set()
    for pattern in ("tests/e2e/**/*.py", "tests/e2e/**/*.tmo", "examples/**/*.tmo", "docs/*.md",
                    "bench/**/*.tmo"):
        for path in ROOT.glob(pattern):
            names.update(NODE_DECLARATION.findall(path.read_text(errors="replace")))
    return names


@pytest.fixture(scope="session", autouse=True)
def test_keystore(tmp_path_factory):
    keystore = make_keystore(tmp_path_factory.mktemp("keystore"), declared_node_names())
    os.environ["KAIROS_KEYS"] = str(keystore)
    yield keystore
    os.environ.pop("KAIROS_KEYS", None)


def tls_connect(address, node: str, keystore: Path | None = None, timeout: float = 2.0):
    """A TCP connection to `address` under TLS 1.3 as node `node` (of the session's keystore
    unless `keystore`), the handshake done; ConnectionRefusedError while nobody listens."""
    import socket
    raw = socket.create_connection(address, timeout=timeout)
    # As a node's own connections: without it the hello after the handshake's last flight waits
    # for that flight's delayed acknowledgement (40 ms).
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        return tls_client(keystore or Path(os.environ["KAIROS_KEYS"]), node).wrap_socket(raw)
    except BaseException:
        raw.close()
        raise


def tls_client(keystore: Path, node: str):
    """An ssl context that proves node `node` of the keystore's CA and checks the server's
    certificate against it (its name is checked by the caller: certificates name nodes, not
    hosts)."""
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.load_verify_locations(keystore / "ca.pem")
    context.load_cert_chain(keystore / f"{node}.pem", keystore / f"{node}.key")
    return context


def run(args, cwd=ROOT, check=True, timeout=TIMEOUT_S, env=None):
    """Runs a command, returns the CompletedProcess; on unexpected failure shows its output."""
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    if check and result.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, args))} exited {result.returncode}\n"
            f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
    return result


def kairos(*args, cwd=ROOT, check=False, env=None):
    return run([KAIROS, *args], cwd=cwd, check=check, env=env)


def build_node_project(generated: Path, build_dir: Path, impl_dir: Path | None = None):
    """Configures and builds a generated node project against the installed runtime."""
    if not (PREFIX / "lib" / "cmake" / "Kairos" / "KairosConfig.cmake").is_file():
        pytest.fail("Kairos runtime is not installed in build/prefix: run `make cpp` first")
    configure = [
        "cmake", "-S", generated, "-B", build_dir, "-G", "Ninja",
        f"-DCMAKE_PREFIX_PATH={PREFIX}",
    ]
    if impl_dir is not None:
        configure.append(f"-DKAIROS_IMPL_DIR={impl_dir}")
    run(configure)
    run(["cmake", "--build", build_dir])


def built_example(tmp_path_factory, example: str) -> Path:
    """An example's nodes generated and built in a directory of their own: the build directory,
    which holds an executable per node."""
    workdir = tmp_path_factory.mktemp(example)
    copied = copy_example(example, workdir)
    out = workdir / "generated"
    result = kairos("generate", copied / f"{example}.tmo", "-o", out)
    assert result.returncode == 0, result.stderr
    build_node_project(out, workdir / "build")
    return workdir / "build"


@dataclass
class Activation:
    instance: str
    method: str
    seq: int
    release_ns: int
    start_ns: int
    start_lateness_ns: int
    finish_ns: int
    window: str
    deadline: str
    source: str


ACTIVATION = re.compile(r"^activation (.*)$")


def parse_activations(stdout: str) -> list[Activation]:
    activations = []
    for line in stdout.splitlines():
        match = ACTIVATION.match(line)
        if not match:
            continue
        fields = dict(pair.split("=", 1) for pair in match.group(1).split())
        activations.append(
            Activation(
                instance=fields["instance"],
                method=fields["method"],
                seq=int(fields["seq"]),
                release_ns=int(fields["release_ns"]),
                start_ns=int(fields["start_ns"]),
                start_lateness_ns=int(fields["start_lateness_ns"]),
                finish_ns=int(fields["finish_ns"]),
                window=fields["window"],
                deadline=fields["deadline"],
                source=fields["source"],
            )
        )
    return activations


def parse_summary(stdout: str) -> dict[str, str]:
    for line in stdout.splitlines():
        if line.startswith("summary "):
            return dict(pair.split("=", 1) for pair in line.split()[1:])
    pytest.fail(f"no summary line in:\n{stdout}")


def hard_spm_misses(*timings_files) -> list[str]:
    """The activations of hard SpMs that these --timings files count as not run (start window
    missed, overrun) or finished after their deadline: one `node/instance.method` each."""
    missed = []
    for path in timings_files:
        timings = json.loads(Path(path).read_text())
        for m in timings["methods"]:
            if m["criticality"] == "hard" and m["kind"] == "spm":
                count = m["start_window_misses"] + m["overruns"] + m["deadline_misses"]
                missed += [f"{timings['node']}/{m['instance']}.{m['method']}"] * count
    return missed


def finished_late(summary: dict[str, str]) -> int:
    """The activations of a summary that ran and finished after their deadline: its
    `deadline_misses` counts those never run too (`not_run`)."""
    return int(summary["deadline_misses"]) - int(summary["not_run"])


@pytest.fixture(scope="session", autouse=True)
def built_toolchain():
    if not (ROOT / "generator" / "target" / "kairos.jar").is_file():
        pytest.fail("kairos CLI is not built: run `make java` first")


@pytest.fixture(scope="session", autouse=True)
def scheduler_clocks():
    """The scheduler's debug file, where kairos run reads to the nanosecond what the machine took
    from each CPU (without it, /proc/stat's steal time in ticks of 10 ms): debugfs, mounted as
    systemd mounts it at boot where it is the init system."""
    if os.geteuid() == 0 and not os.path.exists("/sys/kernel/debug/sched/debug"):
        subprocess.run(["mount", "-t", "debugfs", "debugfs", "/sys/kernel/debug"],
                       capture_output=True, check=False)


SCHEDULER_CLOCK = re.compile(r"^\s*\.(clock|clock_task)\s*:\s*(\d+)\.(\d{6})\s*$")


def host_taken_ns() -> dict[int, int]:
    """What the host has taken from each CPU so far, in ns: its clock minus its task clock in the
    scheduler's debug file (steal and interrupt time), as kairos run reads it; empty where that
    file cannot be read. Two readings around a run say whether a stall the run saw was the
    host's."""
    try:
        lines = Path("/sys/kernel/debug/sched/debug").read_text().splitlines()
    except OSError:
        return {}
    taken, cpu, clock = {}, None, None
    for line in lines:
        if line.startswith("cpu#"):
            cpu, clock = int(line[4:].split(",")[0]), None
        elif cpu is not None and (value := SCHEDULER_CLOCK.match(line)):
            ns = int(value.group(2)) * 1_000_000 + int(value.group(3))
            if value.group(1) == "clock":
                clock = ns
            elif clock is not None:
                taken[cpu], cpu = max(0, clock - ns), None
    return taken


@pytest.fixture
def workdir(tmp_path):
    """A clean directory per test; removed afterwards by pytest's tmp_path handling."""
    yield tmp_path


def copy_example(name: str, destination: Path) -> Path:
    """Copies examples/<name> (model and hand-written code) so a test may change it freely."""
    target = destination / name
    shutil.copytree(ROOT / "examples" / name, target)
    return target


def clang_format_problems(paths) -> str:
    """clang-format's complaints about files that are not formatted in the project style."""
    result = run(
        [CLANG_FORMAT, f"--style=file:{CLANG_FORMAT_STYLE}", "--dry-run", "-Werror", *paths],
        check=False,
    )
    return result.stderr if result.returncode != 0 else ""


os.environ.setdefault("KAIROS_E2E", "1")


# How late a thread woken from idle may start for a run on this machine to be held to the bounds
# of an ideal processor (a hardware that names no platform file): the demo's tightest start window
# is 1 ms, and on a quiet machine of this kind waking a thread on an idle vCPU takes 21-29 us. A
# busy host was measured waking an idle vCPU 280-420 us late, and the first activation after the
# start barrier 1.0-1.5 ms late (2026-12-02).
IDEAL_WAKE_LATENESS_US = 150


def machine_unfit_for_ideal_bounds(cpus=(0, 1)) -> str | None:
    """Why runs on this machine cannot be held to ideal-processor bounds now, or None: the median
    lateness of 7 wake-ups of a real-time thread after 150 ms of idle, on each CPU of the run,
    measured now (tools/wake_lateness.c)."""
    probe = ROOT / "build" / "tests" / "wake_lateness"
    source = Path(__file__).parent / "tools" / "wake_lateness.c"
    if not probe.exists() or probe.stat().st_mtime < source.stat().st_mtime:
        probe.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cc", "-O2", "-o", probe, source], check=True, timeout=60)
    medians = {}
    for cpu in cpus:
        if cpu not in os.sched_getaffinity(0):
            continue
        done = subprocess.run([probe, str(cpu), "7", "150000"], capture_output=True, text=True,
                              timeout=30)
        if done.returncode != 0:
            return f"cannot measure this machine's wake-ups: {done.stderr.strip()}"
        late = sorted(int(line) for line in done.stdout.split())
        medians[cpu] = late[len(late) // 2] / 1000
    slow = {cpu: us for cpu, us in medians.items() if us > IDEAL_WAKE_LATENESS_US}
    if not slow:
        return None
    return ("this machine wakes an idle real-time thread "
            + ", ".join(f"{us:.0f} us late on CPU {cpu}" for cpu, us in slow.items())
            + f" (median of 7, measured now; a quiet one {IDEAL_WAKE_LATENESS_US} us at most):"
            " its host is busy, and bounds of an ideal processor cannot hold (issue 27: a platform"
            " file measured by kairos probe charges it)")
