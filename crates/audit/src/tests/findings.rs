//! One test per finding rule: a small audit, the exact findings (ids and URLs).

use super::{B, check, only, sim};
use crate::*;

const S: &str = "https://example.com";

fn u(path: &str) -> String {
    format!("{S}{path}")
}

#[test]
fn a_clean_site_gives_no_finding() {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    b.page(&u("/a"), 2).page(&u("/b"), 3);
    b.link(&u("/"), &u("/a"))
        .link(&u("/"), &u("/b"))
        .link(&u("/a"), &u("/"));
    for p in ["/", "/a", "/b"] {
        b.canonical(&u(p), &u(p)).listed(&u("/sitemap.xml"), &u(p));
    }
    b.redirect("http://example.com/", &u("/"), 301);
    b.redirect("https://www.example.com/", &u("/"), 301);
    // A tracking variant that declares the clean URL canonical is handled correctly.
    b.page(&u("/a?utm_source=news"), 2)
        .canonical(&u("/a?utm_source=news"), &u("/a"));
    // A temporary redirect that is not a canonical move (login) is fine, and does not
    // make the account page and the login page one page.
    b.redirect(&u("/account"), &u("/login"), 302)
        .page(&u("/login"), 4)
        .noindex(&u("/login"));
    let a = b.analyse();
    check(&a, "");
    assert_eq!(a.stats.clusters, 2, "{:#?}", a.clusters);
    assert!(a.cluster_of(b.id(&u("/account"))).is_none());
}

#[test]
fn dup_host_www_and_ip() {
    let mut b = B::new();
    b.page("https://www.example.com/a", 5)
        .page("https://example.com/a", 5);
    b.page("http://93.184.216.34/", 9)
        .page("http://example.org/", 9);
    let a = b.analyse();
    check(
        &a,
        "DUP-HOST https://www.example.com/a https://example.com/a
         DUP-HOST http://93.184.216.34/ http://example.org/",
    );
    let f = a
        .findings
        .iter()
        .find(|f| f.urls[0].contains("93.184"))
        .unwrap();
    assert!(f.summary.contains("IP address"), "{}", f.summary);
    assert_eq!(
        f.fixes[0],
        Fix::Redirect {
            from: "http://93.184.216.34/".into(),
            to: "http://example.org/".into(),
            status: 301
        }
    );
}

#[test]
fn dup_scheme_prefers_https_without_redirect_evidence() {
    let mut b = B::new();
    b.page("http://example.com/p", 6).page(&u("/p"), 6);
    check(
        &b.analyse(),
        "DUP-SCHEME http://example.com/p https://example.com/p",
    );
}

#[test]
fn dup_slash_index_case() {
    let mut b = B::new();
    b.page(&u("/dir"), 7).page(&u("/dir/"), 7);
    b.page(&u("/docs/"), 8).page(&u("/docs/index.html"), 8);
    b.page(&u("/About"), 9)
        .page(&u("/about"), 9)
        .page(&u("/"), 10);
    b.link(&u("/"), &u("/about")).link(&u("/about"), &u("/"));
    let a = b.analyse();
    check(
        &a,
        "DUP-SLASH https://example.com/dir/ https://example.com/dir
         DUP-INDEX https://example.com/docs/index.html https://example.com/docs/
         DUP-CASE https://example.com/About https://example.com/about",
    );
    // The index file merged by the policy's directory_index rule, confirmed by content.
    let docs = a
        .clusters
        .iter()
        .find(|c| c.preferred_url.ends_with("/docs/"))
        .unwrap();
    assert!(matches!(
        &docs.members[1].evidence[0].kind,
        EvidenceKind::SameKey { rules, confirmed_by: Confirmation::IdenticalContent { .. } }
            if rules == &[canon::Rule::DirectoryIndex]
    ));
}

#[test]
fn dup_param_tracking_and_order() {
    let mut b = B::new();
    b.page(&u("/shoes"), 10).page(&u("/shoes?utm_source=x"), 10);
    b.page(&u("/list?color=red&size=9"), 11)
        .page(&u("/list?size=9&color=red"), 11);
    let a = b.analyse();
    check(
        &a,
        "DUP-PARAM https://example.com/shoes?utm_source=x https://example.com/shoes
         DUP-PARAM https://example.com/list?size=9&color=red https://example.com/list?color=red&size=9",
    );
    let f = a
        .findings
        .iter()
        .find(|f| f.urls[0].contains("utm"))
        .unwrap();
    assert_eq!(
        f.fixes,
        [Fix::SetCanonical {
            page: u("/shoes?utm_source=x"),
            href: u("/shoes")
        }]
    );
    assert!(
        f.evidence.iter().any(|e| e.contains("has no canonical")),
        "{:?}",
        f.evidence
    );
}

#[test]
fn dup_content_and_near() {
    let mut b = B::new();
    b.page(&u("/a"), 12).page(&u("/b-copy"), 12);
    b.page_sim(&u("/p1"), 13, 0xF0F0)
        .page_sim(&u("/p2"), 14, 0xF0F0 ^ 0b101);
    // Three bits apart is near; four is not.
    b.page_sim(&u("/q1"), 15, 0xABCD_0000)
        .page_sim(&u("/q2"), 16, 0xABCD_0000 ^ 0b1111);
    let a = b.analyse();
    check(
        &a,
        "DUP-CONTENT https://example.com/b-copy https://example.com/a
         DUP-NEAR https://example.com/p1 https://example.com/p2",
    );
    let near = only(&a, FindingId::DupNear);
    // 2 of 64 SimHash bits differ (pages stored without text blocks): 96% similar.
    assert!(
        near.evidence.iter().any(|e| e.contains("96%")),
        "{:?}",
        near.evidence
    );
    // Weak evidence: a review, never a canonical or a redirect.
    assert_eq!(
        near.fixes,
        [Fix::ReviewNearDuplicate {
            pages: [u("/p1"), u("/p2")],
            similarity: 96
        }]
    );
    assert!(
        a.clusters
            .iter()
            .all(|c| c.members.len() == 2 && c.preferred_url == u("/a"))
    );
}

