#!/usr/bin/env bash
# Installs Debian's chromium package (/usr/bin/chromium), the browser `dustpan audit
# --render` drives over the DevTools protocol, and that its tests render through.
# Skipped when it is already there, so a warm machine pays nothing.
set -euo pipefail

if ! dpkg -s chromium >/dev/null 2>&1; then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    echo "==> apt-get install chromium" >&2
    apt_install() {
        "${sudo[@]}" apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
                -o DPkg::Lock::Timeout=600 --no-install-recommends chromium
    }
    # Another apt may hold the lock on a fresh machine: retry once.
    apt_install || { sleep 20; apt_install; }
fi
