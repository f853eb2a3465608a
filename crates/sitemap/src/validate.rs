//! Value checks of the sitemap protocol: W3C datetimes, priorities, change frequencies
//! and `<loc>` URLs relative to the sitemap's own URL.

use url::Url;

use crate::ChangeFreq;
use crate::issue::IssueKind;

/// Whether `s` is a W3C datetime (<https://www.w3.org/TR/NOTE-datetime>), the format the
/// sitemap protocol requires for `<lastmod>`.
///
/// Accepted: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mmTZD`,
/// `YYYY-MM-DDThh:mm:ssTZD` and `YYYY-MM-DDThh:mm:ss.sTZD` (any number of fraction
/// digits), where `TZD` is `Z` or `+hh:mm` / `-hh:mm`. Calendar ranges are checked
/// (month 1-12, day within the month, leap years, hour 0-23, minute 0-59, second 0-60).
/// A time without a zone designator, or a lowercase `t`/`z`, is rejected.
///
/// ```
/// assert!(sitemap::is_w3c_datetime("2024-02-29T13:45:00+01:00"));
/// assert!(sitemap::is_w3c_datetime("2024-02"));
/// assert!(!sitemap::is_w3c_datetime("2023-02-29"));
/// assert!(!sitemap::is_w3c_datetime("2024-01-01 10:00:00"));
/// ```
pub fn is_w3c_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(year) = digits(b, 0, 4) else {
        return false;
    };
    if b.len() == 4 {
        return true;
    }
    if b.get(4) != Some(&b'-') {
        return false;
    }
    let Some(month) = digits(b, 5, 2).filter(|m| (1..=12).contains(m)) else {
        return false;
    };
    if b.len() == 7 {
        return true;
    }
    if b.get(7) != Some(&b'-') {
        return false;
    }
    if digits(b, 8, 2)
        .filter(|&d| d >= 1 && d <= days_in_month(year, month))
        .is_none()
    {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if b.get(10) != Some(&b'T') {
        return false;
    }
    if digits(b, 11, 2).filter(|&h| h <= 23).is_none()
        || b.get(13) != Some(&b':')
        || digits(b, 14, 2).filter(|&m| m <= 59).is_none()
    {
        return false;
    }
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        if digits(b, i + 1, 2).filter(|&sec| sec <= 60).is_none() {
            return false;
        }
        i += 3;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            digits(b, i + 1, 2).is_some_and(|h| h <= 23)
                && b.get(i + 3) == Some(&b':')
                && digits(b, i + 4, 2).is_some_and(|m| m <= 59)
                && i + 6 == b.len()
        }
        _ => false,
    }
}

/// Parses `len` ASCII digits at `at`.
fn digits(b: &[u8], at: usize, len: usize) -> Option<u32> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0u32, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses a `<priority>`: a plain decimal (`0.8`, `1`, `.5`, `1.0`) from 0.0 to 1.0.
/// Signs, exponents, `NaN` and `inf` are rejected.
pub(crate) fn parse_priority(s: &str) -> Option<f32> {
    let mut dots = 0;
    let mut digit_count = 0;
    for c in s.bytes() {
        match c {
            b'0'..=b'9' => digit_count += 1,
            b'.' => dots += 1,
            _ => return None,
        }
    }
    if digit_count == 0 || dots > 1 {
        return None;
    }
    let value: f32 = s.parse().ok()?;
    (0.0..=1.0).contains(&value).then_some(value)
}

/// Parses a `<changefreq>` (ASCII case-insensitive).
pub(crate) fn parse_changefreq(s: &str) -> Option<ChangeFreq> {
    ChangeFreq::ALL
        .iter()
        .copied()
        .find(|f| f.as_str().eq_ignore_ascii_case(s))
}

/// Trims XML whitespace (space, tab, CR, LF), which is legal around values.
pub(crate) fn trim_xml(s: &str) -> &str {
    s.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
}

