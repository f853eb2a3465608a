//! Findings: what is wrong, why it matters, the URLs concerned, the evidence and the fix.

use canon::Rule;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Broken or self-defeating: search engines act against the site's intent.
    Error,
    /// Wastes ranking signals or crawl budget; fix soon.
    Warning,
    /// Worth cleaning up.
    Notice,
}

impl Severity {
    /// `error`, `warning`, `notice`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

macro_rules! findings {
    ($( $(#[$doc:meta])* $variant:ident => $code:literal, $sev:ident, $title:literal, $why:literal; )*) => {
        /// A finding's stable id (its code, e.g. `DUP-HOST`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[non_exhaustive]
        pub enum FindingId {
            $( $(#[$doc])* #[serde(rename = $code)] $variant, )*
        }

        impl FindingId {
            /// Every finding id.
            pub const ALL: &'static [FindingId] = &[ $( FindingId::$variant, )* ];

            /// The stable code, e.g. `DUP-HOST`.
            pub fn code(self) -> &'static str {
                match self { $( FindingId::$variant => $code, )* }
            }

            /// The severity of every finding with this id.
            pub fn severity(self) -> Severity {
                match self { $( FindingId::$variant => Severity::$sev, )* }
            }

            /// A short title.
            pub fn title(self) -> &'static str {
                match self { $( FindingId::$variant => $title, )* }
            }

            /// Why it matters, in one or two plain sentences.
            pub fn why(self) -> &'static str {
                match self { $( FindingId::$variant => $why, )* }
            }

            /// Looks an id up by its code.
            pub fn from_code(code: &str) -> Option<FindingId> {
                match code { $( $code => Some(FindingId::$variant), )* _ => None }
            }
        }
    };
}

findings! {
    /// A 2xx duplicate on another host name (www / non-www, IP address, alias).
    DupHost => "DUP-HOST", Warning, "Same page on two host names",
        "Search engines index both copies and split links and ranking between them. Only one host name should serve pages; the others should redirect to it.";
    /// http and https both answer 2xx with the same page.
    DupScheme => "DUP-SCHEME", Warning, "Same page over http and https",
        "The page is indexed twice and visitors can land on the insecure copy. http should redirect to https (or the reverse, whichever the site uses).";
    /// With and without the trailing slash (or with doubled slashes).
    DupSlash => "DUP-SLASH", Warning, "Same page with and without a trailing slash",
        "Two URLs serve one page, so links and ranking are split between them. One form should redirect to the other.";
    /// A directory and its index file.
    DupIndex => "DUP-INDEX", Warning, "Same page at a directory and its index file",
        "The directory URL and its index file (index.html, default.asp, ...) are two URLs for one page. The index file should redirect to the directory.";
    /// Letter case variants of the path.
    DupCase => "DUP-CASE", Warning, "Same page under different letter case",
        "Paths differing only in letter case serve one page, so it is indexed more than once. The other spellings should redirect to one.";
    /// Extra, session, tracking or reordered query parameters.
    DupParam => "DUP-PARAM", Notice, "Same page with other query parameters",
        "Parameters that do not change the page (tracking, session, order) create copies search engines must crawl and consolidate. The copies should declare the clean URL canonical.";
    /// Two URL patterns a learned rule maps onto each other.
    DupDust => "DUP-DUST", Warning, "Same page under two URL patterns",
        "The site serves each page of this kind under two URL patterns (a rule learned from the crawl), doubling what must be crawled and indexed. The copies should declare the page under the other pattern canonical; a redirect would hide them if their content ever diverges (paginated comments, sorted lists).";
    /// Identical text under unrelated URLs.
    DupContent => "DUP-CONTENT", Warning, "Identical content under different URLs",
        "Search engines pick one copy to show and may not pick yours; links to the others are wasted. Keep one page, or make the copies point to it with a canonical.";
    /// Near-identical main content: weak evidence, for review.
    DupNear => "DUP-NEAR", Notice, "Near-identical main content (review)",
        "The pages' main content (the site's template left out) is almost the same, so search engines may treat them as duplicates and show only one. Near-identical is not proof of one page (a listing sorted differently, a product in another colour), so the audit does not merge them: decide whether they are one page.";
    /// A normalization rule merged URLs whose pages differ.
    RuleDoesNotHold => "RULE-DOES-NOT-HOLD", Warning, "A normalization rule does not hold on this site",
        "The audit policy treats these URLs as one page, but the site serves different pages at them. The rule must be turned off for this site, or the audit would merge real pages.";
    /// Canonical, redirects and sitemaps name different preferred URLs.
    ClusterConflict => "CLUSTER-CONFLICT", Warning, "The site's signals disagree on the preferred URL",
        "The canonical points one way while redirects or the sitemap point another, so search engines choose for themselves. All signals should name the same URL.";
    /// Several canonical declarations, all with the same target.
    CanonMultiple => "CANON-MULTIPLE", Notice, "Several canonical declarations",
        "The page declares its canonical more than once. They agree today, but any later edit to one of them makes them conflict.";
    /// Canonical declarations pointing at different URLs.
    CanonConflict => "CANON-CONFLICT", Error, "Conflicting canonical declarations",
        "The page declares different canonical URLs (two elements, or element and header), so search engines ignore them all.";
    /// A canonical href that does not resolve to an http(s) URL.
    CanonInvalid => "CANON-INVALID", Warning, "Canonical URL cannot be resolved",
        "The canonical href is not a valid http(s) URL, so it is ignored.";
    /// A canonical link element outside `<head>`.
    CanonOutsideHead => "CANON-OUTSIDE-HEAD", Warning, "Canonical outside <head>",
        "Search engines only read rel=canonical in the <head>; this one is ignored.";
    /// A relative canonical href.
    CanonRelative => "CANON-RELATIVE", Notice, "Relative canonical URL",
        "A relative canonical resolves differently when the page is served under another host or path, which can point it at the wrong URL. Use an absolute URL.";
    /// Canonical target redirects.
    CanonToRedirect => "CANON-TO-REDIRECT", Warning, "Canonical points at a redirect",
        "The canonical names a URL that redirects elsewhere, a mixed signal that search engines may ignore. Point it at the final URL.";
    /// Canonical target answers 4xx/5xx or not at all.
    CanonToError => "CANON-TO-ERROR", Error, "Canonical points at an error page",
        "The canonical names a URL that does not answer 200, so it is ignored or, worse, the page drops out of the index.";
    /// Canonical target is noindex.
    CanonToNoindex => "CANON-TO-NOINDEX", Error, "Canonical points at a noindex page",
        "The page hands its ranking to a page that asks not to be indexed, so neither may be shown.";
    /// Canonical target is blocked by robots.txt.
    CanonToBlocked => "CANON-TO-BLOCKED", Warning, "Canonical points at a URL blocked by robots.txt",
        "Search engines cannot fetch the canonical target to confirm it, so the canonical is weak or ignored.";
    /// Canonical target declares yet another canonical.
    CanonChain => "CANON-CHAIN", Warning, "Canonical chain",
        "The canonical target itself declares another canonical; search engines may not follow the chain. Point straight at the end of it.";
    /// Canonicals loop.
    CanonLoop => "CANON-LOOP", Error, "Canonical loop",
        "The pages name each other as canonical, so no URL is canonical and search engines choose on their own.";
    /// Canonical to another host name.
    CanonCrossHost => "CANON-CROSS-HOST", Notice, "Canonical to another site",
        "The page gives its ranking to a URL on another host. That is right for syndicated content and wrong otherwise: check it is intended.";
    /// Canonical to the scheme the site does not use.
    CanonCrossScheme => "CANON-CROSS-SCHEME", Warning, "Canonical to the other scheme",
        "The canonical names the http/https variant the site does not serve pages on, sending search engines to a URL that redirects or is insecure.";
    /// Canonical between pages whose text is unrelated.
    CanonToUnrelated => "CANON-TO-UNRELATED", Warning, "Canonical to a page with different content",
        "The canonical target's text has little in common with the page, so search engines will likely ignore the canonical; if they obey it, the page drops out of the index.";
    /// Posts whose canonical names one of their own comment pages (comments split into
    /// pages): the one cause of the conflicts, sitemap and link findings it would make.
    CanonCommentPage => "CANON-COMMENT-PAGE", Warning, "Posts name one of their comment pages canonical",
        "The site splits comments into pages and its template declares a comment page (`/comment-page-N/`) the post's canonical, while links, sitemaps and redirects name the post; each time comments fill a new page the canonical moves to it. Search engines are asked to index a comment page in place of the post. One setting or one template line causes it on every post.";
    /// A canonicalised page linked internally.
    CanonLinked => "CANON-LINKED", Notice, "Internal links to a canonicalised page",
        "Internal links point at a URL that declares another URL canonical. Linking to the canonical URL directly sends one clear signal and saves crawling.";
    /// Redirect chain of more than one hop.
    RedirectChain => "REDIRECT-CHAIN", Warning, "Redirect chain",
        "Each extra hop slows visitors and crawlers and may lose ranking signals; crawlers stop following long chains. Redirect straight to the final URL.";
    /// Redirect loop.
    RedirectLoop => "REDIRECT-LOOP", Error, "Redirect loop",
        "The redirects go round in a circle, so the page can never be reached by anyone.";
    /// Temporary redirect for a permanent move.
    RedirectTemporary => "REDIRECT-TEMPORARY", Warning, "Temporary redirect for a permanent move",
        "A 302/307 tells search engines to keep the old URL indexed; for a canonical move (scheme, host, slash, index, case) it should be a 301.";
    /// Redirect ending in an error.
    RedirectToError => "REDIRECT-TO-ERROR", Error, "Redirect to an error",
        "The redirect ends at a URL that does not answer 200 (or a Location that cannot be resolved), so visitors and crawlers hit a dead end.";
    /// Meta refresh redirect.
    RedirectMetaRefresh => "REDIRECT-META-REFRESH", Warning, "Meta refresh redirect",
        "A meta refresh is slower than a server redirect and not always treated as a permanent move. Use an HTTP 301.";
    /// An http page answering instead of redirecting to https.
    RedirectHttpNotHttps => "REDIRECT-HTTP-NOT-HTTPS", Warning, "http page not redirected to https",
        "The site redirects http to https elsewhere, but this http URL answers by itself, so an insecure copy stays reachable and indexable.";
    /// Internal links to a redirecting URL.
    LinkToRedirect => "LINK-TO-REDIRECT", Notice, "Internal links to a redirect",
        "Every click and crawl through these links costs an extra request. Link to the final URL.";
    /// Sitemap lists a redirecting URL.
    SitemapRedirect => "SITEMAP-REDIRECT", Warning, "Sitemap lists a redirect",
        "A sitemap should list only final URLs; listing redirects wastes crawling and muddles which URL is preferred.";
    /// Sitemap lists an error URL.
    SitemapError => "SITEMAP-ERROR", Error, "Sitemap lists an error page",
        "The sitemap invites search engines to URLs that do not answer 200, which erodes their trust in the sitemap.";
    /// Sitemap lists a noindex URL.
    SitemapNoindex => "SITEMAP-NOINDEX", Warning, "Sitemap lists a noindex page",
        "The sitemap asks for the page to be indexed while the page asks not to be: a contradiction search engines report.";
    /// Sitemap lists a robots-blocked URL.
    SitemapBlocked => "SITEMAP-BLOCKED", Warning, "Sitemap lists a URL blocked by robots.txt",
        "Search engines are invited to a URL they are not allowed to crawl.";
    /// Sitemap lists a canonicalised URL.
    SitemapCanonicalised => "SITEMAP-CANONICALISED", Warning, "Sitemap lists a canonicalised URL",
        "The page declares another URL canonical, so the sitemap should list that URL instead.";
    /// Sitemap lists a non-preferred duplicate.
    SitemapNonPreferred => "SITEMAP-NON-PREFERRED", Warning, "Sitemap lists a duplicate instead of the preferred URL",
        "The sitemap is a canonical signal; listing a duplicate votes for the wrong URL.";
    /// Preferred URL missing from the sitemaps.
    SitemapMissing => "SITEMAP-MISSING", Notice, "Indexable page missing from the sitemaps",
        "The site has sitemaps but this preferred, indexable page is in none of them, so it is discovered and recrawled later.";
    /// Sitemap URL with no internal link.
    SitemapOrphan => "SITEMAP-ORPHAN", Notice, "Page only reachable from the sitemap",
        "No crawled page links to it, so it gets no internal ranking signals and visitors cannot find it.";
    /// Unreadable sitemap.
    SitemapInvalid => "SITEMAP-INVALID", Error, "Sitemap cannot be read",
        "The sitemap failed to download or parse, so search engines ignore the URLs it should list.";
    /// Sitemap over the protocol's limits.
    SitemapOverLimit => "SITEMAP-OVER-LIMIT", Error, "Sitemap over the protocol's limits",
        "Sitemaps are limited to 50,000 URLs and 50 MB uncompressed; search engines reject or cut larger ones.";
    /// A sitemap URL that redirects (within the audit's scope) to the sitemap.
    SitemapLocationRedirect => "SITEMAP-LOCATION-REDIRECT", Notice, "Sitemap URL redirects",
        "Search engines follow the redirect and read the sitemap at its final URL, but every read costs an extra request, and the sitemap is lost if the redirect changes. Name the sitemap by its final URL.";
    /// The conventional /sitemap.xml, declared nowhere, answers without a readable sitemap.
    SitemapGuessUnreadable => "SITEMAP-GUESS-UNREADABLE", Notice, "Conventional sitemap URL serves no sitemap",
        "Nothing declares this address, so search engines need not read it, but some crawlers and tools try it: it answers with something that is not a readable sitemap instead of a 404 or a redirect to the real one.";
    /// Crawler trap.
    Trap => "TRAP", Warning, "Crawler trap",
        "The site generates endless URLs (calendars, repeated path segments, counters) that crawlers waste their budget on, and that hide real duplicates.";
    /// A robots.txt larger than the 500 KiB search engines read.
    RobotsTooLarge => "ROBOTS-TOO-LARGE", Warning, "robots.txt larger than 500 KiB",
        "Google reads the first 500 KiB of robots.txt and ignores the rest, so rules past that point do not apply to it. Shorten the file: merge rules with wildcards and drop obsolete ones.";
    /// A robots-blocked URL that duplicates a crawlable page.
    RobotsHidesDup => "ROBOTS-HIDES-DUP", Notice, "robots.txt hides a duplicate",
        "The URL is linked but blocked, so search engines can index it without content and cannot see that it duplicates another page.";
    /// Internal links to a URL that answers 4xx/5xx or not at all.
    LinkBroken => "LINK-BROKEN", Error, "Internal links to a broken URL",
        "Visitors following these links reach an error page, and crawlers spend requests on it. Link to a working page instead, or remove the links.";
    /// An hreflang alternate that redirects.
    HreflangToRedirect => "HREFLANG-TO-REDIRECT", Warning, "hreflang points at a redirect",
        "Search engines ignore alternates that redirect; the language version may not be shown to its audience. Name the final URL.";
    /// An hreflang alternate that answers an error.
    HreflangToError => "HREFLANG-TO-ERROR", Error, "hreflang points at an error page",
        "The alternate does not answer 200, so search engines drop it (and may distrust the whole set).";
    /// An hreflang alternate that is noindex.
    HreflangToNoindex => "HREFLANG-TO-NOINDEX", Error, "hreflang points at a noindex page",
        "The alternate asks not to be indexed, so it cannot be shown to its audience; the declaration contradicts it.";
    /// An hreflang alternate that is a duplicate of another (preferred) URL.
    HreflangNonPreferred => "HREFLANG-NON-PREFERRED", Warning, "hreflang points at a non-preferred URL",
        "hreflang should name each language version's preferred (canonical) URL; naming a duplicate sends mixed signals.";
    /// An alternate that does not name the page back.
    HreflangNoReturn => "HREFLANG-NO-RETURN", Warning, "hreflang without a return link",
        "Alternates must name each other: search engines ignore a pair that is not confirmed from both sides.";
    /// A language code that is not ISO 639-1 (with an optional ISO 15924 script and ISO 3166-1 region), nor x-default.
    HreflangInvalidLang => "HREFLANG-INVALID-LANG", Warning, "Invalid hreflang language code",
        "Search engines ignore an alternate whose code is not a language (ISO 639-1), optionally with a region (ISO 3166-1 alpha-2), or x-default.";
    /// A page with hreflang alternates that does not list itself.
    HreflangNoSelf => "HREFLANG-NO-SELF", Notice, "hreflang set without a self-reference",
        "Each page of an hreflang set should list itself among its alternates, so the set is the same on every page.";
    /// One language (or x-default) mapped to different URLs.
    HreflangConflict => "HREFLANG-CONFLICT", Error, "hreflang names two URLs for one language",
        "A page maps one language code (or x-default) to more than one URL, so search engines cannot tell which to show.";
    /// The pages of one hreflang set name different x-default URLs.
    HreflangXDefault => "HREFLANG-X-DEFAULT", Warning, "hreflang sets disagree on x-default",
        "Pages that list each other as alternates name different x-default pages, so the fallback shown to other languages depends on the page.";
    /// URL variants no page links to (upper-case, doubled slash, index file, other host,
    /// parameters) answer 200 with the page's content and no canonical to it.
    VariantDuplicate => "VARIANT-DUPLICATE", Warning, "URL variants serve duplicate pages",
        "Written another way (upper-case, with an index file, a doubled slash, the other host name, an extra parameter), the site's URLs answer with the same page instead of redirecting or declaring a canonical. No page links them, but external links, old sitemaps and typed URLs reach them, and every one is another copy for search engines to crawl and consolidate. One server rule fixes the whole pattern.";
    /// URL variants redirect to the page with a temporary redirect.
    VariantTemporary => "VARIANT-TEMPORARY", Notice, "URL variants redirect temporarily",
        "The site sends URL variants to the page with a temporary redirect (302, 303, 307), which tells search engines the variant may come back; for a variant that always means the page, a permanent redirect (301) is the clear signal.";
    /// Different pages (each cluster counted once, through its preferred URL) share one
    /// page title.
    TitleDuplicate => "TITLE-DUPLICATE", Warning, "Different pages share a title",
        "The title is what search results show as the page's headline and the main clue to what it is about. Pages with the same title compete for the same searches, and search engines may rewrite their titles or show only one of them.";
    /// Different pages share their first `<h1>`.
    H1Duplicate => "H1-DUPLICATE", Notice, "Different pages share a first heading",
        "The first heading tells visitors and search engines what the page is about. When different pages open with the same heading, nothing on them says how they differ.";
    /// Different pages share one meta description.
    MetaDescriptionDuplicate => "META-DESCRIPTION-DUPLICATE", Notice, "Different pages share a meta description",
        "Search engines may show the meta description under the title in their results. A description shared by different pages describes none of them, so search engines often replace it with text of their own choosing.";
    /// A canonical that only the rendered page declares (a script writes it).
    RenderCanonAdded => "RENDER-CANON-ADDED", Warning, "Canonical only in the rendered page",
        "The served HTML names no canonical; a script adds one. Google sees it only if it renders the page, which may happen days after the crawl, and other search engines and tools may never see it. Write the canonical into the HTML the server sends.";
    /// The rendered page's canonical differs from the served HTML's.
    RenderCanonChanged => "RENDER-CANON-CHANGED", Error, "Canonical changed by JavaScript",
        "The served HTML names one canonical and the page after JavaScript another (or none): search engines get two answers and may follow either. The analysis follows the rendered one, as Google does. Make the served HTML name the canonical you mean and stop the script from changing it.";
    /// The rendered page says noindex and the served HTML does not.
    RenderNoindexAdded => "RENDER-NOINDEX-ADDED", Error, "noindex added by JavaScript",
        "A script adds a robots noindex to a page whose served HTML is indexable. Google obeys it once it renders the page, so the page drops out of the index. Remove the script's noindex, or write the noindex into the served HTML if the page is not meant to be indexed.";
    /// The served HTML says noindex and the rendered page does not.
    RenderNoindexRemoved => "RENDER-NOINDEX-REMOVED", Error, "noindex removed by JavaScript",
        "The served HTML says noindex and a script removes it. Google may skip rendering a page that says noindex, so the page stays out of the index whatever the script does. Remove the noindex from the served HTML if the page is meant to be indexed.";
    /// The title or the first heading differs between the served HTML and the rendered page.
    RenderTitleChanged => "RENDER-TITLE-CHANGED", Notice, "Title or heading changed by JavaScript",
        "The title or first heading after JavaScript differs from the served HTML. Search engines may show either, and tools that read the HTML see another page than visitors do. Serve the final title and heading in the HTML.";
    /// URLs that only links written by JavaScript reach.
    RenderJsLinks => "RENDER-JS-LINKS", Warning, "Pages reachable only through links written by JavaScript",
        "No link in any served HTML leads to these pages; only links that scripts write do. Crawlers that do not render never find them, and Google finds them later, after rendering. Link them from the served HTML.";
    /// Content present only after rendering.
    RenderContent => "RENDER-CONTENT", Notice, "Content only after JavaScript",
        "Most of the page's text arrives with a script: the served HTML holds little of it. Search engines index it only after rendering, later and not always, and tools that read the HTML see an empty page. Render the main content on the server.";
    /// Pages that did not render within the budget or whose rendering failed.
    RenderFailed => "RENDER-FAILED", Warning, "Page did not render",
        "The page's scripts did not finish within the rendering budget (they kept loading, looped or ran out of memory), or the renderer failed. A search engine's renderer gives up too, and indexes what it has, or nothing. Find the script that never settles.";
}

/// How strong the evidence behind a finding or a cluster member is.
///
/// Strong evidence (a redirect, a rel=canonical, identical text or main content, a
/// normalization rule or learned DUST rule confirmed by identical content) merges URLs
/// into a cluster and may lead to a fix that takes a page out of the index. Weak
/// evidence (near-identical main content) only ever asks for a review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Enough to merge URLs and to redirect or canonicalize one to another.
    Strong,
    /// Worth a look, never a merge, never a fix that de-indexes a page.
    Review,
}

impl Tier {
    /// The tier's name as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Strong => "strong",
            Tier::Review => "review",
        }
    }
}

