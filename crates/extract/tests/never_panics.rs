//! Property tests: arbitrary input never panics.

use proptest::prelude::*;

/// Pieces that make arbitrary strings look like the markup the parsers care about.
fn htmlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<a href=".to_owned()),
        Just("<link rel=canonical href=".to_owned()),
        Just("<meta name=robots content=".to_owned()),
        Just("<meta http-equiv=refresh content='".to_owned()),
        Just("<meta charset=".to_owned()),
        Just("<title>".to_owned()),
        Just("</title>".to_owned()),
        Just("<head>".to_owned()),
        Just("<body>".to_owned()),
        Just("<table><tr><td>".to_owned()),
        Just("<svg><a href=x>".to_owned()),
        Just("<template>".to_owned()),
        Just("<script>".to_owned()),
        Just("<script type=application/ld+json>{\"url\": [\"/".to_owned()),
        Just("\"@id\": {\"url\": ".to_owned()),
        Just("</script>".to_owned()),
        Just("<link rel=shortlink href=".to_owned()),
        Just("<meta property=og:url content=".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just("<img alt='".to_owned()),
        Just("<b id=1>".to_owned()),
        Just("</b>".to_owned()),
        Just("<p>".to_owned()),
        Just("<div>".to_owned()),
        Just("</div>".to_owned()),
        Just(">".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("\0".to_owned()),
        "[a-z ;=:,/.-]{0,12}",
        "\\PC{0,6}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn extract_never_panics_on_bytes(
        body in prop::collection::vec(any::<u8>(), 0..4096),
        ct in prop::option::of("[ -~]{0,40}"),
    ) {
        let page = extract::extract(&body, ct.as_deref());
        prop_assert!(page.links.len() <= 10_000);
    }

    #[test]
    fn extract_never_panics_on_htmlish(html in htmlish()) {
        let _ = extract::extract(html.as_bytes(), None);
        let _ = extract::extract(html.as_bytes(), Some("text/html; charset=shift_jis"));
    }

    #[test]
    fn link_header_never_panics(value in "\\PC{0,200}") {
        let _ = extract::parse_link_header(&value);
        let declared = extract::declared_in_link_header(&value, &extract::Limits::default());
        prop_assert!(declared.len() <= 1_000);
    }

    #[test]
    fn link_header_never_panics_on_linkish(
        parts in prop::collection::vec(
            prop_oneof![
                Just("<".to_owned()), Just(">".to_owned()), Just(";".to_owned()),
                Just(",".to_owned()), Just("=".to_owned()), Just("\"".to_owned()),
                Just("'".to_owned()), Just("\\".to_owned()), Just(" ".to_owned()),
                Just("rel".to_owned()), Just("canonical".to_owned()), Just("é".to_owned()),
                "[a-z:/.]{0,8}",
            ],
            0..40,
        )
    ) {
        let value = parts.concat();
        for entry in extract::parse_link_header(&value) {
            prop_assert!(!entry.url.contains('>'));
        }
    }

    #[test]
    fn header_parsers_never_panic(value in "\\PC{0,120}") {
        let _ = extract::parse_robots_directives(&value);
        let _ = extract::parse_robots_scopes(&value);
        let _ = extract::parse_refresh(&value);
        let _ = extract::charset_from_content_type(&value);
    }
}
