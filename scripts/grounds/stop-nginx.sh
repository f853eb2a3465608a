#!/usr/bin/env bash
# Stops a proving ground's private nginx for STATE_DIR (started by the ground's
# setup.sh, its pid in STATE_DIR/run/nginx.pid): the master by its pid file, then any
# worker left in its process group.
#   bash scripts/grounds/stop-nginx.sh STATE_DIR
set -uo pipefail
S=${1:?usage: stop-nginx.sh STATE_DIR}
pidfile=$S/run/nginx.pid
if [ ! -f "$pidfile" ]; then
    echo "no server running for $S"
    exit 0
fi
pid=$(cat "$pidfile")
kill -QUIT "$pid" 2>/dev/null || true
for _ in $(seq 1 50); do
    if ! kill -0 "$pid" 2>/dev/null; then
        pkill -KILL -g "$pid" 2>/dev/null || true   # workers of that group only (setsid)
        rm -f "$pidfile"
        echo "stopped nginx $pid ($S)"
        exit 0
    fi
    sleep 0.1
done
kill -- -"$pid" 2>/dev/null || true
echo "nginx $pid did not stop on QUIT; its process group was killed" >&2
exit 1
