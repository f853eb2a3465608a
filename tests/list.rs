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
    let site = Site::quiet();
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
const DUCKDUCKBOT: &str = "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)";
const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";

/// One logged request: method, path, user agent, client address.
type Request = (&'static str, &'static str, &'static str, &'static str);

/// The reverse DNS of the log's client addresses, as the test's name server answers it:
/// 127.0.0.2 is Googlebot and 127.0.0.6 Bingbot; 127.0.0.3 names a host outside
/// Google's domains, 127.0.0.4 a googlebot.com host that resolves to another address;
/// 127.0.0.5 has no name.
const PTR: &[(&str, &str)] = &[
    ("127.0.0.2", "crawl-127-0-0-2.googlebot.com"),
    ("127.0.0.3", "evil.example"),
    ("127.0.0.4", "crawl-127-0-0-4.googlebot.com"),
    ("127.0.0.6", "msnbot-127-0-0-6.search.msn.com"),
];
/// The forward DNS of those names.
const A: &[(&str, &str)] = &[
    ("crawl-127-0-0-2.googlebot.com", "127.0.0.2"),
    ("evil.example", "127.0.0.3"),
    ("crawl-127-0-0-4.googlebot.com", "127.0.0.99"),
    ("msnbot-127-0-0-6.search.msn.com", "127.0.0.6"),
];

/// The name server of the tests, answering [`PTR`] and [`A`] on loopback.
fn dns_server(site: &Site) -> fixture::DnsServer {
    let mut zone = fixture::DnsZone::new();
    for (ip, name) in PTR {
        zone = zone.ptr(ip.parse().unwrap(), name);
    }
    for (name, ip) in A {
        zone = zone.address(name, ip.parse().unwrap());
    }
    site.rt.block_on(fixture::DnsServer::start(zone)).unwrap()
}

/// What a request is, counted here from [`PTR`] and [`A`] the way the search engines
/// document the check: 0 verified bot, 1 unverified bot (a bot without a documented
/// check), 2 fake bot, 3 other.
fn kind(agent: &str, ip: &str) -> usize {
    let domain = match agent {
        GOOGLEBOT => "googlebot.com",
        BINGBOT => "search.msn.com",
        DUCKDUCKBOT => return 1,
        _ => return 3,
    };
    let verified = PTR.iter().any(|(addr, name)| {
        *addr == ip
            && name.ends_with(&format!(".{domain}"))
            && A.iter().any(|(n, a)| n == name && *a == ip)
    });
    if verified { 0 } else { 2 }
}

/// A combined-format access log of fixture pages: (method, path, user agent, client)
/// per request, with malformed lines among them.
fn access_log() -> (String, Vec<Request>) {
    let requests: Vec<Request> = vec![
        ("GET", "/shoes", GOOGLEBOT, "127.0.0.2"),
        ("GET", "/shoes/", GOOGLEBOT, "127.0.0.2"),
        ("GET", "/shoes/", BROWSER, "127.0.0.10"),
        (
            "GET",
            "/shoes;jsessionid=0A1B2C3D4E5F",
            BINGBOT,
            "127.0.0.6",
        ),
        ("GET", "/shoes/", GOOGLEBOT, "127.0.0.3"),
        ("POST", "/shoes/", BROWSER, "127.0.0.10"),
        (
            "GET",
            "/products?utm_source=newsletter&utm_medium=email",
            GOOGLEBOT,
            "127.0.0.4",
        ),
        (
            "HEAD",
            "/products?utm_source=newsletter&utm_medium=email",
            BROWSER,
            "127.0.0.11",
        ),
        ("GET", "/products", BROWSER, "127.0.0.11"),
        ("GET", "/shoes", BROWSER, "127.0.0.12"),
        (
            "GET",
            "/shoes;jsessionid=0A1B2C3D4E5F",
            BROWSER,
            "127.0.0.12",
        ),
        ("GET", "/about", GOOGLEBOT, "127.0.0.5"),
        ("GET", "/shoes/", DUCKDUCKBOT, "127.0.0.7"),
    ];
    let mut log = String::new();
    for (i, (method, target, agent, ip)) in requests.iter().enumerate() {
        log += &format!(
            "{ip} - - [12/Mar/2025:10:{i:02}:00 +0000] \"{method} {target} HTTP/1.1\" 200 {} \"https://example.test/\" \"{agent}\"\n",
            1000 + i
        );
        if i == 3 {
            log += "this line is not a log line\n";
        }
        if i == 8 {
            log += "127.0.0.9 - - [12/Mar/2025] \"GET /broken\n";
        }
    }
    (log, requests)
}

/// Requests to each cluster's non-preferred URLs, from the log itself: preferred URL ->
/// [verified bot, unverified bot, fake bot, other], clusters without any left out.
/// `bots_unverified`: no address was verified or found fake.
fn expected_waste(
    requests: &[Request],
    clusters: &BTreeMap<String, BTreeSet<String>>,
    bots_unverified: bool,
) -> BTreeMap<String, [u64; 4]> {
    let mut counts: HashMap<String, [u64; 4]> = HashMap::new();
    for (method, target, agent, ip) in requests {
        if !matches!(*method, "GET" | "HEAD") {
            continue;
        }
        let mut k = kind(agent, ip);
        if bots_unverified && k < 3 {
            k = 1;
        }
        counts
            .entry(format!("https://example.test{target}"))
            .or_default()[k] += 1;
    }
    let mut expected = BTreeMap::new();
    for (preferred, members) in clusters {
        let mut sum = [0u64; 4];
        for m in members.iter().filter(|m| *m != preferred) {
            for (s, c) in sum
                .iter_mut()
                .zip(counts.get(m).copied().unwrap_or_default())
            {
                *s += c;
            }
        }
        if sum.iter().sum::<u64>() > 0 {
            expected.insert(preferred.clone(), sum);
        }
    }
    expected
}