impl FindingId {
    /// The evidence tier of a finding of this kind: `review` for near-identical
    /// content, `strong` for everything the audit states as fact.
    pub fn tier(self) -> Tier {
        match self {
            FindingId::DupNear => Tier::Review,
            _ => Tier::Strong,
        }
    }
}

/// The family a finding is listed under, one per kind of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The same page under several URLs, clusters whose signals disagree, and
    /// different pages sharing a title, a first heading or a meta description.
    Duplicates,
    /// rel=canonical declarations.
    Canonicals,
    /// Redirects and links to redirects.
    Redirects,
    /// Sitemaps.
    Sitemaps,
    /// Learned DUST rules, and policy rules that do not hold on the site.
    Dust,
    /// hreflang annotations.
    Hreflang,
    /// Everything else the crawl met: traps, robots.txt, broken links.
    Crawl,
}

impl FindingId {
    /// The family findings of this kind are listed under.
    pub fn family(self) -> Family {
        use FindingId::*;
        match self {
            DupHost
            | DupScheme
            | DupSlash
            | DupIndex
            | DupCase
            | DupParam
            | DupContent
            | DupNear
            | ClusterConflict
            | VariantDuplicate
            | TitleDuplicate
            | H1Duplicate
            | MetaDescriptionDuplicate => Family::Duplicates,
            DupDust | RuleDoesNotHold => Family::Dust,
            CanonMultiple | CanonConflict | CanonInvalid | CanonOutsideHead | CanonRelative
            | CanonToRedirect | CanonToError | CanonToNoindex | CanonToBlocked | CanonChain
            | CanonLoop | CanonCrossHost | CanonCrossScheme | CanonToUnrelated
            | CanonCommentPage | CanonLinked => Family::Canonicals,
            RedirectChain | RedirectLoop | RedirectTemporary | RedirectToError
            | RedirectMetaRefresh | RedirectHttpNotHttps | LinkToRedirect | VariantTemporary => {
                Family::Redirects
            }
            SitemapRedirect
            | SitemapError
            | SitemapNoindex
            | SitemapBlocked
            | SitemapCanonicalised
            | SitemapNonPreferred
            | SitemapMissing
            | SitemapOrphan
            | SitemapInvalid
            | SitemapOverLimit
            | SitemapLocationRedirect
            | SitemapGuessUnreadable => Family::Sitemaps,
            HreflangToRedirect | HreflangToError | HreflangToNoindex | HreflangNonPreferred
            | HreflangNoReturn | HreflangInvalidLang | HreflangNoSelf | HreflangConflict
            | HreflangXDefault => Family::Hreflang,
            Trap | RobotsTooLarge | RobotsHidesDup | LinkBroken => Family::Crawl,
            RenderCanonAdded | RenderCanonChanged => Family::Canonicals,
            RenderNoindexAdded | RenderNoindexRemoved | RenderTitleChanged | RenderJsLinks
            | RenderContent | RenderFailed => Family::Crawl,
        }
    }
}

