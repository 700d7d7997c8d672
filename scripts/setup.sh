#!/usr/bin/env bash
# Installs what Kairos itself needs beyond the base machine (Debian 12 with JDK 17, Maven, CMake,
# Ninja, g++) to build, check, generate and run models: only what is missing, only from Debian's
# and PyPI's registries. What only the tests need is scripts/setup-tests.sh's (make test).
set -euo pipefail
cd "$(dirname "$0")/.."

# cyclonedds-dev, cyclonedds-tools: RMMC channels between Linux nodes run on Eclipse Cyclone DDS
# (ddsc, and idlc, which the generated CMake runs on the channels' IDL).
# openssl: kairos keys makes the system's CA, the nodes' keys and the signed DDS Security documents.
# libssl-dev: OpenSSL 3 for the runtime: the TLS 1.3 of Linux nodes' authenticated tcp: connections.
# python3-pip: scripts/clang-format.sh installs the pinned clang-format from PyPI with it (into
# build/tools, never into a Python environment); clang-format is not taken from Debian: its
# version would follow the Debian release.
. scripts/lib/debian-packages.sh
install_missing setup cyclonedds-dev cyclonedds-tools openssl libssl-dev python3-pip

for tool in java mvn cmake ninja g++ python3; do
  command -v "$tool" >/dev/null || { echo "setup: error: '$tool' is not installed" >&2; exit 1; }
done

# The one clang-format of the project, at the pinned version (generation, make format, tests).
scripts/clang-format.sh --path >/dev/null
