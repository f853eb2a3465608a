//! The nginx and Apache redirect files, loaded by the real servers: each test writes a
//! redirect map whose URLs hold every character a hostile site may put in one, starts
//! the server on 127.0.0.1 on a free port (never the default one) with a private
//! configuration that includes the generated file, checks it with the server's own
//! `-t`, and sends raw HTTP/1.1 requests on loopback: every source answers 301 with
//! exactly the expected `Location`, and nothing else is redirected.
//!
//! A test skips, saying so, when the server binary is absent (scripts/setup-desktop.sh
//! installs both for CI).
//!
//! `variants` replays the URL-variant rules the same way, in front of an application.

#[path = "fix_servers/variants.rs"]
mod variants;

use audit::{FixFiles, RedirectLine};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Which server answers: nginx writes a `$` in a target as `%24`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Server {
    Nginx,
    Apache,
}

/// One request and what it must answer.
struct Case {
    /// The raw request target, as a browser sends it.
    target: String,
    /// The host the request names (the port is added).
    host: &'static str,
    /// The `Location` of the 301, or `None` for "not redirected".
    location: Option<String>,
}

/// The redirect map and the requests that check it, for a site on `port`.
fn site(port: u16, server: Server) -> (FixFiles, Vec<Case>) {
    let base = format!("http://127.0.0.1:{port}");
    let other = format!("http://localhost:{port}");
    // (source, target, [(request, host, expected Location for nginx, for Apache)])
    let dollar = |nginx: &str, apache: &str| match server {
        Server::Nginx => nginx.to_owned(),
        Server::Apache => apache.to_owned(),
    };
    let lines: Vec<(String, String)> = vec![
        (format!("{base}/old;x"), format!("{base}/new;internal")),
        (format!("{base}/a}}b{{c"), format!("{base}/t;}}{{x")),
        (format!("{base}/back\\slash"), format!("{base}/to\\back\\")),
        (format!("{base}/quote\"d"), format!("{base}/t\"q")),
        (format!("{base}/dollar$x"), format!("{base}/cash$y")),
        (format!("{base}/pct%25x%2Fy"), format!("{base}/p%25q%3B")),
        (format!("{base}/with space"), format!("{base}/to space")),
        (format!("{base}/café"), format!("{base}/ü")),
        (format!("{base}/q?a=1&b={{x}}'y"), format!("{base}/q?a=1")),
        (format!("{base}/x1"), format!("{base}/x3")),
        (format!("{base}/Price"), format!("{base}/price")),
        (format!("{base}/Cost$"), format!("{base}/cost$")),
        (format!("{other}/page"), format!("{base}/page")),
        (
            format!("{base}/long/{}", "abcdefghij".repeat(30)),
            format!("{base}/short"),
        ),
        (format!("{base}/nl\nx"), format!("{base}/ok")),
        (format!("{base}/shoes"), format!("{base}/shoes?color=red")),
        (
            format!("{base}/refs"),
            format!("{base}/t?x=$1&y=%2&z=${{HOME}}"),
        ),
        (format!("{base}/inj"), format!("{base}/x\" [R=302]")),
        (
            format!("{base}/brace"),
            format!("{base}/a;}}return 200 pwned;#f"),
        ),
        (format!("{base}/docs/index.html"), format!("{base}/docs/")),
        (format!("{base}/w/index.php"), format!("{base}/wiki/Main")),
    ];
    let redirects = lines
        .into_iter()
        .map(|(source, target)| RedirectLine {
            source,
            target,
            status: 301,
            today: None,
        })
        .collect::<Vec<_>>();
    let mut redirects = redirects;
    redirects.sort_by(|a, b| a.source.cmp(&b.source));
    let go = |target: &str, location: String| Case {
        target: target.to_owned(),
        host: "127.0.0.1",
        location: Some(location),
    };
    let stay = |target: &str, host: &'static str| Case {
        target: target.to_owned(),
        host,
        location: None,
    };
    let cases = vec![
        go("/old;x", format!("{base}/new;internal")),
        go("/a}b{c", format!("{base}/t;}}{{x")),
        go("/back\\slash", format!("{base}/to\\back\\")),
        go("/quote%22d", format!("{base}/t%22q")),
        go("/dollar$x", format!("{base}/cash{}", dollar("%24y", "$y"))),
        go("/pct%25x%2Fy", format!("{base}/p%25q%3B")),
        go("/with%20space", format!("{base}/to%20space")),
        go("/caf%C3%A9", format!("{base}/%C3%BC")),
        go("/q?a=1&b={x}'y", format!("{base}/q?a=1")),
        stay("/q?a=1&b={x}'y&c", "127.0.0.1"),
        stay("/q?a=1&b={X}'y", "127.0.0.1"),
        go("/x1", format!("{base}/x3")),
        go("/x1?utm_source=mail", format!("{base}/x3")),
        go("/Price", format!("{base}/price")),
        stay("/price", "127.0.0.1"),
        stay("/PRICE", "127.0.0.1"),
        go("/Cost$", format!("{base}/cost{}", dollar("%24", "$"))),
        stay("/cost$", "127.0.0.1"),
        Case {
            target: "/page".to_owned(),
            host: "localhost",
            location: Some(format!("{base}/page")),
        },
        Case {
            target: "/page".to_owned(),
            host: "LocalHost",
            location: Some(format!("{base}/page")),
        },
        stay("/page", "127.0.0.1"),
        go(
            &format!("/long/{}", "abcdefghij".repeat(30)),
            format!("{base}/short"),
        ),
        go("/nl%0Ax", format!("{base}/ok")),
        go("/shoes", format!("{base}/shoes?color=red")),
        stay("/shoes?color=red", "127.0.0.1"),
        go(
            "/refs",
            format!(
                "{base}/t?x={}&y=%2&z={}",
                dollar("%241", "$1"),
                dollar("%24{HOME}", "${HOME}")
            ),
        ),
        go("/inj", format!("{base}/x%22%20[R=302]")),
        go("/brace", format!("{base}/a;}}return%20200%20pwned;#f")),
        go("/docs/index.html", format!("{base}/docs/")),
        stay("/docs/", "127.0.0.1"),
        // A script's pages are chosen by the query string: only the bare path moves.
        go("/w/index.php", format!("{base}/wiki/Main")),
        stay("/w/index.php?title=Other", "127.0.0.1"),
        stay("/unrelated", "127.0.0.1"),
        stay("/", "127.0.0.1"),
        stay("/old", "127.0.0.1"),
        stay("/new;internal", "127.0.0.1"),
    ];
    (
        FixFiles {
            redirects,
            ..FixFiles::default()
        },
        cases,
    )
}