impl fmt::Display for FindingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One concrete change that fixes (part of) a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Fix {
    /// Redirect `from` to `to` with `status` (301).
    Redirect {
        /// The URL to redirect.
        from: String,
        /// Where to.
        to: String,
        /// The status to use.
        status: u16,
    },
    /// Put `<link rel="canonical" href="{href}">` in the head of `page` (replacing any other).
    SetCanonical {
        /// The page.
        page: String,
        /// The canonical URL.
        href: String,
    },
    /// Remove a canonical declaration from `page`.
    RemoveCanonical {
        /// The page.
        page: String,
        /// The href of the declaration to remove.
        href: String,
    },
    /// Move the canonical element of `page` into its `<head>`.
    MoveCanonicalToHead {
        /// The page.
        page: String,
    },
    /// Change links to `from` into links to `to` on `pages`.
    UpdateLinks {
        /// Pages with the links (at most `max_listed`).
        pages: Vec<String>,
        /// Pages not listed.
        more_pages: u32,
        /// The linked URL.
        from: String,
        /// The URL to link instead.
        to: String,
    },
    /// Remove links to `to` from `pages` (no better target exists).
    RemoveLinks {
        /// Pages with the links (at most `max_listed`).
        pages: Vec<String>,
        /// Pages not listed.
        more_pages: u32,
        /// The linked URL (or URL pattern).
        to: String,
    },
    /// Change one link in the site's template (menu, header, footer, sidebar): it is on
    /// most pages, so one edit changes it on all of them.
    UpdateTemplateLink {
        /// The linked URL.
        from: String,
        /// The URL to link instead; `None`: remove the link.
        to: Option<String>,
        /// Pages carrying it.
        pages: u32,
        /// Its most common anchor text.
        anchor: Option<String>,
        /// Where in the pages it sits, when recorded.
        #[serde(default)]
        region: Option<crate::LinkRegion>,
    },
    /// Change the internal links to every URL of a pattern into links to where each
    /// leads (the links table lists each link).
    UpdateLinksForPattern {
        /// What the linked URLs have in common, in words.
        pattern: String,
        /// How many URLs.
        urls: u32,
        /// One linked URL and where it leads.
        example: [String; 2],
    },
    /// Remove or correct the internal links to every URL of a pattern: each redirects
    /// to an error (the finding lists each URL).
    RemoveLinksForPattern {
        /// What the linked URLs have in common, in words.
        pattern: String,
        /// How many URLs.
        urls: u32,
        /// One linked URL and the error it ends at.
        example: [String; 2],
    },
    /// Link to `to` from relevant crawlable pages.
    AddLinks {
        /// The page that needs internal links.
        to: String,
    },
    /// Remove `loc` from `sitemap`.
    SitemapRemove {
        /// The sitemap's URL.
        sitemap: String,
        /// The entry.
        loc: String,
    },
    /// Replace `loc` with `with` in `sitemap`.
    SitemapReplace {
        /// The sitemap's URL.
        sitemap: String,
        /// The entry.
        loc: String,
        /// Its replacement.
        with: String,
    },
    /// Add `loc` to `sitemap`, the sitemap that lists pages like it.
    SitemapAdd {
        /// The URL to add.
        loc: String,
        /// The sitemap's URL.
        sitemap: String,
    },
    /// Review two pages with near-identical main content: merge them if they are one
    /// page, make them distinct if not (no canonical without strong evidence).
    ReviewNearDuplicate {
        /// The two pages.
        pages: [String; 2],
        /// Their similarity in whole percent.
        similarity: u32,
    },
    /// Review the query parameters of paths whose URLs have near-identical main content:
    /// filters and sorts that make no page of their own.
    ReviewParameters {
        /// The paths (host and path).
        paths: Vec<String>,
        /// The parameter names seen on its near-identical URLs.
        params: Vec<String>,
        /// How many near-identical pairs.
        pairs: u32,
    },
    /// One fix for every URL of a pattern of duplicates: a 301, or a canonical, from
    /// each to its preferred URL (the fix files list every pair).
    ForPattern {
        /// What the URLs have in common, in words ("on the host name www.example.com
        /// instead of example.com").
        pattern: String,
        /// How many URLs.
        urls: u32,
        /// A canonical rather than a 301.
        canonical: bool,
        /// One URL of the pattern and its preferred URL.
        example: [String; 2],
        /// How many of the URLs have internal links to change.
        linked: u32,
    },
    /// One template writes the canonical of every page of a pattern, naming a page whose
    /// main content differs (page N of a listing naming page 1): make each page's
    /// canonical its own URL, where the template writes it.
    SelfCanonicalForPattern {
        /// What the pages have in common, in words.
        pattern: String,
        /// Every page of the pattern (`canonicals_to_set.csv` lists them).
        pages: Vec<String>,
        /// One page and the URL its canonical names today.
        example: [String; 2],
    },
    /// Let robots.txt allow crawling `url`.
    AllowInRobots {
        /// The URL.
        url: String,
    },
    /// Add `Disallow: {pattern}` to robots.txt.
    DisallowInRobots {
        /// The path pattern.
        pattern: String,
    },
    /// Turn a normalization rule off in the audit policy.
    DisableRule {
        /// The rule.
        rule: Rule,
    },
    /// Regenerate a sitemap so that it is valid and within limits.
    RebuildSitemap {
        /// The sitemap's URL.
        sitemap: String,
        /// What must change.
        detail: String,
    },
    /// Declare `sitemap` by its own URL: in robots.txt, and in place of `instead_of` (a URL
    /// that redirects to it) wherever that one is named.
    DeclareSitemap {
        /// The sitemap's final URL.
        sitemap: String,
        /// The declared URL that redirects to it, if the sitemap was declared.
        instead_of: Option<String>,
    },
    /// One server rule for every URL of a variant pattern (`url_variants.csv` and the
    /// report's URL variants section hold it for nginx and Apache).
    ServerRule {
        /// What the rule does, as the start of a sentence ("Redirect upper-case URLs to
        /// the page's own URL with a 301").
        change: String,
        /// One variant and its page.
        example: [String; 2],
        /// The rule for nginx (its `server` block).
        nginx: String,
        /// The rule for Apache httpd (its `<VirtualHost>`).
        apache: String,
        /// The rule for Apache httpd's `.htaccess` (a comment saying why, when none is
        /// offered there).
        #[serde(default)]
        htaccess: String,
    },
    /// Give each of different pages a title, first heading or meta description of its
    /// own (they share one today).
    DistinctValue {
        /// What they share.
        element: MetaElement,
        /// The pages (at most `max_listed`).
        pages: Vec<String>,
        /// Pages not listed.
        more_pages: u32,
    },
    /// Pairs of pages of one URL pattern share a title, heading or description (a
    /// product page and its "write a review" page): give the pattern's template its own.
    DistinctValueForPattern {
        /// What they share.
        element: MetaElement,
        /// How the second page of each pair differs from the first, in words.
        pattern: String,
        /// How many pairs.
        pairs: u32,
        /// One pair.
        example: [String; 2],
    },
    /// Make `url` answer 200 with its content (it is the page the others should point at).
    Serve {
        /// The URL.
        url: String,
    },
    /// On `page`, make the hreflang alternate for `lang` name `href` (added, or
    /// replacing the URL it names now).
    SetHreflang {
        /// The page declaring alternates.
        page: String,
        /// The language code (or `x-default`).
        lang: String,
        /// The URL to name.
        href: String,
    },
    /// On `page`, remove the hreflang alternate `lang` → `href`.
    RemoveHreflang {
        /// The page declaring alternates.
        page: String,
        /// The language code as declared.
        lang: String,
        /// The URL it names.
        href: String,
    },
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fix::Redirect { from, to, status } => {
                write!(f, "Redirect {from} to {to} with a {status}.")
            }
            Fix::SetCanonical { page, href } => {
                write!(
                    f,
                    "On {page}, set <link rel=\"canonical\" href=\"{href}\">."
                )
            }
            Fix::RemoveCanonical { page, href } => {
                write!(f, "On {page}, remove the canonical to {href}.")
            }
            Fix::MoveCanonicalToHead { page } => {
                write!(f, "On {page}, move the canonical into <head>.")
            }
            Fix::UpdateLinks {
                pages,
                more_pages,
                from,
                to,
            } => {
                write!(
                    f,
                    "Change links to {from} into links to {to} on {}",
                    pages.join(", ")
                )?;
                write_more_pages(f, *more_pages)?;
                f.write_str(".")
            }
            Fix::RemoveLinks {
                pages,
                more_pages,
                to,
            } => {
                write!(f, "Remove links to {to} from {}", pages.join(", "))?;
                write_more_pages(f, *more_pages)?;
                f.write_str(".")
            }
            Fix::UpdateTemplateLink {
                from,
                to,
                pages,
                anchor,
                region,
            } => write_template_link(f, from, to, pages, anchor, region),
            Fix::UpdateLinksForPattern {
                pattern,
                urls,
                example,
            } => write_update_links_for_pattern(f, pattern, urls, example),
            Fix::RemoveLinksForPattern {
                pattern,
                urls,
                example,
            } => write_remove_links_for_pattern(f, pattern, urls, example),
            Fix::AddLinks { to } => write!(f, "Link to {to} from relevant crawlable pages."),
            Fix::SitemapRemove { sitemap, loc } => {
                write!(f, "Remove {loc} from sitemap {sitemap}.")
            }
            Fix::SitemapReplace { sitemap, loc, with } => {
                write!(f, "In sitemap {sitemap}, replace {loc} with {with}.")
            }
            Fix::SitemapAdd { loc, sitemap } => {
                write!(
                    f,
                    "Add {loc} to sitemap {sitemap}, which lists pages like it."
                )
            }
            Fix::ForPattern {
                pattern,
                urls,
                canonical,
                example,
                linked,
            } => write_for_pattern(f, pattern, urls, canonical, example, linked),
            Fix::SelfCanonicalForPattern {
                pattern,
                pages,
                example,
            } => write_self_canonical_for_pattern(f, pattern, pages, example),
            Fix::ReviewNearDuplicate { pages, similarity } => write!(
                f,
                "Compare {} and {} ({similarity}% similar main content): if they are one page, \
                 keep one and 301 the other to it; if not, make their main content distinct.",
                pages[0], pages[1]
            ),
            Fix::ReviewParameters {
                paths,
                params,
                pairs,
            } => write_review_parameters(f, paths, params, pairs),
            Fix::AllowInRobots { url } => write!(f, "Allow {url} in robots.txt."),
            Fix::DisallowInRobots { pattern } => {
                write!(f, "Add `Disallow: {pattern}` to robots.txt.")
            }
            Fix::DisableRule { rule } => {
                write!(f, "Turn the `{rule}` rule off in the audit policy.")
            }
            Fix::RebuildSitemap { sitemap, detail } => {
                write!(f, "Regenerate sitemap {sitemap}: {detail}.")
            }
            Fix::DeclareSitemap {
                sitemap,
                instead_of: Some(old),
            } => write!(
                f,
                "Name sitemap {sitemap} by its final URL instead of {old} (robots.txt `Sitemap:` lines, sitemap indexes, search consoles)."
            ),
            Fix::DeclareSitemap {
                sitemap,
                instead_of: None,
            } => write!(
                f,
                "Declare sitemap {sitemap} in robots.txt: `Sitemap: {sitemap}`."
            ),
            Fix::DistinctValueForPattern {
                element,
                pattern,
                pairs,
                example,
            } => write_distinct_value_for_pattern(f, element, pattern, pairs, example),
            Fix::DistinctValue {
                element,
                pages,
                more_pages,
            } => write_distinct_value(f, element, pages, more_pages),
            Fix::Serve { url } => write!(f, "Make {url} answer 200 with its content."),
            Fix::ServerRule {
                change,
                example,
                nginx,
                apache,
                htaccess,
            } => write_server_rule(f, change, example, nginx, apache, htaccess),
            Fix::SetHreflang { page, lang, href } => write!(
                f,
                "On {page}, set <link rel=\"alternate\" hreflang=\"{lang}\" href=\"{href}\">."
            ),
            Fix::RemoveHreflang { page, lang, href } => write!(
                f,
                "On {page}, remove the hreflang alternate {lang} to {href}."
            ),
        }
    }
}

