#!/usr/bin/env bash
# A site migration on the WordPress proving ground, scored: the site audited, then moved
# as its owner might move it with WordPress's own settings (the permalink structure from
# /%year%/%monthnum%/%postname%/ to /articles/%postname%/, the site renamed), audited
# again, `dustpan migrate OLD NEW`, and its mapping scored against WordPress's own
# get_permalink of every published post, page and attachment before and after (by ID).
# The settings are put back at the end.
#
#   DUSTPAN=/path/to/dustpan bash scripts/wordpress/migration.sh [--state DIR]
#
# Writes STATE_DIR/runs/migration-RUN/ (audit.sqlite, before.json, after.json,
# pairs.tsv, migration.json, migration/, score.txt).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S=/tmp/dustpan-wordpress
while [ $# -gt 0 ]; do
    case "$1" in
        --state) S=$2; shift ;;
        *) echo "migration.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
BASE=http://127.0.0.1:8710
bin=${DUSTPAN:-$ROOT/target/release/dustpan}
[ -x "$bin" ] || { echo "migration.sh: no dustpan binary (set DUSTPAN)" >&2; exit 1; }
curl -fsS -o /dev/null "$BASE/" || { echo "migration.sh: the ground is not up: bash $HERE/setup.sh" >&2; exit 1; }

wp() {
    runuser -u www-data -- env WORDPRESS_CONFIG=dustpan-wordpress HTTP_HOST=127.0.0.1:8710 \
        php -r 'define("WP_USE_THEMES", false); require "/usr/share/wordpress/wp-load.php";
                global $wp_rewrite;
                $wp_rewrite->set_permalink_structure($argv[1]);
                update_option("blogname", $argv[2]);
                flush_rewrite_rules(false);
                echo get_option("permalink_structure"), " ", get_option("blogname"), "\n";' "$1" "$2"
}
dump() { runuser -u www-data -- env WORDPRESS_CONFIG=dustpan-wordpress php "$HERE/dump.php" "$S"; }
before_structure=$(runuser -u www-data -- env WORDPRESS_CONFIG=dustpan-wordpress HTTP_HOST=127.0.0.1:8710 \
    php -r 'define("WP_USE_THEMES", false); require "/usr/share/wordpress/wp-load.php"; echo get_option("permalink_structure");')
before_name=$(runuser -u www-data -- env WORDPRESS_CONFIG=dustpan-wordpress HTTP_HOST=127.0.0.1:8710 \
    php -r 'define("WP_USE_THEMES", false); require "/usr/share/wordpress/wp-load.php"; echo get_option("blogname");')
trap 'wp "$before_structure" "$before_name" >/dev/null' EXIT

run=$S/runs/migration-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
db=$run/audit.sqlite
audit() {
    "$bin" audit "$BASE/" --db "$db" --quiet --no-dust-learning \
        --include "^https?://127\\.0\\.0\\.1:8710/" >>"$run/audit.log" 2>&1
}
dump >"$run/before.json"
audit
wp "/articles/%postname%/" "Field Notes Journal"
dump >"$run/after.json"
audit
set +e
"$bin" migrate 1 2 --db "$db" --out "$run/migration" --json >"$run/migration.json"
code=$?
set -e
[ "$code" -le 1 ] || { echo "migration.sh: dustpan migrate failed ($code)" >&2; exit 1; }
python3 - "$run/before.json" "$run/after.json" >"$run/pairs.tsv" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:3])
new = {p["id"]: p["permalink"] for p in after["posts"]}
for p in before["posts"]:
    if p["id"] in new and p["status"] == "publish":
        print(p["permalink"] + "\t" + new[p["id"]])
PY
# The new audit's clusters: a page sent to its target's preferred URL is right too.
"$bin" analyse 2 --db "$db" --members "$run/new-members.csv" >/dev/null
python3 "$ROOT/scripts/grounds/score_migration.py" "$run/pairs.tsv" "$run/migration.json" "$run/new-members.csv" | tee "$run/score.txt"
