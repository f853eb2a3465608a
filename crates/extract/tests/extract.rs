//! Field-by-field extraction on realistic snippets.

use extract::{
    CharsetSource, Encoding, LinkTag, PageDirection, Refresh, extract, simhash_distance, similarity,
};

fn page(html: &str) -> extract::Page {
    extract(html.as_bytes(), Some("text/html; charset=utf-8"))
}

#[test]
fn title_base_lang() {
    let p = page(
        "<!DOCTYPE html><html LANG='de-AT'><head>\n<title>\n  Grüne \t Äpfel |\n Shop </title>\
         <base href=' https://cdn.example/shop/ '><base href='/ignored/'><title>second</title>",
    );
    assert_eq!(p.title.as_deref(), Some("Grüne Äpfel | Shop"));
    assert_eq!(p.base_href.as_deref(), Some("https://cdn.example/shop/"));
    assert_eq!(p.lang.as_deref(), Some("de-AT"));

    let p = page("<p>no head at all</p>");
    assert_eq!(p.title, None);
    assert_eq!(p.base_href, None);
    assert_eq!(p.lang, None);

    // An empty title is not a missing one; a title in the body still counts.
    assert_eq!(page("<title></title>").title.as_deref(), Some(""));
    assert_eq!(
        page("<body><p>x</p><title>late</title>").title.as_deref(),
        Some("late")
    );
    // An SVG title is not the document title.
    assert_eq!(
        page("<body><svg><title>icon</title></svg>")
            .title
            .as_deref(),
        None
    );
    // <base> without href does not count; the first one with href does.
    assert_eq!(
        page("<base target=_blank><base href=/b/>")
            .base_href
            .as_deref(),
        Some("/b/")
    );
}

#[test]
fn meta_description_is_the_first_in_head() {
    let p = page(
        "<head><meta name=robots content=noindex>\
         <meta NAME=' Description ' content='  Oak   tables,\n made  to order. '>\
         <meta name=description content=second></head><body><p>x</p></body>",
    );
    assert_eq!(
        p.meta_description.as_deref(),
        Some("Oak tables, made to order.")
    );
    // Robots metas are still read next to it.
    assert!(p.meta_robots[0].directives.noindex);

    // None without one; an empty content is an empty description, not a missing one.
    assert_eq!(page("<title>t</title>").meta_description, None);
    assert_eq!(
        page("<meta name=description content=''>")
            .meta_description
            .as_deref(),
        Some("")
    );
    // Without content it does not count; the next one does.
    assert_eq!(
        page("<meta name=description><meta name=description content=b>")
            .meta_description
            .as_deref(),
        Some("b")
    );
    // One the parser placed in the body is not the page's description.
    assert_eq!(
        page("<body><p>x</p><meta name=description content=late></body>").meta_description,
        None
    );
    // Cut like the title, and counted.
    let long = format!("<meta name=description content='{}'>", "ab ".repeat(1000));
    let p = page(&long);
    assert_eq!(
        p.meta_description.as_ref().map(|d| d.chars().count()),
        Some(1000)
    );
    assert_eq!(p.dropped.truncated_texts, 1);
}

#[test]
fn links_in_document_order() {
    let p = page(
        r##"<html><body>
        <nav><a href="/">Home</a> <a href=" /about?x=1#team ">About
            <b>us</b></a></nav>
        <a href="javascript:void(0)">js</a><a href="mailto:a@b.example">mail</a>
        <a href="#top">top</a><a href="">empty</a><a name="anchor-only">no href</a>
        <a href="https://partner.example/" REL="NoFollow Sponsored">partner</a>
        <a href="/forum" rel="ugc noopener">forum</a>
        <a href="/img"><img src="x.png" alt=" Product   photo "></a>
        <a href="/both"><img src="x.png" alt="ignored">Text wins</a>
        <map name="m"><area href="/area" alt="Area link" shape="rect"></map>
        <a href="/blocks"><div>Line one</div><div>Line two</div></a>
        <a href="/inline">Wo<b>rd</b></a>
        <a href="/hidden">Vis<script>var x = 1;</script><style>p{}</style>ible</a>
        <template><a href="/in-template">t</a></template>
        <noscript><a href="/in-noscript">n</a></noscript>
        </body></html>"##,
    );
    let got: Vec<(&str, &str)> = p
        .links
        .iter()
        .map(|l| (l.href.as_str(), l.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("/", "Home"),
            ("/about?x=1#team", "About us"),
            ("javascript:void(0)", "js"),
            ("mailto:a@b.example", "mail"),
            ("#top", "top"),
            ("", "empty"),
            ("https://partner.example/", "partner"),
            ("/forum", "forum"),
            ("/img", "Product photo"),
            ("/both", "Text wins"),
            ("/area", "Area link"),
            ("/blocks", "Line one Line two"),
            ("/inline", "Word"),
            ("/hidden", "Visible"),
        ]
    );
    let partner = &p.links[6];
    assert!(partner.nofollow && partner.sponsored && !partner.ugc);
    let forum = &p.links[7];
    assert!(forum.ugc && !forum.nofollow);
    assert_eq!(p.links[10].tag, LinkTag::Area);
    assert_eq!(p.links[0].tag, LinkTag::A);
}

