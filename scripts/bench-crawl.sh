#!/usr/bin/env bash
# Crawl benchmark: `dustpan audit` of the generated fixture site, served on loopback by
# `dustpan-fixture --generated PAGES`, both built in release.
#
#   bash scripts/bench-crawl.sh [PAGES]      # PAGES defaults to 20000; 100000 works too
#   BENCH_BIN=DIR bash scripts/bench-crawl.sh   # DIR's dustpan and dustpan-fixture, no
#                                               # build (to compare two builds)
#   BENCH_KEEP_DB=FILE bash scripts/bench-crawl.sh  # keep the audit's database as FILE
#
# Prints pages fetched, wall seconds, pages/s, CPU seconds (user + sys) and peak RSS of
# the audit process, and the size of the audit database; then the same figures for the
# analysis alone (`dustpan report` of the stored audit). Nothing leaves the machine: the
# fixture binds 127.0.0.1 and every host name is --resolve'd to it.
#
# Then, in the same run and on the same server, the peer: wget2 mirrors the same site
# recursively (--delete-after, as many connections as the audit's default concurrency,
# 8), over HTTPS (as the audit crawls it) and over plain HTTP, and its responses, wall
# seconds, pages/s, CPU seconds and peak RSS are printed beside Dustpan's
# (`scripts/bench-setup.sh` installs wget2; BENCH_PEER=0 skips it). wget2 asks for
# https://127.0.0.1:PORT/ (it has no --resolve), which the fixture serves as the same
# site; it reads no sitemap and stores nothing.
#
# Default settings but --max-urls (above the site size) and --max-db-bytes (16 KiB a page
# above the default 2 GiB, which a million-page audit outgrows): the start URL's scheme and www.
# variants redirect to https://example.test, and the /p/N pages are listed in the site's
# sitemaps (so they do not use the trap guard's budget).
set -euo pipefail
cd "$(dirname "$0")/.."

pages=${1:-20000}
if ! [[ $pages =~ ^[0-9]+$ ]] || ((pages < 1)); then
    echo "usage: bash scripts/bench-crawl.sh [PAGES]" >&2
    exit 2
fi

# shellcheck source=scripts/bench-fixture.sh
source scripts/bench-fixture.sh
bench_binaries
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dustpan-bench.XXXXXX")
bench_fixture "$pages" "$tmp"
echo "==> fixture (pid $fixture_pid) on 127.0.0.1:$port, $pages pages" >&2

resolve=()
for host in example.test www.example.test blog.example.test; do
    resolve+=(--resolve "$host:$port:127.0.0.1")
done
db="$tmp/bench.sqlite"
audit=("$bin/dustpan" audit https://example.test/ --db "$db" "${resolve[@]}"
    --ca-cert "$tmp/ca.pem" --max-urls $((pages * 2 + 1000))
    --max-db-bytes $((pages * 16384 + (2 << 30))) -q)
echo "==> ${audit[*]}" >&2

start_ns=$(date +%s%N)
if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v -o "$tmp/time.txt" "${audit[@]}" >"$tmp/audit.txt"
    end_ns=$(date +%s%N)
    user=$(sed -n 's/^\s*User time (seconds): //p' "$tmp/time.txt")
    sys=$(sed -n 's/^\s*System time (seconds): //p' "$tmp/time.txt")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    rss_kib=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$tmp/time.txt")
else
    # No GNU time: poll /proc for the peak RSS and the CPU ticks while it runs.
    "${audit[@]}" >"$tmp/audit.txt" &
    pid=$!
    rss_kib=0
    ticks=0
    while kill -0 "$pid" 2>/dev/null; do
        hwm=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n $hwm ]] && ((hwm > rss_kib)) && rss_kib=$hwm
        t=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true)
        [[ -n $t ]] && ticks=$t
        sleep 0.05
    done
    wait "$pid"
    end_ns=$(date +%s%N)
    cpu=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')
fi

cat "$tmp/audit.txt"
fetched=$(sed -n 's/^  Pages *\([0-9]*\) fetched.*/\1/p' "$tmp/audit.txt")
fixture_cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$fixture_pid/stat")
# The -wal file is gone when the audit closed the database cleanly.
db_bytes=$(cat "$db" "$db-wal" 2>/dev/null | wc -c || true)

