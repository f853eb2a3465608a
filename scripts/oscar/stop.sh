#!/usr/bin/env bash
# Stops the proving ground's shop server (started by setup.sh) for STATE_DIR: its
# process group (waitress and any child), by the pid setup.sh recorded.
#   bash scripts/oscar/stop.sh [STATE_DIR]      (default /tmp/dustpan-oscar)
set -uo pipefail
S=${1:-/tmp/dustpan-oscar}
pidfile=$S/run/server.pid
if [ ! -f "$pidfile" ]; then
    echo "no server running for $S"
    exit 0
fi
pid=$(cat "$pidfile")
pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')
if [ -n "$pgid" ]; then kill -TERM -- -"$pgid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; fi
for _ in $(seq 1 50); do
    if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$pidfile"
        echo "stopped the shop server $pid ($S)"
        exit 0
    fi
    sleep 0.1
done
[ -n "$pgid" ] && kill -KILL -- -"$pgid" 2>/dev/null || true
rm -f "$pidfile"
echo "the shop server $pid did not stop on TERM; its process group was killed" >&2
exit 1
