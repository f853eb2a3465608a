#!/usr/bin/env bash
# Installs what the benchmarks need beyond the Rust toolchain on Debian 12: wget2, the
# peer crawler `scripts/bench-crawl.sh` measures in the same run on the same site, and
# GNU time for CPU seconds and peak RSS. Skipped when they are there already.
set -euo pipefail

pkgs=(wget2 time)
missing=()
for p in "${pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
((${#missing[@]})) || exit 0

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "==> apt-get install ${missing[*]}" >&2
apt_install() {
    "${sudo[@]}" apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
            -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}"
}
# Another apt may hold the lock on a fresh machine: retry once.
apt_install || { sleep 20; apt_install; }
