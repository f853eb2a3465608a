#!/usr/bin/env python3
"""Ground truth of the django-oscar proving ground: which URLs are the same page.

    from truth import Truth
    t = Truth("/tmp/dustpan-oscar")
    t.entity("http://127.0.0.1:8700/catalogue/old-slug_7/") -> ("page", "product", 7)
    t.explain(url) -> (entity, kinds)

    truth.py STATE_DIR --selftest    the rules on URLs of the seeded shop
    truth.py STATE_DIR --verify      every URL of --list checked with curl against the shop
    truth.py STATE_DIR --list        every URL the truth knows (one per line), for `dustpan learn`
    truth.py STATE_DIR URL...        each URL's entity and kinds

The data is STATE_DIR/truth/truth.json, written by truth_dump.py from the shop's
database and Oscar's own search forms. The URL rules are Django's and django-oscar
4.2's (oscar/apps/catalogue/apps.py, catalogue/views.py, search/views/catalogue.py,
search/forms.py, catalogue/reviews/views.py, django.middleware.common):

- `/` answers 302 to `/catalogue/` (the home page is a fixed RedirectView): the
  catalogue's page.
- A path without its trailing slash that resolves with it answers 301 to it, query
  kept (CommonMiddleware, APPEND_SLASH).
- `/catalogue/SLUG_PK/` is product PK whatever SLUG: another slug answers 301 to the
  product's URL, without the query (ProductDetailView.enforce_paths). The query never
  changes a product page.
- `/catalogue/category/PATH_PK/` is category PK; another PATH answers 301 to its URL,
  without the query. The catalogue and each category are listings: the page shown is
  (listing, selected facets as a set, sort order, page number). `sort_by` outside the
  choices, `relevancy` or empty is the default order; `page` absent, `1` and the
  number of the last page as `last` are pages; a page that is not a number or past
  the end answers 302 to the listing's URL (its first page). Other parameters
  (tracking, referral) do not change the page.
- `/catalogue/SLUG_PK/reviews/` (SLUG is not checked: any slug serves the same page,
  200), `?sort_by=recency` sorts by date, anything else by score; `reviews/add/` is
  the product's "write a review" form, a page of its own; `reviews/RID/` the review.
- Other paths are pages of their own, their query ignored except on `/search/`;
  `/static/` and `/media/` files are ("file", path); 404s are ("other", url).
- The same product entered twice (same title, description and price) is two entities
  with one dup_group; two listing URLs of one listing that show the same products in
  the same order (two sorts that agree, a facet that selects everything) likewise.
"""

import concurrent.futures
import html
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict
from urllib.parse import parse_qsl, unquote, urlsplit

GROUND = "django-oscar"
PAGE_URL = "own URL"
SERVER = "http://127.0.0.1:8700"
NETLOC = "127.0.0.1:8700"
PRODUCT = re.compile(r"^/catalogue/([\w-]*)_(\d+)/(.*)$")
CATEGORY = re.compile(r"^/catalogue/category/([\w-]+(?:/[\w-]+)*)_(\d+)/$")
REVIEW_SORTS = {"recency"}
KNOWN_PAGES = {"/basket/", "/accounts/login/", "/accounts/register/", "/offers/", "/search/",
               "/checkout/", "/wishlists/", "/accounts/", "/password-reset/"}


