#!/usr/bin/env python3
"""Judges an audit of the WordPress proving ground with "Break comments into pages" on
(see paged-comments.sh): one CANON-COMMENT-PAGE finding, nothing else about the comment
pages, each post preferred in its cluster, no fix onto a comment page. Every fact about
the site is read from the live site (loopback only). Exit status 1 on any failure."""
import argparse
import csv
import html
import re
import sys
import urllib.request

COMMENT_PAGE = re.compile(r"/comment-page-\d+/")
EXPLAINED = {"CLUSTER-CONFLICT", "SITEMAP-CANONICALISED", "SITEMAP-NON-PREFERRED",
             "CANON-LINKED", "DUP-CONTENT"}


def fetch(url):
    if not url.startswith("http://127.0.0.1:"):
        raise SystemExit(f"refusing to fetch {url}: loopback only")
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode("utf-8", "replace")


def canonical(page):
    m = re.search(r'<link rel="canonical" href="([^"]*)"', page)
    return html.unescape(m.group(1)).split("#")[0] if m else None


def visible_text(page):
    page = re.sub(r"(?s)<(script|style|head)\b.*?</\1>", " ", page)
    page = re.sub(r"<[^>]+>", " ", page)
    return " ".join(html.unescape(page).split())


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--export", required=True)
    a = ap.parse_args()
    failures = []

    # The posts WordPress makes name one of their own comment pages: every post the
    # sitemaps list, fetched, its canonical read.
    index = fetch(f"{a.base}/wp-sitemap-posts-post-1.xml")
    posts = [html.unescape(u) for u in re.findall(r"<loc>([^<]+)</loc>", index)]
    naming = {}
    for post in posts:
        c = canonical(fetch(post))
        if c and c != post and COMMENT_PAGE.search(c) and c.startswith(post):
            naming[post] = c
    print(f"posts in the sitemap: {len(posts)}; naming one of their own comment pages "
          f"canonical (read with their own requests): {len(naming)}")

    findings = rows(f"{a.export}/findings.csv")
    ours = [f for f in findings if f["Finding"] == "CANON-COMMENT-PAGE"]
    if len(ours) != 1:
        failures.append(f"{len(ours)} CANON-COMMENT-PAGE findings, want 1")
    else:
        listed = set(ours[0]["Addresses"].split("\n"))
        if listed != set(naming):
            failures.append(f"CANON-COMMENT-PAGE lists {len(listed)} posts; missing "
                            f"{sorted(set(naming) - listed)[:3]}, extra {sorted(listed - set(naming))[:3]}")
        print(f"CANON-COMMENT-PAGE: {len(listed)} posts; evidence: "
              + " | ".join(ours[0]["Evidence"].split("\n")))
        print(f"  fix: {ours[0]['Fix']}")
    apart = [f for f in findings
             if f["Finding"] in EXPLAINED and COMMENT_PAGE.search(f["Addresses"])]
    for f in apart:
        failures.append(f"{f['Finding']} still names a comment page: {f['Summary'][:160]}")
    print(f"findings: {len(findings)} in all; {len(apart)} about comment pages apart from it")

    # Each post is its cluster's preferred URL; its comment page reads the same.
    preferred = {r["Address"]: r.get("Preferred URL", "") for r in rows(f"{a.export}/clusters.csv")}
    for post, page in naming.items():
        if preferred.get(page) not in (None, post) or preferred.get(post) not in (None, post):
            failures.append(f"{post}: preferred {preferred.get(post)!r}, its comment page's {preferred.get(page)!r}")
    checked = 0
    for post, page in list(naming.items())[:10]:
        if visible_text(fetch(post)) != visible_text(fetch(page)):
            failures.append(f"{page} does not read as {post}")
        checked += 1
    print(f"posts preferred over their comment pages: {len(naming)} checked; "
          f"identical text of post and comment page: {checked} checked with curl-like fetches")

    # No fix moves anything onto a comment page.
    moved = []
    # The column of each fix file that names where a fix leads.
    for name, column in (("sitemap_changes.csv", "replacement"), ("redirect_map.csv", "target"),
                         ("links_to_non_preferred.csv", "Preferred URL")):
        for r in rows(f"{a.export}/{name}"):
            if COMMENT_PAGE.search(r.get(column) or ""):
                moved.append(f"{name}: {r}")
    for m in moved[:5]:
        failures.append(f"a fix onto a comment page: {m[:200]}")
    print(f"fixes onto a comment page: {len(moved)}")

    print("PASS" if not failures else "FAIL")
    for f in failures:
        print(f"  - {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
