//! Crawler-trap spaces, left out of the URL-level comparison: which of a trap's endless
//! URLs a crawl reaches before its budget runs out depends on the crawl order, so they
//! would differ between two audits of an unchanged site.

use audit::{AuditInput, ReasonKind, UrlReason};
use rustc_hash::FxHashSet;

/// The URL patterns either audit stopped following as a trap.
pub(crate) struct Traps {
    /// Path-and-query shapes, numbers as `#` (`/calendar?month=#`).
    patterns: FxHashSet<String>,
}

/// The pattern of a numeric-pattern trap (its detail reads `over N URLs like
/// PATTERN`).
fn pattern(reason: &UrlReason) -> Option<&str> {
    if reason.kind != ReasonKind::TrapPattern {
        return None;
    }
    reason
        .detail
        .as_deref()?
        .split_once(" URLs like ")
        .map(|(_, p)| p)
}

/// Whether the `-` at `i` is a number's sign (it starts a segment, value or parameter).
fn is_sign(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'-'
        && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
        && (i == 0 || matches!(bytes[i - 1], b'/' | b'=' | b'&' | b'?' | b';' | b',' | b':'))
}

/// A URL's path and query with every number (optionally signed) replaced by `#`, as the
/// crawler writes trap patterns.
pub(crate) fn shape(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or(rest);
    let path = rest.find(['/', '?']).map_or("/", |i| &rest[i..]);
    let cut = path.char_indices().nth(200).map_or(path.len(), |(i, _)| i);
    let bytes = &path.as_bytes()[..cut];
    let mut out = Vec::with_capacity(bytes.len());
    let mut in_number = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() || (!in_number && is_sign(bytes, i)) {
            if !in_number {
                out.push(b'#');
            }
            in_number = true;
        } else {
            out.push(b);
            in_number = false;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Traps {
    pub(crate) fn new(inputs: [&AuditInput; 2]) -> Traps {
        let patterns = inputs
            .iter()
            .flat_map(|i| i.urls.iter())
            .filter_map(|u| u.reason.as_ref().and_then(pattern))
            .map(str::to_owned)
            .collect();
        Traps { patterns }
    }

    /// The URL (skipped with `reason`, if any) belongs to a trap space.
    pub(crate) fn contains(&self, url: &str, reason: Option<&UrlReason>) -> bool {
        reason.is_some_and(|r| r.kind.is_trap())
            || (!self.patterns.is_empty() && self.patterns.contains(&shape(url)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_the_crawler() {
        assert_eq!(
            shape("https://example.test/calendar?month=-19"),
            "/calendar?month=#"
        );
        assert_eq!(shape("https://example.test/cal/2024/a-3"), "/cal/#/a-#");
        assert_eq!(shape("https://example.test"), "/");
        let reason = |kind, detail: &str| UrlReason {
            kind,
            detail: Some(detail.to_owned()),
        };
        assert_eq!(
            pattern(&reason(
                ReasonKind::TrapPattern,
                "over 40 URLs like /calendar?month=#"
            )),
            Some("/calendar?month=#")
        );
        assert_eq!(
            pattern(&reason(
                ReasonKind::TrapRepeatedSegment,
                "path repeats segment \"a\""
            )),
            None
        );
    }
}
