#!/usr/bin/env python3
"""Writes the Hugo site of the static-site proving ground (config, layouts, content).

    gen_site.py OUT_DIR

Deterministic (fixed random seed and fixed dates): every rebuild gives the same slugs,
titles, dates, tags and links. The site is a blog with a documentation section:

- 61 posts in `posts/` (Hugo paginates the section's list, 5 posts a page) with 1-3
  tags of 12 and one category of 4 (taxonomies with their own paginated lists and
  RSS feeds); 9 posts carry `aliases` (old URLs: some directories, some `.html`
  files), for which Hugo writes meta-refresh pages;
- one post copied under a second slug (same title, date, tags and text: duplicate
  content under two objects);
- `docs/` with two nested sections (`docs/guide/`, `docs/reference/`), not paginated;
- `about/`, a home page with the latest posts, a 404 page, robots.txt with the sitemap.

The layouts are a small theme of the common kind: its <head> writes
`<link rel="canonical" href="{{ .Permalink }}">`, which on page N of a paginated
list is the list's first page (a frequent theme mistake).

Each post's "See also" line links to another post in one of several URL forms a real
site accumulates: the permalink, without its trailing slash (nginx answers 301),
with `index.html`, with a tracking or referral parameter, an old URL (alias), the
absolute URL, a fragment, and a wrong case (404). A few links point at `page/1/` of
a list (an alias Hugo writes for every paginated list).

A JSON output format of the home page (`truth.json`) lists every page Hugo built:
kind, permalink, aliases, section, title, the number of pages it lists and a hash of
its content; setup.sh moves it out of the served tree for truth.py.
"""

import datetime
import os
import random
import sys

BASE = "http://127.0.0.1:8690/"
PAGINATE = 5
N_POSTS = 61
COPIED = 20  # post-020 is copied under a second slug
TAGS = ["rivers", "bridges", "mills", "harbours", "maps", "archives", "walking",
        "photography", "history", "trade", "weather", "railways"]
CATEGORIES = ["Field trips", "Notes", "Reading", "Projects"]

NOUNS = """river harbour bridge mill tower market garden orchard quarry canal chapel
school library foundry brewery theatre station lighthouse causeway granary forge
ferry reservoir vineyard meadow valley ridge forest marsh island delta plateau
archive museum observatory workshop tannery bakery dairy abbey castle dockyard""".split()
ADJS = """old northern southern eastern western lower upper great little royal
ancient quiet busy narrow broad stone wooden iron red white green grey golden
hidden famous forgotten restored ruined flooded windy""".split()
VERBS = """built rebuilt founded restored extended moved closed reopened enlarged
repaired sold surveyed mapped described painted photographed renamed""".split()
PEOPLE = """Ada Bruno Clara Dmitri Elena Farid Greta Ines Jonas Kiri Lars Maren
Nils Olga Pavel Rosa Stefan Tove Vera Wim Xenia Yusuf Zora""".split()
THINGS = """wool grain salt timber coal copper glass paper cloth wine cheese fish
rope leather lace clocks bells maps books""".split()


def sentence(r):
    a, n, v = r.choice(ADJS), r.choice(NOUNS), r.choice(VERBS)
    who, year, thing = r.choice(PEOPLE), r.randrange(1620, 1990), r.choice(THINGS)
    return r.choice([
        f"The {a} {n} was {v} in {year} by {who}.",
        f"In {year} the town traded {thing} and {r.choice(THINGS)} through the {n}.",
        f"{who} wrote that the {n} stood near the {a} {r.choice(NOUNS)}.",
        f"Records from {year} list {r.randrange(3, 900)} workers at the {n}.",
        f"The {n} was {v} again after {year}, when {thing} prices fell.",
        f"Visitors today see the {a} walls and a small exhibition about {thing}.",
        f"We walked from the {n} to the {a} {r.choice(NOUNS)} in {r.randrange(2, 9)} hours.",
    ])