/// A free port on 127.0.0.1 (the kernel's pick, so never 80 or 443).
fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().expect("local addr").port()
}

/// The first of these programs that exists.
fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from));
    names
        .iter()
        .flat_map(|n| dirs.iter().map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

/// Stops the server when the test ends, whether it passed or not: the server runs in
/// a process group of its own (see [`start`]), and the whole group is stopped, so
/// that Apache's worker processes go with their parent.
struct Running(Child);

impl Running {
    /// Sends `signal` to the server's process group.
    fn signal_group(&self, signal: &str) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill")
            .args([signal, "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A graceful stop first: the parent stops its children and exits.
        self.signal_group("-TERM");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && !matches!(self.0.try_wait(), Ok(Some(_))) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Whatever is left of the group (a child that outlived its parent) goes too.
        self.signal_group("-KILL");
        let _ = self.0.wait();
    }
}

/// The processes (other than zombies) whose command line names `dir`: none may be
/// left once a test's server is stopped.
fn processes_naming(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(&needle) {
            out.push(format!("{pid} {cmdline}"));
        }
    }
    out
}

/// Starts `cmd` and waits until `port` accepts connections.
fn start(mut cmd: Command, port: u16, log: &Path) -> Running {
    use std::os::unix::process::CommandExt;
    let child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the server");
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!(
                "the server exited ({status}): {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "the server never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// Runs a configuration check; panics with its output unless it passes.
fn check(mut cmd: Command, what: &str) {
    let out = cmd.output().expect("run the configuration check");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} rejects the file:\n{text}");
    assert!(
        !text.contains("[warn]") && !text.contains("[emerg]"),
        "{what} warns:\n{text}"
    );
}

/// One raw HTTP/1.1 request on loopback: the status and the `Location`, if any.
fn get(port: u16, host: &str, target: &str) -> (u16, Option<String>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
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
    let location = lines.find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    });
    (status, location)
}

