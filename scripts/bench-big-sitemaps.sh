#!/usr/bin/env bash
# A site whose sitemaps list millions of URLs, audited with the default settings: the
# sitemaps may not spend the storage budget before the pages. `dustpan audit` of the
# generated fixture site of PAGES pages (listed in PAGES / 50,000 sitemaps of 50,000
# URLs each, under one sitemap index), served on loopback by `dustpan-fixture`, both
# built in release. Not part of CI (minutes and gigabytes).
#
#   bash scripts/bench-big-sitemaps.sh [PAGES]      # PAGES defaults to 5000000
#   BENCH_BIN=DIR bash scripts/bench-big-sitemaps.sh  # use DIR's dustpan and
#                                                     # dustpan-fixture, no build
#
# Default settings (--max-urls 50000, --max-db-bytes 2 GiB) but the --resolve overrides
# and the fixture's CA. Prints what the audit printed, then its wall seconds, peak RSS,
# the database's peak size on disk (file and write-ahead log, sampled while it ran) and
# its size at the end; fails when the audit fetched no page, or stopped at its storage
# budget, or the database grew past it. Nothing leaves the machine: the fixture binds
# 127.0.0.1 and every host name is --resolve'd to it.
set -euo pipefail
cd "$(dirname "$0")/.."

pages=${1:-5000000}
if ! [[ $pages =~ ^[0-9]+$ ]] || ((pages < 1)); then
    echo "usage: bash scripts/bench-big-sitemaps.sh [PAGES]" >&2
    exit 2
fi
budget=$((2 << 30))

# shellcheck source=scripts/bench-fixture.sh
source scripts/bench-fixture.sh
bench_binaries
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dustpan-bench.XXXXXX")
bench_fixture "$pages" "$tmp"
echo "==> fixture (pid $fixture_pid) on 127.0.0.1:$port, $pages pages in $(((pages + 49999) / 50000)) sitemaps" >&2

resolve=()
for host in example.test www.example.test blog.example.test; do
    resolve+=(--resolve "$host:$port:127.0.0.1")
done
db="$tmp/bench.sqlite"
audit=("$bin/dustpan" audit https://example.test/ --db "$db" "${resolve[@]}" --ca-cert "$tmp/ca.pem" -q)
echo "==> ${audit[*]}" >&2

start_ns=$(date +%s%N)
"${audit[@]}" >"$tmp/audit.txt" &
pid=$!
rss_kib=0
peak_disk=0
while kill -0 "$pid" 2>/dev/null; do
    hwm=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
    [[ -n $hwm ]] && ((hwm > rss_kib)) && rss_kib=$hwm
    # Before the audit creates them, neither file exists: stat fails (pipefail).
    size=$({ stat -c %s "$db" "$db-wal" 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }')
    ((size > peak_disk)) && peak_disk=$size
    sleep 0.2
done
status=0
wait "$pid" || status=$?
end_ns=$(date +%s%N)
cat "$tmp/audit.txt"
fetched=$(sed -n 's/^  Pages *\([0-9]*\) fetched.*/\1/p' "$tmp/audit.txt")
end_disk=$({ stat -c %s "$db" "$db-wal" 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }')

awk -v pages="$pages" -v fetched="${fetched:-0}" -v ns=$((end_ns - start_ns)) -v rss="$rss_kib" \
    -v peak="$peak_disk" -v end="$end_disk" -v budget="$budget" 'BEGIN {
    printf "\nURLs in sitemaps  %d\n", pages
    printf "pages fetched     %d\n", fetched
    printf "wall seconds      %.1f\n", ns / 1e9
    printf "peak RSS          %.1f MiB\n", rss / 1024
    printf "database on disk  %.1f MiB at most while it ran, %.1f MiB at the end (budget %.0f MiB)\n", peak / 1048576, end / 1048576, budget / 1048576
}'
if ((status != 0)); then
    echo "the audit exited with status $status" >&2
    exit 1
fi
if [[ -z $fetched ]] || ((fetched == 0)); then
    echo "the audit fetched no page" >&2
    exit 1
fi
if grep -q 'max_db_bytes' "$tmp/audit.txt"; then
    echo "the audit stopped at its storage budget" >&2
    exit 1
fi
if ((peak_disk > budget)); then
    echo "the database grew past the budget" >&2
    exit 1
fi
