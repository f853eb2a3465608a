#!/usr/bin/env bash
# Runs every check and test of the project: formatting, clippy, docs, and all
# tests (unit, integration, end-to-end against the loopback fixture site).
# Prints a closing "N passed, N failed, N ignored" line summed over every test binary.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

step "cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --workspace --locked 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
awk '/^test result:/ {
        for (i = 1; i <= NF; i++) {
          if ($(i) ~ /^passed;?$/)  p += $(i-1);
          if ($(i) ~ /^failed;?$/)  f += $(i-1);
          if ($(i) ~ /^ignored;?$/) s += $(i-1);
        }
     }
     END { printf "\n%d passed, %d failed, %d skipped\n", p, f, s }' "$log"
exit "$status"
