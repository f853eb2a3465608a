//! Robots directives (`<meta name="robots">` content and the `X-Robots-Tag` header).

use serde::{Deserialize, Serialize};

/// The directives of one robots value, for one user agent scope.
///
/// Flags are the union of what the value says; where a value contradicts itself
/// (`index, noindex`) the restrictive directive wins, as Google documents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsDirectives {
    /// The user agent the directives are scoped to (`googlebot: noindex` gives
    /// `Some("googlebot")`, lowercased); `None` means every crawler.
    pub user_agent: Option<String>,
    /// `noindex` (or `none`).
    pub noindex: bool,
    /// `nofollow` (or `none`).
    pub nofollow: bool,
    /// `noarchive` (or Bing's `nocache`).
    pub noarchive: bool,
    /// `nosnippet`.
    pub nosnippet: bool,
    /// `noimageindex`.
    pub noimageindex: bool,
    /// `notranslate`.
    pub notranslate: bool,
    /// `indexifembedded`.
    pub indexifembedded: bool,
    /// `max-snippet: N` (`-1` means no limit).
    pub max_snippet: Option<i64>,
    /// `max-image-preview: none|standard|large` (lowercased, as written).
    pub max_image_preview: Option<String>,
    /// `max-video-preview: N` (`-1` means no limit).
    pub max_video_preview: Option<i64>,
    /// `unavailable_after: DATE` (the date as written).
    pub unavailable_after: Option<String>,
    /// Every directive as written (trimmed, in order), the user agent prefix excluded.
    pub raw: Vec<String>,
    /// The directives that were not recognised (trimmed, as written).
    pub unknown: Vec<String>,
}

impl RobotsDirectives {
    /// Whether these directives apply to a crawler with this user agent token
    /// (case-insensitive): unscoped directives apply to every crawler.
    pub fn applies_to(&self, user_agent: &str) -> bool {
        self.user_agent
            .as_deref()
            .is_none_or(|ua| ua.eq_ignore_ascii_case(user_agent.trim()))
    }
}

/// Directive names that take a `name: value` argument.
const VALUED: [&str; 4] = [
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
];

/// Directive names that stand alone.
const FLAGS: [&str; 15] = [
    "all",
    "none",
    "index",
    "noindex",
    "follow",
    "nofollow",
    "noarchive",
    "nocache",
    "nosnippet",
    "noimageindex",
    "notranslate",
    "indexifembedded",
    "noodp",
    "noydir",
    "noyaca",
];

fn is_known(name: &str) -> bool {
    VALUED
        .iter()
        .chain(FLAGS.iter())
        .any(|k| k.eq_ignore_ascii_case(name))
}

fn looks_like_agent(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b' '))
}

/// Parses a robots value (`<meta name=robots content>` or an `X-Robots-Tag` header value).
///
/// Directives are separated by commas (semicolons and, between bare words, spaces are
/// tolerated); names are case-insensitive. A leading user agent prefix
/// (`googlebot: noindex, nofollow`) sets [`RobotsDirectives::user_agent`]. When one value
/// names several user agents (`googlebot: noindex, bingbot: nofollow`), this returns the
/// first scope only: use [`parse_robots_scopes`] to get them all.
pub fn parse_robots_directives(value: &str) -> RobotsDirectives {
    parse_robots_scopes(value)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// Parses a robots value into one [`RobotsDirectives`] per user agent scope, in order:
/// `googlebot: noindex, bingbot: nofollow, noarchive` gives a `googlebot` scope with
/// `noindex` and a `bingbot` scope with `nofollow` and `noarchive`. Directives before any
/// prefix form an unscoped first entry. Never empty.
pub fn parse_robots_scopes(value: &str) -> Vec<RobotsDirectives> {
    let mut scopes = vec![RobotsDirectives::default()];
    let mut last_was_unavailable_after = false;
    for part in value.split([',', ';']) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some((name, rest)) = part.split_once(':') {
            let name_t = name.trim();
            if is_known(name_t) {
                apply(scopes.last_mut(), name_t, Some(rest.trim()), part);
                last_was_unavailable_after = name_t.eq_ignore_ascii_case("unavailable_after");
                continue;
            }
            if last_was_unavailable_after {
                // A date with a comma in it ("Friday, 25-Jun-10 15:00:00 GMT").
                extend_date(scopes.last_mut(), part);
                continue;
            }
            if looks_like_agent(name_t) {
                let current = scopes.last();
                let start_new = current.is_some_and(|s| {
                    s.user_agent.is_some() || !s.raw.is_empty() || !s.unknown.is_empty()
                });
                if start_new {
                    scopes.push(RobotsDirectives::default());
                }
                if let Some(scope) = scopes.last_mut() {
                    scope.user_agent = Some(name_t.to_ascii_lowercase());
                }
                let rest = rest.trim();
                if !rest.is_empty() {
                    apply_words(scopes.last_mut(), rest, &mut last_was_unavailable_after);
                }
                continue;
            }
        }
        if last_was_unavailable_after && !is_known(part.split_whitespace().next().unwrap_or("")) {
            extend_date(scopes.last_mut(), part);
            continue;
        }
        apply_words(scopes.last_mut(), part, &mut last_was_unavailable_after);
    }
    scopes
}

/// Applies a comma-free part that may hold several space-separated bare directives.
fn apply_words(scope: Option<&mut RobotsDirectives>, part: &str, last_date: &mut bool) {
    let Some(scope) = scope else { return };
    *last_date = false;
    if let Some((name, rest)) = part.split_once(':') {
        let name = name.trim();
        apply(Some(scope), name, Some(rest.trim()), part);
        *last_date = name.eq_ignore_ascii_case("unavailable_after");
        return;
    }
    let words: Vec<&str> = part.split_whitespace().collect();
    if words.len() > 1 && words.iter().all(|w| is_known(w)) {
        for w in words {
            apply(Some(&mut *scope), w, None, w);
        }
    } else {
        apply(Some(scope), part, None, part);
    }
}

