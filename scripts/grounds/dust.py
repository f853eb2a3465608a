#!/usr/bin/env python3
"""DUST during the crawl, measured on one stored audit: per query parameter, the URLs
carrying it that the crawl fetched and those it skipped as predicted duplicates, and how
the fetched ones compare with the same URL without the parameter.

    python3 scripts/grounds/dust.py --db STATE/runs/RUN/audit.sqlite [--audit ID] [--top N]

For each parameter name (largest first):

  recorded   URLs with the parameter the crawl recorded and fetched or skipped as
             predicted duplicates (`dust_duplicate`): what it would have fetched without
             its rules
  fetched    of those, fetched
  skipped    of those, skipped as predicted duplicates (the fetches saved)
  saved      skipped / recorded
  same / close / different
             fetched URLs whose twin without the parameter was fetched too, compared as
             the crawl compares a verification sample (crawl::same_page): identical
             visible text; SimHashes at most 9 bits apart (a form, a counter); further
             apart. A prediction is wrong when its pair is different.

Then the rules the crawl learned (the audit's `learned_during_crawl`), and the crawl
summary's DUST counts (OnlineCounts) when the audit's log line is given (--log).
"""

import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from urllib.parse import urlsplit

DIFFERENT_DISTANCE = 9


def pairs(query):
    return [p.split("=", 1) if "=" in p else [p, ""] for p in query.split("&") if p]


def without(url, name):
    parts = urlsplit(url)
    kept = [p for p in parts.query.split("&") if p and p.split("=", 1)[0] != name]
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    return base + ("?" + "&".join(kept) if kept else "")


def verdict(a, b):
    (ha, sa), (hb, sb) = a, b
    if ha == hb:
        return "same"
    if sa is not None and sb is not None:
        if bin((sa ^ sb) & 0xFFFFFFFFFFFFFFFF).count("1") <= DIFFERENT_DISTANCE:
            return "close"
    return "different"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--audit", type=int)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--log", help="the audit's printed summary (audit.log of scripts/grounds/run.sh)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    audit = args.audit or db.execute("SELECT max(id) FROM audits").fetchone()[0]
    rows = db.execute(
        """SELECT u.url_rfc3986, u.state, u.reason_kind, f.status, f.text_hash, f.simhash
           FROM urls u LEFT JOIN fetches f ON f.audit_id = u.audit_id AND f.url_id = u.id
           WHERE u.audit_id = ?""",
        (audit,),
    ).fetchall()
    pages = {}
    for url, state, reason, status, th, sh in rows:
        if status is not None and 200 <= status < 300 and th is not None:
            pages[url] = (th, sh)
    per = defaultdict(lambda: defaultdict(int))
    wrong_examples = defaultdict(list)
    for url, state, reason, status, th, sh in rows:
        query = urlsplit(url).query
        if not query:
            continue
        fetched = state in ("done", "failed") and status is not None
        skipped = state == "skipped" and reason == "dust_duplicate"
        if not (fetched or skipped):
            continue
        for name in {n for n, _ in pairs(query)}:
            p = per[name]
            p["recorded"] += 1
            p["fetched"] += fetched
            p["skipped"] += skipped
            if url in pages:
                twin = pages.get(without(url, name))
                if twin is not None:
                    v = verdict(pages[url], twin)
                    p[v] += 1
                    if v == "different" and len(wrong_examples[name]) < 3:
                        wrong_examples[name].append(url)
    config = json.loads(db.execute("SELECT config FROM audits WHERE id = ?", (audit,)).fetchone()[0])
    config = config.get("data", config)
    learned = (config.get("learned_during_crawl") or {}).get("rules", [])
    counts = None
    if args.log:
        for line in open(args.log, encoding="utf-8", errors="replace"):
            if line.strip().startswith("DUST "):
                counts = line.strip()
    total_recorded = sum(1 for _, st, rk, s, _, _ in rows if (st in ("done", "failed") and s is not None) or (st == "skipped" and rk == "dust_duplicate"))
    total_skipped = sum(1 for _, st, rk, _, _, _ in rows if st == "skipped" and rk == "dust_duplicate")
    ranked = sorted(per.items(), key=lambda kv: (-kv[1]["recorded"], kv[0]))
    if args.json:
        json.dump({
            "audit": audit,
            "fetched_or_skipped": total_recorded,
            "skipped": total_skipped,
            "params": {k: dict(v) for k, v in ranked},
            "rules": [{"id": r["id"], "status": r["status"]} for r in learned],
            "summary": counts,
        }, sys.stdout, indent=1)
        print()
        return
    print(f"audit {audit}: {total_recorded} URLs fetched or skipped as predicted duplicates, "
          f"{total_skipped} skipped ({100.0 * total_skipped / max(total_recorded, 1):.1f} %)")
    print(f"{'parameter':<24} {'recorded':>8} {'fetched':>8} {'skipped':>8} {'saved':>7} {'same':>6} {'close':>6} {'diff.':>6}")
    for name, p in ranked[: args.top]:
        print(f"{name[:24]:<24} {p['recorded']:>8} {p['fetched']:>8} {p['skipped']:>8} "
              f"{100.0 * p['skipped'] / max(p['recorded'], 1):>6.1f}% {p['same']:>6} {p['close']:>6} {p['different']:>6}")
    for name, urls in wrong_examples.items():
        if per[name]["skipped"]:
            print(f"  {name}: different from the URL without it, e.g. {', '.join(urls)}")
    if learned:
        print("rules learned during the crawl:")
        for r in learned:
            print(f"  {r['status']:<10} {r['id']}")
    else:
        print("rules learned during the crawl: none")
    if counts:
        print(f"crawl summary: {counts}")


if __name__ == "__main__":
    main()
