#!/usr/bin/env bash
# Stops the proving ground's private nginx (started by setup.sh) for STATE_DIR.
#   bash scripts/jssite/stop.sh [STATE_DIR]      (default /tmp/dustpan-jssite)
exec bash "$(dirname "$0")/../grounds/stop-nginx.sh" "${1:-/tmp/dustpan-jssite}"
