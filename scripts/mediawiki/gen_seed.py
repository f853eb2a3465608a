#!/usr/bin/env python3
"""Writes the seed of the MediaWiki proving ground.

    gen_seed.py seed OUT_DIR          seed.xml (export-0.11 dump) and rev2/*.txt
    gen_seed.py links STATE_DIR       the Main Page and "Reading list" texts, which
                                      link to revision and page ids read from the DB

Deterministic (fixed random seed) except for the timestamps, which are within the last
day so that rebuildrecentchanges.php keeps them ($wgRCMaxAge).

The wikitext links to pages in the forms that MediaWiki renders to different URLs
(index.php?title=, PATH_INFO, lower-case first letter, %20, '+', doubled '_', redirect
pages, action=view, printable=yes, oldid old and current, curid, redirect=no, tracking
and unknown parameters, percent-encoding in lower case), so a crawl of the wiki meets
the duplicate URLs a real wiki has.
"""

import datetime
import os
import random
import sqlite3
import sys
from xml.sax.saxutils import escape

BASE = "http://127.0.0.1:8680"
N_ARTICLES = 300
N_STUBS = 8  # the last N_STUBS articles share one short text
N_TALK = 40
N_REDIRECTS = 28
N_REV2 = 20  # articles 001..020 get a second revision
GROUPS = ["Group A", "Group B", "Group C", "Group D", "Group E"]

STUB_TEXT = (
    "This article is a stub. It names a subject that the Notes Wiki keeps for later, "
    "but nobody has written about it yet. You can help the wiki by expanding it with "
    "facts, dates and sources."
)

NOUNS = """river harbour bridge mill tower market garden orchard quarry canal chapel
school library foundry brewery theatre station lighthouse causeway granary forge
ferry reservoir vineyard meadow valley ridge forest marsh island delta plateau
archive museum observatory hospital college workshop printing-house tannery
bakery dairy farmstead abbey castle fortress barracks dockyard warehouse""".split()
ADJS = """old northern southern eastern western lower upper great little royal
ancient modern quiet busy narrow broad stone wooden iron red white green grey
golden silver hidden famous forgotten restored ruined flooded windy sunny""".split()
VERBS = """built rebuilt founded restored extended moved closed reopened enlarged
repaired sold bought inherited surveyed mapped described painted photographed
flooded burned renamed divided merged""".split()
PEOPLE = """Ada Bruno Clara Dmitri Elena Farid Greta Hugo Ines Jonas Kiri Lars
Maren Nils Olga Pavel Quinn Rosa Stefan Tove Ugo Vera Wim Xenia Yusuf Zora""".split()
FAMILY = """Abbott Brandt Castell Dorn Ekberg Falk Grove Holm Ibsen Janssen Kohl
Lind Moreau Nyberg Ortega Pike Quist Rask Sandoval Thorne Ulrich Voss Weller""".split()
THINGS = """wool grain salt timber coal copper glass paper cloth wine cheese fish
iron bricks rope leather lace clocks bells maps books""".split()


def art(i):
    return f"Article {i:03d}"


def sentence(r):
    kind = r.randrange(8)
    a, n, v = r.choice(ADJS), r.choice(NOUNS), r.choice(VERBS)
    who = f"{r.choice(PEOPLE)} {r.choice(FAMILY)}"
    year = r.randrange(1620, 1990)
    thing = r.choice(THINGS)
    if kind == 0:
        return f"The {a} {n} was {v} in {year} by {who}."
    if kind == 1:
        return f"In {year} the town traded {thing} and {r.choice(THINGS)} through the {n}."
    if kind == 2:
        return f"{who} wrote that the {n} stood near the {a} {r.choice(NOUNS)}."
    if kind == 3:
        return f"Records from {year} list {r.randrange(3, 900)} workers at the {n}."
    if kind == 4:
        return f"The {n} was {v} again after {year}, when {thing} prices fell."
    if kind == 5:
        return f"Visitors today see the {a} walls and a small exhibition about {thing}."
    if kind == 6:
        return f"A survey of {year} by {who} measured the {n} at {r.randrange(10, 400)} metres."
    return f"Local stories say that {who} kept {thing} in the {a} {n} during the winter of {year}."


