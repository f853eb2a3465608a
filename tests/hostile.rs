//! `dustpan audit` against the fixture's hostile endpoints (`/hostile/`): gzip bombs, entity
//! expansion, a 50 MiB page, a dropped connection, a response that never comes, a drip-fed
//! body, invalid UTF-8 and an endless redirect chain. Each ends in a recorded error or
//! issue, the audit finishes, and the process stays bounded in time and memory.
//!
//! Then the inputs that are data rather than the user's word (access logs, URL lists,
//! sitemaps and CSV files given as lists, `--follow`, `dustpan learn`), start hosts that
//! resolve to a non-public address (and resumes and re-runs after such a change) and a
//! configured proxy, each against an internal service stood in on another loopback
//! address (`fixture::InternalStandIn`, 127.0.0.2): it must receive no request and
//! nothing of its answer may be stored.

use std::time::Duration;

use fixture::FixtureConfig;
use store::{AuditStatus, ChainProblem, UrlState};

use crate::util::{Site, Snapshot, audit_id, dustpan, dustpan_env, path, run, run_watched};

const HOSTILE: &str = "https://example.test/hostile/";
/// `--timeout`, in seconds.
const TIMEOUT_S: u64 = 2;
/// The default `max_response_bytes` (10 MiB) and `max_sitemap_bytes` (50 MiB).
const MAX_PAGE: u64 = 10 * 1024 * 1024;
const MAX_SITEMAP: u64 = 50 * 1024 * 1024;
/// Peak resident memory allowed to the audit process.
const MAX_RSS_MIB: u64 = 300;

fn h(path: &str) -> String {
    format!("https://example.test/hostile/{path}")
}

