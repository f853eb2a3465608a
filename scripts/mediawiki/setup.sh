#!/usr/bin/env bash
# Builds the MediaWiki proving ground from scratch and serves it on 127.0.0.1:8680.
#
#   bash scripts/mediawiki/setup.sh [STATE_DIR]      (default /tmp/dustpan-mediawiki)
#
# Debian's mediawiki 1.39 package, SQLite, a private Apache (its own httpd.conf, pid
# file and logs under STATE_DIR; the system Apache is not used), ~390 seeded pages.
# Idempotent: stops a previous server on STATE_DIR, wipes STATE_DIR and rebuilds.
# Everything is on loopback. See docs/mediawiki.md.
set -euo pipefail

S=${1:-/tmp/dustpan-mediawiki}
HERE=$(cd "$(dirname "$0")" && pwd)
MW=/usr/share/mediawiki
PORT=8680
BASE=http://127.0.0.1:$PORT
t0=${EPOCHREALTIME/[,]/.}
step() { awk -v a="$t0" -v b="${EPOCHREALTIME/[,]/.}" -v m="$*" 'BEGIN { printf "[%6.1fs] %s\n", b - a, m }'; }

if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: run as root (it installs packages and runs scripts as www-data)" >&2
    exit 1
fi
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac
if [ "$S" = / ]; then echo "setup.sh: refusing STATE_DIR=/" >&2; exit 1; fi

# 1. Packages (pitfall 1: php8.2-sqlite3 must be named explicitly).
need=()
for p in mediawiki php8.2-sqlite3 apache2 libapache2-mod-php sqlite3 curl; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
PHP_MOD=$(ls /usr/lib/apache2/modules/libphp8*.so | head -1)

# 2. Stop a previous instance and wipe the state directory.
bash "$HERE/stop.sh" "$S" >/dev/null 2>&1 || true
if [ -e "$S" ] && [ ! -e "$S/.dustpan-mediawiki" ] && [ ! -e "$S/conf/httpd.conf" ] && [ -n "$(ls -A "$S")" ]; then
    echo "setup.sh: $S exists and is not a proving-ground state directory; not wiping it" >&2
    exit 1
fi
rm -rf "$S"
mkdir -p "$S"/{conf,data,cache,images,htdocs/sitemap,run,log,seed,truth}
echo "state directory of scripts/mediawiki/setup.sh (wiped and rebuilt by it)" >"$S/.dustpan-mediawiki"
chown www-data "$S"/{conf,data,cache,images,htdocs/sitemap,run,log}
runuser -u www-data -- test -w "$S/data" || {
    echo "setup.sh: www-data cannot reach $S (every parent directory must be searchable)" >&2
    exit 1
}

M() { runuser -u www-data -- env MW_CONFIG_FILE="$S/conf/LocalSettings.php" php "$MW/maintenance/$1" "${@:2}"; }

# 3. Install (as www-data: pitfall 4; --confpath must exist: pitfall 5).
step "install.php"
M install.php --quiet --dbtype=sqlite --dbpath="$S/data" --dbname=mwnotes --server="$BASE" \
    --scriptpath=/w --confpath="$S/conf" --pass='Adminpass-12345' --lang=en 'Notes Wiki' Admin >"$S/log/install.log"
test -s "$S/conf/LocalSettings.php" || { echo "install.php wrote no LocalSettings.php" >&2; exit 1; }
cat >"$S/conf/extra.inc" <<EOF

# --- Dustpan proving ground (scripts/mediawiki/setup.sh) ---
\$wgArticlePath = "/wiki/\$1";
\$wgUsePathInfo = true;
\$wgCacheDirectory = "$S/cache";
\$wgUploadDirectory = "$S/images";
\$wgJobRunRate = 0;
\$wgShowExceptionDetails = true;
# MediaWiki puts rel="nofollow" on external-style links ([http://... x], {{fullurl:}}),
# even to its own server; a wiki that links to itself that way usually exempts itself.
\$wgNoFollowDomainExceptions = [ "127.0.0.1", "mediawiki.org" ];
EOF
cat "$S/conf/extra.inc" >>"$S/conf/LocalSettings.php"

# 4. Seed: one revision per page, imported without link updates (pitfall 7).
step "seed dump"
python3 "$HERE/gen_seed.py" seed "$S/seed"
chmod -R a+rX "$S/seed"
step "importDump.php"
M importDump.php --no-updates "$S/seed/seed.xml" >"$S/log/import.log" 2>&1

