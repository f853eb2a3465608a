//! `cargo bench -p extract`: extraction speed on a realistic 25 KB page with 60 links.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A deterministic, realistic product/article page of about 25 KB with 60 links:
/// a head with metadata, inline CSS and JSON-LD, navigation, an article, a footer.
fn realistic_page() -> String {
    let mut s = String::with_capacity(26_000);
    s.push_str(
        r#"<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Handmade Oak Dining Table | Northwood Furniture Co.</title>
  <meta name="description" content="Solid oak dining tables, made to order in our Yorkshire workshop. Free delivery on orders over 500 pounds.">
  <meta name="robots" content="index, follow, max-image-preview:large">
  <link rel="canonical" href="https://www.northwood.example/tables/oak-dining-table">
  <link rel="alternate" hreflang="en-gb" href="https://www.northwood.example/tables/oak-dining-table">
  <link rel="alternate" hreflang="de-de" href="https://www.northwood.example/de/tische/eichen-esstisch">
  <link rel="alternate" hreflang="x-default" href="https://www.northwood.example/tables/oak-dining-table">
  <link rel="stylesheet" href="/assets/site.3f9a1c.css">
  <link rel="preload" as="font" href="/assets/inter.woff2" crossorigin>
  <style>
"#,
    );
    for i in 0..40 {
        let _ = writeln!(
            s,
            "    .c{i} {{ margin: {i}px 0 0 {i}px; padding: 4px 8px; color: #3{i:02}; font: 16px/1.4 Inter, sans-serif; }}"
        );
    }
    s.push_str("  </style>\n  <script type=\"application/ld+json\">\n  {\"@context\":\"https://schema.org\",\"@type\":\"Product\",\"name\":\"Handmade Oak Dining Table\",\"offers\":{\"@type\":\"Offer\",\"price\":\"1450.00\",\"priceCurrency\":\"GBP\"}}\n  </script>\n  <script async src=\"https://analytics.example/tag.js\"></script>\n</head>\n<body class=\"product\">\n<header class=\"site-header\">\n  <a class=\"logo\" href=\"/\"><img src=\"/logo.svg\" alt=\"Northwood Furniture\"></a>\n  <nav aria-label=\"Main\"><ul>\n");
    let sections = [
        "tables",
        "chairs",
        "sideboards",
        "beds",
        "wardrobes",
        "shelving",
        "desks",
        "benches",
        "outdoor",
        "lighting",
        "rugs",
        "mirrors",
        "sale",
        "gift-cards",
        "trade",
    ];
    for (i, sec) in sections.iter().enumerate() {
        let _ = writeln!(
            s,
            "    <li class=\"nav-item c{i}\"><a href=\"/{sec}/\" title=\"Browse {sec}\">{}</a></li>",
            sec.replace('-', " ")
        );
    }
    s.push_str("  </ul></nav>\n</header>\n<main>\n<nav class=\"breadcrumbs\"><a href=\"/\">Home</a> &rsaquo; <a href=\"/tables/\">Tables</a> &rsaquo; <span>Oak dining table</span></nav>\n<article>\n<h1>Handmade Oak Dining Table</h1>\n");
    let words = [
        "solid",
        "oak",
        "table",
        "workshop",
        "finish",
        "grain",
        "joinery",
        "seats",
        "family",
        "timber",
        "sustainable",
        "forest",
        "craftsman",
        "hand",
        "oil",
        "wax",
        "legs",
        "top",
        "extension",
        "delivery",
        "assembly",
        "warranty",
        "care",
        "scratch",
        "season",
        "kiln",
        "dried",
        "board",
        "edge",
        "bevel",
        "natural",
        "colour",
        "light",
        "dark",
        "smoked",
    ];
    let mut link = 0;
    for p in 0..27 {
        s.push_str("<p class=\"body-copy\">");
        for w in 0..70 {
            let word = words[(p * 7 + w * 3 + w / 5) % words.len()];
            if w == 35 && link < 20 {
                let _ = write!(s, "<a href=\"/guides/{word}-{p}\">{word} guide</a> ");
                link += 1;
            } else if w % 17 == 0 {
                let _ = write!(s, "<strong>{word}</strong> ");
            } else {
                s.push_str(word);
                s.push(' ');
            }
        }
        s.push_str("</p>\n");
        if p % 10 == 9 {
            s.push_str("<figure><img src=\"/img/table.jpg\" alt=\"Oak table in a dining room\" loading=\"lazy\" width=\"800\" height=\"533\"><figcaption>Shown in natural oil finish.</figcaption></figure>\n");
        }
    }
    s.push_str("</article>\n<aside><h2>You may also like</h2><ul>\n");
    for i in 0..12 {
        let _ = writeln!(
            s,
            "<li><a href=\"/tables/related-{i}?ref=pdp\" rel=\"nofollow\"><img src=\"/img/r{i}.jpg\" alt=\"Related table {i}\"></a></li>"
        );
    }
    s.push_str("</ul></aside>\n</main>\n<footer><ul>\n");
    while link + 12 + 15 + 3 < 60 {
        let _ = writeln!(
            s,
            "<li><a href=\"/help/topic-{link}\">Help topic {link}</a></li>"
        );
        link += 1;
    }
    s.push_str("</ul><p>&copy; Northwood Furniture Co. All rights reserved.</p>\n");
    s.push_str("<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>\n</footer>\n</body>\n</html>\n");
    s
}

