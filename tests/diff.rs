//! `dustpan diff`, `dustpan audit --like`, `dustpan audits` and `dustpan delete` on the
//! fixture site: two audits of the unchanged site give an empty diff; an audit of the
//! Before variant and one of the After variant give exactly the changes between them.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use fixture::SiteVariant;
use fixture::answers::{self, SitemapFormat};
use store::AuditId;

use crate::util::{Output, Site, audit_id, check, path, read_csv, run};

const START: &str = "https://example.test/";
const BLOG_SITEMAP: &str = "https://blog.example.test/sitemap.xml";

/// The first audit of the fixture, with options the re-audit must inherit.
fn first_audit(site: &Site) -> AuditId {
    let args = site.audit_args(
        START,
        &[
            "-q",
            "--include-subdomains",
            "--sitemap",
            BLOG_SITEMAP,
            "--trap-budget",
            "40",
            "--max-response-bytes",
            "2000000",
            "--timeout",
            "20",
            // Which URLs the crawl's own DUST rules spare depends on the order pages
            // arrive in: two audits of one site would differ.
            "--no-dust-learning",
        ],
    );
    let out = run(&args);
    check(&out, "dustpan audit");
    audit_id(&out.stdout)
}

/// `dustpan audit --like ID`: the same configuration, a new audit.
fn audit_like(site: &Site, like: AuditId) -> AuditId {
    let out = run(&[
        "audit".to_owned(),
        "--like".to_owned(),
        like.0.to_string(),
        "-q".to_owned(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    check(&out, "dustpan audit --like");
    let id = audit_id(&out.stdout);
    assert_ne!(id, like);
    id
}

fn diff(site: &Site, old: AuditId, new: AuditId, out: &Path) -> Output {
    let o = run(&[
        "diff".to_owned(),
        old.0.to_string(),
        new.0.to_string(),
        "--out".to_owned(),
        path(out),
        "--top".to_owned(),
        "1000".to_owned(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    check(&o, "dustpan diff");
    o
}

const SECTIONS: &[&str] = &[
    "findings",
    "clusters",
    "cluster_members",
    "preferred",
    "responses",
    "canonicals",
    "urls",
    "sitemap_entries",
];

/// Every section's rows, by section.
fn sections(dir: &Path) -> HashMap<&'static str, Vec<HashMap<String, String>>> {
    SECTIONS
        .iter()
        .map(|s| (*s, read_csv(&dir.join(format!("{s}.csv")))))
        .collect()
}

/// The set of one column's values joined with other columns, for comparing by hand.
fn rows(table: &[HashMap<String, String>], columns: &[&str]) -> BTreeSet<String> {
    table
        .iter()
        .map(|r| {
            columns
                .iter()
                .map(|c| r[*c].as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

#[test]
fn two_audits_of_the_unchanged_site_give_an_empty_diff() {
    let site = Site::quiet();
    let first = first_audit(&site);
    let second = audit_like(&site, first);
    let dir = tempfile::tempdir().unwrap();
    let out = diff(&site, first, second, dir.path());
    assert!(out.stdout.contains("No changes."), "{}", out.stdout);
    for (name, table) in sections(dir.path()) {
        assert!(table.is_empty(), "{name}.csv has rows: {table:?}");
    }
    // Persisting findings are counted, not listed.
    let persisting: usize = out
        .stdout
        .lines()
        .find(|l| l.ends_with("findings persisting"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(persisting > 20, "{}", out.stdout);

    // --like takes the whole configuration: no other crawl option.
    let conflict = run(&[
        "audit".to_owned(),
        "--like".to_owned(),
        first.0.to_string(),
        "--max-urls".to_owned(),
        "5".to_owned(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    assert_eq!(conflict.code, 2, "{}", conflict.stderr);
    assert!(
        conflict.stderr.contains("cannot be used with"),
        "{}",
        conflict.stderr
    );
}

/// `(change, URL)` rows expected from a set difference of the two variants' sitemaps.
fn expected_sitemap_changes() -> BTreeSet<String> {
    let (before, after) = (
        answers::sitemaps(SiteVariant::Before),
        answers::sitemaps(SiteVariant::After),
    );
    let mut out = BTreeSet::new();
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.url, a.url);
        if b.format == SitemapFormat::Index {
            continue;
        }
        for e in b.entries.iter().filter(|e| !a.entries.contains(e)) {
            out.insert(format!("removed | {} | {e}", b.url));
        }
        for e in a.entries.iter().filter(|e| !b.entries.contains(e)) {
            out.insert(format!("added | {} | {e}", a.url));
        }
    }
    out
}

fn set(rows: &[&str]) -> BTreeSet<String> {
    rows.iter().map(|r| (*r).to_owned()).collect()
}

#[test]
fn before_and_after_give_exactly_the_changes_between_them() {
    let site = Site::quiet();
    let first = first_audit(&site);
    site.server.set_variant(SiteVariant::After);
    let second = audit_like(&site, first);
    let dir = tempfile::tempdir().unwrap();
    let out = diff(&site, first, second, dir.path());
    let t = sections(dir.path());
    let (before, after) = (
        answers::site(SiteVariant::Before),
        answers::site(SiteVariant::After),
    );

    // URLs the After crawl no longer meets, and the ones it meets for the first time.
    let urls = set(&[
        // Removed from the nav, the footer and sitemap.xml.
        "removed | https://example.test/careers",
        // No longer in sitemap.xml and linked from nowhere else.
        "removed | https://example.test/discontinued",
        // /chain/start now redirects straight to /chain/end.
        "removed | https://example.test/chain/step-2",
        "removed | https://example.test/chain/step-3",
        // /canonical/to-404 is now self-canonical: its old target is no longer named.
        "removed | https://example.test/canonical/missing-target",
        // /shoes no longer links its slash variant.
        "removed | https://example.test/shoes/",
        // /resources no longer links the www /contact, which now redirects; /faq on www
        // was linked (root-relative) from that www page only.
        "removed | https://www.example.test/contact",
        "removed | https://www.example.test/faq",
        // In the nav and sitemap.xml.
        "added | https://example.test/new-arrivals",
        // The new post: in the sidebar of every page, on /news/ and in sitemap.xml; with
        // its print view (a nofollow link), og:url, shortlink and JSON-LD url over http.
        "added | https://example.test/news/autumn-sale",
        "added | https://example.test/news/autumn-sale?print=1",
        "added | https://example.test/news/autumn-sale?utm_source=share",
        "added | https://example.test/?p=34",
        "added | http://example.test/news/autumn-sale",
        // The new canonical target of /returns.
        "added | https://example.test/returns-policy",
    ]);
    assert_eq!(rows(&t["urls"], &["Change", "URL"]), urls);
    let gone: BTreeSet<&str> = urls.iter().filter_map(|r| r.split(" | ").nth(1)).collect();

    // Status codes and redirect targets: every URL whose served status or Location
    // differs between the variants' known answers, among the URLs both crawls met.
    let responses: BTreeSet<String> = before
        .urls
        .iter()
        .filter_map(|b| after.get(b.url).map(|a| (b, a)))
        .filter(|(b, a)| (b.status, b.location) != (a.status, a.location))
        .filter(|(b, _)| !gone.contains(b.url))
        .map(|(b, a)| {
            format!(
                "{} | {} | {} | {} | {}",
                b.url,
                b.status,
                a.status,
                b.location.unwrap_or(""),
                a.location.unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        responses,
        set(&[
            "https://example.test/chain/start | 301 | 301 | https://example.test/chain/step-2 | https://example.test/chain/end"
        ])
    );
    assert_eq!(
        rows(
            &t["responses"],
            &[
                "URL",
                "Status before",
                "Status now",
                "Redirect before",
                "Redirect now"
            ]
        ),
        responses
    );

    // Canonicals: every page whose declared canonicals differ in the known answers.
    let canonicals: BTreeSet<String> = before
        .urls
        .iter()
        .filter_map(|b| after.get(b.url).map(|a| (b, a)))
        .filter(|(_, a)| a.status == 200 && !gone.contains(a.url))
        .filter(|(b, a)| {
            (b.canonical_links(), b.canonical_header) != (a.canonical_links(), a.canonical_header)
        })
        .map(|(b, a)| {
            format!(
                "{} | {} | {}",
                b.url,
                b.canonical_links().join("\n"),
                a.canonical_links().join("\n")
            )
        })
        .collect();
    assert_eq!(canonicals.len(), 2, "{canonicals:?}");
    assert_eq!(
        rows(
            &t["canonicals"],
            &["URL", "Canonical before", "Canonical now"]
        ),
        canonicals
    );

    assert_eq!(
        rows(&t["sitemap_entries"], &["Change", "Sitemap", "URL"]),
        expected_sitemap_changes()
    );

    // Findings, by stable key.
    assert_eq!(
        rows(&t["findings"], &["Change", "Key"]),
        set(&[
            // The new problem: /returns declares the 404 /returns-policy canonical, and
            // sitemap.xml lists it.
            "new | CANON-TO-ERROR https://example.test/returns",
            "new | SITEMAP-CANONICALISED https://example.test/returns",
            // /canonical/to-404 is now self-canonical, preferred, and in no sitemap.
            "new | SITEMAP-MISSING https://example.test/canonical/to-404",
            // Fixed.
            "resolved | CANON-TO-ERROR https://example.test/canonical/to-404",
            "resolved | SITEMAP-ERROR https://example.test/discontinued",
            "resolved | DUP-SLASH slash example.test with a trailing slash where the page has none",
            "resolved | REDIRECT-CHAIN https://example.test/chain/start",
            "resolved | SITEMAP-REDIRECT https://example.test/moved/old-page",
            // /resources no longer links the www /contact.
            "resolved | CANON-LINKED https://www.example.test/contact",
        ])
    );

    // Clusters, matched by their URLs. The After site also changes the recent-posts
    // widget on every page (a new post): no cluster that the edits do not touch changes.
    // A canonical to an error page joins no cluster (CANON-TO-ERROR says so), so neither
    // /canonical/to-404 (Before) nor /returns (After) forms one.
    assert_eq!(
        rows(
            &t["clusters"],
            &[
                "Change",
                "Preferred URL",
                "Previous preferred URL",
                "URLs added",
                "URLs removed"
            ]
        ),
        set(&[
            "shrank | https://example.test/chain/end | https://example.test/chain/end |  | https://example.test/chain/step-2\nhttps://example.test/chain/step-3",
            // The new post with its print view, og:url, shortlink and http URL.
            "formed | https://example.test/news/autumn-sale |  | http://example.test/news/autumn-sale\nhttps://example.test/?p=34\nhttps://example.test/news/autumn-sale\nhttps://example.test/news/autumn-sale?print=1\nhttps://example.test/news/autumn-sale?utm_source=share | ",
            // The www /contact now redirects and is crawled no more; /redirect/temporary
            // (a 307) never joined the cluster: /contact is alone.
            "dissolved |  | https://example.test/contact |  | https://example.test/contact\nhttps://www.example.test/contact",
            "dissolved |  | https://example.test/faq |  | https://example.test/faq\nhttps://www.example.test/faq",
            "shrank | https://example.test/shoes | https://example.test/shoes |  | https://example.test/shoes/",
        ])
    );
    // /chain/start still redirects into the cluster, now with nothing to fix.
    assert_eq!(
        rows(
            &t["cluster_members"],
            &[
                "URL",
                "Change",
                "Role before",
                "Role now",
                "Fix before",
                "Fix now"
            ]
        )
        .into_iter()
        .filter(|r| r.contains("role or fix changed"))
        .collect::<BTreeSet<_>>(),
        set(&[
            "https://example.test/chain/start | role or fix changed | redirects | redirects | 301 to the preferred URL | none"
        ])
    );
    assert!(t["preferred"].is_empty());
    // The terminal shows the same sections.
    assert!(
        out.stdout.contains(&format!(
            "Findings new and resolved ({}):",
            t["findings"].len()
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("Clusters formed, changed and dissolved (5):")
    );

    // `dustpan audits` lists both with their finding counts; `dustpan delete` removes one.
    let list = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
    check(&list, "dustpan audits");
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", list.stdout);
    assert!(lines[0].contains("findings E/W/N") && lines[0].contains("clusters"));
    for l in &lines[1..] {
        let fields: Vec<&str> = l.split_whitespace().collect();
        let counts: Vec<u32> = fields[7].split('/').map(|n| n.parse().unwrap()).collect();
        assert_eq!(counts.len(), 3, "{l}");
        assert!(
            counts[0] > 0 && fields[8].parse::<u32>().unwrap() > 0,
            "{l}"
        );
    }
    let store = site.store();
    let first_summary = site
        .rt
        .block_on(store.analysis_summary(first))
        .unwrap()
        .unwrap();
    assert_eq!(
        format!(
            "{}/{}/{}",
            first_summary.errors, first_summary.warnings, first_summary.notices
        ),
        lines[2].split_whitespace().nth(7).unwrap()
    );
    site.rt.block_on(store.close());

    let del = run(&[
        "delete".to_owned(),
        first.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    check(&del, "dustpan delete");
    let list = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
    assert_eq!(list.stdout.lines().count(), 2, "{}", list.stdout);
    let store = site.store();
    site.rt.block_on(async {
        assert!(store.audit(first).await.is_err());
        assert!(store.urls(first).await.unwrap().is_empty());
        let mut fetches = 0;
        store.scan_fetches(first, |_| fetches += 1).await.unwrap();
        assert_eq!(fetches, 0);
        assert!(store.analysis_summary(first).await.unwrap().is_none());
        assert!(!store.urls(second).await.unwrap().is_empty());
        store.close().await;
    });
    let again = run(&[
        "delete".to_owned(),
        first.0.to_string(),
        "--db".to_owned(),
        path(&site.db),
    ]);
    assert_eq!(again.code, 2, "{}", again.stderr);
}

/// An audit that stopped at `--max-urls` says so where it ends and in `dustpan audits`.
#[test]
fn an_audit_stopped_at_a_limit_says_which_and_where() {
    let site = Site::quiet();
    let args = site.audit_args(START, &["-q", "--max-urls", "20"]);
    let out = run(&args);
    check(&out, "dustpan audit --max-urls 20");
    assert!(out.stdout.contains("Stopped at"), "{}", out.stdout);
    let audits = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
    check(&audits, "dustpan audits");
    assert!(
        audits.stdout.contains("[stopped: max_urls"),
        "{}",
        audits.stdout
    );
}

/// The http(s) addresses of a findings row.
fn addresses(row: &HashMap<String, String>) -> Vec<&str> {
    row["Addresses"]
        .split_whitespace()
        .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
        .collect()
}

/// An older audit stopped at `--max-urls` compared with a complete one: the URLs it never
/// fetched are not status changes, findings on them are not new, and the warnings say the
/// older audit is partial. The other way round, findings on URLs the partial newer audit
/// did not fetch are "not crawled", as before.
#[test]
fn a_partial_older_audit_makes_no_changes_of_what_it_did_not_fetch() {
    let site = Site::quiet();
    let partial = {
        let out = run(&site.audit_args(START, &["-q", "--max-urls", "20", "--no-dust-learning"]));
        check(&out, "dustpan audit --max-urls 20");
        audit_id(&out.stdout)
    };
    let full = {
        let out = run(&site.audit_args(START, &["-q", "--no-dust-learning"]));
        check(&out, "dustpan audit");
        audit_id(&out.stdout)
    };
    let store = site.store();
    let older = site.rt.block_on(store.urls(partial)).unwrap();
    let fetched: BTreeSet<&str> = older
        .iter()
        .filter(|u| matches!(u.state, store::UrlState::Done | store::UrlState::Failed))
        .flat_map(|u| [u.url.as_str(), u.url_rfc3986.as_str()])
        .collect();
    let unfetched: BTreeSet<&str> = older
        .iter()
        .filter(|u| !matches!(u.state, store::UrlState::Done | store::UrlState::Failed))
        .map(|u| u.url_rfc3986.as_str())
        .collect();
    assert!(
        !unfetched.is_empty(),
        "the older audit stopped at its limit"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = diff(&site, partial, full, dir.path());
    let s = sections(dir.path());
    for r in &s["responses"] {
        assert!(
            !unfetched.contains(r["URL"].as_str()),
            "a URL the older audit did not fetch is a status change: {r:?}"
        );
    }
    let new: Vec<_> = s["findings"]
        .iter()
        .filter(|r| r["Change"] == "new")
        .collect();
    for r in &new {
        assert!(
            addresses(r).iter().all(|u| fetched.contains(u)),
            "a finding on a URL the older audit did not fetch is new: {r:?}"
        );
    }
    assert!(
        s["findings"]
            .iter()
            .any(|r| r["Change"] == "not in the older audit"),
        "{:?}",
        s["findings"]
    );
    assert!(
        out.stdout
            .contains("warning: the older audit is partial: it did not fetch every URL"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("stopped at max_urls"), "{}", out.stdout);

    // The reverse order: the partial audit is the newer one.
    let back = tempfile::tempdir().unwrap();
    let out = diff(&site, full, partial, back.path());
    let s = sections(back.path());
    assert!(
        s["findings"].iter().any(|r| r["Change"] == "not crawled"),
        "{:?}",
        s["findings"]
    );
    assert!(
        s["findings"]
            .iter()
            .all(|r| r["Change"] != "not in the older audit"),
        "{:?}",
        s["findings"]
    );
    assert!(
        !out.stdout.contains("the older audit is partial"),
        "{}",
        out.stdout
    );
}
