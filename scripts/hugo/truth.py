#!/usr/bin/env python3
"""Ground truth of the Hugo + nginx proving ground: which URLs are the same page.

    from truth import Truth
    t = Truth("/tmp/dustpan-hugo")
    t.entity("http://127.0.0.1:8690/posts/post-001-x/index.html") -> ("page", "/posts/post-001-x/")
    t.explain(url) -> (entity, kinds)

    truth.py STATE_DIR --selftest    the rules against the built tree (every file accounted for)
    truth.py STATE_DIR --verify      every URL of --list checked with curl against nginx
    truth.py STATE_DIR --list        every URL the truth knows (one per line), for `dustpan learn`
    truth.py STATE_DIR --json        each real page with every URL that serves it and how
    truth.py STATE_DIR URL...        each URL's entity and kinds

The pages come from Hugo's own page model (STATE_DIR/truth/truth.json, written by the
site's `truth` output format: kind, permalink, aliases, number of listed pages, content
hash of every page Hugo built) and the site's configuration (paginate); the URL rules are
Hugo's documented ones and nginx's (Debian's default `try_files $uri $uri/ =404`):

- A page is served at its permalink (a directory URL ending in `/`) from
  `PERMALINK/index.html`; `PERMALINK/index.html` serves the same bytes.
- A list the theme paginates (the posts section, every tag and category; not the home,
  the docs sections or the taxonomy lists) has pages `LIST/page/N/` for N = 2 ..
  ceil(pages / paginate): each is a page of its own (other items), although the theme's
  `<link rel="canonical" href="{{ .Permalink }}">` names the list's first page there.
  `LIST/page/1/` is an alias Hugo writes for the first page.
- An alias (front matter `aliases`, and `page/1/`) is a file Hugo writes with
  `<meta http-equiv="refresh" content="0; url=TARGET">`, `<link rel="canonical"
  href="TARGET">` and `noindex`: nginx answers it 200 (not a 301). An instant meta
  refresh is a redirect by the page, so the alias URL is the target's page (kind
  "alias: meta refresh, HTTP 200").
- nginx: a URL naming a directory without the trailing slash answers 301 to the URL
  with it (query kept); the query string never changes the file served; `//` is merged
  (merge_slashes); `%XX` is decoded; the path is case-sensitive (`/Posts/` is 404); a
  directory without `index.html` is 403.
- RSS feeds (`LIST/index.xml`) are ("feed", LIST); other files (sitemap.xml, robots.txt,
  CSS, 404.html) are ("file", path); 404 and 403 answers are ("other", url).
- Two posts with the same title and content under two slugs (the copied post) are two
  entities with one `dup_group`: duplicate content, listed apart.
"""

import concurrent.futures
import hashlib
import json
import math
import os
import posixpath
import re
import subprocess
import sys
from collections import defaultdict
from urllib.parse import unquote, urlsplit

GROUND = "Hugo + nginx"
PAGE_URL = "permalink"
SERVER = "http://127.0.0.1:8690"
NETLOC = "127.0.0.1:8690"

# The theme's list template paginates every list except these (layouts/_default/list.html).
UNPAGINATED_KINDS = {"home", "taxonomy"}
UNPAGINATED_SECTIONS = {"docs"}
FEED_KINDS = {"home", "section", "taxonomy", "term"}
STATIC_FILES = ["/sitemap.xml", "/robots.txt", "/css/site.css", "/404.html"]
VARIANT_QUERIES = ["?utm_source=newsletter&utm_medium=email", "?ref=related"]


