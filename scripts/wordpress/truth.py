#!/usr/bin/env python3
"""Ground truth of the WordPress proving ground: which URLs are the same page.

    from truth import Truth
    t = Truth("/tmp/dustpan-wordpress")
    t.entity("http://127.0.0.1:8710/2024/01/x/?replytocom=12") -> ("page", "/2024/01/x/")
    t.explain(url) -> (entity, kinds)

    truth.py STATE_DIR --selftest    the rules against WordPress's own links and sitemaps
    truth.py STATE_DIR --verify      every URL of --list checked with curl against Apache
    truth.py STATE_DIR --list        every URL the truth knows (one per line), for `dustpan learn`
    truth.py STATE_DIR --json        each real page with every URL that serves it and how
    truth.py STATE_DIR URL...        each URL's entity and kinds

The objects come from WordPress itself (STATE_DIR/truth/site.json, written by dump.php
through WordPress's API: get_permalink, get_term_link, get_author_posts_url, old slugs
from `_wp_old_slug`, approved comments, posts per page); the URL rules are WordPress
6.1's documented ones (WP::parse_request, redirect_canonical, wp_old_slug_redirect,
redirect_guess_404_permalink, the feed and pagination rewrite rules):

- Each published post, page and attachment is a page at its permalink (with
  `/%year%/%monthnum%/%postname%/`); the permalink without its trailing slash answers
  301 to it. `?p=ID`, `?page_id=ID`, `?attachment_id=ID` answer 301 to the permalink,
  as do `?cat=ID`, `?tag=SLUG`, `?author=ID`, `?m=YYYYMM` to their archives.
- `?replytocom=COMMENT` (every comment's Reply link under threaded comments) is the
  same page: WordPress ignores it for the query, names the post as canonical and adds
  `noindex`; only the comment form's title ("Leave a Reply to NAME") and its cancel
  link differ. Other parameters that are not WordPress query vars (`utm_*`) are
  ignored: the same page.
- A renamed post's old slug answers 301 to the new permalink (wp_old_slug_redirect);
  a single post's `/N/` page number past its only page answers 301 to the permalink; a
  post URL whose slug is the start of a post's slug answers 301 to it (the exact slug
  first, else the lowest ID; redirect_guess_404_permalink).
- Home, category, tag, author, year, month and day archives list posts_per_page posts
  a page; `LIST/page/N/` for N = 2 .. ceil(posts / per page) is a page of its own (other
  posts, no canonical); `LIST/page/1/` answers 200 with the first page (the same
  page); a page past the end is 404.
- Feeds (`/feed/`, `/comments/feed/`, `LIST/feed/`, `POST/feed/`) are ("feed", path);
  `feed` without a slash, and `feed/rss2/`, are the same feed. Sitemaps, robots.txt
  and files are ("file", path) whatever their query; the REST API and xmlrpc are
  ("api", url); searches and 404s are ("other", url).
"""

import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict
from html import unescape
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

GROUND = "WordPress + Apache"
PAGE_URL = "permalink"
SERVER = "http://127.0.0.1:8710"
NETLOC = "127.0.0.1:8710"
WP = "/usr/share/wordpress"

# WP::$public_query_vars (class-wp.php) and the REST route: any of these changes what
# WordPress serves, so a URL carrying one the rules below do not model is its own thing.
QUERY_VARS = set(
    "m p posts w cat withcomments withoutcomments s search exact sentence calendar page paged more tb pb "
    "author order orderby year monthnum day hour minute second name category_name tag feed author_name "
    "pagename page_id error attachment attachment_id subpost subpost_id preview robots favicon taxonomy "
    "term cpage post_type embed rest_route sitemap sitemap-subtype sitemap-stylesheet".split()
)
# Parameters WordPress reads outside the query that do not change the page's object.
SAME_PAGE_PARAMS = {"replytocom"}
FEED_TYPES = {"": "", "rss2": "", "feed": "", "rss": "rss/", "rdf": "rdf/", "atom": "atom/"}