class Truth:
    def __init__(self, state_dir):
        self.state = state_dir
        with open(os.path.join(state_dir, "truth", "truth.json"), encoding="utf-8") as f:
            d = json.load(f)
        self.per_page = d["per_page"]
        self.sorts = set(d["sorts"])
        self.products = {p["pk"]: p for p in d["products"] if p["is_public"]}
        self.categories = {c["pk"]: c for c in d["categories"] if c["is_public"]}
        self.reviews = {r: pk for pk, p in self.products.items() for r in p["reviews"]}
        self.listings = {(l["base"], tuple(sorted(l["facets"])), l["sort"]): l["ids"] for l in d["listings"]}
        by_content = defaultdict(list)
        for pk, p in self.products.items():
            by_content[p["content_md5"]].append(pk)
        self.dups = {}
        for pks in by_content.values():
            if len(pks) > 1:
                for pk in pks:
                    self.dups[("page", "product", pk)] = ("dup-product",) + tuple(sorted(pks))

    def pages_of(self, base, facets, sort):
        ids = self.listings.get((base, facets, sort))
        return None if ids is None else max(1, math.ceil(len(ids) / self.per_page))

    def dup_group(self, e):
        if e[0] == "page" and e[1] == "listing":
            _, _, base, facets, sort, page = e
            ids = self.listings.get((base, facets, sort))
            if ids is not None:
                return ("dup-listing", base, tuple(ids[(page - 1) * self.per_page: page * self.per_page]))
        return self.dups.get(e)

    def entity_url(self, e):
        if e[0] == "page":
            kind = e[1]
            if kind == "product":
                return SERVER + self.products[e[2]]["url"]
            if kind == "listing":
                _, _, base, facets, sort, page = e
                q = [f"selected_facets={f.replace(':', '%3A')}" for f in facets]
                q += [f"sort_by={sort}"] if sort else []
                q += [f"page={page}"] if page > 1 else []
                return SERVER + base + ("?" + "&".join(q) if q else "")
            if kind in ("reviews", "review-add", "review"):
                url = SERVER + self.products[e[2]]["url"] + "reviews/"
                if kind == "review-add":
                    return url + "add/"
                if kind == "review":
                    return url + f"{e[3]}/"
                return url + (f"?sort_by={e[3]}" if e[3] != "score" else "")
            if kind == "path":
                return SERVER + e[2] + ("?" + "&".join(f"{k}={v}" for k, v in e[3]) if e[3] else "")
        if e[0] == "file":
            return SERVER + e[1]
        if e[0] == "other":
            return e[1]
        return repr(e)

    def entity(self, url):
        return self.explain(url)[0]

    def resolve(self, url):
        """("page", entity, kinds), ("redirect", status, location, kinds) or ("error", status, kinds)."""
        kinds = []
        try:
            p = urlsplit(url)
        except ValueError:
            return ("error", 400, ["bad URL"])
        if p.scheme != "http" or p.netloc.lower() != NETLOC:
            return ("error", 0, ["other host or scheme"])
        path = unquote(p.path or "/")
        params = parse_qsl(p.query, keep_blank_values=True)
        q = {}
        for k, v in params:
            q[k] = v  # Django's QueryDict.get: the last value
        qs = f"?{p.query}" if p.query else ""
        if path.startswith(("/static/", "/media/")):
            return ("page", ("file", path), ["static file"])
        if path == "/":
            return ("redirect", 302, SERVER + "/catalogue/", ["root: 302 to /catalogue/"])
        if not path.endswith("/") and self._routes(path + "/"):
            return ("redirect", 301, SERVER + p.path + "/" + qs, ["no trailing slash: 301"])
        m = CATEGORY.match(path)
        if m:
            c = self.categories.get(int(m.group(2)))
            if c is None:
                return ("error", 404, ["no such category"])
            if path != unquote(c["url"]):
                return ("redirect", 301, SERVER + c["url"], ["category under another slug: 301"])
            return self._listing(c["url"], params, q, kinds + ["category listing"])
        if path == "/catalogue/":
            return self._listing("/catalogue/", params, q, kinds + ["catalogue listing"])
        m = PRODUCT.match(path)
        if m:
            pk, rest = int(m.group(2)), m.group(3)
            prod = self.products.get(pk)
            if prod is None:
                return ("error", 404, ["no such product"])
            other_slug = m.group(1) != prod["slug"]
            if rest == "":
                if other_slug:
                    return ("redirect", 301, SERVER + prod["url"], ["product under another slug: 301"])
                if p.query:
                    kinds.append("query on a product (ignored)")
                return ("page", ("page", "product", pk), kinds + ["product"])
            if other_slug:
                kinds.append("reviews under another slug (not checked: 200)")
            if rest == "reviews/":
                page = q.get("page", "1")
                if page not in ("1", "last") and not re.fullmatch(r"\s*[+-]?0*1\s*", page):
                    return ("error", 404, ["reviews page past the end"])
                sort = q.get("sort_by") if q.get("sort_by") in REVIEW_SORTS else "score"
                return ("page", ("page", "reviews", pk, sort), kinds + ["reviews list"])
            if rest == "reviews/add/":
                return ("page", ("page", "review-add", pk), kinds + ["write a review"])
            m2 = re.fullmatch(r"reviews/(\d+)/", rest)
            if m2 and int(m2.group(1)) in self.reviews:
                return ("page", ("page", "review", pk, int(m2.group(1))), kinds + ["review"])
            return ("error", 404, ["404"])
        if path in KNOWN_PAGES:
            keep = tuple(sorted((k, v) for k, v in params if path == "/search/" and k in ("q", "page", "sort_by", "selected_facets")))
            return ("page", ("page", "path", path, keep), kinds + ["other page"])
        return ("error", 404, ["404"])

    def _routes(self, path):
        return bool(path in ("/catalogue/",) or path in KNOWN_PAGES or CATEGORY.match(path) or PRODUCT.match(path))

    def _listing(self, base, params, q, kinds):
        facets = tuple(sorted({v for k, v in params if k == "selected_facets" and ":" in v}))
        sort = q.get("sort_by", "")
        if sort not in self.sorts or sort == "relevancy":
            if sort:
                kinds.append("default sort named")
            sort = ""
        if facets:
            kinds.append("facet")
        if sort:
            kinds.append("sort")
        if "q" in q:
            facets = facets + (("q", q["q"]),)
        n = self.pages_of(base, facets, sort)
        page = q.get("page")
        if page is None:
            number = 1
        else:
            kinds.append("page=")
            try:
                number = int(page)
            except ValueError:
                number = n if page == "last" and n else None
            if number is None or number < 1 or (n is not None and number > n):
                return ("redirect", 302, SERVER + base, kinds + ["invalid page: 302 to the listing"])
            if number == 1:
                kinds.append("page=1")
        if any(k not in ("page", "sort_by", "selected_facets", "q") for k, _ in params):
            kinds.append("other parameter (ignored)")
        if number > 1:
            kinds.append("page N>1")
        return ("page", ("page", "listing", base, facets, sort, number), kinds)

    def explain(self, url, depth=0):
        r = self.resolve(url)
        if r[0] == "redirect" and depth < 5:
            e, more = self.explain(r[2], depth + 1)
            return (e if e[0] != "other" else ("other", url)), r[3] + more
        if r[0] == "page":
            kinds = list(r[2])
            if self.dup_group(r[1]) and r[1][1] == "product":
                kinds.append("duplicate content (entered twice)")
            return r[1], kinds
        return ("other", url), list(r[-1])

    # -------------------------------------------------------------- the URL list
    def variants(self):
        out = []
        add = lambda u, how: out.append((SERVER + u, how))  # noqa: E731
        add("/", "root: 302")
        for k, (pk, p) in enumerate(sorted(self.products.items())):
            u = p["url"]
            add(u, "product")
            add(u[:-1], "no trailing slash: 301")
            add(f"/catalogue/{p['slug']}-old_{pk}/", "another slug: 301")
            if k % 3 == 0:
                add(u + "?utm_source=newsletter&utm_medium=email", "tracking parameter")
            add(u + "reviews/add/", "write a review")
            add(u + "reviews/", "reviews list")
            if k % 2 == 0:
                add(u + "reviews/?sort_by=recency", "reviews by recency")
                add(u + "reviews/?sort_by=score", "reviews by score (default)")
                add(f"/catalogue/any-slug_{pk}/reviews/", "reviews under another slug")
            for r in p["reviews"][:2]:
                add(f"{u}reviews/{r}/", "review")
        bases = ["/catalogue/"] + [c["url"] for c in self.categories.values()]
        for k, b in enumerate(bases):
            n = self.pages_of(b, (), "") or 1
            add(b, "listing")
            add(b + "?page=1", "page=1")
            for i in range(2, n + 1):
                add(b + f"?page={i}", "page N")
            add(b + "?page=last", "page=last")
            add(b + f"?page={n + 1}", "page past the end: 302")
            add(b + "?sort_by=relevancy", "default sort named")
            add(b + "?utm_source=newsletter&utm_campaign=spring", "tracking parameter")
            for s in sorted(self.sorts - {""}):
                add(b + f"?sort_by={s}", "sort")
                if n > 1:
                    add(b + f"?sort_by={s}&page=2", "sort, page 2")
            for c in sorted({f for key in self.listings if key[0] == b for f in key[1]}):
                add(b + "?selected_facets=" + c.replace(":", "%3A"), "facet")
            if k % 2 == 0:
                fs = sorted({f for key in self.listings if key[0] == b and len(key[1]) == 2 for f in [key[1]]})[:2]
                for a, c in fs:
                    add(b + f"?selected_facets={a.replace(':', '%3A')}&selected_facets={c.replace(':', '%3A')}", "two facets")
                    add(b + f"?selected_facets={c.replace(':', '%3A')}&selected_facets={a.replace(':', '%3A')}", "two facets, other order")
            if b != "/catalogue/":
                add(b.replace("/category/", "/category/x-").replace("//", "/"), "category under another slug: 301")
        for path in ("/basket/", "/accounts/login/", "/offers/"):
            add(path, "other page")
        add("/accounts/login/?next=/basket/", "login with next (ignored)")
        add("/catalogue/no-such-product_99999/", "404")
        return out