class Truth:
    def __init__(self, state_dir):
        self.state = state_dir
        with open(os.path.join(state_dir, "truth", "truth.json"), encoding="utf-8") as f:
            data = json.load(f)
        self.paginate = int(data["paginate"])
        self.pager = data["paginate_path"]
        self.pages = {}  # permalink path -> page record
        self.served = {}  # file path (as nginx maps a URL) -> (entity, kind)
        self.dirs = set()  # directories of the served tree
        self.aliases = {}  # alias URL path -> target permalink
        self.paged = {}  # list permalink -> number of pager pages
        for p in data["pages"]:
            path = p["permalink"]
            self.pages[path] = p
            self._serve(path + "index.html", ("page", path), "permalink")
            for a in p.get("aliases") or []:
                a = a if a.startswith("/") else "/" + a
                self.aliases[a] = path
                f = a if a.endswith(".html") else a.rstrip("/") + "/index.html"
                self._serve(f, ("page", path), "alias: meta refresh, HTTP 200")
            if p["kind"] in FEED_KINDS:
                self._serve(path + "index.xml", ("feed", path), "RSS feed")
            if self.is_paginated(p):
                n = max(1, math.ceil(p["regular_pages"] / self.paginate))
                self.paged[path] = n
                self.aliases[f"{path}{self.pager}/1/"] = path
                self._serve(f"{path}{self.pager}/1/index.html", ("page", path), "page/1/ alias: meta refresh, HTTP 200")
                for k in range(2, n + 1):
                    q = f"{path}{self.pager}/{k}/"
                    self._serve(q + "index.html", ("page", q), "pager page N>1 (theme canonical: page 1)")
        for f in STATIC_FILES:
            self._serve(f, ("file", f), "static file")
        # The same content under two objects: same title and same rendered content.
        by_content = defaultdict(list)
        for path, p in self.pages.items():
            if p["kind"] == "page":
                by_content[(p["title"], p["content_md5"])].append(path)
        self.dups = {}
        for paths in by_content.values():
            if len(paths) > 1:
                for path in paths:
                    self.dups[("page", path)] = ("dup",) + tuple(sorted(paths))

    def is_paginated(self, p):
        if p["kind"] in UNPAGINATED_KINDS or p["kind"] == "page":
            return False
        return p["section"] not in UNPAGINATED_SECTIONS

    def _serve(self, f, entity, kind):
        self.served[f] = (entity, kind)
        d = posixpath.dirname(f)
        while d and d not in self.dirs:
            self.dirs.add(d)
            d = posixpath.dirname(d) if d != "/" else ""

    def dup_group(self, e):
        return self.dups.get(e)

    def entity_url(self, e):
        if e[0] in ("page", "feed"):
            return SERVER + e[1] + ("index.xml" if e[0] == "feed" else "")
        if e[0] == "file":
            return SERVER + e[1]
        if e[0] == "other":
            return e[1]
        return repr(e)

    def entity(self, url):
        return self.explain(url)[0]

    def resolve(self, url):
        """What nginx does with URL: ("file", path, kinds) for a served file,
        ("redirect", location, kinds) for its 301, or ("error", status, kinds)."""
        kinds = []
        try:
            p = urlsplit(url)
        except ValueError:
            return ("error", 400, ["bad URL"])
        if p.scheme != "http" or p.netloc.lower() != NETLOC:
            return ("error", 0, ["other host or scheme"])
        raw = p.path or "/"
        path = unquote(raw, errors="strict") if "%" in raw else raw
        if path != raw:
            kinds.append("percent-encoded path")
        if "//" in path:
            kinds.append("doubled slash (merged by nginx)")
            path = re.sub("/{2,}", "/", path)
        if p.query:
            kinds.append("query string (ignored by nginx)")
        if path.endswith("/"):
            f = path + "index.html"
            if f in self.served:
                return ("file", f, kinds)
            if path.rstrip("/") in self.dirs or path == "/":
                return ("error", 403, kinds + ["directory without index.html (403)"])
            return ("error", 404, kinds + ["404"])
        if path in self.served:
            if path.endswith("/index.html"):
                kinds.append("index.html")
            return ("file", path, kinds)
        if path in self.dirs:
            loc = SERVER + path + "/" + (f"?{p.query}" if p.query else "")
            return ("redirect", loc, kinds + ["no trailing slash: 301"])
        if path.lower() != path and (path.lower() in self.served or path.lower() in self.dirs):
            kinds.append("wrong case (404)")
        return ("error", 404, kinds + ["404"])

    def explain(self, url):
        what, where, kinds = self.resolve(url)
        if what == "redirect":
            e, more = self.explain(where)
            return (e if e[0] != "other" else ("other", url)), kinds + more
        if what == "error":
            return ("other", url), kinds
        entity, kind = self.served[where]
        kinds.append(kind)
        if entity in self.dups:
            kinds.append("duplicate content (copied under two slugs)")
        return entity, kinds

    # -------------------------------------------------------------- the URL list
    def variants(self):
        """Every URL the truth lists, with its entity and how it serves it: the permalink,
        its forms nginx answers, the aliases, feeds, files, pager pages, and URLs that are
        not the page (wrong case, 404, 403)."""
        out = []
        add = lambda u, how: out.append((SERVER + u, how))  # noqa: E731
        k = 0
        for path in sorted(self.pages):
            add(path, "permalink")
            if path != "/":
                add(path[:-1], "no trailing slash: 301")
            add(path + "index.html", "index.html")
            k += 1
            if k % 3 == 0:
                for q in VARIANT_QUERIES:
                    add(path + q, "query string (ignored by nginx)")
            if k % 5 == 0 and path != "/":
                add(path.upper() if k % 10 else path[:1] + path[1:2].upper() + path[2:], "wrong case: 404")
            if path in self.paged:
                add(f"{path}{self.pager}/1/", "page/1/ alias: meta refresh")
                add(f"{path}{self.pager}/1", "page/1 without slash: 301, then meta refresh")
                for n in range(2, self.paged[path] + 1):
                    add(f"{path}{self.pager}/{n}/", "pager page N>1")
                    if n == 2:
                        add(f"{path}{self.pager}/{n}", "no trailing slash: 301")
                        add(f"{path}{self.pager}/{n}/index.html", "index.html")
                add(f"{path}{self.pager}/{self.paged[path] + 1}/", "pager page past the end: 404")
            if self.pages[path]["kind"] in FEED_KINDS:
                add(path + "index.xml", "RSS feed")
        for a in sorted(self.aliases):
            if f"/{self.pager}/1/" in a:
                continue
            add(a, "alias: meta refresh")
            if a.endswith("/"):
                add(a[:-1], "alias without slash: 301, then meta refresh")
        for f in STATIC_FILES:
            add(f, "static file")
        add(f"/{self.pager}/", "directory without index.html: 403")
        add("/posts/no-such-post/", "404")
        return out