#[test]
fn slash_variant_with_different_content_is_not_merged_and_is_reported() {
    let mut b = B::new();
    b.page(&u("/foo"), 15).page(&u("/foo/"), 16);
    let a = b.analyse_with(canon::Policy::aggressive());
    check(
        &a,
        "RULE-DOES-NOT-HOLD https://example.com/foo https://example.com/foo/",
    );
    assert!(a.clusters.is_empty(), "{:#?}", a.clusters);
    let f = &a.findings[0];
    assert_eq!(f.key, "RULE-DOES-NOT-HOLD trailing_slash");
    assert_eq!(
        f.fixes,
        [Fix::DisableRule {
            rule: canon::Rule::TrailingSlash
        }]
    );
    // The same pair with the same content merges, by the same rule.
    let mut b = B::new();
    b.page(&u("/foo"), 15).page(&u("/foo/"), 15);
    let a = b.analyse_with(canon::Policy::aggressive());
    check(
        &a,
        "DUP-SLASH https://example.com/foo https://example.com/foo/",
    );
}

#[test]
fn cluster_conflict_redirects_against_canonical() {
    let mut b = B::new();
    b.redirect(&u("/old"), &u("/new"), 301);
    b.page(&u("/new"), 22).canonical(&u("/new"), &u("/page"));
    b.page(&u("/page"), 22).canonical(&u("/page"), &u("/page"));
    let a = b.analyse();
    check(
        &a,
        "CLUSTER-CONFLICT https://example.com/page https://example.com/new",
    );
    let f = &a.findings[0];
    assert!(f.fixes.contains(&Fix::Redirect {
        from: u("/old"),
        to: u("/page"),
        status: 301
    }));
    let c = &a.clusters[0];
    let redirect = c
        .signals
        .iter()
        .find(|s| s.kind == SignalKind::Redirect)
        .unwrap();
    // The sitemap lists a self-canonical copy while the other pages name /a.
    let mut s = B::new();
    s.page(&u("/a"), 23).canonical(&u("/a"), &u("/a"));
    s.page(&u("/a?x=1"), 23).canonical(&u("/a?x=1"), &u("/a"));
    s.page(&u("/b"), 23)
        .canonical(&u("/b"), &u("/b"))
        .listed(&u("/s.xml"), &u("/b"));
    let sa = s.analyse();
    check(
        &sa,
        "CLUSTER-CONFLICT https://example.com/b https://example.com/a
         DUP-CONTENT https://example.com/a https://example.com/b",
    );
    assert_eq!(
        (redirect.votes_for, redirect.agrees),
        (b.id(&u("/new")), false)
    );
}

#[test]
fn canon_declarations() {
    let mut b = B::new();
    b.page(&u("/m"), 30)
        .canonical(&u("/m"), &u("/m"))
        .canonical(&u("/m"), &u("/m"));
    b.page(&u("/c"), 31).page(&u("/c2"), 32);
    b.canonical(&u("/c"), &u("/c"));
    b.declare(
        &u("/c"),
        &u("/c2"),
        &u("/c2"),
        DeclarationSource::HttpHeader,
        true,
    );
    b.page(&u("/i"), 33).declare(
        &u("/i"),
        "",
        "http://[bad",
        DeclarationSource::LinkElement,
        true,
    );
    b.page(&u("/o"), 34).declare(
        &u("/o"),
        &u("/o"),
        &u("/o"),
        DeclarationSource::LinkElement,
        false,
    );
    b.page(&u("/r"), 35).declare(
        &u("/r"),
        &u("/r"),
        "/r",
        DeclarationSource::LinkElement,
        true,
    );
    check(
        &b.analyse(),
        "CANON-MULTIPLE https://example.com/m
         CANON-CONFLICT https://example.com/c https://example.com/c2
         CANON-INVALID https://example.com/i
         CANON-OUTSIDE-HEAD https://example.com/o
         CANON-RELATIVE https://example.com/r",
    );
}

#[test]
fn canon_targets() {
    let mut b = B::new();
    // To a redirect.
    b.page(&u("/t"), 36).canonical(&u("/t"), &u("/moved"));
    b.redirect(&u("/moved"), &u("/final"), 301)
        .page(&u("/final"), 36);
    // To an error, a noindex page, a blocked URL.
    b.page(&u("/e"), 37)
        .canonical(&u("/e"), &u("/gone"))
        .status(&u("/gone"), 404);
    b.page(&u("/n"), 38)
        .canonical(&u("/n"), &u("/ni"))
        .page(&u("/ni"), 38)
        .noindex(&u("/ni"));
    b.page(&u("/b"), 39)
        .canonical(&u("/b"), &u("/blk"))
        .blocked(&u("/blk"));
    let a = b.analyse();
    check(
        &a,
        "CANON-TO-REDIRECT https://example.com/t https://example.com/moved
         CANON-TO-ERROR https://example.com/e https://example.com/gone
         CANON-TO-NOINDEX https://example.com/n https://example.com/ni
         CANON-TO-BLOCKED https://example.com/b https://example.com/blk",
    );
    assert_eq!(
        only(&a, FindingId::CanonToRedirect).fixes,
        [Fix::SetCanonical {
            page: u("/t"),
            href: u("/final")
        }]
    );
    assert_eq!(
        only(&a, FindingId::CanonToError).fixes,
        [Fix::SetCanonical {
            page: u("/e"),
            href: u("/e")
        }]
    );
    // The noindex stays: the canonical moves to an indexable URL, here the page itself.
    assert_eq!(
        only(&a, FindingId::CanonToNoindex).fixes,
        [Fix::SetCanonical {
            page: u("/n"),
            href: u("/n")
        }]
    );
    // The page pointing at a redirect is not preferred over the live target.
    let c = a.cluster_of(b.id(&u("/t"))).unwrap();
    assert_eq!(c.preferred_url, u("/final"));
}

#[test]
fn canon_chain_and_loop() {
    let mut b = B::new();
    b.page(&u("/c1"), 40).canonical(&u("/c1"), &u("/c2"));
    b.page(&u("/c2"), 40).canonical(&u("/c2"), &u("/c3"));
    b.page(&u("/c3"), 40).canonical(&u("/c3"), &u("/c3"));
    b.page(&u("/l1"), 41).canonical(&u("/l1"), &u("/l2"));
    b.page(&u("/l2"), 41).canonical(&u("/l2"), &u("/l1"));
    let a = b.analyse();
    check(
        &a,
        "CANON-CHAIN https://example.com/c1 https://example.com/c2 https://example.com/c3
         CANON-LOOP https://example.com/l1 https://example.com/l2",
    );
    assert_eq!(
        only(&a, FindingId::CanonChain).fixes,
        [Fix::SetCanonical {
            page: u("/c1"),
            href: u("/c3")
        }]
    );
}

