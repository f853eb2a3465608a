//! `dustpan audit`, `dustpan audits` and `dustpan demo` against the fixture problem site,
//! checked scenario by scenario against its known answers (`fixture::answers`).
//!
//! One audit of the fixture (run once, by the first test that needs it) is read back
//! through the store's read API; each test checks one family of scenarios on it.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;
use std::time::Duration;

use fixture::answers::{self, Noindex, SiteFacts, SitemapFormat, UrlFact};
use fixture::{FixtureConfig, RequestRecord, SiteVariant};
use store::{
    AuditStatus, ChainProblem, DeclarationSource, FoundVia, HopKind, ReasonKind, UrlReason,
    UrlState,
};

use crate::util::{Site, Snapshot, audit_id, dustpan, path, run};

const START: &str = "https://example.test/";
/// The scheme and www variants of the start URL the crawler adds.
const VARIANTS: [&str; 3] = [
    "http://example.test/",
    "http://www.example.test/",
    "https://www.example.test/",
];
/// robots.txt of the blog names this sitemap, but only the start origins' robots.txt
/// is read for sitemaps (see `blog_sitemap_named_in_its_robots_txt_is_read`), so the
/// audit names it with `--sitemap`.
const BLOG_SITEMAP: &str = "https://blog.example.test/sitemap.xml";
/// `--trap-budget`: the calendar's month numbers trip it long before `--max-depth`.
const TRAP_BUDGET: usize = 40;
/// `--max-response-bytes`: below the size of `/huge` (3 MB).
const MAX_BODY: u64 = 2_000_000;
/// The fixture's `/slow` delay.
const SLOW: Duration = Duration::from_millis(300);

/// The audit every test below reads.
struct Crawled {
    stdout: String,
    audits_stdout: String,
    /// The overview the desktop app shows at once, as `dustpan audit` stored it.
    overview: serde_json::Value,
    snap: Snapshot,
    requests: Vec<RequestRecord>,
    facts: SiteFacts,
}

fn crawled() -> &'static Crawled {
    static CRAWL: OnceLock<Crawled> = OnceLock::new();
    CRAWL.get_or_init(|| {
        let site = Site::start(FixtureConfig {
            hostile: false,
            slow_delay: SLOW,
            ..FixtureConfig::default()
        });
        let trap_budget = TRAP_BUDGET.to_string();
        let max_body = MAX_BODY.to_string();
        let args = site.audit_args(
            START,
            &[
                "-q",
                "--include-subdomains",
                "--sitemap",
                BLOG_SITEMAP,
                "--trap-budget",
                &trap_budget,
                "--max-response-bytes",
                &max_body,
                "--timeout",
                "20",
                // The crawl's own DUST rules spare URLs depending on the order pages
                // arrive in (crates/crawl/tests/dust.rs); here every reachable URL is
                // fetched.
                "--no-dust-learning",
            ],
        );
        let out = run(&args);
        assert_eq!(
            out.code, 0,
            "dustpan audit failed:\n{}{}",
            out.stdout, out.stderr
        );
        let audit = audit_id(&out.stdout);
        let audits = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
        assert_eq!(audits.code, 0, "{}", audits.stderr);
        let store = site.store();
        let snap = site.rt.block_on(Snapshot::load_full(&store, audit));
        let (_, overview) = site
            .rt
            .block_on(store.stored_overview(audit))
            .unwrap()
            .expect("dustpan audit stores the overview");
        site.rt.block_on(store.close());
        Crawled {
            stdout: out.stdout,
            audits_stdout: audits.stdout,
            overview: serde_json::from_str(&overview).unwrap(),
            snap,
            requests: site.server.requests(),
            facts: answers::site(SiteVariant::Before),
        }
    })
}

impl Crawled {
    /// Requests the fixture logged for exactly this URL (scheme, host, path and query).
    fn requests_for(&self, url: &str) -> usize {
        self.requests.iter().filter(|r| r.url() == url).count()
    }

    fn fact(&self, url: &str) -> &UrlFact {
        self.facts
            .get(url)
            .unwrap_or_else(|| panic!("{url} is not in the known answers"))
    }

