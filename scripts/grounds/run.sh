#!/usr/bin/env bash
# One proving ground in one command: build and serve it, audit it with dustpan, export
# the audit and score it against the ground's truth, simulate the fix plan Dustpan
# writes for it (simulate.sh: the run fails when the plan is not clean); then `dustpan
# learn` over the truth's URL list (shuffled) and score its groups.
#
#   bash scripts/grounds/run.sh GROUND [--no-setup] [--no-learn] [--state DIR] [-- AUDIT_OPTIONS...]
#
#   GROUND        a folder of scripts/ with setup.sh, truth.py and stop.sh
#                 (mediawiki, hugo, oscar, wordpress); its run.sh calls this
#   --no-setup    keep the running ground (default: setup.sh, which rebuilds or checks it)
#   --no-learn    skip the `dustpan learn` part
#   --state DIR   state directory (default: $STATE_DIR or /tmp/dustpan-GROUND)
#   after --      extra `dustpan audit` options, e.g. -- --concurrency 4
#
# The binary is $DUSTPAN, else target/release/dustpan, else target/debug/dustpan.
# Each run writes STATE_DIR/runs/RUN/ (audit.log, export/, score.txt, score.json,
# simulate.txt, engines.txt, dust.txt, learn-list.txt, learn-groups.tsv, learn.log, learn-score.txt)
# with a fresh audit database STATE_DIR/runs/RUN/audit.sqlite; STATE_DIR/audit.sqlite
# links to the newest.
# The crawl is held to http(s)://127.0.0.1:PORT/ by --include.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ground=${1:-}
case "$ground" in
    mediawiki) port=8680 ;;
    hugo) port=8690 ;;
    oscar) port=8700 ;;
    wordpress) port=8710 ;;
    -h|--help|"") sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown ground '$ground' (mediawiki, hugo, oscar, wordpress)" >&2; exit 2 ;;
esac
shift
G=$ROOT/scripts/$ground
BASE=http://127.0.0.1:$port
S=${STATE_DIR:-/tmp/dustpan-$ground}
setup=1
learn=1
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-setup) setup=0 ;;
        --no-learn) learn=0 ;;
        --state) S=$2; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
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
    echo "run.sh: no dustpan binary (set DUSTPAN, or build with cargo build --release --bin dustpan)" >&2
    exit 2
fi
case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac

if [ "$setup" = 1 ]; then
    bash "$G/setup.sh" "$S"
elif ! curl -s -o /dev/null "$BASE/robots.txt"; then
    echo "run.sh: nothing answers on $BASE; run without --no-setup" >&2
    exit 2