/// The sitemap's own URL, as the reference for the host, scheme and path rules.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    /// Scheme, host and port of an http(s) sitemap URL; `None` disables the cross checks.
    origin: Option<(String, String, Option<u16>)>,
    /// The sitemap's directory: its path up to and including the last `/`.
    dir: String,
}

impl Base {
    pub(crate) fn new(sitemap_url: &Url) -> Base {
        let origin = match (sitemap_url.scheme(), sitemap_url.host_str()) {
            ("http" | "https", Some(host)) if !host.is_empty() => Some((
                sitemap_url.scheme().to_owned(),
                host.to_owned(),
                sitemap_url.port_or_known_default(),
            )),
            _ => None,
        };
        let path = sitemap_url.path();
        let dir = match path.rfind('/') {
            Some(i) => path[..=i].to_owned(),
            None => "/".to_owned(),
        };
        Base { origin, dir }
    }
}

/// What [`check_loc`] found: the issues to record, and whether the entry is usable.
#[derive(Debug, Default)]
pub(crate) struct LocCheck {
    /// Issues with their messages, in the order found.
    pub(crate) issues: Vec<(IssueKind, String)>,
    /// `false` when the loc is not a usable absolute http(s) URL.
    pub(crate) keep: bool,
}

/// Checks a trimmed, non-empty `<loc>` value.
///
/// `path_rule` applies the protocol's directory rule (for URL entries, not for the
/// child sitemaps of an index).
pub(crate) fn check_loc(loc: &str, base: &Base, max_len: usize, path_rule: bool) -> LocCheck {
    let mut check = LocCheck::default();
    let chars = loc.chars().count();
    if chars > max_len {
        check.issues.push((
            IssueKind::LocTooLong,
            format!("<loc> is {chars} characters long; the limit is {max_len}"),
        ));
    }
    let lower_prefix: String = loc
        .chars()
        .take(8)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if !(lower_prefix.starts_with("http://") || lower_prefix.starts_with("https://")) {
        let why = if loc.starts_with('/') || !loc.contains(':') {
            "a relative URL"
        } else {
            "not an http(s) URL"
        };
        check.issues.push((
            IssueKind::InvalidLoc,
            format!("<loc> must be an absolute http(s) URL, found {why}"),
        ));
        return check;
    }
    let url = match Url::parse(loc) {
        Ok(url) if url.host_str().is_some_and(|h| !h.is_empty()) => url,
        Ok(_) => {
            check
                .issues
                .push((IssueKind::InvalidLoc, "<loc> has no host".to_owned()));
            return check;
        }
        Err(e) => {
            check.issues.push((
                IssueKind::InvalidLoc,
                format!("<loc> is not a valid URL: {e}"),
            ));
            return check;
        }
    };
    check.keep = true;
    if let Some((scheme, host, port)) = &base.origin {
        let loc_host = url.host_str().unwrap_or_default();
        if loc_host != host {
            check.issues.push((
                IssueKind::CrossHost,
                format!("<loc> is on host {loc_host}, the sitemap on {host}"),
            ));
        } else if url.scheme() != scheme {
            check.issues.push((
                IssueKind::CrossScheme,
                format!("<loc> uses {}://, the sitemap {scheme}://", url.scheme()),
            ));
        } else if url.port_or_known_default() != *port {
            check.issues.push((
                IssueKind::CrossHost,
                format!(
                    "<loc> is on port {}, the sitemap on port {}",
                    fmt_port(url.port_or_known_default()),
                    fmt_port(*port)
                ),
            ));
        } else if path_rule && !url.path().starts_with(&base.dir) {
            check.issues.push((
                IssueKind::OutsidePath,
                format!(
                    "<loc> is outside the sitemap's directory {} (allowed only when submitted through robots.txt)",
                    base.dir
                ),
            ));
        }
    }
    check
}

