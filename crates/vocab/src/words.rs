//! The shared enums.

use crate::words;

words! {
    /// A URL's place in the frontier (`urls.state`).
    #[derive(Default)]
    pub enum UrlState {
        /// Waiting to be fetched.
        Queued = "queued",
        /// Handed to a fetcher; re-queued if the audit stops before its result is stored.
        Fetching = "fetching",
        /// Fetched (whatever the status code); never fetched again in this audit.
        #[default]
        Done = "done",
        /// robots.txt disallows it; never requested.
        Blocked = "blocked",
        /// The fetch failed without a usable response (see the reason and the fetch's
        /// error).
        Failed = "failed",
        /// Recorded but not fetched: out of scope, too deep, a trap, over a limit (see
        /// the reason).
        Skipped = "skipped",
    }
}

words! {
    /// How a URL was first found (`urls.found_via`).
    #[derive(Default)]
    pub enum FoundVia {
        /// A start URL given by the user.
        Start = "start",
        /// A scheme / www variant of a start URL (depth 0), or a URL-variant probe of a
        /// crawled page (see the `probes` table).
        Variant = "variant",
        /// A link in a page.
        #[default]
        Link = "link",
        /// An HTTP redirect's Location.
        Redirect = "redirect",
        /// A meta refresh.
        MetaRefresh = "meta_refresh",
        /// A rel=canonical target.
        Canonical = "canonical",
        /// An hreflang alternate.
        Hreflang = "hreflang",
        /// A sitemap entry.
        Sitemap = "sitemap",
    }
}

words! {
    /// Why a URL was skipped, blocked or failed (`urls.reason_kind`, a CHECK-constrained
    /// column; the human detail, such as a trap's pattern, is `urls.reason`).
    pub enum ReasonKind {
        /// Outside the audit's origins and patterns.
        OutOfScope = "out_of_scope",
        /// Its host resolves to an address only the audit's own origins may use.
        AddressRefused = "address_refused",
        /// More link hops from a start URL than the audit allows.
        MaxDepth = "max_depth",
        /// Found only through nofollow links (or on nofollow pages).
        Nofollow = "nofollow",
        /// Found only as a canonical or hreflang target the audit does not follow.
        NotFollowed = "not_followed",
        /// More redirect hops than the audit follows.
        RedirectLimit = "redirect_limit",
        /// Longer than the audit's URL length limit.
        UrlTooLong = "url_too_long",
        /// More query parameters than the audit allows.
        TooManyParams = "too_many_params",
        /// A crawler trap: a path segment repeats (the detail names it).
        TrapRepeatedSegment = "trap_repeated_segment",
        /// A crawler trap: too many URLs of one numeric pattern (the detail gives the
        /// budget and the pattern).
        TrapPattern = "trap_pattern",
        /// A crawler trap: faceted navigation, query parameters combined past the budget
        /// of one path, or a parameter repeated (the detail says which).
        TrapFacets = "trap_facets",
        /// The audit already holds its maximum number of URLs.
        MaxUrls = "max_urls",
        /// Learned DUST rules predict it duplicates a URL already queued.
        DustDuplicate = "dust_duplicate",
        /// robots.txt disallows it.
        RobotsTxt = "robots_txt",
        /// The stored URL no longer parses.
        InvalidUrl = "invalid_url",
        /// The request timed out.
        Timeout = "timeout",
        /// The connection could not be made.
        Connect = "connect",
        /// The host name does not resolve (no address in DNS).
        Dns = "dns",
        /// The server closed the connection mid-response.
        Dropped = "dropped",
        /// The compressed body could not be decoded.
        Decode = "decode",
        /// The body could not be read.
        Body = "body",
        /// The request failed otherwise.
        Request = "request",
        /// Processing the URL panicked (the detail holds the message).
        Panic = "panic",
        /// A reason this version does not name, recorded by an earlier one: the detail
        /// holds its text.
        Other = "other",
    }
}

