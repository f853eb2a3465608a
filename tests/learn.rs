//! `dustpan learn` on the generated shop of the fixture (on loopback): `/item?id=N` is
//! the page `/p/N` under a second URL pattern, while `id` itself names the product
//! (the lists name the site on 127.0.0.1, given as `--site`, whose address the sample
//! requests may use).
//! Learning from a URL list (and from an access log of the same URLs) must confirm the
//! substitution, reject dropping `id`, stay within six requests per rule, and group
//! the list as the rules say.

use crate::util::{Site, dustpan, path};
use std::collections::HashMap;

/// The list: 40 products under both patterns, and 40 more under `/p/` only.
fn list(base: &str) -> Vec<String> {
    let mut urls = Vec::new();
    for i in 0..80 {
        urls.push(format!("{base}/p/{i}"));
        if i < 40 {
            urls.push(format!("{base}/item?id={i}"));
        }
    }
    urls
}

/// Asserts that the rules table `table` gives `rule` the status `expected`.
fn assert_status(table: &str, rule: &str, expected: &str) {
    assert_eq!(
        statuses(table).get(rule).map(String::as_str),
        Some(expected),
        "{table}"
    );
}

/// The rules table's status per rule id.
fn statuses(out: &str) -> HashMap<String, String> {
    out.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let status = ["confirmed", "rejected", "needs validation"]
                .into_iter()
                .find(|s| l.starts_with(s))?;
            let id = l.rsplit_once("  ")?.1.trim();
            Some((id.to_owned(), status.to_owned()))
        })
        .collect()
}

