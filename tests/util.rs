//! The harness: run the built `dustpan` binary with arguments and standard input, and
//! serve the fixture site on loopback for the end-to-end audit tests.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fixture::{FixtureConfig, FixtureServer};
use store::{AuditId, Store};

/// What a run of `dustpan` printed and how it exited.
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `dustpan ARGS` with `stdin` as standard input.
pub fn dustpan(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dustpan"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dustpan starts");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    // A run that fails before reading its input closes the pipe early; that is fine.
    let _ = writer.join();
    Output {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `dustpan ARGS` with these environment variables set (and no standard input).
pub fn dustpan_env(args: &[String], env: &[(&str, &str)]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dustpan"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("dustpan starts");
    Output {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Starts `dustpan ARGS` in the background (no standard input; output captured).
pub fn spawn_dustpan(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_dustpan"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dustpan starts")
}

/// A background run of `dustpan` that was watched until it exited.
pub struct Watched {
    pub output: Output,
    /// The highest VmHWM (peak resident set size) read from /proc while it ran, in KiB.
    pub peak_rss_kib: u64,
    /// Wall time from spawn to exit.
    pub elapsed: Duration,
}

/// VmHWM of a live process, in KiB (None once it is gone).
pub fn vm_hwm_kib(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs `dustpan ARGS`, polling its peak RSS every few milliseconds; kills it (and fails)
/// if it runs longer than `limit`.
pub fn run_watched(args: &[String], limit: Duration) -> Watched {
    let started = Instant::now();
    let mut child = spawn_dustpan(args);
    let pid = child.id();
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!(
                "dustpan {args:?} still running after {limit:?}; stderr: {}",
                stderr.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Watched {
        output: Output {
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
            code: status.code().unwrap_or(-1),
        },
        peak_rss_kib: peak,
        elapsed: started.elapsed(),
    }
}

/// Reads a pipe to its end on a thread (so a chatty child never blocks on a full pipe).
pub fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The audit id in a summary's first line, `Audit N finished in ...`.
pub fn audit_id(stdout: &str) -> AuditId {
    let id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Audit "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `Audit N ...` line in:\n{stdout}"));
    AuditId(id)
}

/// The fixture site served on 127.0.0.1 (port 0) from a tokio runtime owned by the test,
/// with a temporary directory for its CA certificate and the audit database.
pub struct Site {
    // Declared first so that it stops before the runtime goes.
    pub server: FixtureServer,
    pub rt: tokio::runtime::Runtime,
    /// Holds the CA certificate and the database; removed on drop.
    pub _dir: tempfile::TempDir,
    pub ca: PathBuf,
    pub db: PathBuf,
}

impl Site {
    pub fn start(config: FixtureConfig) -> Site {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = rt
            .block_on(FixtureServer::start(config))
            .expect("the fixture starts on 127.0.0.1");
        assert!(server.addr().ip().is_loopback());
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("fixture-ca.pem");
        std::fs::write(&ca, server.ca_pem()).unwrap();
        let db = dir.path().join("audits.sqlite");
        Site {
            server,
            rt,
            _dir: dir,
            ca,
            db,
        }
    }

    /// The fixture's problem site without its hostile pages, its slow page answering
    /// after 300 ms (under the crawl's timeouts).
    pub fn quiet() -> Site {
        Site::start(FixtureConfig {
            hostile: false,
            slow_delay: Duration::from_millis(300),
            ..FixtureConfig::default()
        })
    }

    /// `dustpan audit START <net args> EXTRA...` run to success; answers the audit's id.
    pub fn audit(&self, start: &str, extra: &[&str]) -> i64 {
        let out = run(&self.audit_args(start, extra));
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        audit_id(&out.stdout).0
    }

    /// `--db FILE`, a `--resolve` for each fixture host and `--ca-cert FILE`.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec!["--db".to_owned(), path(&self.db)];
        for host in fixture::HOSTS {
            args.push("--resolve".to_owned());
            args.push(format!("{host}:{}:127.0.0.1", self.server.port()));
        }
        args.push("--ca-cert".to_owned());
        args.push(path(&self.ca));
        args
    }

    /// `dustpan audit START <net args> EXTRA...`.
    pub fn audit_args(&self, start: &str, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["audit".to_owned(), start.to_owned()];
        args.extend(self.args());
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    }

    /// Opens the audit database.
    pub fn store(&self) -> Store {
        self.rt.block_on(Store::open(&self.db)).unwrap()
    }

    /// How many requests the fixture logged for exactly this URL (no port).
    pub fn requests_for(&self, url: &str) -> usize {
        self.server.url_request_count(url)
    }
}

/// Fails the test, saying `what` and the output, unless `out` exited 0.
pub fn check(out: &Output, what: &str) {
    assert_eq!(
        out.code, 0,
        "{what} failed:\n{}\n{}",
        out.stdout, out.stderr
    );
}

/// A path as an argument.
pub fn path(p: &Path) -> String {
    p.to_str().expect("temporary paths are UTF-8").to_owned()
}

/// Runs `dustpan` with owned arguments and no input.
pub fn run(args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    dustpan(&args, "")
}

/// Everything one audit stored, read back through the store's read API.
pub struct Snapshot {
    pub audit: store::Audit,
    pub summary: store::AuditSummary,
    pub urls: Vec<store::UrlRow>,
    by_url: HashMap<String, usize>,
    by_id: HashMap<store::UrlId, usize>,
    pub fetches: HashMap<store::UrlId, store::FetchRecord>,
    /// Links, canonicals and redirects: only loaded by [`Snapshot::load_full`].
    pub links: HashMap<store::UrlId, Vec<store::LinkRecord>>,
    pub canonicals: HashMap<store::UrlId, Vec<store::CanonicalRecord>>,
    pub redirects: HashMap<store::UrlId, store::RedirectRecord>,
    pub sitemaps: Vec<(store::SitemapRow, Vec<store::SitemapEntryRecord>)>,
    pub chains: Vec<store::ChainRecord>,
    pub errors: Vec<(Option<store::UrlId>, String, String, String)>,
    pub robots: Vec<store::RobotsRecord>,
}

impl Snapshot {
    /// URLs, fetches, sitemaps, chains, errors and robots.txt of `audit`.
    pub async fn load(store: &Store, audit: AuditId) -> Snapshot {
        let urls = store.urls(audit).await.unwrap();
        let mut fetches = HashMap::new();
        for u in &urls {
            if let Some(f) = store.fetch(audit, u.id).await.unwrap() {
                fetches.insert(u.id, f);
            }
        }
        let mut sitemaps = Vec::new();
        for s in store.sitemaps(audit).await.unwrap() {
            let entries = store.sitemap_entries(audit, s.id).await.unwrap();
            sitemaps.push((s, entries));
        }
        Snapshot {
            audit: store.audit(audit).await.unwrap(),
            summary: store.audit_summary(audit).await.unwrap(),
            by_url: urls
                .iter()
                .enumerate()
                .map(|(i, u)| (u.url.clone(), i))
                .collect(),
            by_id: urls.iter().enumerate().map(|(i, u)| (u.id, i)).collect(),
            urls,
            fetches,
            links: HashMap::new(),
            canonicals: HashMap::new(),
            redirects: HashMap::new(),
            sitemaps,
            chains: store.redirect_chains(audit).await.unwrap(),
            errors: store.errors(audit).await.unwrap(),
            robots: store.robots(audit).await.unwrap(),
        }
    }

    /// [`Snapshot::load`] plus every URL's links, canonicals and redirect hop.
    pub async fn load_full(store: &Store, audit: AuditId) -> Snapshot {
        let mut snap = Snapshot::load(store, audit).await;
        for u in &snap.urls {
            let links = store.links_from(audit, u.id).await.unwrap();
            if !links.is_empty() {
                snap.links.insert(u.id, links);
            }
            let canonicals = store.canonicals_of(audit, u.id).await.unwrap();
            if !canonicals.is_empty() {
                snap.canonicals.insert(u.id, canonicals);
            }
            if let Some(r) = store.redirect_from(audit, u.id).await.unwrap() {
                snap.redirects.insert(u.id, r);
            }
        }
        snap
    }

    /// The URL row stored for `url` (as first found), if any.
    pub fn get(&self, url: &str) -> Option<&store::UrlRow> {
        self.by_url.get(url).map(|&i| &self.urls[i])
    }

    /// The URL row stored for `url`; panics when there is none.
    pub fn url(&self, url: &str) -> &store::UrlRow {
        self.get(url)
            .unwrap_or_else(|| panic!("{url} is not stored"))
    }

    /// The URL (as first found) of a URL id; panics when there is none.
    pub fn url_of(&self, id: store::UrlId) -> &str {
        &self.urls[*self
            .by_id
            .get(&id)
            .unwrap_or_else(|| panic!("no URL row with id {id}"))]
        .url
    }

    /// The fetch stored for `url`; panics when it was not fetched.
    pub fn fetch(&self, url: &str) -> &store::FetchRecord {
        let id = self.url(url).id;
        self.fetches
            .get(&id)
            .unwrap_or_else(|| panic!("{url} has no fetch"))
    }

    /// The sitemap stored for `url`, with its entries; panics when it was not read.
    pub fn sitemap(&self, url: &str) -> &(store::SitemapRow, Vec<store::SitemapEntryRecord>) {
        self.sitemaps
            .iter()
            .find(|(s, _)| s.url == url)
            .unwrap_or_else(|| panic!("sitemap {url} was not read"))
    }
}

/// A CSV file's rows as header → cell maps.
pub fn read_csv(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .map(str::to_owned)
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}