/// " and 1 more page", " and 3 more pages" after a list of pages, or nothing.
fn write_more_pages(f: &mut fmt::Formatter<'_>, more_pages: u32) -> fmt::Result {
    match more_pages {
        0 => Ok(()),
        1 => f.write_str(" and 1 more page"),
        n => write!(f, " and {n} more pages"),
    }
}

/// The canonical a template writes for the pages of a pattern, made each page's own.
fn write_self_canonical_for_pattern(
    f: &mut fmt::Formatter<'_>,
    pattern: &str,
    pages: &[String],
    example: &[String; 2],
) -> fmt::Result {
    let [page, names] = example;
    write!(
        f,
        "In the template that writes the canonical of the {} {pattern}, make \
         each page's canonical its own URL (for example, {page} names {names} \
         today); canonicals_to_set.csv lists every page.",
        crate::wording::count(pages.len(), "page", "pages")
    )
}

/// The fix of a link the site's template writes: one edit, where the template sits.
fn write_template_link(
    f: &mut fmt::Formatter<'_>,
    from: &str,
    to: &Option<String>,
    pages: &u32,
    anchor: &Option<String>,
    region: &Option<crate::LinkRegion>,
) -> fmt::Result {
    let named = anchor
        .as_deref()
        .map_or_else(String::new, |a| format!(" (\"{a}\")"));
    let place = match region {
        Some(crate::LinkRegion::Body) | None => "template (navigation, header, footer or sidebar)",
        r => crate::wording::template_place(*r),
    };
    let all = match pages {
        1 => "the 1 page that carries it".to_owned(),
        n => format!("all {n} pages that carry it"),
    };
    match to {
        Some(to) => write!(
            f,
            "In the site's {place}, change the link{named} to {from} into a link to \
             {to}: one edit changes it on {all}."
        ),
        None => write!(
            f,
            "In the site's {place}, remove or replace the link{named} to {from}: one \
             edit changes it on {all}."
        ),
    }
}