#[test]
fn hostile_endpoints_end_in_recorded_errors_within_bounds() {
    let site = Site::start(FixtureConfig {
        hostile: true,
        slow_delay: Duration::from_millis(10),
        ..FixtureConfig::default()
    });
    let timeout = TIMEOUT_S.to_string();
    let index = h("sitemap_index.xml");
    // The hostile sitemaps through --sitemap, the hostile pages through the start URL;
    // --include keeps the crawl there (the main site's sitemaps, read through robots.txt,
    // still are, and their entries recorded as out of scope).
    let args = site.audit_args(
        HOSTILE,
        &[
            "-q",
            "--sitemap",
            &index,
            "--include",
            r"^https://example\.test/hostile/",
            "--timeout",
            &timeout,
        ],
    );
    let run = run_watched(&args, Duration::from_secs(90));
    let out = &run.output;
    eprintln!(
        "hostile: {:?}, peak RSS {} MiB",
        run.elapsed,
        run.peak_rss_kib / 1024
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib / 1024 < MAX_RSS_MIB,
        "peak RSS {} MiB",
        run.peak_rss_kib / 1024
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);

    let store = site.store();
    let snap = site
        .rt
        .block_on(Snapshot::load_full(&store, audit_id(&out.stdout)));
    assert_eq!(snap.audit.status, AuditStatus::Finished);

    let request_count = |url: &str| site.requests_for(url);

    // The hostile sitemap index and its four children, each read once.
    let (index_row, _) = snap.sitemap(&index);
    assert_eq!(
        (index_row.kind.as_str(), index_row.found_via.as_str()),
        ("sitemapindex", "user")
    );
    let issues = |url: &str| -> Vec<String> {
        let (row, _) = snap.sitemap(url);
        assert_eq!(row.status, Some(200), "{url}");
        assert_eq!(row.error, None, "{url}");
        assert_eq!(row.parent_id, Some(index_row.id), "{url}");
        let v: serde_json::Value = serde_json::from_str(&row.issues_json).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    let locs = |url: &str| -> Vec<String> {
        snap.sitemap(url)
            .1
            .iter()
            .map(|e| e.loc_raw.clone())
            .collect()
    };
    // The gzip bomb (application/gzip): inflation stops at the sitemap limit.
    let bomb = h("bomb-sitemap.xml.gz");
    assert!(snap.sitemap(&bomb).0.gzip);
    assert!(
        issues(&bomb).contains(&"oversized".to_owned()),
        "{:?}",
        issues(&bomb)
    );
    assert_eq!(locs(&bomb), ["https://example.test/"]);
    // The same bytes as Content-Encoding: gzip: the decoded body is capped.
    let encoded = h("bomb-encoded.xml");
    let kinds = issues(&encoded);
    assert!(kinds.contains(&"truncated".to_owned()), "{kinds:?}");
    assert!(
        snap.sitemap(&encoded)
            .0
            .issues_json
            .contains(&format!("body over {MAX_SITEMAP} bytes")),
        "{}",
        snap.sitemap(&encoded).0.issues_json
    );
    assert_eq!(locs(&encoded), ["https://example.test/"]);
    // Billion laughs and an external entity: declared entities are never expanded.
    for (url, reference) in [
        (h("entity-expansion.xml"), "&lol9;"),
        (h("xxe-sitemap.xml"), "&xxe;"),
    ] {
        let kinds = issues(&url);
        assert!(
            kinds.contains(&"entity_declaration".to_owned()),
            "{url}: {kinds:?}"
        );
        assert_eq!(
            locs(&url),
            [format!("https://example.test/{reference}")],
            "{url}"
        );
    }
    for u in &snap.urls {
        assert!(
            u.url.len() < 200 && !u.url.contains("lollol") && !u.url.contains("root:"),
            "{}",
            u.url
        );
    }
    for (_, entries) in &snap.sitemaps {
        for e in entries {
            assert!(
                !e.loc_raw.contains("root:") && e.loc_raw.len() < 200,
                "{e:?}"
            );
        }
    }
    for url in [
        &index,
        &bomb,
        &encoded,
        &h("entity-expansion.xml"),
        &h("xxe-sitemap.xml"),
    ] {
        // Read once as a sitemap, fetched once as a page linked from /hostile/.
        assert_eq!(request_count(url), 2, "{url}");
    }

    // The 50 MiB page, with and without Content-Length: read up to the page limit.
    for (url, length) in [
        (
            h("huge-page"),
            Some(FixtureConfig::default().hostile_page_bytes),
        ),
        (h("huge-page-chunked"), None),
    ] {
        let f = snap.fetch(&url);
        assert_eq!(f.status, Some(200), "{url}");
        assert!(f.truncated, "{url}");
        assert_eq!(f.body_bytes, MAX_PAGE, "{url}");
        assert_eq!(f.content_length, length, "{url}");
        assert_eq!(f.title.as_deref(), Some("Huge page | Example Outfitters"));
        assert_eq!(snap.url(&url).state, UrlState::Done);
    }

    // Dropped mid-body, never answered, drip-fed: failed with the cause, tried once.
    let timeout_ms = TIMEOUT_S * 1000;
    for (path, kind, status) in [
        ("drop-mid-body", "dropped", Some(200)),
        ("hang", "timeout", None),
        ("slow-body", "timeout", Some(200)),
    ] {
        let url = h(path);
        let row = snap.url(&url);
        assert_eq!(row.state, UrlState::Failed, "{url}");
        assert_eq!(
            row.reason.as_ref().map(|r| r.kind.as_str()),
            Some(kind),
            "{url}"
        );
        let f = snap.fetch(&url);
        assert_eq!(f.error_kind.as_deref(), Some(kind), "{url}: {f:?}");
        assert!(f.error_message.is_some(), "{url}");
        assert_eq!(f.status, status, "{url}");
        assert_eq!(f.attempts, 1, "{url}");
        assert_eq!(request_count(&url), 1, "{url}: no retries");
        if kind == "timeout" {
            assert!(
                (timeout_ms - 50..timeout_ms + 3_000).contains(&f.total_ms),
                "{url}: gave up after {} ms",
                f.total_ms
            );
        }
    }
    let dropped = snap.fetch(&h("drop-mid-body"));
    assert!(
        dropped.body_bytes > 0 && dropped.body_bytes < 1_000_000,
        "{dropped:?}"
    );
    let st = &snap.summary.states;
    assert_eq!(st.failed, 3, "{st:?}");
    assert_eq!(snap.audit.fetch_errors, 3);

    // Invalid UTF-8: decoded lossily.
    let broken = snap.fetch(&h("invalid-utf8"));
    assert_eq!(
        broken.title.as_deref(),
        Some("Broken \u{FFFD}\u{FFFD} bytes | Example Outfitters")
    );

    // The endless redirect chain stops at --max-redirects (10): eleven 302 hops stored,
    // the twelfth URL recorded and never requested, the chain flagged too long.
    let max_redirects = 10;
    for n in 0..=max_redirects {
        let url = h(&format!("redirect/{n}"));
        assert_eq!(snap.fetch(&url).status, Some(302), "{url}");
        let hop = &snap.redirects[&snap.url(&url).id];
        assert_eq!(hop.hop_index, n, "{url}");
        assert_eq!(hop.location_raw, format!("/hostile/redirect/{}", n + 1));
        assert_eq!(request_count(&url), 1, "{url}");
    }
    let past = snap.url(&h(&format!("redirect/{}", max_redirects + 1)));
    assert_eq!(
        (past.state, past.reason.as_ref().map(|r| r.kind.as_str())),
        (UrlState::Skipped, Some("redirect_limit"))
    );
    assert_eq!(request_count(&past.url), 0);
    assert_eq!(
        snap.chains,
        vec![store::ChainRecord {
            start: snap.url(&h("redirect/0")).id,
            last: Some(past.id),
            hops: max_redirects + 1,
            problem: ChainProblem::TooLong,
        }]
    );
    let redirect_requests = site
        .server
        .requests()
        .iter()
        .filter(|r| r.target.starts_with("/hostile/redirect/"))
        .count();
    assert_eq!(redirect_requests as u32, max_redirects + 1);
}

/// The internal stand-in on 127.0.0.2, served from the site's runtime.
fn stand_in(site: &Site) -> fixture::InternalStandIn {
    site.rt
        .block_on(fixture::InternalStandIn::start_default())
        .expect("127.0.0.2 binds (Linux routes 127.0.0.0/8 to the loopback interface)")
}

/// The stand-in received nothing, and nothing of its answer is in the database.
fn assert_untouched(internal: &fixture::InternalStandIn, site: &Site, out: &crate::util::Output) {
    assert_eq!(
        internal.requests(),
        Vec::<String>::new(),
        "the internal stand-in was reached\n{}{}",
        out.stdout,
        out.stderr
    );
    for file in [site.db.clone(), site.db.with_extension("sqlite-wal")] {
        if let Ok(bytes) = std::fs::read(&file) {
            let secret = fixture::STANDIN_SECRET.as_bytes();
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret),
                "{} holds the stand-in's answer",
                file.display()
            );
        }
    }
}

