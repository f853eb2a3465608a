#!/usr/bin/env bash
# Rendering benchmark: `dustpan audit --render` of the generated fixture site, served
# on loopback by `dustpan-fixture --generated PAGES`, every HTML page rendered in
# headless Chromium (scripts/setup-render.sh installs it).
#
#   bash scripts/bench-render.sh [PAGES] [CONCURRENCY]   # defaults: 300 pages, 4 tabs
#   BENCH_BIN=DIR bash scripts/bench-render.sh           # DIR's dustpan and
#                                                        # dustpan-fixture, no build
#
# Prints pages fetched and rendered, wall seconds, rendered pages/s, and the peak
# memory of the audit and its browser together (the proportional set size summed over
# the audit's process tree, so that pages Chromium's processes share count once,
# sampled every 100 ms), with the audit's own peak resident memory beside it. Nothing
# leaves the machine: the fixture binds 127.0.0.1, every host name is --resolve'd to
# it, and every request a rendered page makes passes the audit's scope.
set -euo pipefail
cd "$(dirname "$0")/.."

pages=${1:-300}
concurrency=${2:-4}
if ! [[ $pages =~ ^[0-9]+$ && $concurrency =~ ^[0-9]+$ ]] || ((pages < 1 || concurrency < 1)); then
    echo "usage: bash scripts/bench-render.sh [PAGES] [CONCURRENCY]" >&2
    exit 2
fi
bash scripts/setup-render.sh

# shellcheck source=scripts/bench-fixture.sh
source scripts/bench-fixture.sh
bench_binaries
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dustpan-bench-render.XXXXXX")
bench_fixture "$pages" "$tmp"
echo "==> fixture (pid $fixture_pid) on 127.0.0.1:$port, $pages pages" >&2

resolve=()
for host in example.test www.example.test blog.example.test; do
    resolve+=(--resolve "$host:$port:127.0.0.1")
done
db="$tmp/bench.sqlite"
audit=("$bin/dustpan" audit https://example.test/ --db "$db" "${resolve[@]}"
    --ca-cert "$tmp/ca.pem" --max-urls $((pages * 2 + 1000)) --no-probes
    --render --render-concurrency "$concurrency" -q)
echo "==> ${audit[*]}" >&2

# Runs the audit and samples the resident memory of its whole process tree (the audit
# and every Chromium process it started).
python3 - "$tmp/measure.txt" "${audit[@]}" <<'PY'
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
def field_kib(path, name):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
def rss_kib(pid):
    return field_kib(f"/proc/{pid}/status", "VmRSS:")
def pss_kib(pid):
    # Proportional: pages Chromium's processes share are counted once over the tree.
    return field_kib(f"/proc/{pid}/smaps_rollup", "Pss:")
def tree(root):
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(children.get(p, []))
    return seen
start = time.monotonic()
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
peak_all = peak_audit = 0
while proc.poll() is None:
    pids = tree(proc.pid)
    peak_all = max(peak_all, sum(pss_kib(p) for p in pids))
    peak_audit = max(peak_audit, rss_kib(proc.pid))
    time.sleep(0.1)
wall = time.monotonic() - start
sys.stdout.write(proc.stdout.read())
with open(out, "w") as f:
    f.write(f"{wall} {peak_all} {peak_audit} {proc.returncode}\n")
PY
read -r wall peak_all peak_audit code <"$tmp/measure.txt"
[[ $code == 0 ]] || { echo "the audit exited with $code" >&2; exit 1; }
read -r fetched rendered settled < <(python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
fetched = c.execute("SELECT count(*) FROM fetches WHERE status IS NOT NULL").fetchone()[0]
rendered, settled = c.execute(
    "SELECT count(*), coalesce(sum(outcome = 'rendered'), 0) FROM renders").fetchone()
print(fetched, rendered, settled)
PY
)
awk -v pages="$pages" -v c="$concurrency" -v fetched="$fetched" -v rendered="$rendered" \
    -v settled="$settled" -v wall="$wall" -v all="$peak_all" -v own="$peak_audit" 'BEGIN {
    printf "\nsite pages          %d\n", pages
    printf "render concurrency  %d\n", c
    printf "pages fetched       %d\n", fetched
    printf "pages rendered      %d (%d settled)\n", rendered, settled
    printf "wall seconds        %.2f\n", wall
    printf "rendered pages/s    %.1f\n", rendered / wall
    printf "peak memory         %.1f MiB PSS (audit + browser), %.1f MiB RSS (audit alone)\n", all / 1024, own / 1024
}'
