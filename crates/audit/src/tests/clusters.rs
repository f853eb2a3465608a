//! Clusters: the preferred-URL rule, the signal table, evidence chains, merge limits.

use super::{B, check};
use crate::*;

const S: &str = "https://example.com";

fn u(path: &str) -> String {
    format!("{S}{path}")
}

/// The preferred URL of the cluster holding `url`.
fn preferred(b: &B, url: &str) -> String {
    let a = b.analyse();
    let id = b.input.urls.iter().find(|r| r.url == url).unwrap().id;
    a.cluster_of(id).unwrap().preferred_url.clone()
}

#[test]
fn preferred_answers_200() {
    let mut b = B::new();
    // The same URL in two spellings (safe rules only): the one that answers 200 wins
    // over the shorter, sorted-first one that answered 404.
    b.page(&u("/zz-long"), 1)
        .status("HTTPS://EXAMPLE.COM/zz-long", 404);
    assert_eq!(preferred(&b, "HTTPS://EXAMPLE.COM/zz-long"), u("/zz-long"));
}

#[test]
fn a_canonical_to_an_error_page_joins_no_cluster() {
    let mut b = B::new();
    b.page(&u("/zz-long"), 1)
        .canonical(&u("/zz-long"), &u("/a"))
        .status(&u("/a"), 404);
    let a = b.analyse();
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    check(
        &a,
        "CANON-TO-ERROR https://example.com/zz-long https://example.com/a",
    );
}

#[test]
fn preferred_is_indexable() {
    let mut b = B::new();
    b.page(&u("/zz"), 1).page(&u("/a"), 1).noindex(&u("/a"));
    assert_eq!(preferred(&b, &u("/a")), u("/zz"));
}

#[test]
fn a_canonical_to_a_page_not_fetched_joins_no_cluster() {
    // The content of a robots-blocked target cannot agree with the page's: the
    // declaration alone merges nothing (CANON-TO-BLOCKED reports it).
    let mut b = B::new();
    b.page(&u("/zz"), 1).page(&u("/a"), 1).blocked(&u("/a"));
    b.input.fetches.retain(|f| f.url_id != 2);
    b.canonical(&u("/zz"), &u("/a"));
    let a = b.analyse();
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
}

#[test]
fn preferred_is_self_canonical_then_without_canonical() {
    let mut b = B::new();
    b.page(&u("/zzzz"), 1)
        .canonical(&u("/zzzz"), &u("/zzzz"))
        .page(&u("/a"), 1);
    assert_eq!(preferred(&b, &u("/a")), u("/zzzz"));
    // A page whose canonical names another URL ranks below one without a canonical.
    let mut b = B::new();
    b.page(&u("/zzzz"), 1)
        .page(&u("/a"), 1)
        .canonical(&u("/a"), &u("/elsewhere"));
    assert_eq!(preferred(&b, &u("/a")), u("/zzzz"));
}

#[test]
fn preferred_scheme_and_host_follow_the_site_redirects() {
    // The site redirects https to http: http is preferred although https is the default.
    let mut b = B::new();
    b.redirect(&u("/x"), "http://example.com/x", 301)
        .page("http://example.com/x", 2);
    b.page("http://example.com/p", 1).page(&u("/p"), 1);
    assert_eq!(preferred(&b, &u("/p")), "http://example.com/p");
    // The site redirects example.com to www: www is preferred although its key is the same.
    let mut b = B::new();
    b.redirect(&u("/x"), "https://www.example.com/x", 301)
        .page("https://www.example.com/x", 2);
    b.page(&u("/p"), 1).page("https://www.example.com/p", 1);
    assert_eq!(preferred(&b, &u("/p")), "https://www.example.com/p");
    let a = b.analyse();
    assert_eq!(a.site.demoted_hosts, ["example.com"]);
    assert_eq!(a.site.preferred_scheme, None);
}

