//! LINK-BROKEN.

use super::*;

#[test]
fn links_to_errors_are_reported_with_pages_anchors_and_fix() {
    let mut b = B::new();
    b.page("https://example.com/", 1)
        .page("https://example.com/about", 2)
        .status("https://example.com/gone", 404)
        .status("https://example.com/boom", 500)
        .anchor(
            "https://example.com/",
            "https://example.com/gone",
            "Old offer",
        )
        .anchor(
            "https://example.com/about",
            "https://example.com/gone",
            "Old offer",
        )
        .anchor("https://example.com/about", "https://example.com/boom", "")
        // An unlinked error and an external error are not this finding.
        .status("https://example.com/unlinked", 404)
        .status("https://other.example/x", 404)
        .link("https://example.com/", "https://other.example/x");
    b.input.urls.last_mut().unwrap().state = UrlState::Done;
    let other = b.id("https://other.example/x");
    b.input.urls[other as usize - 1].found_via = FoundVia::Link;
    let a = b.analyse();
    let gone = a
        .findings
        .iter()
        .find(|f| f.key == "LINK-BROKEN https://example.com/gone")
        .unwrap();
    assert_eq!(gone.severity, Severity::Error);
    assert!(
        gone.evidence
            .iter()
            .any(|e| e == "anchor text: \"Old offer\""),
        "{gone:#?}"
    );
    assert_eq!(
        gone.fixes,
        [Fix::RemoveLinks {
            pages: vec![
                "https://example.com/".into(),
                "https://example.com/about".into()
            ],
            more_pages: 0,
            to: "https://example.com/gone".into()
        }]
    );
    let boom = a
        .findings
        .iter()
        .find(|f| f.key == "LINK-BROKEN https://example.com/boom")
        .unwrap();
    assert!(boom.evidence.iter().any(|e| e == "anchor text: (no text)"));
    assert!(!a.findings.iter().any(|f| f.key.ends_with("/unlinked")));
}

#[test]
fn a_broken_variant_of_a_live_page_gets_its_links_updated() {
    let mut b = B::new();
    b.page("https://example.com/", 1)
        .page("https://example.com/shoes", 2)
        .status("https://example.com/shoes?utm_source=mail", 404)
        .link(
            "https://example.com/",
            "https://example.com/shoes?utm_source=mail",
        );
    let a = b.analyse();
    let f = only(&a, FindingId::LinkBroken);
    assert_eq!(
        f.fixes,
        [Fix::UpdateLinks {
            pages: vec!["https://example.com/".into()],
            more_pages: 0,
            from: "https://example.com/shoes?utm_source=mail".into(),
            to: "https://example.com/shoes".into()
        }]
    );
}

#[test]
fn links_to_live_pages_and_redirects_are_not_broken() {
    let mut b = B::new();
    b.page("https://example.com/", 1)
        .page("https://example.com/a", 2)
        .redirect("https://example.com/old", "https://example.com/a", 301)
        .link("https://example.com/", "https://example.com/a")
        .link("https://example.com/", "https://example.com/old");
    assert_eq!(b.analyse().findings_with(FindingId::LinkBroken).count(), 0);
}

/// A home page that declares (as `kind`) a shortlink that 301s to a post, an og:url
/// with a share parameter (the post's duplicate, canonicalised to it), a structured-data
/// URL that answers 404 and an AMP page listed in the sitemap.
fn declaring_site(kind: LinkKind) -> B {
    let mut b = B::new();
    let (home, post) = ("https://example.com/", "https://example.com/post");
    b.start(home)
        .page(home, 1)
        .page(post, 2)
        .link(home, post)
        .redirect("https://example.com/?p=31", post, 301)
        .page("https://example.com/post?utm_source=share", 2)
        .canonical("https://example.com/post?utm_source=share", post)
        .status("https://example.com/gone", 404)
        .page("https://example.com/amp/post", 3)
        .page("https://example.com/lonely", 4)
        .listed("https://example.com/sitemap.xml", home)
        .listed(
            "https://example.com/sitemap.xml",
            "https://example.com/amp/post",
        )
        .listed(
            "https://example.com/sitemap.xml",
            "https://example.com/lonely",
        );
    for to in [
        "https://example.com/?p=31",
        "https://example.com/post?utm_source=share",
        "https://example.com/gone",
        "https://example.com/amp/post",
    ] {
        let (f, t) = (b.id(home), b.id(to));
        b.input.links.push(LinkRow {
            from: f,
            to: Some(t),
            kind,
            ..LinkRow::default()
        });
    }
    b
}