class Truth:
    def __init__(self, state_dir):
        self.state = state_dir
        with open(os.path.join(state_dir, "truth", "site.json"), encoding="utf-8") as f:
            self.site = json.load(f)
        self.ppp = int(self.site["posts_per_page"])
        self.objects = {}  # permalink path -> post record
        self.by_id = {}
        self.old = {}  # old permalink path -> new permalink path
        self.lists = {}  # list path -> number of posts listed
        posts = [p for p in self.site["posts"] if p["type"] == "post" and p["status"] == "publish"]
        for p in self.site["posts"]:
            path = urlsplit(p["permalink"]).path
            p["path"] = path
            self.objects[path] = p
            self.by_id[p["id"]] = p
            for o in p["old_slugs"]:
                old = re.sub(r"[^/]+/$", o + "/", path)
                self.old[old] = path
        self.lists["/"] = len(posts)
        for t in self.site["terms"]:
            if t["count"] > 0:
                self.lists[urlsplit(t["link"]).path] = t["count"]
        self.terms = {(t["taxonomy"], t["id"]): t for t in self.site["terms"]}
        self.tags = {t["slug"]: t for t in self.site["terms"] if t["taxonomy"] == "post_tag"}
        self.authors = {a["id"]: a for a in self.site["authors"]}
        for a in self.site["authors"]:
            if a["posts"] > 0:
                self.lists[urlsplit(a["link"]).path] = a["posts"]
        dates = defaultdict(int)
        for p in posts:
            y, m, d = p["date"][:4], p["date"][5:7], p["date"][8:10]
            for k in (f"/{y}/", f"/{y}/{m}/", f"/{y}/{m}/{d}/"):
                dates[k] += 1
        self.lists.update(dates)
        self.pages_of = {k: max(1, math.ceil(n / self.ppp)) for k, n in self.lists.items()}
        self.posts = posts
        self.attachments = {p["name"].lower(): urlsplit(p["permalink"]).path
                            for p in self.site["posts"] if p["type"] == "attachment"}

    # ------------------------------------------------------------------ rules
    def entity_url(self, e):
        if e[0] in ("page", "feed", "file"):
            return SERVER + e[1]
        if e[0] in ("other", "api"):
            return e[1]
        return repr(e)

    def entity(self, url):
        return self.explain(url)[0]

    def guess(self, path):
        """redirect_guess_404_permalink: the public post whose slug the URL's slug
        starts (within the URL's year and month), the exact slug first."""
        m = re.fullmatch(r"/(\d{4})/(\d{2})/([^/]+)/", path)
        if m:
            y, mo, name = m.groups()
            name = name.lower()
            c = [p for p in self.site["posts"] if p["type"] == "post" and p["name"].startswith(name)
                 and p["date"][:4] == y and p["date"][5:7] == mo]
        else:
            m = re.fullmatch(r"/([^/]+)/", path)
            if not m:
                return None
            name = m.group(1).lower()
            c = [p for p in self.site["posts"] if p["type"] in ("post", "page") and p["name"].startswith(name)]
        exact = [p for p in c if p["name"] == name]
        c = exact or c
        return min(c, key=lambda p: p["id"])["path"] if c else None

    def resolve(self, url):
        """What WordPress does with URL: ("ok", entity, kinds), ("redirect", location,
        kinds) or ("error", status, kinds)."""
        kinds = []
        try:
            u = urlsplit(url)
        except ValueError:
            return ("error", 400, ["bad URL"])
        if u.scheme != "http" or u.netloc.lower() != NETLOC:
            return ("error", 0, ["other host or scheme"])
        path = unquote(u.path or "/")
        q = "?" + u.query if u.query else ""
        # Doubled slashes: WordPress answers the page of the path with them merged, with a
        # 301 there (redirect_canonical), or with 200 on a category's page N (the
        # category_name query var keeps the slash and the page is served as asked).
        if "//" in path:
            merged = re.sub("/{2,}", "/", path)
            r = self.resolve(SERVER + merged + q)
            if r[0] == "ok" and re.fullmatch(r"/category//[^/]+/page/\d+/", path):
                return ("ok", r[1], r[2] + ["doubled slash in a category's page N: 200"])
            return ("redirect", SERVER + merged + q, ["doubled slash: 301"])
        if path.startswith("/index.php/"):
            return ("redirect", SERVER + path[len("/index.php"):] + q, ["/index.php/PATH: 301 to PATH"])
        if path.endswith("/index.php") and path != "/index.php":
            return ("redirect", SERVER + path[: -len("index.php")] + q, ["PATH/index.php: 301 to PATH"])
        params = parse_qsl(u.query, keep_blank_values=True)
        names = {k for k, _ in params}
        extra = [(k, v) for k, v in params if k not in QUERY_VARS]
        wpvars = {k: v for k, v in params if k in QUERY_VARS}

        # Files Apache serves itself (the query never changes them).
        if path.startswith("/wp-content/") or path.startswith("/wp-includes/"):
            local = (self.state + path) if path.startswith("/wp-content/uploads/") else None
            if path.startswith("/wp-content/") and not local:
                local = WP + path
            if path.startswith("/wp-includes/"):
                local = WP + path
            if path.startswith("/wp-content/") and not os.path.exists(local):
                local = self.state + path
            if os.path.isfile(local):
                return ("ok", ("file", path), ["static file"] + (["query on a file"] if u.query else []))
            return ("error", 404, ["no such file"])
        if path in ("/robots.txt", "/wp-sitemap.xml") or re.fullmatch(r"/wp-sitemap-[a-z_-]+-\d+\.xml|/wp-sitemap[a-z-]*\.xsl", path):
            return ("ok", ("file", path + ("?" + u.query if u.query else "")), ["robots.txt or sitemap"])
        if path.startswith("/wp-json/") or path == "/xmlrpc.php" or "rest_route" in names:
            return ("ok", ("api", url), ["REST API / xmlrpc: its own document"])
        if path.startswith(("/wp-admin", "/wp-login.php", "/wp-comments-post.php", "/wp-cron.php")):
            return ("ok", ("other", url), ["admin, login or form handler"])
        if path == "/index.php":
            loc = SERVER + "/" + ("?" + u.query if u.query else "")
            return ("redirect", loc, ["/index.php: 301 to /"])

        keep = ("?" + urlencode(extra)) if extra else ""
        # Plain query links on the home URL, redirected to pretty permalinks.
        if path == "/" and wpvars:
            target, kind = None, None
            if set(wpvars) <= {"p", "page_id", "attachment_id"} and len(wpvars) == 1:
                (k, v), = wpvars.items()
                p = self.by_id.get(int(v)) if v.isdigit() else None
                if p:
                    target, kind = p["path"], f"?{k}=ID: 301 to the permalink"
            elif set(wpvars) == {"cat"} and wpvars["cat"].isdigit():
                t = self.terms.get(("category", int(wpvars["cat"])))
                if t:
                    target, kind = urlsplit(t["link"]).path, "?cat=ID: 301 to the category"
            elif set(wpvars) == {"tag"} and wpvars["tag"] in self.tags:
                target, kind = urlsplit(self.tags[wpvars["tag"]]["link"]).path, "?tag=SLUG: 301 to the tag"
            elif set(wpvars) == {"author"} and wpvars["author"].isdigit() and int(wpvars["author"]) in self.authors:
                target, kind = urlsplit(self.authors[int(wpvars["author"])]["link"]).path, "?author=ID: 301 to the author archive"
            elif set(wpvars) == {"m"} and re.fullmatch(r"\d{4}(\d{2})?", wpvars["m"]):
                mv = wpvars["m"]
                target = f"/{mv[:4]}/" + (f"{mv[4:6]}/" if len(mv) == 6 else "")
                kind = "?m=YYYYMM: 301 to the date archive"
                if target not in self.lists:
                    target = None
            if target:
                return ("redirect", SERVER + target + keep, [kind])
            return ("ok", ("other", url), ["WordPress query vars not modelled"])
        if wpvars:
            return ("ok", ("other", url), ["WordPress query vars not modelled"])
        for k in names & SAME_PAGE_PARAMS:
            kinds.append(f"?{k}: the same page (noindex, canonical to the post)")
        for k in sorted(names - SAME_PAGE_PARAMS):
            kinds.append(f"?{k}: not a WordPress query var (ignored)")

        # Feeds.
        m = re.fullmatch(r"(.*/)(?:feed/?|feed/(rss2|rss|rdf|atom)/?|(rss2|rss|rdf|atom)/?)", path)
        if m and (path.rstrip("/").endswith("/feed") or "/feed/" in path):
            base, t = m.group(1), m.group(2) or m.group(3) or ""
            if base == "/comments/" or base == "/":
                ok = True
            else:
                ok = base in self.objects or base in self.lists
            if ok:
                if not path.endswith("/"):
                    kinds.append("feed without trailing slash (200)")
                if t == "rss2":
                    kinds.append("feed/rss2/ is the default feed")
                return ("ok", ("feed", base + "feed/" + FEED_TYPES[t]), kinds + ["feed"])
            return ("error", 404, kinds + ["feed of nothing"])

        if not path.endswith("/"):
            r = self.resolve(SERVER + path + "/" + ("?" + u.query if u.query else ""))
            if r[0] == "error":
                return r
            if r[0] == "ok" and re.search(r"/page/\d+$", path):
                # redirect_canonical leaves a list's page/N without its slash as asked.
                return ("ok", r[1], r[2] + ["list page/N without trailing slash: 200"])
            return ("redirect", SERVER + path + "/" + ("?" + u.query if u.query else ""), kinds + ["no trailing slash: 301"])

        # Paged lists.
        m = re.fullmatch(r"(.*/)page/(\d+)/", path)
        if m:
            base, n = m.group(1), int(m.group(2))
            if base in self.lists:
                if n == 1:
                    return ("ok", ("page", base), kinds + ["page/1/: the first page (200)"])
                if 2 <= n <= self.pages_of[base]:
                    return ("ok", ("page", path), kinds + ["list page N>1"])
                return ("error", 404, kinds + ["list page past the end"])
        if path in self.lists:
            return ("ok", ("page", path), kinds + ["list (home or archive)"])
        if path in self.objects:
            p = self.objects[path]
            return ("ok", ("page", path), kinds + [f"{p['type']} permalink"])
        # An attachment's slug under another post, or in other letter case: 301 to the
        # attachment's permalink (redirect_canonical).
        m = re.fullmatch(r"/\d{4}/\d{2}/[^/]+/([^/]+)/", path)
        if m and m.group(1).lower() in self.attachments:
            return ("redirect", SERVER + self.attachments[m.group(1).lower()] + keep, kinds + ["attachment under another path: 301"])
        # Slugs are compared in the database's case-insensitive collation
        # (utf8mb4_unicode_ci); the rewrite rules' own words (category, tag, author,
        # page, feed) are case-sensitive. Same page, 200: a post or page names its
        # permalink as canonical, an archive names nothing.
        words = {"category", "tag", "author", "page", "feed"}
        if path != path.lower() and not any(w.lower() in words and w not in words for w in path.split("/")):
            low = path.lower()
            for key in (low, low.rsplit("page/", 1)[0] if re.search(r"/page/\d+/$", low) else None):
                if key is None:
                    continue
                if low in self.lists or low in self.objects:
                    return ("ok", ("page", low), kinds + ["slug in other letter case: 200"])
                m = re.fullmatch(r"(.*/)page/(\d+)/", low)
                if m and m.group(1) in self.lists and 2 <= int(m.group(2)) <= self.pages_of[m.group(1)]:
                    return ("ok", ("page", low), kinds + ["slug in other letter case: 200"])
        if path in self.old:
            return ("redirect", SERVER + self.old[path] + keep, kinds + ["old slug: 301"])
        m = re.fullmatch(r"(/\d{4}/\d{2}/[^/]+/)(\d+)/", path)
        if m and m.group(1) in self.objects:
            return ("redirect", SERVER + m.group(1) + keep, kinds + ["post page number past its pages: 301"])
        g = self.guess(path)
        if g:
            return ("redirect", SERVER + g + keep, kinds + ["slug guessed from a prefix: 301"])
        return ("error", 404, kinds + ["404"])

    def explain(self, url, depth=0):
        what, where, kinds = self.resolve(url)
        if what == "redirect" and depth < 5:
            e, more = self.explain(where, depth + 1)
            return (e if e[0] != "other" else ("other", url)), kinds + more
        if what != "ok":
            return ("other", url), kinds
        return where, kinds

    # -------------------------------------------------------------- the URL list
    def variants(self):
        """Every URL the truth lists: each page's permalink and the forms WordPress
        answers for it (reply links, shortlinks, old slugs, no trailing slash, page/1/,
        query forms of archives, a campaign parameter), feeds, and URLs that are not
        the page (404s)."""
        out = []
        add = lambda u, how: out.append((SERVER + u, how))  # noqa: E731
        for k, (path, p) in enumerate(sorted(self.objects.items())):
            add(path, f"{p['type']} permalink")
            add(path[:-1], "no trailing slash: 301")
            key = {"post": "p", "page": "page_id", "attachment": "attachment_id"}[p["type"]]
            add(f"/?{key}={p['id']}", f"?{key}=ID: 301")
            depth = {}
            for c in p["comments"]:
                depth[c["id"]] = depth.get(c["parent"], 0) + 1
                if depth[c["id"]] < self.site["thread_comments_depth"]:
                    add(f"{path}?replytocom={c['id']}", "?replytocom: the same page")
            for o in p["old_slugs"]:
                add(re.sub(r"[^/]+/$", o + "/", path), "old slug: 301")
            if k % 6 == 0:
                add(path.upper() if p["type"] != "attachment" else path.replace(p["name"], p["name"].upper()),
                    "slug in other letter case: 200" if p["type"] != "attachment" else "attachment in other letter case: 301")
                add(path + "index.php", "PATH/index.php: 301")
                add(path.replace("/", "//", 2)[1:] if path.count("/") > 2 else path + "/", "doubled slash: 301")
            if p["type"] == "post":
                add(path + "feed/", "comments feed of the post")
                if k % 4 == 0:
                    add(path + "?utm_source=newsletter&utm_medium=email", "campaign parameters (ignored)")
        for base in sorted(self.lists):
            add(base, "list (home or archive)")
            if base != "/":
                add(base[:-1], "no trailing slash: 301")
            if self.pages_of[base] > 1:
                add(base + "page/1/", "page/1/: the first page")
                for n in range(2, self.pages_of[base] + 1):
                    add(f"{base}page/{n}/", "list page N>1")
                    if n == 2:
                        add(f"{base}page/{n}", "list page/N without trailing slash: 200")
                add(f"{base}page/{self.pages_of[base] + 1}/", "list page past the end: 404")
            if not re.fullmatch(r"/\d{4}/(\d{2}/){0,2}", base) or base.count("/") == 3:
                add(base + "feed/", "feed")
        for t in self.site["terms"]:
            if t["count"] and t["taxonomy"] == "category":
                add(f"/?cat={t['id']}", "?cat=ID: 301")
            elif t["count"]:
                add(f"/?tag={t['slug']}", "?tag=SLUG: 301")
        for a in self.site["authors"]:
            if a["posts"]:
                add(f"/?author={a['id']}", "?author=ID: 301")
        for ym in sorted({p["date"][:7] for p in self.posts})[:6]:
            add(f"/?m={ym.replace('-', '')}", "?m=YYYYMM: 301")
        for u in ("/feed/", "/feed", "/comments/feed/", "/robots.txt", "/wp-sitemap.xml"):
            add(u, "feed or file")
        add("/index.php", "/index.php: 301 to /")
        add("/category/no-such-topic/", "404")
        add("/tag/no-such-tag/", "404")
        return out


