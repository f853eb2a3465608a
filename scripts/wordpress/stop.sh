#!/usr/bin/env bash
# Stops the ground's private Apache and MariaDB (started by setup.sh) for STATE_DIR.
#   bash scripts/wordpress/stop.sh [STATE_DIR]      (default /tmp/dustpan-wordpress)
set -uo pipefail
S=${1:-/tmp/dustpan-wordpress}
rc=0
if [ -f "$S/conf/httpd.conf" ] && [ -f "$S/run/httpd.pid" ]; then
    pid=$(cat "$S/run/httpd.pid")
    apache2 -f "$S/conf/httpd.conf" -k stop 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then echo "Apache $pid did not stop" >&2; rc=1; else echo "stopped Apache $pid ($S)"; fi
fi
if [ -f "$S/run/mysqld.pid" ]; then
    pid=$(cat "$S/run/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then echo "MariaDB $pid did not stop" >&2; rc=1; else echo "stopped MariaDB $pid ($S)"; fi
fi
exit $rc