def paragraph(r, n):
    return " ".join(sentence(r) for _ in range(n))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def front(d):
    out = ["---"]
    for k, v in d.items():
        if isinstance(v, list):
            out.append(f"{k}:")
            out.extend(f"  - {x!r}" if isinstance(x, str) else f"  - {x}" for x in v)
        elif isinstance(v, str):
            out.append(f"{k}: {v!r}")
        else:
            out.append(f"{k}: {v}")
    out.append("---")
    return "\n".join(out) + "\n"


CONFIG = f"""baseURL = "{BASE}"
languageCode = "en-us"
title = "Field Notes"
paginate = {PAGINATE}
enableRobotsTXT = true
disableHugoGeneratorInject = true
enableEmoji = false

[params]
  paginate = {PAGINATE}

[taxonomies]
  tag = "tags"
  category = "categories"

[outputFormats.truth]
  mediaType = "application/json"
  baseName = "truth"
  isPlainText = true
  notAlternative = true

[outputs]
  home = ["HTML", "RSS", "truth"]
  section = ["HTML", "RSS"]
  taxonomy = ["HTML", "RSS"]
  term = ["HTML", "RSS"]

[privacy]
  [privacy.disqus]
    disable = true
  [privacy.googleAnalytics]
    disable = true
  [privacy.instagram]
    disable = true
  [privacy.twitter]
    disable = true
  [privacy.vimeo]
    disable = true
  [privacy.youtube]
    disable = true

[services.rss]
  limit = 20

[[menu.main]]
  name = "Posts"
  url = "/posts/"
  weight = 1
[[menu.main]]
  name = "Docs"
  url = "/docs/"
  weight = 2
[[menu.main]]
  name = "Tags"
  url = "/tags/"
  weight = 3
[[menu.main]]
  name = "Categories"
  url = "/categories/"
  weight = 4
[[menu.main]]
  name = "About"
  url = "/about/"
  weight = 5
"""

BASEOF = """<!DOCTYPE html>
<html lang="{{ site.LanguageCode }}">
<head>
<meta charset="utf-8">
<title>{{ block "title" . }}{{ if .IsHome }}{{ site.Title }}{{ else }}{{ .Title }} | {{ site.Title }}{{ end }}{{ end }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="canonical" href="{{ .Permalink }}">
{{ with .OutputFormats.Get "rss" }}<link rel="alternate" type="application/rss+xml" href="{{ .Permalink }}" title="{{ site.Title }}">{{ end }}
<link rel="stylesheet" href="/css/site.css">
</head>
<body>
<header class="site-header"><a class="brand" href="/">{{ site.Title }}</a>
<nav>{{ range site.Menus.main }}<a href="{{ .URL }}">{{ .Name }}</a> {{ end }}</nav></header>
<main>
{{ block "main" . }}{{ end }}
</main>
<footer class="site-footer"><p>Field Notes is written on foot. <a href="/index.xml">RSS</a> · <a href="/about/">About</a></p></footer>
</body>
</html>
"""

SINGLE = """{{ define "main" }}
<article>
<h1>{{ .Title }}</h1>
<p class="meta"><time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "2 January 2006" }}</time>
{{ with .Params.categories }} · {{ range . }}<a href="{{ "categories/" | relURL }}{{ . | urlize }}/">{{ . }}</a>{{ end }}{{ end }}</p>
{{ .Content }}
{{ with .Params.tags }}<p class="tags">Tags: {{ range . }}<a href="{{ "tags/" | relURL }}{{ . | urlize }}/">{{ . }}</a> {{ end }}</p>{{ end }}
</article>
{{ end }}
"""

