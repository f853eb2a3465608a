//! `dustpan verify` end to end: the fixture audited, its plan exported, and the generated
//! nginx and Apache redirect files each loaded into the real server on 127.0.0.1 (free
//! ports) in front of the fixture, the plan verified through it: every planned redirect
//! is done. The same server without the file leaves the new redirects missing, a file
//! edited to send a source elsewhere makes it wrong, and the canonicals nobody set are
//! missing. The fixture alone (nothing in front) leaves the new
//! redirects missing too, and a verification requests nothing the audit did not know.
//!
//! The servers are started as the fix-file tests do (`crates/audit/tests/fix_servers.rs`:
//! own process group, configuration checked with `-t`, stopped on drop); a test skips,
//! with a SKIPPED line, when its server or openssl is absent.
//!
//! The fixture answers HTTP and HTTPS on one port, and a `--resolve` override sends all of
//! a host's requests to one port, so the server in front answers both schemes there too:
//! nginx on one TLS port, plain HTTP through its error 497; Apache, which cannot, on an
//! HTTP and an HTTPS port behind a relay that sends each connection by its first byte (a
//! TLS handshake or not).

use crate::util::{Output, Site, audit_id, path, run};
use fixture::FixtureConfig;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

/// A free port on 127.0.0.1 (the kernel's pick).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server's process group, stopped when the test ends (Apache's workers with it).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        for signal in ["-TERM", "-KILL"] {
            let _ = Command::new("kill")
                .args([signal, "--", &group])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && !matches!(self.0.try_wait(), Ok(Some(_))) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.0.wait();
    }
}

/// Checks the configuration with `check` (the server's `-t`: no error, no warning), then starts `serve` in a
/// process group of its own and waits until every port in `ports` accepts connections.
fn start(mut check: Command, mut serve: Command, ports: &[u16], log: &Path) -> Running {
    let t = check.output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&t.stdout),
        String::from_utf8_lossy(&t.stderr)
    );
    assert!(
        t.status.success() && !said.contains("[warn]") && !said.contains("[emerg]"),
        "{check:?}: {said}"
    );
    use std::os::unix::process::CommandExt;
    let child = serve
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    for &port in ports {
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = running.0.try_wait() {
                panic!(
                    "{serve:?} exited ({status}): {}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "{serve:?} never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    running
}

/// A CA and a certificate for the fixture's host names signed by it, in `d`: `ca.pem`,
/// `leaf.pem`, `leaf.key`.
fn certificates(openssl: &Path, d: &Path) {
    let sans: Vec<String> = fixture::HOSTS.iter().map(|h| format!("DNS:{h}")).collect();
    let ext = d.join("leaf.ext");
    std::fs::write(
        &ext,
        format!(
            "basicConstraints=critical,CA:FALSE\nsubjectAltName={}\n",
            sans.join(",")
        ),
    )
    .unwrap();
    let steps: [Vec<String>; 3] = [
        "req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=verify-test-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign"
            .split(' ').map(str::to_owned).collect(),
        "req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=example.test"
            .split(' ').map(str::to_owned).collect(),
        "x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext"
            .split(' ').map(str::to_owned).collect(),
    ];
    for args in steps {
        let out = Command::new(openssl)
            .args(&args)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// One port for both schemes in front of a server with a port for each: each connection
/// goes, by its first byte (22 opens a TLS handshake), to `https` or to `http`. Stops
/// accepting when dropped.
struct SchemeRelay {
    port: u16,
    stop: Arc<AtomicBool>,
    accepting: Option<std::thread::JoinHandle<()>>,
}

impl SchemeRelay {
    fn start(http: u16, https: u16) -> SchemeRelay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let accepting = std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                std::thread::spawn(move || {
                    let mut first = [0u8; 1];
                    if !matches!(client.peek(&mut first), Ok(1)) {
                        return;
                    }
                    let to = if first[0] == 22 { https } else { http };
                    if let Ok(server) = TcpStream::connect(("127.0.0.1", to)) {
                        relay(client, server);
                    }
                });
            }
        });
        SchemeRelay {
            port,
            stop,
            accepting: Some(accepting),
        }
    }
}

impl Drop for SchemeRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.accepting.take() {
            let _ = t.join();
        }
    }
}

