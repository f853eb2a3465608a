#!/usr/bin/env bash
# Builds the Hugo + nginx proving ground and serves it on 127.0.0.1:8690.
#
#   bash scripts/hugo/setup.sh [STATE_DIR] [--reset]      (default /tmp/dustpan-hugo)
#
# Debian's hugo and nginx packages; the site (config, a small theme, ~80 pages of
# content) is written by gen_site.py from a fixed seed and built by hugo in a network
# namespace of its own (`unshare -n`: no interface but loopback, so the build reaches
# nothing); a private nginx (its own nginx.conf, pid file and logs under STATE_DIR; the
# system nginx is not used) serves the built tree with Debian's default
# `try_files $uri $uri/ =404`. Idempotent: with the site built and nginx answering it
# does nothing but check; --reset (or a changed generator) rebuilds from scratch.
set -euo pipefail

S=/tmp/dustpan-hugo
reset=0
for a in "$@"; do
    case "$a" in
        --reset) reset=1 ;;
        -*) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
        *) S=$a ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=8690
BASE=http://127.0.0.1:$PORT
t0=${EPOCHREALTIME/[,]/.}
step() { awk -v a="$t0" -v b="${EPOCHREALTIME/[,]/.}" -v m="$*" 'BEGIN { printf "[%6.1fs] %s\n", b - a, m }'; }

if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: run as root (it installs packages and builds in a network namespace)" >&2
    exit 1
fi
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac
if [ "$S" = / ]; then echo "setup.sh: refusing STATE_DIR=/" >&2; exit 1; fi

# 1. Packages.
need=()
for p in hugo nginx curl; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi

# 2. Already built and serving? (the generator's hash is the build's stamp)
stamp=$(cat "$HERE/gen_site.py" "$HERE/setup.sh" | sha256sum | cut -c1-16)
if [ "$reset" = 0 ] && [ -f "$S/.dustpan-hugo" ] && [ "$(cat "$S/.dustpan-hugo")" = "$stamp" ] &&
    [ -f "$S/truth/truth.json" ] && curl -sf -o /dev/null "$BASE/robots.txt"; then
    step "already built and serving: $BASE/ (state in $S; --reset rebuilds)"
    exit 0
fi

# 3. Stop a previous instance and wipe the state directory.
bash "$HERE/stop.sh" "$S" >/dev/null 2>&1 || true
if [ -e "$S" ] && [ ! -e "$S/.dustpan-hugo" ] && [ -n "$(ls -A "$S")" ]; then
    echo "setup.sh: $S exists and is not a proving-ground state directory; not wiping it" >&2
    exit 1
fi
rm -rf "$S"
mkdir -p "$S"/{conf,run,log,tmp,truth}

# 4. The site, built without network.
step "gen_site.py"
python3 "$HERE/gen_site.py" "$S/site"
step "hugo (unshare -n: loopback only)"
(cd "$S/site" && unshare -n hugo --destination "$S/public" --cleanDestinationDir >"$S/log/hugo.log" 2>&1) || {
    cat "$S/log/hugo.log" >&2
    exit 1
}
# The truth output format is Hugo's page model, not part of the served site.
mv "$S/public/truth.json" "$S/truth/truth.json"
chmod -R a+rX "$S/public"

# 5. The private nginx.
cat >"$S/conf/nginx.conf" <<EOF
# Private nginx for the Dustpan Hugo proving ground (written by setup.sh).
worker_processes 2;
pid $S/run/nginx.pid;
error_log $S/log/error.log;
user www-data;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
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
        index index.html;
        error_page 404 /404.html;
        location / {
            try_files \$uri \$uri/ =404;
        }
    }
}
EOF
nginx -t -q -e "$S/log/error.log" -c "$S/conf/nginx.conf"
step "starting nginx on $BASE"
setsid nginx -e "$S/log/error.log" -c "$S/conf/nginx.conf"
for _ in $(seq 1 50); do
    curl -s -o /dev/null "$BASE/robots.txt" && break
    sleep 0.1
done
echo "$stamp" >"$S/.dustpan-hugo"

# 6. The guard: nginx serves files only (no proxy, no resolver), listens on loopback
# only, and the built site names no other host in a link it serves.
listen=$(ss -ltnp 2>/dev/null | awk -v p=":$PORT" '$4 ~ p { print $4 }' | sort -u | tr '\n' ' ')
case "$listen" in 127.0.0.1:$PORT" ") ;; *) echo "setup.sh: nginx listens on '$listen', want 127.0.0.1:$PORT only" >&2; exit 1 ;; esac
if grep -rhoE '(href|src)="(https?:)?//[^"]*' "$S/public" | grep -vE '="(https?:)?//127\.0\.0\.1:'"$PORT"'[/"]' | sort -u | head -5 | grep .; then
    echo "setup.sh: the built site links to another host (above)" >&2
    exit 1
fi

pages=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pages"]))' "$S/truth/truth.json")
files=$(find "$S/public" -type f | wc -l)
home=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")
step "ready: $BASE/ (home: HTTP $home); $pages Hugo pages, $files files served; state in $S"