#[test]
fn a_list_teaches_the_second_url_pattern_and_not_the_identifier() {
    let site = Site::start(fixture::generated_site(200, 11));
    let base = format!("http://127.0.0.1:{}", site.server.port());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    std::fs::write(&file, list(&base).join("\n") + "\nnot a url\n").unwrap();
    let rules = dir.path().join("rules.json");
    site.server.clear_requests();
    let out = dustpan(
        &[
            "learn",
            &path(&file),
            "--site",
            &base,
            "--group",
            "--save-rules",
            &path(&rules),
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let status = statuses(&out.stderr);
    assert_status(&out.stderr, "replace:/item?id==>/p/", "confirmed");
    assert_status(&out.stderr, "drop_param:id", "rejected");
    assert!(out.stderr.contains(":121: not a URL"), "{}", out.stderr);
    // At most six requests per rule (robots.txt aside).
    let pages = site
        .server
        .requests()
        .iter()
        .filter(|r| r.target != "/robots.txt")
        .count();
    assert!(
        pages <= 6 * status.len(),
        "{pages} requests for {} rules",
        status.len()
    );
    // The groups: each of the first 40 products with its /item URL, nothing else.
    let groups: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with('\t'))
        .collect();
    assert_eq!(groups.len(), 40, "{}", out.stdout);
    assert!(
        groups.iter().all(|g| g.starts_with("2\t")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "2\t{base}/p/7\n\t{base}/p/7\n\t{base}/item?id=7\n"
        )) || out.stdout.contains(&format!(
            "2\t{base}/p/7\n\t{base}/item?id=7\n\t{base}/p/7\n"
        )),
        "{}",
        out.stdout
    );
    // The saved rules are what `audit --rules` reads: the confirmed rule is in.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rules).unwrap()).unwrap();
    let ids: Vec<&str> = saved["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "confirmed")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"replace:/item?id==>/p/"), "{ids:?}");
    assert!(!ids.contains(&"drop_param:id"), "{ids:?}");
}

#[test]
fn an_access_log_teaches_the_same_rule_without_fetching() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("access.log");
    let mut log = String::new();
    for (k, url) in list("").iter().enumerate() {
        log.push_str(&format!(
            "10.0.0.{} - - [24/Nov/2026:10:00:{:02} +0000] \"GET {url} HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1)\"\n",
            k % 200,
            k % 60
        ));
    }
    log.push_str("garbage line\n");
    std::fs::write(&file, log).unwrap();
    let out = dustpan(
        &[
            "learn",
            &path(&file),
            "--site",
            "https://shop.example",
            "--no-fetch",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stdout, "replace:/item?id==>/p/", "needs validation");
    assert!(out.stdout.contains("nothing fetched"), "{}", out.stdout);
    // Unchecked, the identifier does not group: 40 pairs, not one group of 40.
    assert!(
        out.stdout
            .contains("in 80 groups (40 URLs grouped with another)"),
        "{}",
        out.stdout
    );
}

/// `/reviews?product=N` shows "No reviews yet" for most products and every review
/// without the parameter. The list holds only URLs with a product: two values agree,
/// so the rule that drops the parameter is checked against the URL it rewrites to.
#[test]
fn a_filter_whose_values_select_nothing_is_not_dropped() {
    let site = Site::start(fixture::generated_site(200, 11));
    let base = format!("http://127.0.0.1:{}", site.server.port());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    let urls: Vec<String> = (1..60)
        .filter(|i| i % 50 != 0)
        .map(|i| format!("{base}/reviews?product={i}"))
        .collect();
    std::fs::write(&file, urls.join("\n")).unwrap();
    site.server.clear_requests();
    let out = dustpan(&["learn", &path(&file), "--site", &base, "--group"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stderr, "drop_param:product", "rejected");
    assert!(
        site.server
            .requests()
            .iter()
            .any(|r| r.target == "/reviews"),
        "the URL without the parameter was fetched"
    );
    // No two products grouped.
    assert!(
        out.stdout
            .lines()
            .all(|l| l.starts_with('\t') || l.starts_with("1\t")),
        "{}",
        out.stdout
    );
}

/// `learn --audit ID` learns from the URLs an audit recorded and compares the pages it
/// fetched from its store: the rules are checked without asking the site again.
#[test]
fn an_audit_teaches_its_rules_from_its_own_store() {
    let site = Site::start(fixture::generated_site(200, 11));
    let start = format!("http://127.0.0.1:{}/", site.server.port());
    let db = path(&site.db);
    let out = dustpan(
        &[
            "audit",
            &start,
            "--db",
            &db,
            "--quiet",
            "--no-dust-learning",
            "--no-probes",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = crate::util::audit_id(&out.stdout);
    site.server.clear_requests();
    let out = dustpan(
        &[
            "learn",
            "--audit",
            &id.0.to_string(),
            "--db",
            &db,
            "--group",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stderr, "replace:/item?id==>/p/", "confirmed");
    assert_status(&out.stderr, "drop_param:id", "rejected");
    assert!(
        out.stderr
            .contains(&format!("pages audit {} fetched", id.0)),
        "{}",
        out.stderr
    );
    // Every page the audit fetched was compared from the store: the site was asked
    // only for `/item`, the URL without `id` that no page links to.
    let asked: Vec<String> = site
        .server
        .requests()
        .iter()
        .filter(|r| r.target != "/robots.txt")
        .map(|r| r.target.clone())
        .collect();
    assert_eq!(asked, ["/item"], "{}", out.stderr);
    // Groups hold the /item URLs with their /p/ page.
    assert!(out.stdout.contains("/item?id="), "{}", out.stdout);

    // An audit that does not exist is a clear error.
    let out = dustpan(&["learn", "--audit", "999", "--db", &db], "");
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("999"), "{}", out.stderr);
}

/// `/reviews` and `/reviews?days=N` read the same today, but each links to the others
/// as a period control: the site offers them as choices, so `days` is not dropped.
#[test]
fn urls_a_page_offers_as_choices_are_not_duplicates() {
    let site = Site::start(fixture::generated_site(200, 11));
    let base = format!("http://127.0.0.1:{}", site.server.port());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    let mut urls = vec![format!("{base}/reviews")];
    urls.extend([7, 30, 365].map(|d| format!("{base}/reviews?days={d}")));
    std::fs::write(&file, urls.join("\n")).unwrap();
    let out = dustpan(
        &[
            "learn",
            &path(&file),
            "--site",
            &base,
            "--group",
            "--min-support",
            "2",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stderr, "drop_param:days", "rejected");
    assert!(
        out.stdout
            .lines()
            .all(|l| l.starts_with('\t') || l.starts_with("1\t")),
        "{}",
        out.stdout
    );
}

/// The same pages under the site's IP address and under a host name that resolves to it
/// (127.0.0.1 and `localhost`, as many URLs under each): a host alias toward the name,
/// checked (`--resolve` puts the name on the site's address, as the address policy
/// wants of a name at a non-public address) and confirmed like any other rule, and the
/// list grouped by it.
#[test]
fn the_ip_address_of_the_site_is_a_host_alias() {
    let site = Site::start(fixture::generated_site(200, 11));
    let port = site.server.port();
    let (ip, name) = (
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    let urls: Vec<String> = (0..20)
        .flat_map(|i| [format!("{ip}/p/{i}"), format!("{name}/p/{i}")])
        .collect();
    std::fs::write(&file, urls.join("\n")).unwrap();
    let out = dustpan(
        &[
            "learn",
            &path(&file),
            "--site",
            &format!("{ip}/"),
            "--resolve",
            &format!("localhost:{port}:127.0.0.1"),
            "--group",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stderr, &format!("host:{ip}=>{name}"), "confirmed");
    // Each page with its twin under the IP address: 20 groups of two.
    let groups: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with('\t'))
        .collect();
    assert_eq!(groups.len(), 20, "{}", out.stdout);
    assert!(
        groups.iter().all(|g| g.starts_with("2\t")),
        "{}",
        out.stdout
    );
}

/// The fixture blog's field journal: each post with the reply link of every comment
/// (`?replytocom=ID`), whose page reads a little apart ("Reply to Ann") and names the
/// post as its canonical. Learning from the list confirms dropping `replytocom`, as the
/// crawl's own rules do, and groups each post with its reply links.
#[test]
fn a_reply_parameter_whose_pages_name_the_post_canonical_is_dropped() {
    let site = Site::start(fixture::FixtureConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("urls.txt");
    let mut urls = Vec::new();
    for n in 1..=fixture::answers::JOURNAL_POSTS {
        let post = fixture::answers::journal_post(n);
        for (id, _) in fixture::answers::journal_comments(n) {
            urls.push(format!("{post}?replytocom={id}"));
        }
        urls.push(post);
    }
    std::fs::write(&file, urls.join("\n")).unwrap();
    let mut args = vec![
        "learn".to_owned(),
        path(&file),
        "--site".to_owned(),
        format!("{}/", fixture::answers::BLOG_ORIGIN),
        "--group".to_owned(),
    ];
    // `--resolve` and `--ca-cert`, without `--db`.
    args.extend(site.args().into_iter().skip(2));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = dustpan(&args, "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_status(&out.stderr, "drop_param:replytocom", "confirmed");
    let groups: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with('\t'))
        .collect();
    assert_eq!(
        groups.len(),
        fixture::answers::JOURNAL_POSTS as usize,
        "{}",
        out.stdout
    );
}
