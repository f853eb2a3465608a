#!/usr/bin/env bash
# The paginated-comments scenario on the WordPress proving ground: WordPress's own
# "Break comments into pages" setting (5 top-level comments a page, newest first) turned
# on, the site audited, the report judged, the setting put back.
#
#   DUSTPAN=/path/to/dustpan bash scripts/wordpress/paged-comments.sh [--state DIR]
#
# With the setting on, WordPress writes on every post with more than one comment page a
# canonical naming the post's last comment page (`/post/comment-page-2/#comments`). The
# judge (paged_comments.py) checks, against the live site with its own requests:
#   - the report has exactly one CANON-COMMENT-PAGE finding, listing every such post
#     (found by fetching each post and reading its canonical), and no CLUSTER-CONFLICT,
#     SITEMAP-CANONICALISED, SITEMAP-NON-PREFERRED, CANON-LINKED or DUP-CONTENT finding
#     naming a comment page;
#   - each such post is its cluster's preferred URL, and its named comment page serves
#     the same visible text;
#   - no fix file moves a sitemap entry, a link or a redirect onto a comment page.
# Writes STATE_DIR/runs/paged-comments-RUN/ (audit.sqlite, export/, judge.txt).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S=/tmp/dustpan-wordpress
while [ $# -gt 0 ]; do
    case "$1" in
        --state) S=$2; shift ;;
        *) echo "paged-comments.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
BASE=http://127.0.0.1:8710
bin=${DUSTPAN:-$ROOT/target/release/dustpan}
[ -x "$bin" ] || bin=$ROOT/target/debug/dustpan
[ -x "$bin" ] || { echo "paged-comments.sh: no dustpan binary (set DUSTPAN)" >&2; exit 1; }
curl -fsS -o /dev/null "$BASE/" || { echo "paged-comments.sh: the ground is not up: bash $HERE/setup.sh" >&2; exit 1; }

# WordPress's options, through its own API, as the user the site runs as.
option() {
    runuser -u www-data -- env WORDPRESS_CONFIG=dustpan-wordpress HTTP_HOST=127.0.0.1:8710 \
        php -r 'define("WP_USE_THEMES", false); require "/usr/share/wordpress/wp-load.php";
                update_option("page_comments", (int) $argv[1]);
                update_option("comments_per_page", 5);
                update_option("default_comments_page", "newest");
                echo "page_comments=", get_option("page_comments"), "\n";' "$1"
}
trap 'option 0 >/dev/null' EXIT
option 1

run=$S/runs/paged-comments-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
echo "audit: $bin audit $BASE/ (state $run)"
"$bin" audit "$BASE/" --db "$run/audit.sqlite" --quiet \
    --include "^https?://127\\.0\\.0\\.1:8710/" >"$run/audit.log" 2>&1
id=$(sed -n 's/^Audit \([0-9][0-9]*\) finished.*/\1/p' "$run/audit.log" | tail -1)
"$bin" export "$id" --db "$run/audit.sqlite" --out "$run/export" >"$run/export.log" 2>&1
"$bin" report "$id" --db "$run/audit.sqlite" >"$run/report.txt" 2>&1
python3 "$HERE/paged_comments.py" --base "$BASE" --export "$run/export" | tee "$run/judge.txt"