#[test]
fn canon_cross_host_scheme_unrelated() {
    let mut b = B::new();
    b.page(&u("/x"), 42)
        .canonical(&u("/x"), "https://other.org/x");
    b.skipped("https://other.org/x", "out_of_scope");
    b.page(&u("/s"), 43)
        .canonical(&u("/s"), "http://example.com/s");
    b.skipped("http://example.com/s", "max_depth");
    b.page(&u("/u"), 44)
        .canonical(&u("/u"), &u("/v"))
        .page(&u("/v"), 45);
    let a = b.analyse();
    check(
        &a,
        "CANON-CROSS-HOST https://example.com/x https://other.org/x
         CANON-CROSS-SCHEME https://example.com/s http://example.com/s
         CANON-TO-UNRELATED https://example.com/u https://example.com/v",
    );
    assert!(
        a.cluster_of(b.id(&u("/u"))).is_none(),
        "unrelated pages are not merged"
    );
    assert_eq!(
        only(&a, FindingId::CanonCrossScheme).fixes,
        [Fix::SetCanonical {
            page: u("/s"),
            href: u("/s")
        }]
    );
}

#[test]
fn canon_linked() {
    let mut b = B::new();
    b.page(&u("/var"), 46).canonical(&u("/var"), &u("/main"));
    b.page(&u("/main"), 46).canonical(&u("/main"), &u("/main"));
    b.page(&u("/list"), 47).link(&u("/list"), &u("/var"));
    let a = b.analyse();
    check(
        &a,
        "CANON-LINKED https://example.com/var https://example.com/main",
    );
    assert_eq!(
        a.findings[0].fixes,
        [Fix::UpdateLinks {
            pages: vec![u("/list")],
            more_pages: 0,
            from: u("/var"),
            to: u("/main")
        }]
    );
}

#[test]
fn redirect_chain_loop_and_dead_ends() {
    let mut b = B::new();
    b.redirect(&u("/a1"), &u("/a2"), 301)
        .redirect(&u("/a2"), &u("/a3"), 301)
        .page(&u("/a3"), 50);
    b.redirect(&u("/r1"), &u("/r2"), 301)
        .redirect(&u("/r2"), &u("/r1"), 301);
    b.redirect(&u("/old"), &u("/missing"), 301)
        .status(&u("/missing"), 404);
    b.status(&u("/bad"), 301);
    let bad = b.id(&u("/bad"));
    b.input.redirects.push(RedirectRow {
        from: bad,
        to: None,
        status: 301,
        ..RedirectRow::default()
    });
    let r1 = b.id(&u("/r1"));
    b.input.redirect_chains.push(RedirectChainRow {
        start: r1,
        final_url: None,
        hops: 2,
        problem: ChainProblem::Loop,
    });
    let a = b.analyse();
    check(
        &a,
        "REDIRECT-CHAIN https://example.com/a1 https://example.com/a2 https://example.com/a3
         REDIRECT-LOOP https://example.com/r1 https://example.com/r2
         REDIRECT-TO-ERROR https://example.com/old https://example.com/missing
         REDIRECT-TO-ERROR https://example.com/bad",
    );
    // A redirect to an error is not a duplicate of anything: no cluster holds /old.
    let old = b.id(&u("/old"));
    assert!(a.cluster_of(old).is_none(), "{:?}", a.cluster_of(old));
    assert_eq!(
        only(&a, FindingId::RedirectChain).fixes,
        [
            Fix::Redirect {
                from: u("/a1"),
                to: u("/a3"),
                status: 301
            },
            Fix::Redirect {
                from: u("/a2"),
                to: u("/a3"),
                status: 301
            }
        ]
    );
}

#[test]
fn redirect_temporary_meta_and_links() {
    let mut b = B::new();
    b.redirect("http://example.com/t", &u("/t"), 302)
        .page(&u("/t"), 51);
    b.meta_refresh(&u("/m"), &u("/target"))
        .page(&u("/target"), 53);
    b.page(&u("/home"), 54).link(&u("/home"), &u("/moved"));
    b.redirect(&u("/moved"), &u("/new"), 301)
        .page(&u("/new"), 55);
    let a = b.analyse();
    check(
        &a,
        "REDIRECT-TEMPORARY http://example.com/t https://example.com/t
         REDIRECT-META-REFRESH https://example.com/m https://example.com/target
         LINK-TO-REDIRECT https://example.com/moved https://example.com/new",
    );
}

#[test]
fn http_page_not_redirected_to_https() {
    let mut b = B::new();
    b.redirect("http://example.com/", &u("/"), 301)
        .page(&u("/"), 56);
    b.page("http://example.com/legacy", 57);
    check(
        &b.analyse(),
        "REDIRECT-HTTP-NOT-HTTPS http://example.com/legacy https://example.com/legacy",
    );
}

#[test]
fn sitemap_entries() {
    let mut b = B::new();
    let sm = u("/sitemap.xml");
    b.page(&u("/"), 63).start(&u("/"));
    b.page(&u("/ok"), 60).link(&u("/"), &u("/ok"));
    b.redirect(&u("/redir"), &u("/ok"), 301);
    b.status(&u("/err"), 404);
    b.blocked(&u("/blockd"));
    b.page(&u("/noidx"), 61).noindex(&u("/noidx"));
    b.page(&u("/canon"), 60).canonical(&u("/canon"), &u("/ok"));
    b.page(&u("/ok?utm_source=a"), 60);
    b.page(&u("/orphan"), 62);
    for p in [
        "/",
        "/ok",
        "/redir",
        "/err",
        "/blockd",
        "/noidx",
        "/canon",
        "/ok?utm_source=a",
        "/orphan",
    ] {
        b.listed(&sm, &u(p));
    }
    let a = b.analyse();
    check(
        &a,
        "SITEMAP-REDIRECT https://example.com/redir https://example.com/ok
         SITEMAP-ERROR https://example.com/err
         SITEMAP-BLOCKED https://example.com/blockd
         SITEMAP-NOINDEX https://example.com/noidx
         SITEMAP-CANONICALISED https://example.com/canon https://example.com/ok
         SITEMAP-NON-PREFERRED https://example.com/ok?utm_source=a https://example.com/ok
         DUP-PARAM https://example.com/ok?utm_source=a https://example.com/ok
         SITEMAP-ORPHAN https://example.com/orphan",
    );
    assert_eq!(
        only(&a, FindingId::SitemapRedirect).fixes,
        [Fix::SitemapReplace {
            sitemap: sm.clone(),
            loc: u("/redir"),
            with: u("/ok")
        }]
    );
    assert_eq!(
        only(&a, FindingId::SitemapError).fixes,
        [Fix::SitemapRemove {
            sitemap: sm,
            loc: u("/err")
        }]
    );
}

