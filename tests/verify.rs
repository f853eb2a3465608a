//! `dustpan verify` end to end: the fixture audited, its plan exported, the generated
//! nginx redirect file loaded into a real nginx on 127.0.0.1 (a free port) in front of
//! the fixture, and the plan verified through it: every planned redirect is done. The
//! fixture alone (the plan not deployed) leaves the new redirects missing, a map edited
//! to send a source elsewhere is wrong, and the canonicals and sitemap lines nobody
//! deployed are missing. The nginx process is started and stopped as the fix-file
//! tests do (`crates/audit/tests/fix_servers.rs`: own process group, stopped on drop);
//! the test skips, saying so, when nginx or openssl is absent.

use crate::util::{Site, audit_id, path, run};
use fixture::FixtureConfig;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from));
    dirs.iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server's process group, stopped when the test ends.
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

/// A CA and a certificate for the fixture's host names signed by it.
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

/// nginx on `port` (TLS, and plain HTTP through error 497 on the same port, as the
/// fixture answers both schemes on one) with the generated `map`, in front of the
/// fixture on `upstream`.
fn nginx(nginx: &Path, d: &Path, port: u16, upstream: u16, map: &str) -> Running {
    std::fs::write(d.join("redirects.nginx.conf"), map).unwrap();
    let ifs: String = map
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
    let conf_path = d.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let command = || {
        let mut c = Command::new(nginx);
        c.arg("-p")
            .arg(d)
            .arg("-e")
            .arg(d.join("error.log"))
            .arg("-c")
            .arg(&conf_path);
        c
    };
    let t = command().arg("-t").output().unwrap();
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    use std::os::unix::process::CommandExt;
    let child = command()
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

fn checks(out: &crate::util::Output) -> Vec<serde_json::Value> {
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
    let (Some(nginx_bin), Some(openssl)) = (find("nginx"), find("openssl")) else {
        eprintln!("skipped: nginx or openssl is not installed");
        return;
    };
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
    let map = std::fs::read_to_string(plan.join("redirects.nginx.conf")).unwrap();
    let csv = std::fs::read_to_string(plan.join("redirect_map.csv")).unwrap();
    assert!(
        csv.contains(",new,") || csv.contains(",changed,"),
        "nothing to deploy:\n{csv}"
    );

    let verify = |resolve_port: u16, ca: Option<&Path>| {
        let mut args = vec![
            "verify".to_owned(),
            id.clone(),
            "--db".into(),
            db.clone(),
            "--plan".into(),
            path(&plan),
            "--json".into(),
        ];
        for host in fixture::HOSTS {
            args.push("--resolve".into());
            args.push(format!("{host}:{resolve_port}:127.0.0.1"));
        }
        if let Some(ca) = ca {
            args.push("--ca-cert".into());
            args.push(path(ca));
        }
        run(&args)
    };

    // Before deployment: the fixture alone. The redirects the site does not answer yet
    // are missing or wrong; those it answers are done.
    site.server.clear_requests();
    let before = verify(site.server.port(), None);
    assert_eq!(before.code, 1, "{}{}", before.stdout, before.stderr);
    let before = checks(&before);
    // Nothing outside the audit was requested: every request is for a URL the audit
    // knew (its pages, which the sitemaps list too) or one the checks name (a hop of a
    // planned redirect), or robots.txt. The fixture logs URLs without their port.
    let port = format!(":{}", site.server.port());
    let mut known: std::collections::HashSet<String> =
        crate::util::read_csv(&plan.join("pages.csv"))
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
    let strays: Vec<String> = site
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

    // Deployed: nginx with the generated file in front of the fixture.
    let d = dir.path().join("nginx");
    std::fs::create_dir_all(&d).unwrap();
    certificates(&openssl, &d);
    let port = free_port();
    let server = nginx(&nginx_bin, &d, port, site.server.port(), &map);
    let after = verify(port, Some(&d.join("ca.pem")));
    let after_checks = checks(&after);
    let redirects = verdicts(&after_checks, "redirect");
    // Every redirect is done but two kinds. The fixture's own address (its IP host on
    // its port) is not behind nginx, and with the host names sent to nginx it is no
    // longer an address of the audit's, so the address policy refuses it: not checked. And
    // the loop: the plan redirects /loop/b to /loop/a and says to make /loop/a answer
    // 200 with its content, which no server file can do, so /loop/b still loops.
    let fixture_itself = format!("127.0.0.1:{}/", site.server.port());
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
    assert!(not_done.is_empty(), "{not_done:#?}\n{}", after.stderr);
    assert!(redirects.len() > 10, "{redirects:?}");
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
    drop(server);

    // The verification is a stored audit: judged again later, with nginx gone, it
    // gives the same verdicts without a request.
    let stored: serde_json::Value = serde_json::from_str(&after.stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::verify::Verification = serde_json::from_str(&after.stdout).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), stored);
    let verification = stored["verification"].as_i64().unwrap().to_string();
    assert_ne!(verification, id);
    let again = run(&[
        "verify".into(),
        id.clone(),
        "--db".into(),
        db.clone(),
        "--plan".into(),
        path(&plan),
        "--audit-of".into(),
        verification,
        "--json".into(),
    ]);
    assert_eq!(checks(&again), after_checks);

    // A map edited to send one new source elsewhere: that redirect is wrong.
    let line = csv
        .lines()
        .find(|l| l.contains(",new,") && l.starts_with("https://example.test/"))
        .expect("a new redirect on the main host");
    let target = line.split(',').nth(1).unwrap();
    let tampered = map.replacen(
        &format!(" {target}\""),
        " https://example.test/contact\"",
        1,
    );
    assert_ne!(tampered, map, "the target is in the nginx file");
    let d2 = dir.path().join("nginx2");
    std::fs::create_dir_all(&d2).unwrap();
    certificates(&openssl, &d2);
    let port = free_port();
    let _server = nginx(&nginx_bin, &d2, port, site.server.port(), &tampered);
    let out = verify(port, Some(&d2.join("ca.pem")));
    let source = line.split(',').next().unwrap();
    let redirects = checks(&out);
    let redirects = verdicts(&redirects, "redirect");
    assert!(
        redirects.contains(&(source, "wrong")),
        "{source}: {redirects:?}"
    );
}