# ---------------------------------------------------------------- checks
def selftest(t):
    pk = next(iter(t.products))
    p = t.products[pk]
    B = SERVER
    cases = [
        (B + p["url"], ("page", "product", pk)),
        (B + p["url"] + "?utm_source=x", ("page", "product", pk)),
        (B + f"/catalogue/zzz_{pk}/", ("page", "product", pk)),
        (B + p["url"][:-1], ("page", "product", pk)),
        (B + f"/catalogue/zzz_{pk}/reviews/", ("page", "reviews", pk, "score")),
        (B + p["url"] + "reviews/?sort_by=recency", ("page", "reviews", pk, "recency")),
        (B + p["url"] + "reviews/add/", ("page", "review-add", pk)),
        (B + "/", ("page", "listing", "/catalogue/", (), "", 1)),
        (B + "/catalogue/?page=1", ("page", "listing", "/catalogue/", (), "", 1)),
        (B + "/catalogue/?page=2&utm_source=x", ("page", "listing", "/catalogue/", (), "", 2)),
        (B + "/catalogue/?page=999", ("page", "listing", "/catalogue/", (), "", 1)),
        (B + "/catalogue/?sort_by=relevancy", ("page", "listing", "/catalogue/", (), "", 1)),
        (B + "/catalogue/?sort_by=newest", ("page", "listing", "/catalogue/", (), "newest", 1)),
        (B + "/catalogue/?selected_facets=rating%3A4&selected_facets=product_class%3Agear",
         ("page", "listing", "/catalogue/", ("product_class:gear", "rating:4"), "", 1)),
        (B + "/catalogue/no-such_99999/", ("other", B + "/catalogue/no-such_99999/")),
    ]
    bad = 0
    for url, want in cases:
        got, kinds = t.explain(url)
        ok = got == want
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {url}\n       {got}  {kinds}" + ("" if ok else f"\n       want {want}"))
    print(f"{len(cases) - bad} passed, {bad} failed")
    return bad == 0


