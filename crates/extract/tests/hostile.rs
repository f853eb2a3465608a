//! Hostile and malformed input: nothing panics, nothing blows up, bounds hold.

use std::time::{Duration, Instant};

use extract::{Limits, extract, extract_with};

/// Generous: these run in debug builds on a 2-core machine next to other builds.
const SLOW: Duration = Duration::from_secs(60);

fn timed(name: &str, body: &[u8]) -> extract::Page {
    let start = Instant::now();
    let page = extract(body, None);
    let took = start.elapsed();
    eprintln!("{name}: {} bytes in {took:?}", body.len());
    assert!(took < SLOW, "{name} took {took:?}");
    page
}

#[test]
fn deeply_nested_divs() {
    let n = 100_000;
    let mut s = "<div>".repeat(n);
    s.push_str("<a href=/deep>deep</a>");
    s.push_str(&"</div>".repeat(n));
    let page = timed("nested divs", s.as_bytes());
    assert_eq!(page.links.len(), 1);
    assert_eq!(page.links[0].text, "deep");
}

#[test]
fn deeply_nested_unclosed_mixed_tags() {
    let s = "<b><i><span><table><tr><td><a href=x>".repeat(5_000);
    let page = timed("nested mixed", s.as_bytes());
    assert!(!page.links.is_empty());
}

#[test]
fn many_misnested_formatting_elements() {
    let s = "<a href=1><b><i><u><p>x</a></b></i></u></p>".repeat(20_000);
    let page = timed("misnested", s.as_bytes());
    assert_eq!(page.links.len() as u64 + page.dropped.links, 20_000 * 2);
}

#[test]
fn fifty_megabytes_of_text() {
    let s = "lorem ipsum dolor sit amet ".repeat(50 * 1024 * 1024 / 27);
    let page = timed("50 MB text", s.as_bytes());
    assert!(page.word_count > 9_000_000);
}

#[test]
fn input_is_cut_at_the_limit() {
    let limits = Limits {
        max_input_bytes: 1_000,
        ..Limits::default()
    };
    let body = "<p>word ".repeat(1_000);
    let page = extract_with(body.as_bytes(), None, &limits);
    assert_eq!(page.dropped.input_bytes, body.len() as u64 - 1_000);
    assert_eq!(page.word_count, 125);
}

#[test]
fn invalid_utf8_and_nul_bytes() {
    let mut body = b"<html><head><title>a\0b\xff\xfe</title></head><body>".to_vec();
    body.extend_from_slice(b"\xc3\x28 \xe2\x82 \0\0 text <a href='/x\0y'>l\xffnk</a>");
    let page = extract(&body, Some("text/html; charset=utf-8"));
    assert_eq!(page.charset, "UTF-8");
    let title = page.title.expect("title");
    assert!(title.contains('\u{fffd}'), "{title:?}");
    assert_eq!(page.links.len(), 1);
    assert!(page.links[0].text.starts_with('l'));
}

#[test]
fn unclosed_everything() {
    for body in [
        &b"<a href="[..],
        b"<a href='x",
        b"<!--",
        b"<title>never closed",
        b"<link rel=canonical href=/x",
        b"<meta http-equiv=refresh content='0; url=/x",
        b"<![CDATA[",
        b"<svg><a href=x><math><mi><table><td>",
        b"<template><a href=/in-template>t</a>",
        b"<frameset><a href=/x>",
        b"<plaintext><a href=/x>",
        b"",
        b"\xef\xbb\xbf",
        b"\xff\xfe<\x00a\x00",
    ] {
        let _ = extract(body, None);
        let _ = extract(body, Some("text/html; charset=utf-16le"));
        let _ = extract(body, Some("text/html; charset=shift_jis"));
    }
}

#[test]
fn thousands_of_canonicals_and_links_are_bounded() {
    let mut s = String::from("<head>");
    for i in 0..5_000 {
        s.push_str(&format!("<link rel=canonical href=/c{i}>"));
    }
    s.push_str("</head><body>");
    for i in 0..12_000 {
        s.push_str(&format!("<a href=/l{i}>link {i}</a>"));
    }
    let page = timed("many canonicals", s.as_bytes());
    assert_eq!(page.canonicals.len(), 1_000);
    assert_eq!(page.dropped.canonicals, 4_000);
    assert_eq!(page.links.len(), 10_000);
    assert_eq!(page.dropped.links, 2_000);
    assert_eq!(page.links[9_999].href, "/l9999");
}