/// Links to the URLs of a pattern changed to the URLs they lead to.
fn write_update_links_for_pattern(
    f: &mut fmt::Formatter<'_>,
    pattern: &str,
    urls: &u32,
    example: &[String; 2],
) -> fmt::Result {
    let [from, to] = example;
    write!(
        f,
        "Change the internal links to the {urls} URLs {pattern}, into links to the \
         URLs they lead to (for example, link {to} instead of {from}): where one \
         template or editor writes them all, fix it there; \
         links_to_non_preferred.csv lists every link."
    )
}

/// Links to the URLs of a pattern removed or corrected.
fn write_remove_links_for_pattern(
    f: &mut fmt::Formatter<'_>,
    pattern: &str,
    urls: &u32,
    example: &[String; 2],
) -> fmt::Result {
    let [from, to] = example;
    write!(
        f,
        "Remove or correct the internal links to the {urls} URLs {pattern} (for \
         example, {from} ends at {to}): where one template or editor writes them \
         all, fix it there; the finding lists every URL."
    )
}

/// The URLs of a pattern canonicalised or redirected to their preferred URLs, with their
/// internal links.
fn write_for_pattern(
    f: &mut fmt::Formatter<'_>,
    pattern: &str,
    urls: &u32,
    canonical: &bool,
    example: &[String; 2],
    linked: &u32,
) -> fmt::Result {
    let [from, to] = example;
    if *canonical {
        write!(
            f,
            "On each of the {urls} URLs {pattern}, set <link rel=\"canonical\"> to \
             its preferred URL (for example, on {from}, to {to}); \
             canonicals_to_set.csv lists every page."
        )?;
    } else {
        write!(
            f,
            "Redirect each of the {urls} URLs {pattern}, to its preferred URL with a \
             301 (for example {from} to {to}), with one rule for the pattern where \
             the server allows; redirect_map.csv lists every redirect."
        )?;
    }
    match linked {
        0 => Ok(()),
        1 => f.write_str(" Change the internal links to the one that has them."),
        n => write!(f, " Change the internal links to the {n} that have them."),
    }
}