#[test]
fn orphans_are_not_judged_on_a_crawl_cut_by_a_limit() {
    let mut b = B::new();
    b.page(&u("/"), 90)
        .start(&u("/"))
        .page(&u("/lonely"), 91)
        .link(&u("/"), &u("/x"));
    b.listed(&u("/s.xml"), &u("/"))
        .listed(&u("/s.xml"), &u("/lonely"));
    b.page(&u("/x"), 92).listed(&u("/s.xml"), &u("/x"));
    check(&b.analyse(), "SITEMAP-ORPHAN https://example.com/lonely");
    b.skipped(&u("/deep"), "max_depth");
    check(&b.analyse(), "");
}

#[test]
fn sitemap_missing_only_on_sitemap_hosts() {
    let mut b = B::new();
    b.page(&u("/"), 70)
        .start(&u("/"))
        .listed(&u("/sitemap.xml"), &u("/"));
    b.page(&u("/a"), 71).link(&u("/"), &u("/a"));
    b.page("https://blog.example.com/x", 72)
        .link(&u("/"), "https://blog.example.com/x");
    b.page(&u("/gone-away"), 73).noindex(&u("/gone-away"));
    // A page like /a (same parent, same depth) is listed: /a belongs in that sitemap.
    b.page(&u("/b"), 74)
        .link(&u("/"), &u("/b"))
        .listed(&u("/sitemap.xml"), &u("/b"));
    // Listing pages the sitemaps leave out as a kind are information, not a fix:
    // paginated lists and date archives have no listed sibling.
    b.page(&u("/list?page=1"), 78)
        .listed(&u("/sitemap.xml"), &u("/list?page=1"))
        .link(&u("/"), &u("/list?page=1"))
        .page(&u("/list?page=2"), 79)
        .link(&u("/"), &u("/list?page=2"))
        .page(&u("/list?sort=new"), 80)
        .link(&u("/"), &u("/list?sort=new"));
    for (path, id) in [("/page/2/", 75), ("/page/3/", 76), ("/2022/06/", 77)] {
        b.page(&u(path), id).link(&u("/"), &u(path));
    }
    // A thin page like /a (an image's attachment page: a title, an image, a few words)
    // is one the site leaves out on purpose.
    b.page(&u("/photo-1"), 81).link(&u("/"), &u("/photo-1"));
    b.fetch(&u("/photo-1")).word_count = Some(6);
    let a = b.analyse();
    check(&a, "SITEMAP-MISSING https://example.com/a");
    assert_eq!(
        a.findings[0].fixes,
        [Fix::SitemapAdd {
            loc: u("/a"),
            sitemap: u("/sitemap.xml")
        }]
    );
}

#[test]
fn sitemap_files() {
    let mut b = B::new();
    b.input.sitemaps = vec![
        SitemapRow {
            id: 1,
            url: u("/missing.xml"),
            status: Some(404),
            ..SitemapRow::default()
        },
        SitemapRow {
            id: 2,
            url: u("/broken.xml"),
            status: Some(200),
            issues: vec![SitemapIssue {
                kind: "malformed_xml".into(),
                detail: "mismatched end tag at line 3".into(),
            }],
            ..SitemapRow::default()
        },
        SitemapRow {
            id: 3,
            url: u("/big.xml"),
            status: Some(200),
            issues: vec![
                SitemapIssue {
                    kind: "too_many_urls".into(),
                    detail: "50,001 entries".into(),
                },
                SitemapIssue {
                    kind: "invalid_lastmod".into(),
                    detail: "2020-13-01".into(),
                },
            ],
            ..SitemapRow::default()
        },
    ];
    check(
        &b.analyse(),
        "SITEMAP-INVALID https://example.com/missing.xml
         SITEMAP-INVALID https://example.com/broken.xml
         SITEMAP-OVER-LIMIT https://example.com/big.xml",
    );
}

#[test]
fn crawler_trap() {
    let mut b = B::new();
    b.page(&u("/cal/"), 80);
    for m in 1..=3 {
        let url = u(&format!("/cal/2020/{m}"));
        b.skipped(&url, "trap: over 2 URLs like /cal/#/#")
            .link(&u("/cal/"), &url);
    }
    let a = b.analyse();
    check(
        &a,
        "TRAP https://example.com/cal/2020/1 https://example.com/cal/2020/2 https://example.com/cal/2020/3",
    );
    assert_eq!(
        a.findings[0].fixes,
        [
            Fix::RemoveLinks {
                pages: vec![u("/cal/")],
                more_pages: 0,
                to: "the 3 URLs of this trap (over 2 URLs like /cal/#/#)".into()
            },
            Fix::DisallowInRobots {
                pattern: "/cal/2020/".into()
            }
        ]
    );
}

#[test]
fn robots_block_hides_a_duplicate() {
    let mut b = B::new();
    b.page(&u("/p"), 81).page(&u("/list"), 82);
    b.blocked(&u("/p?sessionid=1"))
        .link(&u("/list"), &u("/p?sessionid=1"));
    // Blocked but not linked anywhere: harmless.
    b.blocked(&u("/p?sessionid=2"));
    check(
        &b.analyse(),
        "ROBOTS-HIDES-DUP https://example.com/p?sessionid=1 https://example.com/p",
    );
}

#[test]
fn finding_keys_use_urls_not_ids() {
    let build = |offset: usize| {
        let mut b = B::new();
        for k in 0..offset {
            b.page(&u(&format!("/filler{k}")), 1000 + k as u64);
        }
        b.page("https://www.example.com/a", 5).page(&u("/a"), 5);
        b.analyse()
    };
    let (a, z) = (build(0), build(7));
    let keys = |a: &Analysis| a.findings.iter().map(|f| f.key.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&a), ["DUP-HOST host www.example.com -> example.com"]);
    assert_eq!(keys(&a), keys(&z));
    let cmp = compare(&a.findings, &build(0).findings);
    assert_eq!(cmp.persisting.len(), 1);
    assert!(cmp.new.is_empty() && cmp.resolved.is_empty());
    assert_eq!(compare(&a.findings, &[]).resolved.len(), 1);
}

