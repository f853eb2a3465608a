#!/usr/bin/env bash
# Builds the WordPress proving ground and serves it on 127.0.0.1:8710.
#
#   bash scripts/wordpress/setup.sh [STATE_DIR] [--reset]   (default /tmp/dustpan-wordpress)
#
# Debian's wordpress 6.1 package (theme Twenty Twenty-Three), a private MariaDB (own
# datadir and socket under STATE_DIR, no TCP), a private Apache + mod_php on
# 127.0.0.1:8710 (its own httpd.conf, pid file and logs under STATE_DIR; the system
# Apache and MariaDB are not used). WordPress is installed with its own wp_install()
# and seeded through its own API (wp_insert_post, wp_insert_comment, ...) from a fixed
# seed: 60 posts, categories and tags, pages, ~500 threaded comments, renamed slugs, a
# sticky post, attachments. Nothing phones home: WP_HTTP_BLOCK_EXTERNAL, no cron, no
# update checks, no pings, no avatars; every outgoing HTTP request WordPress attempts
# is logged to STATE_DIR/log/http.log (it must stay empty of non-loopback hosts).
#
# Idempotent: when the ground answers and its seed is complete, a second run only
# checks it (seconds); --reset (or a broken state) wipes STATE_DIR and rebuilds.
set -euo pipefail

S=/tmp/dustpan-wordpress
reset=0
for a in "$@"; do
    case "$a" in
        --reset) reset=1 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) S=$a ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
WP=/usr/share/wordpress
PORT=8710
BASE=http://127.0.0.1:$PORT
CONFNAME=dustpan-wordpress           # /etc/wordpress/config-$CONFNAME.php (Debian's layout)
t0=${EPOCHREALTIME/[,]/.}
step() { awk -v a="$t0" -v b="${EPOCHREALTIME/[,]/.}" -v m="$*" 'BEGIN { printf "[%6.1fs] %s\n", b - a, m }'; }

if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: run as root (it installs packages and runs MariaDB and PHP as their users)" >&2
    exit 1