#[test]
fn misnested_links_follow_the_tree_builder() {
    // A second <a> closes the first (adoption agency), so texts do not bleed.
    let p = page("<p><a href=/one>one <a href=/two>two</a> after");
    let got: Vec<(&str, &str)> = p
        .links
        .iter()
        .map(|l| (l.href.as_str(), l.text.as_str()))
        .collect();
    assert_eq!(got, [("/one", "one"), ("/two", "two")]);
}

#[test]
fn canonical_in_head_and_in_body() {
    let p = page(
        r##"<!doctype html><html><head><title>t</title>
        <link rel="canonical" href="https://www.example.com/a">
        </head><body><p>hi</p>
        <link rel="canonical" href="/in-body">
        </body></html>"##,
    );
    let got: Vec<(&str, bool)> = p
        .canonicals
        .iter()
        .map(|c| (c.href.as_str(), c.in_head))
        .collect();
    assert_eq!(
        got,
        [("https://www.example.com/a", true), ("/in-body", false)]
    );
}

#[test]
fn canonical_after_body_only_element_lands_in_body() {
    // An <img> (or text) in <head> makes the parser close head and open body:
    // everything after it, the canonical included, is in the body.
    let p = page(
        r##"<html><head><meta charset="utf-8"><title>t</title>
        <img src="/pixel.gif">
        <link rel="canonical" href="https://example.com/moved">
        <meta name="robots" content="noindex">
        </head><body>x</body></html>"##,
    );
    assert_eq!(p.canonicals.len(), 1);
    assert!(!p.canonicals[0].in_head);
    assert!(!p.meta_robots[0].in_head);
    assert_eq!(p.title.as_deref(), Some("t"));

    let p = page("<head><title>t</title>stray text<link rel=canonical href=/c></head>");
    assert!(!p.canonicals[0].in_head);

    // A <noscript> in head is raw text with scripting on: it does not close head.
    let p = page("<head><noscript><img src=/p.gif></noscript><link rel=canonical href=/c></head>");
    assert!(p.canonicals[0].in_head);
}

#[test]
fn rel_is_a_case_insensitive_token_list() {
    let p = page(
        r##"<head>
        <LINK REL="CANONICAL" HREF="/upper">
        <link rel="Canonical alternate" href="/mixed" hreflang="en">
        <link rel=" stylesheet  canonical " href="/spaced">
        <link rel="canonicalx" href="/not-a-token">
        <link rel="noncanonical" href="/nope">
        <link rel="canonical">
        <link rel="canonical" href="">
        </head>"##,
    );
    let hrefs: Vec<&str> = p.canonicals.iter().map(|c| c.href.as_str()).collect();
    assert_eq!(hrefs, ["/upper", "/mixed", "/spaced", ""]);
    assert_eq!(p.hreflangs.len(), 1);
    assert_eq!(p.hreflangs[0].href, "/mixed");
}

#[test]
fn two_canonicals_are_both_reported() {
    let p = page(
        "<head><link rel=canonical href=https://a.example/x><link rel=canonical href=https://a.example/y></head>",
    );
    assert_eq!(p.canonicals.len(), 2);
    assert_eq!(p.canonicals[1].href, "https://a.example/y");
}