#[test]
fn long_texts_and_values_are_cut() {
    let long_text = "word ".repeat(1_000);
    let long_href = format!("/{}", "x".repeat(20_000));
    let body = format!("<title>{long_text}</title><a href='{long_href}'>{long_text}</a>");
    let page = extract(body.as_bytes(), None);
    assert_eq!(page.title.as_ref().map(|t| t.chars().count()), Some(999));
    assert_eq!(page.links[0].text.chars().count(), 999);
    assert_eq!(page.links[0].href.len(), 8 * 1024);
    assert_eq!(page.dropped.truncated_texts, 2);
    assert_eq!(page.dropped.truncated_values, 1);
}

#[test]
fn huge_attribute_and_many_attributes() {
    let body = format!(
        "<div {}><a href=/x title='{}'>ok</a>",
        (0..20_000).map(|i| format!("a{i}=v ")).collect::<String>(),
        "t".repeat(5_000_000)
    );
    let page = timed("attributes", body.as_bytes());
    assert_eq!(page.links[0].text, "ok");
}

#[test]
fn deep_nesting_is_counted() {
    let s = "<div>".repeat(2_000) + "x";
    let page = extract(s.as_bytes(), None);
    assert!(page.dropped.deep_start_tags > 1_000, "{:?}", page.dropped);
    assert_eq!(page.word_count, 1);
}

#[test]
fn formatting_element_reconstruction_bomb() {
    // Distinct attributes defeat the "Noah's Ark" clause: every paragraph re-creates all
    // the open formatting elements.
    let mut s = String::new();
    for i in 0..10_000 {
        s.push_str(&format!("<b id={i}>"));
    }
    s.push_str(&"<p>x</p>".repeat(10_000));
    s.push_str("<a href=/after>after</a>");
    let page = timed("reconstruction bomb", s.as_bytes());
    assert!(page.word_count > 0);
}

#[test]
fn other_deep_structures() {
    let cases = [
        ("spans", "<span>".repeat(100_000)),
        ("tables", "<table><tr><td>".repeat(30_000)),
        ("lists", "<ul><li>".repeat(50_000)),
        ("paragraphs", "<p>x".repeat(100_000)),
        ("anchors", "<a href=/x>x".repeat(100_000)),
        ("svg", "<svg>".repeat(100_000) + "<div>x"),
        ("math", "<math><mi>".repeat(50_000)),
        ("select", "<select><option>".repeat(50_000)),
        ("buttons", "<button>".repeat(100_000)),
        (
            "font",
            "<font color=red><i>".repeat(50_000) + &"<p>y</p>".repeat(1_000),
        ),
        (
            "tables in formatting",
            "<b><table><tr><td><a href=/t>".repeat(20_000),
        ),
        ("template", "<template>".repeat(100_000)),
        (
            "head junk",
            "<head>".to_owned() + &"<meta name=robots content=noindex>".repeat(50_000),
        ),
    ];
    for (name, body) in cases {
        let _ = timed(name, body.as_bytes());
    }
}

#[test]
fn node_budget_stops_tree_building() {
    let limits = Limits {
        max_nodes: 1_000,
        ..Limits::default()
    };
    let body = "<p>x</p>".repeat(5_000) + "<a href=/late>late</a>";
    let page = extract_with(body.as_bytes(), None, &limits);
    assert!(page.dropped.tokens_after_node_budget > 0);
    assert!(page.links.is_empty());
    assert!(page.word_count < 1_000);
}

#[test]
fn hostile_json_ld_declares_nothing_and_stays_bounded() {
    // Nesting past serde_json's depth limit, invalid JSON, and a huge block.
    let deep = format!(
        r#"<script type="application/ld+json">{}{{"url": "/deep"}}{}</script>"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let page = timed("deep JSON-LD", deep.as_bytes());
    assert!(page.declared.is_empty());
    let page = timed(
        "broken JSON-LD",
        br#"<script type="application/ld+json">{"url": "/x", "#,
    );
    assert!(page.declared.is_empty());
    let many = format!(
        r#"<script type="application/ld+json">[{}]</script>"#,
        vec![r#"{"url": "/same"}"#; 10_000].join(",")
    );
    let page = timed("repeated JSON-LD URL", many.as_bytes());
    assert_eq!(page.declared.len(), 1, "one distinct URL");
    // Thousands of JSON-LD blocks: each parsed once, the page keeps at most 50 URLs.
    let blocks = (0..5_000)
        .map(|i| format!(r#"<script type="application/ld+json">{{"url": "/u{i}"}}</script>"#))
        .collect::<String>();
    let page = timed("many JSON-LD blocks", blocks.as_bytes());
    assert_eq!(page.declared.len(), extract::MAX_STRUCTURED_DATA_URLS);
    // Thousands of declaring link elements: max_link_elements per kind.
    let links = "<link rel=shortlink href=/s>".repeat(5_000);
    let page = timed("many shortlinks", links.as_bytes());
    assert_eq!(page.declared.len(), 1_000);
    assert_eq!(page.dropped.declared, 4_000);
}
