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