    /// The answers' URLs a crawl from [`START`] reaches: the start URL and its variants,
    /// the navigation, sitemap entries, then (to a fixed point) what reached pages link to
    /// in `<main>` (nofollow links included) or declare (shortlink, og:url, JSON-LD),
    /// declare canonical (head, header or body), hreflang-alternate, redirect or refresh
    /// to. Robots-blocked URLs are reached (and must be recorded) but lead nowhere.
    fn reachable(&self) -> BTreeSet<&'static str> {
        let mut reached: BTreeSet<&'static str> = BTreeSet::new();
        reached.insert(self.fact(START).url);
        for v in VARIANTS {
            reached.insert(self.fact(v).url);
        }
        for f in &self.facts.urls {
            if f.nav {
                reached.insert(f.url);
            }
        }
        // Every sitemap of the answers is read: the main site's through robots.txt, the
        // blog's through --sitemap.
        for s in &self.facts.sitemaps {
            if s.format != SitemapFormat::Index {
                reached.extend(s.entries.iter().copied());
            }
        }
        loop {
            let before = reached.len();
            for f in &self.facts.urls {
                if !reached.contains(f.url) {
                    let linked = f.links_in.iter().chain(f.declared_by).any(|src| {
                        reached.contains(src)
                            && self.facts.get(src).is_some_and(|s| !s.robots_blocked)
                    });
                    if linked {
                        reached.insert(f.url);
                    }
                    continue;
                }
                if f.robots_blocked {
                    continue;
                }
                // A journal post's comments section (after `<main>`, outside the links
                // the answers list) links its reply-to-comment pages.
                if f.scenario == answers::Scenario::ReplyToComment && f.duplicate_of.is_none() {
                    reached.extend(
                        self.facts
                            .urls
                            .iter()
                            .filter(|r| r.duplicate_of == Some(f.url))
                            .map(|r| r.url),
                    );
                }
                reached.extend(f.location);
                reached.extend(f.meta_refresh);
                if f.status == 200 {
                    reached.extend(f.canonical_links());
                    reached.extend(f.canonical_header);
                    reached.extend(f.canonical_in_body);
                    reached.extend(f.hreflang.iter().map(|(_, u)| *u));
                }
            }
            if reached.len() == before {
                return reached;
            }
        }
    }
}

#[test]
fn the_summary_matches_the_database_and_audits_lists_it() {
    let c = crawled();
    let s = &c.snap.summary;
    assert_eq!(c.snap.audit.status, AuditStatus::Finished);
    assert_eq!(s.states.queued + s.states.fetching, 0, "{s:?}");
    let lines: Vec<&str> = c.stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!("Audit {} finished in ", c.snap.audit.id)),
        "{}",
        c.stdout
    );
    let st = &s.states;
    let expected = format!(
        "  URLs          {} recorded: {} done, {} blocked by robots.txt, {} skipped, {} failed, 0 queued",
        s.audit.urls_found, st.done, st.blocked, st.skipped, st.failed
    );
    assert_eq!(lines[1], expected);
    assert_eq!(
        s.audit.urls_found,
        c.snap.urls.len() as u64,
        "urls_found counts every stored URL"
    );
    assert_eq!(st.blocked, c.facts.blocked().len() as u64);
    assert!(
        c.stdout
            .contains(&format!("  Sitemaps      {} read, ", c.snap.sitemaps.len())),
        "{}",
        c.stdout
    );
    assert!(
        c.stdout.contains(&format!(
            "  Redirects     {} hops, 1 chain with a loop or too many hops",
            c.snap.redirects.len()
        )),
        "{}",
        c.stdout
    );

    // `dustpan audits`: a header and one row for the audit.
    let rows: Vec<&str> = c.audits_stdout.lines().collect();
    assert_eq!(rows.len(), 2, "{}", c.audits_stdout);
    assert!(rows[0].contains("status") && rows[0].contains("start URL"));
    let fields: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(fields[0], c.snap.audit.id.to_string());
    assert_eq!(fields[3], "done", "{}", rows[1]);
    assert_eq!(fields[4], s.audit.urls_found.to_string());
    assert_eq!(fields[5], s.audit.pages_fetched.to_string());
    // The stored start URL, with what else decides where requests go.
    let start = fields.iter().position(|f| *f == START);
    assert_eq!(start, Some(9), "{}", rows[1]);
    assert!(rows[1].contains("[resolve: "), "{}", rows[1]);
}