# 5. Second revisions (old and current oldid), then pages that link to revision ids.
step "second revisions"
for f in "$S"/seed/rev2/*.txt; do
    n=$(basename "$f" .txt)
    M edit.php -u Admin -s "second revision" "Article $n" <"$f" >>"$S/log/edit.log"
done
python3 "$HERE/gen_seed.py" links "$S"
M edit.php -u Admin -s "reading list" "Reading list" <"$S/seed/reading_list.txt" >>"$S/log/edit.log"
M edit.php -u Admin -s "welcome" "Main Page" <"$S/seed/main_page.txt" >>"$S/log/edit.log"

# 6. Links, categories, jobs (pitfall 6: SQLite queue in batches), statistics, RC.
step "refreshLinks.php"
M refreshLinks.php >"$S/log/refreshlinks.log" 2>&1
step "runJobs.php"
for _ in $(seq 1 200); do
    [ "$(M showJobs.php)" = 0 ] && break
    M runJobs.php --maxjobs 100 >>"$S/log/jobs.log" 2>&1 || true
done
M initSiteStats.php --update >"$S/log/sitestats.log"
M rebuildrecentchanges.php >"$S/log/rc.log"

# 7. Sitemap and robots.txt.
step "generateSitemap.php"
M generateSitemap.php --fspath="$S/htdocs/sitemap" --urlpath=/sitemap/ --server="$BASE" \
    --compress=no --skip-redirects >"$S/log/sitemap.log"
cat >"$S/htdocs/robots.txt" <<EOF
User-agent: *
Disallow:

Sitemap: $BASE/sitemap/sitemap-index-mwnotes.xml
EOF

# 8. The private Apache.
mods=""
for m in mpm_prefork authz_core mime dir alias rewrite env; do
    mods+="LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so"$'\n'
done
cat >"$S/conf/httpd.conf" <<EOF
# Private Apache for the Dustpan MediaWiki proving ground (written by setup.sh).
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $S/run/httpd.pid
DefaultRuntimeDir $S/run
Mutex file:$S/run
User www-data
Group www-data
ErrorLog $S/log/error.log
LogFormat "%h %t \"%r\" %>s %b %D" timed
CustomLog $S/log/access.log timed
${mods}LoadModule php_module $PHP_MOD
TypesConfig /etc/mime.types
StartServers 4
MinSpareServers 2
MaxSpareServers 8
MaxRequestWorkers 16
KeepAlive On
<FilesMatch "\.php\$">
    SetHandler application/x-httpd-php
</FilesMatch>
SetEnv MW_CONFIG_FILE $S/conf/LocalSettings.php
DirectoryIndex index.php index.html
DocumentRoot $S/htdocs
<Directory />
    Require all denied
    AllowOverride None
</Directory>
<Directory $S/htdocs>
    Require all granted
</Directory>
Alias /w $MW
<Directory $MW>
    Options FollowSymLinks
    Require all granted
</Directory>
<DirectoryMatch "^$MW/(includes|maintenance|languages|vendor|tests|cache|mw-config|extensions|extensions-core)/">
    Require all denied
</DirectoryMatch>
<Directory /var/lib/mediawiki>
    Options FollowSymLinks
    Require all granted
</Directory>
AllowEncodedSlashes NoDecode
RewriteEngine On
RewriteRule ^/wiki(/.*)?\$ $MW/index.php [L]
RewriteRule ^/?\$ $MW/index.php [L]
EOF
step "starting Apache on $BASE"
apache2 -f "$S/conf/httpd.conf" -k start
for _ in $(seq 1 50); do
    curl -s -o /dev/null "$BASE/robots.txt" && break
    sleep 0.2
done

# 9. What the truth needs besides the database: the namespace and special-page tables.
curl -sf "$BASE/w/api.php?action=query&meta=siteinfo&siprop=general%7Cnamespaces%7Cnamespacealiases%7Cspecialpagealiases&format=json&formatversion=2" \
    -o "$S/truth/siteinfo.json"
main=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/wiki/Main_Page")
pages=$(sqlite3 -readonly "$S/data/mwnotes.sqlite" 'select count(*) from page')
redirects=$(sqlite3 -readonly "$S/data/mwnotes.sqlite" 'select count(*) from page where page_is_redirect=1')
revs=$(sqlite3 -readonly "$S/data/mwnotes.sqlite" 'select count(*) from revision')
locs=$(cat "$S"/htdocs/sitemap/sitemap-mwnotes-*.xml | grep -o '<loc>' | wc -l)
step "ready: $BASE/ (Main Page: HTTP $main); $pages pages ($redirects redirects), $revs revisions, $locs sitemap URLs; state in $S"
