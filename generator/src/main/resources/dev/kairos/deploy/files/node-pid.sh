#!/bin/sh
# node-pid HOME NODE: prints the process id of node NODE installed in HOME while it runs (process
# mode, where HOME/run/NODE.pid names it), and exits 1 when it does not run. A pid file an ended run
# left may name another process by now: the process must be the node's own executable.
pid=$(cat "$1/run/$2.pid" 2>/dev/null) || exit 1
tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$1/bin/$2 " || exit 1
echo "$pid"