#[test]
fn hreflang_and_pagination() {
    let p = page(
        r##"<head>
        <link rel="alternate" hreflang="en" href="https://example.com/en/">
        <link rel="alternate" hreflang="DE-at" href="https://example.com/de-at/">
        <link rel="alternate" hreflang="x-default" href="https://example.com/">
        <link rel="alternate" type="application/rss+xml" href="/feed">
        <link rel="next" href="?page=3"><link rel="PREV" href="?page=1">
        <link rel="previous" href="?page=1b">
        </head><body><link rel=next href=/body-next></body>"##,
    );
    let langs: Vec<(&str, &str)> = p
        .hreflangs
        .iter()
        .map(|h| (h.hreflang.as_str(), h.href.as_str()))
        .collect();
    assert_eq!(
        langs,
        [
            ("en", "https://example.com/en/"),
            ("DE-at", "https://example.com/de-at/"),
            ("x-default", "https://example.com/"),
        ]
    );
    let pages: Vec<(PageDirection, &str, bool)> = p
        .pagination
        .iter()
        .map(|x| (x.direction, x.href.as_str(), x.in_head))
        .collect();
    assert_eq!(
        pages,
        [
            (PageDirection::Next, "?page=3", true),
            (PageDirection::Prev, "?page=1", true),
            (PageDirection::Prev, "?page=1b", true),
            (PageDirection::Next, "/body-next", false),
        ]
    );
}

#[test]
fn meta_robots() {
    let p = page(
        r##"<head>
        <meta name="ROBOTS" content="NoIndex, nofollow">
        <meta name="googlebot" content="noarchive, max-snippet:20">
        <meta name="description" content="not robots">
        <meta name="bingbot" content="none">
        <meta name="robots">
        </head>"##,
    );
    assert_eq!(p.meta_robots.len(), 4);
    let r = &p.meta_robots[0];
    assert_eq!(r.name, "robots");
    assert_eq!(r.content, "NoIndex, nofollow");
    assert!(r.directives.noindex && r.directives.nofollow);
    assert_eq!(r.directives.user_agent, None);
    assert!(r.in_head);
    let g = &p.meta_robots[1];
    assert_eq!(g.directives.user_agent.as_deref(), Some("googlebot"));
    assert!(g.directives.noarchive && !g.directives.noindex);
    assert_eq!(g.directives.max_snippet, Some(20));
    assert!(p.meta_robots[2].directives.noindex);
    assert_eq!(p.meta_robots[3].content, "");
    assert!(!p.meta_robots[3].directives.noindex);
}

#[test]
fn meta_refresh() {
    let p = page(
        r##"<head>
        <meta http-equiv="refresh" content="5; url=/x">
        <meta HTTP-EQUIV="Refresh" content="0;URL='https://example.com/new'">
        <meta http-equiv="refresh" content="30">
        <meta http-equiv="refresh" content="soon">
        </head>"##,
    );
    let got: Vec<Option<Refresh>> = p.meta_refresh.iter().map(|m| m.refresh.clone()).collect();
    assert_eq!(
        got,
        [
            Some(Refresh {
                delay_secs: 5,
                url: Some("/x".into())
            }),
            Some(Refresh {
                delay_secs: 0,
                url: Some("https://example.com/new".into())
            }),
            Some(Refresh {
                delay_secs: 30,
                url: None
            }),
            None,
        ]
    );
    assert_eq!(p.meta_refresh[3].content, "soon");
    assert!(p.meta_refresh.iter().all(|m| m.in_head));
}

fn encode(label: &str, text: &str) -> Vec<u8> {
    let enc = Encoding::for_label(label.as_bytes()).expect("known label");
    let (bytes, _, unmappable) = enc.encode(text);
    assert!(!unmappable);
    bytes.into_owned()
}

const RUSSIAN: &str = "Купить зелёные яблоки в Москве";
const JAPANESE: &str = "東京の天気予報";