fi
case "$S" in /*) ;; *) S=$(pwd)/$S ;; esac
if [ "$S" = / ]; then echo "setup.sh: refusing STATE_DIR=/" >&2; exit 1; fi

# 1. Packages (php8.2-xml: WordPress answers its sitemap, wp-sitemap.xml, 501 without
# SimpleXML).
need=()
for p in wordpress mariadb-server mariadb-client php8.2-mysql php8.2-xml apache2 libapache2-mod-php curl; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
fi
PHP_MOD=$(ls /usr/lib/apache2/modules/libphp8*.so | head -1)

# Already built and answering? Then only check it.
if [ "$reset" = 0 ] && [ -f "$S/.seeded" ] && [ -f "$S/truth/site.json" ]; then
    if ! curl -s -o /dev/null "$BASE/robots.txt"; then
        bash "$HERE/start.sh" "$S" >/dev/null 2>&1 || true
    fi
    code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/" || true)
    if [ "$code" = 200 ]; then
        step "ready (kept): $BASE/ answers 200; state in $S (--reset rebuilds)"
        exit 0
    fi
    echo "setup.sh: $BASE/ answers '$code'; rebuilding" >&2
fi

# 2. Stop a previous instance and wipe the state directory.
bash "$HERE/stop.sh" "$S" >/dev/null 2>&1 || true
if [ -e "$S" ] && [ ! -e "$S/.dustpan-wordpress" ] && [ -n "$(ls -A "$S")" ]; then
    echo "setup.sh: $S exists and is not a proving-ground state directory; not wiping it" >&2
    exit 1
fi
rm -rf "$S"
mkdir -p "$S"/{conf,db,run,log,truth,wp-content/{themes,plugins,mu-plugins,uploads}}
echo "state directory of scripts/wordpress/setup.sh (wiped and rebuilt by it)" >"$S/.dustpan-wordpress"
chmod 755 "$S"
chown mysql:mysql "$S/db"
chown www-data "$S/log" "$S/wp-content/uploads"
chmod 1777 "$S/run"
ln -s "$WP/wp-content/themes/twentytwentythree" "$S/wp-content/themes/twentytwentythree"
cp "$HERE/loopback-guard.php" "$S/wp-content/mu-plugins/"
touch "$S/log/http.log" && chown www-data "$S/log/http.log" && chmod 666 "$S/log/http.log"

# 3. A private MariaDB: own datadir, socket only (no TCP).
cat >"$S/conf/my.cnf" <<EOC
[mariadbd]
datadir=$S/db
socket=$S/run/mysqld.sock
pid-file=$S/run/mysqld.pid
log-error=$S/log/mariadb.err
skip-networking
user=mysql
innodb_buffer_pool_size=64M
innodb_log_file_size=16M
performance_schema=OFF
[client]
socket=$S/run/mysqld.sock
EOC
step "mariadb-install-db"
mariadb-install-db --defaults-file="$S/conf/my.cnf" --auth-root-authentication-method=socket \
    --skip-test-db >"$S/log/mariadb-install.log" 2>&1
step "starting MariaDB on $S/run/mysqld.sock"
bash "$HERE/start.sh" "$S" db
SQL() { mariadb --defaults-file="$S/conf/my.cnf" -uroot "$@"; }
SQL -e "CREATE DATABASE wordpress CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
        CREATE USER 'wordpress'@'localhost' IDENTIFIED BY 'wp-proving-ground';
        GRANT ALL ON wordpress.* TO 'wordpress'@'localhost';"

# 4. WordPress configuration (Debian reads /etc/wordpress/config-NAME.php; that file
# only includes the one in STATE_DIR).
cat >"$S/conf/wp-config.php" <<EOC
<?php
// WordPress proving ground (written by scripts/wordpress/setup.sh).
define('DB_NAME', 'wordpress');
define('DB_USER', 'wordpress');
define('DB_PASSWORD', 'wp-proving-ground');
define('DB_HOST', 'localhost:$S/run/mysqld.sock');
define('DB_CHARSET', 'utf8mb4');
define('WP_HOME', '$BASE');
define('WP_SITEURL', '$BASE');
define('WP_CONTENT_DIR', '$S/wp-content');
define('WP_CONTENT_URL', '$BASE/wp-content');
// Fixed salts: a proving ground, not a production site.
foreach (['AUTH_KEY','SECURE_AUTH_KEY','LOGGED_IN_KEY','NONCE_KEY','AUTH_SALT','SECURE_AUTH_SALT','LOGGED_IN_SALT','NONCE_SALT'] as \$k) { define(\$k, 'dustpan-proving-ground-' . \$k); }
// Off the internet.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('DUSTPAN_HTTP_LOG', '$S/log/http.log');
define('WP_DEBUG', false);
EOC
chmod 644 "$S/conf/wp-config.php"
cat >"/etc/wordpress/config-$CONFNAME.php" <<EOC
<?php
// Dustpan WordPress proving ground: its configuration lives in its state directory.
require '$S/conf/wp-config.php';
EOC

# 5. Install and seed through WordPress's own API (as www-data).
P() { runuser -u www-data -- env WORDPRESS_CONFIG="$CONFNAME" php "$@"; }
step "wp_install() and seed"
P "$HERE/seed.php" "$S" >"$S/log/seed.log" 2>&1 || { tail -20 "$S/log/seed.log" >&2; exit 1; }
tail -1 "$S/log/seed.log"

# 6. The private Apache (pretty permalinks: WordPress's own .htaccess rules).
mods=""
for m in mpm_prefork authz_core mime dir alias rewrite env setenvif; do
    mods+="LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so"$'\n'
done
cat >"$S/conf/httpd.conf" <<EOC
# Private Apache for the Dustpan WordPress proving ground (written by setup.sh).
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
SetEnv WORDPRESS_CONFIG $CONFNAME
DirectoryIndex index.php index.html
DocumentRoot $WP
<Directory />
    Require all denied
    AllowOverride None
</Directory>
<Directory $WP>
    Options FollowSymLinks
    Require all granted
    RewriteEngine On
    RewriteBase /
    RewriteRule ^index\.php\$ - [L]
    RewriteCond %{REQUEST_FILENAME} !-f
    RewriteCond %{REQUEST_FILENAME} !-d
    RewriteRule . /index.php [L]
</Directory>
Alias /wp-content $S/wp-content
<Directory $S/wp-content>
    Options FollowSymLinks
    Require all granted
</Directory>
<Directory $WP/wp-content/themes>
    Require all granted
</Directory>
EOC
step "starting Apache on $BASE"
bash "$HERE/start.sh" "$S" web

# 7. What the truth needs: WordPress's own view of its objects and URLs.
P "$HERE/dump.php" "$S" >"$S/truth/site.json"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/")
touch "$S/.seeded"
outbound=$(grep -cv '127\.0\.0\.1' "$S/log/http.log" || true)
step "ready: $BASE/ (HTTP $code); $(tail -1 "$S/log/seed.log"); outgoing HTTP attempts logged: $(wc -l <"$S/log/http.log") (non-loopback: $outbound); state in $S"
