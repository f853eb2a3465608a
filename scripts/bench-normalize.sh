#!/usr/bin/env bash
# Streams N generated URLs (default 10,000,000) through `dustpan normalize` and prints
# URLs per second and peak RSS, to show that memory stays flat however long the input.
# Usage: bash scripts/bench-normalize.sh [N] [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
preset=${2:-seo}
cargo build --release --quiet --bin dustpan
bin=target/release/dustpan

generate() {
  awk -v n="$n" 'BEGIN {
    split("products shoes running Sale news 2024 article category blog help", w, " ");
    for (i = 0; i < n; i++) {
      host = (i % 3 == 0) ? "www.example.com" : "example.com";
      printf "%s://%s/%s/%s/%d/%s", (i % 4 ? "https" : "http"), host, w[i % 10 + 1], w[(i / 10) % 10 + 1], i, (i % 7 == 0 ? "index.html" : "");
      if (i % 2) printf "?id=%d&sort=price", i % 1000;
      if (i % 5 == 0) printf "%sutm_source=mail", (i % 2 ? "&" : "?");
      if (i % 11 == 0) printf "#top";
      printf "\n";
    }
  }'
}

peak_file=$(mktemp)
trap 'rm -f "$peak_file"' EXIT
start=$(date +%s.%N)
generate | "$bin" normalize --preset "$preset" > /dev/null &
pid=$!
peak=0
# Poll the normalizer's peak RSS (VmHWM) while it runs.
npid=$(pgrep -n -f "$bin normalize" || true)
while kill -0 "$pid" 2>/dev/null; do
  if [ -n "$npid" ] && [ -r "/proc/$npid/status" ]; then
    hwm=$(awk '/VmHWM/ {print $2}' "/proc/$npid/status" 2>/dev/null || echo 0)
    [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
  else
    npid=$(pgrep -n -f "$bin normalize" || true)
  fi
  sleep 0.2
done
wait "$pid"
end=$(date +%s.%N)
awk -v n="$n" -v s="$start" -v e="$end" -v p="$peak" -v preset="$preset" 'BEGIN {
  t = e - s;
  printf "normalize --preset %s: %d URLs in %.1f s (%.0f URLs/s, generator included), peak RSS %.1f MB\n", preset, n, t, n / t, p / 1024
}'
