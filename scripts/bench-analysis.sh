#!/usr/bin/env bash
# Analysis benchmark: the same synthetic audit clustered by the three engines of
# `dustpan analyse`: the built-in analysis, Apache DataFusion embedded, and Apache
# Ballista (one scheduler and two executors on 127.0.0.1, scripts/ballista-cluster.sh).
#
#   bash scripts/bench-analysis.sh [URLS...]    # default: 100000
#   BENCH_BIN=DIR bash scripts/bench-analysis.sh 100000   # DIR's dustpan, dustpan-ballista
#                                                         # and synthetic_audit, no build
#
# For each size: the Parquet export, then each engine: wall seconds, CPU seconds
# (user + sys) and peak RSS of every process (for Ballista: the client, the scheduler
# and each executor), and whether its clusters equal the built-in analysis's, URL by URL.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
((${#sizes[@]})) || sizes=(100000)

if [[ -n ${BENCH_BIN:-} ]]; then
    bin=$BENCH_BIN
    example=$BENCH_BIN
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

# Runs one measured command; prints "wall cpu rss_mib".
measured() {
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || {
        cat "$tmp/err" >&2
        return 1
    }
    awk '{ printf "%6.1f s  %6.1f s  %6.0f MiB", $1, $2 + $3, $4 / 1024 }' "$tmp/time"
}

port=$((20000 + RANDOM % 20000))
BALLISTA_BIN="$bin/dustpan-ballista" BALLISTA_TASKS=1 \
    bash scripts/ballista-cluster.sh start "$tmp/cluster" "$port" >/dev/null
mapfile -t pids <"$tmp/cluster/pids"

printf '%-9s %-26s %9s  %8s  %10s  %s\n' urls step wall cpu "peak rss" "same clusters"
for n in "${sizes[@]}"; do
    db="$tmp/bench-$n.sqlite"
    "$example/synthetic_audit" "$n" "$db" >/dev/null
    pq="$tmp/parquet-$n"
    line=$(measured "$bin/dustpan" export 1 --db "$db" --parquet "$pq")
    printf '%-9s %-26s %s\n' "$n" "export --parquet" "$line"
    line=$(measured "$bin/dustpan" analyse 1 --db "$db" --engine builtin --members "$tmp/builtin.csv")
    printf '%-9s %-26s %s\n' "$n" "builtin" "$line"
    line=$(measured "$bin/dustpan" analyse 1 --db "$db" --engine datafusion --parquet "$pq" \
        --work "$tmp/work" --memory-mib 256 --members "$tmp/datafusion.csv")
    same=$(same_members "$tmp/builtin.csv" "$tmp/datafusion.csv")
    printf '%-9s %-26s %s  %s\n' "$n" "datafusion (pool 256 MiB)" "$line" "$same"
    declare -A before=()
    for p in "${pids[@]}"; do before[$p]=$(cpu_of "$p"); done
    line=$(measured "$bin/dustpan" analyse 1 --db "$db" --engine ballista --parquet "$pq" \
        --scheduler "127.0.0.1:$port" --work "$tmp/work" --members "$tmp/ballista.csv")
    same="$(same_members "$tmp/datafusion.csv" "$tmp/ballista.csv") (vs datafusion)"
    printf '%-9s %-26s %s  %s\n' "$n" "ballista client" "$line" "$same"
    names=(scheduler executor-1 executor-2)
    for k in 0 1 2; do
        p=${pids[$k]}
        cpu=$(awk -v a="$(cpu_of "$p")" -v b="${before[$p]}" 'BEGIN { printf "%.1f", a - b }')
        printf '%-9s %-26s %8s  %6s s  %6s MiB (peak so far)\n' "$n" "ballista ${names[$k]}" "" "$cpu" "$(hwm_of "$p")"
    done
done
