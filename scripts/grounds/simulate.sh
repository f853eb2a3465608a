#!/usr/bin/env bash
# The fix plan Dustpan writes for a proving ground's audit, simulated: a plan Dustpan
# proposes must simulate clean (docs/fixes.md). Every ground's runner calls this after
# its audit.
#
#   bash scripts/grounds/simulate.sh DUSTPAN DB AUDIT_ID OUT_DIR [NAME]
#
# Writes OUT_DIR/NAME.txt (default simulate.txt: `dustpan simulate AUDIT_ID --db DB`,
# what was applied, the findings resolved, remaining and new, the problems by kind, then
# each problem), prints its summary and verdict, and exits 0 when the plan is clean, 1
# when it is not, 2 when the simulation fails (its error in OUT_DIR/NAME.log). An empty
# AUDIT_ID simulates the newest audit of DB.
set -uo pipefail
if [ $# -lt 4 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
bin=$1 db=$2 id=$3 out=$4 name=${5:-simulate}
mkdir -p "$out"
start=${EPOCHREALTIME/[,]/.}
"$bin" simulate ${id:+"$id"} --db "$db" >"$out/$name.txt" 2>"$out/$name.log"
code=$?
end=${EPOCHREALTIME/[,]/.}
if [ "$code" != 0 ] && [ "$code" != 1 ]; then
    echo "simulate.sh: dustpan simulate failed ($code):" >&2
    cat "$out/$name.log" >&2
    exit 2
fi
echo "simulate: $bin simulate ${id:-(newest)} --db $db"
# The summary and the counts by kind end at the first empty line; the verdict is last.
awk 'NF == 0 { exit } { print "  " $0 }' "$out/$name.txt"
awk -v a="$start" -v b="$end" -v v="$(tail -1 "$out/$name.txt")" -v f="$out/$name.txt" \
    'BEGIN { printf "simulation verdict: %s (%.1f s; %s)\n", v, b - a, f }'
exit "$code"