def curl(url):
    r = subprocess.run(["curl", "-s", "--path-as-is", "--noproxy", "*", "-o", "-", "-D", "/dev/stderr",
                        "--max-time", "30", url], capture_output=True)
    head = r.stderr.decode("latin-1")
    m = re.match(r"HTTP/\S+ (\d+)", head)
    loc = re.search(r"^location: (\S+)", head, re.I | re.M)
    return (int(m.group(1)) if m else 0), (loc.group(1) if loc else None), r.stdout


def visible(body):
    """The page's visible text (scripts, styles, tags and the CSRF token's hidden field
    left out), whitespace collapsed."""
    s = body.decode("utf-8", "replace")
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", s, flags=re.S | re.I)
    s = re.sub(r"<[^>]+>", " ", s)
    return " ".join(html.unescape(s).split())


def verify(t):
    """Every URL of the list with curl: status and exact Location of redirects; a 200 has
    the visible text of its entity's own URL; write-a-review, page N and sort pages have
    a visible text other than the product's or the listing's first page."""
    urls = t.variants()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = dict(zip([u for u, _ in urls], pool.map(curl, [u for u, _ in urls])))
    bad = 0
    count = defaultdict(int)
    own_text = {}
    for u, how in urls:
        st, loc, body = got[u]
        r = t.resolve(u)
        ok, why = True, ""
        if r[0] == "redirect":
            ok = st == r[1] and loc in (r[2], r[2][len(SERVER):])
            why = f"want {r[1]} to {r[2]}, got {st} {loc}"
        elif r[0] == "error":
            ok = st == r[1]
            why = f"want {r[1]}, got {st}"
        else:
            e = r[1]
            own = t.entity_url(e)
            if own not in own_text:
                own_text[own] = visible(got[own][2] if own in got else curl(own)[2])
            ok = st == 200 and visible(body) == own_text[own]
            why = f"status {st}; visible text differs from {own}"
        count[how] += 1
        bad += not ok
        if not ok:
            print(f"FAIL {how}: {u}: {why}")
    # Pages the truth says differ from their neighbours.
    for pk, p in list(t.products.items())[:20]:
        a = visible(curl(SERVER + p["url"])[2])
        b = visible(curl(SERVER + p["url"] + "reviews/add/")[2])
        count["write a review differs from the product"] += 1
        if a == b:
            bad += 1
            print(f"FAIL write a review equals product {pk}")
    a = visible(curl(SERVER + "/catalogue/")[2])
    for u in ("/catalogue/?page=2", "/catalogue/?sort_by=price-asc"):
        count["listing variant differs from page 1"] += 1
        if visible(curl(SERVER + u)[2]) == a:
            bad += 1
            print(f"FAIL {u} equals /catalogue/")
    for how, n in sorted(count.items()):
        print(f"  {n:5} {how}")
    print(f"{sum(count.values()) - bad} passed, {bad} failed")
    return bad == 0


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
    for u in sys.argv[2:]:
        e, k = truth.explain(u)
        print(f"{u}\t{e}\t{', '.join(k)}\t{truth.entity_url(e)}")
