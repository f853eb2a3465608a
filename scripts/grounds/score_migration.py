#!/usr/bin/env python3
"""Scores `dustpan migrate --json` against a ground's own truth of where each page went.

    score_migration.py PAIRS_TSV MIGRATION_JSON [NEW_MEMBERS_CSV]

PAIRS_TSV holds one line per page the application itself says moved or stayed:
`OLD_URL<TAB>NEW_URL`, written from its own page model of both builds (Hugo's permalink
of each content file, WordPress's get_permalink of each post ID). Every old page the
mapping lists that is such a page counts: right (mapped or kept at the right URL), wrong
(another URL) or unmatched; a truth page the mapping does not list is "not listed".

NEW_MEMBERS_CSV (`dustpan analyse NEW --members FILE`) names the new audit's clusters:
a page mapped to the preferred URL of its truth target's cluster is right too (the
target is a duplicate on the new site, and `dustpan migrate` sends it where the new
site's own duplicates go), counted apart as "right (preferred URL)".

Then the map's simulation on the new site (`simulation` in the JSON): its problems, and
exit status 1 when it is not clean.
"""
import json
import sys

import csv

pairs_path, mapping_path = sys.argv[1:3]
preferred = {}
if len(sys.argv) > 3:
    with open(sys.argv[3], encoding="utf-8", newline="") as f:
        preferred = {r["url"]: r["preferred_url"] for r in csv.DictReader(f)}
expected = {}
with open(pairs_path, encoding="utf-8") as f:
    for line in f:
        old, new = line.rstrip("\n").split("\t")
        expected[old] = new
with open(mapping_path, encoding="utf-8") as f:
    rows = json.load(f)["rows"]
right = wrong = unmatched = via_preferred = 0
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
    elif preferred.get(want) == got:
        right += 1
        via_preferred += 1
        outcome = "right (preferred URL)"
    else:
        wrong += 1
        outcome = "wrong"
        wrongs.append((r["old_url"], got, want, basis))
    by_basis.setdefault(basis, {}).setdefault(outcome, 0)
    by_basis[basis][outcome] += 1
missing = sorted(set(expected) - seen)
total = len(expected)
moved = sum(1 for o, n in expected.items() if o != n)
print(f"pages in the truth: {total} ({moved} moved, {total - moved} at the same URL)")
print(f"listed by dustpan migrate: {len(seen)} (not listed: {len(missing)})")
print(f"right: {right}  wrong: {wrong}  unmatched: {unmatched}")
if via_preferred:
    print(f"  of which mapped to the preferred URL of the target's cluster: {via_preferred}")
print(f"mapped right: {100.0 * right / total if total else 0:.1f} % of the truth's pages")
for basis, counts in sorted(by_basis.items()):
    print(f"  {basis}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
for old, got, want, basis in wrongs[:20]:
    print(f"  WRONG {old} -> {got} (want {want}; {basis})")
for old in missing[:10]:
    print(f"  NOT LISTED {old}")
simulation = json.load(open(mapping_path, encoding="utf-8")).get("simulation")
if simulation is not None:
    problems = simulation["problems"]
    verdict = "clean" if not problems else f"NOT clean ({len(problems)} problems)"
    print(f"the redirect map simulated on the new site: {verdict}")
    for p in problems[:20]:
        print(f"  {p['kind']}: {p['detail']}")
    if problems:
        sys.exit(1)