fn bench(c: &mut Criterion) {
    let page = realistic_page();
    let bytes = page.as_bytes();
    let parsed = extract::extract(bytes, Some("text/html; charset=utf-8"));
    assert_eq!(parsed.links.len(), 60, "the page must have 60 links");
    assert!(
        (24_000..27_000).contains(&bytes.len()),
        "{} bytes",
        bytes.len()
    );

    // A plain measurement for the report, independent of criterion's output format.
    // CPU time (Linux schedstat) is shown next to wall time: on a shared machine the
    // wall time also counts the time other processes had the core.
    let n = 2_000;
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    for _ in 0..n {
        black_box(extract::extract(
            black_box(bytes),
            Some("text/html; charset=utf-8"),
        ));
    }
    let wall = start.elapsed().as_secs_f64() / f64::from(n);
    println!(
        "extract: {} bytes, {} links: wall {:.1} us/page, {:.0} pages/s, {:.1} MB/s",
        bytes.len(),
        parsed.links.len(),
        wall * 1e6,
        1.0 / wall,
        bytes.len() as f64 / wall / 1e6
    );
    if let (Some(a), Some(b)) = (cpu_start, thread_cpu_ns()) {
        let cpu = b.saturating_sub(a) as f64 / 1e9 / f64::from(n);
        println!(
            "extract: cpu {:.1} us/page, {:.0} pages/s per core, {:.1} MB/s per core",
            cpu * 1e6,
            1.0 / cpu,
            bytes.len() as f64 / cpu / 1e6
        );
    }

    let mut group = c.benchmark_group("extract");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("realistic_25k_utf8", |b| {
        b.iter(|| extract::extract(black_box(bytes), Some("text/html; charset=utf-8")));
    });
    group.bench_function("realistic_25k_sniffed", |b| {
        b.iter(|| extract::extract(black_box(bytes), None));
    });
    group.finish();

    let mut group = c.benchmark_group("fingerprint");
    let text: String = (0..2_000)
        .map(|i| {
            [
                "solid ",
                "oak ",
                "table ",
                "workshop ",
                "Finish, ",
                "grain ",
            ][i % 6]
        })
        .collect();
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("fingerprint_text_2000_words", |b| {
        b.iter(|| extract::fingerprint_text(black_box(&text)));
    });
    group.finish();

    let mut group = c.benchmark_group("headers");
    let link = r#"<https://www.example.com/a>; rel="canonical", <https://www.example.com/de/a>; rel=alternate; hreflang=de"#;
    group.bench_function("parse_link_header", |b| {
        b.iter(|| extract::parse_link_header(black_box(link)));
    });
    group.bench_function("parse_robots_directives", |b| {
        b.iter(|| {
            extract::parse_robots_directives(black_box(
                "googlebot: noindex, nofollow, max-snippet:20",
            ))
        });
    });
    group.finish();
}

/// CPU time of this thread in nanoseconds (Linux `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

criterion_group!(benches, bench);
criterion_main!(benches);