/// Pages fetched is one number: the store's count, the end-of-crawl summary, `dustpan
/// audits` and the overview the desktop app shows all say the same.
#[test]
fn pages_fetched_is_one_count_everywhere() {
    let c = crawled();
    let pages = c.snap.audit.pages_fetched;
    // What it counts: the URLs whose request got an HTTP response.
    let answered = c.snap.fetches.values().filter(|f| f.answered()).count() as u64;
    assert_eq!(pages, answered);
    assert!(pages > 100, "{pages}");
    let line = format!("  Pages         {pages} fetched (answered with an HTTP status)");
    assert!(
        c.stdout.lines().any(|l| l == line),
        "no {line:?} in\n{}",
        c.stdout
    );
    let row: Vec<&str> = c
        .audits_stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(row[5], pages.to_string(), "dustpan audits");
    assert_eq!(
        c.overview["pages"],
        serde_json::json!(pages),
        "the overview"
    );
}

#[test]
fn every_reachable_answer_is_fetched_once_with_its_status() {
    let c = crawled();
    let reached = c.reachable();
    // The answers that no crawl from the start URL can reach: samples of the generic
    // www / http rules, pages of the After variant, a page past the last one.
    let unreached: BTreeSet<&str> = c
        .facts
        .urls
        .iter()
        .map(|f| f.url)
        .filter(|u| !reached.contains(u))
        .collect();
    assert_eq!(
        unreached,
        BTreeSet::from([
            "http://blog.example.test/",
            "http://example.test/shoes",
            "https://example.test/new-arrivals",
            "https://example.test/news/autumn-sale",
            "https://example.test/products?page=9",
            "https://example.test/returns-policy",
            "https://www.example.test/shoes",
        ]),
    );
    let mut checked = 0;
    for url in &reached {
        let f = c.fact(url);
        if f.robots_blocked {
            continue;
        }
        let row = c.snap.url(url);
        assert_eq!(row.state, UrlState::Done, "{url}: {row:?}");
        assert_eq!(c.requests_for(url), 1, "{url} requested once");
        let fetch = c.snap.fetch(url);
        assert_eq!(fetch.status, Some(f.status), "{url}: status");
        assert_eq!(fetch.error_kind, None, "{url}: {fetch:?}");
        if f.status == 200 {
            assert_eq!(fetch.title.as_deref(), f.title, "{url}: title");
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} URLs checked");

    // Nothing at all (robots.txt aside) was requested twice.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for r in &c.requests {
        assert_eq!(r.method, "GET", "{r:?}");
        if r.target != "/robots.txt" {
            *counts.entry(r.url()).or_default() += 1;
        }
    }
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
    // Every stored fetch is one logged request (sitemaps and robots.txt are not URL rows).
    let fetched_urls: BTreeSet<&str> = c
        .snap
        .urls
        .iter()
        .filter(|u| c.snap.fetches.contains_key(&u.id))
        .map(|u| u.url.as_str())
        .collect();
    for url in &fetched_urls {
        assert_eq!(
            counts.get(&as_logged(url)),
            Some(&1),
            "{url} fetched but not requested once"
        );
    }
}

/// A URL as the fixture logs its request: the Host header without its port (the
/// server's IP address as host is requested on the fixture's port).
fn as_logged(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.split(':').next().unwrap_or(host);
    format!("{scheme}://{host}/{path}")
}

#[test]
fn start_url_host_and_scheme_variants_are_requested() {
    let c = crawled();
    let start = c.snap.url(START);
    assert_eq!((start.found_via, start.depth), (FoundVia::Start, 0));
    for v in VARIANTS {
        let row = c.snap.url(v);
        assert_eq!((row.found_via, row.depth), (FoundVia::Variant, 0), "{v}");
        assert_eq!(c.requests_for(v), 1, "{v}");
        let f = c.fact(v);
        assert_eq!(c.snap.fetch(v).status, Some(f.status), "{v}");
    }
    // http + www: one 301 hop straight to the preferred URL.
    let hop = &c.snap.redirects[&c.snap.url("http://www.example.test/").id];
    assert_eq!((hop.status, hop.kind), (301, HopKind::Http));
    assert_eq!(hop.to.map(|id| c.snap.url_of(id)), Some(START));
    // Each origin's robots.txt was read and stored (the blog's http origin for the
    // URL-variant probe of a blog post over http).
    // The server's IP address as host too (probed by default), on the fixture's port.
    let origins: BTreeSet<&str> = c
        .snap
        .robots
        .iter()
        .map(|r| r.origin.as_str())
        .filter(|o| !o.starts_with("https://127.0.0.1:"))
        .collect();
    assert!(
        c.snap
            .robots
            .iter()
            .any(|r| r.origin.starts_with("https://127.0.0.1:")),
        "the IP host's robots.txt"
    );
    assert_eq!(
        origins,
        BTreeSet::from([
            "http://blog.example.test",
            "http://example.test",
            "http://www.example.test",
            "https://blog.example.test",
            "https://example.test",
            "https://www.example.test",
        ])
    );
}