# ---------------------------------------------------------------- checks
def curl(url):
    """(status, location, body bytes) as curl gets them, no redirect followed."""
    r = subprocess.run(
        ["curl", "-s", "--path-as-is", "--noproxy", "*", "-o", "-", "-D", "/dev/stderr", "--max-time", "30", url],
        capture_output=True)
    head = r.stderr.decode("latin-1")
    m = re.match(r"HTTP/\S+ (\d+)", head)
    loc = re.search(r"^location: (\S+)", head, re.I | re.M)
    return (int(m.group(1)) if m else 0), (loc.group(1) if loc else None), r.stdout


def visible(body):
    """The page's visible text: tags, scripts, styles and comments out, whitespace folded."""
    t = body.decode("utf-8", "replace")
    t = re.sub(r"(?is)<(script|style|head)\b.*?</\1>|<!--.*?-->", " ", t)
    t = re.sub(r"(?s)<[^>]+>", " ", t)
    return " ".join(unescape(t).split())


def selftest(t):
    """Every object WordPress links (permalinks, term and author links) and every <loc>
    of WordPress's own sitemaps is a page of its own under the rules."""
    bad = n = 0
    own = [(p["permalink"], "permalink") for p in t.site["posts"]]
    own += [(x["link"], "term link") for x in t.site["terms"] if x["count"]]
    own += [(a["link"], "author link") for a in t.site["authors"] if a["posts"]]
    index = curl(SERVER + "/wp-sitemap.xml")[2].decode()
    for sm in re.findall(r"<loc>([^<]+)</loc>", index):
        own += [(unescape(u), "sitemap loc") for u in re.findall(r"<loc>([^<]+)</loc>", curl(unescape(sm))[2].decode())]
    for u, how in own:
        n += 1
        e, kinds = t.explain(u)
        if e != ("page", urlsplit(u).path):
            bad += 1
            print(f"FAIL {how} {u}: {e} {kinds}")
    print(f"{n} checked ({len(t.objects)} objects, {len(t.lists)} lists); {n - bad} passed, {bad} failed")
    return bad == 0


