#!/usr/bin/env python3
"""Ground truth of the MediaWiki proving ground: which URLs are the same page.

    from truth import Truth
    t = Truth("/tmp/dustpan-mediawiki")
    t.entity("http://127.0.0.1:8680/w/index.php?title=Article_007&action=view")
        -> ("page", 0, "Article_007")
    t.explain(url) -> (entity, kinds)      kinds: labels of the URL's form, for reports

    truth.py STATE_DIR --selftest          checks the rules on URLs of the seeded wiki
    truth.py STATE_DIR --verify            checks the truth against the running wiki (HTTP)
    truth.py STATE_DIR URL...              prints each URL's entity and kinds

The truth is read from the wiki's SQLite database (page, redirect, revision,
interwiki tables), never from a crawl, plus the namespace and special-page alias
tables that setup.sh saved from api.php (STATE_DIR/truth/siteinfo.json; they are
configuration, not database rows). The rules follow MediaWiki 1.39's own code
(MediaWiki::parseTitle, MediaWiki::initializeArticle, Article::getOldIDFromRequest,
MediaWikiTitleCodec::splitTitleString, SpecialPageFactory::resolveAlias):

- /wiki/TITLE, /w/index.php?title=TITLE, /w/index.php/TITLE; the path's title wins
  over ?title=. Path titles are percent-decoded ('+' stays '+'); query values are
  decoded as PHP does ('+' is a space). Spaces and runs of '_' become one '_',
  leading and trailing '_' go, a namespace prefix is matched case-insensitively
  (names, canonical names, aliases), and the first letter is upper-cased.
- ?curid=N is page N; otherwise ?oldid=N (or ?diff=N) of an existing revision
  overrides the title; with neither, an empty title is the Main Page (so /, /wiki/,
  /w/, /w/index.php answer 301 to /wiki/Main_Page).
- A view (no action, action=view or render) of a redirect page is its target's
  page, unless redirect=no, oldid or diff is given or the target does not exist:
  then it is the redirect page itself ("redirectpage", ns, title).
- A view with oldid: the current revision (or oldid=0) is the page (not followed if
  it is a redirect); an older one is ("rev", id); direction=next|prev is applied.
- diff= is ("diff", old_rev, new_rev) after resolving prev/next/cur.
- Any other action is ("action", ns, title, action, params), params being the query
  less title/action and the parameters that do not change what is shown.
- Special pages are ("special", RealName, subpage, params) by their canonical name
  (aliases and case resolved), params as for actions.
- On a view, only uselang, useskin, variant and the category paging parameters
  change what is shown ("view", page entity, params); printable=yes, action=view,
  tracking parameters (utm_*, gclid, fbclid) and unknown ones (foo=1) do not.
- A view of a title that does not exist (404), a bad title (400), an interwiki
  title, a missing revision, any other host or port, and everything that is not
  index.php (load.php, api.php, skins, sitemaps, robots.txt, favicon.ico) is
  ("other", url): its own entity.
"""

import json
import os
import re
import sqlite3
import sys
import unicodedata
from urllib.parse import parse_qsl, quote, unquote, urlsplit

GROUND = "MediaWiki"
PAGE_URL = "/wiki/ URL"
SERVER = "http://127.0.0.1:8680"
NETLOC = "127.0.0.1:8680"