#[test]
fn redirects_are_recorded_hop_by_hop() {
    let c = crawled();
    let reached = c.reachable();
    for f in c.facts.urls.iter().filter(|f| reached.contains(f.url)) {
        let id = c.snap.url(f.url).id;
        match f.location {
            Some(to) => {
                let hop = c
                    .snap
                    .redirects
                    .get(&id)
                    .unwrap_or_else(|| panic!("{}: no redirect stored", f.url));
                assert_eq!(hop.status, f.status, "{}", f.url);
                assert_eq!(hop.kind, HopKind::Http, "{}", f.url);
                assert_eq!(hop.to.map(|t| c.snap.url_of(t)), Some(to), "{}", f.url);
                assert_eq!(c.snap.fetches[&id].redirect_to, hop.to, "{}", f.url);
            }
            None if f.meta_refresh.is_none() => {
                assert!(
                    !c.snap.redirects.contains_key(&id),
                    "{}: unexpected hop {:?}",
                    f.url,
                    c.snap.redirects.get(&id)
                );
            }
            None => {}
        }
    }
    // The chain of three hops: each hop its own request, the relative Location kept raw.
    let hop = |url: &str| &c.snap.redirects[&c.snap.url(url).id];
    let chain = [
        "https://example.test/chain/start",
        "https://example.test/chain/step-2",
        "https://example.test/chain/step-3",
        "https://example.test/chain/end",
    ];
    for (i, pair) in chain.windows(2).enumerate() {
        let h = hop(pair[0]);
        assert_eq!(h.hop_index as usize, i, "{}", pair[0]);
        assert_eq!(h.to.map(|t| c.snap.url_of(t)), Some(pair[1]));
        let row = c.snap.url(pair[1]);
        assert_eq!(row.redirect_depth as usize, i + 1, "{}", pair[1]);
        assert_eq!(row.found_via, FoundVia::Redirect, "{}", pair[1]);
    }
    assert_eq!(hop(chain[1]).location_raw, "/chain/step-3");
    assert_eq!(c.snap.fetch(chain[3]).status, Some(200));

    // The meta refresh is a hop of its own kind.
    let refresh = hop("https://example.test/refresh/old");
    assert_eq!((refresh.kind, refresh.status), (HopKind::MetaRefresh, 200));
    assert_eq!(
        refresh.to.map(|t| c.snap.url_of(t)),
        Some("https://example.test/about")
    );

    // The loop is the only chain problem: a 3-hop chain is within --max-redirects.
    let a = c.snap.url("https://example.test/loop/a").id;
    assert_eq!(
        c.snap.chains,
        vec![store::ChainRecord {
            start: a,
            last: None,
            hops: 2,
            problem: ChainProblem::Loop,
        }]
    );
    assert_eq!(c.requests_for("https://example.test/loop/a"), 1);
    assert_eq!(c.requests_for("https://example.test/loop/b"), 1);
}