impl ReasonKind {
    /// A crawler trap (repeated segments, a numeric pattern or parameter combinations
    /// over their budget).
    pub fn is_trap(self) -> bool {
        matches!(
            self,
            Self::TrapRepeatedSegment | Self::TrapPattern | Self::TrapFacets
        )
    }

    /// Depends on how the URL was found, not on the URL: finding it again in a better
    /// context (shallower, followed) admits it.
    pub fn depends_on_context(self) -> bool {
        matches!(
            self,
            Self::MaxDepth | Self::Nofollow | Self::NotFollowed | Self::RedirectLimit
        )
    }
}

words! {
    /// The kind of a redirect hop (`redirects.kind`).
    #[derive(Default)]
    pub enum HopKind {
        /// A 3xx response with a Location header.
        #[default]
        Http = "http",
        /// A `<meta http-equiv="refresh">` in an HTML page.
        MetaRefresh = "meta_refresh",
    }
}

words! {
    /// Where a canonical or hreflang declaration came from (`canonicals.source`,
    /// `hreflang.source`).
    #[derive(Default)]
    pub enum DeclarationSource {
        /// A `<link>` element in the HTML.
        #[default]
        LinkElement = "link_element",
        /// The HTTP `Link:` response header.
        HttpHeader = "http_header",
    }
}

words! {
    /// Where in its page a link sits (`links.region`), by HTML5 semantics: the innermost
    /// of `<nav>`, `<aside>`, the page's `<header>`/`<footer>` (those outside `<main>`
    /// and `<article>`), and `<main>`/`<article>` around it.
    #[derive(Default)]
    pub enum LinkRegion {
        /// Inside `<nav>`.
        Navigation = "navigation",
        /// Inside the page's `<header>`.
        Header = "header",
        /// Inside the page's `<footer>`.
        Footer = "footer",
        /// Inside `<aside>`.
        Sidebar = "sidebar",
        /// Inside `<main>` or `<article>`.
        Main = "main",
        /// None of those: the page does not say.
        #[default]
        Body = "body",
    }
}

words! {
    /// What a link comes from (`links.tag`, free text written by the crawler): a
    /// hyperlink people click, a pagination `<link>`, or a URL the page declares for
    /// discovery. A word this version does not know reads as [`LinkKind::Other`].
    ///
    /// Declared URLs ([`LinkKind::is_declared`]: shortlink, alternate, amphtml, og:url,
    /// structured data, `Link:` header) are discovery, not links: the crawler follows
    /// them like links, but they count as no inlink (they do not make a URL linked, vote
    /// for a preferred URL, or make a template link), and they give no link finding (a
    /// shortlink that 301s to its post, an og:url with a share parameter that declares
    /// its page canonical, are how those declarations work: there is no link to change).
    /// A URL that a declaration of another page reaches is discovered, though: it is no
    /// orphan. rel=next and rel=prev stay links: the site writes them for crawlers to
    /// follow page by page, and one that points at a redirect is worth changing.
    #[derive(Default)]
    pub enum LinkKind {
        /// `<a href>`.
        #[default]
        A = "a",
        /// `<area href>`.
        Area = "area",
        /// `<link rel=next>`.
        Next = "link_next",
        /// `<link rel=prev>`.
        Prev = "link_prev",
        /// `<link rel=shortlink>`.
        Shortlink = "shortlink",
        /// `<link rel=alternate>` without hreflang (a feed, a media or format alternate).
        Alternate = "alternate",
        /// `<link rel=amphtml>`.
        Amphtml = "amphtml",
        /// `<meta property=og:url>`.
        OgUrl = "og_url",
        /// An `@id` or `url` of a JSON-LD block.
        StructuredData = "structured_data",
        /// An HTTP `Link:` header (shortlink, alternate, amphtml, next, prev).
        LinkHeader = "link_header",
        /// A tag this version does not name (read as a link).
        #[serde(other)]
        Other = "other",
    }
}