/// Query parameters whose URLs are near-identical, to review.
fn write_review_parameters(
    f: &mut fmt::Formatter<'_>,
    paths: &[String],
    params: &[String],
    pairs: &u32,
) -> fmt::Result {
    let path = match paths {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b} and {c}"),
        [a, b, c, rest @ ..] => {
            format!("{a}, {b}, {c} and {} more paths", rest.len())
        }
        [] => "these paths".to_owned(),
    };
    let names = params
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (which, they) = if params.len() == 1 {
        ("parameter", "it filters or sorts")
    } else {
        ("parameters", "they filter or sort")
    };
    write!(
        f,
        "Review the {which} {names} of {path} ({pairs} near-identical pairs): where \
         {they} the same listing without making a page worth finding, set each \
         URL's canonical to the unfiltered listing or keep crawlers out with \
         robots.txt; where the URLs are distinct pages, make their main content \
         distinct."
    )
}

/// A title, heading or description the second page of each pair of a pattern repeats.
fn write_distinct_value_for_pattern(
    f: &mut fmt::Formatter<'_>,
    element: &MetaElement,
    pattern: &str,
    pairs: &u32,
    example: &[String; 2],
) -> fmt::Result {
    let what = element.words();
    let [page, other] = example;
    write!(
        f,
        "In the template of the second page of each of the {pairs} pairs (a page \
         {pattern}), write a {what} of its own that says what that page is for \
         (for example, {other} repeats the {what} of {page}); \
         duplicate_metadata.csv lists every page."
    )
}