#[test]
fn windows_1251_through_meta_and_header() {
    let html = format!(
        "<html><head><meta charset=\"windows-1251\"><title>{RUSSIAN}</title></head>\
         <body><a href=/x>{RUSSIAN}</a></body></html>"
    );
    let bytes = encode("windows-1251", &html);
    let p = extract(&bytes, None);
    assert_eq!(p.charset, "windows-1251");
    assert_eq!(p.charset_source, CharsetSource::Meta);
    assert_eq!(p.title.as_deref(), Some(RUSSIAN));
    assert_eq!(p.links[0].text, RUSSIAN);

    let html = format!("<title>{RUSSIAN}</title>");
    let bytes = encode("windows-1251", &html);
    let p = extract(&bytes, Some("text/html; charset=Windows-1251"));
    assert_eq!(p.charset, "windows-1251");
    assert_eq!(p.charset_source, CharsetSource::Header);
    assert_eq!(p.title.as_deref(), Some(RUSSIAN));

    // Without any declaration the bytes are windows-1252: mojibake, as in a browser.
    let p = extract(&bytes, None);
    assert_eq!(p.charset, "windows-1252");
    assert_eq!(p.charset_source, CharsetSource::Default);
    assert_ne!(p.title.as_deref(), Some(RUSSIAN));
}

#[test]
fn shift_jis_through_http_equiv_and_header() {
    let html = format!(
        "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">\
         <title>{JAPANESE}</title></head><body><p>{JAPANESE}</p></body></html>"
    );
    let bytes = encode("shift_jis", &html);
    let p = extract(&bytes, None);
    assert_eq!(p.charset, "Shift_JIS");
    assert_eq!(p.charset_source, CharsetSource::Meta);
    assert_eq!(p.title.as_deref(), Some(JAPANESE));
    assert_eq!(p.word_count, JAPANESE.chars().count() as u64);

    let bytes = encode("shift_jis", &format!("<title>{JAPANESE}</title>"));
    let p = extract(&bytes, Some("text/html;charset=\"sjis\""));
    assert_eq!(p.charset, "Shift_JIS");
    assert_eq!(p.title.as_deref(), Some(JAPANESE));
}

#[test]
fn header_beats_meta_and_bom_beats_header() {
    let bytes = encode(
        "windows-1251",
        &format!("<meta charset=koi8-r><title>{RUSSIAN}</title>"),
    );
    let p = extract(&bytes, Some("text/html; charset=windows-1251"));
    assert_eq!(p.charset, "windows-1251");
    assert_eq!(p.title.as_deref(), Some(RUSSIAN));

    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(format!("<title>{RUSSIAN}</title>").as_bytes());
    let p = extract(&bom, Some("text/html; charset=windows-1251"));
    assert_eq!(p.charset, "UTF-8");
    assert_eq!(p.charset_source, CharsetSource::Bom);
    assert_eq!(p.title.as_deref(), Some(RUSSIAN));

    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "<title>Grüße</title>".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let p = extract(&utf16, None);
    assert_eq!(p.charset, "UTF-16LE");
    assert_eq!(p.title.as_deref(), Some("Grüße"));

    // windows-1252 default: 0xE9 is é.
    let p = extract(b"<title>caf\xE9</title>", None);
    assert_eq!(p.title.as_deref(), Some("café"));
}

/// A realistic article body, deterministic: 40 distinct sentences.
fn article(change: Option<(&str, &str)>) -> String {
    let subjects = [
        "The committee",
        "Our engineer",
        "A local baker",
        "The new museum",
        "Every visitor",
    ];
    let verbs = [
        "reviewed",
        "described",
        "photographed",
        "ignored",
        "celebrated",
    ];
    let objects = [
        "the harbour bridge",
        "an old railway map",
        "seasonal apple pies",
        "the city budget",
        "a quiet garden",
        "modern glass sculptures",
        "the winter market",
        "a rare manuscript",
    ];
    let mut s = String::new();
    for i in 0..40 {
        s.push_str(&format!(
            "<p>{} {} {} on day {} of the festival.</p>\n",
            subjects[i % 5],
            verbs[(i / 5) % 5],
            objects[i % 8],
            i + 1
        ));
    }
    if let Some((from, to)) = change {
        s = s.replacen(from, to, 1);
    }
    format!("<html><head><title>News</title></head><body><article>{s}</article></body></html>")
}