fn fmt_port(port: Option<u16>) -> String {
    port.map_or_else(|| "none".to_owned(), |p| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn w3c_datetimes() {
        for ok in [
            "1997",
            "1997-07",
            "1997-07-16",
            "1997-07-16T19:20+01:00",
            "1997-07-16T19:20:30+01:00",
            "1997-07-16T19:20:30.45+01:00",
            "1997-07-16T19:20:30Z",
            "2000-02-29",
            "2024-12-31T23:59:60Z",
        ] {
            assert!(is_w3c_datetime(ok), "{ok}");
        }
        for bad in [
            "",
            "97",
            "1997-7-16",
            "1997-13",
            "1997-00",
            "1900-02-29",
            "1997-04-31",
            "1997-07-16T19:20",
            "1997-07-16T19:20:30",
            "1997-07-16 19:20:30Z",
            "1997-07-16t19:20:30z",
            "1997-07-16T24:00Z",
            "1997-07-16T19:20:30.Z",
            "1997-07-16T19:20:30+0100",
            "1997-07-16T19:20:30+01:00x",
            "16/07/1997",
            "yesterday",
            "1997-07-16Z",
        ] {
            assert!(!is_w3c_datetime(bad), "{bad}");
        }
    }

    #[test]
    fn priorities() {
        assert_eq!(parse_priority("0.8"), Some(0.8));
        assert_eq!(parse_priority("1"), Some(1.0));
        assert_eq!(parse_priority("1.0"), Some(1.0));
        assert_eq!(parse_priority(".5"), Some(0.5));
        assert_eq!(parse_priority("0"), Some(0.0));
        for bad in [
            "", ".", "1.5", "-0.1", "+0.5", "1e0", "NaN", "inf", "0.5.1", "high",
        ] {
            assert_eq!(parse_priority(bad), None, "{bad}");
        }
    }

    #[test]
    fn changefreqs() {
        assert_eq!(parse_changefreq("daily"), Some(ChangeFreq::Daily));
        assert_eq!(parse_changefreq("Weekly"), Some(ChangeFreq::Weekly));
        assert_eq!(parse_changefreq("sometimes"), None);
    }

    fn kinds(loc: &str, sitemap: &str) -> (bool, Vec<IssueKind>) {
        let base = Base::new(&Url::parse(sitemap).expect("test URL"));
        let c = check_loc(loc, &base, 2048, true);
        (c.keep, c.issues.into_iter().map(|(k, _)| k).collect())
    }

    #[test]
    fn loc_rules() {
        let sm = "https://example.com/sitemap.xml";
        assert_eq!(kinds("https://example.com/a", sm), (true, vec![]));
        assert_eq!(kinds("HTTPS://EXAMPLE.com/a", sm), (true, vec![]));
        assert_eq!(
            kinds("https://www.example.com/a", sm),
            (true, vec![IssueKind::CrossHost])
        );
        assert_eq!(
            kinds("http://example.com/a", sm),
            (true, vec![IssueKind::CrossScheme])
        );
        assert_eq!(
            kinds("https://example.com:8443/a", sm),
            (true, vec![IssueKind::CrossHost])
        );
        assert_eq!(kinds("https://example.com:443/a", sm), (true, vec![]));
        assert_eq!(kinds("/a", sm), (false, vec![IssueKind::InvalidLoc]));
        assert_eq!(
            kinds("ftp://example.com/a", sm),
            (false, vec![IssueKind::InvalidLoc])
        );
        assert_eq!(
            kinds("http:example.com", sm),
            (false, vec![IssueKind::InvalidLoc])
        );
        assert_eq!(kinds("https://", sm), (false, vec![IssueKind::InvalidLoc]));
        assert_eq!(
            kinds(
                "https://example.com/b",
                "https://example.com/catalog/sitemap.xml"
            ),
            (true, vec![IssueKind::OutsidePath])
        );
        assert_eq!(
            kinds(
                "https://example.com/catalog/b",
                "https://example.com/catalog/sitemap.xml"
            ),
            (true, vec![])
        );
        let long = format!("https://example.com/{}", "a".repeat(2100));
        assert_eq!(kinds(&long, sm), (true, vec![IssueKind::LocTooLong]));
        // No cross checks against a non-http sitemap URL.
        assert_eq!(
            kinds("https://other.example/a", "file:///tmp/sitemap.xml"),
            (true, vec![])
        );
    }
}
