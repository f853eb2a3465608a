#!/usr/bin/env bash
# Runs every check and test of the project: the desktop app's prerequisites (installed
# when missing), the UI's type check, tests and build, formatting, clippy, docs, every
# Rust test (unit, integration, end-to-end against the loopback fixture site) and the
# desktop app's end-to-end test through WebDriver under Xvfb.
# Prints a closing "N passed, N failed, N skipped" line summed over every test run.
set -euo pipefail
cd "$(dirname "$0")/.."
# A clean build needs no incremental cache; without it the target folder is a third smaller.
export CARGO_INCREMENTAL=0
# Nor debug info: a failing test still names its file and line (panic locations are
# compiled in), and the build links faster and writes far less to disk.
export CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0

# Each step's heading says how long the run has taken so far (minutes:seconds).
step() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step "desktop prerequisites (system packages, tauri-driver, npm packages)"
bash scripts/setup-desktop.sh

step "rendering prerequisites (Debian's chromium)"
bash scripts/setup-render.sh
# The rendering tests skip when Chromium is missing, except here.
export DUSTPAN_REQUIRE_CHROMIUM=1
# The DuckDB query of docs/scale.md (tests/scale.rs) runs when the package installs.
python3 -m pip install --quiet duckdb 2>/dev/null || echo "duckdb not installed: its query is skipped"

step "UI: svelte-check, vitest, vite build"
npm --prefix ui run check
npm --prefix ui test 2>&1 | tee -a "$log"
npm --prefix ui run build

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

step "cargo test"
set +e
cargo test --workspace --locked 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
set -e

step "DataFusion and Ballista engines (dustpan --features dataflow, dataflow --features ballista)"
# The engines are cargo features the steps above leave off; their tests are binaries of
# their own (tests/engines.rs: built-in analysis against embedded DataFusion;
# crates/dataflow/tests/embedded.rs: the embedded plans against the built-in analysis's
# members of a rendered audit; crates/dataflow/tests/ballista.rs: a Ballista scheduler
# and two executors on 127.0.0.1 against the embedded engine), so only the engines,
# `dustpan-ballista` and those binaries are built here, in one command so that the crates they share
# (DataFusion among them) are built once.
# `--workspace` (here and in the next step) resolves features as `cargo test --workspace`
# did, so the crates built above are reused instead of rebuilt with other features
# (`-p dustpan` alone rebuilt 231 crates here, `--workspace` 80, DataFusion's own among them).
set +e
cargo test --locked --workspace --features dustpan/dataflow,dataflow/ballista \
    --test engines --test embedded --test ballista 2>&1 | tee -a "$log"
engines=${PIPESTATUS[0]}
((status != 0)) || status=$engines
set -e

step "desktop app end to end (tauri-driver + WebKitWebDriver under Xvfb)"
if ((status == 0)); then
    set +e
    # The desktop binary, with the features the test step resolved (one crate to build;
    # `-p dustpan-desktop` rebuilt 186). `--test app` is the end-to-end test (crates/view's
    # own `app` test has no ignored test, so it runs nothing here).
    cargo build --locked --workspace --bin dustpan-desktop --test app &&
        xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
            cargo test --locked --workspace --test app -- --ignored 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
    set -e
fi

# Rust prints "test result: ok. N passed; N failed; N ignored"; Vitest prints
# "Tests  N passed | N skipped (N)" (with colour codes, stripped here).
sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '
    /^test result:/ {
        for (i = 1; i <= NF; i++) {
          if ($(i) ~ /^passed;?$/)  p += $(i-1);
          if ($(i) ~ /^failed;?$/)  f += $(i-1);
          if ($(i) ~ /^ignored;?$/) s += $(i-1);
        }
    }
    /^ *Tests +[0-9]/ {
        for (i = 1; i <= NF; i++) {
          if ($(i) == "passed")  p += $(i-1);
          if ($(i) == "failed")  f += $(i-1);
          if ($(i) == "skipped") s += $(i-1);
        }
    }
    END { printf "\n%d passed, %d failed, %d skipped\n", p, f, s }'
printf 'total: %d:%02d\n' $((SECONDS / 60)) $((SECONDS % 60))
exit "$status"