#[test]
fn every_finding_id_has_catalog_text_and_round_trips() {
    for &id in FindingId::ALL {
        assert!(!id.title().is_empty() && !id.why().is_empty());
        assert_eq!(FindingId::from_code(id.code()), Some(id));
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, format!("\"{}\"", id.code()));
    }
    assert_eq!(FindingId::ALL.len(), 72);
    let _ = sim(0);
}

#[test]
fn json_fixture_with_sparse_ids_and_defaults() {
    let input: AuditInput = serde_json::from_str(
        r#"{
          "urls": [
            {"id": 10, "url": "https://example.com/a"},
            {"id": 35, "url": "https://www.example.com/a", "url_rfc3986": "https://www.example.com/a"},
            {"id": 20, "url": "https://example.com/old", "state": "done"},
            {"id": 7, "url": "HTTPS://Example.com/b?"}
          ],
          "fetches": [
            {"url_id": 10, "status": 200, "text_hash": 5, "simhash": 77, "word_count": 300},
            {"url_id": 35, "status": 200, "text_hash": 5, "simhash": 77, "word_count": 300},
            {"url_id": 20, "status": 302},
            {"url_id": 7, "status": 200, "text_hash": 6, "simhash": 4242, "word_count": 300}
          ],
          "redirects": [{"from": 20, "to": 10, "status": 302}],
          "links": [{"from": 7, "to": 20}],
          "canonicals": [{"page": 7, "target": 10, "href_raw": "/a", "in_head": false}]
        }"#,
    )
    .unwrap();
    let a = analyse(&input, &AnalysisConfig::default());
    check(
        &a,
        "DUP-HOST https://www.example.com/a https://example.com/a
         LINK-TO-REDIRECT https://example.com/old https://example.com/a
         CANON-OUTSIDE-HEAD https://example.com/b?",
    );
    assert_eq!(a.cluster_of(35).unwrap().preferred, 10);
}

#[test]
fn links_on_duplicates_are_not_links_to_edit() {
    // The http copy of the home page links (relatively) to an http URL that
    // redirects: that link goes away with the duplicate, it is not a finding.
    let mut b = B::new();
    b.page("https://example.com/", 1)
        .page("http://example.com/", 1)
        .canonical("http://example.com/", "https://example.com/")
        .canonical("https://example.com/", "https://example.com/")
        .redirect("http://example.com/faq", "https://example.com/faq", 301)
        .page("https://example.com/faq", 2)
        .link("http://example.com/", "http://example.com/faq");
    assert_eq!(
        b.analyse().findings_with(FindingId::LinkToRedirect).count(),
        0
    );
    // Linked from the preferred page too: reported, with only that page to edit.
    b.link("https://example.com/", "http://example.com/faq");
    let a = b.analyse();
    let f = only(&a, FindingId::LinkToRedirect);
    assert!(
        matches!(&f.fixes[0], Fix::UpdateLinks { pages, .. } if pages == &["https://example.com/"]),
        "{f:#?}"
    );
}

#[test]
fn a_listed_page_in_a_canonical_chain_is_replaced_by_the_chain_end() {
    let mut b = B::new();
    b.page("https://example.com/a", 1)
        .page("https://example.com/b", 1)
        .page("https://example.com/c", 1)
        .canonical("https://example.com/a", "https://example.com/b")
        .canonical("https://example.com/b", "https://example.com/c")
        .canonical("https://example.com/c", "https://example.com/c")
        .listed("https://example.com/sitemap.xml", "https://example.com/a");
    let a = b.analyse();
    let f = only(&a, FindingId::SitemapCanonicalised);
    assert!(
        f.fixes.contains(&Fix::SitemapReplace {
            sitemap: "https://example.com/sitemap.xml".into(),
            loc: "https://example.com/a".into(),
            with: "https://example.com/c".into()
        }),
        "{f:#?}"
    );
}

#[test]
fn a_syndicated_copy_keeps_its_cross_host_canonical() {
    let mut b = B::new();
    b.page("https://example.com/copy", 7)
        .page("https://blog.example.org/original", 7)
        .canonical(
            "https://example.com/copy",
            "https://blog.example.org/original",
        );
    let a = b.analyse();
    let f = only(&a, FindingId::CanonCrossHost);
    assert!(f.fixes.is_empty(), "{f:#?}");
    let mut b = B::new();
    b.page("https://example.com/page", 7)
        .page("https://blog.example.org/other", 8)
        .canonical("https://example.com/page", "https://blog.example.org/other");
    let a = b.analyse();
    assert_eq!(only(&a, FindingId::CanonCrossHost).fixes.len(), 1);
}

#[test]
fn the_site_s_ip_address_naming_the_site_as_canonical_is_no_cross_host_copy() {
    // The server answers on its IP address (a URL-variant probe) with the page and a
    // canonical to the site's name; a page linked from there is reached the same way.
    let mut b = B::new();
    b.page("https://example.com/", 7)
        .page("https://example.com/a", 8)
        .link("https://example.com/", "https://example.com/a")
        .page("https://192.0.2.10/", 7)
        .canonical("https://192.0.2.10/", "https://example.com/")
        .probe(
            "https://192.0.2.10/",
            "https://example.com/",
            ProbeRule::IpHost,
        )
        .page("https://192.0.2.10/a", 8)
        .canonical("https://192.0.2.10/a", "https://example.com/a")
        .link("https://192.0.2.10/", "https://192.0.2.10/a");
    b.row("https://192.0.2.10/a").found_from = Some(b.id("https://192.0.2.10/"));
    let a = b.analyse();
    assert!(
        a.findings_with(FindingId::CanonCrossHost).next().is_none(),
        "{:#?}",
        a.findings
    );
    // A page the site links to on another host is still one.
    let mut b = B::new();
    b.page("https://example.com/copy", 7)
        .page("https://blog.example.org/original", 7)
        .canonical(
            "https://example.com/copy",
            "https://blog.example.org/original",
        );
    assert!(
        b.analyse()
            .findings_with(FindingId::CanonCrossHost)
            .next()
            .is_some()
    );
}

