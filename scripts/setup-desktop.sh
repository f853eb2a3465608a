#!/usr/bin/env bash
# Installs what the desktop app needs to build, run and be tested on Debian 12:
# webkit2gtk and friends (build), Xvfb + WebKitWebDriver + ImageMagick (window,
# end-to-end tests, screenshots), nginx with its perl module, Apache and PHP (the fix-file
# tests load the redirect maps and the URL-variant rules into the real servers, over
# HTTPS too with an openssl certificate, and read the WordPress CSV with PHP),
# tauri-driver, and the UI's npm packages.
# Each step is skipped when its result is already there, so a warm machine pays nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
    libayatana-appindicator3-dev librsvg2-dev)
run_pkgs=(xvfb xauth webkit2gtk-driver imagemagick)
test_pkgs=(nginx libnginx-mod-http-perl apache2 php-cli openssl)

missing=()
for p in "${build_pkgs[@]}" "${run_pkgs[@]}" "${test_pkgs[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
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
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
    echo "==> cargo install tauri-driver" >&2
    cargo install tauri-driver --locked --version '^2'
fi

validators=crates/audit/tests/validators
if [[ ! -d $validators/node_modules ]] || [[ $validators/package-lock.json -nt $validators/node_modules/.package-lock.json ]]; then
    echo "==> npm ci ($validators: Netlify's and Vercel's own redirect parsers)" >&2
    npm --prefix "$validators" ci --no-audit --no-fund
fi

if [[ ! -d ui/node_modules ]] || [[ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]]; then
    echo "==> npm install (ui/)" >&2
    npm --prefix ui install --no-audit --no-fund
fi
