#!/usr/bin/env bash
# Starts the ground's private MariaDB and/or Apache for STATE_DIR (built by setup.sh).
#   bash scripts/wordpress/start.sh [STATE_DIR] [db|web|all]
set -euo pipefail
S=${1:-/tmp/dustpan-wordpress}
what=${2:-all}
if [ "$what" = db ] || [ "$what" = all ]; then
    if ! mariadb-admin --defaults-file="$S/conf/my.cnf" -uroot ping >/dev/null 2>&1; then
        setsid mariadbd --defaults-file="$S/conf/my.cnf" </dev/null >>"$S/log/mariadb.out" 2>&1 &
        for _ in $(seq 1 100); do
            mariadb-admin --defaults-file="$S/conf/my.cnf" -uroot ping >/dev/null 2>&1 && break
            sleep 0.2
        done
        mariadb-admin --defaults-file="$S/conf/my.cnf" -uroot ping >/dev/null
    fi
fi
if [ "$what" = web ] || [ "$what" = all ]; then
    if [ -f "$S/conf/httpd.conf" ] && ! curl -s -o /dev/null http://127.0.0.1:8710/robots.txt; then
        apache2 -f "$S/conf/httpd.conf" -k start
        for _ in $(seq 1 50); do
            curl -s -o /dev/null http://127.0.0.1:8710/robots.txt && break
            sleep 0.2
        done
    fi
fi