def paragraph(r, k):
    return " ".join(sentence(r) for _ in range(k))


def link_forms(i, r):
    """One 'See also' line per article, rotating through the URL forms."""
    j = (i * 7) % N_ARTICLES + 1
    if j == i:
        j = j % N_ARTICLES + 1
    t = art(j)
    u = t.replace(" ", "_")
    forms = [
        f"[[{t}]]",
        f"[[{t[0].lower() + t[1:]}]] (lower-case first letter, rendered as the canonical link)",
        f"[[Redirect {(i % N_REDIRECTS) + 1:02d}]] (a redirect page)",
        f"[{{{{fullurl:{t}|action=view}}}} {t}, action=view]",
        f"[{{{{fullurl:{t}|printable=yes}}}} {t}, printable]",
        f"[{{{{canonicalurl:{t}}}}} {t}, canonical URL]",
        f"[{BASE}/w/index.php?title={u} {t} through index.php]",
        f"[{BASE}/wiki/{u}?utm_source=news {t} from the newsletter]",
        f"[{BASE}/w/index.php/{u} {t} through PATH_INFO]",
        f"[{BASE}/wiki/{u[0].lower() + u[1:]} {t} in lower case]",
        f"[{BASE}/wiki/{t.replace(' ', '%20')} {t} with %20]",
        f"[{BASE}/wiki/{u}?foo=1 {t} with an unknown parameter]",
        f"[{BASE}/w/index.php?title={t.replace(' ', '+')} {t} with +]",
        f"[{BASE}/wiki/{t.replace(' ', '__')} {t} with a doubled underscore]",
        f"[[{t}#History|{t}, history section]]",
        f"[{BASE}/wiki/talk:{u} talk page of {t} in lower case]",
        f"[{BASE}/w/index.php?title={u}&utm_source=feed&utm_medium=rss {t} from the feed]",
        f"[{BASE}/wiki/{u}?action=view {t}, action=view]",
    ]
    return forms[i % len(forms)]


def article_text(i):
    r = random.Random(1000 + i)
    group = GROUPS[i % len(GROUPS)]
    infobox = (
        "{{Infobox\n"
        f"| name = {art(i)}\n"
        f"| group = [[:Category:{group}|{group}]]\n"
        f"| founded = {r.randrange(1620, 1900)}\n"
        f"| keeper = {r.choice(PEOPLE)} {r.choice(FAMILY)}\n"
        "}}\n"
    )
    if i > N_ARTICLES - N_STUBS:
        return infobox + STUB_TEXT + f"\n\n[[Category:{group}]]\n[[Category:Stubs]]\n"
    links = [r.randrange(1, N_ARTICLES + 1) for _ in range(3)]
    links = [x if x != i else (x % N_ARTICLES) + 1 for x in links]
    body = [
        f"'''{art(i)}''' is the {r.choice(ADJS)} {r.choice(NOUNS)} of the Notes Wiki's "
        f"imaginary county. " + paragraph(r, r.randrange(3, 6)),
        "== History ==",
        paragraph(r, r.randrange(3, 7)) + f" See also [[{art(links[0])}]].",
        paragraph(r, r.randrange(2, 5))
        + f" It is often compared with [[{art(links[1])}|the {r.choice(NOUNS)} of {art(links[1])}]].",
        "== Today ==",
        paragraph(r, r.randrange(2, 5)) + f" Nearby: [[{art(links[2])}]].",
        "== See also ==",
        "* " + link_forms(i, r),
        f"[[Category:{group}]]",
    ]
    return infobox + "\n\n".join(body) + "\n"