#[test]
fn pages_on_the_way_into_a_trap_are_not_missing_from_the_sitemap() {
    let mut b = B::new();
    b.page("https://example.com/", 1)
        .listed("https://example.com/sitemap.xml", "https://example.com/")
        .page("https://example.com/trap/", 2)
        .page("https://example.com/trap/a/", 3)
        .page("https://example.com/other", 4)
        .page("https://example.com/listed", 5)
        .listed(
            "https://example.com/sitemap.xml",
            "https://example.com/listed",
        )
        .skipped(
            "https://example.com/trap/a/a/a/",
            "trap: path repeats segment \"a\"",
        );
    let a = b.analyse();
    let missing: Vec<&str> = a
        .findings_with(FindingId::SitemapMissing)
        .map(|f| f.urls[0].as_str())
        .collect();
    assert_eq!(missing, ["https://example.com/other"]);
}

#[test]
fn a_page_linked_through_a_redirect_is_no_orphan() {
    let mut b = B::new();
    b.page(&u("/"), 1)
        .start(&u("/"))
        .listed(&u("/sitemap.xml"), &u("/"))
        .listed(&u("/sitemap.xml"), &u("/about/"))
        .page(&u("/about/"), 2)
        .link(&u("/"), &u("/?page_id=2"))
        .redirect(&u("/?page_id=2"), &u("/about/"), 301);
    let a = b.analyse();
    assert_eq!(
        a.findings_with(FindingId::SitemapOrphan).count(),
        0,
        "{:#?}",
        a.findings
    );
    assert_eq!(a.findings_with(FindingId::LinkToRedirect).count(), 1);
}

#[test]
fn the_consistency_checks_find_a_contradiction_and_pass_a_clean_analysis() {
    let mut b = B::new();
    b.page(&u("/"), 1)
        .start(&u("/"))
        .listed(&u("/sitemap.xml"), &u("/"))
        .listed(&u("/sitemap.xml"), &u("/about/"))
        .page(&u("/about/"), 2)
        .link(&u("/"), &u("/?page_id=2"))
        .redirect(&u("/?page_id=2"), &u("/about/"), 301)
        .page("https://www.example.com/about/", 2);
    let mut a = b.analyse();
    assert_eq!(crate::consistency::contradictions(&b.input, &a), []);
    // An orphan finding for the page the menu reaches through its redirect contradicts
    // the link; so does a canonical to set on a page the map redirects.
    a.findings.push(
        Finding::new(FindingId::SitemapOrphan, &[&u("/about/")], String::new())
            .urls([u("/about/")]),
    );
    a.findings.push(
        Finding::new(FindingId::CanonLinked, &[&u("/x")], String::new()).fix(Fix::SetCanonical {
            page: u("/x"),
            href: "https://www.example.com/about/".into(),
        }),
    );
    let found: Vec<&str> = crate::consistency::contradictions(&b.input, &a)
        .iter()
        .map(|c| c.rule)
        .collect();
    assert_eq!(
        found,
        [
            "an orphan that links reach",
            "a canonical to a redirected URL"
        ]
    );
}

#[test]
fn a_facet_trap_is_one_crawl_budget_finding_with_a_robots_pattern() {
    let mut b = B::new();
    b.page(&u("/shop/"), 1).start(&u("/shop/"));
    for q in ["color=red&size=m", "color=blue&size=l", "size=s&sort=price"] {
        let url = u(&format!("/shop/?{q}"));
        b.link(&u("/shop/"), &url).skipped(
            &url,
            "trap_facets: over 2 combinations of query parameters on /shop/",
        );
    }
    let repeat = u("/shop/?color=red&color=red");
    b.link(&u("/shop/"), &repeat)
        .skipped(&repeat, "trap_facets: parameter color repeated in /shop/");
    let a = b.analyse();
    let traps: Vec<&Finding> = a.findings_with(FindingId::Trap).collect();
    // One cause, the listing's filter links: one finding, whose robots.txt pattern for
    // the combinations covers the repeats too.
    assert_eq!(traps.len(), 1, "{traps:#?}");
    assert!(
        traps[0]
            .summary
            .starts_with("Faceted navigation on 1 listing of example.com: 4 URLs were"),
        "{}",
        traps[0].summary
    );
    assert_eq!(
        traps[0].fixes,
        [Fix::DisallowInRobots {
            pattern: "/shop/?*&".into()
        }]
    );
    assert!(
        traps[0]
            .evidence
            .iter()
            .any(|e| e.starts_with("/shop/: ") && e.contains("parameter color repeated")),
        "{:#?}",
        traps[0].evidence
    );
    // Repeats alone get the repeat pattern; two listings are still one finding.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    for list in ["/shop/", "/sale/"] {
        let repeat = u(&format!("{list}?color=red&color=red"));
        b.link(&u("/"), &repeat).skipped(
            &repeat,
            &format!("trap_facets: parameter color repeated in {list}"),
        );
    }
    let a = b.analyse();
    let traps: Vec<&Finding> = a.findings_with(FindingId::Trap).collect();
    assert_eq!(traps.len(), 1, "{traps:#?}");
    assert_eq!(
        traps[0].fixes,
        [
            Fix::DisallowInRobots {
                pattern: "/sale/?*color=*color=".into()
            },
            Fix::DisallowInRobots {
                pattern: "/shop/?*color=*color=".into()
            }
        ]
    );
}

#[test]
fn a_parameter_that_changes_other_pages_is_named_with_its_neutral_value() {
    let mut b = B::new();
    for (k, page) in ["/a", "/b", "/c"].into_iter().enumerate() {
        let text = 500 + k as u64;
        b.page(&u(page), text)
            .page(&u(&format!("{page}?action=view")), text)
            .page(&u(&format!("{page}?action=edit")), 600 + k as u64);
    }
    let a = b.analyse();
    let f = only(&a, FindingId::DupParam);
    assert!(
        f.summary
            .contains("with the parameter action=view (which does not change the page)"),
        "{}",
        f.summary
    );
    assert_eq!(f.key, "DUP-PARAM param example.com action=view");
}

