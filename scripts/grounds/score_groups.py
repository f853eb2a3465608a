#!/usr/bin/env python3
"""Scores equivalence groups of a URL list against a proving ground's truth.

    score_groups.py --truth GROUND/truth.py --state DIR --list URLS.txt --groups GROUPS.tsv [--json]

GROUPS.tsv is what `dustpan normalize --group` and `dustpan learn --group` print: a
line `COUNT<TAB>CANONICAL` per group, then one `<TAB>URL` line per member. URLs of the
list in no group are groups of one.

Figures (every URL of the list has a truth entity, see truth.py):
- redundant URLs: URLs of the list less the number of truth entities among them (what
  a perfect grouping removes);
- grouped: redundant URLs the grouping removes correctly: URLs less the cells of the
  meet of the grouping and the truth (a group split by entity counts once per entity);
- grouped wrongly: URLs in a group whose largest entity they are not in (entities
  the truth gives one dup_group, the same content under two objects, count as one).
"""

import argparse
import json
import os
import sys
from collections import Counter, defaultdict

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import load_truth  # noqa: E402


def read_groups(path):
    groups, current = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("\t"):
                if current is not None:
                    current.append(line[1:])
            else:
                current = []
                groups.append(current)
    return groups


def main(argv=None, truth_path=None, default_state=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--truth", default=truth_path, required=truth_path is None, help="the ground's truth.py")
    ap.add_argument("--state", default=default_state, required=default_state is None)
    ap.add_argument("--list", required=True)
    ap.add_argument("--groups", required=True)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--top", type=int, default=8, help="wrong groups to list")
    a = ap.parse_args(argv)

    truth = load_truth(a.truth).Truth(a.state)
    with open(a.list, encoding="utf-8") as f:
        urls = list(dict.fromkeys(u.strip() for u in f if u.strip()))
    entity = {u: truth.entity(u) for u in urls}
    # Entities with the same content (a copied page) are not wrong together.
    dup_group = getattr(truth, "dup_group", lambda e: None)
    same = {u: dup_group(entity[u]) or entity[u] for u in urls}
    group_of = {}
    for k, g in enumerate(read_groups(a.groups)):
        for u in g:
            if u in entity:
                group_of[u] = k
    for k, u in enumerate(urls):
        group_of.setdefault(u, ("alone", k))

    n = len(urls)
    entities = len(set(entity.values()))
    redundant = n - entities
    cells = len({(group_of[u], entity[u]) for u in urls})
    groups = len(set(group_of.values()))
    grouped = n - cells
    members = defaultdict(list)
    for u in urls:
        members[group_of[u]].append(u)
    wrong = 0
    wrong_groups = []
    for g, us in members.items():
        if len(us) < 2:
            continue
        counts = Counter(same[u] for u in us)
        major = counts.most_common(1)[0][1]
        if major < len(us):
            wrong += len(us) - major
            wrong_groups.append((len(us) - major, us))
    wrong_groups.sort(key=lambda x: -x[0])
    result = {
        "urls": n,
        "entities": entities,
        "redundant": redundant,
        "groups": groups,
        "grouped": grouped,
        "grouped_share": grouped / redundant if redundant else 0.0,
        "grouped_wrongly": wrong,
        "wrong_share": wrong / n if n else 0.0,
    }
    if a.json:
        print(json.dumps(result, indent=1))
        return
    print(f"URLs {n}, truth entities {entities}, redundant URLs {redundant}")
    print(f"groups {groups}: grouped {grouped} of the redundant URLs "
          f"({100 * result['grouped_share']:.1f}%), grouped wrongly {wrong} "
          f"({100 * result['wrong_share']:.2f}% of the URLs)")
    for k, (w, us) in enumerate(wrong_groups[: a.top]):
        print(f"  wrong group ({w} URLs of other entities):")
        for u in us[:6]:
            print(f"      {u}  {entity[u]}")


if __name__ == "__main__":
    sys.exit(main())
