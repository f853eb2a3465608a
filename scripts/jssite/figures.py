#!/usr/bin/env python3
"""The figures of a `dustpan audit --render` of the client-rendered proving ground, beside
an audit of the same site without rendering, read from their databases and exports.

    python3 figures.py RAW_DB RENDER_DB RAW_EXPORT RENDER_EXPORT MEASURE

MEASURE is the file measure.py wrote for the rendered audit (wall seconds, peak PSS of the
audit and its browser, peak RSS of the audit alone, exit code). Prints a plain report.
"""
import csv
import json
import sqlite3
import sys
from collections import Counter


def one(c, sql, *args):
    return c.execute(sql, args).fetchone()[0]


def clusters(export):
    """Cluster id -> (preferred URL, members, the causes of its members' membership)."""
    out = {}
    with open(f"{export}/clusters.csv", newline="") as f:
        for row in csv.DictReader(f):
            c = out.setdefault(row["Cluster"], [row["Preferred URL"], 0, Counter()])
            c[1] += 1
            why = row.get("Why In Cluster", "")
            if why:
                c[2][why.split(":")[0].split(" (")[0][:60]] += 1
    return out


def findings(export):
    with open(f"{export}/findings.csv", newline="") as f:
        return Counter(r["Finding"] for r in csv.DictReader(f))


def pages(c):
    return one(c, "SELECT count(*) FROM fetches WHERE status BETWEEN 200 AND 299 AND content_type LIKE '%html%'")


def main():
    raw_db, render_db, raw_export, render_export, measure = sys.argv[1:6]
    raw, ren = sqlite3.connect(raw_db), sqlite3.connect(render_db)
    wall, peak_pss, peak_rss, code = open(measure).read().split()
    wall = float(wall)

    print("== pages")
    print(f"raw audit:      {one(raw, 'SELECT count(*) FROM urls')} URLs known, "
          f"{one(raw, 'SELECT count(*) FROM fetches')} fetched, {pages(raw)} HTML pages (2xx)")
    print(f"rendered audit: {one(ren, 'SELECT count(*) FROM urls')} URLs known, "
          f"{one(ren, 'SELECT count(*) FROM fetches')} fetched, {pages(ren)} HTML pages (2xx)")
    outcomes = dict(ren.execute("SELECT outcome, count(*) FROM renders GROUP BY outcome").fetchall())
    rendered = sum(outcomes.values())
    print(f"render outcomes: {json.dumps(outcomes, sort_keys=True)}")
    refused = one(ren, "SELECT coalesce(sum(refused), 0) FROM renders")
    requests = one(ren, "SELECT coalesce(sum(requests), 0) FROM renders")
    print(f"requests made by rendered pages: {requests}, refused (out of scope): {refused}")
    ms = ren.execute("SELECT min(render_ms), avg(render_ms), max(render_ms) FROM renders").fetchone()
    print(f"render time per page ms: min {ms[0]}, mean {ms[1]:.0f}, max {ms[2]}")

    print("\n== links")
    raw_links = one(ren, "SELECT count(*) FROM links")
    dom_links = one(ren, "SELECT count(*) FROM rendered_links")
    js_only = one(ren, "SELECT count(*) FROM rendered_links WHERE js_only")
    print(f"links in the served HTML: {raw_links}; in the rendered DOM: {dom_links}, of them only there: {js_only}")
    only_js = one(ren, """
        SELECT count(DISTINCT r.to_url_id) FROM rendered_links r
        JOIN fetches f ON f.audit_id = r.audit_id AND f.url_id = r.to_url_id
        WHERE r.js_only AND r.to_url_id != r.from_url_id
          AND NOT EXISTS (SELECT 1 FROM links l WHERE l.audit_id = r.audit_id AND l.to_url_id = r.to_url_id
                          AND l.from_url_id != r.to_url_id)""")
    print(f"fetched URLs that only links written by script reach: {only_js}")
    by_region = ren.execute(
        "SELECT region, count(*) FROM rendered_links WHERE js_only GROUP BY region ORDER BY 2 DESC").fetchall()
    print(f"script-only links by region: {by_region}")

    print("\n== titles, headings, canonicals, robots: raw vs rendered (pages whose DOM was read)")
    q = lambda sql: one(ren, f"""SELECT count(*) FROM renders r JOIN fetches f
        ON f.audit_id = r.audit_id AND f.url_id = r.url_id
        WHERE r.outcome IN ('rendered', 'unsettled') AND ({sql})""")
    print(f"title changed by script: {q('coalesce(r.title, char(0)) != coalesce(f.title, char(0))')}")
    print(f"h1 changed by script: {q('coalesce(r.h1, char(0)) != coalesce(f.h1, char(0))')} "
          f"(served with an h1: {q('f.h1 IS NOT NULL')}, rendered with one: {q('r.h1 IS NOT NULL')})")
    print(f"raw titles distinct: {one(ren, 'SELECT count(DISTINCT title) FROM fetches WHERE title IS NOT NULL')}, "
          f"rendered titles distinct: {one(ren, 'SELECT count(DISTINCT title) FROM renders WHERE title IS NOT NULL')}")
    raw_canon = one(ren, "SELECT count(DISTINCT page_url_id) FROM canonicals")
    ren_canon = q("r.canonical_href IS NOT NULL")
    print(f"pages with a served canonical: {raw_canon}; with a rendered canonical: {ren_canon}")
    print(f"noindex served: {one(ren, 'SELECT count(*) FROM fetches WHERE noindex')}, rendered: "
          f"{one(ren, 'SELECT count(*) FROM renders WHERE noindex')}")
    words = ren.execute("""SELECT avg(f.word_count), avg(r.word_count) FROM renders r JOIN fetches f
        ON f.audit_id = r.audit_id AND f.url_id = r.url_id WHERE r.outcome IN ('rendered', 'unsettled')""").fetchone()
    print(f"mean words served: {words[0]:.0f}, rendered: {words[1]:.0f}")
    print(f"distinct visible texts served: {one(ren, 'SELECT count(DISTINCT text_hash) FROM fetches WHERE status = 200')}, "
          f"rendered: {one(ren, 'SELECT count(DISTINCT text_hash) FROM renders')}")

    print("\n== clusters")
    for name, export in (("raw", raw_export), ("rendered", render_export)):
        cs = clusters(export)
        members = sum(c[1] for c in cs.values())
        print(f"{name}: {len(cs)} clusters, {members} member rows")
        for cid, (pref, n, why) in sorted(cs.items(), key=lambda kv: -kv[1][1])[:8]:
            print(f"  {cid}: {n} members -> {pref}  {dict(why.most_common(3))}")

    print("\n== findings (code: rows)")
    for name, export in (("raw", raw_export), ("rendered", render_export)):
        print(f"{name}: {dict(sorted(findings(export).items()))}")

    print("\n== speed and memory (the rendered audit)")
    print(f"wall seconds {wall:.1f}; rendered pages/s {rendered / wall:.2f}; "
          f"peak memory {int(peak_pss) / 1024:.1f} MiB PSS (audit + browser), "
          f"{int(peak_rss) / 1024:.1f} MiB RSS (audit alone); exit code {code}")


if __name__ == "__main__":
    main()
