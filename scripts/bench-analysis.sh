#!/usr/bin/env bash
# Analysis benchmark and engine check: one audit clustered by the three engines of
# `dustpan analyse`: the built-in analysis, Apache DataFusion embedded, and Apache
# Ballista (one scheduler and two executors on 127.0.0.1, scripts/ballista-cluster.sh).
#
#   bash scripts/bench-analysis.sh [URLS...]    # synthetic audits; default: 100000
#   BENCH_DB=FILE [BENCH_AUDIT=ID] bash scripts/bench-analysis.sh
#                                   # a stored audit instead (the newest without BENCH_AUDIT),
#                                   # analysed on a copy: FILE is opened read-only
#   BENCH_IN_PLACE=1 ...            # FILE is a copy already: analysed as it is (the
#                                   # analysis records its counts in it)
#   BENCH_BIN=DIR ...               # DIR's dustpan, dustpan-ballista (and, for synthetic
#                                   # audits, examples/synthetic_audit), no build
#   BENCH_POOL_MIB=N ...            # DataFusion's memory pool (default 256 MiB)
#
# For each audit: the Parquet export, then one line per engine: wall seconds, CPU seconds
# (user + sys) and peak RSS of every process (for Ballista: the client, the scheduler
# and each executor), and whether its clusters equal the built-in analysis's, URL by URL
# (every clustered URL and its preferred URL). Exits 1 when an engine's clusters differ
# or an engine fails.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
if [[ -n ${BENCH_DB:-} ]]; then
    ((${#sizes[@]} == 0)) || { echo "bench-analysis.sh: BENCH_DB takes no sizes" >&2; exit 2; }
    [[ -f $BENCH_DB ]] || { echo "bench-analysis.sh: no database $BENCH_DB" >&2; exit 2; }
else
    ((${#sizes[@]})) || sizes=(100000)
fi
pool=${BENCH_POOL_MIB:-256}

if [[ -n ${BENCH_BIN:-} ]]; then
    bin=$BENCH_BIN
    example=$BENCH_BIN/examples
else
    echo "==> cargo build --release (dustpan --features ballista, dustpan-ballista, synthetic_audit)" >&2
    cargo build --release --locked -p dustpan -p dataflow -p columnar \
        --features dustpan/ballista,dataflow/ballista \
        --bin dustpan --bin dustpan-ballista --example synthetic_audit >&2
    target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    bin="${target_dir:-target}/release"
    example="$bin/examples"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dustpan-bench-analysis.XXXXXX")
cleanup() {
    BALLISTA_BIN="$bin/dustpan-ballista" bash scripts/ballista-cluster.sh stop "$tmp/cluster" || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# CPU seconds (user + sys) a process has used so far, from /proc.
cpu_of() {
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"
}
# Peak RSS of a running process, in MiB.
hwm_of() {
    awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"
}

# Whether two members files name the same preferred URL for the same URLs.
same_members() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
a, b = ({r["url"]: r["preferred_url"] for r in csv.DictReader(open(p))} for p in sys.argv[1:])
n = len(set(a) ^ set(b)) + sum(1 for u in a if u in b and a[u] != b[u])
print("yes" if n == 0 else f"no ({n} URLs differ)")
PY
}

# Runs one measured command; prints "wall cpu rss_mib", or the same and "FAILED" (with
# its last log lines on standard error) when it fails.
failed=0
measured() {
    local rc=0
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    tail -1 "$tmp/time" | awk '{ printf "%6.1f s  %6.1f s  %6.0f MiB", $1, $2 + $3, $4 / 1024 }'
    if ((rc)); then
        printf '  FAILED (exit %s)' "$rc"
        tail -20 "$tmp/err" >&2
        return 1
    fi
}

# One engine of `dustpan analyse` on the caller's audit ($audit, $db, $label, $tmp):
# prints its figures and whether its clusters equal the built-in analysis's, and sets
# the caller's ok=1 when it fails or differs.
#   engine NAME TITLE [ANALYSE ARGS...]
engine() {
    local name=$1 title=$2 line same=""
    shift 2
    if line=$(measured "$bin/dustpan" analyse "$audit" --db "$db" --engine "$name" "$@" \
        --members "$tmp/$name.csv"); then
        same=$(same_members "$tmp/builtin.csv" "$tmp/$name.csv")
    else
        ok=1
    fi
    [[ $same == yes || -z $same ]] || ok=1
    printf '%-9s %-26s %s  %s\n' "$label" "$title" "$line" "$same"
}

# An audit's clusters by the three engines: export, builtin, datafusion, ballista.
# Prints one line per step; returns 1 when an engine fails or its clusters differ.
compare() {
    local label=$1 db=$2 audit=$3 line ok=0
    local pq="$tmp/parquet-$label"
    rm -rf "$tmp/work" "$tmp"/*.csv
    line=$(measured "$bin/dustpan" export "$audit" --db "$db" --parquet "$pq") || ok=1
    printf '%-9s %-26s %s\n' "$label" "export --parquet" "$line"
    ((ok == 0)) || return 1
    line=$(measured "$bin/dustpan" analyse "$audit" --db "$db" --engine builtin \
        --members "$tmp/builtin.csv") || ok=1
    printf '%-9s %-26s %s\n' "$label" "builtin" "$line"
    ((ok == 0)) || return 1
    engine datafusion "datafusion (pool $pool MiB)" --parquet "$pq" --work "$tmp/work" \
        --memory-mib "$pool"
    local -A before=()
    for p in "${pids[@]}"; do before[$p]=$(cpu_of "$p"); done
    engine ballista "ballista client" --parquet "$pq" --scheduler "127.0.0.1:$port" \
        --work "$tmp/work"
    local names=(scheduler executor-1 executor-2) k p cpu
    for k in 0 1 2; do
        p=${pids[$k]}
        cpu=$(awk -v a="$(cpu_of "$p")" -v b="${before[$p]}" 'BEGIN { printf "%.1f", a - b }')
        printf '%-9s %-26s %8s  %6s s  %6s MiB (peak so far)\n' "$label" "ballista ${names[$k]}" "" "$cpu" "$(hwm_of "$p")"
    done
    rm -rf "$pq" "$tmp/work"
    return "$ok"
}

port=$((20000 + RANDOM % 20000))
BALLISTA_BIN="$bin/dustpan-ballista" BALLISTA_TASKS=1 \
    bash scripts/ballista-cluster.sh start "$tmp/cluster" "$port" >/dev/null
mapfile -t pids <"$tmp/cluster/pids"

status=0
printf '%-9s %-26s %9s  %8s  %10s  %s\n' urls step wall cpu "peak rss" "same clusters as builtin"
if [[ -n ${BENCH_DB:-} ]]; then
    # A consistent read-only copy (the write-ahead log included): the analysis records
    # its counts in the database it opens.
    db="$tmp/audit.sqlite"
    if [[ -n ${BENCH_IN_PLACE:-} ]]; then
        db=$BENCH_DB
    else
        python3 - "$BENCH_DB" "$db" <<'PY'
import sqlite3, sys, urllib.parse
src = sqlite3.connect(f"file:{urllib.parse.quote(sys.argv[1])}?mode=ro", uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.close()
PY
    fi
    audit=${BENCH_AUDIT:-$(sqlite3 "$db" 'SELECT max(id) FROM audits')}
    n=$(sqlite3 "$db" "SELECT count(*) FROM urls WHERE audit_id = $audit")
    compare "$n" "$db" "$audit" || status=1
else
    for n in "${sizes[@]}"; do
        db="$tmp/bench-$n.sqlite"
        "$example/synthetic_audit" "$n" "$db" >/dev/null
        compare "$n" "$db" 1 || status=1
        rm -f "$db"
    done
fi
exit "$status"
