//! Property tests: no input makes the parser panic, and its invariants hold.

mod common;

use common::*;
use proptest::prelude::*;
use sitemap::{Limits, Parsed};

fn check_invariants(p: &Parsed, limits: &Limits) {
    assert!(p.uncompressed_bytes <= limits.max_uncompressed_bytes + 1);
    assert!(p.entries.len() as u64 <= p.urls_seen);
    for e in &p.entries {
        let lower = e.loc.to_ascii_lowercase();
        assert!(
            lower.starts_with("http://") || lower.starts_with("https://"),
            "{}",
            e.loc
        );
        assert_eq!(e.loc.trim(), e.loc);
        if let Some(priority) = e.priority {
            assert!((0.0..=1.0).contains(&priority));
        }
        if let Some(lastmod) = &e.lastmod {
            assert!(sitemap::is_w3c_datetime(lastmod));
        }
    }
    for i in &p.issues {
        assert!(!i.kind.code().is_empty());
        assert_eq!(sitemap::IssueKind::from_code(i.kind.code()), Some(i.kind));
    }
}

fn run(body: &[u8], limits: &Limits) {
    if let Ok(p) = sitemap::parse(body, &sm_url(), limits) {
        check_invariants(&p, limits);
    }
}

/// Fragments that steer random input into the parser's interesting paths.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">".to_owned()),
        Just("<sitemapindex>".to_owned()),
        Just("<url>".to_owned()),
        Just("</url>".to_owned()),
        Just("<loc>".to_owned()),
        Just("</loc>".to_owned()),
        Just("<sitemap>".to_owned()),
        Just("<lastmod>2024-01-01</lastmod>".to_owned()),
        Just("<priority>".to_owned()),
        Just("&amp;".to_owned()),
        Just("&lol;".to_owned()),
        Just("&#x0;".to_owned()),
        Just("&#xD800;".to_owned()),
        Just("&".to_owned()),
        Just("<![CDATA[".to_owned()),
        Just("]]>".to_owned()),
        Just("<!DOCTYPE x [<!ENTITY a \"b\">]>".to_owned()),
        Just("<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"".to_owned()),
        Just("\"/>".to_owned()),
        Just("https://example.com/".to_owned()),
        Just("\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("é".to_owned()),
        "[ -~]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..2048)) {
        run(&body, &Limits::default());
    }

    #[test]
    fn arbitrary_bytes_with_tight_limits(
        body in proptest::collection::vec(any::<u8>(), 0..512),
        max_bytes in 0u64..600,
        max_urls in 0u64..5,
        max_entries in 0u64..5,
        max_issues in 0u64..3,
    ) {
        let limits = Limits {
            max_uncompressed_bytes: max_bytes,
            max_urls,
            max_entries,
            max_loc_len: 30,
            max_issues_per_kind: max_issues,
        };
        run(&body, &limits);
        run(&gzip(&body), &limits);
    }

    #[test]
    fn sitemap_like_soup_never_panics(parts in proptest::collection::vec(fragment(), 0..60)) {
        let body = parts.concat();
        run(body.as_bytes(), &Limits::default());
        run(&gzip(body.as_bytes()), &Limits::default());
    }

    #[test]
    fn gzip_prefix_with_garbage_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut body = vec![0x1f, 0x8b];
        body.extend(tail);
        run(&body, &Limits::default());
    }

    #[test]
    fn mutated_sitemap_never_panics(
        cut in 0usize..2000,
        at in 0usize..2000,
        junk in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let mut body = big_urlset(10).into_bytes();
        let at = at.min(body.len());
        body.splice(at..at, junk);
        body.truncate(cut.max(1).min(body.len()));
        run(&body, &Limits::default());
    }

    #[test]
    fn any_valid_url_list_round_trips(paths in proptest::collection::vec("[a-z0-9/_-]{0,20}", 1..40)) {
        let text: String = paths.iter().map(|p| format!("https://example.com/{p}\n")).collect();
        let p = sitemap::parse(text.as_bytes(), &sm_url(), &Limits::default()).expect("parses");
        prop_assert_eq!(p.entries.len(), paths.len());
        let mut xml = String::new();
        for path in &paths {
            xml.push_str(&format!("<url><loc>https://example.com/{path}</loc></url>"));
        }
        let q = sitemap::parse(urlset(&xml).as_bytes(), &sm_url(), &Limits::default()).expect("parses");
        prop_assert!(q.issues.is_empty());
        let a: Vec<_> = p.entries.iter().map(|e| &e.loc).collect();
        let b: Vec<_> = q.entries.iter().map(|e| &e.loc).collect();
        prop_assert_eq!(a, b);
    }
}
