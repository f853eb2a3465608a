//! The named normalization rules and their classes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How much a rule can be trusted to keep naming the same resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleClass {
    /// RFC 3986 sections 6.2.2 and 6.2.3: always equivalent.
    Safe,
    /// Usually equivalent for http and https (RFC 3986 section 6.2.4).
    Usual,
    /// Changes semantics but usually names the same resource; on or off by policy.
    Seo,
    /// Needs more than the URL (DNS, redirects, content, site configuration).
    Evidence,
}

impl RuleClass {
    /// The class as written in policies, trails and exports.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleClass::Safe => "safe",
            RuleClass::Usual => "usual",
            RuleClass::Seo => "seo",
            RuleClass::Evidence => "evidence",
        }
    }
}

impl fmt::Display for RuleClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! rules {
    ($( $(#[$doc:meta])* $variant:ident => $id:literal, $class:ident, $rfc:expr, $example:literal; )*) => {
        /// A named normalization rule.
        ///
        /// Every rule has a stable id (used in trails, exports and policies), a
        /// [`RuleClass`], an example and, where one applies, its RFC 3986 section.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in the order the normalizer applies them.
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant, )* ];

            /// The stable id, e.g. `percent_hex_case`.
            pub fn id(self) -> &'static str {
                match self { $( Rule::$variant => $id, )* }
            }

            /// The rule's class.
            pub fn class(self) -> RuleClass {
                match self { $( Rule::$variant => RuleClass::$class, )* }
            }

            /// The RFC 3986 section that describes the rule, where one does.
            pub fn rfc3986_section(self) -> Option<&'static str> {
                match self { $( Rule::$variant => $rfc, )* }
            }

            /// One example, `input -> output`.
            pub fn example(self) -> &'static str {
                match self { $( Rule::$variant => $example, )* }
            }

            /// Looks a rule up by its id.
            pub fn from_id(id: &str) -> Option<Rule> {
                match id { $( $id => Some(Rule::$variant), )* _ => None }
            }
        }
    };
}

rules! {
    /// Lowercase the scheme.
    SchemeCase => "scheme_case", Safe, Some("6.2.2.1"), "HTTP://example.com/ -> http://example.com/";
    /// Lowercase the host.
    HostCase => "host_case", Safe, Some("6.2.2.1"), "http://User@Example.COM/Foo -> http://User@example.com/Foo";
    /// Internationalized host names to punycode (UTS 46, non-transitional).
    IdnHost => "idn_host", Safe, None, "http://bücher.example/ -> http://xn--bcher-kva.example/";
    /// Remove the scheme's default port (and an empty port).
    DefaultPort => "default_port", Safe, Some("6.2.3"), "http://example.com:80/ -> http://example.com/";
    /// An empty path becomes "/".
    EmptyPath => "empty_path", Safe, Some("6.2.3"), "http://example.com -> http://example.com/";
    /// Remove "." and ".." segments.
    DotSegments => "dot_segments", Safe, Some("6.2.2.3"), "http://example.com/foo/./bar/baz/../qux -> http://example.com/foo/bar/qux";
    /// What the WHATWG URL parser does besides the rules above, exactly as a browser
    /// would request the URL: backslashes to slashes, percent-encoding spaces and
    /// non-ASCII characters, canonical IPv4 notation.
    UrlSyntax => "url_syntax", Safe, None, "http://example.com\\a b -> http://example.com/a%20b";
    /// Uppercase the hex digits of percent-escapes.
    PercentHexCase => "percent_hex_case", Safe, Some("6.2.2.1"), "http://example.com/foo%2a -> http://example.com/foo%2A";
    /// Decode percent-escapes of unreserved characters (ALPHA, DIGIT, - . _ ~).
    PercentDecodeUnreserved => "percent_decode_unreserved", Safe, Some("6.2.2.2"), "http://example.com/%7Efoo -> http://example.com/~foo";
    /// Remove the trailing dot of a fully qualified host name.
    HostTrailingDot => "host_trailing_dot", Seo, None, "http://example.com./ -> http://example.com/";
    /// Lowercase the path, for servers whose paths are case-insensitive (opt-in).
    PathCase => "path_case", Seo, None, "http://example.com/About/Us.html -> http://example.com/about/us.html";
    /// Remove session ids carried as path parameters (`;jsessionid=...`).
    SessionPathParam => "session_path_param", Seo, None, "http://example.com/cart;jsessionid=A1B2 -> http://example.com/cart";
    /// Collapse runs of slashes in the path.
    DuplicateSlashes => "duplicate_slashes", Seo, None, "http://example.com/foo//bar.html -> http://example.com/foo/bar.html";
    /// Remove a directory index file name (index.html, default.asp, ...).
    DirectoryIndex => "directory_index", Seo, None, "http://example.com/a/index.html -> http://example.com/a/";
    /// Add (or remove, by policy) the trailing slash of a directory-like path.
    TrailingSlash => "trailing_slash", Usual, Some("6.2.4"), "http://example.com/foo -> http://example.com/foo/";
    /// Strip a leading "www." label, or add one, toward the preferred host.
    Www => "www", Seo, None, "http://www.example.com/ -> http://example.com/";
    /// Use the preferred scheme (http or https) when the port is the default one.
    SchemeUnify => "scheme_unify", Seo, None, "https://example.com/ -> http://example.com/ (prefer http)";
    /// Standardize query encoding: "+" and "%20", reserved characters percent-encoded.
    QueryEncoding => "query_encoding", Seo, None, "/display?category=foo/bar+baz -> /display?category=foo%2Fbar%20baz";
    /// Remove empty query components and an empty "?".
    EmptyQuery => "empty_query", Seo, None, "http://example.com/display? -> http://example.com/display";
    /// Remove tracking parameters (utm_*, gclid, fbclid, ...).
    TrackingParams => "tracking_params", Seo, None, "/p?utm_source=x&id=1 -> /p?id=1";
    /// Remove session parameters (PHPSESSID, sid, ...).
    SessionParams => "session_params", Seo, None, "/p?PHPSESSID=ab12&id=1 -> /p?id=1";
    /// Site-specific parameter handling: parameters to drop, parameters to keep, values
    /// that are the default.
    SiteParams => "site_params", Seo, None, "/display?id=123&fakefoo=fakebar -> /display?id=123";
    /// Sort query parameters by name, keeping the order of a repeated name's values.
    QuerySort => "query_sort", Seo, None, "/display?lang=en&article=fred -> /display?article=fred&lang=en";
    /// Remove the fragment.
    Fragment => "fragment", Seo, None, "http://example.com/bar.html#section1 -> http://example.com/bar.html";
    /// IP address and host name naming the same server (needs DNS or redirect evidence).
    IpToHost => "ip_to_host", Evidence, None, "http://208.77.188.166/ = http://example.com/";
    /// A site-specific rewrite learned from the crawl (different URLs with similar text).
    Dust => "dust", Evidence, None, "http://example.com/story?id=xyz = http://example.com/story_xyz";
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}