#[test]
fn canonicals_come_from_head_header_and_body() {
    let c = crawled();
    let reached = c.reachable();
    let mut pages = 0;
    for f in c.facts.urls.iter().filter(|f| reached.contains(f.url)) {
        if f.status != 200 || f.robots_blocked || f.title.is_none() {
            continue;
        }
        pages += 1;
        let id = c.snap.url(f.url).id;
        let got: Vec<(DeclarationSource, bool, &str)> = c
            .snap
            .canonicals
            .get(&id)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let target = r
                    .target
                    .map(|t| c.snap.url_of(t))
                    .unwrap_or_else(|| panic!("{}: unresolved canonical {r:?}", f.url));
                (r.source, r.in_head, target)
            })
            .collect();
        // Header first, then link elements in document order (head, then body).
        let mut want: Vec<(DeclarationSource, bool, &str)> = Vec::new();
        want.extend(
            f.canonical_header
                .map(|u| (DeclarationSource::HttpHeader, true, u)),
        );
        want.extend(
            f.canonical_links()
                .into_iter()
                .map(|u| (DeclarationSource::LinkElement, true, u)),
        );
        want.extend(
            f.canonical_in_body
                .map(|u| (DeclarationSource::LinkElement, false, u)),
        );
        assert_eq!(got, want, "{}: canonicals", f.url);
    }
    assert!(pages > 80, "{pages} pages checked");

    let raw = |url: &str| -> Vec<String> {
        c.snap.canonicals[&c.snap.url(url).id]
            .iter()
            .map(|r| r.href_raw.clone())
            .collect()
    };
    assert_eq!(raw("https://example.test/canonical/relative"), ["relative"]);
    assert_eq!(raw("https://example.test/canonical/two-elements").len(), 2);
    // Canonical-only URLs are crawled: the chain's middle and the missing target.
    for (url, status) in [
        ("https://example.test/canonical/chain-b", 200),
        ("https://example.test/canonical/missing-target", 404),
    ] {
        let row = c.snap.url(url);
        assert_eq!(row.found_via, FoundVia::Canonical, "{url}");
        assert_eq!(c.snap.fetch(url).status, Some(status), "{url}");
    }
}

#[test]
fn robots_blocked_urls_are_recorded_and_never_requested() {
    let c = crawled();
    let blocked = c.facts.blocked();
    assert_eq!(blocked.len(), 3);
    for f in blocked {
        let row = c.snap.url(f.url);
        assert_eq!(row.state, UrlState::Blocked, "{}", f.url);
        assert_eq!(row.reason, Some(ReasonKind::RobotsTxt.into()), "{}", f.url);
        assert!(!c.snap.fetches.contains_key(&row.id), "{}", f.url);
        assert_eq!(c.requests_for(f.url), 0, "{} was requested", f.url);
    }
    for r in &c.requests {
        for prefix in answers::ROBOTS_DISALLOW {
            assert!(
                !(r.host == answers::HOST && r.target.starts_with(prefix)),
                "requested a disallowed URL: {r:?}"
            );
        }
    }
    let main = c
        .snap
        .robots
        .iter()
        .find(|r| r.origin == "https://example.test")
        .unwrap();
    assert_eq!(main.status, Some(200));
    assert_eq!(main.verdict, store::RobotsVerdict::Rules);
    assert_eq!(
        main.sitemaps,
        [
            "https://example.test/sitemap_index.xml",
            "https://example.test/sitemap.txt"
        ]
    );
}

#[test]
fn sitemaps_index_gzip_and_text_are_read_with_their_entries() {
    let c = crawled();
    assert_eq!(c.snap.sitemaps.len(), c.facts.sitemaps.len());
    for s in &c.facts.sitemaps {
        let (row, entries) = c.snap.sitemap(s.url);
        assert_eq!(row.status, Some(200), "{}", s.url);
        assert_eq!(row.error, None, "{}", s.url);
        assert_eq!(c.requests_for(s.url), 1, "{}", s.url);
        let (kind, gzip) = match s.format {
            SitemapFormat::Index => ("sitemapindex", false),
            SitemapFormat::UrlSet => ("urlset", false),
            SitemapFormat::UrlSetGzip => ("urlset", true),
            SitemapFormat::Text => ("text", false),
        };
        assert_eq!((row.kind.as_str(), row.gzip), (kind, gzip), "{}", s.url);
        if s.format == SitemapFormat::Index {
            continue;
        }
        let locs: Vec<&str> = entries.iter().map(|e| e.loc_raw.as_str()).collect();
        assert_eq!(locs, s.entries, "{}: entries", s.url);
        assert_eq!(row.entries, s.entries.len() as u64, "{}", s.url);
        let targets: Vec<&str> = entries
            .iter()
            .map(|e| c.snap.url_of(e.url_id.expect("every entry resolves")))
            .collect();
        assert_eq!(targets, s.entries, "{}: entry URLs", s.url);
    }
    let (index, _) = c.snap.sitemap("https://example.test/sitemap_index.xml");
    let (gz, _) = c
        .snap
        .sitemap("https://example.test/sitemap-products.xml.gz");
    assert_eq!(gz.parent_id, Some(index.id));
    assert_eq!(gz.found_via, "index");
    // /sitemap.xml was queued as the default seed before the index listing it was read:
    // it keeps how it was found and gets the index as its parent.
    let (default, _) = c.snap.sitemap("https://example.test/sitemap.xml");
    assert_eq!(default.found_via, "default");
    assert_eq!(default.parent_id, Some(index.id));
    assert_eq!(
        c.snap
            .sitemap("https://example.test/sitemap.txt")
            .0
            .found_via,
        "robots"
    );
    assert_eq!(c.snap.sitemap(BLOG_SITEMAP).0.found_via, "user");
    // The one cross-host entry is flagged by the parser.
    let (xml, _) = c.snap.sitemap("https://example.test/sitemap.xml");
    assert!(
        xml.issues_json.contains("cross_host")
            && xml
                .issues_json
                .contains("https://blog.example.test/post/syndicated"),
        "{}",
        xml.issues_json
    );
}