# Lists: a section or a term paginates its pages; the docs sections list everything.
LIST = """{{ define "main" }}
<h1>{{ .Title }}</h1>
{{ .Content }}
{{ if eq .Section "docs" }}
<ul class="doc-list">
{{ range .Sections }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> (section)</li>{{ end }}
{{ range .RegularPages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ .Summary | plainify | truncate 80 }}</li>{{ end }}
</ul>
{{ else }}
{{ $p := .Paginate .RegularPages }}
<ul class="post-list">
{{ range $p.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02" }}</time><br>{{ .Summary | plainify | truncate 160 }}</li>
{{ end }}
</ul>
{{ template "_internal/pagination.html" . }}
{{ end }}
{{ end }}
"""

TERMS = """{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul class="terms">
{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>
{{ end }}
</ul>
{{ end }}
"""

HOME = """{{ define "main" }}
<h1>{{ site.Title }}</h1>
{{ .Content }}
<h2>Latest</h2>
<ul class="post-list">
{{ range first 5 (where site.RegularPages "Section" "posts") }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02" }}</time></li>
{{ end }}
</ul>
<p><a href="/posts/">All posts</a> · <a href="/docs/">Documentation</a></p>
{{ end }}
"""

NOT_FOUND = """{{ define "main" }}
<h1>Page not found</h1>
<p>Nothing lives at this address. Try the <a href="/posts/">list of posts</a>.</p>
{{ end }}
"""

ROBOTS = """User-agent: *
Disallow:

Sitemap: {{ "sitemap.xml" | absURL }}
"""

# The truth: every page Hugo built, from its own page model.
TRUTH = """{{- $items := slice -}}
{{- range site.AllPages -}}
{{- $n := 0 -}}{{- if .IsNode -}}{{- $n = len .RegularPages -}}{{- end -}}
{{- $file := "" -}}{{- with .File -}}{{- $file = .Path -}}{{- end -}}
{{- $items = $items | append (dict
  "kind" .Kind "section" .Section "title" .Title "permalink" .RelPermalink
  "aliases" .Aliases "regular_pages" $n "content_md5" (md5 .Content)
  "file" $file) -}}
{{- end -}}
{{- dict "base_url" site.BaseURL "paginate" site.Params.paginate "paginate_path" "page" "pages" $items | jsonify (dict "indent" " ") -}}
"""

CSS = "body{font-family:sans-serif;max-width:44em;margin:auto}nav a{margin-right:1em}\n"


