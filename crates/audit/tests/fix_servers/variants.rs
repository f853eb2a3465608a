//! The URL-variant rules (`url_variants.csv`, `Fix::ServerRule`), replayed: an audit of a
//! small site whose every URL variant serves a duplicate is analysed through the public
//! API, and every rule the analysis offers is loaded, exactly as written, into real
//! nginx (the site's `server` block), real Apache (its `<VirtualHost>`) and real Apache
//! with `AllowOverride All` (the document root's `.htaccess`), in front of a small
//! application on loopback that behaves like a blog CMS: pages end in a slash and are
//! served with or without it, in any case, with an index file, a doubled slash or any
//! query (the duplicates the audit found); it serves `robots.txt` and its XML sitemaps
//! itself and redirects their slash forms back; `/feed` redirects to `/feed/`; static
//! files are on disk, served by the web server.
//!
//! Through the server with the rules, every URL of the site still answers 200 without a
//! redirect, and each rule does what its finding says on its variants: one 301 to the
//! page (keeping the port), or a `Link` canonical to the URL without the parameter.
//!
//! The servers also answer HTTPS on a second port (a self-signed certificate made with
//! `openssl`, asked with `curl`), as a server that serves the site over both schemes
//! does: the scheme rule must send every HTTPS URL to its HTTP page in one 301. Without
//! `openssl` or `curl` the scheme rule is loaded but not asked.

