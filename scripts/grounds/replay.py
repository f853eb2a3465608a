#!/usr/bin/env python3
"""Replay the server rules of a proving-ground audit in a real nginx before trusting them.

    python3 scripts/grounds/replay.py (--truth scripts/GROUND/truth.py | --urls FILE) --state STATE \
        --export RUN/export --upstream http://127.0.0.1:PORT \
        (--root DIR | --proxy) [--server nginx|apache|htaccess] [--port 8799] [--baseline]

Writes STATE/replay-SERVER/: a private server on 127.0.0.1:--port (loopback only) that
serves the ground as its own server does (the same document root, or a reverse proxy to
--upstream that passes the Host header on), with the export's rules exactly where the
files say to paste them:

  nginx     `redirects.nginx.conf` included at http level, its
            `if ($dustpan_redirect_301)` line and every "Nginx Rule" of
            `url_variants.csv` in the server block (Debian's default `try_files` for a
            document root);
  apache    every "Apache Rule" and `redirects.apache.conf` in the `<VirtualHost>`;
  htaccess  every "Apache .htaccess Rule" and `redirects.apache.conf` in the
            `.htaccess` of the document root (a copy of --root, or an empty root whose
            `.htaccess` ends with the front controller that proxies to --upstream).

The server's own check (`nginx -t`, `apache2 -t`) must accept the result. Then, for every URL of the
truth's list (or of --urls, one URL per line: e.g. every address of the
export's pages.csv, for a ground whose truth cannot list its URLs), it asks the ground directly and through the replay (no redirect followed,
then following up to 10 redirects) and checks:

  * a URL that answered 200 still answers 200, unless a rule redirects it: then the
    redirect ends, without a loop, at a URL that answers 200;
  * every source of the redirect map answers 301 with the map's target;
  * a URL that ended at a page directly still ends at a page through the replay;
  * the variant rules do what their findings say, on a sample of the pages: a bare `?`
    answers 301 to the URL without it, a tracking, session or unknown parameter gets a
    `Link: <…>; rel="canonical"` header naming the URL without the query.

With --baseline the same server runs with no rule of the export at all: a failure there is
the harness's or the ground's, not a rule's, so run it first and compare.

Prints the counts and every failure; exit code 0 when all checks pass, 1 otherwise, 2 on
a usage error. Nothing leaves the machine: both servers are on 127.0.0.1.
"""

import argparse
import csv
import http.client
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

sys.dont_write_bytecode = True


def ask(port, path_query, host_header):
    """(status, Location, Link) of one GET, no redirect followed."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("GET", path_query, headers={"Host": host_header, "Accept-Encoding": "identity"})
        r = c.getresponse()
        r.read()
        return r.status, r.getheader("Location"), r.getheader("Link")
    finally:
        c.close()


def split(url):
    u = urllib.parse.urlsplit(url)
    pq = u.path or "/"
    if u.query or url.endswith("?"):
        pq += "?" + u.query
    return u.port or 80, pq


def follow(url, port_of, host_of, limit=10):
    """The statuses along `url`'s redirects (each hop asked on the port `port_of` maps
    it to), and whether it looped."""
    seen, chain = set(), []
    for _ in range(limit):
        port, pq = split(url)
        status, loc, _ = ask(port_of(port), pq, host_of(url))
        chain.append((url, status))
        if status not in (301, 302, 303, 307, 308) or not loc:
            return chain, False
        nxt = urllib.parse.urljoin(url, loc)
        if nxt in seen:
            return chain, True
        seen.add(url)
        url = nxt
    return chain, True


def nginx_conf(state, export, port, root, upstream, variant_rules, baseline):
    d = os.path.join(state, "replay-nginx")
    for sub in ("log", "run", "tmp"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    redirects = os.path.join(export, "redirects.nginx.conf")
    if baseline:
        redirects = os.path.join(d, "no-redirects.conf")
        with open(redirects, "w") as f:
            f.write("map $uri $dustpan_redirect_301 {\n    default \"\";\n}\n")
    serve = (
        f"        root {root};\n        index index.html;\n"
        "        location / {\n            try_files $uri $uri/ =404;\n        }\n"
        if root
        else "        location / {\n"
        f"            proxy_pass {upstream};\n"
        "            proxy_set_header Host $http_host;\n"
        "            proxy_redirect off;\n        }\n"
    )
    rules = "\n".join(variant_rules)
    conf = f"""# Replay of a Dustpan audit's server rules (scripts/grounds/replay.py).