#[test]
fn text_hash_ignores_whitespace_markup_and_case() {
    let a = page("<body><p>Hello   brave new\n\n World</p><p>Second para.</p></body>");
    let b = page(
        "<html><head><title>Other title</title><script>var x=1</script><style>p{}</style></head>\
         <body>\n  <div>hello <b>brave</b> <i>NEW</i> world</div>\n<section>second\tpara.</section>\
         <!-- comment --><script>ignored()</script><noscript>also ignored</noscript></body>",
    );
    assert_eq!(a.text_hash, b.text_hash);
    assert_eq!(a.simhash, b.simhash);
    assert_eq!(a.word_count, 6);
    assert_eq!(a.word_count, b.word_count);

    let c = page("<body><p>Hello brave new world</p><p>Second para!</p></body>");
    assert_ne!(
        a.text_hash, c.text_hash,
        "punctuation is part of the exact text"
    );

    // Whitespace-only re-indentation of a full page.
    let original = article(None);
    let reindented = original
        .replace('\n', "\n\t\t   ")
        .replace("> <", ">  \n <");
    assert_eq!(page(&original).text_hash, page(&reindented).text_hash);
}

#[test]
fn simhash_small_change_small_distance() {
    let a = page(&article(None));
    let b = page(&article(Some(("harbour", "harbor"))));
    assert_ne!(a.text_hash, b.text_hash);
    let d = simhash_distance(a.simhash, b.simhash);
    eprintln!("one-word change distance {d}");
    assert!(d <= 8, "one word changed: distance {d}");
    assert!(similarity(a.simhash, b.simhash) >= 0.875);
    assert!(a.word_count > 300);
}

#[test]
fn simhash_unrelated_page_large_distance() {
    let a = page(&article(None));
    let unrelated = page(
        "<body><h1>Privacy policy</h1><p>We collect the data you give us when you create an \
         account, subscribe to the newsletter or contact support. We keep it only as long as \
         the law requires and never sell it to third parties. You may ask for a copy of your \
         data, have it corrected or erased, and object to its processing at any time by \
         writing to our data protection officer. Cookies that are not strictly necessary are \
         only set after you consent, and you can withdraw consent in the settings.</p></body>",
    );
    let d = simhash_distance(a.simhash, unrelated.simhash);
    eprintln!("unrelated distance {d}");
    assert!(d >= 16, "unrelated pages: distance {d}");
}

#[test]
fn empty_and_textless_pages() {
    let p = extract(b"", None);
    assert_eq!(p.word_count, 0);
    assert_eq!(p.simhash, 0);
    assert_eq!(p.title, None);
    let q = page("<html><head><title>only a title</title></head><body><img alt=x></body>");
    assert_eq!(q.word_count, 0);
    assert_eq!(q.text_hash, p.text_hash);
}

#[test]
fn serde_round_trip() {
    let p = page(&article(None));
    let json = serde_json::to_string(&p).expect("serialize");
    let back: extract::Page = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(p, back);
    assert!(json.contains("\"charset_source\":\"header\""));
}

#[test]
fn blocks_leave_out_semantic_chrome_and_keep_main_content() {
    let html = br#"<html><head><title>T</title></head><body>
<header><a href="/">Logo</a><nav><a href="/a">Alpha page</a> <a href="/b">Beta page</a></nav></header>
<div class="sidebar"><p>Recent posts widget text here</p></div>
<main><article><header><h1>The <b>real</b> heading</h1></header>
<p>First paragraph of the article, long enough to shingle.</p><p>Second one.</p></article></main>
<aside><p>Related links everywhere</p></aside>
<footer><p>Copyright notice</p></footer></body></html>"#;
    let page = extract::extract(html, None);
    assert_eq!(page.h1.as_deref(), Some("The real heading"));
    // The sidebar div (no semantics), the article's own header (h1) and the two
    // paragraphs are blocks; nav, aside, the page header and footer are not.
    let words: Vec<u32> = page.blocks.iter().map(|b| b.words).collect();
    assert_eq!(words, vec![5, 3, 9, 2], "{:?}", page.blocks);
    assert_eq!(page.blocks[3].shingles.len(), 1);
    // Of the paragraph's 7 word 3-shingles, those whose hash is a multiple of the
    // sample rate are kept.
    let sample = extract::blocks::SHINGLE_SAMPLE;
    assert!(page.blocks[2].shingles.len() <= 7);
    assert!(page.blocks[2].shingles.iter().all(|s| s % sample == 0));
    // The same paragraph has the same block hash on another page, whatever surrounds it.
    let other = extract::extract(
        b"<body><div><p>First paragraph of the ARTICLE, long enough to shingle!</p></div></body>",
        None,
    );
    assert_eq!(other.blocks.len(), 1);
    assert_eq!(other.blocks[0].hash, page.blocks[2].hash);
    let bytes = extract::blocks::encode(&page.blocks);
    assert_eq!(
        extract::blocks::BlockReader::new(&bytes).unwrap().count(),
        4
    );
}

