#!/usr/bin/env bash
# Screenshots of the desktop app's main views, from the running app under Xvfb with two
# real audits of the fixture site (served on loopback). Writes docs/screenshots/*.png.
#
#   bash scripts/screenshots.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-docs/screenshots}

bash scripts/setup-desktop.sh
npm --prefix ui run build
# The app itself too: `--bin screenshots` alone would photograph whatever app binary
# an earlier build left.
cargo build --locked -p dustpan-desktop --bin dustpan-desktop
cargo build --locked -p desktop-e2e --bin screenshots
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
    cargo run --locked -q -p desktop-e2e --bin screenshots -- "$dir"
