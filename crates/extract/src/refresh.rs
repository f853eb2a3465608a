//! `<meta http-equiv="refresh">` content (and the `Refresh` HTTP header, same syntax).

use serde::{Deserialize, Serialize};

/// A parsed refresh value: wait `delay_secs`, then load `url` (or reload the page when
/// `url` is `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refresh {
    /// Seconds to wait (fractions are dropped; absurdly long values saturate).
    pub delay_secs: u64,
    /// The target as written (unresolved, quotes removed, trimmed), if any.
    pub url: Option<String>,
}

fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// Parses a refresh value with the HTML Standard's "shared declarative refresh steps":
/// `5`, `5; url=/x`, `0;URL='/x'`, `3, /x`, `1.5 ; Url = "/x"` all parse; a value that does
/// not start with a number (after spaces) is invalid and gives `None`.
pub fn parse_refresh(value: &str) -> Option<Refresh> {
    let s = value.trim_start_matches(is_space);
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let digits = &s[..digits_end];
    if digits.is_empty() && !s[digits_end..].starts_with('.') {
        return None;
    }
    let delay_secs = digits.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    let s = &s[digits_end..];
    let mut rest = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !rest.is_empty() {
        if !rest.starts_with(|c: char| is_space(c) || c == ';' || c == ',') {
            return None;
        }
        rest = rest.trim_start_matches(is_space);
        if let Some(r) = rest.strip_prefix([';', ',']) {
            rest = r;
        }
        rest = rest.trim_start_matches(is_space);
    }
    if rest.is_empty() {
        return Some(Refresh {
            delay_secs,
            url: None,
        });
    }
    let url = url_part(rest);
    let url = url.trim_end_matches(is_space);
    Some(Refresh {
        delay_secs,
        url: Some(url.to_owned()),
    })
}

/// The "url=" prefix and quote handling of the refresh steps; `rest` is non-empty.
fn url_part(rest: &str) -> &str {
    let mut p = rest;
    let mut has_prefix = false;
    if let Some(r) = p.strip_prefix(['u', 'U']) {
        if let Some(r) = r.strip_prefix(['r', 'R'])
            && let Some(r) = r.strip_prefix(['l', 'L'])
        {
            let r = r.trim_start_matches(is_space);
            if let Some(r) = r.strip_prefix('=') {
                p = r.trim_start_matches(is_space);
                has_prefix = true;
            }
        }
        if !has_prefix {
            // "u..." that is not "url=": the whole remainder is the URL.
            return rest;
        }
    }
    match p.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let inner = &p[1..];
            match inner.find(q) {
                Some(end) => &inner[..end],
                None => inner,
            }
        }
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(delay: u64, url: Option<&str>) -> Option<Refresh> {
        Some(Refresh {
            delay_secs: delay,
            url: url.map(str::to_owned),
        })
    }

    #[test]
    fn forms() {
        assert_eq!(parse_refresh("5"), r(5, None));
        assert_eq!(parse_refresh("5; url=/x"), r(5, Some("/x")));
        assert_eq!(
            parse_refresh("0;URL='http://a/b'"),
            r(0, Some("http://a/b"))
        );
        assert_eq!(parse_refresh("0; Url = \"/q?a=1\" "), r(0, Some("/q?a=1")));
        assert_eq!(parse_refresh("  3 ,  /y  "), r(3, Some("/y")));
        assert_eq!(parse_refresh("1.5; url=/z"), r(1, Some("/z")));
        assert_eq!(parse_refresh(".5;url=/z"), r(0, Some("/z")));
        assert_eq!(parse_refresh("0; /plain"), r(0, Some("/plain")));
        assert_eq!(
            parse_refresh("0; url='/unterminated"),
            r(0, Some("/unterminated"))
        );
        assert_eq!(parse_refresh("0; urlx"), r(0, Some("urlx")));
        assert_eq!(parse_refresh("0;"), r(0, None));
        assert_eq!(
            parse_refresh("99999999999999999999999; url=/x"),
            r(u64::MAX, Some("/x"))
        );
    }

    #[test]
    fn invalid() {
        assert_eq!(parse_refresh(""), None);
        assert_eq!(parse_refresh("url=/x"), None);
        assert_eq!(parse_refresh("5x; url=/x"), None);
        assert_eq!(parse_refresh("-1; url=/x"), None);
    }
}
