//! HREFLANG-* findings.

use super::*;
use crate::checks::hreflang_code;

const EN: &str = "https://example.com/en/";
const DE: &str = "https://example.com/de/";
const FR: &str = "https://example.com/fr/";

/// A clean en/de set with x-default: no finding.
fn clean() -> B {
    let mut b = B::new();
    b.page(EN, 1).page(DE, 2);
    for p in [EN, DE] {
        b.hreflang(p, "en", EN)
            .hreflang(p, "de", DE)
            .hreflang(p, "x-default", EN);
    }
    b
}

fn codes(a: &Analysis) -> Vec<&str> {
    let mut v: Vec<&str> = a
        .findings
        .iter()
        .filter(|f| f.id.code().starts_with("HREFLANG"))
        .map(|f| f.id.code())
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn a_clean_set_has_no_finding() {
    assert!(
        clean().analyse().findings.is_empty(),
        "{:#?}",
        clean().analyse().findings
    );
}

#[test]
fn language_codes() {
    for ok in [
        "en",
        "en-US",
        "de-CH",
        "zh-Hant-TW",
        "es-419",
        "x-default",
        "EN-gb",
    ] {
        assert_eq!(hreflang_code(ok), (true, None), "{ok}");
    }
    for (bad, meant) in [
        ("en_US", Some("en-US")),
        ("en-UK", Some("en-GB")),
        ("jp", Some("ja")),
        ("english", None),
        ("e", None),
        ("en-USA", None),
        ("", None),
    ] {
        assert_eq!(
            hreflang_code(bad),
            (false, meant.map(str::to_owned)),
            "{bad}"
        );
    }
}

#[test]
fn invalid_codes_get_the_code_meant() {
    let mut b = clean();
    b.page(FR, 3)
        .hreflang(EN, "fr_FR", FR)
        .hreflang(DE, "fr_FR", FR);
    for l in ["en", "de"] {
        b.hreflang(FR, l, if l == "en" { EN } else { DE });
    }
    b.hreflang(FR, "fr-FR", FR).hreflang(FR, "x-default", EN);
    let a = b.analyse();
    assert_eq!(
        codes(&a),
        ["HREFLANG-INVALID-LANG", "HREFLANG-INVALID-LANG"]
    );
    let f = a
        .findings
        .iter()
        .find(|f| f.key == format!("HREFLANG-INVALID-LANG {EN} fr_FR"))
        .unwrap();
    assert_eq!(
        f.fixes[1],
        Fix::SetHreflang {
            page: EN.into(),
            lang: "fr-FR".into(),
            href: FR.into()
        }
    );
}

#[test]
fn targets_that_redirect_fail_are_noindex_or_duplicates() {
    let mut b = clean();
    let (moved, gone, hidden, dup) = (
        "https://example.com/es",
        "https://example.com/it/",
        "https://example.com/nl/",
        "https://example.com/pt/?utm_source=x",
    );
    b.redirect(moved, "https://example.com/es/", 301)
        .page("https://example.com/es/", 10)
        .status(gone, 404)
        .page(hidden, 11)
        .noindex(hidden)
        .page(dup, 12)
        .page("https://example.com/pt/", 12)
        .hreflang(EN, "es", moved)
        .hreflang(EN, "it", gone)
        .hreflang(EN, "nl", hidden)
        .hreflang(EN, "pt", dup);
    let a = b.analyse();
    let redirect = only(&a, FindingId::HreflangToRedirect);
    assert_eq!(
        redirect.fixes,
        [Fix::SetHreflang {
            page: EN.into(),
            lang: "es".into(),
            href: "https://example.com/es/".into()
        }]
    );
    let error = only(&a, FindingId::HreflangToError);
    assert_eq!(error.urls, [EN, gone]);
    assert_eq!(only(&a, FindingId::HreflangToNoindex).urls, [EN, hidden]);
    let dup_f = only(&a, FindingId::HreflangNonPreferred);
    assert_eq!(
        dup_f.fixes,
        [Fix::SetHreflang {
            page: EN.into(),
            lang: "pt".into(),
            href: "https://example.com/pt/".into()
        }]
    );
    // None of those gets a missing-return finding on top.
    assert_eq!(a.findings_with(FindingId::HreflangNoReturn).count(), 0);
}

#[test]
fn a_missing_return_link_and_self_reference() {
    let mut b = clean();
    // FR names EN and DE, neither names FR back; FR does not name itself.
    b.page(FR, 3).hreflang(FR, "en", EN).hreflang(FR, "de", DE);
    let a = b.analyse();
    assert_eq!(
        codes(&a),
        [
            "HREFLANG-NO-RETURN",
            "HREFLANG-NO-RETURN",
            "HREFLANG-NO-SELF"
        ]
    );
    let back = a
        .findings
        .iter()
        .find(|f| f.key == format!("HREFLANG-NO-RETURN {FR} {EN}"))
        .unwrap();
    assert_eq!(
        back.fixes,
        [Fix::SetHreflang {
            page: EN.into(),
            lang: "(its language)".into(),
            href: FR.into()
        }]
    );
    let own = only(&a, FindingId::HreflangNoSelf);
    assert_eq!(own.urls, [FR]);
}

#[test]
fn conflicts_and_x_default_disagreement() {
    let mut b = clean();
    b.page(FR, 3).hreflang(EN, "de", FR);
    // DE's x-default is another page than EN's.
    b.input
        .hreflang
        .retain(|h| !(h.page == 2 && h.lang == "x-default"));
    b.hreflang(DE, "x-default", DE);
    let a = b.analyse();
    let c = only(&a, FindingId::HreflangConflict);
    assert_eq!(c.key, format!("HREFLANG-CONFLICT {EN} de"));
    assert_eq!(c.fixes.len(), 1, "{c:#?}");
    let x = only(&a, FindingId::HreflangXDefault);
    assert_eq!(x.key, format!("HREFLANG-X-DEFAULT {DE} {EN}"));
}
