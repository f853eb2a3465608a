#!/usr/bin/env python3
"""Every "identical" claim of an audit's export, checked with a fresh fetch and a diff.

    python3 scripts/grounds/identical.py --export RUN/export [--limit N]

Reads `clusters.csv`: each "Why In Cluster" line `A -> B: REASON` whose reason claims
identical content ("identical content", "identical text", "confirmed by identical
content", a canonical whose content is identical). Fetches A and B again (plain HTTP
on loopback, no redirect followed, no cookie) and compares their visible text as blocks
in document order (text between block-level tags; script, style, template, noscript
and form field values left out; option and label text kept).

Each pair is one of:
  same       the visible text is the same, block for block;
  template   it differs only in blocks found on at least 30 % of the pages fetched here
             (a sidebar of recent items, a counter in the header);
  chrome     it differs only in the page's chrome (`nav`, `aside`, a page-level
             `header` or `footer`: template by position, not by frequency), which the
             crawl leaves out of a page's text: a claim of identical *main* content;
  DIFFERENT  anything else: the claim does not hold. Printed with the blocks only one
             side has.
Exit code 1 when a pair is DIFFERENT (or a page no longer answers 200), else 0.
"""

import argparse
import csv
import html.parser
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter

sys.dont_write_bytecode = True

CLAIM = re.compile(r"^(\S+) -> (\S+): (.*)$")
BLOCK = {
    "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "label", "legend", "li", "main", "nav", "ol", "option", "p", "pre",
    "section", "select", "summary", "table", "td", "th", "tr", "ul", "button", "title",
}
HIDDEN = {"script", "style", "template", "noscript", "head"}


class Blocks(html.parser.HTMLParser):
    """Visible text blocks, each marked whether it sits in the page's chrome (`nav`,
    `aside`, or a `header` / `footer` outside `main` and `article`)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.text, self.hidden = [], [], 0
        self.stack = []  # open chrome / content elements

    def chrome(self):
        for tag in reversed(self.stack):
            if tag in ("main", "article"):
                return False
            if tag in ("nav", "aside", "header", "footer"):
                return True
        return False

    def flush(self):
        t = " ".join("".join(self.text).split())
        if t:
            self.out.append((t, self.chrome()))
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self.hidden += 1
        elif tag in BLOCK:
            self.flush()
        if tag in ("nav", "aside", "header", "footer", "main", "article"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK:
            self.flush()
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if not self.hidden:
            self.text.append(data)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url):
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise SystemExit(f"identical.py: {url} is not on loopback")
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=60) as r:
            body = r.read().decode(r.headers.get_content_charset() or "utf-8", "replace")
            status = r.status
    except urllib.error.HTTPError as e:
        return e.code, []
    p = Blocks()
    p.feed(body)
    p.close()
    p.flush()
    return status, p.out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--export", required=True)
    ap.add_argument("--limit", type=int, default=0, help="check at most N pairs (0: all)")
    args = ap.parse_args(argv)
    pairs = []
    with open(f"{args.export}/clusters.csv", newline="") as f:
        for row in csv.DictReader(f):
            for line in row["Why In Cluster"].splitlines():
                m = CLAIM.match(line.strip())
                if m and "identical" in m.group(3):
                    a, b = sorted((m.group(1), m.group(2)))
                    pairs.append((a, b, m.group(3)))
    pairs = sorted(set(pairs))
    if args.limit:
        pairs = pairs[: args.limit]
    pages = {}
    for a, b, _ in pairs:
        for u in (a, b):
            if u not in pages:
                pages[u] = fetch(u)
    df = Counter()
    for _, blocks in pages.values():
        df.update({t for t, _ in blocks})
    common = {b for b, n in df.items() if n >= 0.3 * len(pages) and len(pages) >= 10}
    counts = Counter()
    bad, chrome = [], []
    for a, b, why in pairs:
        (sa, fa), (sb, fb) = pages[a], pages[b]
        ba, bb = [t for t, _ in fa], [t for t, _ in fb]
        main_a = [t for t, chrome in fa if not chrome]
        main_b = [t for t, chrome in fb if not chrome]
        if sa != 200 or sb != 200:
            counts["not 200 now"] += 1
            bad.append(f"{a} ({sa}) vs {b} ({sb}): {why}")
            continue
        if ba == bb:
            counts["same"] += 1
            continue
        only_a = [x for x in ba if x not in bb]
        only_b = [x for x in bb if x not in ba]
        if ba != bb and not only_a and not only_b:
            counts["DIFFERENT (order)"] += 1
            bad.append(f"{a} vs {b}: the same blocks in another order; claimed: {why}")
        elif all(x in common for x in only_a + only_b):
            counts["template"] += 1
        elif main_a == main_b:
            counts["chrome"] += 1
            chrome.append(f"{a} vs {b}: outside the chrome the same; in it, only in the "
                          f"first: {only_a[:2]}, only in the second: {only_b[:2]}")
        else:
            counts["DIFFERENT"] += 1
            bad.append(f"{a} vs {b}: claimed: {why}\n    only in the first: {only_a[:3]}\n"
                       f"    only in the second: {only_b[:3]}")
    print(f"identical claims in {args.export}/clusters.csv: {len(pairs)} pairs, "
          f"{len(pages)} pages fetched again")
    for k in ("same", "template", "chrome", "DIFFERENT", "DIFFERENT (order)", "not 200 now"):
        print(f"  {k}: {counts[k]}")
    for line in chrome[:5]:
        print(f"  chrome: {line}")
    for line in bad[:30]:
        print(f"  {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