def rev2_text(i):
    r = random.Random(5000 + i)
    return (
        article_text(i)
        + "\n== Update ==\n"
        + paragraph(r, 3)
        + "\n"
    )


def pages():
    """(title, ns, text) for every seed page."""
    out = []
    out.append(
        (
            "Template:Infobox",
            10,
            '<div class="infobox" style="float:right;border:1px solid #aaa;padding:4px">\n'
            "'''{{{name|{{PAGENAME}}}}}'''<br/>\n"
            "Group: {{{group|}}}<br/>\nFounded: {{{founded|unknown}}}<br/>\n"
            "Keeper: {{{keeper|}}}\n</div><noinclude>An infobox for articles. "
            "[[Category:Templates]]</noinclude>",
        )
    )
    for i in range(1, N_ARTICLES + 1):
        out.append((art(i), 0, article_text(i)))
    r = random.Random(7)
    for k in range(1, N_REDIRECTS + 1):
        target = art(r.randrange(1, N_ARTICLES + 1))
        if k in (27, 28):
            target += "#History"  # a redirect to a section
        out.append((f"Redirect {k:02d}", 0, f"#REDIRECT [[{target}]]\n"))
    out.append(("Cafe Noir", 0, "#REDIRECT [[Café Noir]]\n"))
    out.append(("C plus plus", 0, "#REDIRECT [[C++ (language)]]\n"))
    specials = {
        "Café Noir": "'''Café Noir''' is the coffee house by the [[Article 012|harbour]]. "
        + paragraph(random.Random(91), 4)
        + f"\n\nAlso written [{BASE}/wiki/Caf%c3%a9_Noir in lower-case percent-encoding] "
        + "or [[Cafe Noir]].\n[[Category:Group A]]\n",
        "C++ (language)": "'''C++''' is the name of the county's printing code. "
        + paragraph(random.Random(92), 4)
        + "\n\nSee [[Q&A: Tips/Part 1, 2!]] and [[C plus plus]].\n[[Category:Group B]]\n",
        "Q&A: Tips/Part 1, 2!": "Questions and answers about the wiki. "
        + paragraph(random.Random(93), 4)
        + f"\n\n[{BASE}/wiki/Q%26A%3A_Tips%2FPart_1%2C_2%21 Fully encoded link].\n"
        + "[[Category:Group C]]\n",
    }
    for t, text in specials.items():
        out.append((t, 0, text))
    for i in range(1, N_TALK + 1):
        r = random.Random(3000 + i)
        out.append(
            (
                f"Talk:{art(i)}",
                1,
                f"== Sources for [[{art(i)}]] ==\n{paragraph(r, 2)} --[[User:Admin|Admin]]\n\n"
                f":{paragraph(r, 1)}\n",
            )
        )
    for g in GROUPS:
        out.append(
            (
                f"Category:{g}",
                14,
                f"Articles of {g}. {paragraph(random.Random(sum(map(ord, g))), 2)}\n",
            )
        )
    out.append(("Category:Stubs", 14, "Articles that are stubs.\n"))
    out.append(("Category:Templates", 14, "Templates of the wiki.\n"))
    return out