use super::{Running, check, find, free_port, is_root, processes_naming, start};
use audit::{
    AnalysisConfig, AuditInput, FetchRow, FoundVia, ProbeRow, ProbeRule, ProbeVerdict, UrlRow,
    VariantRule, server_rule_offered,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The site's pages (their preferred URLs, as paths).
const PAGES: &[&str] = &[
    "/",
    "/about/",
    "/blog/hello/",
    "/blog/caf%C3%A9/",
    "/feed/",
    "/search/?q=shoes",
];

/// What else the site serves: static files on disk, and what the CMS serves itself.
const OTHERS: &[&str] = &[
    "/style.css",
    "/app.js",
    "/image.png",
    "/robots.txt",
    "/sitemap.xml",
    "/sitemap_index.xml",
];

/// The static files, in the document root.
const FILES: &[(&str, &[u8])] = &[
    ("style.css", b"body { color: #333 }\n"),
    ("app.js", b"console.log('ok');\n"),
    ("image.png", b"\x89PNG\r\n\x1a\n"),
];

/// The application: a blog CMS on loopback (see the module docs). Stopped on drop.
struct App {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl App {
    fn start() -> App {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the application");
        let port = listener.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(s) = conn {
                    std::thread::spawn(move || serve(s));
                }
            }
        });
        App {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers one request of one connection.
fn serve(stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split(' ').nth(1).unwrap_or("/").to_owned();
    let mut host = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((name, value)) = h.split_once(':')
            && name.eq_ignore_ascii_case("host")
        {
            host = value.trim().to_owned();
        }
    }
    let (status, location, body) = cms(&target, &host);
    let mut out = &stream;
    let reason = if status == 200 { "OK" } else { "Other" };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(l) = location {
        head.push_str(&format!("Location: {l}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
}

/// What the CMS answers: `(status, Location, body)`.
fn cms(target: &str, host: &str) -> (u16, Option<String>, String) {
    let (raw, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    let path = percent_encoding::percent_decode_str(raw)
        .decode_utf8_lossy()
        .into_owned();
    let back = |to: &str| (301, Some(format!("http://{host}{to}")), String::new());
    // Files the CMS serves itself: their slash form redirects back.
    for file in ["/robots.txt", "/sitemap.xml", "/sitemap_index.xml"] {
        if path == file {
            return (200, None, format!("the CMS's {file}"));
        }
        if path == format!("{file}/") {
            return back(file);
        }
    }
    if path == "/feed" {
        return back("/feed/");
    }
    // Pages: any case, doubled slashes, an index file, with or without the slash.
    let mut key = path.to_lowercase();
    while key.contains("//") {
        key = key.replace("//", "/");
    }
    for index in ["index.html", "index.php"] {
        if let Some(k) = key.strip_suffix(index) {
            key = k.to_owned();
        }
    }
    if !key.ends_with('/') {
        key.push('/');
    }
    match key.as_str() {
        "/" | "/about/" | "/blog/hello/" | "/blog/café/" | "/feed/" => {
            (200, None, format!("<html><body>page {key}</body></html>"))
        }
        "/search/" => {
            let q = query
                .unwrap_or("")
                .split('&')
                .find_map(|p| p.strip_prefix("q="))
                .unwrap_or("");
            (
                200,
                None,
                format!("<html><body>results for {q}</body></html>"),
            )
        }
        _ => (404, None, "not found".to_owned()),
    }
}

/// The variants the audit probed on `page` (a path ending in a slash) of the site on
/// `port`, by rule. The `https` variant names the same port, as a probe of a site on a
/// default port would; the servers answer HTTPS on a port of their own ([`Tls`]).
fn variants(port: u16, page: &str) -> Vec<(ProbeRule, String)> {
    let site = format!("http://example.test:{port}");
    let bare = page.trim_end_matches('/');
    vec![
        (
            ProbeRule::HostWww,
            format!("http://www.example.test:{port}{page}"),
        ),
        (
            ProbeRule::Scheme,
            format!("https://example.test:{port}{page}"),
        ),
        (ProbeRule::TrailingSlash, format!("{site}{bare}")),
        (
            ProbeRule::PathCase,
            format!("{site}{}", page.to_ascii_uppercase()),
        ),
        (ProbeRule::IndexFile, format!("{site}{page}index.html")),
        (
            ProbeRule::DoubleSlash,
            format!("{site}{}", page.replacen('/', "//", 1)),
        ),
        (
            ProbeRule::TrackingParam,
            format!("{site}{page}?utm_source=dustpan"),
        ),
        (
            ProbeRule::SessionParam,
            format!("{site}{page}?sessionid=5f2b9c0e7a1d4e3b8c6f0a9d2e4b7c1a"),
        ),
        (
            ProbeRule::UnknownParam,
            format!("{site}{page}?dustpan_probe=1"),
        ),
        (ProbeRule::EmptyQuery, format!("{site}{page}?")),
        (ProbeRule::IpHost, format!("http://127.0.0.1:{port}{page}")),
    ]
}

/// The audit of the site on `port` as the crawler stores it: its pages, and every
/// probed variant of two of them serving the page's content.
fn audit_input(port: u16) -> AuditInput {
    let mut input = AuditInput::default();
    let add = |input: &mut AuditInput, url: &str, text: u64, via: FoundVia| -> u32 {
        let id = input.urls.len() as u32 + 1;
        input.urls.push(UrlRow {
            id,
            url: url.to_owned(),
            url_rfc3986: canon::equivalence_key(url, &canon::Policy::rfc3986())
                .unwrap_or_else(|_| url.to_owned()),
            found_via: via,
            depth: u32::from(via == FoundVia::Variant),
            ..UrlRow::default()
        });
        input.fetches.push(FetchRow {
            url_id: id,
            status: Some(200),
            content_type: Some("text/html; charset=utf-8".into()),
            text_hash: Some(text),
            simhash: Some(text.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            word_count: Some(200),
            ..FetchRow::default()
        });
        id
    };
    let mut bases = Vec::new();
    for (i, page) in PAGES.iter().enumerate() {
        let via = if i == 0 {
            FoundVia::Start
        } else {
            FoundVia::default()
        };
        let id = add(
            &mut input,
            &format!("http://example.test:{port}{page}"),
            1000 + i as u64,
            via,
        );
        bases.push(id);
    }
    for (at, page) in [(1, "/about/"), (2, "/blog/hello/")] {
        for (rule, url) in variants(port, page) {
            let id = add(&mut input, &url, 1000 + at as u64, FoundVia::Variant);
            input.probes.push(ProbeRow {
                url: id,
                base: bases[at],
                rule,
            });
        }
    }
    input
}

/// The URL-variant rules Dustpan writes for the site on `port`: each one's verdict is
/// `duplicate`, so each one's fix is offered.
fn rules(port: u16) -> Vec<VariantRule> {
    let analysis = audit::analyse(&audit_input(port), &AnalysisConfig::default());
    let rules = analysis.url_variants;
    assert_eq!(rules.len(), ProbeRule::ALL.len());
    for r in &rules {
        assert_eq!(
            r.verdict,
            Some(ProbeVerdict::Duplicate),
            "{:?}: {:#?}",
            r.rule,
            r.probes
        );
    }
    rules
}

/// What a request must answer through the server with the rules.
enum Want {
    /// 200, no redirect, no canonical header.
    Served,
    /// One 301 to this URL, which answers 200.
    Redirect(String),
    /// 200 with `Link: <this URL>; rel="canonical"`.
    Canonical(String),
}

/// The requests that check one rule on the site on `port`.
fn rule_checks(rule: ProbeRule, port: u16) -> Vec<(String, Want)> {
    let site = format!("http://example.test:{port}");
    let go = |from: &str, to: &str| {
        (
            format!("{site}{from}"),
            Want::Redirect(format!("{site}{to}")),
        )
    };
    let canonical = |from: &str, to: &str| {
        (
            format!("{site}{from}"),
            Want::Canonical(format!("{site}{to}")),
        )
    };
    match rule {
        ProbeRule::HostWww => vec![
            (
                format!("http://www.example.test:{port}/about/"),
                Want::Redirect(format!("{site}/about/")),
            ),
            (
                format!("http://WWW.example.test:{port}/style.css"),
                Want::Redirect(format!("{site}/style.css")),
            ),
        ],
        // The site is on http: the rule redirects https, asked on the TLS port
        // (`tls_checks`); here every plain URL of the site must still be served.
        ProbeRule::Scheme => Vec::new(),
        ProbeRule::TrailingSlash => vec![
            go("/about", "/about/"),
            go("/blog/caf%C3%A9", "/blog/caf%C3%A9/"),
            go("/blog/hello?x=1", "/blog/hello/?x=1"),
        ],
        ProbeRule::PathCase => vec![go("/ABOUT/", "/about/"), go("/Blog/Hello/", "/blog/hello/")],
        ProbeRule::IndexFile => vec![
            go("/about/index.html", "/about/"),
            go("/blog/hello/index.php", "/blog/hello/"),
        ],
        ProbeRule::DoubleSlash => vec![
            go("//about/", "/about/"),
            go("/blog//hello/", "/blog/hello/"),
        ],
        ProbeRule::TrackingParam => vec![
            canonical("/about/?utm_source=dustpan", "/about/"),
            canonical("/blog/hello/?utm_source=a&utm_medium=b", "/blog/hello/"),
        ],
        ProbeRule::SessionParam => vec![canonical(
            "/about/?sessionid=5f2b9c0e7a1d4e3b8c6f0a9d2e4b7c1a",
            "/about/",
        )],
        ProbeRule::UnknownParam => vec![
            canonical("/about/?dustpan_probe=1", "/about/"),
            (format!("{site}/search/?q=boots"), Want::Served),
        ],
        ProbeRule::EmptyQuery => vec![
            go("/about/?", "/about/"),
            go("/blog/caf%C3%A9/?", "/blog/caf%C3%A9/"),
        ],
        ProbeRule::IpHost => vec![(
            format!("http://127.0.0.1:{port}/about/"),
            Want::Redirect(format!("{site}/about/")),
        )],
    }
}

/// What one request answered.
#[derive(Debug)]
struct Answer {
    status: u16,
    location: Option<String>,
    links: Vec<String>,
}

/// One raw HTTP/1.1 request for `url` to the server on 127.0.0.1:`port`, naming the
/// URL's host (and port) in `Host`.
fn request(port: u16, url: &str) -> Answer {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (authority, target) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8_lossy(&raw);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let mut answer = Answer {
        status,
        location: None,
        links: Vec::new(),
    };
    for l in lines {
        let Some((name, value)) = l.split_once(':') else {
            continue;
        };
        if name.eq_ignore_ascii_case("location") {
            answer.location = Some(value.trim().to_owned());
        } else if name.eq_ignore_ascii_case("link") {
            answer.links.push(value.trim().to_owned());
        }
    }
    answer
}

/// Sends every check to the server on `port`; returns what went wrong.
fn run_checks(port: u16, checks: &[(String, Want)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (url, want) in checks {
        let got = request(port, url);
        let problem = match want {
            Want::Served => (got.status != 200 || got.location.is_some() || !got.links.is_empty())
                .then(|| "want 200 without a redirect or a canonical header".to_owned()),
            Want::Canonical(to) => {
                let link = format!("<{to}>; rel=\"canonical\"");
                (got.status != 200 || got.location.is_some() || got.links != [link.clone()])
                    .then(|| format!("want 200 with Link: {link}"))
            }
            Want::Redirect(to) => {
                if got.status != 301 || got.location.as_deref() != Some(to.as_str()) {
                    Some(format!("want one 301 to {to}"))
                } else {
                    // One hop: the target is served.
                    let next = request(port, to);
                    (next.status != 200 || next.location.is_some()).then(|| {
                        format!(
                            "its target {to} answers {} {:?}",
                            next.status, next.location
                        )
                    })
                }
            }
        };
        if let Some(p) = problem {
            wrong.push(format!(
                "{url} -> {} {:?} {:?}: {p}",
                got.status, got.location, got.links
            ));
        }
    }
    wrong
}

/// The servers' HTTPS listener: a port of its own and a self-signed certificate for
/// `example.test`, made with `openssl`.
struct Tls {
    port: u16,
    cert: PathBuf,
    key: PathBuf,
}

impl Tls {
    /// A certificate in `d`, or `None` (with a SKIPPED line) without `openssl` or `curl`.
    fn make(d: &Path) -> Option<Tls> {
        let (Some(openssl), Some(_)) = (find(&["openssl"]), find(&["curl"])) else {
            eprintln!("SKIPPED the scheme rule over HTTPS: no openssl or curl");
            return None;
        };
        let (cert, key) = (d.join("cert.pem"), d.join("key.pem"));
        let mut c = Command::new(openssl);
        c.args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=example.test"])
        .args(["-addext", "subjectAltName=DNS:example.test"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert);
        check(c, "openssl req");
        Some(Tls {
            port: free_port(),
            cert,
            key,
        })
    }
}

/// One HTTPS request with `curl` to the server's TLS port, `url` naming `example.test`
/// on that port (resolved to 127.0.0.1, the certificate trusted).
fn request_tls(tls: &Tls, url: &str) -> Answer {
    let out = Command::new(find(&["curl"]).expect("curl"))
        .args(["-sS", "-o", "/dev/null", "-D", "-", "--max-time", "10"])
        .arg("--cacert")
        .arg(&tls.cert)
        .arg("--resolve")
        .arg(format!("example.test:{}:127.0.0.1", tls.port))
        .arg(url)
        .output()
        .expect("run curl");
    assert!(
        out.status.success(),
        "curl {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let head = String::from_utf8_lossy(&out.stdout);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let mut answer = Answer {
        status,
        location: None,
        links: Vec::new(),
    };
    for l in lines {
        if let Some((name, value)) = l.split_once(':') {
            if name.eq_ignore_ascii_case("location") {
                answer.location = Some(value.trim().to_owned());
            } else if name.eq_ignore_ascii_case("link") {
                answer.links.push(value.trim().to_owned());
            }
        }
    }
    answer
}

/// The scheme rule over HTTPS: every page and file of the site on `port`, asked on the
/// TLS port, answers one 301 to the same URL over HTTP, which is served. Without the
/// rule (`rule` false) each is served over HTTPS as it is. Returns what went wrong.
fn tls_checks(tls: &Tls, port: u16, rule: bool) -> Vec<String> {
    let mut wrong = Vec::new();
    for p in PAGES.iter().chain(OTHERS) {
        let url = format!("https://example.test:{}{p}", tls.port);
        let got = request_tls(tls, &url);
        let want = format!("http://example.test:{port}{p}");
        let problem = if !rule {
            (got.status != 200 || got.location.is_some())
                .then(|| "want 200 over HTTPS without the scheme rule".to_owned())
        } else if got.status != 301 || got.location.as_deref() != Some(want.as_str()) {
            Some(format!("want one 301 to {want}"))
        } else {
            let next = request(port, &want);
            (next.status != 200 || next.location.is_some()).then(|| {
                format!(
                    "its target {want} answers {} {:?}",
                    next.status, next.location
                )
            })
        };
        if let Some(p) = problem {
            wrong.push(format!("{url} -> {} {:?}: {p}", got.status, got.location));
        }
    }
    wrong
}

/// Every URL the site serves, which must stay served.
fn site_checks(port: u16) -> Vec<(String, Want)> {
    PAGES
        .iter()
        .chain(OTHERS)
        .map(|p| (format!("http://example.test:{port}{p}"), Want::Served))
        .collect()
}

/// Where the servers run.
enum Place {
    /// nginx, the site's `server` block.
    Nginx,
    /// Apache, the site's `<VirtualHost>`.
    VirtualHost,
    /// Apache, the `.htaccess` of the document root.
    Htaccess,
}

impl Place {
    fn text(&self, r: &VariantRule) -> String {
        match self {
            Place::Nginx => r.nginx.clone(),
            Place::VirtualHost => r.apache.clone(),
            Place::Htaccess => r.htaccess.clone(),
        }
    }
}

/// The document root with the static files.
fn htdocs(d: &Path) -> PathBuf {
    let root = d.join("htdocs");
    std::fs::create_dir_all(&root).expect("htdocs");
    for (name, bytes) in FILES {
        std::fs::write(root.join(name), bytes).expect("static file");
    }
    root
}

/// Splits an nginx rule into its http-block and server-block parts, by the comments
/// that say where each goes.
fn nginx_parts(text: &str) -> (String, String) {
    let (mut http, mut server) = (String::new(), String::new());
    let mut in_http = false;
    for line in text.lines() {
        if line.starts_with("# nginx: in the http block") {
            in_http = true;
        } else if line.starts_with("# nginx: in the site's server block") {
            in_http = false;
        }
        let into = if in_http { &mut http } else { &mut server };
        into.push_str("    ");
        into.push_str(line);
        into.push('\n');
    }
    (http, server)
}

/// nginx in front of the application, with `rules` in the server block: the command
/// that runs it.
fn nginx_config(
    nginx: &Path,
    d: &Path,
    port: u16,
    app: u16,
    tls: Option<&Tls>,
    rules: &[String],
) -> impl Fn() -> Command {
    let root = htdocs(d);
    let tls = tls.map_or_else(String::new, |t| {
        format!(
            "        listen 127.0.0.1:{} ssl;\n        ssl_certificate {};\n        \
             ssl_certificate_key {};\n",
            t.port,
            t.cert.display(),
            t.key.display()
        )
    });
    let (mut http, mut server) = (String::new(), String::new());
    for r in rules {
        let (h, s) = nginx_parts(r);
        http.push_str(&h);
        server.push_str(&s);
    }
    let perl = Path::new("/usr/lib/nginx/modules/ngx_http_perl_module.so");
    let load = if http.contains("perl_set") {
        format!("load_module {};\n", perl.display())
    } else {
        String::new()
    };
    let conf = format!(
        "{load}daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\nevents {{ worker_connections 64; }}\nhttp {{\n    \
         access_log off;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n    \
         fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    \
         scgi_temp_path {d}/scgi;\n{http}    server {{\n        listen 127.0.0.1:{port};\n{tls}        \
         server_name example.test;\n        root {root};\n{server}        \
         location / {{ try_files $uri @app; }}\n        location @app {{\n            \
         proxy_pass http://127.0.0.1:{app};\n            proxy_set_header Host $http_host;\n        \
         }}\n    }}\n}}\n",
        d = d.display(),
        root = root.display(),
    );
    let conf_path = d.join("nginx.conf");
    std::fs::write(&conf_path, conf).expect("write nginx.conf");
    let (nginx, d) = (nginx.to_owned(), d.to_owned());
    move || {
        let mut c = Command::new(&nginx);
        c.arg("-p")
            .arg(&d)
            .arg("-e")
            .arg(d.join("error.log"))
            .arg("-c")
            .arg(&conf_path);
        c
    }
}

/// The CMS's own rules, after the site's: what is not a file goes to the application.
fn front_controller(app: u16, exists: &str) -> String {
    format!(
        "# the CMS\nRewriteEngine On\nRewriteCond {exists} !-f\n\
         RewriteRule ^ http://127.0.0.1:{app}%{{REQUEST_URI}} [P,L]\n"
    )
}

/// Apache in front of the application, with `rules` in the VirtualHost or in the
/// document root's `.htaccess`: the command that runs it.
fn apache_config(
    (apache, modules): (&Path, &Path),
    d: &Path,
    port: u16,
    app: u16,
    place: &Place,
    tls: Option<&Tls>,
    rules: &[String],
) -> impl Fn() -> Command {
    let root = htdocs(d);
    let rules = rules.join("\n");
    let (vhost, override_) = match place {
        Place::Htaccess => {
            let file = format!("{rules}\n{}", front_controller(app, "%{REQUEST_FILENAME}"));
            std::fs::write(root.join(".htaccess"), file).expect(".htaccess");
            (String::new(), "All")
        }
        _ => (
            format!(
                "{rules}\n{}",
                front_controller(app, "%{DOCUMENT_ROOT}%{REQUEST_URI}")
            ),
            "None",
        ),
    };
    let user = if is_root() {
        "User nobody\nGroup nogroup\n"
    } else {
        ""
    };
    let m = modules.display();
    // The site over HTTPS: the same VirtualHost on the TLS port (the rules pasted into
    // each of the site's VirtualHosts, as its fix says).
    let (ssl_listen, ssl_module, ssl) = tls.map_or_else(Default::default, |t| {
        (
            format!("Listen 127.0.0.1:{}\n", t.port),
            format!("LoadModule ssl_module {m}/mod_ssl.so\n"),
            format!(
                "    SSLEngine on\n    SSLCertificateFile {}\n    SSLCertificateKeyFile {}\n",
                t.cert.display(),
                t.key.display()
            ),
        )
    });
    let vhost_on = |on: u16, ssl: &str| {
        format!(
            "<VirtualHost 127.0.0.1:{on}>\n    ServerName example.test\n{ssl}    \
             DocumentRoot {root}\n    ProxyPreserveHost On\n    \
             <Directory {root}>\n        Require all granted\n        AllowOverride {override_}\n    \
             </Directory>\n{vhost}\n</VirtualHost>\n",
            root = root.display(),
        )
    };
    let site = vhost_on(port, "");
    let ssl_site = tls.map_or_else(String::new, |t| vhost_on(t.port, &ssl));
    let conf = format!(
        "ServerRoot {d}\nServerName example.test\nListen 127.0.0.1:{port}\n{ssl_listen}\
         PidFile {d}/httpd.pid\nDefaultRuntimeDir {d}\nMutex file:{d} default\n\
         ErrorLog {d}/error.log\nLogLevel warn\n{user}\
         LoadModule mpm_event_module {m}/mod_mpm_event.so\n\
         LoadModule authz_core_module {m}/mod_authz_core.so\n\
         LoadModule rewrite_module {m}/mod_rewrite.so\n\
         LoadModule headers_module {m}/mod_headers.so\n\
         LoadModule proxy_module {m}/mod_proxy.so\n\
         LoadModule proxy_http_module {m}/mod_proxy_http.so\n{ssl_module}\
         {site}{ssl_site}",
        d = d.display(),
    );
    let conf_path = d.join("httpd.conf");
    std::fs::write(&conf_path, conf).expect("write httpd.conf");
    let (apache, d) = (apache.to_owned(), d.to_owned());
    move || {
        let mut c = Command::new(&apache);
        c.arg("-d").arg(&d).arg("-f").arg(&conf_path);
        c
    }
}

/// Replays the rules offered for `place`: the site is served through the server without
/// rules, then with them; returns what went wrong.
fn replay(place: &Place) -> Option<Vec<String>> {
    let name = match place {
        Place::Nginx => "nginx",
        Place::VirtualHost => "Apache VirtualHost",
        Place::Htaccess => "Apache .htaccess",
    };
    let server = match place {
        Place::Nginx => match find(&["nginx"]) {
            Some(n) => (n, PathBuf::new()),
            None => {
                eprintln!("SKIPPED {name}: no nginx binary (apt-get install nginx)");
                return None;
            }
        },
        _ => {
            let apache = find(&["apache2", "httpd"]);
            let modules = ["/usr/lib/apache2/modules", "/usr/lib64/httpd/modules"]
                .map(PathBuf::from)
                .into_iter()
                .find(|m| m.join("mod_proxy_http.so").is_file());
            match (apache, modules) {
                (Some(a), Some(m)) => (a, m),
                _ => {
                    eprintln!(
                        "SKIPPED {name}: no apache2 with mod_proxy_http (apt-get install apache2)"
                    );
                    return None;
                }
            }
        }
    };
    let app = App::start();
    let port = free_port();
    let certs = tempfile::tempdir().expect("temp dir");
    let tls = Tls::make(certs.path());
    let rules = rules(port);
    let perl = Path::new("/usr/lib/nginx/modules/ngx_http_perl_module.so").is_file();
    let mut texts = Vec::new();
    let mut checks = site_checks(port);
    let mut wrong = Vec::new();
    for r in &rules {
        let text = place.text(r);
        if !server_rule_offered(&text) {
            eprintln!("{name}: {:?} not offered: {text}", r.rule);
            continue;
        }
        if matches!(place, Place::Nginx) && text.contains("perl_set") && !perl {
            eprintln!(
                "SKIPPED {name} {:?}: no ngx_http_perl_module (apt-get install libnginx-mod-http-perl)",
                r.rule
            );
            continue;
        }
        texts.push(text);
        checks.extend(rule_checks(r.rule, port));
    }
    let start_server = |d: &Path, texts: &[String]| -> Running {
        let (cmd, log): (Box<dyn Fn() -> Command>, PathBuf) = match place {
            Place::Nginx => (
                Box::new(nginx_config(
                    &server.0,
                    d,
                    port,
                    app.port,
                    tls.as_ref(),
                    texts,
                )),
                d.join("error.log"),
            ),
            _ => (
                Box::new(apache_config(
                    (&server.0, &server.1),
                    d,
                    port,
                    app.port,
                    place,
                    tls.as_ref(),
                    texts,
                )),
                d.join("error.log"),
            ),
        };
        let mut test = cmd();
        test.arg("-t");
        check(test, &format!("{name} -t\n{}", texts.join("\n")));
        let mut run = cmd();
        if !matches!(place, Place::Nginx) {
            run.arg("-DFOREGROUND");
        }
        start(run, port, &log)
    };
    // Without the rules: the application serves every URL and every variant.
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let _server = start_server(dir.path(), &[]);
        let before = run_checks(port, &site_checks(port));
        assert!(
            before.is_empty(),
            "{name} without rules:\n{}",
            before.join("\n")
        );
        for (_, url) in variants(port, "/about/") {
            if url.starts_with("https:") {
                continue;
            }
            let a = request(port, &url);
            assert_eq!(a.status, 200, "{name} without rules: {url} {a:?}");
        }
        if let Some(tls) = &tls {
            let before = tls_checks(tls, port, false);
            assert!(
                before.is_empty(),
                "{name} without rules:\n{}",
                before.join("\n")
            );
        }
    }
    assert!(processes_naming(dir.path()).is_empty());
    // With them.
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let _server = start_server(dir.path(), &texts);
        wrong.extend(
            run_checks(port, &checks)
                .into_iter()
                .map(|w| format!("{name}: {w}")),
        );
        let scheme = rules
            .iter()
            .any(|r| r.rule == ProbeRule::Scheme && texts.contains(&place.text(r)));
        if let Some(tls) = &tls {
            wrong.extend(
                tls_checks(tls, port, scheme)
                    .into_iter()
                    .map(|w| format!("{name} over HTTPS: {w}")),
            );
        }
    }
    let left = processes_naming(dir.path());
    assert!(left.is_empty(), "left running: {left:#?}");
    if !wrong.is_empty() {
        wrong.push(format!("the rules:\n{}", texts.join("\n")));
    }
    Some(wrong)
}

#[test]
fn nginx_serves_the_site_with_every_variant_rule() {
    if let Some(wrong) = replay(&Place::Nginx) {
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

#[test]
fn apache_virtual_host_serves_the_site_with_every_variant_rule() {
    if let Some(wrong) = replay(&Place::VirtualHost) {
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

#[test]
fn apache_htaccess_serves_the_site_with_every_variant_rule() {
    if let Some(wrong) = replay(&Place::Htaccess) {
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