/// A title, heading or description different pages share.
fn write_distinct_value(
    f: &mut fmt::Formatter<'_>,
    element: &MetaElement,
    pages: &[String],
    more_pages: &u32,
) -> fmt::Result {
    let what = element.words();
    let n = pages.len() + *more_pages as usize;
    write!(
        f,
        "Give each of the {n} pages a {what} of its own that says what sets it \
         apart from the others: "
    )?;
    match (pages, more_pages) {
        ([one], 0) => f.write_str(one)?,
        ([rest @ .., last], 0) => write!(f, "{} and {last}", rest.join(", "))?,
        (all, 1) => write!(f, "{} and 1 more page", all.join(", "))?,
        (all, m) => write!(f, "{} and {m} more pages", all.join(", "))?,
    }
    write!(
        f,
        ". Where a template or a default of the site writes the {what}, change it \
         there, so that it writes each page's own."
    )
}

/// URL variants redirected by one server rule, when one is offered.
fn write_server_rule(
    f: &mut fmt::Formatter<'_>,
    change: &str,
    example: &[String; 2],
    nginx: &str,
    apache: &str,
    htaccess: &str,
) -> fmt::Result {
    let [from, to] = example;
    if [nginx, apache, htaccess]
        .iter()
        .any(|t| crate::wording::server_rule_offered(t))
    {
        write!(
            f,
            "{change}, with one server rule for all of them (for example, {from} \
             is the page {to}); url_variants.csv gives the rule for nginx and for \
             Apache, each saying where it goes."
        )
    } else {
        write!(
            f,
            "{change} (for example, {from} is the page {to}); no server rule is \
             offered, since none would be safe on this site (url_variants.csv says \
             why)."
        )
    }
}

