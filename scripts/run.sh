#!/usr/bin/env bash
# Opens the Dustpan desktop app: installs what it needs when missing (system packages,
# npm packages), builds the UI and the app in release mode, and starts it.
# Extra arguments are passed to the app.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-desktop.sh
npm --prefix ui run build
cargo build --release --locked -p dustpan-desktop
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
exec "${target_dir:-target}/release/dustpan-desktop" "$@"
