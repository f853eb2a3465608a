#!/usr/bin/env bash
# The MediaWiki proving ground in one command: build and serve the wiki, audit it with
# dustpan, export the audit and score it against the wiki's database, and simulate the
# fix plan Dustpan writes for it (../grounds/simulate.sh: the run fails when the plan is
# not clean).
#
#   bash scripts/mediawiki/run.sh [--no-setup] [--state DIR] [-- AUDIT_OPTIONS...]
#
#   --no-setup    keep the running wiki (default: setup.sh rebuilds it from scratch)
#   --state DIR   state directory (default: $STATE_DIR or /tmp/dustpan-mediawiki)
#   after --      extra `dustpan audit` options, e.g. -- --concurrency 4
#
# The binary is $DUSTPAN, else target/release/dustpan, else target/debug/dustpan.
# Each run writes STATE_DIR/runs/RUN/ (audit.log, export/, score.txt, score.json,
# simulate.txt) into a fresh audit database STATE_DIR/runs/RUN/audit.sqlite, and
# STATE_DIR/audit.sqlite links to the newest. The crawl is held to
# http(s)://127.0.0.1:8680/ by --include.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S=${STATE_DIR:-/tmp/dustpan-mediawiki}
setup=1
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-setup) setup=0 ;;
        --state) S=$2; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac

bin=${DUSTPAN:-}
if [ -z "$bin" ]; then
    for b in "$ROOT/target/release/dustpan" "$ROOT/target/debug/dustpan"; do
        if [ -x "$b" ]; then bin=$b; break; fi
    done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "run.sh: no dustpan binary (set DUSTPAN, or build with cargo build --release)" >&2
    exit 2
fi

if [ "$setup" = 1 ]; then
    bash "$HERE/setup.sh" "$S"
elif ! curl -s -o /dev/null "http://127.0.0.1:8680/robots.txt"; then
    echo "run.sh: nothing answers on 127.0.0.1:8680; run without --no-setup" >&2
    exit 2
fi
for check in --selftest --verify; do
    python3 "$HERE/truth.py" "$S" $check >"$S/truth/check${check#-}.log" 2>&1 || {
        echo "run.sh: truth.py $check failed, see $S/truth/check${check#-}.log" >&2
        exit 1
    }
    echo "truth.py $check: $(tail -1 "$S/truth/check${check#-}.log")"
done

run=$S/runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
db=$run/audit.sqlite
echo "dustpan: $bin ($("$bin" --version))"
echo "audit:   $bin audit http://127.0.0.1:8680/ --db $db ${extra[*]}"
log_lines=$(wc -l <"$S/log/access.log")
start=${EPOCHREALTIME/[,]/.}
"$bin" audit http://127.0.0.1:8680/ --db "$db" --quiet \
    --include '^https?://127\.0\.0\.1:8680/' "${extra[@]}" 2>&1 | tee "$run/audit.log"
end=${EPOCHREALTIME/[,]/.}
id=$(sed -n 's/^Audit \([0-9][0-9]*\) finished.*/\1/p' "$run/audit.log" | tail -1)
awk -v a="$start" -v b="$end" 'BEGIN { printf "audit wall time: %.1f s\n", b - a }' | tee -a "$run/audit.log"
# What the wiki was asked during the audit (its access log, Apache's own record): every
# request line, and the ones asked more than once.
tail -n +"$((log_lines + 1))" "$S/log/access.log" | grep -v '"OPTIONS \* ' |
    sed -n 's/^[^"]*"\([A-Z]* [^ ]*\) HTTP[^"]*".*/\1/p' | sort | uniq -c |
    awk '{ n += $1; if ($1 > 1) { twice++; extra += $1 - 1; if (shown++ < 5) print "  asked " $1 " times: " $2 " " $3 } }
         END { printf "requests the wiki logged during the audit: %d, URLs requested more than once: %d (%d extra requests)\n", n, twice, extra }' |
    tee -a "$run/audit.log"
ln -sfn "$db" "$S/audit.sqlite"

"$bin" export ${id:+"$id"} --db "$db" --out "$run/export" >"$run/export.log" 2>&1 || {
    cat "$run/export.log" >&2
    exit 1
}
python3 "$HERE/score.py" --state "$S" --export "$run/export" --json >"$run/score.json"
python3 "$HERE/score.py" --state "$S" --export "$run/export" | tee "$run/score.txt"
echo
simulated=0
bash "$HERE/../grounds/simulate.sh" "$bin" "$db" "$id" "$run" || simulated=$?
echo
echo "run: $run   (server still up on http://127.0.0.1:8680/; stop with bash $HERE/stop.sh $S)"
if [ "$simulated" != 0 ]; then
    echo "run.sh: the fix plan is not clean (see $run/simulate.txt)" >&2
    exit 1
fi
