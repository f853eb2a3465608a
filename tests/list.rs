//! `dustpan audit --list FILE`: list audits of the fixture site from a plain URL list,
//! an XML sitemap (and a sitemap index), a Screaming Frog CSV export and an access
//! log. Exactly the listed URLs (with their redirect hops and canonical targets) are
//! requested, the listed duplicates cluster, lines that are not URLs are counted and
//! shown with their line numbers, `--follow` crawls on, and an access log's requests
//! to non-preferred URLs match a count made here from the log itself.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use fixture::FixtureConfig;

use crate::util::{Output, Site, audit_id, path, read_csv, run, spawn_dustpan};

/// A fixture site for one test.
fn site() -> Site {
    Site::start(FixtureConfig {
        hostile: false,
        ..FixtureConfig::default()
    })
}

/// Writes `contents` to `name` in the site's temporary directory.
fn write(site: &Site, name: &str, contents: &[u8]) -> PathBuf {
    let file = site._dir.path().join(name);
    std::fs::write(&file, contents).unwrap();
    file
}

/// `dustpan audit --list FILE... EXTRA... <fixture args> -q`, which must succeed.
fn list_audit(site: &Site, files: &[&Path], extra: &[&str]) -> Output {
    let mut args = vec!["audit".to_owned()];
    for f in files {
        args.push("--list".into());
        args.push(path(f));
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.extend(site.args());
    args.push("-q".into());
    let out = run(&args);
    assert_eq!(
        out.code, 0,
        "dustpan audit --list failed:\n{}{}",
        out.stdout, out.stderr
    );
    out
}

/// The URLs the fixture was asked for, robots.txt left out.
fn requested(site: &Site) -> BTreeSet<String> {
    site.server
        .requests()
        .iter()
        .filter(|r| r.target != "/robots.txt")
        .map(|r| r.url())
        .collect()
}

fn set(urls: &[&str]) -> BTreeSet<String> {
    urls.iter().map(|u| (*u).to_owned()).collect()
}

/// `dustpan export` of the site's newest audit into a new folder; returns it.
fn export(site: &Site) -> PathBuf {
    let out = site._dir.path().join(format!(
        "export-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let args = vec![
        "export".to_owned(),
        "--db".into(),
        path(&site.db),
        "--out".into(),
        path(&out),
    ];
    let done = run(&args);
    assert_eq!(done.code, 0, "{}", done.stderr);
    out
}

/// `dustpan report` of the site's newest audit.
fn report(site: &Site) -> String {
    let args = vec!["report".to_owned(), "--db".into(), path(&site.db)];
    let done = run(&args);
    assert_eq!(done.code, 0, "{}", done.stderr);
    done.stdout
}

/// The clusters of an export: preferred URL -> members (preferred included).
fn clusters(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in read_csv(&dir.join("clusters.csv")) {
        out.entry(row["Preferred URL"].clone())
            .or_default()
            .insert(row["Address"].clone());
    }
    out
}

/// The finding codes of an export.
fn finding_codes(dir: &Path) -> BTreeSet<String> {
    read_csv(&dir.join("findings.csv"))
        .into_iter()
        .map(|r| r["Finding"].clone())
        .collect()
}

const SHOES: &str = "https://example.test/shoes";
const SHOES_SLASH: &str = "https://example.test/shoes/";
const SHOES_SESSION: &str = "https://example.test/shoes;jsessionid=0A1B2C3D4E5F";
const PRODUCTS: &str = "https://example.test/products";
const PRODUCTS_UTM: &str = "https://example.test/products?utm_source=newsletter&utm_medium=email";
const HTTP_CONTACT: &str = "http://example.test/contact";
const CONTACT: &str = "https://example.test/contact";

#[test]
fn a_plain_list_audits_exactly_its_urls_with_their_hops_and_canonical_targets() {
    let site = site();
    let list = format!(
        "# duplicates of the shoes page\n{SHOES}\n{SHOES_SLASH}\n\n{PRODUCTS_UTM}\nnot a url\n{HTTP_CONTACT}\nftp://example.test/file\n{SHOES}\n"
    );
    let file = write(&site, "urls.txt", list.as_bytes());
    let out = list_audit(&site, &[&file], &[]);
    // The listed URLs, the redirect hop of http://…/contact and the canonical target of
    // the tracking URL; nothing their pages link to.
    assert_eq!(
        requested(&site),
        set(&[
            SHOES,
            SHOES_SLASH,
            PRODUCTS_UTM,
            PRODUCTS,
            HTTP_CONTACT,
            CONTACT
        ])
    );
    // The summary says what the list held, with the lines that are not URLs.
    for line in [
        "List audit: 4 URLs listed from 1 input",
        "urls.txt (a URL list): 9 lines read, 4 URLs listed, 2 lines not URLs",
        "1 lines repeat a URL listed before",
        "line 6: not a URL",
        "line 8: a ftp URL, not http(s): \"ftp://example.test/file\"",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    let id = audit_id(&out.stdout);

    let report = report(&site);
    assert!(
        report.contains(&format!("Audit {}:", id.0)) && report.contains("line 6: not a URL"),
        "{report}"
    );
    let dir = export(&site);
    let clusters = clusters(&dir);
    assert_eq!(clusters[SHOES], set(&[SHOES, SHOES_SLASH]), "{clusters:#?}");
    assert_eq!(clusters[PRODUCTS], set(&[PRODUCTS, PRODUCTS_UTM]));
    assert_eq!(clusters[CONTACT], set(&[CONTACT, HTTP_CONTACT]));
    let codes = finding_codes(&dir);
    assert!(codes.contains("DUP-SLASH"), "{codes:?}");
    // No access log, no log_waste.csv.
    assert!(dir.join("clusters.csv").exists() && !dir.join("log_waste.csv").exists());
    // Links are stored for the analysis (pages.csv counts inlinks) but not crawled.
    let pages = read_csv(&dir.join("pages.csv"));
    assert!(
        pages
            .iter()
            .any(|p| p["Address"] == "https://example.test/about")
    );
    assert!(
        !pages
            .iter()
            .any(|p| p["Address"] == "https://example.test/about" && !p["Status Code"].is_empty())
    );

    // The stored configuration runs again with --like: the same URLs, nothing more.
    site.server.clear_requests();
    let like = vec![
        "audit".to_owned(),
        "--like".into(),
        id.0.to_string(),
        "--db".into(),
        path(&site.db),
        "-q".into(),
    ];
    let again = run(&like);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert!(again.stdout.contains("List          4 URLs from 1 inputs"));
    assert_eq!(requested(&site).len(), 6);
    // Two list audits of the same list compare like two crawls: nothing changed.
    let second = audit_id(&again.stdout);
    let diff = vec![
        "diff".to_owned(),
        id.0.to_string(),
        second.0.to_string(),
        "--db".into(),
        path(&site.db),
    ];
    let diff = run(&diff);
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    for line in [
        "0  findings new",
        "0  findings resolved",
        "0  clusters formed",
        "0  clusters dissolved",
    ] {
        assert!(
            diff.stdout.contains(line),
            "no {line:?} in:\n{}",
            diff.stdout
        );
    }
}

#[test]
fn a_killed_list_audit_resumes_with_its_list() {
    let site = Site::start(FixtureConfig {
        hostile: false,
        slow_delay: std::time::Duration::from_millis(300),
        ..FixtureConfig::default()
    });
    let listed: Vec<String> = (1..=6)
        .map(|i| format!("https://example.test/slow?n={i}"))
        .collect();
    let file = write(&site, "slow.txt", listed.join("\n").as_bytes());
    let mut args = vec!["audit".to_owned(), "--list".into(), path(&file)];
    args.extend(["--concurrency", "1", "-q"].map(str::to_owned));
    args.extend(site.args());
    let mut child = spawn_dustpan(&args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // Killed (SIGKILL) once two listed pages were answered.
    while requested(&site).len() < 3 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        assert!(std::time::Instant::now() < deadline, "no crawl");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let audit = site.rt.block_on(site.store().list_audits()).unwrap()[0].id;
    let resume = vec![
        "audit".to_owned(),
        "--resume".into(),
        audit.0.to_string(),
        "--db".into(),
        path(&site.db),
        "-q".into(),
    ];
    let again = run(&resume);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert!(
        again.stdout.contains("List audit: 6 URLs listed"),
        "{}",
        again.stdout
    );
    // Every listed URL and their canonical target, nothing else; a page fetched but not
    // stored when the process died is requested once more, no page more than that.
    let mut urls: Vec<&str> = listed.iter().map(String::as_str).collect();
    urls.push("https://example.test/slow");
    assert_eq!(requested(&site), set(&urls));
    for url in &listed {
        assert!((1..=2).contains(&site.requests_for(url)), "{url}");
    }
}

#[test]
fn follow_crawls_on_from_the_listed_urls() {
    let site = site();
    let file = write(&site, "one.txt", format!("{SHOES_SLASH}\n").as_bytes());
    let out = list_audit(&site, &[&file], &["--follow", "--max-urls", "60"]);
    assert!(
        out.stdout.contains("crawling on from them"),
        "{}",
        out.stdout
    );
    let got = requested(&site);
    // The page links /shoes; the site's navigation leads on to /about and beyond.
    for url in [SHOES_SLASH, SHOES, "https://example.test/about"] {
        assert!(got.contains(url), "{url} not requested: {got:#?}");
    }
    assert!(got.len() > 10, "{got:#?}");
}

#[test]
fn an_xml_sitemap_file_lists_the_urls_to_audit() {
    let site = site();
    let sitemap = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>{SHOES}</loc></url>\n<url><loc>{SHOES_SLASH}</loc></url>\n<url><loc>not a url</loc></url>\n<url><loc>{SHOES_SESSION}</loc></url>\n</urlset>\n"
    );
    let file = write(&site, "urls.xml", sitemap.as_bytes());
    let out = list_audit(&site, &[&file], &[]);
    assert_eq!(requested(&site), set(&[SHOES, SHOES_SLASH, SHOES_SESSION]));
    for line in [
        "urls.xml (an XML sitemap): 7 lines read, 3 URLs listed, 1 lines not URLs",
        "line 5: invalid_loc",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    let dir = export(&site);
    assert_eq!(
        clusters(&dir)[SHOES],
        set(&[SHOES, SHOES_SLASH, SHOES_SESSION])
    );
}

#[test]
fn a_sitemap_index_file_has_its_sitemaps_read_and_no_orphan_or_missing_page_reported() {
    let site = site();
    let index = "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<sitemap><loc>https://example.test/sitemap.xml</loc></sitemap>\n</sitemapindex>\n";
    let file = write(&site, "index.xml", index.as_bytes());
    let out = list_audit(&site, &[&file], &[]);
    assert!(
        out.stdout
            .contains("index.xml (an XML sitemap index): 3 lines read, 0 URLs listed"),
        "{}",
        out.stdout
    );
    let got = requested(&site);
    let facts = site.server.answers();
    let listed = fixture::answers::sitemaps(site.server.variant())
        .into_iter()
        .find(|s| s.url == "https://example.test/sitemap.xml")
        .unwrap()
        .entries;
    assert!(listed.len() > 10);
    // Every URL of the sitemap on its own host (the scope: the hosts of what was
    // listed) that robots.txt allows.
    for url in &listed {
        let blocked = facts.get(url).is_some_and(|f| f.robots_blocked);
        let own_host = url.starts_with("https://example.test/");
        assert_eq!(got.contains(*url), own_host && !blocked, "{url}");
    }
    // Nothing but the sitemap, its URLs and their hops and canonical targets: no link.
    assert!(
        !got.contains("https://example.test/shoes/red-sneaker"),
        "{got:#?}"
    );
    let dir = export(&site);
    let codes = finding_codes(&dir);
    assert!(codes.contains("SITEMAP-REDIRECT"), "{codes:?}");
    assert!(
        !codes.contains("SITEMAP-ORPHAN") && !codes.contains("SITEMAP-MISSING"),
        "{codes:?}"
    );
}

#[test]
fn a_screaming_frog_export_is_audited_by_its_address_column() {
    let site = site();
    let csv = format!(
        "\u{feff}\"Address\",\"Content Type\",\"Status Code\",\"Title 1\",\"Meta Description 1\"\r\n\"{SHOES}\",\"text/html; charset=utf-8\",\"200\",\"Shoes | Example, Outfitters\",\"Boots, \"\"sneakers\"\" and more\"\r\n\"{SHOES_SLASH}\",\"text/html\",\"200\",\"Shoes\",\"\"\r\n\"\",\"text/html\",\"200\",\"No address\",\"\"\r\n\"{PRODUCTS_UTM}\",\"text/html\",\"200\",\"All products\",\"a\r\nmulti-line cell\"\r\n\"javascript:void(0)\",\"\",\"\",\"\",\"\"\r\n"
    );
    let file = write(&site, "internal_all.csv", csv.as_bytes());
    let out = list_audit(&site, &[&file], &[]);
    assert_eq!(
        requested(&site),
        set(&[SHOES, SHOES_SLASH, PRODUCTS_UTM, PRODUCTS])
    );
    for line in [
        "internal_all.csv (a CSV file): 7 lines read, 3 URLs listed, 2 lines not URLs",
        "line 4: the URL column is empty",
        "line 7: a javascript URL, not http(s)",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    let dir = export(&site);
    let clusters = clusters(&dir);
    assert_eq!(clusters[SHOES], set(&[SHOES, SHOES_SLASH]));
    assert_eq!(clusters[PRODUCTS], set(&[PRODUCTS, PRODUCTS_UTM]));
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";

/// A combined-format access log of fixture pages: (method, path, user agent) per
/// request, with malformed lines among them.
fn access_log() -> (String, Vec<(&'static str, &'static str, &'static str)>) {
    let requests = vec![
        ("GET", "/shoes", GOOGLEBOT),
        ("GET", "/shoes/", GOOGLEBOT),
        ("GET", "/shoes/", BROWSER),
        ("GET", "/shoes;jsessionid=0A1B2C3D4E5F", BINGBOT),
        ("GET", "/shoes/", GOOGLEBOT),
        ("POST", "/shoes/", BROWSER),
        (
            "GET",
            "/products?utm_source=newsletter&utm_medium=email",
            GOOGLEBOT,
        ),
        (
            "HEAD",
            "/products?utm_source=newsletter&utm_medium=email",
            BROWSER,
        ),
        ("GET", "/products", BROWSER),
        ("GET", "/shoes", BROWSER),
        ("GET", "/shoes;jsessionid=0A1B2C3D4E5F", BROWSER),
        ("GET", "/about", GOOGLEBOT),
        ("GET", "/shoes/", BINGBOT),
    ];
    let mut log = String::new();
    for (i, (method, target, agent)) in requests.iter().enumerate() {
        log += &format!(
            "203.0.113.{} - - [12/Mar/2025:10:{:02}:00 +0000] \"{method} {target} HTTP/1.1\" 200 {} \"https://example.test/\" \"{agent}\"\n",
            i + 1,
            i,
            1000 + i
        );
        if i == 3 {
            log += "this line is not a log line\n";
        }
        if i == 8 {
            log += "203.0.113.9 - - [12/Mar/2025] \"GET /broken\n";
        }
    }
    (log, requests)
}

#[test]
fn an_access_log_ranks_clusters_by_requests_to_their_duplicates() {
    let site = site();
    let (log, requests) = access_log();
    let file = write(&site, "access.log", log.as_bytes());
    let out = list_audit(&site, &[&file], &["--site", "https://example.test"]);
    // The GET and HEAD paths, and the canonical target (/products is listed anyway).
    assert_eq!(
        requested(&site),
        set(&[
            SHOES,
            SHOES_SLASH,
            SHOES_SESSION,
            PRODUCTS_UTM,
            PRODUCTS,
            "https://example.test/about"
        ])
    );
    for line in [
        "access.log (an access log): 15 lines read, 6 URLs listed, 2 lines not URLs",
        "12 requests to the URLs audited (7 from search-engine bots by user agent, unverified; 5 others); 1 lines skipped",
        "line 5: not a common or combined log line: \"this line is not a log line\"",
        "line 11: not a common or combined log line",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }

    // Counted here from the log itself: per URL, bot and other GET/HEAD requests.
    let mut counts: HashMap<String, (u64, u64)> = HashMap::new();
    for (method, target, agent) in &requests {
        if !matches!(*method, "GET" | "HEAD") {
            continue;
        }
        let e = counts
            .entry(format!("https://example.test{target}"))
            .or_default();
        if agent.contains("Googlebot") || agent.contains("bingbot") {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    let dir = export(&site);
    let clusters = clusters(&dir);
    let mut expected: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (preferred, members) in &clusters {
        let (mut bot, mut other) = (0, 0);
        for m in members.iter().filter(|m| *m != preferred) {
            let (b, o) = counts.get(m).copied().unwrap_or_default();
            bot += b;
            other += o;
        }
        if bot + other > 0 {
            expected.insert(preferred.clone(), (bot, other));
        }
    }
    assert_eq!(
        expected.get(SHOES),
        Some(&(4, 2)),
        "the shoes duplicates: /shoes/ (3 bot, 1 other) and the session URL (1, 1)"
    );
    let waste = read_csv(&dir.join("log_waste.csv"));
    let got: BTreeMap<String, (u64, u64)> = waste
        .iter()
        .map(|r| {
            (
                r["Preferred URL"].clone(),
                (
                    r["Bot Requests To Duplicates"].parse().unwrap(),
                    r["Other Requests To Duplicates"].parse().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // Ranked by bot requests: the shoes first.
    assert_eq!(waste[0]["Preferred URL"], SHOES);

    let report = report(&site);
    assert!(
        report.contains(
            "Crawl budget wasted on duplicates: 5 search-engine bot requests and 3 other requests"
        ),
        "{report}"
    );
    assert!(
        report.contains(&format!("4 bot       2 other  to 2 duplicates of {SHOES}")),
        "{report}"
    );

    // The agent filter keeps only Googlebot's requests.
    let site = self::site();
    let file = write(&site, "access.log", log.as_bytes());
    let out = list_audit(
        &site,
        &[&file],
        &[
            "--site",
            "https://example.test/",
            "--log-agent",
            "(?i)googlebot",
        ],
    );
    assert!(
        out.stdout
            .contains("5 requests to the URLs audited (5 from search-engine bots by user agent, unverified; 0 others); 8 lines skipped"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_log_without_a_site_or_a_list_without_urls_is_refused() {
    let site = site();
    let (log, _) = access_log();
    let file = write(&site, "access.log", log.as_bytes());
    let mut args = vec!["audit".to_owned(), "--list".into(), path(&file)];
    args.extend(site.args());
    let out = run(&args);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--site"), "{}", out.stderr);
    let file = write(&site, "junk.txt", b"one\ntwo\n");
    let mut args = vec!["audit".to_owned(), "--list".into(), path(&file)];
    args.extend(site.args());
    let out = run(&args);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("no http(s) URL"), "{}", out.stderr);
    assert!(out.stdout.contains("line 2: not a URL"), "{}", out.stdout);
    assert!(requested(&site).is_empty());
}