def main(out):
    r = random.Random(24)
    write(f"{out}/hugo.toml", CONFIG)
    L = f"{out}/layouts"
    write(f"{L}/_default/baseof.html", BASEOF)
    write(f"{L}/_default/single.html", SINGLE)
    write(f"{L}/_default/list.html", LIST)
    write(f"{L}/_default/terms.html", TERMS)
    write(f"{L}/index.html", HOME)
    write(f"{L}/404.html", NOT_FOUND)
    write(f"{L}/robots.txt", ROBOTS)
    write(f"{L}/index.truth.json", TRUTH)
    write(f"{out}/static/css/site.css", CSS)

    C = f"{out}/content"
    write(f"{C}/_index.md", front({"title": "Field Notes"}) +
          "\nWalks, maps and the history of small places.\n")
    write(f"{C}/about.md", front({"title": "About", "date": "2024-01-01T10:00:00Z"}) +
          "\n" + paragraph(r, 5) + "\n\nWrite to the editors by post; there is no form.\n")
    write(f"{C}/posts/_index.md", front({"title": "Posts"}) + "\nEvery post, newest first.\n")

    start = datetime.datetime(2024, 1, 3, 9, 0, 0)
    posts = []
    for i in range(1, N_POSTS + 1):
        words = f"{r.choice(ADJS)}-{r.choice(NOUNS)}"
        slug = f"post-{i:03d}-{words}"
        title = f"{words.replace('-', ' ').title()} ({i:03d})"
        date = start + datetime.timedelta(days=3 * i, hours=r.randrange(0, 10))
        tags = sorted(r.sample(TAGS, r.randrange(1, 4)))
        cat = CATEGORIES[r.randrange(len(CATEGORIES))]
        paras = [paragraph(r, r.randrange(3, 7)) for _ in range(r.randrange(2, 5))]
        posts.append({"i": i, "slug": slug, "title": title, "date": date, "tags": tags,
                      "cat": cat, "paras": paras, "aliases": []})
    # Old URLs: 9 posts were moved (a renamed slug, a dated path, an .html file).
    for k, i in enumerate((3, 8, 13, 17, 22, 29, 35, 41, 50)):
        p = posts[i - 1]
        old = [f"/posts/{p['slug'].split('-', 2)[2]}/", f"/{p['date']:%Y/%m}/{p['slug']}/",
               f"/old/{p['slug']}.html"][k % 3]
        p["aliases"].append(old)
        if k == 0:
            p["aliases"].append(f"/{p['date']:%Y}/{p['slug']}/")

    forms = ["plain", "noslash", "index", "utm", "alias", "absolute", "fragment", "ref",
             "plain", "case", "plain", "noslash"]
    for p in posts:
        j = (p["i"] * 7) % N_POSTS
        t = posts[j]
        url = f"/posts/{t['slug']}/"
        form = forms[p["i"] % len(forms)]
        if form == "noslash":
            href = url[:-1]
        elif form == "index":
            href = url + "index.html"
        elif form == "utm":
            href = url + "?utm_source=newsletter&utm_medium=email"
        elif form == "alias":
            with_alias = [q for q in posts if q["aliases"]]
            href = with_alias[p["i"] % len(with_alias)]["aliases"][0]
        elif form == "absolute":
            href = BASE.rstrip("/") + url
        elif form == "fragment":
            href = url + "#notes"
        elif form == "ref":
            href = url + "?ref=related"
        elif form == "case":
            href = "/Posts/" + t["slug"] + "/"
        else:
            href = url
        extra = ""
        if p["i"] == 5:
            extra = " Older posts are listed from [the first page](/posts/page/1/)."
        if p["i"] == 6:
            extra = f" More on this in [the tag's first page](/tags/{p['tags'][0]}/page/1/)."
        if p["i"] == 7:
            extra = " See also [the second page of posts](/posts/page/2) and [the list](/posts)."
        body = "\n\n".join(p["paras"]) + f"\n\nSee also: [{t['title']}]({href}).{extra}\n"
        fm = {"title": p["title"], "date": p["date"].strftime("%Y-%m-%dT%H:%M:%SZ"),
              "slug": p["slug"], "tags": p["tags"], "categories": [p["cat"]]}
        if p["aliases"]:
            fm["aliases"] = p["aliases"]
        write(f"{C}/posts/{p['slug']}.md", front(fm) + "\n" + body)
        if p["i"] == COPIED:
            fm2 = dict(fm)
            fm2["slug"] = p["slug"] + "-copy"
            write(f"{C}/posts/{p['slug']}-copy.md", front(fm2) + "\n" + body)

    write(f"{C}/docs/_index.md", front({"title": "Documentation"}) +
          "\nHow the notes are made: the guide and the reference.\n")
    for sec, title, n in (("guide", "Guide", 6), ("reference", "Reference", 4)):
        write(f"{C}/docs/{sec}/_index.md", front({"title": title}) + f"\nThe {sec} pages.\n")
        for k in range(1, n + 1):
            name = f"{sec}-{k:02d}-{r.choice(NOUNS)}"
            write(f"{C}/docs/{sec}/{name}.md",
                  front({"title": f"{title} {k}: {name.split('-')[-1].title()}",
                         "date": f"2024-02-{k:02d}T08:00:00Z", "weight": k}) +
                  "\n" + paragraph(r, 6) + "\n\n" + paragraph(r, 4) + "\n")
    print(f"gen_site.py: {N_POSTS + 1} posts, 10 docs pages in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
