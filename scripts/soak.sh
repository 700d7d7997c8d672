#!/bin/sh
# The soak (make soak): the demo system under `kairos run` for SOAK_DURATION seconds (default 600)
# while a CPU hog at normal priority keeps every CPU busy, then stopped with SIGTERM as an operator
# would. It passes when the run stopped cleanly (every node's summary and timings written) with no
# hard method or gate missed or measured above its bound as deployed. Not part of `make test`.
set -eu
duration=${SOAK_DURATION:-600}
out=${SOAK_OUT:-build/soak}
model=examples/avionics/avionics.tmo
mkdir -p "$out"
log="$out/run.log"

# One busy loop per CPU this process may use, at normal priority, ended with the soak (and by
# `timeout` at the latest, should this script itself be killed).
hogs=""
for _ in $(seq 1 "$(nproc)"); do
  timeout $((duration + 300)) sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
trap 'kill $hogs 2>/dev/null || true' EXIT INT TERM

echo "soak: $model under kairos run for ${duration} s, $(nproc) CPU hog(s) at normal priority;" \
  "load average $(cut -d ' ' -f 1-3 /proc/loadavg) at the start"
status=0
timeout --preserve-status -s TERM "$duration" \
  ./kairos run "$model" --share-cpus -o "$out" > "$log" 2>&1 || status=$?
echo "soak: load average $(cut -d ' ' -f 1-3 /proc/loadavg) at the end; kairos run exited $status"
sed -n '/^node  *method or gate/,$p' "$log"
for node in mission1 mission2; do
  if ! grep -q '"complete": true' "$out/$node.timings.json" 2>/dev/null; then
    echo "soak: $node wrote no complete timings file ($out/$node.timings.json)" >&2
    status=1
  fi
  if ! grep -q "^summary node=$node " "$out/$node.log" 2>/dev/null; then
    echo "soak: $node printed no summary line ($out/$node.log)" >&2
    status=1
  fi
done
if ! grep -q '^kairos: SIGTERM: stopping the nodes' "$log"; then
  echo "soak: kairos run did not take the SIGTERM in ($log)" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "soak: passed" || echo "soak: FAILED (the whole output: $log)" >&2
exit "$status"