#[test]
fn the_orphan_is_fetched_through_the_sitemap_only() {
    let c = crawled();
    let url = "https://example.test/landing/spring-sale";
    assert!(c.fact(url).links_in.is_empty() && !c.fact(url).nav);
    let row = c.snap.url(url);
    assert_eq!(
        (row.found_via, row.state),
        (FoundVia::Sitemap, UrlState::Done)
    );
    assert_eq!(c.snap.fetch(url).status, Some(200));
    let inbound: Vec<&str> = c
        .snap
        .links
        .iter()
        .filter(|(_, links)| links.iter().any(|l| l.to == Some(row.id)))
        .map(|(from, _)| c.snap.url_of(*from))
        .collect();
    assert!(inbound.is_empty(), "linked from {inbound:?}");
    let listed = c.facts.in_sitemaps(url);
    assert_eq!(listed, ["https://example.test/sitemap.xml"]);
}

#[test]
fn internal_links_of_the_answers_are_stored() {
    let c = crawled();
    let reached = c.reachable();
    let mut n = 0;
    for f in c.facts.urls.iter().filter(|f| reached.contains(f.url)) {
        let target = c.snap.url(f.url).id;
        for src in f.links_in {
            if !reached.contains(src) {
                continue;
            }
            let links = c
                .snap
                .links
                .get(&c.snap.url(src).id)
                .unwrap_or_else(|| panic!("{src} has no links"));
            assert!(
                links.iter().any(|l| l.to == Some(target)),
                "{src} does not link {}",
                f.url
            );
            n += 1;
        }
        if f.nav {
            let home = &c.snap.links[&c.snap.url(START).id];
            assert!(
                home.iter().any(|l| l.to == Some(target)),
                "the home page's navigation does not link {}",
                f.url
            );
        }
    }
    assert!(n > 60, "{n} links checked");
}

#[test]
fn non_utf8_pages_are_decoded() {
    let c = crawled();
    for (url, title, charset) in [
        (
            "https://example.test/intl/ru",
            "Зимняя обувь | Example Outfitters",
            "windows-1251",
        ),
        (
            "https://example.test/intl/ja",
            "冬の靴 | Example Outfitters",
            "Shift_JIS",
        ),
    ] {
        assert_eq!(c.fact(url).title, Some(title));
        let fetch = c.snap.fetch(url);
        assert_eq!(fetch.title.as_deref(), Some(title), "{url}");
        let got = fetch.charset.as_deref().unwrap_or("");
        assert!(got.eq_ignore_ascii_case(charset), "{url}: charset {got}");
    }
    assert!(
        c.snap
            .fetch(START)
            .charset
            .as_deref()
            .is_some_and(|cs| cs.eq_ignore_ascii_case("utf-8"))
    );
}

#[test]
fn noindex_by_meta_and_by_header() {
    let c = crawled();
    let reached = c.reachable();
    for f in c.facts.urls.iter().filter(|f| reached.contains(f.url)) {
        if f.status != 200 || f.robots_blocked {
            continue;
        }
        let fetch = c.snap.fetch(f.url);
        assert_eq!(fetch.noindex, f.noindex != Noindex::No, "{}", f.url);
        assert!(!fetch.nofollow, "{}", f.url);
    }
    let meta = c.snap.fetch("https://example.test/noindex/meta");
    assert!(
        meta.meta_robots
            .as_deref()
            .is_some_and(|m| m.contains("noindex")),
        "{meta:?}"
    );
    assert_eq!(meta.x_robots_tag, None);
    let header = c.snap.fetch("https://example.test/noindex/header");
    assert_eq!(header.x_robots_tag.as_deref(), Some("noindex"));
    assert!(
        header
            .meta_robots
            .as_deref()
            .is_none_or(|m| !m.contains("noindex")),
        "{header:?}"
    );
}

