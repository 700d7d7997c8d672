#!/usr/bin/env bash
# A Debian root with only what Kairos's own commands need (the prerequisites docs/install.md
# names), made once by debootstrap from the Debian archive and kept: the release tests install
# into overlays of it (tests/e2e/test_release_on_debian.py) and leave it as it was made.
# Usage: scripts/debian-root.sh SUITE DIR   (as root; prints DIR's size when it made it)
set -euo pipefail

suite=${1:?suite, such as trixie}
root=${2:?directory of the root}
mirror=http://deb.debian.org/debian
# A C++20 compiler, CMake and Ninja build the nodes; OpenSSL 3 is their TLS and kairos keys' tool;
# Cyclone DDS (ddsc and idlc) carries channels, and kairos-probe times it.
packages=(g++ cmake ninja-build libssl-dev openssl cyclonedds-dev cyclonedds-tools)

made="$suite ${packages[*]}"
stamp=$root/.kairos-root
if [[ -f $stamp && $(cat "$stamp") == "$made" ]]; then
  exit 0
fi
[[ $(id -u) -eq 0 ]] || { echo "debian-root: error: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || {
  echo "debian-root: error: debootstrap is not installed (scripts/setup-tests.sh)" >&2
  exit 1
}

partial=$root.partial
rm -rf "$partial"
mkdir -p "$(dirname "$root")"
echo "debian-root: debootstrap $suite with ${packages[*]} into $root (once)"
started=$SECONDS
if ! debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
  "$suite" "$partial" "$mirror" >"$partial.log" 2>&1; then
  tail -n 20 "$partial.log" >&2
  echo "debian-root: error: debootstrap failed (the whole log: $partial.log)" >&2
  exit 1
fi
# An archive's packages only: no cached .debs, no lists (apt in an overlay fetches its own).
rm -rf "$partial"/var/cache/apt/archives/*.deb "$partial"/var/lib/apt/lists/*
echo "deb $mirror $suite main" >"$partial/etc/apt/sources.list"
printf '%s' "$made" >"$partial/.kairos-root"
rm -rf "$root" "$partial.log"
mv "$partial" "$root"
echo "debian-root: $root: $(du -sh "$root" | cut -f 1) in $((SECONDS - started)) s"