fn extend_date(scope: Option<&mut RobotsDirectives>, part: &str) {
    if let Some(scope) = scope {
        if let Some(date) = scope.unavailable_after.as_mut() {
            date.push_str(", ");
            date.push_str(part);
        }
        if let Some(raw) = scope.raw.last_mut() {
            raw.push_str(", ");
            raw.push_str(part);
        }
    }
}

fn apply(scope: Option<&mut RobotsDirectives>, name: &str, value: Option<&str>, raw: &str) {
    let Some(s) = scope else { return };
    s.raw.push(raw.to_owned());
    let lower = name.to_ascii_lowercase();
    let number = || value.and_then(|v| v.trim().parse::<i64>().ok());
    match lower.as_str() {
        "none" => {
            s.noindex = true;
            s.nofollow = true;
        }
        "noindex" => s.noindex = true,
        "nofollow" => s.nofollow = true,
        "noarchive" | "nocache" => s.noarchive = true,
        "nosnippet" => s.nosnippet = true,
        "noimageindex" => s.noimageindex = true,
        "notranslate" => s.notranslate = true,
        "indexifembedded" => s.indexifembedded = true,
        "all" | "index" | "follow" | "noodp" | "noydir" | "noyaca" => {}
        "max-snippet" => match number() {
            Some(n) => s.max_snippet = Some(n),
            None => s.unknown.push(raw.to_owned()),
        },
        "max-video-preview" => match number() {
            Some(n) => s.max_video_preview = Some(n),
            None => s.unknown.push(raw.to_owned()),
        },
        "max-image-preview" => match value {
            Some(v) if !v.is_empty() => s.max_image_preview = Some(v.to_ascii_lowercase()),
            _ => s.unknown.push(raw.to_owned()),
        },
        "unavailable_after" => match value {
            Some(v) if !v.is_empty() => s.unavailable_after = Some(v.to_owned()),
            _ => s.unknown.push(raw.to_owned()),
        },
        _ => s.unknown.push(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_meta_values() {
        let d = parse_robots_directives("NOINDEX, Follow");
        assert!(d.noindex && !d.nofollow);
        assert_eq!(d.raw, ["NOINDEX", "Follow"]);
        assert!(d.unknown.is_empty());
        let d = parse_robots_directives("none");
        assert!(d.noindex && d.nofollow);
        let d = parse_robots_directives("noindex nofollow");
        assert!(d.noindex && d.nofollow);
        let d = parse_robots_directives("noindex;nofollow");
        assert!(d.noindex && d.nofollow);
        let d = parse_robots_directives("");
        assert_eq!(d, RobotsDirectives::default());
        let d = parse_robots_directives("index, noindex");
        assert!(d.noindex, "the restrictive directive wins");
    }

    #[test]
    fn valued_directives() {
        let d = parse_robots_directives(
            "max-snippet:50, max-image-preview: LARGE, max-video-preview:-1, nosnippet",
        );
        assert_eq!(d.max_snippet, Some(50));
        assert_eq!(d.max_image_preview.as_deref(), Some("large"));
        assert_eq!(d.max_video_preview, Some(-1));
        assert!(d.nosnippet);
        assert_eq!(d.user_agent, None);
        let d = parse_robots_directives("unavailable_after: Friday, 25-Jun-10 15:00:00 GMT");
        assert_eq!(
            d.unavailable_after.as_deref(),
            Some("Friday, 25-Jun-10 15:00:00 GMT")
        );
        let d = parse_robots_directives("unavailable_after: 2030-01-01, noindex");
        assert_eq!(d.unavailable_after.as_deref(), Some("2030-01-01"));
        assert!(d.noindex);
        let d = parse_robots_directives("max-snippet: lots");
        assert_eq!(d.max_snippet, None);
        assert_eq!(d.unknown, ["max-snippet: lots"]);
    }

    #[test]
    fn user_agent_prefix() {
        let d = parse_robots_directives("googlebot: noindex, nofollow");
        assert_eq!(d.user_agent.as_deref(), Some("googlebot"));
        assert!(d.noindex && d.nofollow);
        assert!(d.applies_to("Googlebot"));
        assert!(!d.applies_to("bingbot"));
        let d = parse_robots_directives("GoogleBot-News:noarchive");
        assert_eq!(d.user_agent.as_deref(), Some("googlebot-news"));
        assert!(d.noarchive);
        let d = parse_robots_directives("noindex");
        assert!(d.applies_to("googlebot"));
    }

    #[test]
    fn several_scopes() {
        let s = parse_robots_scopes("googlebot: noindex, bingbot: nofollow, noarchive");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].user_agent.as_deref(), Some("googlebot"));
        assert!(s[0].noindex && !s[0].nofollow);
        assert_eq!(s[1].user_agent.as_deref(), Some("bingbot"));
        assert!(s[1].nofollow && s[1].noarchive && !s[1].noindex);
        let s = parse_robots_scopes("noarchive, otherbot: noindex");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].user_agent, None);
        assert!(s[0].noarchive);
        assert!(s[1].noindex);
        assert_eq!(parse_robots_scopes("").len(), 1);
    }

    #[test]
    fn unknown_kept() {
        let d = parse_robots_directives("noindex, whatever");
        assert_eq!(d.unknown, ["whatever"]);
        assert_eq!(d.raw, ["noindex", "whatever"]);
    }
}
