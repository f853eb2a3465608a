//! The vocabulary's forms: one text per variant, read back the same way by `parse`,
//! `FromStr` and serde.

#![allow(clippy::unwrap_used)]

use vocab::{FetchErrorKind, LinkKind, ReasonKind, UrlReason, Words};

fn check<T>()
where
    T: Words + std::fmt::Debug + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
{
    let mut seen = std::collections::BTreeSet::new();
    for &w in T::ALL {
        let text = w.as_str();
        assert!(seen.insert(text), "{text} twice");
        assert_eq!(T::parse(text), Some(w));
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), w);
    }
    assert_eq!(T::parse("no such word"), None);
}

#[test]
fn every_word_reads_back_from_its_text_and_its_serde_form() {
    check::<vocab::UrlState>();
    check::<vocab::FoundVia>();
    check::<vocab::ReasonKind>();
    check::<vocab::HopKind>();
    check::<vocab::DeclarationSource>();
    check::<vocab::LinkRegion>();
    check::<vocab::LinkKind>();
    check::<vocab::ChainProblem>();
    check::<vocab::ProbeRule>();
    check::<vocab::FetchErrorKind>();
    assert_eq!(vocab::all().len(), 10);
}

#[test]
fn an_unknown_link_tag_reads_as_other() {
    let k: LinkKind = serde_json::from_str("\"blink\"").unwrap();
    assert_eq!(k, LinkKind::Other);
    assert_eq!("blink".parse::<LinkKind>().ok(), None);
    let err = "blink".parse::<LinkKind>().unwrap_err();
    assert_eq!(err.to_string(), "\"blink\" is no LinkKind");
}

#[test]
fn a_reason_reads_back_from_its_display_form_and_the_old_trap_text() {
    let r = UrlReason::with_detail(ReasonKind::TrapPattern, "over 10 URLs like /p/N");
    assert_eq!(r.to_string(), "trap_pattern: over 10 URLs like /p/N");
    assert_eq!(r.to_string().parse::<UrlReason>(), Ok(r.clone()));
    assert_eq!("trap: over 10 URLs like /p/N".parse::<UrlReason>(), Ok(r));
    assert!("nonsense: x".parse::<UrlReason>().is_err());
}

#[test]
fn the_refusals_made_before_any_request_are_four() {
    let refused: Vec<&str> = FetchErrorKind::ALL
        .into_iter()
        .filter(|k| k.refused_before_request())
        .map(FetchErrorKind::as_str)
        .collect();
    assert_eq!(
        refused,
        [
            "invalid_url",
            "out_of_scope",
            "address_refused",
            "robots_txt"
        ]
    );
    // Every fetch error a crawl records about a URL is a reason kind too, but for the
    // extractor's failure, which leaves the URL fetched.
    for k in FetchErrorKind::ALL {
        assert_eq!(
            ReasonKind::parse(k.as_str()).is_some(),
            k != FetchErrorKind::Extract,
            "{k}"
        );
    }
}