#[test]
fn declared_urls_are_discovery_not_links() {
    let link_findings = |a: &Analysis| -> Vec<String> {
        let mut v: Vec<String> = a
            .findings
            .iter()
            .filter(|f| {
                matches!(
                    f.id,
                    FindingId::LinkToRedirect
                        | FindingId::LinkBroken
                        | FindingId::CanonLinked
                        | FindingId::SitemapOrphan
                )
            })
            .map(|f| f.key.clone())
            .collect();
        v.sort();
        v
    };
    // The same URLs linked with <a>: each is a link finding.
    assert_eq!(
        link_findings(&declaring_site(LinkKind::A).analyse()),
        [
            "CANON-LINKED https://example.com/post?utm_source=share",
            "LINK-BROKEN https://example.com/gone",
            "LINK-TO-REDIRECT https://example.com/?p=31",
            "SITEMAP-ORPHAN https://example.com/lonely",
        ]
    );
    // Declared: no link finding, and the AMP page a declaration reaches is no orphan.
    for kind in [
        LinkKind::Shortlink,
        LinkKind::Alternate,
        LinkKind::Amphtml,
        LinkKind::OgUrl,
        LinkKind::StructuredData,
        LinkKind::LinkHeader,
    ] {
        let b = declaring_site(kind);
        let a = b.analyse();
        assert_eq!(
            link_findings(&a),
            ["SITEMAP-ORPHAN https://example.com/lonely"],
            "{kind:?}"
        );
        // Still clustered with the post: a declaration changes no evidence.
        let c = a.cluster_of(b.input.urls[1].id).unwrap();
        assert_eq!(c.members.len(), 3, "{kind:?}: {c:#?}");
        // Not in links_to_non_preferred.csv either.
        let t = crate::export::table_data(crate::export::Table::LinksToNonPreferred, &b.input, &a);
        assert!(t.rows.is_empty(), "{kind:?}: {:?}", t.rows);
    }
    // rel=next and rel=prev stay links, as before.
    assert_eq!(
        link_findings(&declaring_site(LinkKind::Next).analyse()),
        link_findings(&declaring_site(LinkKind::A).analyse())
    );
}

/// Fixes never change links that do something (a reply link, a sort control) nor
/// relink away from the URL a page declares its canonical.
#[test]
fn links_that_are_controls_or_declared_canonical_are_kept() {
    let s = |p: &str| format!("https://example.com{p}");
    let mut b = B::new();
    // A post and its reply-to-comment variant: the same page, linked from the post.
    b.page(&s("/post/"), 1)
        .page(&s("/post/?replytocom=5"), 1)
        .anchor(&s("/post/"), &s("/post/?replytocom=5"), "Reply");
    // A listing's sort control whose page declares the listing canonical.
    b.page(&s("/shop/"), 2)
        .page(&s("/shop/?orderby=price"), 3)
        .canonical(&s("/shop/?orderby=price"), &s("/shop/"))
        .canonical(&s("/shop/"), &s("/shop/"))
        .anchor(&s("/shop/"), &s("/shop/?orderby=price"), "Sort by price");
    // A page the site declares under its lower-case spelling, linked that way.
    b.page(&s("/caf%C3%A9/"), 4)
        .page(&s("/caf%c3%a9/"), 4)
        .canonical(&s("/caf%C3%A9/"), &s("/caf%c3%a9/"))
        .canonical(&s("/caf%c3%a9/"), &s("/caf%c3%a9/"))
        .anchor(&s("/post/"), &s("/caf%c3%a9/"), "Café");
    // The site's home links to each page.
    b.page(&s("/"), 5);
    for p in ["/post/", "/shop/", "/caf%C3%A9/"] {
        b.link(&s("/"), &s(p));
    }
    let a = b.analyse();
    // Links to the declared spelling stay; links to the other spelling may change to it.
    let kept_urls = [
        s("/post/?replytocom=5"),
        s("/shop/?orderby=price"),
        s("/caf%c3%a9/"),
    ];
    let mut changed: Vec<String> = Vec::new();
    for f in &a.findings {
        for fix in &f.fixes {
            match fix {
                Fix::UpdateLinks { from, .. } | Fix::UpdateTemplateLink { from, .. }
                    if kept_urls.contains(from) =>
                {
                    changed.push(format!("{}: {from}", f.key));
                }
                _ => {}
            }
        }
    }
    assert!(changed.is_empty(), "{changed:#?}\n{}", render(&a));
    let kept: Vec<String> = a
        .kept_links
        .iter()
        .map(|(id, why)| format!("{} {why:?}", b.input.urls[*id as usize - 1].url))
        .collect();
    assert!(
        kept.contains(&format!("{} Control", s("/post/?replytocom=5"))),
        "{kept:#?}\n{}",
        render(&a)
    );
    let links = crate::export::table_data(crate::export::Table::LinksToNonPreferred, &b.input, &a);
    for row in &links.rows {
        let destination = format!("{:?}", row[1]);
        assert!(
            !kept_urls.iter().any(|k| destination.contains(k.as_str())),
            "{row:?}"
        );
    }
}