/// One problem found by the analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The finding's id.
    pub id: FindingId,
    /// A stable per-instance key built from URLs (never row ids): `"{code} {url}[ {url}]"`.
    /// The same problem has the same key in two audits of the site.
    pub key: String,
    /// Its severity (the id's).
    pub severity: Severity,
    /// The id's title.
    pub title: Cow<'static, str>,
    /// Why it matters (the id's).
    pub why: Cow<'static, str>,
    /// One sentence about this instance.
    pub summary: String,
    /// The URLs concerned, the one to act on first.
    pub urls: Vec<String>,
    /// What the audit saw, one fact per line.
    pub evidence: Vec<String>,
    /// The fix.
    pub fixes: Vec<Fix>,
    /// How many of the site's own pages the finding concerns, when its URLs are only
    /// examples of them: a URL-variant rule's finding names the variants Dustpan made
    /// up, and concerns every page of the site sections where they answered so. What
    /// ranks the finding; `None` when its URLs are what it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affects: Option<u32>,
}

impl Finding {
    /// A finding with the id's catalog text; `key_urls` make its key.
    pub(crate) fn new(id: FindingId, key_urls: &[&str], summary: String) -> Finding {
        let mut key = id.code().to_owned();
        for u in key_urls {
            key.push(' ');
            key.push_str(u);
        }
        Finding {
            id,
            key,
            severity: id.severity(),
            title: Cow::Borrowed(id.title()),
            why: Cow::Borrowed(id.why()),
            summary,
            urls: Vec::new(),
            evidence: Vec::new(),
            fixes: Vec::new(),
            affects: None,
        }
    }

    /// Adds URLs, skipping ones already listed.
    pub(crate) fn urls(mut self, urls: impl IntoIterator<Item = String>) -> Finding {
        for u in urls {
            if !self.urls.contains(&u) {
                self.urls.push(u);
            }
        }
        self
    }

    pub(crate) fn affects(mut self, pages: u32) -> Finding {
        self.affects = Some(pages);
        self
    }

    /// How many of the site's URLs the finding concerns: the field `affects`, else
    /// its distinct URLs.
    pub fn concerns(&self) -> usize {
        match self.affects {
            Some(n) => n as usize,
            None => {
                let mut urls: Vec<&str> = self.urls.iter().map(String::as_str).collect();
                urls.sort_unstable();
                urls.dedup();
                urls.len()
            }
        }
    }

    pub(crate) fn evidence(mut self, line: String) -> Finding {
        self.evidence.push(line);
        self
    }

    pub(crate) fn fix(mut self, fix: Fix) -> Finding {
        self.fixes.push(fix);
        self
    }
}

/// How two audits' findings compare, matched by [`Finding::key`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Keys only in the newer audit.
    pub new: Vec<String>,
    /// Keys only in the older audit (fixed, or no longer seen).
    pub resolved: Vec<String>,
    /// Keys in both.
    pub persisting: Vec<String>,
}

/// Compares the findings of an older and a newer audit by key.
pub fn compare(older: &[Finding], newer: &[Finding]) -> Comparison {
    let mut a: Vec<&str> = older.iter().map(|f| f.key.as_str()).collect();
    let mut b: Vec<&str> = newer.iter().map(|f| f.key.as_str()).collect();
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    let mut out = Comparison::default();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                out.persisting.push((*x).to_owned());
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                out.resolved.push((*x).to_owned());
                i += 1;
            }
            (Some(x), None) => {
                out.resolved.push((*x).to_owned());
                i += 1;
            }
            (_, Some(y)) => {
                out.new.push((*y).to_owned());
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// The part of a page whose value different pages share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaElement {
    /// The `<title>`.
    Title,
    /// The first `<h1>`.
    H1,
    /// The first `<meta name="description">` in `<head>`.
    MetaDescription,
}

impl MetaElement {
    /// Every element, in the order findings and tables list them.
    pub const ALL: [MetaElement; 3] = [
        MetaElement::Title,
        MetaElement::H1,
        MetaElement::MetaDescription,
    ];

    /// `title`, `h1`, `meta description`: the element as tables name it.
    pub fn as_str(self) -> &'static str {
        match self {
            MetaElement::Title => "title",
            MetaElement::H1 => "h1",
            MetaElement::MetaDescription => "meta description",
        }
    }

    /// The element in a sentence: `title`, `first heading (<h1>)`, `meta description`.
    pub fn words(self) -> &'static str {
        match self {
            MetaElement::Title => "title",
            MetaElement::H1 => "first heading (<h1>)",
            MetaElement::MetaDescription => "meta description",
        }
    }

    /// The kind of finding a value shared by different pages is.
    pub fn finding(self) -> FindingId {
        match self {
            MetaElement::Title => FindingId::TitleDuplicate,
            MetaElement::H1 => FindingId::H1Duplicate,
            MetaElement::MetaDescription => FindingId::MetaDescriptionDuplicate,
        }
    }
}