/// Copies bytes both ways until each side has finished sending.
fn relay(a: TcpStream, b: TcpStream) {
    let copy = |mut from: TcpStream, mut to: TcpStream| {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    };
    let (a2, b2) = (a.try_clone().unwrap(), b.try_clone().unwrap());
    let back = std::thread::spawn(move || copy(b2, a2));
    copy(a, b);
    let _ = back.join();
}

/// A real server to put in front of the fixture with a generated redirect file.
enum Front {
    Nginx {
        nginx: PathBuf,
        openssl: PathBuf,
    },
    Apache {
        apache: PathBuf,
        modules: PathBuf,
        openssl: PathBuf,
    },
}

/// A server running in front of the fixture: the port that answers both schemes and the
/// CA that signed its certificate.
struct Deployed {
    port: u16,
    ca: PathBuf,
    _relay: Option<SchemeRelay>,
    _server: Running,
}

impl Front {
    /// nginx and openssl, or a SKIPPED line.
    fn nginx(test: &str) -> Option<Front> {
        let (Some(nginx), Some(openssl)) = (find(&["nginx"]), find(&["openssl"])) else {
            eprintln!("SKIPPED {test}: nginx or openssl is not installed (apt-get install nginx)");
            return None;
        };
        Some(Front::Nginx { nginx, openssl })
    }

    /// apache2 with the modules it needs and openssl, or a SKIPPED line.
    fn apache(test: &str) -> Option<Front> {
        let (Some(apache), Some(openssl)) = (find(&["apache2", "httpd"]), find(&["openssl"]))
        else {
            eprintln!(
                "SKIPPED {test}: apache2 or openssl is not installed (apt-get install apache2)"
            );
            return None;
        };
        let modules = ["/usr/lib/apache2/modules", "/usr/lib64/httpd/modules"]
            .map(PathBuf::from)
            .into_iter()
            .find(|m| APACHE_MODULES.iter().all(|(_, f)| m.join(f).is_file()));
        let Some(modules) = modules else {
            eprintln!("SKIPPED {test}: one of {APACHE_MODULES:?} is missing");
            return None;
        };
        Some(Front::Apache {
            apache,
            modules,
            openssl,
        })
    }

    /// The name of the redirect file this server includes, as `dustpan export` writes it.
    fn file(&self) -> &'static str {
        match self {
            Front::Nginx { .. } => "redirects.nginx.conf",
            Front::Apache { .. } => "redirects.apache.conf",
        }
    }

    /// The server in `d` with `redirects` (the generated file, or an empty one) in front
    /// of the fixture on `upstream`.
    fn deploy(&self, d: &Path, upstream: u16, redirects: &str) -> Deployed {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join(self.file()), redirects).unwrap();
        match self {
            Front::Nginx { nginx, openssl } => {
                certificates(openssl, d);
                let port = free_port();
                let conf = nginx_conf(d, port, upstream, redirects);
                let command = || {
                    let mut c = Command::new(nginx);
                    c.arg("-p")
                        .arg(d)
                        .arg("-e")
                        .arg(d.join("error.log"))
                        .arg("-c")
                        .arg(&conf);
                    c
                };
                let mut check = command();
                check.arg("-t");
                let server = start(check, command(), &[port], &d.join("error.log"));
                Deployed {
                    port,
                    ca: d.join("ca.pem"),
                    _relay: None,
                    _server: server,
                }
            }
            Front::Apache {
                apache,
                modules,
                openssl,
            } => {
                certificates(openssl, d);
                let (http, https) = (free_port(), free_port());
                let conf = apache_conf(d, modules, http, https, upstream);
                let command = || {
                    let mut c = Command::new(apache);
                    c.arg("-d").arg(d).arg("-f").arg(&conf);
                    c
                };
                let mut check = command();
                check.arg("-t");
                let mut serve = command();
                serve.arg("-DFOREGROUND");
                let server = start(check, serve, &[http, https], &d.join("error.log"));
                let relay = SchemeRelay::start(http, https);
                Deployed {
                    port: relay.port,
                    ca: d.join("ca.pem"),
                    _relay: Some(relay),
                    _server: server,
                }
            }
        }
    }
}

