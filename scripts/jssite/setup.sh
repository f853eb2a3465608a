#!/usr/bin/env bash
# Builds the client-rendered proving ground and serves it on 127.0.0.1:8720: npm's own
# CLI documentation (about 90 pages) rendered in the browser by docsify, a maintained
# documentation generator that builds every page with JavaScript. The served HTML of
# every route is the same empty shell (`<div id="app"></div>`); the title, the heading,
# the content, the sidebar and every link between pages are written by script after the
# page has fetched the route's Markdown.
#
#   bash scripts/jssite/setup.sh [STATE_DIR] [--reset]      (default /tmp/dustpan-jssite)
#
# Both packages come from the npm registry at the versions package-lock.json pins
# (docsify for the renderer, npm for its docs/content/*.md and README.md), installed with
# `npm ci --ignore-scripts` (no install script runs). gen_site.py assembles the served
# tree; a private nginx (its own nginx.conf, pid file and logs under STATE_DIR) serves it
# with the fallback a single-page app needs: a file that exists is served, a Markdown
# file that does not is 404, and every other path answers 200 with the shell, whose
# router then renders the route (history mode, real paths rather than #/ fragments).
# Idempotent: with the site built and nginx answering it only checks; --reset (or a
# changed package.json, lock, index.html or script) rebuilds from scratch.
set -euo pipefail

S=/tmp/dustpan-jssite
reset=0
for a in "$@"; do
    case "$a" in
        --reset) reset=1 ;;
        -*) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
        *) S=$a ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=8720
BASE=http://127.0.0.1:$PORT
t0=${EPOCHREALTIME/[,]/.}
step() { awk -v a="$t0" -v b="${EPOCHREALTIME/[,]/.}" -v m="$*" 'BEGIN { printf "[%6.1fs] %s\n", b - a, m }'; }

if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: run as root (it installs packages)" >&2
    exit 1
fi
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac
if [ "$S" = / ]; then echo "setup.sh: refusing STATE_DIR=/" >&2; exit 1; fi

# 1. Packages.
need=()
for p in nginx curl npm; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ] && ! { [ "${need[*]}" = npm ] && command -v npm >/dev/null; }; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi

# 2. Already built and serving? (the inputs' hash is the build's stamp)
stamp=$(cat "$HERE/package.json" "$HERE/package-lock.json" "$HERE/index.html" "$HERE/gen_site.py" "$HERE/setup.sh" |
    sha256sum | cut -c1-16)
if [ "$reset" = 0 ] && [ -f "$S/.dustpan-jssite" ] && [ "$(cat "$S/.dustpan-jssite")" = "$stamp" ] &&
    curl -sf -o /dev/null "$BASE/"; then
    step "already built and serving: $BASE/ (state in $S; --reset rebuilds)"
    exit 0
fi

# 3. Stop a previous instance and wipe the state directory.
bash "$HERE/stop.sh" "$S" >/dev/null 2>&1 || true
if [ -e "$S" ] && [ ! -e "$S/.dustpan-jssite" ] && [ -n "$(ls -A "$S")" ]; then
    echo "setup.sh: $S exists and is not a proving-ground state directory; not wiping it" >&2
    exit 1
fi
rm -rf "$S"
mkdir -p "$S"/{conf,run,log,tmp,npm,public}

# 4. The packages at their locked versions, and the served tree.
step "npm ci (docsify and npm, as package-lock.json pins them)"
cp "$HERE/package.json" "$HERE/package-lock.json" "$S/npm/"
(cd "$S/npm" && npm ci --ignore-scripts --no-audit --no-fund >"$S/log/npm.log" 2>&1) || {
    cat "$S/log/npm.log" >&2
    exit 1
}
step "gen_site.py"
pages=$(python3 "$HERE/gen_site.py" "$S/npm/node_modules" "$HERE/index.html" "$S/public")
chmod -R a+rX "$S/public"

# 5. The private nginx, with a single-page app's fallback.
cat >"$S/conf/nginx.conf" <<NGINX
# Private nginx for the Dustpan client-rendered proving ground (written by setup.sh).
worker_processes 2;
pid $S/run/nginx.pid;
error_log $S/log/error.log;
user www-data;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    types { text/markdown md; }
    default_type application/octet-stream;
    log_format timed '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent \$request_time';
    access_log $S/log/access.log timed;
    client_body_temp_path $S/tmp/body;
    proxy_temp_path $S/tmp/proxy;
    fastcgi_temp_path $S/tmp/fastcgi;
    uwsgi_temp_path $S/tmp/uwsgi;
    scgi_temp_path $S/tmp/scgi;
    sendfile on;
    keepalive_timeout 65;
    server {
        listen 127.0.0.1:$PORT;
        server_name 127.0.0.1;
        root $S/public;
        location ~ \.md\$ {
            try_files \$uri =404;
        }
        location / {
            try_files \$uri /index.html;
        }
    }
}
NGINX
nginx -t -q -e "$S/log/error.log" -c "$S/conf/nginx.conf"
step "starting nginx on $BASE"
setsid nginx -e "$S/log/error.log" -c "$S/conf/nginx.conf"
for _ in $(seq 1 50); do
    curl -s -o /dev/null "$BASE/" && break
    sleep 0.1
done
echo "$stamp" >"$S/.dustpan-jssite"

# 6. The guard: nginx serves files only (no proxy, no resolver) and listens on loopback
# only; the shell loads nothing from another host (the content's own links to other
# sites stay links: the audit does not follow them, and a rendered page's requests out
# of the audit's scope are refused).
listen=$(ss -ltnp 2>/dev/null | awk -v p=":$PORT" '$4 ~ p { print $4 }' | sort -u | tr '\n' ' ')
case "$listen" in 127.0.0.1:$PORT" ") ;; *) echo "setup.sh: nginx listens on '$listen', want 127.0.0.1:$PORT only" >&2; exit 1 ;; esac
if grep -oE '(href|src)="(https?:)?//[^"]*' "$S/public/index.html" | grep .; then
    echo "setup.sh: the shell loads from another host (above)" >&2
    exit 1
fi
home=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")
route=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/commands/npm-install")
missing=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/commands/no-such-page.md")
step "ready: $BASE/ (home: HTTP $home, a route: HTTP $route, a missing .md: HTTP $missing); $pages pages of Markdown; state in $S"
