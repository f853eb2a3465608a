#!/usr/bin/env python3
"""Scores a Dustpan audit of a proving ground against the ground's truth.

    score.py --truth GROUND/truth.py --state STATE_DIR --export EXPORT_DIR [--json] [--top N]

GROUND/truth.py defines `Truth(state_dir)` with `.explain(url) -> (entity, kinds)`,
`.entity(url)` and `.entity_url(entity)`, and may define `.dup_group(entity)`: a key
shared by entities that are different objects with the same content (a post copied
under two slugs). A pair of URLs of two such entities is neither required nor wrong:
it is counted apart ("duplicate-content pairs"), not as a false positive. The module
may set GROUND (its name) and PAGE_URL (what the preferred URL of a page should be).

EXPORT_DIR is `dustpan export AUDIT_ID --db DB --out EXPORT_DIR`. Read:
  pages.csv     Address, Status Code, ..., Cluster, Preferred URL   (every URL)
  clusters.csv  Cluster, Preferred URL, Address, Role, Status Code, Why In Cluster, ...
Scored: every fetched URL (Status Code present). Audit clusters come from clusters.csv
(pages.csv's Cluster column is cross-checked); a fetched URL in no cluster is a
singleton. Truth entities come from truth.py (the application's own data).

Pairwise: a true positive is a pair of URLs in one audit cluster with one entity; a
false positive a pair in one cluster with two entities; a false negative a pair with
one entity in two clusters. Precision = TP / (TP + FP), recall = TP / (TP + FN).
Scores are given for all fetched URLs and for the page views only (URLs whose entity
is a page, so actions, specials, revisions, feeds and 404s are left out).

Exit code 0 (2 on a usage or input error).
"""

import argparse
import csv
import importlib.util
import json
import os
import sys
from collections import Counter, defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the work tree


def load_truth(path):
    """The truth module of a ground (GROUND/truth.py), imported from its file."""
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("ground_truth", path)
    if spec is None or spec.loader is None:
        sys.exit(f"score: cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def pairs(n):
    return n * (n - 1) // 2


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"score.py: cannot read {path}: {e}")


def col(row, *names):
    for n in names:
        if n in row:
            return row[n]
    raise KeyError(f"none of the columns {names} in {sorted(row)}")


def unsafe(cell):
    """Undo the spreadsheet guard (a leading ' before = + - @)."""
    return cell[1:] if cell[:2] in ("'=", "'+", "'-", "'@") else cell


def pairwise(urls, cluster_of, entity_of, dup_of=None):
    cells = Counter((cluster_of[u], entity_of[u]) for u in urls)
    csize = Counter(cluster_of[u] for u in urls)
    esize = Counter(entity_of[u] for u in urls)
    tp = sum(pairs(n) for n in cells.values())
    pred = sum(pairs(n) for n in csize.values())
    true = sum(pairs(n) for n in esize.values())
    # Pairs of two entities with the same content (dup_of), in one cluster: neutral.
    dup = 0
    if dup_of:
        dcells = Counter((cluster_of[u], dup_of[u]) for u in urls if dup_of.get(u) is not None)
        ecells = Counter((cluster_of[u], entity_of[u]) for u in urls if dup_of.get(u) is not None)
        dup = sum(pairs(n) for n in dcells.values()) - sum(pairs(n) for n in ecells.values())
    pred -= dup
    # B-cubed: per URL, the share of its cluster that is its entity and the share of
    # its entity that is in its cluster (less dominated by one huge cluster).
    n = len(urls) or 1
    bp = sum(cells[(cluster_of[u], entity_of[u])] / csize[cluster_of[u]] for u in urls) / n
    br = sum(cells[(cluster_of[u], entity_of[u])] / esize[entity_of[u]] for u in urls) / n
    return {
        "urls": len(urls),
        "bcubed_precision": bp if urls else 1.0,
        "bcubed_recall": br if urls else 1.0,
        "audit_clusters_multi": sum(1 for n in csize.values() if n > 1),
        "truth_groups_multi": sum(1 for n in esize.values() if n > 1),
        "true_positive_pairs": tp,
        "duplicate_content_pairs": dup,
        "false_positive_pairs": pred - tp,
        "false_negative_pairs": true - tp,
        "precision": tp / pred if pred else 1.0,
        "recall": tp / true if true else 1.0,
    }