#[test]
fn crawler_traps_are_bounded_and_recorded() {
    let c = crawled();
    // The calendar: every month links the next and the previous. Month numbers with and
    // without a minus sign are one numeric pattern, admitted --trap-budget times.
    let calendar: Vec<&store::UrlRow> = c
        .snap
        .urls
        .iter()
        .filter(|u| u.url.starts_with("https://example.test/calendar?month="))
        .collect();
    let admitted: Vec<&&store::UrlRow> = calendar
        .iter()
        .filter(|u| u.state != UrlState::Skipped)
        .collect();
    assert_eq!(admitted.len(), TRAP_BUDGET, "calendar URLs fetched");
    assert!(admitted.iter().all(|u| u.state == UrlState::Done));
    let trap_reasons: std::collections::HashSet<Option<&UrlReason>> = calendar
        .iter()
        .filter(|u| u.state == UrlState::Skipped)
        .map(|u| u.reason.as_ref())
        .collect();
    let trap = UrlReason::with_detail(
        ReasonKind::TrapPattern,
        format!("over {TRAP_BUDGET} URLs like /calendar?month=#"),
    );
    assert_eq!(trap_reasons, std::collections::HashSet::from([Some(&trap)]));
    let calendar_requests = c
        .requests
        .iter()
        .filter(|r| r.target.starts_with("/calendar"))
        .count();
    assert_eq!(calendar_requests, TRAP_BUDGET);

    // The relative `a/` trap: /trap/a/a/ is the last level, a/a/a/ is recorded as a trap.
    for url in [
        "https://example.test/trap/",
        "https://example.test/trap/a/",
        "https://example.test/trap/a/a/",
    ] {
        assert_eq!(c.snap.url(url).state, UrlState::Done, "{url}");
    }
    let deep = c.snap.url("https://example.test/trap/a/a/a/");
    assert_eq!(deep.state, UrlState::Skipped);
    assert_eq!(
        deep.reason,
        Some(UrlReason::with_detail(
            ReasonKind::TrapRepeatedSegment,
            "path repeats segment \"a\""
        ))
    );
    assert_eq!(
        c.requests
            .iter()
            .filter(|r| r.target.starts_with("/trap/"))
            .count(),
        3
    );
    // One month past each end of the fetched range is recorded as the trap.
    let skipped = &c.snap.summary.skipped_by_reason;
    assert!(
        skipped
            .iter()
            .any(|&(kind, n)| kind == ReasonKind::TrapPattern && n == 2),
        "{skipped:?}"
    );
}

#[test]
fn the_huge_page_is_truncated_at_the_cap_and_the_slow_page_waited_for() {
    let c = crawled();
    let huge = c.snap.fetch("https://example.test/huge");
    assert_eq!(huge.status, Some(200));
    assert!(huge.truncated, "{huge:?}");
    assert_eq!(huge.body_bytes, MAX_BODY);
    assert!(
        huge.content_length
            .is_some_and(|n| n >= FixtureConfig::default().huge_page_bytes as u64),
        "{huge:?}"
    );
    assert_eq!(
        huge.title.as_deref(),
        Some("Complete catalogue | Example Outfitters")
    );
    // Every other page fits.
    let truncated: Vec<&str> = c
        .snap
        .urls
        .iter()
        .filter(|u| c.snap.fetches.get(&u.id).is_some_and(|f| f.truncated))
        .map(|u| u.url.as_str())
        .collect();
    assert_eq!(truncated, ["https://example.test/huge"]);

    let slow = c.snap.fetch("https://example.test/slow");
    assert_eq!(slow.status, Some(200));
    let waited = slow.ttfb_ms.unwrap_or(0);
    assert!(waited >= SLOW.as_millis() as u64 - 20, "ttfb {waited} ms");
}

