#!/usr/bin/env python3
"""Assembles the client-rendered documentation site from installed npm packages.

    python3 gen_site.py NODE_MODULES INDEX_HTML PUBLIC

The content is npm's own CLI documentation (the `npm` package's docs/content/*.md and its
README.md as the home page), rendered in the browser by docsify (its dist/ files). The
served HTML is one shell (INDEX_HTML) for every route; the sidebar (`_sidebar.md`) lists
every page by the title its front matter gives, grouped as the docs site groups them.
"""
import pathlib
import re
import shutil
import sys

SECTIONS = [
    ("commands", "CLI Commands"),
    ("configuring-npm", "Configuring npm"),
    ("using-npm", "Using npm"),
]


def front_matter(text):
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    fields = {}
    if m:
        for line in m.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip()] = value.strip()
    return fields


def main():
    modules, index, public = (pathlib.Path(a) for a in sys.argv[1:4])
    docsify = modules / "docsify" / "dist"
    npm = modules / "npm"
    shutil.copy(index, public / "index.html")
    shutil.copy(docsify / "docsify.min.js", public / "docsify.min.js")
    (public / "plugins").mkdir()
    shutil.copy(docsify / "plugins" / "front-matter.min.js", public / "plugins")
    (public / "themes").mkdir()
    shutil.copy(docsify / "themes" / "core.min.css", public / "themes")
    shutil.copy(npm / "README.md", public / "README.md")
    sidebar = ["- [Home](/)\n"]
    pages = 1
    for folder, heading in SECTIONS:
        src = npm / "docs" / "content" / folder
        (public / folder).mkdir()
        entries = []
        for md in sorted(src.glob("*.md")):
            text = md.read_text()
            shutil.copy(md, public / folder / md.name)
            title = front_matter(text).get("title", md.stem)
            entries.append((title, f"/{folder}/{md.stem}"))
            pages += 1
        sidebar.append(f"- {heading}\n")
        sidebar.extend(f"  - [{title}]({link})\n" for title, link in entries)
    (public / "_sidebar.md").write_text("".join(sidebar))
    print(pages)


if __name__ == "__main__":
    main()