/// `dustpan audit --list FILE... <net args> EXTRA...`.
fn list_args(site: &Site, files: &[&std::path::Path], extra: &[&str]) -> Vec<String> {
    let mut args = vec!["audit".to_owned(), "-q".to_owned()];
    for f in files {
        args.push("--list".into());
        args.push(path(f));
    }
    args.extend(site.args());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// Spellings of the stand-in's address that a crawl refuses: userinfo, a trailing dot,
/// percent-encoded and full-width digits, hexadecimal and a single number.
fn spellings(internal: &fixture::InternalStandIn) -> Vec<String> {
    let port = internal.addr().port();
    vec![
        format!("http://127.0.0.2:{port}/plain"),
        format!("http://user:pass@127.0.0.2:{port}/userinfo"),
        format!("http://127.0.0.2.:{port}/trailing-dot"),
        format!("http://%31%32%37.0.0.2:{port}/percent"),
        format!("http://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff12}:{port}/full-width"),
        format!("http://0x7f.0.0.2:{port}/hex"),
        format!("http://2130706434:{port}/number"),
    ]
}

fn log_line(target: &str) -> String {
    format!(
        "203.0.113.9 - - [12/Mar/2025:10:00:00 +0000] \"GET {target} HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n"
    )
}

#[test]
fn an_access_logs_proxy_requests_for_other_hosts_are_rejected_lines() {
    let site = Site::start(FixtureConfig::default());
    let internal = stand_in(&site);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("access.log");
    let mut text = String::new();
    for target in spellings(&internal) {
        text += &log_line(&target);
        text += &log_line(&format!("{target}/latest/meta-data/"));
    }
    text += &log_line("/");
    text += &log_line("https://example.test/about");
    std::fs::write(&log, text).unwrap();
    let out = run(&list_args(
        &site,
        &[&log],
        &["--site", "https://example.test", "--no-bot-verification"],
    ));
    assert_untouched(&internal, &site, &out);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("proxy request for another host"),
        "{}",
        out.stdout
    );
    let store = site.store();
    let urls = site.rt.block_on(store.urls(audit_id(&out.stdout))).unwrap();
    let port = format!(":{}", internal.addr().port());
    assert!(
        urls.iter().all(|u| u.url.contains(".example.test/")
            || u.url.starts_with("https://example.test/")),
        "{:?}",
        urls.iter().map(|u| &u.url).collect::<Vec<_>>()
    );
    assert!(urls.iter().all(|u| !u.url.contains(&port)));
}