#[test]
fn links_to_urls_of_one_pattern_are_one_finding() {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    for k in 1..=4 {
        let (lower, upper) = (
            u(&format!("/wiki/article_{k}")),
            u(&format!("/wiki/Article_{k}")),
        );
        b.page(&upper, 10 + k)
            .redirect(&lower, &upper, 301)
            .link(&u("/"), &lower)
            .link(&u("/"), &upper);
    }
    // One link of another shape stays its own finding.
    b.page(&u("/new"), 30)
        .redirect(&u("/old"), &u("/new"), 301)
        .link(&u("/"), &u("/old"));
    let a = b.analyse();
    let links: Vec<&Finding> = a.findings_with(FindingId::LinkToRedirect).collect();
    assert_eq!(links.len(), 2, "{links:#?}");
    let grouped = links
        .iter()
        .find(|f| f.key == "LINK-TO-REDIRECT pattern example.com in another letter case")
        .unwrap();
    assert_eq!(grouped.urls.len(), 4);
    assert!(
        matches!(
            &grouped.fixes[..],
            [Fix::UpdateLinksForPattern { urls: 4, .. }]
        ),
        "{grouped:#?}"
    );
    assert!(
        grouped
            .summary
            .starts_with("Internal links point to 4 URLs in another letter case")
    );
}

#[test]
fn one_slot_of_the_template_linking_each_page_s_own_broken_url_is_one_finding() {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    for k in 0..6u64 {
        let page = u(&format!("/wiki/P_{k}"));
        let special = u(&format!("/wiki/Special:WhatLinksHere/P_{k}"));
        b.page(&page, 100 + k)
            .link(&u("/"), &page)
            .link(&page, &special)
            .anchor(&page, &special, "What links here")
            .status(&special, 404);
    }
    let a = b.analyse();
    let broken: Vec<&Finding> = a.findings_with(FindingId::LinkBroken).collect();
    assert_eq!(broken.len(), 1, "{broken:#?}");
    let f = broken[0];
    assert!(
        f.summary.starts_with(
            "The \"What links here\" link in the site's template leads to an error on 6 pages"
        ),
        "{}",
        f.summary
    );
    assert!(
        matches!(
            &f.fixes[..],
            [Fix::UpdateTemplateLink {
                pages: 6,
                to: None,
                ..
            }]
        ),
        "{:#?}",
        f.fixes
    );
}

/// A footer link that only one kind of page carries (the posts' footer menu, on 12 of a
/// host's 40 pages), also linked from the posts' reply-to-comment variants: one template
/// link, counted over the host's own pages, with one fix.
#[test]
fn a_footer_link_of_one_kind_of_page_is_one_template_finding() {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    let (old, page) = (u("/?page_id=2"), u("/sample-page/"));
    b.redirect(&old, &page, 301)
        .page(&page, 2)
        .link(&u("/"), &page);
    for k in 0..12u64 {
        let post = u(&format!("/2024/05/post-{k}/"));
        let reply = format!("{post}?replytocom={k}");
        b.page(&post, 100 + k)
            .page(&reply, 100 + k)
            .link(&u("/"), &post)
            .link(&post, &reply)
            .link_in(&post, &old, LinkRegion::Footer, "Sample page")
            .link_in(&reply, &old, LinkRegion::Footer, "Sample page");
    }
    for k in 0..27u64 {
        let other = u(&format!("/tag/t{k}/"));
        b.page(&other, 300 + k).link(&u("/"), &other);
    }
    let a = b.analyse();
    let f = only(&a, FindingId::LinkToRedirect);
    assert!(
        matches!(
            &f.fixes[..],
            [Fix::UpdateTemplateLink {
                pages: 12,
                region: Some(LinkRegion::Footer),
                ..
            }]
        ),
        "{f:#?}"
    );
    assert!(f.summary.len() < 300, "{}", f.summary);
}

#[test]
fn redirects_to_errors_of_one_pattern_are_one_finding() {
    // A wiki's editors write `talk:` in lower case: each such link redirects to the
    // capitalised title, which does not exist. Four of them are one problem.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    for (k, name) in ["Apple", "Pear", "Plum", "Fig"].iter().enumerate() {
        let page = u(&format!("/wiki/{name}"));
        let lower = u(&format!("/wiki/talk:{name}"));
        let upper = u(&format!("/wiki/Talk:{name}"));
        b.page(&page, 10 + k as u64)
            .link(&u("/"), &page)
            .link(&page, &lower)
            .redirect(&lower, &upper, 301)
            .status(&upper, 404);
    }
    // A different dead end (another error) stays on its own.
    b.link(&u("/"), &u("/old"))
        .redirect(&u("/old"), &u("/broken"), 301)
        .status(&u("/broken"), 500);
    let a = b.analyse();
    let dead: Vec<&Finding> = a.findings_with(FindingId::RedirectToError).collect();
    assert_eq!(dead.len(), 2, "{dead:#?}");
    let group = dead
        .iter()
        .find(|f| f.urls.len() == 4)
        .expect("one finding for the four talk: links");
    assert!(
        group
            .summary
            .starts_with("Internal links point to 4 URLs in another letter case, on example.com"),
        "{}",
        group.summary
    );
    assert!(group.summary.ends_with("(404)."), "{}", group.summary);
    assert!(
        matches!(
            &group.fixes[..],
            [Fix::RemoveLinksForPattern { urls: 4, .. }]
        ),
        "{:#?}",
        group.fixes
    );
    let single = dead.iter().find(|f| f.urls[0] == u("/old")).unwrap();
    assert!(single.summary.contains("answers 500"), "{}", single.summary);
    // Two of a pattern stay apart: a pattern needs three.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    for name in ["Apple", "Pear"] {
        let lower = u(&format!("/wiki/talk:{name}"));
        b.link(&u("/"), &lower)
            .redirect(&lower, &u(&format!("/wiki/Talk:{name}")), 301)
            .status(&u(&format!("/wiki/Talk:{name}")), 404);
    }
    assert_eq!(
        b.analyse()
            .findings_with(FindingId::RedirectToError)
            .count(),
        2
    );
}

#[test]
fn filter_values_that_select_everything_on_some_listings_are_one_pattern() {
    // `color=black` narrows /shop/bags/ but shows every product of /shop/boots/ (all
    // black); `color=red` the other way round. Neither value is neutral: the filter is
    // one cause, one finding, not one per value.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    let listings = [
        ("/shop/boots/", 10),
        ("/shop/belts/", 20),
        ("/shop/hats/", 30),
    ];
    for (k, (path, text)) in listings.into_iter().enumerate() {
        let (same, narrows) = if k % 2 == 0 {
            ("black", "red")
        } else {
            ("red", "black")
        };
        b.page(&u(path), text)
            .page(&u(&format!("{path}?color={same}")), text)
            .page(&u(&format!("{path}?color={narrows}")), text + 1);
    }
    let a = b.analyse();
    let f = only(&a, FindingId::DupParam);
    assert_eq!(
        f.key, "DUP-PARAM param example.com filters",
        "{}",
        f.summary
    );
    assert!(
        f.summary
            .starts_with("3 URLs serve the same page as another URL, with filter"),
        "{}",
        f.summary
    );
}

