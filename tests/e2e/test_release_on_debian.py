"""The release on Debian 13 (trixie), the current stable, as its user installs it there: in a root
that debootstrap made from the Debian archive with only the product's prerequisites (a C++
compiler, CMake, Ninja, OpenSSL, Cyclone DDS: scripts/debian-root.sh, made once under build/), an
unprivileged user unpacks the release archive into ~/.local and follows docs/tutorial.md end to
end (check, generate, build, run); root installs the Debian package with apt, its user checks
the example it carries and builds a CMake project of its own against it, and apt purges it. And
the runtime and its C++ suite build with Debian 13's compiler and Catch2 3, and pass.

Each command runs in a mount namespace of its own, in an overlay of that root (so the root stays
as debootstrap made it) with the test's home directory bound at /home/user. The user is `nobody`
with the real-time capabilities an administrator gives a service account (test_release.py).

Needs `make dist` and root."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, parse_summary
from test_release import AS_USER, DIST, hand_over, version
from test_tutorial import follow

SUITE = "trixie"
DEBIAN_ROOT = ROOT / "build" / "debian-13-root"
USER_HOME = Path("/home/user")

# In a new mount namespace: the overlay, the home, /proc, /dev and /sys, then the command in the root.
ENTER = """set -e
lower=$1 upper=$2 work=$3 merged=$4 home=$5 wd=$6
shift 6
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work" "$merged"
mkdir -p "$merged/home/user"
mount --bind "$home" "$merged/home/user"
mount -t proc proc "$merged/proc"
mount --rbind /dev "$merged/dev"
mount --rbind /sys "$merged/sys"
exec /usr/sbin/chroot "$merged" /usr/bin/env -C "$wd" "$@"
"""


class Overlay:
    """A throwaway overlay of the Debian root: what its commands write stays in `upper`."""

    def __init__(self, base: Path):
        self.base = base
        for part in ("upper", "work", "merged", "home"):
            (base / part).mkdir()
        self.home = base / "home"
        self.home.chmod(0o755)
        hand_over(self.home)
        self.env = {
            "HOME": str(USER_HOME),
            "PATH": f"{USER_HOME}/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
        }

    def inside(self, path: Path) -> Path:
        """Where a path below the home is in the root."""
        return USER_HOME / path.relative_to(self.home)

    def prefix(self, cwd: Path, user=AS_USER) -> tuple[str, ...]:
        """The command that runs the rest in the root, in `cwd` (a host path below the home), as
        the user (or as root: user=())."""
        return ("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", ENTER,
                "enter", str(DEBIAN_ROOT), str(self.base / "upper"), str(self.base / "work"),
                str(self.base / "merged"), str(self.home), str(self.inside(cwd)), *user)

    def run(self, command: str, user=AS_USER, timeout=600) -> subprocess.CompletedProcess:
        return subprocess.run([*self.prefix(self.home, user), "bash", "-c", command],
                              env=self.env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def debian_root():
    if os.geteuid() != 0:
        pytest.skip("makes a Debian root and mounts overlays: needs root")
    made = subprocess.run([ROOT / "scripts" / "debian-root.sh", SUITE, DEBIAN_ROOT],
                          capture_output=True, text=True, timeout=1800)
    assert made.returncode == 0, made.stdout + made.stderr
    print(made.stdout)
    release = (DEBIAN_ROOT / "etc" / "debian_version").read_text().strip()
    assert release.startswith("13."), release
    return release


@pytest.fixture
def overlay(debian_root):
    # Not below pytest's own temporary directory, which only its owner may enter.
    base = Path(tempfile.mkdtemp(prefix="kairos-debian-", dir="/tmp"))
    base.chmod(0o755)
    yield Overlay(base)
    shutil.rmtree(base, ignore_errors=True)


def test_the_release_archive_runs_the_tutorial_on_debian_13(overlay):
    archive = DIST / f"kairos-{version()}-linux-x86_64.tar.gz"
    assert archive.is_file(), f"{archive} is missing: run `make dist`"
    shutil.copy(archive, overlay.home / archive.name)
    hand_over(overlay.home)
    unpacked = overlay.run(f"mkdir -p ~/.local && tar -xzf ~/{archive.name} -C ~/.local "
                           "--strip-components=1 && kairos --version && command -v java || true")
    assert unpacked.returncode == 0, unpacked.stdout + unpacked.stderr
    lines = unpacked.stdout.splitlines()
    assert lines[0].startswith(f"kairos {version()} "), unpacked.stdout
    assert lines[1].endswith(f"in {USER_HOME}/.local/share/kairos/java"), unpacked.stdout
    assert len(lines) == 2, f"the root has a Java of its own: {unpacked.stdout}"
    workdir = overlay.home / "tutorial"
    workdir.mkdir()
    hand_over(workdir)
    follow(ROOT / "docs" / "tutorial.md", workdir, overlay.env, overlay.prefix, hand_over)


def test_the_debian_package_installs_with_apt_checks_its_example_and_purges(overlay):
    package = DIST / f"kairos_{version()}_amd64.deb"
    assert package.is_file(), f"{package} is missing: run `make dist`"
    shutil.copy(package, overlay.home / package.name)
    # Its dependencies and recommendations are the root's already (which has no package lists to
    # download others from): apt installs it alone.
    installed = overlay.run(f"apt-get install -y -q {USER_HOME / package.name}", user=())
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "0 upgraded, 1 newly installed, 0 to remove" in installed.stdout, installed.stdout
    status = overlay.run("dpkg-query -W -f='${Status} ${Version}' kairos", user=()).stdout
    assert status == f"install ok installed {version()}", status
    examples = "/usr/share/doc/kairos/examples"
    checked = overlay.run(f"command -v kairos && kairos --version && "
                          f"kairos check {examples}/avionics/avionics.tmo")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[0] == "/usr/bin/kairos", checked.stdout
    assert lines[2].startswith("Java 17") and lines[2].endswith("in /usr/share/kairos/java"), lines
    assert "2 cores: schedulable" in checked.stdout, checked.stdout
    # A project of the user's own finds the package's CMake package where CMake looks by itself,
    # and builds and runs its node.
    built = overlay.run(f"cp -r {examples}/cmake-project ~/thermostat && cd ~/thermostat && "
                        "cmake -S . -B build -G Ninja && cmake --build build && "
                        "build/thermostat --duration 1s --quiet")
    assert built.returncode == 0, built.stdout + built.stderr
    assert "Kairos_DIR:PATH=/usr/lib/cmake/Kairos" in (
        overlay.home / "thermostat" / "build" / "CMakeCache.txt").read_text()
    summary = parse_summary(built.stdout)
    assert summary["node"] == "controller" and summary["activations"] == "20", built.stdout
    purged = overlay.run("apt-get purge -y -q kairos && test ! -e /usr/share/kairos && "
                         "test ! -e /usr/bin/kairos", user=())
    assert purged.returncode == 0, purged.stdout + purged.stderr


def test_the_runtime_and_its_tests_build_and_pass_on_debian_13_with_catch2_3(overlay, tmp_path):
    # This checkout's sources (what git tracks, and what it would add), built with Debian 13's
    # g++ 14, CMake 3.31 and Catch2 3 under the project's warnings as errors, then its suite
    # (here 153 s in all, apt's download of Catch2 included).
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout
    source = overlay.home / "kairos"
    subprocess.run(["tar", "-C", ROOT, "--null", "-T", "-", "-cf", tmp_path / "source.tar"],
                   input=files, check=True)
    source.mkdir()
    subprocess.run(["tar", "-C", source, "-xf", tmp_path / "source.tar"], check=True)
    hand_over(overlay.home)
    catch2 = overlay.run("apt-get update -q && apt-get install -y -q libcatch2-dev && "
                         "dpkg-query -W -f='${Version}' libcatch2-dev", user=(), timeout=900)
    assert catch2.returncode == 0, catch2.stdout + catch2.stderr
    assert catch2.stdout.splitlines()[-1].startswith("3."), catch2.stdout
    built = overlay.run("cmake -S kairos -B build -G Ninja -DKAIROS_PLATFORMS='linux;sim' "
                        "-DKAIROS_BUILD_BENCH=OFF && cmake --build build", timeout=3600)
    assert built.returncode == 0, built.stdout[-20000:] + built.stderr
    assert "Catch2 not found" not in built.stdout, built.stdout
    # As root: the tests of sockets of other users run children as nobody.
    tested = overlay.run("ctest --test-dir build --output-on-failure --no-tests=error", user=(),
                         timeout=3600)
    assert tested.returncode == 0, tested.stdout[-20000:] + tested.stderr
    assert "100% tests passed" in tested.stdout, tested.stdout[-2000:]