#[test]
fn links_know_where_in_the_page_they_sit() {
    let p = page(
        r#"<html><body>
        <header><a href="/logo">Home</a><nav><a href="/menu">Menu</a></nav></header>
        <div class="sidebar"><a href="/div-sidebar">no semantics</a></div>
        <aside><a href="/aside">Archives</a></aside>
        <main><p><a href="/in-main">read</a></p>
          <article><header><a href="/article-header">by</a></header>
          <footer><a href="/article-footer">tags</a></footer>
          <nav><a href="/pages">2</a></nav></article>
        </main>
        <footer><a href="/foot">Contact</a><nav><a href="/foot-nav">Returns</a></nav></footer>
        <p><a href="/after">after</a></p>
        </body></html>"#,
    );
    let got: Vec<(&str, &str)> = p
        .links
        .iter()
        .map(|l| (l.href.as_str(), l.region.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("/logo", "header"),
            ("/menu", "navigation"),
            ("/div-sidebar", "body"),
            ("/aside", "sidebar"),
            ("/in-main", "main"),
            ("/article-header", "main"),
            ("/article-footer", "main"),
            ("/pages", "navigation"),
            ("/foot", "footer"),
            ("/foot-nav", "footer"),
            ("/after", "body"),
        ]
    );
    for r in extract::LinkRegion::ALL {
        assert_eq!(extract::LinkRegion::parse(r.as_str()), Some(r));
    }
}

fn declared(p: &extract::Page) -> Vec<(&'static str, &str, bool)> {
    p.declared
        .iter()
        .map(|d| (d.kind.as_str(), d.href.as_str(), d.in_head))
        .collect()
}

#[test]
fn declared_urls_of_link_and_meta_elements() {
    let p = page(
        "<head>\
         <link rel=shortlink href=' /?p=31 '>\
         <link rel=alternate type=application/rss+xml href=/feed/>\
         <link rel=alternate hreflang=de href=/de/>\
         <link rel='alternate stylesheet' href=/dark.css>\
         <link rel=AmpHtml href=/post/amp/>\
         <meta property=og:url content='https://shop.example/post?utm_source=share'>\
         <meta property=og:title content='not a URL'>\
         <meta property=og:url content='  '>\
         </head><body><p>x</p><link rel=shortlink href=/body-short></body>",
    );
    assert_eq!(
        declared(&p),
        [
            ("shortlink", "/?p=31", true),
            ("alternate", "/feed/", true),
            ("amphtml", "/post/amp/", true),
            ("og_url", "https://shop.example/post?utm_source=share", true),
            ("shortlink", "/body-short", false),
        ]
    );
    // hreflang alternates stay hreflang, not declared URLs.
    assert_eq!(p.hreflangs.len(), 1);
    assert!(p.links.is_empty());
    for kind in extract::DeclaredKind::ALL {
        assert_eq!(extract::DeclaredKind::parse(kind.as_str()), Some(kind));
    }
}

#[test]
fn structured_data_ids_and_urls() {
    let p = page(
        r##"<head><script type="application/ld+json">
        {"@context": "https://schema.org", "@graph": [
          {"@type": "NewsArticle", "@id": "https://shop.example/post#article",
           "url": "http://shop.example/post",
           "image": {"@type": "ImageObject", "url": ["/img/a.jpg", "not a url", "mailto:x@y"]},
           "author": {"@id": "#author", "name": "A. Writer", "sameAs": "https://elsewhere.example/"}},
          {"@id": "https://shop.example/post#article"},
          {"url": "  https://shop.example/  "},
          {"url": "https://has space.example/"}, {"url": 7}
        ]}
        </script>
        <script type="text/javascript">var x = {"url": "https://js.example/"};</script>
        <script type="Application/LD+JSON; charset=utf-8">{"url": "//cdn.example/x"}</script>
        <script type="application/ld+json">{ not json</script>
        </head>"##,
    );
    let mut got: Vec<&str> = p.declared.iter().map(|d| d.href.as_str()).collect();
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "//cdn.example/x",
            "/img/a.jpg",
            "http://shop.example/post",
            "https://shop.example/",
            "https://shop.example/post#article",
        ]
    );
    assert!(
        p.declared
            .iter()
            .all(|d| d.kind == extract::DeclaredKind::StructuredData && d.in_head)
    );
    // A script's text is still no visible text.
    assert_eq!(p.word_count, 0);
}

