#!/bin/sh
# Runs make targets one after another, stops at the first that fails, and says how long each took:
# `make test` runs its suites through it, so that every log shows where its time went (the whole
# is to stay within 30 minutes on a fresh clone).
set -u
make_command=${MAKE:-make}
summary=""
begin=$(date +%s)
for target in "$@"; do
  start=$(date +%s)
  $make_command --no-print-directory "$target"
  status=$?
  took=$(($(date +%s) - start))
  echo "== $target took $took s"
  summary="$summary$(printf '  %-14s %5d s' "$target" "$took")
"
  if [ "$status" -ne 0 ]; then
    printf '== %s failed (exit %d); time per suite:\n%s' "$target" "$status" "$summary"
    exit "$status"
  fi
done
printf '== time per suite:\n%s  %-14s %5d s\n' "$summary" "total" "$(($(date +%s) - begin))"
