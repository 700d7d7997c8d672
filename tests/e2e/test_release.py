"""The release archive (`make dist` -> build/dist/kairos-VERSION-linux-x86_64.tar.gz) as a user
installs it: unpacked by an unprivileged user into ~/.local, with no Java on the PATH and no
JAVA_HOME, it says its version and commit, completes in bash, has its manual page, and runs
docs/tutorial.md's commands end to end (check, generate, build with CMake, run) on the Java runtime
it carries. The VS Code extension beside it (kairos-VERSION-linux-x64.vsix) carries the same
runtime and starts its language server with no Java on the machine's PATH; the one inside it uses
the release's (editors/vscode/test/java.test.ts).

The user is `nobody` with a home of the test's own. Its real-time priorities and memory locking
come as an administrator gives them to a service account (docs/deploy.md): the ambient
capabilities CAP_SYS_NICE and CAP_IPC_LOCK, which `kairos run` checks like root's.

Needs `make dist` and root."""

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from lsp_client import LanguageServer
from test_tutorial import follow

DIST = ROOT / "build" / "dist"
USER_ID = 65534  # nobody
AS_USER = ("setpriv", f"--reuid={USER_ID}", f"--regid={USER_ID}", "--clear-groups",
           "--inh-caps=+sys_nice,+ipc_lock", "--ambient-caps=+sys_nice,+ipc_lock")


def version() -> str:
    for line in (ROOT / "pom.xml").read_text().splitlines():
        if line.startswith("  <version>"):
            return line.strip().removeprefix("<version>").removesuffix("</version>")
    raise AssertionError("pom.xml has no <version>")


@pytest.fixture(scope="module")
def archive() -> Path:
    found = DIST / f"kairos-{version()}-linux-x86_64.tar.gz"
    assert found.is_file(), f"{found} is missing: run `make dist`"
    return found


def reachable_by_others(program: Path) -> bool:
    """Whether a user of no group of its owner may run `program` (every directory above it
    searchable, the file executable, by others)."""
    for directory in program.parents:
        if not directory.stat().st_mode & stat.S_IXOTH:
            return False
    return bool(program.stat().st_mode & stat.S_IXOTH)


def without_java(bin_dir: Path) -> str:
    """A PATH of every program this machine's PATH has, but Java's (java, javac, jlink, ... and
    anything else of a JDK): links in `bin_dir`."""
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            program = Path(directory, name)
            link = bin_dir / name
            if link.exists() or link.is_symlink() or not os.access(program, os.X_OK):
                continue
            resolved = program.resolve()
            if (name.startswith("java") or "/jvm/" in str(resolved) or "/jdk" in str(resolved)
                    or not reachable_by_others(resolved)):
                continue
            link.symlink_to(resolved)
    assert shutil.which("java", path=str(bin_dir)) is None
    return str(bin_dir)


def hand_over(path: Path) -> None:
    subprocess.run(["chown", "-R", f"{USER_ID}:{USER_ID}", path], check=True)