/// `log_waste.csv` of an export: preferred URL -> [verified bot, unverified bot, fake
/// bot, other] requests to its duplicates, in rank order.
fn waste_csv(dir: &Path) -> Vec<(String, [u64; 4])> {
    read_csv(&dir.join("log_waste.csv"))
        .iter()
        .map(|r| {
            let n = |column: &str| {
                r.get(column)
                    .unwrap_or_else(|| panic!("no {column} in {r:?}"))
                    .parse::<u64>()
                    .unwrap()
            };
            (
                r["Preferred URL"].clone(),
                [
                    n("Verified Bot Requests To Duplicates"),
                    n("Unverified Bot Requests To Duplicates"),
                    n("Fake Bot Requests To Duplicates"),
                    n("Other Requests To Duplicates"),
                ],
            )
        })
        .collect()
}

#[test]
fn an_access_log_ranks_clusters_by_verified_bot_requests_to_their_duplicates() {
    let site = site();
    let dns = dns_server(&site);
    let (log, requests) = access_log();
    let file = write(&site, "access.log", log.as_bytes());
    let server = dns.addr().to_string();
    let out = list_audit(
        &site,
        &[&file],
        &["--site", "https://example.test", "--dns-server", &server],
    );
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
    // Googlebot and Bingbot verified; the three other Googlebot addresses fake (a name
    // outside Google's domains, a name that resolves elsewhere, no name); DuckDuckBot
    // documents no DNS check.
    for line in [
        "Bots verified by DNS: 2 IPs verified, 3 fake, 1 unverified (no documented check)",
        "access.log (an access log): 15 lines read, 6 URLs listed, 2 lines not URLs",
        "12 requests to the URLs audited (7 with a search-engine bot's user agent; 5 others); 1 lines skipped",
        "line 5: not a common or combined log line: \"this line is not a log line\"",
        "line 11: not a common or combined log line",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
    assert!(dns.queries() >= 5, "{} DNS queries", dns.queries());

    let dir = export(&site);
    let clusters = clusters(&dir);
    let expected = expected_waste(&requests, &clusters, false);
    assert_eq!(
        expected.get(SHOES),
        Some(&[2, 1, 1, 2]),
        "the shoes duplicates: /shoes/ (1 verified Googlebot, 1 DuckDuckBot, 1 fake \
         Googlebot, 1 other) and the session URL (1 verified Bingbot, 1 other)"
    );
    assert_eq!(expected.get(PRODUCTS), Some(&[0, 0, 1, 1]));
    let waste = waste_csv(&dir);
    let got: BTreeMap<String, [u64; 4]> = waste.iter().cloned().collect();
    assert_eq!(got, expected);
    // Ranked by verified bot requests: the shoes first; the fake Googlebot request to
    // the tracking URL counts for nothing.
    assert_eq!(waste[0].0, SHOES);
    let preferred = &read_csv(&dir.join("log_waste.csv"))[0];
    assert_eq!(preferred["Verified Bot Requests To Preferred"], "1");
    assert_eq!(preferred["Other Requests To Preferred"], "1");

    let report = report(&site);
    for line in [
        "Bots verified by DNS: 2 IPs verified, 3 fake, 1 unverified (no documented check)",
        "Crawl budget wasted on duplicates: 2 verified and 1 unverified search-engine bot requests, 3 other requests and 2 from fake bots to the non-preferred URLs of 2 clusters",
    ] {
        assert!(report.contains(line), "no {line:?} in:\n{report}");
    }
    assert!(
        report.contains(&format!(
            "             2               1       2       1  to 2 duplicates of {SHOES}"
        )),
        "{report}"
    );

    // The agent filter keeps only Googlebot's requests; without the check, all of them
    // stay unverified.
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
            "--no-bot-verification",
        ],
    );
    for line in [
        "5 requests to the URLs audited (5 with a search-engine bot's user agent; 0 others); 8 lines skipped",
        "Bots verified by DNS: 0 IPs verified, 0 fake, 4 unverified (not looked up: turned off)",
    ] {
        assert!(out.stdout.contains(line), "no {line:?} in:\n{}", out.stdout);
    }
}

/// A name server that never answers, or nothing listening at the address given: every
/// bot request stays unverified, and the audit does not wait long for DNS.
#[test]
fn without_dns_answers_every_bot_stays_unverified_and_the_audit_finishes() {
    let silent = fixture::SilentDns::start().unwrap();
    let closed = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let (log, requests) = access_log();
    for server in [silent.addr().unwrap(), closed] {
        let site = site();
        let file = write(&site, "access.log", log.as_bytes());
        let server = server.to_string();
        let started = std::time::Instant::now();
        let out = list_audit(
            &site,
            &[&file],
            &["--site", "https://example.test", "--dns-server", &server],
        );
        let took = started.elapsed();
        assert!(
            out.stdout.contains(
                "Bots verified by DNS: 0 IPs verified, 0 fake, 6 unverified (5 no answer, 1 no documented check)"
            ),
            "{}",
            out.stdout
        );
        // One query time-out (2 s) for all addresses at once, and the crawl.
        assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
        let dir = export(&site);
        let expected = expected_waste(&requests, &clusters(&dir), true);
        assert_eq!(expected.get(SHOES), Some(&[0, 4, 0, 2]));
        let got: BTreeMap<String, [u64; 4]> = waste_csv(&dir).into_iter().collect();
        assert_eq!(got, expected);
    }
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
