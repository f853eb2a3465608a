#!/usr/bin/env bash
# Builds the django-oscar proving ground and serves it on 127.0.0.1:8700.
#
#   bash scripts/oscar/setup.sh [STATE_DIR] [--reset]      (default /tmp/dustpan-oscar)
#
# django-oscar 4.2 from PyPI in a virtualenv (STATE_DIR/venv), its sandbox-style
# settings (shop/settings.py: SQLite, Whoosh search index, DEBUG off), seeded through
# Oscar's own models (seed.py), indexed with haystack's update_index, served by waitress
# on 127.0.0.1 only, detached (setsid, pid file). Every Python process of the shop loads
# guard/sitecustomize.py, which refuses and logs (STATE_DIR/log/guard.log) any
# connection or name lookup outside loopback. Idempotent: with the shop seeded and
# answering it only checks; --reset rebuilds the database and index (the venv is kept).
set -euo pipefail

S=/tmp/dustpan-oscar
reset=0
for a in "$@"; do
    case "$a" in
        --reset) reset=1 ;;
        -*) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
        *) S=$a ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=8700
BASE=http://127.0.0.1:$PORT
REQUIREMENTS="django-oscar==4.2.1 sorl-thumbnail==13.4.0 Whoosh==2.7.4 waitress==3.0.2"
t0=${EPOCHREALTIME/[,]/.}
step() { awk -v a="$t0" -v b="${EPOCHREALTIME/[,]/.}" -v m="$*" 'BEGIN { printf "[%6.1fs] %s\n", b - a, m }'; }

if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: run as root (it installs packages)" >&2
    exit 1
fi
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac
if [ "$S" = / ]; then echo "setup.sh: refusing STATE_DIR=/" >&2; exit 1; fi
if [ -e "$S" ] && [ ! -e "$S/.dustpan-oscar" ] && [ -n "$(ls -A "$S")" ]; then
    echo "setup.sh: $S exists and is not a proving-ground state directory; not wiping it" >&2
    exit 1
fi
mkdir -p "$S"
touch "$S/.dustpan-oscar"

# 1. Packages: curl and python3-venv from Debian, the shop from PyPI.
need=()
for p in curl python3-venv; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
PY=$S/venv/bin/python
if [ ! -x "$PY" ] || [ "$(cat "$S/venv/.requirements" 2>/dev/null)" != "$REQUIREMENTS" ]; then
    step "pip install $REQUIREMENTS"
    rm -rf "$S/venv"
    python3 -m venv "$S/venv"
    "$S/venv/bin/pip" install -q $REQUIREMENTS
    echo "$REQUIREMENTS" >"$S/venv/.requirements"
fi

export OSCAR_GROUND_STATE=$S DJANGO_SETTINGS_MODULE=shop.settings
export PYTHONPATH=$HERE/guard:$HERE OSCAR_GROUND_GUARD_LOG=$S/log/guard.log PYTHONDONTWRITEBYTECODE=1
D() { "$PY" -m django "$@"; }

# 2. Already seeded and serving?
stamp=$(cat "$HERE/seed.py" "$HERE/shop/settings.py" "$HERE/truth_dump.py" | sha256sum | cut -c1-16)
if [ "$reset" = 0 ] && [ "$(cat "$S/.dustpan-oscar")" = "$stamp" ] && [ -f "$S/truth/truth.json" ] &&
    curl -sf -o /dev/null "$BASE/catalogue/"; then
    step "already seeded and serving: $BASE/ (state in $S; --reset rebuilds)"
    exit 0
fi

# 3. Stop a previous server, wipe the shop's data (not the venv).
bash "$HERE/stop.sh" "$S" >/dev/null 2>&1 || true
rm -rf "$S"/{data,whoosh,media,static,mail,run,log,truth}
mkdir -p "$S"/{data,whoosh,media,static,mail,run,log,truth}

step "migrate"
D migrate -v0 >"$S/log/migrate.log" 2>&1 || { tail -5 "$S/log/migrate.log" >&2; exit 1; }
step "collectstatic"
D collectstatic --noinput -v0 >"$S/log/collectstatic.log" 2>&1
step "seed.py"
"$PY" -W ignore "$HERE/seed.py" | tee "$S/log/seed.log"
step "update_index"
D update_index -v0 >"$S/log/index.log" 2>&1

# 4. The server, detached, loopback only.
step "starting waitress on $BASE"
# One thread: every product view writes Oscar's analytics row inside the request's
# transaction (ATOMIC_REQUESTS), and SQLite answers a second thread's read-then-write
# "database is locked" at once, whatever the timeout (HTTP 500 under a crawl).
(cd "$S" && setsid "$S/venv/bin/waitress-serve" --listen=127.0.0.1:$PORT --threads=1 \
    shop.wsgi:application >"$S/log/server.log" 2>&1 &)
for _ in $(seq 1 100); do
    curl -sf -o /dev/null "$BASE/catalogue/" && break
    sleep 0.2
done
# setsid may fork: record the process that listens (the leader of its own group).
ss -ltnp 2>/dev/null | awk -v p=":$PORT\$" '$4 ~ p' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 >"$S/run/server.pid"

# 5. The truth from the shop's data and Oscar's own search forms.
step "truth_dump.py"
"$PY" -W ignore "$HERE/truth_dump.py" | tee "$S/log/truth_dump.log"
echo "$stamp" >"$S/.dustpan-oscar"

# 6. The guard: listening on loopback only, and nothing outside it was tried.
listen=$(ss -ltn 2>/dev/null | awk -v p=":$PORT\$" '$4 ~ p { print $4 }' | sort -u | tr '\n' ' ')
case "$listen" in "127.0.0.1:$PORT ") ;; *) echo "setup.sh: the shop listens on '$listen', want 127.0.0.1:$PORT only" >&2; exit 1 ;; esac
if [ -s "$S/log/guard.log" ]; then
    echo "setup.sh: connections outside loopback were attempted (refused):" >&2
    head -5 "$S/log/guard.log" >&2
fi
home=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/catalogue/")
step "ready: $BASE/catalogue/ (HTTP $home); state in $S"