@pytest.fixture(scope="module")
def installed(archive):
    """The release unpacked by the user into ~/.local: (home, environment of the user)."""
    if os.geteuid() != 0:
        pytest.skip("runs the release as another user: needs root")
    # Not below pytest's own temporary directory, which only its owner may enter.
    base = Path(tempfile.mkdtemp(prefix="kairos-release-", dir="/tmp"))
    base.chmod(0o755)
    home = base / "home"
    home.mkdir()
    shutil.copy(archive, home / archive.name)
    hand_over(home)
    env = {
        "HOME": str(home),
        "PATH": f"{home / '.local' / 'bin'}{os.pathsep}{without_java(base / 'bin')}",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
    }
    unpacked = subprocess.run(
        [*AS_USER, "sh", "-c",
         f"mkdir -p ~/.local && tar -xzf ~/{archive.name} -C ~/.local --strip-components=1"],
        cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert unpacked.returncode == 0, unpacked.stdout + unpacked.stderr
    yield home, env
    shutil.rmtree(base, ignore_errors=True)


def as_user(command: str, home: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([*AS_USER, "bash", "-c", command], cwd=home, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_release_says_its_version_and_commit_and_runs_on_its_own_java(installed):
    home, env = installed
    shown = as_user("kairos --version", home, env)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    first, java = shown.stdout.splitlines()[:2]
    # The commit of this checkout ("-dirty" where the build saw files that differ from it).
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    assert re.fullmatch(rf"kairos {re.escape(version())} \(commit {head}(-dirty)?\)", first), (
        shown.stdout)
    assert java.startswith("Java 17") and java.endswith(f"in {home}/.local/share/kairos/java"), java
    # What it carries, and nothing of the machine's own Java or of the checkout.
    local = home / ".local"
    for carried in ("bin/kairos-probe", "bin/kairos-link-emulator", "lib/cmake/Kairos/KairosConfig.cmake",
                    "include/kairos/engine.hpp", "share/kairos/kairos-language-server.jar",
                    "share/doc/kairos/LICENSE", "share/doc/kairos/NOTICE",
                    "share/doc/kairos/licenses/EPL-2.0.txt", "share/kairos/java/legal"):
        assert (local / carried).exists(), carried
    assert list((local / "share" / "kairos").glob("clang-format-*/clang-format"))


def test_the_release_completes_in_bash_and_has_its_manual_page(installed):
    home, env = installed
    completion = home / ".local" / "share" / "bash-completion" / "completions" / "kairos"
    loaded = as_user(f"source {completion} && complete -p kairos", home, env)
    assert loaded.returncode == 0 and "kairos" in loaded.stdout, loaded.stdout + loaded.stderr
    # Its candidates after `kairos ` are the commands of `kairos --help`.
    offered = as_user(f"source {completion} && COMP_WORDS=(kairos '') COMP_CWORD=1 "
                      "COMP_LINE='kairos ' COMP_POINT=7 && _complete_kairos && "
                      "printf '%s\\n' \"${COMPREPLY[@]}\"", home, env)
    assert {"check", "generate", "run", "deploy", "completion"} <= set(offered.stdout.split()), (
        offered.stdout + offered.stderr)
    import gzip
    page = gzip.decompress((home / ".local" / "share" / "man" / "man1" / "kairos.1.gz")
                           .read_bytes()).decode()
    assert page.startswith(".TH KAIROS 1 ") and ".SH NAME\nkairos \\- " in page
    for command in ("validate", "check", "generate", "format", "diagram", "calibrate", "probe",
                    "run", "deploy", "keys", "completion", "manual"):
        assert f'.SS "kairos {command}"' in page, command
    # Every option `kairos run --help` lists is on the page.
    helped = as_user("kairos run --help", home, env).stdout
    for option in ("share\\-cpus", "host\\-cpus", "peer\\-wait", "open\\-channels"):
        assert option.replace("\\-", "-") in helped and f"\\fB\\-\\-{option}\\fR" in page, option


def test_the_tutorial_runs_end_to_end_from_the_release(installed):
    home, env = installed
    workdir = home / "tutorial"
    workdir.mkdir()
    hand_over(workdir)
    follow(ROOT / "docs" / "tutorial.md", workdir, env, AS_USER, hand_over)


def test_the_extension_carries_the_runtime_its_language_server_starts_on(archive, installed,
                                                                          tmp_path):
    home, env = installed
    inside = home / ".local" / "share" / "kairos" / f"kairos-{version()}.vsix"
    with zipfile.ZipFile(inside) as package:
        # The release's own extension carries no second runtime: it finds the release's.
        assert not [n for n in package.namelist() if n.startswith("extension/server/java/")]
    vsix = DIST / f"kairos-{version()}-linux-x64.vsix"
    assert vsix.is_file(), f"{vsix} is missing: run `make dist`"
    with zipfile.ZipFile(vsix) as package:
        manifest = json.loads(package.read("extension/package.json"))
        assert manifest["license"] == "Apache-2.0"
        names = set(package.namelist())
        assert "extension/LICENSE" in names or "extension/LICENSE.txt" in names
        assert "extension/server/java/bin/java" in names
        assert [n for n in names if n.startswith("extension/server/clang-format-")
                and n.endswith("/clang-format")]
        package.extractall(tmp_path)
    server = tmp_path / "extension" / "server"
    java = server / "java" / "bin" / "java"
    # As the extension does where a package was unpacked without modes (java.ts).
    for program in [*(server / "java" / "bin").iterdir(), server / "java" / "lib" / "jspawnhelper"]:
        program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (tmp_path / "hello.tmo").write_text((ROOT / "examples" / "hello" / "hello.tmo").read_text())
    language_server = LanguageServer(tmp_path, server / "kairos-ls.jar", java=str(java),
                                     env={"PATH": env["PATH"], "HOME": str(tmp_path)})
    try:
        answer = language_server.request(
            "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert answer["capabilities"].get("completionProvider") is not None
    finally:
        language_server.close()