#[test]
fn lists_sitemaps_and_csv_files_reach_no_internal_host() {
    let site = Site::start(FixtureConfig::default());
    let internal = stand_in(&site);
    let dir = tempfile::tempdir().unwrap();
    let all = spellings(&internal);
    let plain = dir.path().join("urls.txt");
    std::fs::write(
        &plain,
        format!("https://example.test/\n{}\n", all.join("\n")),
    )
    .unwrap();
    let locs = |urls: &[String]| -> String {
        urls.iter()
            .map(|u| format!("<url><loc>{u}</loc></url>"))
            .collect()
    };
    let urlset = dir.path().join("urls.xml");
    std::fs::write(
        &urlset,
        format!(
            "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{}</urlset>",
            locs(&all)
        ),
    )
    .unwrap();
    let index = dir.path().join("index.xml");
    let children: String = all
        .iter()
        .map(|u| format!("<sitemap><loc>{u}/sitemap.xml</loc></sitemap>"))
        .collect();
    std::fs::write(
        &index,
        format!(
            "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{children}</sitemapindex>"
        ),
    )
    .unwrap();
    let csv = dir.path().join("internal_all.csv");
    std::fs::write(
        &csv,
        format!("Address,Status Code\n{}\n", all.join(",200\n") + ",200"),
    )
    .unwrap();
    for (files, extra) in [
        (vec![plain.as_path()], vec![]),
        (
            vec![urlset.as_path(), index.as_path(), csv.as_path()],
            vec![],
        ),
        (vec![plain.as_path(), index.as_path()], vec!["--follow"]),
    ] {
        let out = run(&list_args(&site, &files, &extra));
        assert_untouched(&internal, &site, &out);
        assert!(
            out.stdout.contains("The list audit will send requests to"),
            "{}",
            out.stdout
        );
        // Nothing is left queued (what was refused stays refused): no resume advised.
        assert!(!out.stdout.contains("Resume with"), "{}", out.stdout);
    }
}

#[test]
fn learn_sends_no_sample_request_to_an_internal_host() {
    let site = Site::start(FixtureConfig::default());
    let internal = stand_in(&site);
    let base = internal.base_url();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    let mut urls = Vec::new();
    for i in 0..40 {
        urls.push(format!("{base}/p/{i}"));
        urls.push(format!("{base}/item?id={i}"));
        urls.push(format!("{base}/p/{i}?utm_source=x"));
    }
    std::fs::write(&file, urls.join("\n")).unwrap();
    let out = dustpan(&["learn", &path(&file)], "");
    assert_untouched(&internal, &site, &out);
}

