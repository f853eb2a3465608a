#!/usr/bin/env python3
"""Scores `dustpan migrate --json` against Hugo's page model of both builds.

    score_migration.py OLD_TRUTH NEW_TRUTH MIGRATION_JSON OLD_BASE NEW_BASE

Each content file Hugo built as a regular page is one page on both sites: its right new
URL is NEW_BASE + its new permalink. Every old page the mapping lists that is such a
page counts: right (mapped or kept at the right URL), wrong (another URL) or unmatched.
Lists, taxonomies and aliases are scored apart (their truth is not one file).
"""
import json
import sys

old_truth, new_truth, mapping, old_base, new_base = sys.argv[1:6]


def pages(path):
    with open(path) as f:
        d = json.load(f)
    rows = d["pages"] if isinstance(d, dict) else d
    return {r["file"]: r for r in rows if r.get("kind") == "page" and r.get("file")}


old_pages, new_pages = pages(old_truth), pages(new_truth)
expected = {}
for file, r in old_pages.items():
    if file in new_pages:
        expected[old_base.rstrip("/") + r["permalink"]] = new_base.rstrip("/") + new_pages[file]["permalink"]
with open(mapping) as f:
    rows = json.load(f)["rows"]
right = wrong = unmatched = 0
by_basis = {}
wrongs = []
seen = set()
for r in rows:
    want = expected.get(r["old_url"])
    if want is None:
        continue
    seen.add(r["old_url"])
    basis = r["basis"]["by"]
    got = r.get("new_url")
    if got is None:
        unmatched += 1
        outcome = "unmatched"
    elif got == want:
        right += 1
        outcome = "right"
    else:
        wrong += 1
        outcome = "wrong"
        wrongs.append((r["old_url"], got, want, basis))
    by_basis.setdefault(basis, {}).setdefault(outcome, 0)
    by_basis[basis][outcome] += 1
missing = sorted(set(expected) - seen)
total = len(expected)
print(f"moved pages (Hugo regular pages on both builds): {total}")
print(f"listed by dustpan migrate: {len(seen)} (not listed: {len(missing)})")
print(f"right: {right}  wrong: {wrong}  unmatched: {unmatched}")
print(f"mapped right: {100.0 * right / total if total else 0:.1f} %")
for basis, counts in sorted(by_basis.items()):
    print(f"  {basis}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
for old, got, want, basis in wrongs[:20]:
    print(f"  WRONG {old} -> {got} (want {want}; {basis})")
for old in missing[:10]:
    print(f"  NOT LISTED {old}")