#[test]
fn preferred_sitemap_links_length_then_bytes() {
    let mut b = B::new();
    b.page(&u("/zz"), 1)
        .page(&u("/a"), 1)
        .listed(&u("/s.xml"), &u("/zz"));
    assert_eq!(preferred(&b, &u("/a")), u("/zz"));
    let mut b = B::new();
    b.page(&u("/zz"), 1)
        .page(&u("/a"), 1)
        .page(&u("/h1"), 2)
        .page(&u("/h2"), 3);
    b.link(&u("/h1"), &u("/zz"))
        .link(&u("/h2"), &u("/zz"))
        .link(&u("/h1"), &u("/a"));
    assert_eq!(preferred(&b, &u("/a")), u("/zz"));
    let mut b = B::new();
    b.page(&u("/a-b-c"), 1).page(&u("/ab"), 1);
    assert_eq!(preferred(&b, &u("/ab")), u("/ab"));
    let mut b = B::new();
    b.page(&u("/b"), 1).page(&u("/a"), 1);
    assert_eq!(preferred(&b, &u("/b")), u("/a"));
}

#[test]
fn signal_table() {
    let mut b = B::new();
    b.page(&u("/p"), 1)
        .canonical(&u("/p"), &u("/p"))
        .listed(&u("/s.xml"), &u("/p"));
    b.page(&u("/p?ref=x"), 1)
        .canonical(&u("/p?ref=x"), &u("/p"));
    b.redirect("http://example.com/p", &u("/p"), 301);
    b.page(&u("/de/p"), 2)
        .page(&u("/home"), 3)
        .start(&u("/home"));
    b.link(&u("/home"), &u("/p"))
        .link(&u("/de/p"), &u("/p"))
        .link(&u("/home"), &u("/de/p"));
    let (de, p) = (b.id(&u("/de/p")), b.id(&u("/p")));
    b.input.hreflang.push(HreflangRow {
        page: de,
        lang: "en".into(),
        target: Some(p),
        source: DeclarationSource::LinkElement,
    });
    // The rest of a valid set: self-references and the return link.
    b.hreflang(&u("/de/p"), "de", &u("/de/p"))
        .hreflang(&u("/p"), "en", &u("/p"))
        .hreflang(&u("/p"), "de", &u("/de/p"));
    b.listed(&u("/s.xml"), &u("/home"))
        .listed(&u("/s.xml"), &u("/de/p"));
    let a = b.analyse();
    check(&a, "");
    let c = a.cluster_of(p).unwrap();
    let table: Vec<(SignalKind, UrlId, u32, u32, bool)> = c
        .signals
        .iter()
        .map(|s| (s.kind, s.votes_for, s.votes, s.total, s.agrees))
        .collect();
    assert_eq!(
        table,
        [
            (SignalKind::Redirect, p, 1, 1, true),
            (SignalKind::CanonicalElement, p, 2, 2, true),
            (SignalKind::Sitemap, p, 1, 1, true),
            (SignalKind::Hreflang, p, 1, 1, true),
            (SignalKind::InternalLinks, p, 2, 2, true),
        ]
    );
}

#[test]
fn every_member_explains_why_it_is_in() {
    let mut b = B::new();
    b.redirect(&u("/old"), &u("/new"), 301)
        .page(&u("/new"), 5)
        .page(&u("/copy"), 5);
    b.page("https://www.example.com/new?utm_source=a", 5);
    let a = b.analyse();
    let c = &a.clusters[0];
    assert_eq!(c.preferred_url, u("/new"));
    let by_url = |url: &str| c.members.iter().find(|m| m.url == url).unwrap();
    assert_eq!(by_url(&u("/new")).role, Role::Preferred);
    assert!(by_url(&u("/new")).evidence.is_empty());
    let old = by_url(&u("/old"));
    assert_eq!((old.role, old.action), (Role::Redirects, Action::None));
    assert_eq!(
        old.evidence[0].kind,
        EvidenceKind::Redirect {
            status: 301,
            via: HopKind::Http,
            hops: 1
        }
    );
    assert_eq!(
        by_url(&u("/copy")).evidence[0].kind,
        EvidenceKind::IdenticalContent { of: Sameness::Text }
    );
    let www = by_url("https://www.example.com/new?utm_source=a");
    assert_eq!(www.rules, [canon::Rule::Www, canon::Rule::TrackingParams]);
    assert_eq!(
        www.evidence[0].kind,
        EvidenceKind::SameKey {
            rules: vec![canon::Rule::Www, canon::Rule::TrackingParams],
            confirmed_by: Confirmation::IdenticalContent { of: Sameness::Text }
        }
    );
    assert_eq!(www.action, Action::Redirect301);
}