#[test]
fn blog_on_a_subdomain_is_crawled() {
    let c = crawled();
    for url in [
        "https://blog.example.test/",
        "https://blog.example.test/post/hello-world",
        "https://blog.example.test/post/syndicated",
    ] {
        let f = c.fact(url);
        assert_eq!(c.snap.fetch(url).title.as_deref(), f.title, "{url}");
    }
    // The cross-host canonical points at the blog post's row.
    let cross = &c.snap.canonicals[&c.snap.url("https://example.test/canonical/cross-host").id];
    assert_eq!(
        cross[0].target.map(|t| c.snap.url_of(t)),
        Some("https://blog.example.test/post/syndicated")
    );
}

/// The `Sitemap:` lines of a robots.txt fetched during the crawl are read too: the blog's
/// robots.txt (an in-scope subdomain, fetched when its first page is) names
/// `https://blog.example.test/sitemap.xml`.
#[test]
fn blog_sitemap_named_in_its_robots_txt_is_read() {
    let site = Site::start(FixtureConfig {
        hostile: false,
        slow_delay: Duration::from_millis(10),
        ..FixtureConfig::default()
    });
    let out = run(&site.audit_args(START, &["-q", "--include-subdomains"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let store = site.store();
    let snap = site
        .rt
        .block_on(Snapshot::load(&store, audit_id(&out.stdout)));
    let blog_robots = snap
        .robots
        .iter()
        .find(|r| r.origin == "https://blog.example.test")
        .expect("the blog's robots.txt is stored");
    assert_eq!(blog_robots.sitemaps, [BLOG_SITEMAP]);
    let (row, entries) = snap.sitemap(BLOG_SITEMAP);
    assert_eq!(
        (row.found_via.as_str(), row.status, row.error.as_deref()),
        ("robots", Some(200), None)
    );
    assert!(!entries.is_empty());
    assert!(entries.iter().all(|e| e.url_id.is_some()), "{entries:?}");
}

#[test]
fn demo_audits_the_built_in_site_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    let db_arg = path(&db);
    let out = dustpan(&["demo", "--db", &db_arg, "-q", "--slow-ms", "100"], "");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("Fixture site on 127.0.0.1:"),
        "{}",
        out.stderr
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("Audit 1 finished in "),
        "{}",
        out.stdout
    );
    for (i, label) in [
        "URLs",
        "Pages",
        "Status codes",
        "Redirects",
        "Canonicals",
        "Sitemaps",
        "Links",
        "Errors",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            lines[i + 1].starts_with(&format!("  {label} ")),
            "line {}: {}",
            i + 1,
            lines[i + 1]
        );
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = rt.block_on(store::Store::open(&db)).unwrap();
    let snap = rt.block_on(Snapshot::load(&store, store::AuditId(1)));
    assert_eq!(snap.audit.status, AuditStatus::Finished);
    assert_eq!(snap.audit.start_urls, [START]);
    let s = &snap.summary;
    assert_eq!(
        lines[1],
        format!(
            "  URLs          {} recorded: {} done, {} blocked by robots.txt, {} skipped, {} failed, 0 queued",
            s.audit.urls_found, s.states.done, s.states.blocked, s.states.skipped, s.states.failed
        )
    );
    assert_eq!(s.states.failed, 0);
    assert_eq!(s.errors, 0, "{:?}", snap.errors);
    let facts = answers::site(SiteVariant::Before);
    assert_eq!(s.states.blocked, facts.blocked().len() as u64);
    // With the default limits the calendar is bounded by --max-depth (100): about 200
    // months, the next ones recorded as skipped.
    let calendar = snap
        .urls
        .iter()
        .filter(|u| u.url.contains("/calendar?month="))
        .count();
    assert!((150..=205).contains(&calendar), "{calendar} calendar URLs");
    assert!(
        s.skipped_by_reason
            .iter()
            .any(|(r, _)| *r == ReasonKind::MaxDepth),
        "{:?}",
        s.skipped_by_reason
    );
    // The scenario pages are there with their answers' status and title.
    for f in &facts.urls {
        if f.status == 200 && !f.robots_blocked && f.nav {
            let fetch = snap.fetch(f.url);
            assert_eq!(fetch.status, Some(200), "{}", f.url);
            assert_eq!(fetch.title.as_deref(), f.title, "{}", f.url);
        }
    }
    let huge = snap.fetch("https://example.test/huge");
    assert!(!huge.truncated && huge.body_bytes >= 3_000_000, "{huge:?}");
}