#[test]
fn a_tracked_copy_with_more_links_is_not_the_preferred_url() {
    // A newsletter block links the tracked copy from three pages; the page itself is
    // linked once. The clean URL is still the page.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    b.page(&u("/a"), 2).page(&u("/a?utm_source=news"), 2);
    b.link(&u("/"), &u("/a"));
    for p in ["/x", "/y", "/z"] {
        b.page(&u(p), 10 + p.len() as u64 + u64::from(p.as_bytes()[1]))
            .link(&u(p), &u("/a?utm_source=news"));
    }
    let a = b.analyse();
    let c = a
        .clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.url == u("/a")))
        .expect("one cluster");
    assert_eq!(c.preferred_url, u("/a"));
}

/// Comments split into pages, newest first (WordPress's "Break comments into pages"):
/// each post names its last comment page canonical, while the sitemap lists the post,
/// the home page links it and the slash-less URL redirects to it. One cause, one
/// finding with one template fix (each post its own canonical), not a conflict, a
/// sitemap finding and a link finding per post with fixes toward the comment pages.
#[test]
fn posts_naming_their_own_comment_page_canonical_are_one_finding() {
    let u = |p: &str| format!("https://example.com{p}");
    let mut b = B::new();
    let sm = u("/sitemap.xml");
    b.sitemap(&sm);
    b.start(&u("/"));
    b.page(&u("/"), 1);
    for (n, post) in ["/2024/01/shelves/", "/2024/02/benches/", "/2024/03/clamps/"]
        .iter()
        .enumerate()
    {
        let text = 10 + n as u64;
        let comments = u(&format!("{post}comment-page-2/"));
        b.page(&u(post), text).canonical(&u(post), &comments);
        b.page(&comments, text).canonical(&comments, &comments);
        b.link(&u("/"), &u(post));
        b.link(&u(post), &u(&format!("{post}comment-page-1/")));
        b.page(&u(&format!("{post}comment-page-1/")), 20 + n as u64);
        b.redirect(&u(post.trim_end_matches('/')), &u(post), 301);
        b.link(&u("/"), &u(post.trim_end_matches('/')));
        b.listed(&sm, &u(post));
        // A shared copy naming the post: a chain only through the post's canonical.
        let shared = u(&format!("{post}?utm_source=share"));
        b.page(&shared, text).canonical(&shared, &u(post));
    }
    b.listed(&sm, &u("/"));
    let a = b.analyse();
    let listed: Vec<String> = a
        .findings
        .iter()
        .map(|f| f.id.code().to_owned())
        .filter(|c| {
            [
                "CLUSTER-CONFLICT",
                "CANON-CHAIN",
                "DUP-CONTENT",
                "SITEMAP-CANONICALISED",
                "SITEMAP-NON-PREFERRED",
                "CANON-LINKED",
            ]
            .contains(&c.as_str())
        })
        .collect();
    assert!(
        listed.is_empty(),
        "explained apart: {listed:?}\n{}",
        super::render(&a)
    );
    let f = only(&a, FindingId::CanonCommentPage);
    assert_eq!(
        f.urls,
        [
            u("/2024/01/shelves/"),
            u("/2024/02/benches/"),
            u("/2024/03/clamps/")
        ]
    );
    assert!(
        f.summary
            .starts_with("3 posts name one of their own comment pages"),
        "{}",
        f.summary
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e.starts_with("explains 3 SITEMAP-CANONICALISED findings")),
        "{:#?}",
        f.evidence
    );
    let fix = f.fixes[0].to_string();
    assert!(
        fix.contains("make each page's canonical its own URL"),
        "{fix}"
    );
    assert!(fix.contains("Break comments into pages"), "{fix}");
    // The fix plan sets each post's canonical to itself, and moves no sitemap entry or
    // link onto a comment page.
    // The post is the page: its comment page of the same text is its duplicate.
    let post = u("/2024/01/shelves/");
    let comments = u("/2024/01/shelves/comment-page-2/");
    let cluster = a
        .clusters
        .iter()
        .find(|c| c.preferred_url == post)
        .expect("post's cluster");
    assert!(
        cluster.members.iter().any(|m| m.url == comments),
        "{cluster:#?}"
    );
    let plan = a.fix_files();
    for post in ["/2024/01/shelves/", "/2024/02/benches/", "/2024/03/clamps/"] {
        assert!(
            plan.canonicals
                .iter()
                .any(|c| c.page == u(post) && c.href == u(post)),
            "{:#?}",
            plan.canonicals
        );
    }
    assert!(
        plan.canonicals
            .iter()
            .any(|c| c.page == comments && c.href == post),
        "{:#?}",
        plan.canonicals
    );
    // A post whose URL has no trailing slash owns `/post/comment-page-2/` too.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    let comments = u("/news/week/comment-page-2/");
    b.page(&u("/news/week"), 7)
        .canonical(&u("/news/week"), &comments)
        .link(&u("/"), &u("/news/week"));
    b.page(&comments, 7).canonical(&comments, &comments);
    let other = b.analyse();
    assert_eq!(
        only(&other, FindingId::CanonCommentPage).urls,
        [u("/news/week")]
    );
    // A page naming the comment page of another post is not this cause.
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    let elsewhere = u("/news/other/comment-page-2/");
    b.page(&u("/news/week"), 7)
        .canonical(&u("/news/week"), &elsewhere)
        .link(&u("/"), &u("/news/week"));
    b.page(&elsewhere, 7).canonical(&elsewhere, &elsewhere);
    assert_eq!(
        b.analyse()
            .findings_with(FindingId::CanonCommentPage)
            .count(),
        0
    );
    assert!(
        plan.sitemap_remove
            .iter()
            .chain(&plan.sitemap_add)
            .all(|c| !c.loc.contains("comment-page")
                && c.with
                    .as_deref()
                    .is_none_or(|w| !w.contains("comment-page"))),
        "sitemap changes toward comment pages: {:#?}",
        plan.sitemap_remove
    );
}
