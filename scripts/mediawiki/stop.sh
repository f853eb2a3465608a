#!/usr/bin/env bash
# Stops the proving ground's private Apache (started by setup.sh) for STATE_DIR.
#   bash scripts/mediawiki/stop.sh [STATE_DIR]      (default /tmp/dustpan-mediawiki)
set -uo pipefail
S=${1:-/tmp/dustpan-mediawiki}
conf=$S/conf/httpd.conf
pidfile=$S/run/httpd.pid
if [ ! -f "$conf" ] || [ ! -f "$pidfile" ]; then
    echo "no server running for $S"
    exit 0
fi
pid=$(cat "$pidfile")
apache2 -f "$conf" -k stop 2>/dev/null || kill "$pid" 2>/dev/null || true
for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || { echo "stopped Apache $pid ($S)"; exit 0; }
    sleep 0.2
done
echo "Apache $pid did not stop" >&2
exit 1