impl LinkKind {
    /// A URL the page declares for discovery, not a link (see the type's docs).
    pub fn is_declared(self) -> bool {
        matches!(
            self,
            Self::Shortlink
                | Self::Alternate
                | Self::Amphtml
                | Self::OgUrl
                | Self::StructuredData
                | Self::LinkHeader
        )
    }

    /// How a URL first found through such a link was found, in words: `link`,
    /// `nofollow link`, `rel=next`, `rel=prev`, `shortlink`, `alternate`, `amphtml`,
    /// `og:url`, `structured data`, `link header`.
    pub fn found_via_words(self, nofollow: bool) -> &'static str {
        match self {
            Self::A | Self::Area | Self::Other if nofollow => "nofollow link",
            Self::A | Self::Area | Self::Other => "link",
            Self::Next => "rel=next",
            Self::Prev => "rel=prev",
            Self::Shortlink => "shortlink",
            Self::Alternate => "alternate",
            Self::Amphtml => "amphtml",
            Self::OgUrl => "og:url",
            Self::StructuredData => "structured data",
            Self::LinkHeader => "link header",
        }
    }
}

words! {
    /// What is wrong with a redirect chain (`redirect_chains.problem`).
    #[derive(Default)]
    pub enum ChainProblem {
        /// The chain comes back to a URL it already visited.
        #[default]
        Loop = "loop",
        /// The chain is longer than the audit's maximum number of hops.
        TooLong = "too_long",
    }
}

words! {
    /// A way of writing a page's URL that no link needs to use (`probes.rule`; the
    /// crawler makes the variants, see `crawl::probe`). Declaration order is the order
    /// reports list them in.
    pub enum ProbeRule {
        /// `www.` added to or removed from the host.
        HostWww = "host_www",
        /// http instead of https, or the reverse.
        Scheme = "scheme",
        /// The trailing slash added or removed.
        TrailingSlash = "trailing_slash",
        /// The path's letters upper-cased.
        PathCase = "path_case",
        /// An index file name (`index.html`, `index.php`) after a directory URL.
        IndexFile = "index_file",
        /// A slash doubled (`/a//b`).
        DoubleSlash = "double_slash",
        /// A tracking parameter added (`utm_source`).
        TrackingParam = "tracking_param",
        /// A session parameter added (`sessionid`).
        SessionParam = "session_param",
        /// A parameter no page uses added.
        UnknownParam = "unknown_param",
        /// An empty query (a bare `?`).
        EmptyQuery = "empty_query",
        /// The server's IP address as the host.
        IpHost = "ip_host",
    }
}

words! {
    /// Why a request for a URL gave no usable response (`fetches.error_kind`,
    /// `dust_validations.error_kind`): refused before any request, or failed on the way.
    pub enum FetchErrorKind {
        /// The URL does not parse (nothing requested).
        InvalidUrl = "invalid_url",
        /// Outside the audit's origins (nothing requested).
        OutOfScope = "out_of_scope",
        /// Its host resolves to an address only the audit's own origins may use
        /// (nothing requested).
        AddressRefused = "address_refused",
        /// robots.txt disallows it (nothing requested).
        RobotsTxt = "robots_txt",
        /// The request timed out.
        Timeout = "timeout",
        /// The connection could not be made.
        Connect = "connect",
        /// The host name does not resolve (no address in DNS).
        Dns = "dns",
        /// The server closed the connection mid-response.
        Dropped = "dropped",
        /// The compressed body could not be decoded.
        Decode = "decode",
        /// The body could not be read.
        Body = "body",
        /// The request failed otherwise.
        Request = "request",
        /// The HTML extractor failed on the body (the response itself arrived).
        Extract = "extract",
        /// Processing the URL panicked.
        Panic = "panic",
    }
}

impl FetchErrorKind {
    /// Refused before any request went out (the URL, the scope, the address policy or
    /// robots.txt said no): no request was made.
    pub fn refused_before_request(self) -> bool {
        matches!(
            self,
            Self::InvalidUrl | Self::OutOfScope | Self::AddressRefused | Self::RobotsTxt
        )
    }
}
