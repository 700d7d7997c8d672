#!/usr/bin/env bash
# The project's one clang-format: the version in scripts/clang-format.version, installed from PyPI
# (the clang-format wheel) into build/tools/clang-format-<version> the first time it is needed.
# `kairos generate`, `make format`, `make check-format` and the tests all use this binary, so what
# they produce does not depend on the clang-format a machine happens to have on its PATH.
#
#   scripts/clang-format.sh ARGS...   runs it with clang-format's own arguments
#   scripts/clang-format.sh --path    installs it if needed and prints where it is
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=$(tr -d '[:space:]' < "$root/scripts/clang-format.version")
tools="$root/build/tools"
dir="$tools/clang-format-$version"
# Where the wheel keeps the real executable (its bin/ holds a Python launcher that --target
# installs cannot run).
binary="$dir/clang_format/data/bin/clang-format"

pinned() {
  [[ -x $binary ]] &&
    "$binary" --version 2>/dev/null | grep -qE "clang-format version ${version//./\\.}( |$)"
}

if ! pinned; then
  mkdir -p "$tools"
  # One installer at a time; whoever waited finds the tool in place.
  exec 9> "$tools/.clang-format.lock"
  flock 9
  if ! pinned; then
    echo "clang-format: installing clang-format $version from PyPI into ${dir#"$root"/}" >&2
    # Into a scratch directory first, then moved into place: a run that stops half way never
    # leaves a half-installed tool where the others look for it.
    scratch=$(mktemp -d "$tools/.clang-format-$version.XXXXXX")
    chmod 755 "$scratch"
    trap 'rm -rf "$scratch"' EXIT
    # --target keeps the wheel out of every Python environment (Debian's python3 refuses
    # system-wide installs); --only-binary never builds LLVM from source where no wheel fits.
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --no-deps --only-binary=:all: --target "$scratch" "clang-format==$version" >&2
    rm -rf "$dir"
    mv -T "$scratch" "$dir"
    if ! pinned; then
      echo "clang-format: error: $binary is not clang-format $version after installing it" >&2
      exit 1
    fi
  fi
  exec 9>&-
fi

if [[ ${1:-} == --path ]]; then
  echo "$binary"
  exit 0
fi
exec "$binary" "$@"
