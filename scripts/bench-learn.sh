#!/usr/bin/env bash
# `dustpan learn` on a generated access log: prints the wall time and peak memory of
# learning its rules without the validation fetches (--no-fetch).
#
#   bash scripts/bench-learn.sh [LINES]        (default 1000000)
#
# The log is the combined format, generated with a fixed seed: 60,000 pages of a shop
# (products, categories with page/sort/filter parameters, a second URL pattern for
# products, tracking and session parameters, a www alias), requested by browsers and
# search-engine bots. Nothing is fetched; nothing leaves the machine.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
LINES=${1:-1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cargo build --release -q -p dustpan --manifest-path "$ROOT/Cargo.toml"
BIN=$ROOT/target/release/dustpan

python3 - "$LINES" > "$WORK/access.log" <<'PY'
import random, sys
random.seed(20261124)
n = int(sys.argv[1])
agents = [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
]
cats = ['boots', 'bags', 'belts', 'hats', 'gloves', 'scarves', 'wallets', 'shoes']
def path():
    r = random.random()
    i = random.randrange(60000)
    if r < 0.45:
        return f'/p/{i}'
    if r < 0.55:
        return f'/item?id={i}'
    if r < 0.62:
        return f'/p/{i}?utm_source={random.choice(["news", "feed", "social"])}&utm_medium=email'
    if r < 0.66:
        return f'/p/{i}?sessionid={random.randrange(1 << 40):x}'
    if r < 0.80:
        c = random.choice(cats)
        q = [f'page={random.randrange(1, 40)}']
        if random.random() < 0.5:
            q.append(f'sort={random.choice(["price", "name", "new"])}')
        if random.random() < 0.3:
            q.append(f'color={random.choice(["red", "black", "brown"])}')
        random.shuffle(q)
        return f'/c/{c}/?' + '&'.join(q)
    if r < 0.86:
        return f'/p/{i}/'
    if r < 0.90:
        return f'/P/{i}'
    return f'/c/{random.choice(cats)}/'
out = sys.stdout
for k in range(n):
    ip = f'10.{k % 250}.{(k // 250) % 250}.{k % 7}'
    ua = random.choice(agents)
    status = 200 if random.random() < 0.95 else 404
    out.write(f'{ip} - - [24/Nov/2026:10:{(k // 60) % 60:02d}:{k % 60:02d} +0000] "GET {path()} HTTP/1.1" {status} {random.randrange(2000, 90000)} "-" "{ua}"\n')
PY
echo "log: $LINES lines, $(du -h "$WORK/access.log" | cut -f1)"
/usr/bin/time -f "learn --no-fetch: %e s wall, %U s user, peak RSS %M KiB" \
    "$BIN" learn "$WORK/access.log" --site https://shop.example --no-fetch > "$WORK/rules.txt"
head -3 "$WORK/rules.txt"
