#!/usr/bin/env bash
# The client-rendered proving ground in one command: setup (or check), an audit of the
# site without rendering and one with `--render` (its wall time and the peak memory of
# the audit and its browser sampled), both exported, the figures side by side
# (figures.py), the audit's claims checked against curl and
# `chromium --headless --dump-dom` on a few pages (checks.py), and the fix plan Dustpan
# writes for each audit simulated (../grounds/simulate.sh: the run fails when one is not
# clean).
#
#   bash scripts/jssite/run.sh [--no-setup] [--state DIR] [-- AUDIT_OPTIONS...]
#
# DUSTPAN=/path/to/dustpan picks the binary (default target/release/dustpan, else
# target/debug/dustpan); options after -- go to the rendered audit (for example
# `--render-concurrency 4`). Everything is left in STATE/runs/RUN/: raw.sqlite,
# render.sqlite, their exports, report.txt, figures.txt, checks.txt, simulate-raw.txt,
# simulate-render.txt. Loopback only: the
# audits are held to the site's origin, and a rendered page's requests elsewhere are
# refused. See docs/rendering.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S=/tmp/dustpan-jssite
setup=1
while [ $# -gt 0 ]; do
    case "$1" in
        --no-setup) setup=0 ;;
        --state) S=$2; shift ;;
        --) shift; break ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
bin=${DUSTPAN:-}
if [ -z "$bin" ]; then
    for b in "$ROOT/target/release/dustpan" "$ROOT/target/debug/dustpan"; do
        [ -x "$b" ] && { bin=$b; break; }
    done
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "run.sh: no dustpan binary (set DUSTPAN)" >&2; exit 1; }
BASE=http://127.0.0.1:8720/
scope='^http://127\.0\.0\.1:8720/'

if [ "$setup" = 1 ]; then bash "$HERE/setup.sh" "$S"; fi
bash "$ROOT/scripts/setup-render.sh"
curl -sf -o /dev/null "$BASE" || { echo "run.sh: nothing answers $BASE (run setup.sh)" >&2; exit 1; }
R=$S/runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$R"
echo "run: $R (dustpan: $bin)"

echo "== audit without rendering"
"$bin" audit "$BASE" --db "$R/raw.sqlite" --include "$scope" -q
echo "== audit with --render $*"
python3 "$HERE/measure.py" "$R/measure.txt" \
    "$bin" audit "$BASE" --db "$R/render.sqlite" --include "$scope" --render -q "$@"
read -r _ _ _ code <"$R/measure.txt"
[ "$code" = 0 ] || { echo "run.sh: the rendered audit exited with $code" >&2; exit 1; }
for a in raw render; do
    "$bin" export 1 --db "$R/$a.sqlite" --out "$R/$a-export" >/dev/null
done
"$bin" report 1 --db "$R/render.sqlite" --top 20 >"$R/report.txt"
python3 "$HERE/figures.py" "$R/raw.sqlite" "$R/render.sqlite" "$R/raw-export" "$R/render-export" \
    "$R/measure.txt" | tee "$R/figures.txt"
echo "== checks against curl and chromium --dump-dom"
python3 "$HERE/checks.py" "$R/render.sqlite" "$BASE" / /commands/npm-install /using-npm/scripts \
    /configuring-npm/package-json "/commands/npm-install?id=synopsis" /no-such-page | tee "$R/checks.txt"
echo "== the fix plans simulated"
simulated=0
for a in raw render; do
    bash "$ROOT/scripts/grounds/simulate.sh" "$bin" "$R/$a.sqlite" 1 "$R" "simulate-$a" || simulated=1
done
[ "$simulated" = 0 ] || { echo "run.sh: a fix plan is not clean (see $R/simulate-*.txt)" >&2; exit 1; }
