#!/usr/bin/env bash
# A site migration on the Hugo + nginx proving ground, scored: the ground's site rebuilt
# as its owner might move it (a new domain: 127.0.0.1:8691; posts moved to
# /journal/YEAR/FILE/ and the docs to /manual/FILE/; the site renamed and a banner added
# to the theme; three posts edited), both sites audited, `dustpan migrate OLD NEW`, and
# its mapping scored against Hugo's own page model (each content file's permalink on
# both builds, STATE_DIR/truth/truth.json and MIGRATED/truth.json).
#
#   bash scripts/hugo/migration.sh [--no-setup] [STATE_DIR]     (default /tmp/dustpan-hugo)
#
# DUSTPAN=/path/to/dustpan picks the binary (default target/release/dustpan). Writes
# STATE_DIR/migrated/ (site, public, nginx files, audit.sqlite, migration/, score.txt).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
S=/tmp/dustpan-hugo
setup=1
for a in "$@"; do
    case "$a" in
        --no-setup) setup=0 ;;
        -*) echo "migration.sh: unknown option $a" >&2; exit 2 ;;
        *) S=$a ;;
    esac
done
bin=${DUSTPAN:-$ROOT/target/release/dustpan}
[ -x "$bin" ] || { echo "migration.sh: no dustpan binary at $bin (set DUSTPAN)" >&2; exit 1; }
M=$S/migrated
PORT=8691
OLD=http://127.0.0.1:8690/
NEW=http://127.0.0.1:$PORT/

if [ "$setup" = 1 ]; then bash "$HERE/setup.sh" "$S"; fi
if [ -f "$M/run/nginx.pid" ]; then kill -QUIT "$(cat "$M/run/nginx.pid")" 2>/dev/null || true; sleep 0.5; fi
rm -rf "$M"
mkdir -p "$M"/{run,log,tmp}
cp -r "$S/site" "$M/site"

# The move: a new domain and title, new permalinks, a banner in the theme, three posts
# edited (a sentence added to their first paragraph).
python3 - "$M/site" "$NEW" <<'PY'
import pathlib, re, sys
site, new = pathlib.Path(sys.argv[1]), sys.argv[2]
conf = site / "hugo.toml"
text = conf.read_text()
text = re.sub(r'^baseURL = .*$', f'baseURL = "{new}"', text, flags=re.M)
text = re.sub(r'^title = .*$', 'title = "Field Notes Journal"', text, flags=re.M)
text += '\n[permalinks]\n  posts = "/journal/:year/:filename/"\n  docs = "/manual/:filename/"\n'
conf.write_text(text)
base = site / "layouts/_default/baseof.html"
base.write_text(base.read_text().replace(
    "<main>", '<div class="banner"><p>Welcome to the new Field Notes Journal: every walk, guide and note in one place, with a new look.</p></div>\n<main>', 1))
for name in sorted((site / "content/posts").glob("post-*.md"))[:3]:
    body = name.read_text()
    head, sep, rest = body.partition("---\n\n")
    name.write_text(head + sep + "Updated after our last visit, with new opening hours. " + rest)
PY
(cd "$M/site" && unshare -n hugo --destination "$M/public" --cleanDestinationDir >"$M/log/hugo.log" 2>&1) || {
    cat "$M/log/hugo.log" >&2
    exit 1
}
mv "$M/public/truth.json" "$M/truth.json"
chmod -R a+rX "$M"
sed -e "s#$S/run/#$M/run/#; s#$S/log/#$M/log/#g; s#$S/tmp/#$M/tmp/#g" \
    -e "s#root $S/public;#root $M/public;#; s#listen 127.0.0.1:8690;#listen 127.0.0.1:$PORT;#" \
    "$S/conf/nginx.conf" >"$M/nginx.conf"
grep -q "listen 127.0.0.1:$PORT;" "$M/nginx.conf"
nginx -t -q -e "$M/log/error.log" -c "$M/nginx.conf"
setsid nginx -e "$M/log/error.log" -c "$M/nginx.conf"
for _ in $(seq 50); do curl -fsS -o /dev/null "$NEW" 2>/dev/null && break; sleep 0.1; done

db=$M/audit.sqlite
"$bin" audit "$OLD" --db "$db" --include "^http://127\.0\.0\.1:8690/" -q --no-dust-learning >"$M/log/audit-old.log" 2>&1
"$bin" audit "$NEW" --db "$db" --include "^http://127\.0\.0\.1:$PORT/" -q --no-dust-learning >"$M/log/audit-new.log" 2>&1
set +e
"$bin" migrate 1 2 --db "$db" --out "$M/migration" --json >"$M/migration.json"
code=$?
set -e
[ "$code" -le 1 ] || { echo "migration.sh: dustpan migrate failed ($code)" >&2; exit 1; }
# The truth: each content file Hugo built as a regular page, at its permalink on both.
python3 - "$S/truth/truth.json" "$M/truth.json" "$OLD" "$NEW" >"$M/pairs.tsv" <<'PY'
import json, sys
def pages(path):
    d = json.load(open(path))
    rows = d["pages"] if isinstance(d, dict) else d
    return {r["file"]: r["permalink"] for r in rows if r.get("kind") == "page" and r.get("file")}
old, new = pages(sys.argv[1]), pages(sys.argv[2])
for file, link in sorted(old.items()):
    if file in new:
        print(sys.argv[3].rstrip("/") + link + "\t" + sys.argv[4].rstrip("/") + new[file])
PY
# The new audit's clusters: a page sent to its target's preferred URL is right too.
"$bin" analyse 2 --db "$db" --members "$M/new-members.csv" >/dev/null
python3 "$HERE/../grounds/score_migration.py" "$M/pairs.tsv" "$M/migration.json" "$M/new-members.csv" | tee "$M/score.txt"
kill -QUIT "$(cat "$M/run/nginx.pid")" 2>/dev/null || true