#[test]
fn what_if_another_policy_changes_the_explanation_not_the_crawl() {
    let mut b = B::new();
    b.page("https://www.example.com/a", 5).page(&u("/a"), 5);
    let seo = b.analyse();
    let safe = b.analyse_with(canon::Policy::rfc3986());
    let kind = |a: &Analysis| a.clusters[0].members[1].evidence[0].kind.clone();
    assert!(matches!(kind(&seo), EvidenceKind::SameKey { .. }));
    assert_eq!(
        kind(&safe),
        EvidenceKind::IdenticalContent { of: Sameness::Text }
    );
    assert_eq!(seo.learned.policy, canon::Policy::seo());
}

#[test]
fn near_duplicates_neither_merge_nor_chain_and_thin_pages_never_merge() {
    let mut b = B::new();
    let s = 0x1234_5678_9ABC_DEF0u64;
    b.page_sim(&u("/n1"), 1, s)
        .page_sim(&u("/n2"), 2, s ^ 1)
        .page_sim(&u("/n3"), 3, s ^ 1 ^ 0b1110);
    // Two thin pages with the same (empty-ish) text: no cluster.
    b.page(&u("/empty1"), 9).page(&u("/empty2"), 9);
    for p in ["/empty1", "/empty2"] {
        let id = b.id(&u(p));
        b.input
            .fetches
            .iter_mut()
            .find(|f| f.url_id == id)
            .unwrap()
            .word_count = Some(3);
    }
    // Soft 404s: identical text, titled like an error page.
    for p in ["/missing-1", "/missing-2"] {
        b.page(&u(p), 8);
        let id = b.id(&u(p));
        b.input
            .fetches
            .iter_mut()
            .find(|f| f.url_id == id)
            .unwrap()
            .title = Some("Page Not Found | Shop".into());
    }
    let a = b.analyse();
    // n1~n2 and n2~n3 are near, n1 and n3 are not: two review pairs, no cluster, and no
    // pair through a third page.
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    assert_eq!(a.stats.merges.near_content, 2);
    check(
        &a,
        "DUP-NEAR https://example.com/n1 https://example.com/n2
         DUP-NEAR https://example.com/n2 https://example.com/n3",
    );
}

#[test]
fn a_large_key_group_merges_without_comparing_all_pairs() {
    let mut b = B::new();
    b.page(&u("/p"), 1);
    for k in 0..300 {
        b.page(&u(&format!("/p?utm_source=s{k}")), 1);
    }
    let a = b.analyse();
    assert_eq!(a.clusters.len(), 1);
    assert_eq!(a.clusters[0].members.len(), 301);
    assert_eq!(a.clusters[0].preferred_url, u("/p"));
    // One parameter, one finding: the pattern with its 300 URLs and one fix.
    assert_eq!(a.findings.len(), 1);
    let f = &a.findings[0];
    assert_eq!(f.key, "DUP-PARAM param example.com utm_source");
    assert!(
        f.summary.starts_with("300 URLs serve the same page"),
        "{}",
        f.summary
    );
    assert!(matches!(
        f.fixes[..],
        [Fix::ForPattern {
            urls: 300,
            canonical: true,
            ..
        }]
    ));
}