def verify(t):
    """Fetches every URL of the list with curl and checks what the truth says of it:
    status, exact Location of a 301, the same visible text as the entity's own URL for
    a 200 of the same entity (a reply link: the same text but for the comment form's
    title and cancel link; rel=canonical to the post and noindex), and 404s."""
    urls = t.variants()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = dict(zip([u for u, _ in urls], pool.map(curl, [u for u, _ in urls])))
    bad = 0
    checked = defaultdict(int)
    for u, how in urls:
        st, loc, body = got[u]
        e, kinds = t.explain(u)
        what, where, _ = t.resolve(u)
        ok, why = True, ""
        if what == "redirect":
            ok = st == 301 and loc == where
            why = f"want 301 to {where}, got {st} {loc}"
        elif what == "error":
            ok = st == where
            why = f"want {where}, got {st}"
        else:
            own = t.entity_url(e)
            if own not in got:
                got[own] = curl(own)
            if st != 200:
                ok, why = False, f"want 200, got {st}"
            elif own != u and e[0] in ("page", "feed"):
                a, b = visible(body), visible(got[own][2])
                if "replytocom" in u:
                    # The reply form names the comment's author and shows its cancel link.
                    a2 = re.sub(r"Leave a Reply to \S+ Cancel reply", "Leave a Reply Cancel reply", a)
                    canon = re.search(rb'<link rel="canonical" href="([^"]+)"', body)
                    ok = a2 == b and a != b and bool(canon) and canon.group(1).decode() == own \
                        and b"noindex" in body
                    why = f"reply link: text same but the form title: {a2 == b}, differs at all: {a != b}, canonical {canon and canon.group(1)}"
                elif e[0] == "feed":
                    # The feed names the URL it was asked by (atom:link rel="self").
                    strip = lambda x: re.sub(rb'<atom:link href="[^"]*" rel="self"', b"", x)  # noqa: E731
                    ok = strip(body) == strip(got[own][2])
                    why = "feed bytes differ from " + own
                else:
                    ok = a == b
                    why = "visible text differs from " + own
        checked[how] += 1
        bad += not ok
        if not ok:
            print(f"FAIL {how}: {u} ({e}): {why}")
    for how, n in sorted(checked.items()):
        print(f"  {n:5} {how}")
    total = sum(checked.values())
    print(f"{total - bad} passed, {bad} failed")
    return bad == 0


def as_json(t):
    pages = defaultdict(list)
    for u, how in t.variants():
        e, kinds = t.explain(u)
        pages[t.entity_url(e)].append({"url": u, "how": how, "kinds": kinds})
    json.dump([{"entity": list(t.entity(k)), "url": k, "urls": v} for k, v in sorted(pages.items())], sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    truth = Truth(sys.argv[1])
    arg = sys.argv[2]
    if arg == "--selftest":
        sys.exit(0 if selftest(truth) else 1)
    if arg == "--verify":
        sys.exit(0 if verify(truth) else 1)
    if arg == "--list":
        for u, _ in truth.variants():
            print(u)
        sys.exit(0)
    if arg == "--json":
        as_json(truth)
        sys.exit(0)
    for u in sys.argv[2:]:
        e, k = truth.explain(u)
        print(f"{u}\t{e}\t{', '.join(k)}\t{truth.entity_url(e)}")