fi
for check in --selftest --verify; do
    python3 "$G/truth.py" "$S" $check >"$S/truth/check${check#-}.log" 2>&1 || {
        echo "run.sh: truth.py $check failed, see $S/truth/check${check#-}.log" >&2
        exit 1
    }
    echo "truth.py $check: $(tail -1 "$S/truth/check${check#-}.log")"
done

run=$S/runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
db=$run/audit.sqlite
echo "dustpan: $bin ($("$bin" --version))"
echo "audit:   $bin audit $BASE/ --db $db --include '^https?://127\\.0\\.0\\.1:$port/' ${extra[*]}"
access=$S/log/access.log
log_lines=$( [ -f "$access" ] && wc -l <"$access" || echo 0)
start=${EPOCHREALTIME/[,]/.}
"$bin" audit "$BASE/" --db "$db" --quiet \
    --include "^https?://127\\.0\\.0\\.1:$port/" "${extra[@]}" 2>&1 | tee "$run/audit.log"
end=${EPOCHREALTIME/[,]/.}
id=$(sed -n 's/^Audit \([0-9][0-9]*\) finished.*/\1/p' "$run/audit.log" | tail -1)
awk -v a="$start" -v b="$end" 'BEGIN { printf "audit wall time: %.1f s\n", b - a }' | tee -a "$run/audit.log"
# What the server was asked during the audit (its own access log): every request line,
# and the ones asked more than once.
if [ -f "$access" ]; then
    tail -n +"$((log_lines + 1))" "$access" | grep -v '"OPTIONS \* ' |
        sed -n 's/^[^"]*"\([A-Z]* [^ ]*\) HTTP[^"]*".*/\1/p' | sort | uniq -c |
        awk '{ n += $1; if ($1 > 1) { twice++; extra += $1 - 1; if (shown++ < 5) print "  asked " $1 " times: " $2 " " $3 } }
             END { printf "requests the server logged during the audit: %d, URLs requested more than once: %d (%d extra requests)\n", n, twice, extra }' |
        tee -a "$run/audit.log"
fi
ln -sfn "$db" "$S/audit.sqlite"

"$bin" export ${id:+"$id"} --db "$db" --out "$run/export" >"$run/export.log" 2>&1 || {
    cat "$run/export.log" >&2
    exit 1
}
python3 "$HERE/score.py" --truth "$G/truth.py" --state "$S" --export "$run/export" --json >"$run/score.json"
python3 "$HERE/score.py" --truth "$G/truth.py" --state "$S" --export "$run/export" | tee "$run/score.txt"
# The plan Dustpan wrote for the ground must simulate clean: the run fails at its end
# otherwise.
echo
simulated=0
bash "$HERE/simulate.sh" "$bin" "$db" "$id" "$run" || simulated=$?
# The three engines of `dustpan analyse` on this audit, URL by URL (bench-analysis.sh on
# a copy of the database), when the binary has them: built with `--features ballista`
# (it then lacks the message asking for a dustpan built with a feature), with
# dustpan-ballista beside it.
engines=0
if [ -x "$(dirname "$bin")/dustpan-ballista" ] &&
    ! grep -qaF 'needs a dustpan built with the `' "$bin"; then
    echo
    BENCH_DB=$db BENCH_AUDIT=$id BENCH_BIN=$(dirname "$bin") bash "$ROOT/scripts/bench-analysis.sh" |
        tee "$run/engines.txt" || engines=$?
fi
# DUST during the crawl, per query parameter: fetched, skipped, fetched pairs compared.
echo
python3 "$HERE/dust.py" --db "$db" --log "$run/audit.log" | tee "$run/dust.txt"

# dustpan learn over the truth's URL list, shuffled with a fixed seed.
if [ "$learn" = 1 ] && grep -q -- '"--list"' "$G/truth.py"; then
    echo
    python3 "$G/truth.py" "$S" --list >"$run/truth-list.txt"
    python3 -c 'import random, sys
urls = open(sys.argv[1]).read().split()
random.Random(24).shuffle(urls)
print("\n".join(urls))' "$run/truth-list.txt" >"$run/learn-list.txt"
    # --site: the ground is on loopback, and a list's hosts at non-public addresses are
    # asked only when --site (or --resolve / --allow-internal) names them.
    echo "learn:   $bin learn $run/learn-list.txt --site $BASE/ --group   ($(wc -l <"$run/learn-list.txt") URLs, shuffled)"
    start=${EPOCHREALTIME/[,]/.}
    "$bin" learn "$run/learn-list.txt" --site "$BASE/" --group >"$run/learn-groups.tsv" 2>"$run/learn.log" || {
        tail -20 "$run/learn.log" >&2
        exit 1
    }
    end=${EPOCHREALTIME/[,]/.}
    awk -v a="$start" -v b="$end" 'BEGIN { printf "learn wall time: %.1f s\n", b - a }'
    python3 "$HERE/score_groups.py" --truth "$G/truth.py" --state "$S" --list "$run/learn-list.txt" \
        --groups "$run/learn-groups.tsv" | tee "$run/learn-score.txt"
fi
echo
echo "run: $run   (server still up on $BASE/; stop with bash $G/stop.sh $S)"
if [ "$engines" != 0 ]; then
    echo "run.sh: the engines' clusters differ (see $run/engines.txt)" >&2
    exit 1
fi
if [ "$simulated" != 0 ]; then
    echo "run.sh: the fix plan is not clean (see $run/simulate.txt)" >&2
    exit 1
fi