/// nginx on `port` (TLS, and plain HTTP through error 497 on the same port) with the
/// redirect file in `d` and the `if` lines its header asks for, in front of the fixture on
/// `upstream`: the configuration file.
fn nginx_conf(d: &Path, port: u16, upstream: u16, redirects: &str) -> PathBuf {
    let ifs: String = redirects
        .lines()
        .filter_map(|l| l.strip_prefix("#     if ("))
        .map(|l| format!("        if ({l}\n"))
        .collect();
    let proxy = |scheme: &str| {
        format!(
            "proxy_pass {scheme}://127.0.0.1:{upstream}; proxy_set_header Host $http_host; \
             proxy_ssl_server_name on; proxy_ssl_name $host; proxy_ssl_verify off; \
             proxy_redirect off;"
        )
    };
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\nevents {{ worker_connections 64; }}\nhttp {{\n    \
         access_log off;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n    \
         fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    \
         scgi_temp_path {d}/scgi;\n    include {d}/redirects.nginx.conf;\n    server {{\n        \
         listen 127.0.0.1:{port} ssl;\n        server_name _;\n        \
         ssl_certificate {d}/leaf.pem;\n        ssl_certificate_key {d}/leaf.key;\n        \
         error_page 497 = @plain;\n{ifs}        location / {{ {https} }}\n        \
         location @plain {{\n{ifs}            {http}\n        }}\n    }}\n}}\n",
        https = proxy("https"),
        http = proxy("http"),
        d = d.display()
    );
    let path = d.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    path
}

/// The Apache modules the front needs: the redirect file's mod_rewrite, the proxy to the
/// fixture over HTTP and HTTPS, TLS and its session cache.
const APACHE_MODULES: [(&str, &str); 7] = [
    ("mpm_event_module", "mod_mpm_event.so"),
    ("authz_core_module", "mod_authz_core.so"),
    ("rewrite_module", "mod_rewrite.so"),
    ("proxy_module", "mod_proxy.so"),
    ("proxy_http_module", "mod_proxy_http.so"),
    ("ssl_module", "mod_ssl.so"),
    ("socache_shmcb_module", "mod_socache_shmcb.so"),
];

/// Apache on `http` and on `https` (TLS), each a virtual host that includes the redirect
/// file in `d` as its header says and passes every other request on, unchanged, to the
/// fixture on `upstream` over the same scheme: the configuration file.
fn apache_conf(d: &Path, modules: &Path, http: u16, https: u16, upstream: u16) -> PathBuf {
    // Apache started as root must switch to an unprivileged user.
    let user = if is_root() {
        "User nobody\nGroup nogroup\n"
    } else {
        ""
    };
    let load: String = APACHE_MODULES
        .iter()
        .map(|(name, file)| format!("LoadModule {name} {}/{file}\n", modules.display()))
        .collect();
    let proxy = |scheme: &str| {
        format!(
            "    Include {d}/redirects.apache.conf\n    ProxyPreserveHost On\n    \
             ProxyPass / {scheme}://127.0.0.1:{upstream}/ nocanon\n",
            d = d.display()
        )
    };
    let conf = format!(
        "ServerRoot {d}\nServerName example.test\nListen 127.0.0.1:{http}\nListen 127.0.0.1:{https}\n\
         PidFile {d}/httpd.pid\nDefaultRuntimeDir {d}\nMutex file:{d} default\n\
         ErrorLog {d}/error.log\nLogLevel warn\n{user}{load}\
         AllowEncodedSlashes NoDecode\nSSLSessionCache shmcb:{d}/ssl_cache(512000)\n\
         <VirtualHost 127.0.0.1:{http}>\n{plain}</VirtualHost>\n\
         <VirtualHost 127.0.0.1:{https}>\n    SSLEngine on\n    \
         SSLCertificateFile {d}/leaf.pem\n    SSLCertificateKeyFile {d}/leaf.key\n    \
         SSLProxyEngine on\n    SSLProxyVerify none\n    SSLProxyCheckPeerName off\n    \
         SSLProxyCheckPeerExpire off\n{tls}</VirtualHost>\n",
        plain = proxy("http"),
        tls = proxy("https"),
        d = d.display()
    );
    let path = d.join("httpd.conf");
    std::fs::write(&path, conf).unwrap();
    path
}

/// Whether the test runs as root (Apache then needs a `User`).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The fixture audited and its plan exported: what each verification starts from.
struct Planned {
    site: Site,
    dir: tempfile::TempDir,
    id: String,
    db: String,
    plan: PathBuf,
    csv: String,
}