worker_processes 1;
pid {d}/run/nginx.pid;
error_log {d}/log/error.log;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {d}/log/access.log;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    include {redirects};
    server {{
        listen 127.0.0.1:{port};
        server_name 127.0.0.1;
        if ($dustpan_redirect_301) {{ return 301 $dustpan_redirect_301; }}
{rules}
{serve}    }}
}}
"""
    path = os.path.join(d, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return d, path


def apache_conf(state, export, port, root, upstream, rules, htaccess, baseline):
    d = os.path.join(state, "replay-htaccess" if htaccess else "replay-apache")
    for sub in ("log", "run"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    htdocs = os.path.join(d, "htdocs")
    shutil.rmtree(htdocs, ignore_errors=True)
    if root and htaccess:
        shutil.copytree(root, htdocs)
    elif root:
        htdocs = root
    else:
        os.makedirs(htdocs)
    redirects = ""
    if not baseline:
        with open(os.path.join(export, "redirects.apache.conf")) as f:
            redirects = f.read()
    # An application behind the front controller owns every URL that is not a file,
    # directories included: no DirectoryIndex lookup turns `/` into `/index.html`.
    front = ("" if root else
             "# the application\nDirectoryIndex disabled\nRewriteEngine On\n"
             "RewriteCond %{REQUEST_FILENAME} !-f\n"
             f"RewriteRule ^ {upstream}%{{REQUEST_URI}} [P,L]\n")
    body = "\n".join(rules) + "\n" + redirects + "\n" + front
    if htaccess:
        with open(os.path.join(htdocs, ".htaccess"), "w") as f:
            f.write(body)
        vhost, override = "", "All"
    else:
        vhost, override = body.replace("%{REQUEST_FILENAME}", "%{DOCUMENT_ROOT}%{REQUEST_URI}"), "None"
    m = next(p for p in ("/usr/lib/apache2/modules", "/usr/lib64/httpd/modules") if os.path.isdir(p))
    user = "User nobody\nGroup nogroup\n" if os.geteuid() == 0 else ""
    mods = "".join(f"LoadModule {n}_module {m}/mod_{n}.so\n" for n in
                   ("mpm_event", "authz_core", "rewrite", "headers", "proxy", "proxy_http",
                    "mime", "dir"))
    conf = f"""# Replay of a Dustpan audit's server rules (scripts/grounds/replay.py).
