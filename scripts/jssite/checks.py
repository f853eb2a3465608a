#!/usr/bin/env python3
"""Checks what a rendered audit of the client-rendered proving ground stored against the
site itself: for each sample page, the served HTML as curl gets it and the DOM as
`chromium --headless --dump-dom` prints it, beside the audit's fetch and render rows.

    python3 checks.py RENDER_DB BASE_URL PATH...

Chromium runs with every host name mapped to "not found" and a proxy that accepts
nothing (loopback is not proxied), so it reaches the loopback site only. Prints one block
per page and a last line `checks: N pages, M disagreements`; exits 1 on a disagreement
about the served HTML (the audit must store what curl gets) and reports, without
failing, a rendered title or h1 that differs (a page's script may write them in another
order from one load to the next).
"""
import html.parser
import re
import sqlite3
import subprocess
import sys
import tempfile


class Head(html.parser.HTMLParser):
    """The first title, first h1 text, first canonical and robots metas of a document."""

    def __init__(self):
        super().__init__()
        self.title = self.h1 = self.canonical = None
        self.robots = []
        self._in = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title" and self.title is None:
            self._in, self._text = "title", []
        elif tag == "h1" and self.h1 is None:
            self._in, self._text = "h1", []
        elif tag == "link" and (a.get("rel") or "").lower() == "canonical" and self.canonical is None:
            self.canonical = a.get("href")
        elif tag == "meta" and (a.get("name") or "").lower() == "robots":
            self.robots.append(a.get("content") or "")

    def handle_endtag(self, tag):
        if tag == self._in:
            text = re.sub(r"\s+", " ", "".join(self._text)).strip()
            setattr(self, tag, text)
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._text.append(data)


def parse(doc):
    p = Head()
    p.feed(doc)
    return p


def chromium_dom(url):
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--proxy-server=http://127.0.0.1:9", "--virtual-time-budget=10000", "--dump-dom", url],
            capture_output=True, text=True, timeout=120)
    return out.stdout


def main():
    db, base, paths = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3:]
    c = sqlite3.connect(db)
    bad = soft = 0
    for path in paths:
        url = base + path
        served = subprocess.run(["curl", "-s", url], capture_output=True, text=True).stdout
        dom = chromium_dom(url)
        s, d = parse(served), parse(dom)
        row = c.execute(
            """SELECT f.title, f.h1, f.word_count, r.outcome, r.title, r.h1, r.canonical_href, r.word_count
               FROM urls u JOIN fetches f ON f.audit_id = u.audit_id AND f.url_id = u.id
               LEFT JOIN renders r ON r.audit_id = u.audit_id AND r.url_id = u.id
               WHERE u.url = ? OR u.url_rfc3986 = ?""", (url, url)).fetchone()
        print(f"== {path}")
        print(f"  served (curl):        title {s.title!r}, h1 {s.h1!r}, canonical {s.canonical!r}, {len(served)} bytes")
        print(f"  rendered (chromium):  title {d.title!r}, h1 {d.h1!r}, canonical {d.canonical!r}, robots {d.robots}")
        if row is None:
            print("  audit: not fetched")
            continue
        ft, fh, fw, outcome, rt, rh, rc, rw = row
        print(f"  audit, served:        title {ft!r}, h1 {fh!r}, {fw} words")
        print(f"  audit, rendered:      {outcome}: title {rt!r}, h1 {rh!r}, canonical {rc!r}, {rw} words")
        if (ft or None) != (s.title or None) or (fh or None) != (s.h1 or None):
            print("  DISAGREES: the audit's served title or h1 is not what curl gets")
            bad += 1
        if (rt or None) != (d.title or None) or (rh or None) != (d.h1 or None) or (rc or None) != (d.canonical or None):
            print("  differs: the audit's rendered title, h1 or canonical is not what this chromium load printed")
            soft += 1
    print(f"checks: {len(paths)} pages, {bad} disagreements about the served HTML, "
          f"{soft} rendered values that differ from this load")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