# ---------------------------------------------------------------- checks
def selftest(t):
    """Every file of the served tree is accounted for by the truth, and back."""
    root = os.path.join(t.state, "public")
    files = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            files.add("/" + os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"))
    bad = 0
    for f in sorted(files - set(t.served)):
        print(f"FAIL built but not in the truth: {f}")
        bad += 1
    for f in sorted(set(t.served) - files):
        print(f"FAIL in the truth but not built: {f}")
        bad += 1
    n = 0
    for f, (e, kind) in sorted(t.served.items()):
        if f not in files or not f.endswith(".html"):
            continue
        n += 1
        with open(root + f, encoding="utf-8") as fh:
            body = fh.read()
        refresh = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', body)
        if kind.startswith(("alias", "page/1/")) != bool(refresh):
            print(f"FAIL {f}: kind {kind} but meta refresh {bool(refresh)}")
            bad += 1
        elif refresh and refresh.group(1) != t.entity_url(e):
            print(f"FAIL {f}: refresh to {refresh.group(1)}, truth {t.entity_url(e)}")
            bad += 1
    print(f"{len(files)} built files, {len(t.served)} in the truth, {n} HTML files checked; "
          f"{n + 1 - bad} passed, {bad} failed")
    return bad == 0


def curl(url):
    """(status, location, body bytes) as curl gets them, no redirect followed."""
    r = subprocess.run(
        ["curl", "-s", "--path-as-is", "--noproxy", "*", "-o", "-", "-D", "/dev/stderr",
         "--max-time", "20", url],
        capture_output=True)
    head = r.stderr.decode("latin-1")
    m = re.match(r"HTTP/\S+ (\d+)", head)
    loc = re.search(r"^location: (\S+)", head, re.I | re.M)
    return (int(m.group(1)) if m else 0), (loc.group(1) if loc else None), r.stdout


def verify(t):
    """Fetches every URL of the list with curl and checks what the truth says of it:
    status, exact Location of a 301, byte equality with the entity's own URL for a
    200 of the same entity, the meta refresh and canonical of an alias, the canonical
    of a pager page (page 1, the theme's mistake) and that its items differ from page
    1, byte equality of the copied post but for its own URLs, and 404/403 for others."""
    urls = t.variants()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = dict(zip([u for u, _ in urls], pool.map(curl, [u for u, _ in urls])))
    base = {}
    bad = 0
    kinds_checked = defaultdict(int)
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
            if own not in base:
                base[own] = got[own] if own in got else curl(own)
            if st != 200:
                ok, why = False, f"want 200, got {st}"
            elif "alias" in t.served[where][1]:
                text = body.decode("utf-8", "replace")
                r = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', text)
                c = re.search(r'<link rel="canonical" href="([^"]+)"', text)
                ok = bool(r and c and r.group(1) == own and c.group(1) == own and "noindex" in text)
                why = f"alias: refresh {r and r.group(1)}, canonical {c and c.group(1)}, want {own}"
            else:
                ok = body == base[own][2]
                why = "bytes differ from " + own
                if ok and "pager page" in t.served[where][1]:
                    first = SERVER + e[1].rsplit(f"{t.pager}/", 1)[0]
                    fb = base.setdefault(first, curl(first))[2]
                    c = re.search(rb'<link rel="canonical" href="([^"]+)"', body)
                    items = lambda b: re.findall(rb'<ul class="post-list">.*?</ul>', b, re.S)  # noqa: E731
                    ok = bool(c and c.group(1).decode() == first and items(body) != items(fb))
                    why = f"pager page: canonical {c and c.group(1)}, want {first}; items must differ from page 1"
        kinds_checked[how] += 1
        bad += not ok
        if not ok:
            print(f"FAIL {how}: {u} ({e}): {why}")
    # The copied post: the same bytes as the original but for its own URLs.
    for e, g in sorted(set((e, g) for e, g in t.dups.items())):
        a, b = (SERVER + p for p in g[1:3])
        ba, bb = curl(a)[2], curl(b)[2]
        same = ba.replace(a.encode(), b"").replace(a[len(SERVER):].encode(), b"") == \
            bb.replace(b.encode(), b"").replace(b[len(SERVER):].encode(), b"")
        kinds_checked["duplicate content (copied post)"] += 1
        bad += not same
        print(f"{'ok  ' if same else 'FAIL'} duplicate content {a} {b}: {'same bytes but their own URLs' if same else 'differ'}")
        break
    for how, n in sorted(kinds_checked.items()):
        print(f"  {n:5} {how}")
    total = sum(kinds_checked.values())
    print(f"{total - bad} passed, {bad} failed")
    return bad == 0


def as_json(t):
    pages = defaultdict(list)
    for u, how in t.variants():
        e, kinds = t.explain(u)
        pages[t.entity_url(e)].append({"url": u, "how": how, "kinds": kinds})
    out = []
    for own, urls in sorted(pages.items()):
        e = t.entity(own)
        out.append({"entity": list(e), "url": own, "duplicate_content": list(t.dup_group(e) or [])[1:],
                    "urls": urls})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
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