ServerRoot {d}
ServerName 127.0.0.1
Listen 127.0.0.1:{port}
PidFile {d}/run/httpd.pid
DefaultRuntimeDir {d}/run
Mutex file:{d}/run default
ErrorLog {d}/log/error.log
LogLevel warn
{user}{mods}TypesConfig /etc/mime.types
<VirtualHost 127.0.0.1:{port}>
    ServerName 127.0.0.1
    DocumentRoot {htdocs}
    DirectoryIndex index.html
    ProxyPreserveHost On
    <Directory {htdocs}>
        Require all granted
        AllowOverride {override}
    </Directory>
{vhost}
</VirtualHost>
"""
    path = os.path.join(d, "httpd.conf")
    with open(path, "w") as f:
        f.write(conf)
    return d, path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--truth", help="the ground's truth.py, which lists its URLs with --list")
    src.add_argument("--urls", help="a file of URLs to replay, one per line")
    ap.add_argument("--state", required=True)
    ap.add_argument("--export", required=True)
    ap.add_argument("--upstream", required=True, help="the ground's own server, http://127.0.0.1:PORT")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--root", help="serve this document root (a static ground)")
    g.add_argument("--proxy", action="store_true", help="proxy to --upstream (an application)")
    ap.add_argument("--server", choices=("nginx", "apache", "htaccess"), default="nginx")
    ap.add_argument("--port", type=int, default=8799)
    ap.add_argument("--baseline", action="store_true",
                    help="serve the ground with none of the export's rules (the control run)")
    args = ap.parse_args(argv)
    binary = shutil.which("nginx" if args.server == "nginx" else "apache2")
    if not binary:
        print(f"replay.py: no {args.server} binary", file=sys.stderr)
        return 2
    up = urllib.parse.urlsplit(args.upstream)
    if up.hostname != "127.0.0.1":
        print("replay.py: --upstream must be on 127.0.0.1", file=sys.stderr)
        return 2
    up_port = up.port or 80

    with open(os.path.join(args.export, "url_variants.csv"), newline="") as f:
        variants = list(csv.DictReader(f))
    column = {"nginx": "Nginx Rule", "apache": "Apache Rule",
              "htaccess": "Apache .htaccess Rule"}[args.server]
    # A rule Dustpan does not offer is only comments saying why ("# Not offered for ..."),
    # as `audit::server_rule_offered` tells them apart.
    def is_offered(text):
        return any(l.strip() and not l.strip().startswith("#") for l in text.splitlines())
    rules = [r[column] for r in variants if r.get(column, "").strip()]
    offered = [r["Rule"] for r in variants if is_offered(r.get(column, ""))]
    with open(os.path.join(args.export, "redirect_map.csv"), newline="") as f:
        redirect_map = list(csv.DictReader(f))
    new_redirects = [r for r in redirect_map if r.get("change") != "existing"]
    if args.baseline:
        rules, offered, new_redirects = [], [], []

    if args.server == "nginx":
        d, conf = nginx_conf(args.state, args.export, args.port, args.root, args.upstream, rules,
                             args.baseline)
        test = [binary, "-t", "-q", "-e", f"{d}/log/error.log", "-c", conf]
        start = [binary, "-e", f"{d}/log/error.log", "-c", conf]
        pidfile = f"{d}/run/nginx.pid"
    else:
        d, conf = apache_conf(args.state, args.export, args.port, args.root, args.upstream,
                              rules, args.server == "htaccess", args.baseline)
        test = [binary, "-t", "-d", d, "-f", conf]
        start = [binary, "-d", d, "-f", conf, "-k", "start"]
        pidfile = f"{d}/run/httpd.pid"
    t = subprocess.run(test, capture_output=True, text=True)
    if t.returncode != 0:
        print(f"FAIL {args.server} refuses the rules:\n{t.stderr}")
        return 1
    subprocess.run(start, check=True)
    try:
        for _ in range(50):
            if os.path.exists(pidfile):
                break
            time.sleep(0.1)
        return replay(args, up_port, offered, new_redirects)
    finally:
        try:
            with open(pidfile) as f:
                pid = int(f.read().strip())
            os.kill(pid, signal.SIGQUIT if args.server == "nginx" else signal.SIGTERM)
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)
        except (OSError, ValueError):
            pass


def replay(args, up_port, offered, new_redirects):
    if args.urls:
        with open(args.urls) as f:
            out = f.read()
    else:
        out = subprocess.run([sys.executable, args.truth, args.state, "--list"],
                             capture_output=True, text=True, check=True).stdout
    urls = [u for u in out.split() if urllib.parse.urlsplit(u).port == up_port]
    host = f"127.0.0.1:{up_port}"
    direct = lambda p: p  # noqa: E731
    replayed = lambda p: args.port if p == up_port else p  # noqa: E731
    sources = {r["source"]: r for r in new_redirects}
    failures = []
    counts = {"urls": len(urls), "200 kept": 0, "redirected by a rule": 0, "map sources": 0,
              "canonical headers": 0, "bare ? redirects": 0}
    for u in urls:
        before, loop0 = follow(u, direct, lambda _u: host)
        after, loop1 = follow(u, replayed, lambda _u: host)
        if loop1 and not loop0:
            failures.append(f"{u}: a redirect loop through the rules: {after}")
            continue
        s0, s1 = before[0][1], after[0][1]
        if u in sources:
            counts["map sources"] += 1
            want = sources[u]["target"]
            port, pq = split(u)
            status, loc, _ = ask(args.port, pq, host)
            if status != 301 or urllib.parse.urljoin(u, loc or "") != want:
                failures.append(f"{u}: the map says 301 to {want}; the replay answers {status} {loc}")
        if s0 == 200:
            if s1 == 200:
                counts["200 kept"] += 1
            elif after[-1][1] == 200:
                counts["redirected by a rule"] += 1
            else:
                failures.append(f"{u}: answered 200; through the rules {after}")
        elif before[-1][1] == 200 and after[-1][1] != 200:
            failures.append(f"{u}: ended at a page; through the rules {after}")
    # The variant rules, on a sample of pages that answer 200 with no query.
    pages = [u for u in urls if "?" not in u][:40]
    probes = {
        "tracking_param": "utm_source=dustpan",
        "session_param": "sessionid=5f2b9c0e7a1d4e3b8c6f0a9d2e4b7c1a",
        "unknown_param": "dustpan_probe=1",
    }
    for u in pages:
        port, pq = split(u)
        if ask(args.port, pq, host)[0] != 200:
            continue
        for rule, q in probes.items():
            if rule not in offered:
                continue
            status, _, link = ask(args.port, f"{pq}?{q}", host)
            if status == 200 and link and 'rel="canonical"' in link and pq.split("?")[0] in link:
                counts["canonical headers"] += 1
            elif status == 200:
                failures.append(f"{u}?{q}: {rule}'s rule offers a canonical header; got Link: {link}")
        if "empty_query" in offered:
            status, loc, _ = ask(args.port, f"{pq}?", host)
            if status == 301 and loc and urllib.parse.urljoin(u, loc) == u:
                counts["bare ? redirects"] += 1
            else:
                failures.append(f"{u}?: empty_query's rule offers a 301 to {u}; got {status} {loc}")
    if args.baseline:
        print("baseline: none of the export's rules loaded")
    print(f"rules replayed in {args.server}: {len(offered)} URL-variant rules ({', '.join(offered) or 'none'}), "
          f"{len(new_redirects)} redirect-map lines")
    for k, v in counts.items():
        print(f"  {k}: {v}")
    print(f"failures: {len(failures)}")
    for f in failures[:40]:
        print(f"  FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
