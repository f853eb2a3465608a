//! Fuzzes normalization and href resolution: no panic on any input, idempotence
//! for every preset, and the trail always chaining from the parse to the output.
#![no_main]

use canon::{Policy, equivalence_key, normalize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for policy in [Policy::rfc3986(), Policy::seo(), Policy::aggressive()] {
        if let Ok(n) = normalize(text, &policy) {
            let again = equivalence_key(&n.url, &policy).expect("a canonical URL normalizes");
            assert_eq!(again, n.url, "not idempotent for {text:?}");
            for pair in n.trail.windows(2) {
                assert_eq!(pair[0].after, pair[1].before);
            }
            if let Some(last) = n.trail.last() {
                assert_eq!(last.after, n.url);
            }
        }
    }
    if let Ok(base) = url::Url::parse("https://example.com/a/b?c#d") {
        let _ = canon::resolve(&base, text);
    }
});
