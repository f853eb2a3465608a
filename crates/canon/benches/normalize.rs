//! Throughput of normalization on a seeded corpus of 100,000 realistic URLs, per
//! preset, against `url::Url::parse` + serialize alone on the same corpus.
//!
//! `cargo bench -p canon` prints criterion's figures, then a summary table with
//! URLs per second and the ratio to the parse-only baseline. With
//! `--features ada-bench` it also times the `ada-url` parser on the same corpus.

use canon::{Policy, equivalence_key, normalize};
use criterion::{Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CORPUS_SIZE: usize = 100_000;

/// A small deterministic generator (xorshift64*), so the corpus is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// URLs shaped like a crawl log of e-commerce, news and blog sites: mostly clean,
/// with the variants a crawler meets (www, case, index pages, tracking parameters,
/// unsorted queries, fragments, escapes, ports).
pub fn corpus(n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed | 1);
    let hosts = [
        "example.com",
        "shop.example.co.uk",
        "news.example.org",
        "blog.example.net",
        "example.de",
    ];
    let words = [
        "products",
        "shoes",
        "running",
        "men",
        "women",
        "sale",
        "news",
        "2024",
        "world",
        "article",
        "category",
        "blog",
        "how-to-choose",
        "review",
        "Guide",
        "about",
        "contact",
        "help",
        "faq",
        "item",
    ];
    let files = [
        "",
        "",
        "",
        "index.html",
        "page.html",
        "default.aspx",
        "item.php",
    ];
    let params = ["id", "page", "sort", "color", "size", "q", "ref", "lang"];
    let tracking = [
        "utm_source=newsletter",
        "utm_medium=email",
        "gclid=Cj0KCQ",
        "fbclid=IwAR2x",
    ];
    (0..n)
        .map(|i| {
            let mut u = String::with_capacity(120);
            u.push_str(if rng.chance(70) {
                "https://"
            } else {
                "http://"
            });
            if rng.chance(30) {
                u.push_str("www.");
            }
            let host = rng.pick(&hosts);
            if rng.chance(3) {
                u.push_str(&host.to_ascii_uppercase());
            } else {
                u.push_str(host);
            }
            if rng.chance(2) {
                u.push_str(":8080");
            }
            for _ in 0..1 + rng.next() % 4 {
                u.push('/');
                u.push_str(rng.pick(&words));
            }
            if rng.chance(10) {
                u.push_str("/%7Euser%2a");
            }
            u.push('/');
            u.push_str(rng.pick(&files));
            if rng.chance(40) {
                u.push('?');
                for k in 0..1 + rng.next() % 3 {
                    if k > 0 {
                        u.push('&');
                    }
                    u.push_str(rng.pick(&params));
                    u.push('=');
                    u.push_str(&(i as u64 * 7 + k).to_string());
                }
                if rng.chance(30) {
                    u.push('&');
                    u.push_str(rng.pick(&tracking));
                }
            }
            if rng.chance(5) {
                u.push_str("#reviews");
            }
            u
        })
        .collect()
}

fn parse_only(corpus: &[String]) -> usize {
    corpus
        .iter()
        .filter_map(|u| url::Url::parse(u).ok())
        .map(|u| String::from(u).len())
        .sum()
}

fn keys(corpus: &[String], policy: &Policy) -> usize {
    corpus
        .iter()
        .filter_map(|u| equivalence_key(u, policy).ok())
        .map(|k| k.len())
        .sum()
}

fn explained(corpus: &[String], policy: &Policy) -> usize {
    corpus
        .iter()
        .filter_map(|u| normalize(u, policy).ok())
        .map(|n| n.trail.len())
        .sum()
}

#[cfg(feature = "ada-bench")]
fn ada_parse_only(corpus: &[String]) -> usize {
    corpus
        .iter()
        .filter_map(|u| ada_url::Url::parse(u, None).ok())
        .map(|u| u.href().len())
        .sum()
}

fn benches(c: &mut Criterion) {
    let corpus = corpus(CORPUS_SIZE, 42);
    let mut g = c.benchmark_group("normalize_100k");
    g.throughput(Throughput::Elements(corpus.len() as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(6));
    g.bench_function("url_parse_serialize", |b| {
        b.iter(|| parse_only(black_box(&corpus)))
    });
    #[cfg(feature = "ada-bench")]
    g.bench_function("ada_parse_href", |b| {
        b.iter(|| ada_parse_only(black_box(&corpus)))
    });
    for (name, policy) in presets() {
        g.bench_function(format!("key_{name}"), |b| {
            b.iter(|| keys(black_box(&corpus), &policy))
        });
    }
    g.bench_function("explain_seo", |b| {
        b.iter(|| explained(black_box(&corpus), &Policy::seo()))
    });
    g.finish();
}

fn presets() -> [(&'static str, Policy); 3] {
    [
        ("rfc3986", Policy::rfc3986()),
        ("seo", Policy::seo()),
        ("aggressive", Policy::aggressive()),
    ]
}

/// Best of five timed passes over the corpus.
fn best_of(f: impl Fn() -> usize) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn summary() {
    let corpus = corpus(CORPUS_SIZE, 42);
    let base = best_of(|| parse_only(&corpus));
    let rate = |d: Duration| corpus.len() as f64 / d.as_secs_f64();
    println!("\nsummary over {} URLs (best of 5):", corpus.len());
    println!("{:<26} {:>14} {:>10}", "what", "URLs/s", "x parse");
    println!(
        "{:<26} {:>14.0} {:>10.2}",
        "url parse + serialize",
        rate(base),
        1.0
    );
    #[cfg(feature = "ada-bench")]
    {
        let ada = best_of(|| ada_parse_only(&corpus));
        println!(
            "{:<26} {:>14.0} {:>10.2}",
            "ada-url parse + href",
            rate(ada),
            ada.as_secs_f64() / base.as_secs_f64()
        );
    }
    for (name, policy) in presets() {
        let d = best_of(|| keys(&corpus, &policy));
        println!(
            "{:<26} {:>14.0} {:>10.2}",
            format!("key, {name}"),
            rate(d),
            d.as_secs_f64() / base.as_secs_f64()
        );
    }
    let d = best_of(|| explained(&corpus, &Policy::seo()));
    println!(
        "{:<26} {:>14.0} {:>10.2}",
        "normalize + trail, seo",
        rate(d),
        d.as_secs_f64() / base.as_secs_f64()
    );
}

criterion_group!(normalize_benches, benches);

fn main() {
    normalize_benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