impl Planned {
    fn new() -> Planned {
        let site = Site::start(FixtureConfig {
            hostile: false,
            slow_delay: Duration::from_millis(200),
            ..FixtureConfig::default()
        });
        let out = run(&site.audit_args("https://example.test/", &["-q", "--include-subdomains"]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let id = audit_id(&out.stdout).0.to_string();
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("plan");
        let db = path(&site.db);
        let export = run(&[
            "export".into(),
            id.clone(),
            "--db".into(),
            db.clone(),
            "--out".into(),
            path(&plan),
        ]);
        assert_eq!(export.code, 0, "{}", export.stderr);
        let csv = std::fs::read_to_string(plan.join("redirect_map.csv")).unwrap();
        assert!(
            csv.contains(",new,") || csv.contains(",changed,"),
            "nothing to deploy:\n{csv}"
        );
        Planned {
            site,
            dir,
            id,
            db,
            plan,
            csv,
        }
    }

    /// A file of the exported plan.
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.plan.join(name)).unwrap()
    }

    /// `dustpan verify --json` with the fixture's hosts sent to `port` on 127.0.0.1.
    fn verify(&self, port: u16, ca: Option<&Path>) -> Output {
        let mut args = vec![
            "verify".to_owned(),
            self.id.clone(),
            "--db".into(),
            self.db.clone(),
            "--plan".into(),
            path(&self.plan),
            "--json".into(),
        ];
        for host in fixture::HOSTS {
            args.push("--resolve".into());
            args.push(format!("{host}:{port}:127.0.0.1"));
        }
        if let Some(ca) = ca {
            args.push("--ca-cert".into());
            args.push(path(ca));
        }
        run(&args)
    }

    /// A new redirect on the main host whose target no other line has: its source and
    /// target.
    fn new_redirect(&self) -> (String, String) {
        let targets: Vec<&str> = self
            .csv
            .lines()
            .filter_map(|l| l.split(',').nth(1))
            .collect();
        let line = self
            .csv
            .lines()
            .filter(|l| l.contains(",new,") && l.starts_with("https://example.test/"))
            .find(|l| {
                let target = l.split(',').nth(1).unwrap();
                targets.iter().filter(|t| **t == target).count() == 1
            })
            .expect("a new redirect on the main host with a target of its own");
        let mut fields = line.split(',');
        let source = fields.next().unwrap().to_owned();
        (source, fields.next().unwrap().to_owned())
    }

    /// Through `front` in three states: without the redirect file, the new redirects are
    /// missing; with it, every planned redirect is done (the canonicals nobody set are
    /// still missing); with the file edited to send one source to another page, that
    /// redirect is wrong. Answers the deployed verification.
    fn through(&self, front: &Front) -> Output {
        let upstream = self.site.server.port();
        let (source, target) = self.new_redirect();
        let verdict = |checks: &[serde_json::Value]| {
            verdicts(checks, "redirect")
                .into_iter()
                .find(|(url, _)| *url == source)
                .map(|(_, v)| v.to_owned())
        };

        // The server in front, the plan not deployed.
        let none = front.deploy(&self.dir.path().join("none"), upstream, "");
        let out = self.verify(none.port, Some(&none.ca));
        drop(none);
        assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
        let undeployed = checks(&out);
        assert_eq!(
            verdict(&undeployed).as_deref(),
            Some("missing"),
            "{source} without the redirect file"
        );

        // Deployed: the generated file.
        let generated = self.file(front.file());
        let server = front.deploy(&self.dir.path().join("deployed"), upstream, &generated);
        let after = self.verify(server.port, Some(&server.ca));
        drop(server);
        let after_checks = checks(&after);
        // Every redirect is done but two kinds. The fixture's own address (its IP host on
        // its port) is not behind the server, and with the host names sent to the server
        // it is no longer an address of the audit's, so the address policy refuses it:
        // not checked. And the loop: the plan redirects /loop/b to /loop/a and says to
        // make /loop/a answer 200 with its content, which no server file can do, so
        // /loop/b still loops.
        let fixture_itself = format!("127.0.0.1:{upstream}/");
        let not_done: Vec<_> = after_checks
            .iter()
            .filter(|c| c["kind"] == "redirect" && c["verdict"] != "done")
            .filter(|c| {
                let url = c["url"].as_str().unwrap();
                let expected = (url.contains(&fixture_itself) && c["verdict"] == "not_checked")
                    || (url == "https://example.test/loop/b" && c["verdict"] == "wrong");
                !expected
            })
            .collect();
        assert!(
            not_done.is_empty(),
            "{not_done:#?}\n{}\n{generated}",
            after.stderr
        );
        let redirects = verdicts(&after_checks, "redirect");
        assert!(redirects.len() > 10, "{redirects:?}");
        assert_eq!(verdict(&after_checks).as_deref(), Some("done"));
        // Nobody set the canonicals or changed the sitemaps: those are still missing.
        let canonicals = verdicts(&after_checks, "canonical");
        assert!(
            canonicals.iter().any(|(_, v)| *v == "missing"),
            "{canonicals:?}"
        );
        assert!(
            canonicals.iter().all(|(_, v)| *v != "harmful"),
            "{canonicals:?}"
        );
        assert_eq!(after.code, 1, "not everything is deployed");

        // The file edited to send that source elsewhere: its redirect is wrong.
        let elsewhere = "https://example.test/contact";
        let tampered = match front {
            Front::Nginx { .. } => {
                generated.replacen(&format!(" {target}\""), &format!(" {elsewhere}\""), 1)
            }
            Front::Apache { .. } => {
                generated.replacen(&format!("^ \"{target}\""), &format!("^ \"{elsewhere}\""), 1)
            }
        };
        assert_ne!(tampered, generated, "{target} is in the file");
        let edited = front.deploy(&self.dir.path().join("edited"), upstream, &tampered);
        let out = self.verify(edited.port, Some(&edited.ca));
        drop(edited);
        assert_eq!(
            verdict(&checks(&out)).as_deref(),
            Some("wrong"),
            "{source} sent to {elsewhere}"
        );
        after
    }
}