def write_seed(out_dir):
    os.makedirs(os.path.join(out_dir, "rev2"), exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    start = now - datetime.timedelta(hours=20)
    ps = pages()
    with open(os.path.join(out_dir, "seed.xml"), "w", encoding="utf-8") as f:
        f.write(
            '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" '
            'version="0.11" xml:lang="en">\n'
        )
        for n, (title, ns, text) in enumerate(ps):
            ts = (start + datetime.timedelta(seconds=60 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
            f.write(
                f"  <page>\n    <title>{escape(title)}</title>\n    <ns>{ns}</ns>\n"
                f"    <revision>\n      <timestamp>{ts}</timestamp>\n"
                "      <contributor><username>Admin</username></contributor>\n"
                "      <comment>seed</comment>\n"
                "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
                f'      <text xml:space="preserve">{escape(text)}</text>\n'
                "    </revision>\n  </page>\n"
            )
        f.write("</mediawiki>\n")
    for i in range(1, N_REV2 + 1):
        with open(os.path.join(out_dir, "rev2", f"{i:03d}.txt"), "w", encoding="utf-8") as f:
            f.write(rev2_text(i))
    print(f"{len(ps)} pages, {N_REV2} second revisions -> {out_dir}")


def write_links(state):
    """Main Page and Reading list texts, with ids read from the DB."""
    db = sqlite3.connect(f"file:{state}/data/mwnotes.sqlite?mode=ro", uri=True)
    q = db.execute
    pid = {
        t: (p, latest)
        for t, p, latest in q(
            "SELECT page_title, page_id, page_latest FROM page WHERE page_namespace = 0"
        )
    }

    def revs(title):
        return [
            r
            for (r,) in q(
                "SELECT rev_id FROM revision WHERE rev_page = ? ORDER BY rev_id",
                (pid[title][0],),
            )
        ]

    lines = ["== Revisions and ids ==", ""]
    for i in range(1, 11):
        t = art(i)
        u = t.replace(" ", "_")
        old, cur = revs(u)[0], pid[u][1]
        lines.append(
            f"* {t}: [{{{{fullurl:{t}|oldid={old}}}}} first version], "
            f"[{{{{fullurl:{t}|oldid={cur}}}}} current version], "
            f"[{BASE}/w/index.php?oldid={old} old revision without title], "
            f"[{BASE}/w/index.php?curid={pid[u][0]} by page id], "
            f"[{{{{fullurl:{t}|diff={cur}&oldid={old}}}}} changes]"
        )
    for i in range(11, 21):
        t = art(i)
        u = t.replace(" ", "_")
        lines.append(
            f"* {t}: [{BASE}/w/index.php?oldid={pid[u][1]} permanent link], "
            f"[{BASE}/w/index.php?title={u}&oldid={revs(u)[0]} as first written]"
        )
    for k in (1, 2, 3):
        t = f"Redirect_{k:02d}"
        lines.append(
            f"* [{{{{fullurl:{t}|redirect=no}}}} Redirect {k:02d} itself], "
            f"[{BASE}/w/index.php?curid={pid[t][0]} Redirect {k:02d} by page id]"
        )
    for i in (21, 22, 23):
        u = art(i).replace(" ", "_")
        lines.append(f"* [{BASE}/w/index.php?curid={pid[u][0]} {art(i)} by page id]")
    reading = "\n".join(lines) + "\n"

    r = random.Random(11)
    featured = sorted(r.sample(range(1, N_ARTICLES + 1), 12))
    main = (
        "'''Welcome to the Notes Wiki''', the wiki of an imaginary county.\n\n"
        "== Featured articles ==\n"
        + "".join(f"* [[{art(i)}]]\n" for i in featured)
        + "\n== Browse ==\n"
        + "".join(f"* [[:Category:{g}]]\n" for g in GROUPS)
        + "* [[:Category:Stubs]]\n* [[Café Noir]], [[C++ (language)]], [[Q&A: Tips/Part 1, 2!]]\n"
        + "* [[Reading list]]\n* [[Special:AllPages|All pages]]\n"
        + f"* [{BASE}/ Home], [{BASE}/w/index.php Home through index.php]\n"
    )
    seed = os.path.join(state, "seed")
    with open(os.path.join(seed, "reading_list.txt"), "w", encoding="utf-8") as f:
        f.write(reading)
    with open(os.path.join(seed, "main_page.txt"), "w", encoding="utf-8") as f:
        f.write(main)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("seed", "links"):
        sys.exit(__doc__)
    if sys.argv[1] == "seed":
        write_seed(sys.argv[2])
    else:
        write_links(sys.argv[2])