def ent_label(truth, e):
    if e[0] in ("page", "redirectpage"):
        return f"{e[0]} {truth.entity_url(e)}"
    if e[0] == "other":
        return "other (own entity)"
    return " ".join(map(str, e))


def main(argv=None, truth_path=None, default_state=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--truth", default=truth_path, required=truth_path is None, help="the ground's truth.py")
    ap.add_argument("--state", default=default_state, required=default_state is None)
    ap.add_argument("--export", required=True)
    ap.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    ap.add_argument("--top", type=int, default=8, help="false merges and missed groups to list")
    args = ap.parse_args(argv)

    mod = load_truth(args.truth)
    truth = mod.Truth(args.state)
    ground = getattr(mod, "GROUND", "the ground")
    page_url_name = getattr(mod, "PAGE_URL", "canonical URL")
    pages = read_csv(os.path.join(args.export, "pages.csv"))
    members = read_csv(os.path.join(args.export, "clusters.csv"))

    status = {}
    all_urls = []
    page_cluster = {}
    for r in pages:
        u = unsafe(col(r, "Address"))
        all_urls.append(u)
        s = col(r, "Status Code").strip()
        if s:
            status[u] = int(s)
        c = r.get("Cluster", "").strip()
        if c:
            page_cluster[u] = c
    fetched = sorted(status)

    cluster_of = {}
    preferred = {}
    role = {}
    why = {}
    for r in members:
        u = unsafe(col(r, "Address"))
        c = col(r, "Cluster")
        cluster_of[u] = c
        preferred[c] = unsafe(col(r, "Preferred URL"))
        role[u] = r.get("Role", "")
        why[u] = r.get("Why In Cluster", "")
    mismatched = sum(1 for u in fetched if page_cluster.get(u) != cluster_of.get(u))
    cl = {u: cluster_of.get(u, f"single:{u}") for u in fetched}

    explained = {u: truth.explain(u) for u in fetched}
    ent = {u: explained[u][0] for u in fetched}

    dup_group = getattr(truth, "dup_group", None)
    dup = {u: dup_group(ent[u]) for u in fetched} if dup_group else None
    overall = pairwise(fetched, cl, ent, dup)
    page_urls = [u for u in fetched if ent[u][0] == "page"]
    page_scores = pairwise(page_urls, cl, ent, dup)

    # False merges: audit clusters holding URLs of more than one entity.
    by_cluster = defaultdict(list)
    for u in fetched:
        by_cluster[cl[u]].append(u)
    false_merges = []
    for c, us in by_cluster.items():
        groups = defaultdict(list)
        for u in us:
            groups[ent[u]].append(u)
        if dup and len({dup[u] if dup[u] is not None else ent[u] for u in us}) == 1:
            groups = {}  # one content under several objects: a duplicate, not a false merge
        if len(groups) > 1:
            fp = pairs(len(us)) - sum(pairs(len(g)) for g in groups.values())
            if dup:
                dgroups = Counter(dup[u] for u in us if dup[u] is not None)
                egroups = Counter(ent[u] for u in us if dup[u] is not None)
                fp -= sum(pairs(n) for n in dgroups.values()) - sum(pairs(n) for n in egroups.values())
            false_merges.append(
                {
                    "cluster": c,
                    "preferred": preferred.get(c, ""),
                    "false_pairs": fp,
                    "urls": len(us),
                    "entities": [
                        {"entity": ent_label(truth, e), "urls": sorted(g)}
                        for e, g in sorted(groups.items(), key=lambda x: -len(x[1]))
                    ],
                    "why_example": next((why[u] for u in us if why.get(u)), ""),
                    "why": {u: why.get(u, "") for u in us},
                    "kinds": {u: explained[u][1] for u in us},
                }
            )
    false_merges.sort(key=lambda x: -x["false_pairs"])

    # Missed groups: entities whose URLs the audit split.
    by_entity = defaultdict(list)
    for u in fetched:
        by_entity[ent[u]].append(u)
    missed = []
    for e, us in by_entity.items():
        parts = defaultdict(list)
        for u in us:
            parts[cl[u]].append(u)
        if len(parts) > 1:
            fn = pairs(len(us)) - sum(pairs(len(p)) for p in parts.values())
            missed.append(
                {
                    "entity": ent_label(truth, e),
                    "missed_pairs": fn,
                    "urls": len(us),
                    "parts": [
                        {"cluster": (c if not c.startswith("single:") else None), "urls": sorted(p)}
                        for c, p in sorted(parts.items(), key=lambda x: -len(x[1]))
                    ],
                }
            )
    missed.sort(key=lambda x: (-x["missed_pairs"], x["entity"]))

    # Kinds of URL seen, and how the audit grouped each kind.
    kinds = defaultdict(
        lambda: {"urls": 0, "duplicate_urls": 0, "with_any": 0, "with_all": 0, "with_page_url": 0,
                 "page_url_fetched": 0, "falsely_merged": 0, "statuses": Counter()}
    )
    fetched_set = set(fetched)
    for u in fetched:
        e = ent[u]
        same = [v for v in by_entity[e] if v != u]
        page_url = truth.entity_url(e) if e[0] == "page" else None
        wrong = any(ent[v] != e for v in by_cluster[cl[u]])
        for k in explained[u][1]:
            d = kinds[k]
            d["urls"] += 1
            d["statuses"][status[u]] += 1
            if same:
                d["duplicate_urls"] += 1
                d["with_any"] += any(cl[v] == cl[u] for v in same)
                d["with_all"] += all(cl[v] == cl[u] for v in same)
            if page_url and page_url != u and page_url in fetched_set:
                d["page_url_fetched"] += 1
                d["with_page_url"] += cl[page_url] == cl[u]
            d["falsely_merged"] += wrong
    kinds_out = {
        k: {**v, "statuses": dict(sorted(v["statuses"].items()))}
        for k, v in sorted(kinds.items(), key=lambda x: -x[1]["urls"])
    }

    # Preferred URLs: a cluster whose URLs are all one page should prefer the page's own URL.
    pref_ok = pref_total = 0
    pref_wrong = []
    for c, us in by_cluster.items():
        if c.startswith("single:") or len(us) < 2:
            continue
        es = {ent[u] for u in us}
        if len(es) == 1:
            (e,) = es
            if e[0] == "page":
                pref_total += 1
                want = truth.entity_url(e)
                if preferred.get(c) == want:
                    pref_ok += 1
                else:
                    pref_wrong.append({"cluster": c, "preferred": preferred.get(c), "truth": want})

    hosts = Counter(u.split("/")[2] if "://" in u else "?" for u in all_urls)
    fetched_hosts = Counter(u.split("/")[2] if "://" in u else "?" for u in fetched)
    result = {
        "ground": ground,
        "page_url_name": page_url_name,
        "export": os.path.abspath(args.export),
        "urls_recorded": len(all_urls),
        "urls_fetched": len(fetched),
        "urls_not_fetched": len(all_urls) - len(fetched),
        "status_codes": dict(sorted(Counter(status.values()).items())),
        "hosts_recorded": dict(hosts),
        "hosts_fetched": dict(fetched_hosts),
        "cluster_rows": len(members),
        "cluster_rows_not_fetched": sum(1 for u in cluster_of if u not in status),
        "pages_csv_cluster_mismatches": mismatched,
        "truth_entities": len(by_entity),
        "truth_entity_types": dict(Counter(e[0] for e in by_entity)),
        "all": overall,
        "page_views": page_scores,
        "preferred_url_is_truth_url": {"ok": pref_ok, "clusters": pref_total, "wrong_examples": pref_wrong[: args.top]},
        "false_merges": false_merges,
        "missed_groups": missed,
        "kinds": kinds_out,
    }
    if args.json:
        json.dump(result, sys.stdout, indent=1, default=str)
        print()
        return 0
    print_summary(result, args.top)
    return 0


def print_summary(r, top):
    a, p = r["all"], r["page_views"]
    print(f"Dustpan audit vs {r['ground']} truth  ({r['export']})")
    print(f"URLs: {r['urls_recorded']} recorded, {r['urls_fetched']} fetched (scored), {r['urls_not_fetched']} not fetched")
    print(f"Status codes of fetched URLs: {r['status_codes']}")
    print(f"Hosts fetched: {r['hosts_fetched']}   (recorded: {r['hosts_recorded']})")
    print(f"Truth: {r['truth_entities']} entities among fetched URLs {r['truth_entity_types']}")
    if r["pages_csv_cluster_mismatches"]:
        print(f"WARNING: {r['pages_csv_cluster_mismatches']} fetched URLs whose pages.csv Cluster differs from clusters.csv")
    print()
    print(f"{'':24}{'URLs':>7}{'precision':>11}{'recall':>9}{'TP pairs':>10}{'FP pairs':>10}{'FN pairs':>10}{'clusters':>10}{'truth grp':>10}")
    for name, s in (("all fetched URLs", a), ("page views only", p)):
        print(
            f"{name:24}{s['urls']:>7}{s['precision']:>11.4f}{s['recall']:>9.4f}{s['true_positive_pairs']:>10}"
            f"{s['false_positive_pairs']:>10}{s['false_negative_pairs']:>10}{s['audit_clusters_multi']:>10}{s['truth_groups_multi']:>10}"
        )
    if a.get("duplicate_content_pairs"):
        print(f"Duplicate-content pairs (two objects with the same content, in one cluster; neither right nor wrong): "
              f"{a['duplicate_content_pairs']}")
    print("B-cubed (per URL): " + "; ".join(
        f"{name} precision {s['bcubed_precision']:.4f} recall {s['bcubed_recall']:.4f}"
        for name, s in (("all", a), ("page views", p))))
    pr = r["preferred_url_is_truth_url"]
    print(f"\nPreferred URL = the page's {r['page_url_name']} in {pr['ok']} of {pr['clusters']} correct single-page clusters")
    for w in pr["wrong_examples"][:3]:
        print(f"  cluster {w['cluster']}: preferred {w['preferred']}  (truth {w['truth']})")

    fm = r["false_merges"]
    print(f"\nFalse merges: {len(fm)} audit clusters hold URLs of more than one entity "
          f"({sum(x['false_pairs'] for x in fm)} false pairs). Worst:")
    for x in fm[:top]:
        print(f"  cluster {x['cluster']}: {x['urls']} URLs, {len(x['entities'])} entities, {x['false_pairs']} false pairs; preferred {x['preferred']}")
        for g in x["entities"][:4]:
            more = f" (+{len(g['urls']) - 2} more)" if len(g["urls"]) > 2 else ""
            print(f"      {g['entity']}: {', '.join(g['urls'][:2])}{more}")
        if len(x["entities"]) > 4:
            print(f"      ... {len(x['entities']) - 4} more entities")
        if x["why_example"]:
            print(f"      why: {x['why_example'].splitlines()[0][:200]}")

    mg = r["missed_groups"]
    print(f"\nMissed groups: {len(mg)} entities split over several audit clusters/singletons "
          f"({sum(x['missed_pairs'] for x in mg)} missed pairs). Biggest:")
    for x in mg[:top]:
        print(f"  {x['entity']}: {x['urls']} URLs in {len(x['parts'])} parts, {x['missed_pairs']} missed pairs")
        for part in x["parts"][:4]:
            where = f"cluster {part['cluster']}" if part["cluster"] is not None else "no cluster"
            more = f" (+{len(part['urls']) - 3} more)" if len(part["urls"]) > 3 else ""
            print(f"      {where}: {', '.join(part['urls'][:3])}{more}")

    print("\nKinds of URL the audit fetched (a URL has several kinds). dup: its entity has other fetched URLs;")
    print("any/all: in one audit cluster with at least one/all of them; page URL: in the cluster of its page's")
    print(f"{r['page_url_name']} (of those whose {r['page_url_name']} was fetched); false: its cluster holds other entities.")
    print(f"  {'kind':46}{'URLs':>6}{'dup':>6}{'any':>6}{'all':>6}{'page URL':>11}{'false':>7}  statuses")
    for k, v in r["kinds"].items():
        st = " ".join(f"{s}:{n}" for s, n in v["statuses"].items())
        pu = f"{v['with_page_url']}/{v['page_url_fetched']}" if v["page_url_fetched"] else "-"
        print(f"  {k:46}{v['urls']:>6}{v['duplicate_urls']:>6}{v['with_any']:>6}{v['with_all']:>6}{pu:>11}{v['falsely_merged']:>7}  {st}")

if __name__ == "__main__":
    sys.exit(main())