fn checks(out: &Output) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr));
    v["checks"].as_array().unwrap().clone()
}

fn verdicts<'a>(checks: &'a [serde_json::Value], kind: &str) -> Vec<(&'a str, &'a str)> {
    checks
        .iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| (c["url"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect()
}

#[test]
fn a_plan_deployed_in_nginx_in_front_of_the_fixture_verifies_done() {
    let test = "a_plan_deployed_in_nginx_in_front_of_the_fixture_verifies_done";
    let Some(front) = Front::nginx(test) else {
        return;
    };
    let p = Planned::new();

    // Before deployment: the fixture alone. The redirects the site does not answer yet
    // are missing or wrong; those it answers are done.
    p.site.server.clear_requests();
    let before = p.verify(p.site.server.port(), None);
    assert_eq!(before.code, 1, "{}{}", before.stdout, before.stderr);
    let before = checks(&before);
    // Nothing outside the audit was requested: every request is for a URL the audit
    // knew (its pages, which the sitemaps list too) or one the checks name (a hop of a
    // planned redirect), or robots.txt. The fixture logs URLs without their port.
    let port = format!(":{}", p.site.server.port());
    let mut known: std::collections::HashSet<String> =
        crate::util::read_csv(&p.plan.join("pages.csv"))
            .iter()
            .map(|row| row["Address"].replace(&port, ""))
            .collect();
    for c in &before {
        for field in ["url", "planned", "found"] {
            for word in c[field].as_str().unwrap().split([' ', ',']) {
                known.insert(word.replace(&port, ""));
            }
        }
    }
    let strays: Vec<String> = p
        .site
        .server
        .requests()
        .iter()
        .map(|r| r.url())
        .filter(|u| !u.ends_with("/robots.txt") && !known.contains(u))
        .collect();
    assert!(strays.is_empty(), "requested outside the audit: {strays:?}");
    let redirects = verdicts(&before, "redirect");
    assert!(!redirects.is_empty());
    assert!(
        redirects
            .iter()
            .any(|(_, v)| *v == "missing" || *v == "wrong"),
        "{redirects:?}"
    );

    let after = p.through(&front);

    // The verification is a stored audit: judged again later, with nginx gone, it
    // gives the same verdicts without a request.
    let stored: serde_json::Value = serde_json::from_str(&after.stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::verify::Verification = serde_json::from_str(&after.stdout).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), stored);
    let verification = stored["verification"].as_i64().unwrap().to_string();
    assert_ne!(verification, p.id);
    let again = run(&[
        "verify".into(),
        p.id.clone(),
        "--db".into(),
        p.db.clone(),
        "--plan".into(),
        path(&p.plan),
        "--audit-of".into(),
        verification,
        "--json".into(),
    ]);
    assert_eq!(checks(&again), checks(&after));
}

#[test]
fn a_plan_deployed_in_apache_in_front_of_the_fixture_verifies_done() {
    let test = "a_plan_deployed_in_apache_in_front_of_the_fixture_verifies_done";
    let Some(front) = Front::apache(test) else {
        return;
    };
    Planned::new().through(&front);
}
