//! URL canonicalization for SEO audits.
//!
//! `canon` turns a URL into its canonical form under a [`Policy`] and says which
//! named [`Rule`]s changed it (the trail), so a report can explain every cluster of
//! duplicate URLs. Normalization does no I/O (the one disk read of the crate is
//! `Policy::from_path`, which loads a policy file): parsing is the WHATWG parser of the
//! `url` crate (what a browser would request), then one pass per enabled rule over the
//! parsed components.
//!
//! ```
//! use canon::{normalize, equivalence_key, Policy};
//!
//! let n = normalize("http://www.example.com/display?lang=en&article=fred&utm_source=news", &Policy::seo())?;
//! assert_eq!(n.url, "http://example.com/display?article=fred&lang=en");
//! let fired: Vec<_> = n.rule_ids().collect();
//! assert_eq!(fired, ["www", "tracking_params", "query_sort"]);
//!
//! // The equivalence key is the same canonical form, without the trail.
//! assert_eq!(equivalence_key("http://example.com/display?article=fred&lang=en", &Policy::seo())?, n.url);
//! # Ok::<(), canon::CanonError>(())
//! ```
//!
//! # Rules
//!
//! | id | class | RFC 3986 | example |
//! |---|---|---|---|
//! | `scheme_case` | safe | 6.2.2.1 | `HTTP://example.com/` → `http://example.com/` |
//! | `host_case` | safe | 6.2.2.1 | `http://User@Example.COM/Foo` → `http://User@example.com/Foo` |
//! | `idn_host` | safe | — | `http://bücher.example/` → `http://xn--bcher-kva.example/` (UTS 46 non-transitional) |
//! | `default_port` | safe | 6.2.3 | `http://example.com:80/` → `http://example.com/` |
//! | `empty_path` | safe | 6.2.3 | `http://example.com` → `http://example.com/` |
//! | `dot_segments` | safe | 6.2.2.3 | `/foo/./bar/baz/../qux` → `/foo/bar/qux` |
//! | `url_syntax` | safe | — | the rest of WHATWG parsing: `\` → `/`, spaces → `%20`, IPv4 forms |
//! | `percent_hex_case` | safe | 6.2.2.1 | `/foo%2a` → `/foo%2A` |
//! | `percent_decode_unreserved` | safe | 6.2.2.2 | `/%7Efoo` → `/~foo` |
//! | `host_trailing_dot` | seo | — | `example.com.` → `example.com` |
//! | `path_case` | seo (opt-in) | — | `/Intl/zh-CN/` → `/intl/zh-cn/` |
//! | `session_path_param` | seo | — | `/cart;jsessionid=A1` → `/cart` |
//! | `duplicate_slashes` | seo | — | `/foo//bar.html` → `/foo/bar.html` |
//! | `directory_index` | seo | — | `/a/index.html` → `/a/` (`myindex.html` is not an index) |
//! | `trailing_slash` | usual (opt-in) | 6.2.4 | `/foo` → `/foo/` (or the reverse) |
//! | `www` | seo | — | `www.example.com` → `example.com` (`www2.`, `wwww.` untouched) |
//! | `scheme_unify` | seo (opt-in) | — | `http://` → `https://` on default ports only |
//! | `empty_query` | seo | — | `/display?` → `/display`, `a=1&&b=2` → `a=1&b=2` |
//! | `query_encoding` | seo | — | `?category=foo/bar+baz` → `?category=foo%2Fbar%20baz` |
//! | `tracking_params` | seo | — | `?utm_source=x&id=1` → `?id=1` |
//! | `session_params` | seo | — | `?PHPSESSID=ab&id=1` → `?id=1` |
//! | `site_params` | seo | — | per-site parameters dropped, kept or at their default value |
//! | `query_sort` | seo | — | `?lang=en&article=fred` → `?article=fred&lang=en` (stable) |
//! | `fragment` | seo | — | `/bar.html#section1` → `/bar.html` |
//! | `ip_to_host` | evidence | — | needs DNS or redirect evidence (the audit, not this crate) |
//! | `dust` | evidence | — | a site-specific rewrite learned from a crawl |
//!
//! What stays distinct, because merging it would be wrong: reserved escapes keep
//! their meaning (`/a%2Fb` is not `/a/b`, `%3F` is not `?`, nothing is unescaped
//! twice), a non-default port is never unified away, path and query case are kept
//! unless the policy says paths are case-insensitive, repeated parameters keep their
//! order, `+` in a path is a plus, and invalid escapes (`%zz`) are kept as written.

mod error;
mod normalize;
mod pct;
mod policy;
mod raw;
mod resolve;
mod rule;

pub use error::{CanonError, PolicyError, SchemeKind};
pub use normalize::{Normalized, Step, equivalence_key, normalize};
pub use policy::{
    DEFAULT_DIRECTORY_INDEXES, DEFAULT_SESSION_PARAMS, DEFAULT_TRACKING_PARAMS, PathParams, Policy,
    PreferScheme, Preset, TrailingSlash, Www,
};
pub use resolve::{document_base, resolve};
pub use rule::{Rule, RuleClass};
pub use url::Url;

/// Whether `c` is an invisible format character that reorders or hides text: the
/// bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C),
/// zero-width characters, the soft hyphen, the byte order mark and the other characters
/// of Unicode's Cf category that text from a URL can carry. RFC 3987 (section 4.1) keeps
/// the bidirectional ones out of IRIs: a URL decoded for people (a report line, a
/// `_redirects` file) must not show them raw, or `/a\u{202e}gpj.exe` reads as
/// `/aexe.jpg`.
pub fn is_format_char(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{0600}'..='\u{0605}'
        | '\u{061C}'
        | '\u{06DD}'
        | '\u{070F}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{110BD}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0001}'
        | '\u{E0020}'..='\u{E007F}')
}
