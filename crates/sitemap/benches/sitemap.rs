//! Parses a generated 50,000-URL sitemap (the protocol's maximum), plain and gzipped.
//!
//! Run with `cargo bench -p sitemap`. Each case is reported twice: as URLs/s
//! (`urls/...`) and as MB/s of uncompressed XML (`bytes/...`).

use std::hint::black_box;
use std::io::Write;
use std::ops::ControlFlow;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flate2::Compression;
use flate2::write::GzEncoder;
use sitemap::{Item, Limits, Url};

const URLS: usize = 50_000;

fn urlset(n: usize) -> Vec<u8> {
    let mut s = String::with_capacity(n * 200);
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n");
    for i in 0..n {
        s.push_str(&format!(
            "  <url>\n    <loc>https://www.example.com/catalog/category-{}/product-{i}.html?color=blue&amp;size=m</loc>\n    <lastmod>2024-05-{:02}T10:{:02}:00+00:00</lastmod>\n    <changefreq>weekly</changefreq>\n    <priority>0.{}</priority>\n",
            i % 97,
            i % 28 + 1,
            i % 60,
            i % 10
        ));
        if i % 10 == 0 {
            s.push_str(&format!(
                "    <xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://www.example.com/de/product-{i}.html\"/>\n"
            ));
        }
        s.push_str("  </url>\n");
    }
    s.push_str("</urlset>\n");
    s.into_bytes()
}

fn text(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            format!(
                "https://www.example.com/catalog/category-{}/product-{i}.html\n",
                i % 97
            )
        })
        .collect::<String>()
        .into_bytes()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).expect("in memory");
    enc.finish().expect("in memory")
}

fn bench(c: &mut Criterion) {
    let sitemap_url = Url::parse("https://www.example.com/sitemap.xml").expect("valid");
    let limits = Limits::default();
    let xml = urlset(URLS);
    let xml_gz = gzip(&xml);
    let txt = text(URLS);
    let check = sitemap::parse(&xml, &sitemap_url, &limits).expect("parses");
    assert_eq!(check.entries.len(), URLS);
    assert!(check.issues.is_empty(), "{:?}", check.issues.first());
    eprintln!(
        "50,000-URL sitemap: {} bytes of XML, {} bytes gzipped, {} bytes of text",
        xml.len(),
        xml_gz.len(),
        txt.len()
    );

    let cases: [(&str, &[u8], u64); 3] = [
        ("xml", &xml, xml.len() as u64),
        ("xml_gz", &xml_gz, xml.len() as u64),
        ("text", &txt, txt.len() as u64),
    ];
    for (unit, throughput) in [("urls", None), ("bytes", Some(()))] {
        let mut group = c.benchmark_group(unit);
        group.sample_size(20);
        group.measurement_time(Duration::from_secs(8));
        for (name, body, size) in cases {
            group.throughput(match throughput {
                None => Throughput::Elements(URLS as u64),
                Some(()) => Throughput::Bytes(size),
            });
            group.bench_function(name, |b| {
                b.iter(|| {
                    let p = sitemap::parse(black_box(body), &sitemap_url, &limits).expect("parses");
                    assert_eq!(p.entries.len(), URLS);
                    p
                });
            });
        }
        group.throughput(match throughput {
            None => Throughput::Elements(URLS as u64),
            Some(()) => Throughput::Bytes(xml.len() as u64),
        });
        // The streaming flavour, counting entries instead of collecting them.
        group.bench_function("xml_gz_streaming", |b| {
            b.iter(|| {
                let mut n = 0usize;
                sitemap::parse_with(black_box(&xml_gz[..]), &sitemap_url, &limits, |item| {
                    if let Item::Url(e) = item {
                        n += e.loc.len().min(1);
                    }
                    ControlFlow::Continue(())
                })
                .expect("parses");
                assert_eq!(n, URLS);
            });
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