awk -v pages="$pages" -v fetched="$fetched" -v ns=$((end_ns - start_ns)) -v cpu="$cpu" \
    -v rss="$rss_kib" -v db="$db_bytes" -v fcpu="$fixture_cpu" 'BEGIN {
    wall = ns / 1e9
    printf "\nsite pages        %d\n", pages
    printf "pages fetched     %d\n", fetched
    printf "wall seconds      %.2f\n", wall
    printf "pages/s           %.0f\n", fetched / wall
    printf "CPU seconds       %.2f (user + sys of dustpan; the fixture used %.2f)\n", cpu, fcpu
    printf "peak RSS          %.1f MiB\n", rss / 1024
    printf "database size     %.1f MiB\n", db / 1048576
}'

# The analysis alone, on the stored audit: `dustpan report` loads it from the database
# and analyses it again, as a later report, export or the app's first open does.
/usr/bin/time -v -o "$tmp/report-time.txt" "$bin/dustpan" report 1 --db "$db" >"$tmp/report.txt"
awk -v fetched="$fetched" '
    /User time/ { u = $NF } /System time/ { s = $NF }
    /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
    /Maximum resident/ { r = $NF }
    END {
        printf "analysis alone    %.2f s wall, %.2f CPU s (%.3f ms/page), peak RSS %.1f MiB (dustpan report)\n",
            w, u + s, (u + s) * 1000 / fetched, r / 1024
    }' "$tmp/report-time.txt" 2>/dev/null || true
if [[ -n ${BENCH_KEEP_DB:-} ]]; then
    cp "$db" "$BENCH_KEEP_DB"
    echo "database kept as $BENCH_KEEP_DB" >&2
fi

# The peer, on the same fixture right after the audit.
peer_threads=8
run_wget2() { # scheme
    local scheme=$1 out="$tmp/wget2-$1"
    local args=(-r -l inf --no-parent --max-threads="$peer_threads" --delete-after -q
        -P "$out" --stats-site="csv:$out.csv")
    [[ $scheme == https ]] && args+=(--ca-certificate="$tmp/ca.pem")
    local s_ns e_ns
    s_ns=$(date +%s%N)
    /usr/bin/time -v -o "$out.time" wget2 "${args[@]}" "$scheme://127.0.0.1:$port/" || true
    e_ns=$(date +%s%N)
    local u sy r n
    u=$(sed -n 's/^\s*User time (seconds): //p' "$out.time")
    sy=$(sed -n 's/^\s*System time (seconds): //p' "$out.time")
    r=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$out.time")
    # 2xx responses (robots.txt included), from wget2's per-URL statistics.
    n=$(awk -F, 'NR > 1 && $4 >= 200 && $4 < 300' "$out.csv" | wc -l)
    awk -v n="$n" -v ns=$((e_ns - s_ns)) -v u="$u" -v s="$sy" -v r="$r" -v sc="$scheme" \
        -v ours="$fetched" -v ourwall="$((end_ns - start_ns))" 'BEGIN {
        wall = ns / 1e9
        printf "wget2 %-5s       %d responses, %.2f s, %.0f pages/s, %.2f CPU s, %.1f MiB peak", sc, n, wall, n / wall, u + s, r / 1024
        if (n > 0 && ours > 0) printf " (Dustpan %.2fx its pages/s)", (ours / (ourwall / 1e9)) / (n / wall)
        printf "\n"
    }'
}
if [[ ${BENCH_PEER:-1} != 0 ]]; then
    if ! command -v wget2 >/dev/null 2>&1 || [[ ! -x /usr/bin/time ]]; then
        bash scripts/bench-setup.sh >&2 || true
    fi
    if command -v wget2 >/dev/null 2>&1 && [[ -x /usr/bin/time ]]; then
        echo "==> wget2 on the same fixture, $peer_threads threads" >&2
        printf "\npeer, same run, same server (wget2 %s):\n" "$(wget2 --version | sed -n '1s/^GNU Wget2 \([^ ]*\).*/\1/p')"
        run_wget2 https
        run_wget2 http
    else
        echo "peer: wget2 not installed (scripts/bench-setup.sh)"
    fi
fi

if ((fetched < pages)); then
    echo "warning: fewer pages fetched ($fetched) than the site has ($pages)" >&2
    exit 1
fi
