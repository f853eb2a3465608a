//! The HTTP header parsers the crawler uses next to `extract`.

use extract::{parse_link_header, parse_refresh, parse_robots_directives, parse_robots_scopes};

#[test]
fn x_robots_tag_with_user_agent_prefix() {
    let d = parse_robots_directives("googlebot: noindex, nofollow");
    assert_eq!(d.user_agent.as_deref(), Some("googlebot"));
    assert!(d.noindex && d.nofollow);
    assert!(d.applies_to("googlebot") && !d.applies_to("bingbot"));

    let d = parse_robots_directives("  Googlebot :NOINDEX ");
    assert_eq!(d.user_agent.as_deref(), Some("googlebot"));
    assert!(d.noindex);

    // Valued directives are not mistaken for a user agent.
    let d = parse_robots_directives("max-image-preview:none, unavailable_after: 2031-01-01");
    assert_eq!(d.user_agent, None);
    assert_eq!(d.max_image_preview.as_deref(), Some("none"));
    assert_eq!(d.unavailable_after.as_deref(), Some("2031-01-01"));

    // Several agents in one header value.
    let s = parse_robots_scopes("googlebot: noindex, otherbot: noindex, nofollow");
    assert_eq!(s.len(), 2);
    assert!(!s[0].nofollow && s[1].nofollow);
    assert_eq!(s[1].user_agent.as_deref(), Some("otherbot"));

    // Plain value: applies to everyone.
    let d = parse_robots_directives("noindex");
    assert!(d.noindex && d.applies_to("anybot"));
}

#[test]
fn link_header_edge_cases() {
    let v = parse_link_header(
        r#"<https://example.com/page>; rel="canonical", <https://example.com/de/>; rel=alternate; hreflang=de, <https://example.com/fr/>; rel="alternate"; hreflang="fr""#,
    );
    assert_eq!(v.len(), 3);
    assert!(v[0].has_rel("canonical"));
    assert_eq!(v[1].hreflang.as_deref(), Some("de"));
    assert_eq!(v[2].hreflang.as_deref(), Some("fr"));

    // Odd spacing, case, single quotes, a multi-token rel, empty members.
    let v = parse_link_header(
        "  ,<https://a/> ;  Rel = 'Canonical Alternate' ,  , <https://b/>;rel=NEXT  ",
    );
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].rels, ["canonical", "alternate"]);
    assert!(v[1].has_rel("next"));

    // Malformed entries are skipped, the good ones kept.
    let v = parse_link_header("garbage, <https://ok/>; rel=canonical, <https://x/> ; ; =; rel=x");
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].url, "https://ok/");

    // Relative target and no rel at all.
    let v = parse_link_header("</relative/path?a=1>");
    assert_eq!(v[0].url, "/relative/path?a=1");
    assert!(v[0].rels.is_empty());
}

#[test]
fn refresh_header() {
    let r = parse_refresh("3;url=https://example.com/").expect("valid");
    assert_eq!(r.delay_secs, 3);
    assert_eq!(r.url.as_deref(), Some("https://example.com/"));
}