/// The stand-in on 127.0.0.1, which `localhost` resolves to.
fn localhost_stand_in(site: &Site) -> fixture::InternalStandIn {
    site.rt
        .block_on(fixture::InternalStandIn::start(std::net::IpAddr::from([
            127, 0, 0, 1,
        ])))
        .unwrap()
}

#[test]
fn a_start_host_on_a_non_public_address_needs_an_opt_in_and_keeps_its_address() {
    let site = Site::start(FixtureConfig::default());
    let internal = localhost_stand_in(&site);
    let start = format!("http://localhost:{}/", internal.addr().port());
    let db = path(&site.db);
    let base = ["--db", db.as_str(), "-q", "--no-probes"];
    let mut args = vec!["audit", start.as_str()];
    args.extend(base);
    let out = dustpan(&args, "");
    assert_ne!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("--allow-internal"), "{}", out.stderr);
    assert!(out.stderr.contains("127.0.0.1"), "{}", out.stderr);
    assert_eq!(internal.requests(), Vec::<String>::new());

    // With the opt-in: audited, and the address kept with the audit.
    args.push("--allow-internal");
    let out = dustpan(&args, "");
    assert!(
        !internal.requests().is_empty(),
        "{}{}",
        out.stdout,
        out.stderr
    );
    let id = audit_id(&out.stdout);
    let store = site.store();
    let config = site.rt.block_on(crawl::audit_config(&store, id)).unwrap();
    assert!(
        config.start_addresses["localhost"].contains(&std::net::IpAddr::from([127, 0, 0, 1])),
        "{:?}",
        config.start_addresses
    );

    // The host's DNS answer changes between runs (as if its earlier runs had found it at
    // 10.9.9.9): --like and --resume refuse, saying how to proceed.
    let mut moved = config.clone();
    moved.start_addresses = [(
        "localhost".to_owned(),
        vec![std::net::IpAddr::from([10, 9, 9, 9])],
    )]
    .into();
    site.rt
        .block_on(store.replace_audit_config(id, &serde_json::to_string(&moved).unwrap()))
        .unwrap();
    site.rt
        .block_on(store.set_audit_status(id, AuditStatus::Cancelled, None))
        .unwrap();
    let before = internal.requests().len();
    let id_text = id.0.to_string();
    for flag in ["--like", "--resume"] {
        let out = dustpan(&["audit", flag, &id_text, "--db", &db, "-q"], "");
        assert_ne!(out.code, 0, "{flag}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("now resolves to 127.0.0.1")
                && out.stderr.contains("10.9.9.9")
                && out.stderr.contains("--allow-internal"),
            "{flag}: {}",
            out.stderr
        );
        assert_eq!(internal.requests().len(), before, "{flag}");
    }
    let out = dustpan(
        &[
            "audit",
            "--like",
            &id_text,
            "--db",
            &db,
            "-q",
            "--allow-internal",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(internal.requests().len() > before);
}

#[test]
fn through_a_proxy_names_are_checked_before_the_request_goes_out() {
    let site = Site::start(FixtureConfig::default());
    // The stand-in is the proxy: whatever reaches it would reach the internal network.
    let internal = stand_in(&site);
    let proxy = internal.base_url();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("urls.txt");
    std::fs::write(
        &plain,
        "https://example.test/\nhttp://intranet.test/admin\nhttp://localhost:9/status\n",
    )
    .unwrap();
    let out = dustpan_env(
        &list_args(&site, &[&plain], &[]),
        &[
            ("HTTP_PROXY", proxy.as_str()),
            ("http_proxy", proxy.as_str()),
        ],
    );
    assert_untouched(&internal, &site, &out);
    let store = site.store();
    let id = audit_id(&out.stdout);
    let snap = site.rt.block_on(Snapshot::load(&store, id));
    for url in ["http://intranet.test/admin", "http://localhost:9/status"] {
        let fetch = snap.fetch(url);
        assert_eq!(
            fetch.error_kind.as_deref(),
            Some("address_refused"),
            "{url}: {fetch:?}"
        );
    }
}
