//! Properties that hold for every input: idempotence for every preset, the rfc3986
//! preset never changing which resource a URL names, and no panic on any string.
#![allow(clippy::unwrap_used)]

use canon::{Policy, Preset, equivalence_key, normalize};
use proptest::prelude::*;

/// URL-ish strings that exercise the rules: mixed case, escapes, dots, slashes,
/// www labels, ports, index names, tracking and repeated parameters, fragments.
fn urlish() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["http", "https", "HTTP", "HtTpS"]);
    let host = prop::sample::select(vec![
        "example.com",
        "www.example.com",
        "WWW.Example.COM",
        "www.www.example.co.uk",
        "www.co.uk",
        "127.0.0.1",
        "[::1]",
        "bücher.example",
        "example.com.",
        "sub.www.example.org",
        "localhost",
    ]);
    let port = prop::sample::select(vec!["", ":80", ":443", ":8080", ":"]);
    let seg = prop::sample::select(vec![
        "a",
        "B",
        ".",
        "..",
        "%2e",
        "%7E",
        "%7e",
        "%2F",
        "%2f",
        "%3F",
        "%zz",
        "%",
        "index.html",
        "INDEX.HTML",
        "",
        "x;jsessionid=9",
        "a+b",
        "é",
        "%C3%A9",
        "default.asp",
        "Foo.Bar",
        " ",
        "\\",
    ]);
    let param = prop::sample::select(vec![
        "utm_source=x",
        "id=1",
        "id=",
        "tag=red",
        "tag=blue",
        "a=1",
        "B=2",
        "",
        "q=a+b",
        "q=a%20b",
        "q=foo/bar",
        "PHPSESSID=abc",
        "sid=1",
        "x=%2f",
        "k",
        "=v",
        "utm%5Fmedium=y",
        "z=%zz",
        "%41=1",
    ]);
    let frag = prop::sample::select(vec!["", "#", "#top", "#%7e"]);
    (
        scheme,
        host,
        port,
        prop::collection::vec(seg, 0..6),
        prop::option::of(prop::collection::vec(param, 0..5)),
        frag,
    )
        .prop_map(|(s, h, p, segs, params, f)| {
            let mut u = format!("{s}://{h}{p}");
            for seg in segs {
                u.push('/');
                u.push_str(seg);
            }
            if let Some(params) = params {
                u.push('?');
                u.push_str(&params.join("&"));
            }
            u.push_str(f);
            u
        })
}

fn presets() -> [Policy; 3] {
    [
        Preset::Rfc3986.policy(),
        Preset::Seo.policy(),
        Preset::Aggressive.policy(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn idempotent(u in urlish()) {
        for p in presets() {
            if let Ok(once) = equivalence_key(&u, &p) {
                let twice = equivalence_key(&once, &p);
                prop_assert_eq!(twice.as_ref(), Ok(&once), "input {}", u);
            }
        }
    }

    #[test]
    fn trail_matches_key(u in urlish()) {
        for p in presets() {
            if let Ok(n) = normalize(&u, &p) {
                prop_assert_eq!(&n.url, &equivalence_key(&u, &p).unwrap());
                for w in n.trail.windows(2) {
                    prop_assert_eq!(&w[0].after, &w[1].before);
                }
                if let Some(last) = n.trail.last() {
                    prop_assert_eq!(&last.after, &n.url);
                }
            }
        }
    }

    /// Under rfc3986 the output names the same resource: a WHATWG parse of it
    /// gives the same scheme, host, port, and the same path, query and fragment
    /// once escapes of unreserved characters are decoded and hex is uppercased.
    #[test]
    fn rfc3986_preserves_the_resource(u in urlish()) {
        let p = Policy::rfc3986();
        if let Ok(out) = equivalence_key(&u, &p) {
            let a = url::Url::parse(u.trim()).unwrap();
            let b = url::Url::parse(&out).unwrap();
            prop_assert_eq!(a.scheme(), b.scheme());
            prop_assert_eq!(a.host_str(), b.host_str());
            prop_assert_eq!(a.port_or_known_default(), b.port_or_known_default());
            prop_assert_eq!(same_text(a.path()), same_text(b.path()));
            prop_assert_eq!(a.query().map(same_text), b.query().map(same_text));
            prop_assert_eq!(a.fragment().map(same_text), b.fragment().map(same_text));
        }
    }

    #[test]
    fn never_panics(s in "\\PC{0,200}") {
        for p in presets() {
            let _ = normalize(&s, &p);
            let base = url::Url::parse("https://example.com/a/b").unwrap();
            let _ = canon::resolve(&base, &s);
        }
    }

    #[test]
    fn never_panics_on_url_prefixed_garbage(s in "[ -~\\u{80}-\\u{10FFFF}]{0,120}") {
        for p in presets() {
            let _ = normalize(&format!("http://{s}"), &p);
            let _ = normalize(&format!("https://example.com/{s}"), &p);
        }
    }
}

/// Decodes escapes of unreserved bytes and uppercases the rest: the RFC 3986
/// comparison ladder's safe steps.
fn same_text(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = &s[i + 1..i + 3];
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                if v.is_ascii_alphanumeric() || b"-._~".contains(&v) {
                    out.push(v as char);
                } else {
                    out.push('%');
                    out.push_str(&hex.to_ascii_uppercase());
                }
                i += 3;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}