#[test]
fn declared_urls_are_bounded() {
    // At most 50 distinct structured-data URLs per page, over all its blocks.
    let items: Vec<String> = (0..80)
        .map(|i| format!(r#"{{"url": "https://shop.example/{i}"}}"#))
        .collect();
    let html = format!(
        r#"<script type="application/ld+json">[{}]</script><script type="application/ld+json">{{"@id": "/more"}}</script>"#,
        items.join(",")
    );
    let p = page(&html);
    assert_eq!(p.declared.len(), extract::MAX_STRUCTURED_DATA_URLS);
    assert_eq!(p.dropped.declared, 31);

    // A block over the size cap is not read.
    let big = format!(
        r#"<script type="application/ld+json">{{"url": "https://shop.example/", "pad": "{}"}}</script>"#,
        "x".repeat(extract::MAX_JSON_LD_BYTES)
    );
    let p = page(&big);
    assert!(p.declared.is_empty());
    assert_eq!(p.dropped.large_json_ld, 1);

    // max_link_elements per kind.
    let limits = extract::Limits {
        max_link_elements: 2,
        ..extract::Limits::default()
    };
    let html = "<link rel=shortlink href=/a><link rel=shortlink href=/b><link rel=shortlink href=/c>\
                <link rel=amphtml href=/amp>";
    let p = extract::extract_with(html.as_bytes(), None, &limits);
    assert_eq!(
        declared(&p),
        [
            ("shortlink", "/a", true),
            ("shortlink", "/b", true),
            ("amphtml", "/amp", true),
        ]
    );
    assert_eq!(p.dropped.declared, 1);
}

#[test]
fn declared_urls_of_a_link_header() {
    let v = extract::declared_in_link_header(
        "<https://x/?p=7>; rel=shortlink, <https://x/>; rel=canonical, \
         </feed>; rel=alternate; type=application/rss+xml, </de/>; rel=alternate; hreflang=de, \
         </amp>; rel=amphtml, </page/2>; rel=next, </dark.css>; rel=\"alternate stylesheet\", \
         </page/0>; rel=prev",
        &extract::Limits::default(),
    );
    let got: Vec<&str> = v.iter().map(|d| d.href.as_str()).collect();
    assert_eq!(
        got,
        ["https://x/?p=7", "/feed", "/amp", "/page/2", "/page/0"]
    );
    assert!(
        v.iter()
            .all(|d| d.kind == extract::DeclaredKind::LinkHeader && d.in_head)
    );
    let limits = extract::Limits {
        max_link_elements: 1,
        ..extract::Limits::default()
    };
    assert_eq!(
        extract::declared_in_link_header("</a>; rel=next, </b>; rel=prev", &limits).len(),
        1
    );
}

#[test]
fn widgets_are_sidebars_and_a_footer_stays_a_footer_around_an_article() {
    // A classic theme's widget area in a plain `div` (a widget `section`), and a block
    // theme's "latest comments" (each comment an `article`) in the page's footer.
    let p = page(
        r#"<html><body><main><article><p>Post text.</p></article></main>
        <div id="secondary" class="widget-area"><section id="recent-comments-2"
          class="widget widget_recent_comments"><h2>Recent Comments</h2><ul><li>
          <span>Ann</span> on <a href="/post/#comment-5">Hello world</a></li></ul></section>
          <div class="other"><a href="/plain">plain</a></div></div>
        <footer><ol class="wp-block-latest-comments"><li><article><footer>
          <a href="/author/">Ann</a> on <a href="/post2/#comment-1">Hello again</a>
          </footer></article></li></ol></footer>
        </body></html>"#,
    );
    let got: Vec<(&str, &str, &str)> = p
        .links
        .iter()
        .map(|l| (l.href.as_str(), l.text.as_str(), l.region.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("/post/#comment-5", "Hello world", "sidebar"),
            ("/plain", "plain", "body"),
            ("/author/", "Ann", "footer"),
            ("/post2/#comment-1", "Hello again", "footer"),
        ]
    );
}