# Parameters that never change what a URL shows (tracking, print view, login return).
IGNORED = re.compile(r"^(utm_.*|gclid|fbclid|msclkid|mc_cid|mc_eid|printable|returnto|returntoquery)$")
# Parameters that change what a page view shows (besides title/curid/oldid/diff/action/redirect).
VIEW_PARAMS = {
    "uselang", "useskin", "variant", "pagefrom", "pageuntil", "subcatfrom", "subcatuntil",
    "filefrom", "fileuntil", "from", "until", "diffonly", "section",
}
# Parameters that are part of the URL's identity on their own (handled by the rules).
STRUCTURAL = {"title", "curid", "oldid", "diff", "action", "redirect", "direction"}
TRACKING = re.compile(r"^(utm_.*|gclid|fbclid|msclkid|mc_cid|mc_eid)$")
WS = re.compile("[ _\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
ILLEGAL = re.compile(r"[<>\[\]|{}\x00-\x1f\x7f\ufffd]|%[0-9A-Fa-f]{2}|&[A-Za-z0-9\x80-\xff]+;|&#[0-9]+;|&#x[0-9A-Fa-f]+;")
RESOURCE_PATHS = re.compile(r"^/w/(load|api|opensearch_desc|rest|thumb|img_auth)\.php|^/w/(resources|skins|images)/|^/sitemap/|^/robots\.txt$|^/favicon\.ico$")


def php_int(v):
    """PHP's (int) of a request value as WebRequest::getInt does."""
    if v is None:
        return 0
    m = re.match(r"\s*([+-]?\d+)", v)
    return int(m.group(1)) if m else 0


def wf_urlencode(s):
    """wfUrlencode: urlencode with ; @ $ ! * ( ) , / ~ : kept."""
    return quote(s, safe=";@$!*(),/~:")


class Truth:
    def __init__(self, state_dir):
        self.state = state_dir
        with open(os.path.join(state_dir, "truth", "siteinfo.json"), encoding="utf-8") as f:
            q = json.load(f)["query"]
        self.ns_names = {}  # name (lower, '_') -> id
        self.ns_prefix = {}  # id -> local prefix with '_'
        for n in q["namespaces"].values():
            nid = n["id"]
            self.ns_prefix[nid] = n["name"].replace(" ", "_")
            for name in (n["name"], n.get("canonical") or ""):
                if name:
                    self.ns_names[name.replace(" ", "_").lower()] = nid
        for a in q["namespacealiases"]:
            self.ns_names[a["alias"].replace(" ", "_").lower()] = a["id"]
        self.special = {}  # casefolded alias -> realname
        self.special_local = {}  # realname -> first alias (the local, canonical name)
        for sp in q["specialpagealiases"]:
            self.special_local[sp["realname"]] = sp["aliases"][0]
            for a in sp["aliases"] + [sp["realname"]]:
                self.special[a.replace(" ", "_").casefold()] = sp["realname"]
        self.main_page = self.split_title(q["general"]["mainpage"])

        db = sqlite3.connect(f"file:{state_dir}/data/mwnotes.sqlite?mode=ro", uri=True)
        self.pages = {}  # (ns, dbkey) -> (page_id, is_redirect, latest)
        self.by_id = {}
        for pid, ns, title, redir, latest in db.execute(
            "SELECT page_id, page_namespace, CAST(page_title AS TEXT), page_is_redirect, page_latest FROM page"
        ):
            self.pages[(ns, title)] = (pid, bool(redir), latest)
            self.by_id[pid] = (ns, title)
        self.redirects = {}  # page_id -> (ns, dbkey)
        for rfrom, ns, title, iw in db.execute(
            "SELECT rd_from, rd_namespace, CAST(rd_title AS TEXT), rd_interwiki FROM redirect"
        ):
            if not iw:
                self.redirects[rfrom] = (ns, title)
        self.revs = {}  # rev_id -> page_id
        self.page_revs = {}  # page_id -> [rev_id] in order
        for rid, pid in db.execute(
            "SELECT rev_id, rev_page FROM revision ORDER BY rev_page, rev_timestamp, rev_id"
        ):
            self.revs[rid] = pid
            self.page_revs.setdefault(pid, []).append(rid)
        self.interwiki = {p.lower() for (p,) in db.execute("SELECT CAST(iw_prefix AS TEXT) FROM interwiki")}
        db.close()

    # ---------------------------------------------------------------- titles
    def split_title(self, text):
        """(ns, dbkey) of a title text, or None for a bad title, or ("iw", prefix)."""
        text = unicodedata.normalize("NFC", text)
        text = text.replace("\u200e", "").replace("\u200f", "")
        if "#" in text:
            text = text.split("#", 1)[0]
        key = WS.sub("_", text).strip("_")
        if not key or ILLEGAL.search(key):
            return None
        ns = 0
        if key.startswith(":"):
            key = key[1:].lstrip("_")
        m = re.match(r"^(.+?)_*:_*(.*)$", key)
        if m:
            prefix = m.group(1).lower()
            if prefix in self.ns_names:
                ns, key = self.ns_names[prefix], m.group(2)
            elif prefix in self.interwiki:
                return ("iw", prefix)
        if ns != -1 and not key:
            return None
        if key.startswith(":") or key in (".", "..") or key.startswith(("./", "../")):
            return None
        if "/./" in key or "/../" in key or key.endswith(("/.", "/..")) or "~~~" in key:
            return None
        if len(key.encode("utf-8")) > 255:
            return None
        if key:
            key = key[0].upper() + key[1:] if len(key[0].upper()) == 1 else key
        return (ns, key)

    def title_url(self, ns, key):
        prefix = self.ns_prefix.get(ns, "")
        full = f"{prefix}:{key}" if prefix else key
        return f"{SERVER}/wiki/{wf_urlencode(full)}"

    def entity_url(self, e):
        """A URL showing the entity, for reports (the canonical URL of a page)."""
        if e[0] == "page" or e[0] == "redirectpage":
            u = self.title_url(e[1], e[2])
            return u + ("?redirect=no" if e[0] == "redirectpage" else "")
        if e[0] == "rev":
            return f"{SERVER}/w/index.php?oldid={e[1]}"
        if e[0] == "special":
            sub = f"/{e[2]}" if e[2] else ""
            return self.title_url(-1, self.special_local.get(e[1], e[1]) + sub)
        if e[0] == "other":
            return e[1]
        return repr(e)

    # ---------------------------------------------------------------- URLs
    def entity(self, url):
        return self.explain(url)[0]

    def explain(self, url):
        kinds = []
        try:
            p = urlsplit(url)
        except ValueError:
            return ("other", url), ["bad URL"]
        if p.scheme != "http" or p.netloc.lower() != NETLOC:
            return ("other", url), ["other host or scheme"]
        path = p.path or "/"
        script = re.match(r"^/+w/+index\.php(?=/|$)", path)
        if script and script.group(0) != "/w/index.php":
            # Doubled slashes before the script still reach index.php (Apache finds the
            # file); after it, in a title, they are part of the title (/wiki//X is 404).
            path = "/w/index.php" + path[script.end():]
            kinds.append("doubled slash")
        params = parse_qsl(p.query, keep_blank_values=True)
        q = {}
        for k, v in params:  # PHP: the last value wins
            q[k] = v
        path_title = None
        if path == "/":
            kinds.append("root /" if not p.query else "root / with query")
        elif path == "/wiki" or path.startswith("/wiki/"):
            path_title = unquote(path[6:], errors="replace")
            kinds.append("article path /wiki/" if path_title else "/wiki/ without title")
            if not path_title:
                path_title = None
        elif path.startswith("/w/index.php/"):
            # An empty PATH_INFO title ("/w/index.php/") still wins over ?title=: the
            # wiki shows its Main Page (checked with curl).
            path_title = unquote(path[len("/w/index.php/"):], errors="replace")
            kinds.append("PATH_INFO /w/index.php/TITLE")
        elif path in ("/w/index.php", "/w/", "/w"):
            kinds.append("index.php?title=" if "title" in q else "index.php without title")
        else:
            kind = "resource (load.php, api.php, sitemap, robots.txt...)" if RESOURCE_PATHS.search(path) else "other path"
            return ("other", url), [kind]

        raw_title = path_title if path_title is not None else q.get("title", "")
        tracking = [k for k in q if TRACKING.match(k)]
        if tracking:
            kinds.append("tracking parameter (utm_*...)")
        action = q.get("action", "view")
        curid = php_int(q.get("curid"))
        t = None
        if curid:
            t = self.by_id.get(curid)
            kinds.append("curid=")
        else:
            if raw_title:
                t = self.split_title(raw_title)
                if t and t[0] == "iw":
                    return ("other", url), kinds + ["interwiki"]
        if t is None or t[0] != -1:
            oid = php_int(q.get("oldid")) or php_int(q.get("diff"))
            if oid and oid in self.revs:
                t = self.by_id[self.revs[oid]]
        if t is None and "search" in q:
            t = (-1, "Search")
        if t is None and raw_title == "" and "curid" not in q and action != "delete":
            t = self.main_page
            kinds.append("no title: Main Page")
        if t is None:
            return ("other", url), kinds + ["bad title"]
        ns, key = t

        if raw_title and not curid:
            self._title_form_kinds(raw_title, path_title is not None, p, kinds)

        if ns == -2:
            ns = 6
        if ns == -1:
            name, _, sub = key.partition("/")
            real = self.special.get(name.casefold())
            kinds.append("special page")
            if real is None:
                return ("other", url), kinds + ["no such special page"]
            rest = tuple(sorted((k, v) for k, v in params if k != "title" and not IGNORED.match(k)))
            return ("special", real, WS.sub("_", sub).strip("_"), rest), kinds

        kinds.append(
            {0: "main namespace", 1: "talk page", 14: "category page", 10: "template page", 2: "user page", 4: "project page"}.get(
                ns, "other namespace"
            )
        )
        page = self.pages.get((ns, key))
        if action not in ("view", "render"):
            kinds.append(f"action={action}" if action in ("history", "edit", "info", "raw") else "action=other")
            rest = tuple(
                sorted(
                    (k, v)
                    for k, v in params
                    if k not in ("title", "action", "curid") and not IGNORED.match(k)
                    and not (k == "redlink" and page is None)
                )
            )
            if action == "edit" and "redlink" in q and page is not None:
                return ("page", ns, key) if not page[1] else ("redirectpage", ns, key), kinds + ["redlink to existing page"]
            return ("action", ns, key, action, rest), kinds
        if action == "view" and "action" in q:
            kinds.append("action=view")
        if "printable" in q:
            kinds.append("printable=")
        unknown = [k for k in q if k not in STRUCTURAL and k not in VIEW_PARAMS and not IGNORED.match(k) and k != "search"]
        if unknown:
            kinds.append("unknown parameter")
        if page is None:
            return ("other", url), kinds + ["404 (no such page)"]
        pid, is_redirect, latest = page

        if "diff" in q:
            kinds.append("diff=")
            return self._diff(q, pid, latest), kinds

        if "oldid" in q:
            oid = php_int(q.get("oldid"))
            if oid and oid not in self.revs:
                return ("other", url), kinds + ["missing revision"]
            revs = self.page_revs[pid]
            direction = q.get("direction")
            if direction in ("next", "prev") and oid:
                i = revs.index(oid)
                if direction == "next":
                    if i + 1 < len(revs):
                        oid = revs[i + 1]
                    else:  # MediaWiki redirects to TITLE?redirect=no
                        oid = latest
                elif i > 0:
                    oid = revs[i - 1]
                kinds.append(f"direction={direction}")
            if oid == 0 or oid == latest:
                kinds.append("oldid= current revision")
                base = ("redirectpage" if is_redirect else "page", ns, key)
            else:
                kinds.append("oldid= old revision")
                base = ("rev", oid)
        else:
            base = ("page", ns, key)
            if is_redirect:
                target = self.redirects.get(pid)
                tpage = self.pages.get(target) if target else None
                if q.get("redirect") == "no":
                    kinds.append("redirect=no")
                    base = ("redirectpage", ns, key)
                elif tpage is None:
                    kinds.append("redirect page (broken)")
                    base = ("redirectpage", ns, key)
                else:
                    kinds.append("redirect page")
                    base = ("redirectpage" if tpage[1] else "page",) + target
        if action == "render":
            kinds.append("action=render")
            base = ("render",) + base
        shown = tuple(sorted((k, v) for k, v in params if k in VIEW_PARAMS))
        if shown:
            kinds.append("view parameter (uselang, paging...)")
            return ("view", base, shown), kinds
        return base, kinds

    def _diff(self, q, pid, latest):
        revs = self.page_revs[pid]
        new, old = q.get("diff", ""), php_int(q.get("oldid"))

        def prev(r):
            rs = self.page_revs.get(self.revs.get(r), [])
            i = rs.index(r) if r in rs else -1
            return rs[i - 1] if i > 0 else 0

        def nxt(r):
            rs = self.page_revs.get(self.revs.get(r), [])
            i = rs.index(r) if r in rs else -1
            return rs[i + 1] if 0 <= i < len(rs) - 1 else r

        if new == "prev":
            new_id, old_id = old or latest, prev(old or latest)
        elif new == "next":
            old_id = old or latest
            new_id = nxt(old_id)
        elif new in ("cur", "0", ""):
            new_id, old_id = latest, old or prev(latest)
        else:
            new_id = php_int(new)
            old_id = old or prev(new_id)
        if old_id and new_id and old_id > new_id:
            old_id, new_id = new_id, old_id
        extra = tuple(sorted((k, v) for k, v in q.items() if k == "diffonly"))
        return ("diff", old_id, new_id) + extra

    def _title_form_kinds(self, raw, in_path, p, kinds):
        """Labels of how the URL writes the title, against MediaWiki's own form."""
        key = WS.sub("_", raw).strip("_")
        if key.startswith(":"):
            key = key[1:]
        m = re.match(r"^(.+?)_*:_*(.*)$", key)
        rest = key
        if m and m.group(1).lower() in self.ns_names:
            if m.group(1) != self.ns_prefix.get(self.ns_names[m.group(1).lower()], m.group(1)) and \
               m.group(1).replace("_", " ").lower() == m.group(1).replace("_", " ") :
                kinds.append("lower-case namespace prefix")
            rest = m.group(2)
        if rest and rest[0] != rest[0].upper():
            kinds.append("lower-case first letter")
        raw_q = [x for x in p.query.split("&") if x.startswith("title=")]
        if " " in raw or (not in_path and raw_q and "+" in raw_q[-1]):
            kinds.append("space, %20 or + in title")
        if "__" in raw.replace(" ", "_"):
            kinds.append("doubled underscore")
        encoded = p.path[len("/wiki/"):] if in_path and p.path.startswith("/wiki/") else None
        if encoded is not None and encoded != wf_urlencode(raw) and "%20" not in encoded:
            kinds.append("other percent-encoding of the title")


# ---------------------------------------------------------------- self test
def selftest(t):
    B = SERVER
    pid = lambda title: t.pages[(0, title)][0]  # noqa: E731
    latest = lambda title: t.pages[(0, title)][2]  # noqa: E731
    first = lambda title: t.page_revs[pid(title)][0]  # noqa: E731
    A1 = ("page", 0, "Article_001")
    redirect = t.by_id[next(r for r in t.redirects if t.by_id[r][1] == "Redirect_05")]
    target = t.redirects[pid("Redirect_05")]
    cases = [
        (f"{B}/wiki/Article_001", A1),
        (f"{B}/wiki/Article_001?action=view", A1),
        (f"{B}/wiki/article_001", A1),
        (f"{B}/wiki/Article%20001", A1),
        (f"{B}/wiki/Article__001", A1),
        (f"{B}/w/index.php?title=Article_001", A1),
        (f"{B}/w/index.php?title=Article+001&action=view", A1),
        (f"{B}/w/index.php?title=article%20001", A1),
        (f"{B}/w/index.php/Article_001", A1),
        (f"{B}/w/index.php?title=Article_001&printable=yes", A1),
        (f"{B}/wiki/Article_001?utm_source=news&utm_medium=x", A1),
        (f"{B}/wiki/Article_001?foo=1", A1),
        (f"{B}/w/index.php?curid={pid('Article_001')}", A1),
        (f"{B}/w/index.php?title=Article_001&oldid={latest('Article_001')}", A1),
        (f"{B}/w/index.php?oldid={latest('Article_001')}", A1),
        (f"{B}/w/index.php?title=Article_002&oldid={latest('Article_001')}", A1),
        (f"{B}/w/index.php?oldid={first('Article_001')}", ("rev", first("Article_001"))),
        (f"{B}/w/index.php?title=Article_001&direction=next&oldid={first('Article_001')}", A1),
        (f"{B}/w/index.php?title=Article_001&direction=prev&oldid={latest('Article_001')}", ("rev", first("Article_001"))),
        (f"{B}/w/index.php?title=Article_001&diff=prev&oldid={latest('Article_001')}", ("diff", first("Article_001"), latest("Article_001"))),
        (f"{B}/w/index.php?title=Article_001&diff={latest('Article_001')}&oldid={first('Article_001')}", ("diff", first("Article_001"), latest("Article_001"))),
        (f"{B}/w/index.php?title=Article_001&diff=cur&oldid={first('Article_001')}", ("diff", first("Article_001"), latest("Article_001"))),
        (f"{B}/w/index.php?title=Article_001&action=history", ("action", 0, "Article_001", "history", ())),
        (f"{B}/w/index.php?title=article_001&action=history&utm_source=x", ("action", 0, "Article_001", "history", ())),
        (f"{B}/w/index.php?title=Article_001&action=edit&section=2", ("action", 0, "Article_001", "edit", (("section", "2"),))),
        (f"{B}/w/index.php?title=Article_001&action=raw", ("action", 0, "Article_001", "raw", ())),
        (f"{B}/wiki/Redirect_05", ("page",) + target),
        (f"{B}/w/index.php?title=Redirect_05&redirect=no", ("redirectpage",) + redirect),
        (f"{B}/w/index.php?curid={pid('Redirect_05')}", ("page",) + target),
        (f"{B}/wiki/Cafe_Noir", ("page", 0, "Café_Noir")),
        (f"{B}/wiki/Caf%C3%A9_Noir", ("page", 0, "Café_Noir")),
        (f"{B}/wiki/Caf%c3%a9_Noir", ("page", 0, "Café_Noir")),
        (f"{B}/wiki/Q%26A%3A_Tips%2FPart_1%2C_2%21", ("page", 0, "Q&A:_Tips/Part_1,_2!")),
        (f"{B}/wiki/Q%26A:_Tips/Part_1,_2!", ("page", 0, "Q&A:_Tips/Part_1,_2!")),
        (f"{B}/wiki/C%2B%2B_(language)", ("page", 0, "C++_(language)")),
        (f"{B}/wiki/C++_(language)", ("page", 0, "C++_(language)")),
        (f"{B}/w/index.php?title=C%2B%2B_(language)", ("page", 0, "C++_(language)")),
        (f"{B}/wiki/Talk:Article_001", ("page", 1, "Article_001")),
        (f"{B}/wiki/talk:article_001", ("page", 1, "Article_001")),
        (f"{B}/wiki/Category:Group_A", ("page", 14, "Group_A")),
        (f"{B}/wiki/Template:Infobox", ("page", 10, "Infobox")),
        (f"{B}/", ("page", 0, "Main_Page")),
        (f"{B}/wiki/", ("page", 0, "Main_Page")),
        (f"{B}/w/index.php", ("page", 0, "Main_Page")),
        (f"{B}/w/", ("page", 0, "Main_Page")),
        (f"{B}/wiki/Main_Page", ("page", 0, "Main_Page")),
        (f"{B}/wiki/Special:AllPages", ("special", "Allpages", "", ())),
        (f"{B}/wiki/special:allpages", ("special", "Allpages", "", ())),
        (f"{B}/w/index.php?title=Special:UserLogin&returnto=Article+001", ("special", "Userlogin", "", ())),
        (f"{B}/wiki/Special:WhatLinksHere/Article_001", ("special", "Whatlinkshere", "Article_001", ())),
        (f"{B}/wiki/No_such_page", ("other", f"{B}/wiki/No_such_page")),
        (f"{B}/wiki/Article_001_", A1),
        (f"{B}/w/load.php?modules=x", ("other", f"{B}/w/load.php?modules=x")),
        (f"{B}/robots.txt", ("other", f"{B}/robots.txt")),
        (f"{B}/sitemap/sitemap-index-mwnotes.xml", ("other", f"{B}/sitemap/sitemap-index-mwnotes.xml")),
        ("https://127.0.0.1:8680/wiki/Article_001", ("other", "https://127.0.0.1:8680/wiki/Article_001")),
        (f"{B}/wiki/%5BX%5D", ("other", f"{B}/wiki/%5BX%5D")),
    ]
    bad = 0
    for url, want in cases:
        got, kinds = t.explain(url)
        ok = got == want
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {url}\n       {got}  {kinds}" + ("" if ok else f"\n       want {want}"))
    # Different entities must differ.
    distinct = [
        f"{B}/wiki/Article_001",
        f"{B}/wiki/Article_002",
        f"{B}/w/index.php?oldid={first('Article_001')}",
        f"{B}/w/index.php?title=Article_001&action=history",
        f"{B}/w/index.php?title=Article_001&action=edit",
        f"{B}/w/index.php?title=Redirect_05&redirect=no",
        f"{B}/wiki/Nope_1",
        f"{B}/wiki/Nope_2",
        f"{B}/wiki/Special:AllPages",
        f"{B}/wiki/Special:RecentChanges",
    ]
    ents = [t.entity(u) for u in distinct]
    if len(set(ents)) != len(ents):
        bad += 1
        print("FAIL distinct entities collide:", ents)
    print(f"{len(cases) + 1 - bad} passed, {bad} failed")
    return bad == 0


def verify(t):
    """Fetches URL variants from the running wiki and checks the truth's claims: URLs of
    one page entity answer 200 (after redirects) with the same parsed content (the
    mw-parser-output block, less the section [edit] links) as the page's /wiki/ URL;
    other entities differ."""
    import hashlib
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(url):
        try:
            with opener.open(url, timeout=30) as r:
                body = r.read().decode("utf-8", "replace")
                status = r.status
        except urllib.error.HTTPError as e:
            return e.code, None
        m = re.search(r'<div class="mw-parser-output">(.*?)<!--\s*NewPP', body, re.S)
        if not m:
            return status, None
        # The print view leaves out the [edit] links of section headings.
        text = re.sub(r'<span class="mw-editsection">.*?</span></span>', "", m.group(1))
        return status, hashlib.md5(text.encode()).hexdigest()

    B = SERVER
    bad = checked = 0
    redirect_of = {}
    for rid, target in t.redirects.items():
        redirect_of.setdefault(target, t.by_id[rid][1])
    samples = ["Article_001", "Article_012", "Article_150", "Café_Noir", "C++_(language)", "Q&A:_Tips/Part_1,_2!"]
    for key in samples:
        pid, _, latest = t.pages[(0, key)]
        enc = wf_urlencode(key)
        variants = [
            f"{B}/wiki/{enc}?action=view", f"{B}/w/index.php?title={quote(key)}", f"{B}/w/index.php/{enc}",
            f"{B}/wiki/{enc[0].lower() + enc[1:]}", f"{B}/wiki/{enc.replace('_', '%20')}",
            f"{B}/w/index.php?title={quote(key).replace('_', '+')}", f"{B}/wiki/{enc}?printable=yes",
            f"{B}/wiki/{enc}?utm_source=x", f"{B}/wiki/{enc}?foo=1", f"{B}/w/index.php?curid={pid}",
            f"{B}/w/index.php?oldid={latest}", f"{B}/w/index.php?title={quote(key)}&oldid={latest}",
        ]
        if (0, key) in redirect_of:
            variants.append(f"{B}/wiki/{wf_urlencode(redirect_of[(0, key)])}")
        base_status, base_hash = get(t.title_url(0, key))
        for u in variants:
            checked += 1
            if t.entity(u) != ("page", 0, key):
                bad += 1
                print(f"FAIL truth: {u} -> {t.entity(u)}")
                continue
            st, h = get(u)
            ok = st == 200 and h is not None and h == base_hash
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} same page   {st} {u}")
        others = [f"{B}/w/index.php?oldid={t.page_revs[pid][0]}"] if len(t.page_revs[pid]) > 1 else []
        others.append(f"{B}/wiki/Article_299" if key != "Article_299" else f"{B}/wiki/Article_298")
        for u in others:
            checked += 1
            st, h = get(u)
            ok = t.entity(u) != ("page", 0, key) and h != base_hash
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} different  {st} {u}")
    for rid in list(t.redirects)[:3]:
        ns, key = t.by_id[rid]
        u = f"{B}/w/index.php?title={quote(key)}&redirect=no"
        checked += 1
        st, h = get(u)
        tgt = t.redirects[rid]
        ok = t.entity(u)[0] == "redirectpage" and h != get(t.title_url(*tgt))[1]
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} redirect=no {st} {u}")
    for u in (f"{B}/wiki/No_such_page_at_all", f"{B}/wiki/Talk:No_such_page"):
        checked += 1
        st, _ = get(u)
        ok = st == 404 and t.entity(u)[0] == "other"
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} 404         {st} {u}")
    print(f"{checked - bad} passed, {bad} failed")
    return bad == 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    truth = Truth(sys.argv[1])
    if sys.argv[2] == "--selftest":
        sys.exit(0 if selftest(truth) else 1)
    if sys.argv[2] == "--verify":
        sys.exit(0 if verify(truth) else 1)
    for u in sys.argv[2:]:
        e, k = truth.explain(u)
        print(f"{u}\t{e}\t{', '.join(k)}\t{truth.entity_url(e)}")