/// Sends every case; returns the mismatches.
fn run_cases(port: u16, cases: &[Case]) -> Vec<String> {
    let mut wrong = Vec::new();
    for c in cases {
        let (status, location) = get(port, c.host, &c.target);
        let ok = match &c.location {
            Some(want) => status == 301 && location.as_deref() == Some(want.as_str()),
            None => status != 301 && location.is_none(),
        };
        if !ok {
            wrong.push(format!(
                "{} {} -> {status} {location:?}, want {:?}",
                c.host, c.target, c.location
            ));
        }
    }
    wrong
}

/// The `if` lines the nginx file's header tells to add to each `server {}`.
fn nginx_server_lines(file: &str) -> String {
    file.lines()
        .filter_map(|l| l.strip_prefix("#     if ("))
        .map(|l| format!("        if ({l}\n"))
        .collect()
}

/// A private nginx for `map` (the generated file) on `port` in `d`: the command that
/// runs it (add `-t` to check the configuration).
fn nginx_setup(nginx: &Path, d: &Path, port: u16, map: &str) -> impl Fn() -> Command {
    std::fs::write(d.join("redirects.nginx.conf"), map).expect("write the map");
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\nevents {{ worker_connections 64; }}\nhttp {{\n    \
         access_log off;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n    \
         fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    \
         scgi_temp_path {d}/scgi;\n    include {d}/redirects.nginx.conf;\n    server {{\n        \
         listen 127.0.0.1:{port};\n        server_name _;\n{}        \
         location / {{ return 200 \"ok\\n\"; }}\n    }}\n}}\n",
        nginx_server_lines(map),
        d = d.display()
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

/// A private Apache for `map` on `port` in `d`, with mod_rewrite and mod_alias from
/// `modules`: the command that runs it (add `-t` to check, `-DFOREGROUND` to serve).
fn apache_setup(
    apache: &Path,
    modules: &Path,
    d: &Path,
    port: u16,
    map: &str,
) -> impl Fn() -> Command {
    std::fs::create_dir_all(d.join("htdocs")).expect("htdocs");
    std::fs::write(d.join("htdocs/index.html"), "ok\n").expect("index.html");
    std::fs::write(d.join("redirects.apache.conf"), map).expect("write the map");
    // Apache started as root must switch to an unprivileged user. A site whose URLs hold
    // %2F serves them with AllowEncodedSlashes (without it Apache answers 404 itself).
    let user = if is_root() {
        "User nobody\nGroup nogroup\n"
    } else {
        ""
    };
    let conf = format!(
        "ServerRoot {d}\nServerName 127.0.0.1\nListen 127.0.0.1:{port}\n\
         PidFile {d}/httpd.pid\nDefaultRuntimeDir {d}\nMutex file:{d} default\n\
         ErrorLog {d}/error.log\nLogLevel warn\n{user}\
         LoadModule mpm_event_module {m}/mod_mpm_event.so\n\
         LoadModule authz_core_module {m}/mod_authz_core.so\n\
         LoadModule rewrite_module {m}/mod_rewrite.so\n\
         LoadModule alias_module {m}/mod_alias.so\n\
         AllowEncodedSlashes NoDecode\n\
         DocumentRoot {d}/htdocs\n<Directory {d}/htdocs>\n    Require all granted\n</Directory>\n\
         Include {d}/redirects.apache.conf\n",
        d = d.display(),
        m = modules.display()
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

/// nginx, or why the test skips.
fn nginx_binary(test: &str) -> Option<PathBuf> {
    let found = find(&["nginx"]);
    if found.is_none() {
        eprintln!("SKIPPED {test}: no nginx binary (apt-get install nginx)");
    }
    found
}

/// apache2 and its modules directory, or why the test skips.
fn apache_binary(test: &str) -> Option<(PathBuf, PathBuf)> {
    let Some(apache) = find(&["apache2", "httpd"]) else {
        eprintln!("SKIPPED {test}: no apache2 binary (apt-get install apache2)");
        return None;
    };
    let modules = ["/usr/lib/apache2/modules", "/usr/lib64/httpd/modules"]
        .map(PathBuf::from)
        .into_iter()
        .find(|m| m.join("mod_rewrite.so").is_file());
    if modules.is_none() {
        eprintln!("SKIPPED {test}: no mod_rewrite.so");
    }
    Some((apache, modules?))
}

#[test]
fn nginx_serves_the_redirect_map() {
    let Some(nginx) = nginx_binary("nginx_serves_the_redirect_map") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let port = free_port();
    let (files, cases) = site(port, Server::Nginx);
    let map = files.nginx();
    let cmd = nginx_setup(&nginx, d, port, &map);
    let mut test = cmd();
    test.arg("-t");
    check(test, &format!("nginx -t\n{map}"));
    let server = start(cmd(), port, &d.join("error.log"));
    let wrong = run_cases(port, &cases);
    drop(server);
    let left = processes_naming(d);
    assert!(left.is_empty(), "left running: {left:#?}");
    assert!(wrong.is_empty(), "{}\n\n{map}", wrong.join("\n"));
}

#[test]
fn apache_serves_the_redirect_map() {
    let Some((apache, modules)) = apache_binary("apache_serves_the_redirect_map") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let port = free_port();
    let (files, cases) = site(port, Server::Apache);
    let map = files.apache();
    let cmd = apache_setup(&apache, &modules, d, port, &map);
    let mut test = cmd();
    test.arg("-t");
    check(test, &format!("apache2 -t\n{map}"));
    let mut run = cmd();
    run.arg("-DFOREGROUND");
    let server = start(run, port, &d.join("error.log"));
    let wrong = run_cases(port, &cases);
    drop(server);
    // Apache's workers are stopped with it: the test leaves no process behind.
    let left = processes_naming(d);
    assert!(left.is_empty(), "left running: {left:#?}");
    assert!(wrong.is_empty(), "{}\n\n{map}", wrong.join("\n"));
}

/// No redirect at all, and 5,000 of them: long sources, sources that differ only in
/// case, query strings, two statuses.
fn empty_and_large() -> [FixFiles; 2] {
    let mut redirects = Vec::new();
    for i in 0..5000 {
        let source = match i % 4 {
            0 => format!("https://example.com/p{i}"),
            1 => format!("https://example.com/P{}", i - 1),
            2 => format!("https://example.com/{}/{i}?q={i}", "long".repeat(i % 40)),
            _ => format!("https://www{}.example.com/$x{i}", i % 7),
        };
        redirects.push(RedirectLine {
            source,
            target: format!("https://example.com/t{i}"),
            status: if i % 10 == 0 { 302 } else { 301 },
            today: None,
        });
    }
    redirects.sort_by(|a, b| a.source.cmp(&b.source));
    [
        FixFiles::default(),
        FixFiles {
            redirects,
            ..FixFiles::default()
        },
    ]
}

#[test]
fn nginx_takes_an_empty_and_a_large_map() {
    let Some(nginx) = nginx_binary("nginx_takes_an_empty_and_a_large_map") else {
        return;
    };
    for files in empty_and_large() {
        let dir = tempfile::tempdir().expect("temp dir");
        let map = files.nginx();
        let mut test = nginx_setup(&nginx, dir.path(), free_port(), &map)();
        test.arg("-t");
        check(
            test,
            &format!("nginx -t ({} redirects)", files.redirects.len()),
        );
    }
}

#[test]
fn apache_takes_an_empty_and_a_large_map() {
    let Some((apache, modules)) = apache_binary("apache_takes_an_empty_and_a_large_map") else {
        return;
    };
    for files in empty_and_large() {
        let dir = tempfile::tempdir().expect("temp dir");
        let map = files.apache();
        let mut test = apache_setup(&apache, &modules, dir.path(), free_port(), &map)();
        test.arg("-t");
        check(
            test,
            &format!("apache2 -t ({} redirects)", files.redirects.len()),
        );
    }
}

/// Whether the test runs as root (Apache then needs a `User`).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
