//! URL lists for list-mode audits (`dustpan audit --list FILE`): read exactly the URLs
//! a file names, whatever kind of file it is.
//!
//! The format is detected from the content, never from the file name, after gzip
//! decompression (sniffed by its magic bytes) and a UTF-8 byte order mark:
//!
//! * an XML sitemap (`<urlset>`, a feed, or a `<sitemapindex>`, whose child sitemaps are
//!   returned in [`UrlList::sitemaps`] for the crawl to fetch), read by the bounded
//!   streaming parser of the [`sitemap`] crate;
//! * an Apache / nginx access log in the common or combined format: the `GET` and `HEAD`
//!   requests, resolved against the site's origin ([`Options::site`]: logs hold paths),
//!   with per URL the number of requests from everything else and, for requests whose
//!   user agent names a search-engine bot, from each client address ([`Hits`],
//!   [`UrlList::clients`]), so that the addresses can be verified by DNS afterwards and
//!   each URL's bot requests split into verified, unverified and fake ([`Hits::split`]);
//! * a Google Search Console page-indexing export (`Table.csv` of one reason: `URL`,
//!   `Last crawled`), each URL kept with the reason ([`Options::reason`], from the file
//!   name) in [`Listed::search_console`];
//! * URL Inspection API results saved as JSON (one response, an array or JSON lines,
//!   starting with `{` or `[`), each inspected URL with `googleCanonical`,
//!   `userCanonical`, `coverageState` and `verdict` ([`SearchConsole`]);
//! * a CSV file with a URL column (`Address`, as Screaming Frog exports it, `URL` or
//!   `Loc`, in any case);
//! * otherwise a plain list, one URL per line (blank lines and `#` comments skipped;
//!   paths are resolved against [`Options::site`] when it is given).
//!
//! A line that is not a URL is never an error: it is counted, and the first
//! [`MAX_SAMPLES`] are kept with their line number and a reason. Input is read once, as
//! a stream: memory grows with the distinct URLs kept (at most [`Options::max_urls`])
//! and, for an access log, with the distinct (URL, bot address) pairs of bot requests
//! (eight bytes each; at most [`MAX_BOT_CLIENTS`] addresses), not with the size of the
//! file, and no line is held past [`MAX_LINE_BYTES`]. Several lists become one list
//! audit's URLs through [`Merged`].
//!
//! ```
//! let input = "# shop\nhttps://example.com/a\n\nnot a url\nhttps://example.com/a\n/b\n";
//! let options = urllist::Options {
//!     site: Some(url::Url::parse("https://example.com/").unwrap()),
//!     ..urllist::Options::default()
//! };
//! let list = urllist::read(input.as_bytes(), &options).unwrap();
//! assert_eq!(list.format, urllist::Format::Plain);
//! let urls: Vec<&str> = list.urls.iter().map(|u| u.url.as_str()).collect();
//! assert_eq!(urls, ["https://example.com/a", "https://example.com/b"]);
//! assert_eq!((list.lines, list.rejected, list.repeated), (6, 1, 1));
//! assert_eq!(list.samples[0].line, 4);
//! ```

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::IpAddr;

mod bots;
mod console;
mod input;
mod log;
mod merge;
mod plain;
mod table;
mod xml;

pub use bots::search_engine_bot;
pub use console::{MAX_FIELD_CHARS, MAX_JSON_BYTES, SearchConsole, reason_from_name};
pub use merge::{Added, Merged};
pub use url::Url;

/// Rejected lines kept as a sample ([`UrlList::samples`]); the rest are only counted.
pub const MAX_SAMPLES: usize = 10;
/// Longest line read, in bytes; a longer line is rejected ([`RejectKind::TooLong`]) and
/// never held in memory whole.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Characters of a rejected line kept in its sample.
pub const SAMPLE_CHARS: usize = 120;
/// Child sitemaps kept from a sitemap index (the protocol's limit).
pub const MAX_CHILD_SITEMAPS: usize = 50_000;
/// Distinct bot clients (address and bot) kept per list; the requests of further
/// addresses are counted under the bot's client without an address
/// ([`BotClient::ip`] `None`), which no check can verify.
pub const MAX_BOT_CLIENTS: usize = 100_000;

/// How to read a list.
#[derive(Debug, Clone)]
pub struct Options {
    /// Most distinct URLs kept; further ones are counted in [`UrlList::over_limit`].
    pub max_urls: usize,
    /// The site's scheme and host (an http(s) URL; its path is ignored): access logs hold
    /// paths, and a plain list or a CSV file may too. Required for an access log.
    pub site: Option<Url>,
    /// For access logs: keep only requests whose user agent matches this regular
    /// expression (a line of the common format, without a user agent, never matches).
    pub agent: Option<String>,
    /// Most uncompressed bytes read from an XML sitemap. Default 1 GiB.
    pub max_sitemap_bytes: u64,
    /// The Search Console reason a page-indexing export lists (see
    /// [`reason_from_name`]: its file name); used only when the input is one.
    pub reason: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_urls: 50_000,
            site: None,
            agent: None,
            max_sitemap_bytes: 1 << 30,
            reason: None,
        }
    }
}

/// What kind of list the content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// One URL per line.
    Plain,
    /// An XML sitemap (`<urlset>`) or a feed.
    Sitemap,
    /// An XML sitemap index: child sitemaps to fetch.
    SitemapIndex,
    /// CSV with a URL column.
    Csv,
    /// An access log, common or combined format.
    AccessLog,
    /// A Search Console page-indexing export (`URL`, `Last crawled`).
    SearchConsoleTable,
    /// URL Inspection API results saved as JSON.
    UrlInspection,
}

impl Format {
    /// A stable name: `plain`, `sitemap`, `sitemap_index`, `csv`, `access_log`,
    /// `search_console_table`, `url_inspection`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Plain => "plain",
            Format::Sitemap => "sitemap",
            Format::SitemapIndex => "sitemap_index",
            Format::Csv => "csv",
            Format::AccessLog => "access_log",
            Format::SearchConsoleTable => "search_console_table",
            Format::UrlInspection => "url_inspection",
        }
    }

    /// How people call it: `a URL list`, `an access log`, ...
    pub const fn describe(self) -> &'static str {
        match self {
            Format::Plain => "a URL list",
            Format::Sitemap => "an XML sitemap",
            Format::SitemapIndex => "an XML sitemap index",
            Format::Csv => "a CSV file",
            Format::AccessLog => "an access log",
            Format::SearchConsoleTable => "a Search Console page-indexing export",
            Format::UrlInspection => "URL Inspection API results",
        }
    }
}

/// Requests an access log holds for one URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits {
    /// Requests counted (`GET` and `HEAD`, matching [`Options::agent`] if given).
    pub requests: u64,
    /// Of those, the requests whose user agent names a search-engine bot, per client
    /// (an index into [`UrlList::clients`], or [`Merged::clients`] once merged), in
    /// client order.
    pub bots: Vec<ClientHits>,
}

/// The requests of one bot client for one URL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientHits {
    /// The client: an index into the list's clients.
    pub client: u32,
    /// Its requests (saturating at `u32::MAX`).
    pub requests: u32,
}

/// What a DNS check of a bot client's address found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The address belongs to the bot its user agent names.
    Verified,
    /// Not checked, or no answer.
    Unverified,
    /// The check failed: the user agent lies.
    Fake,
}

/// One URL's requests split by what the check of their clients found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requests {
    /// From bots whose address was verified.
    pub verified_bots: u64,
    /// From bots whose address was not verified (no answer, no check, or not looked up).
    pub unverified_bots: u64,
    /// Claiming a bot's user agent from an address that failed the check.
    pub fake_bots: u64,
    /// Every other request.
    pub others: u64,
}

impl Hits {
    /// Requests whose user agent names a search-engine bot, verified or not.
    pub fn bot_requests(&self) -> u64 {
        self.bots.iter().map(|h| u64::from(h.requests)).sum()
    }

    /// Requests from everything else.
    pub fn other_requests(&self) -> u64 {
        self.requests - self.bot_requests()
    }

    /// The requests split by `verdicts`, one per client ([`UrlList::clients`] or
    /// [`Merged::clients`]); a client without a verdict is unverified.
    pub fn split(&self, verdicts: &[Verdict]) -> Requests {
        let mut out = Requests {
            others: self.other_requests(),
            ..Requests::default()
        };
        for h in &self.bots {
            let n = u64::from(h.requests);
            match usize::try_from(h.client).ok().and_then(|i| verdicts.get(i)) {
                Some(Verdict::Verified) => out.verified_bots += n,
                Some(Verdict::Fake) => out.fake_bots += n,
                Some(Verdict::Unverified) | None => out.unverified_bots += n,
            }
        }
        out
    }

    /// Counts a request, from bot `client` if its user agent names one.
    fn count(&mut self, client: Option<u32>) {
        self.requests += 1;
        if let Some(client) = client {
            self.add_bot(client, 1);
        }
    }

    /// Adds `n` requests of bot `client` ([`Hits::bots`] is kept sorted by client: a
    /// URL that many addresses request is searched in logarithmic time, and a client
    /// seen for the first time, the highest index so far, goes at the end).
    pub(crate) fn add_bot(&mut self, client: u32, n: u32) {
        match self.bots.binary_search_by_key(&client, |h| h.client) {
            Ok(i) => self.bots[i].requests = self.bots[i].requests.saturating_add(n),
            Err(i) => self.bots.insert(
                i,
                ClientHits {
                    client,
                    requests: n,
                },
            ),
        }
    }
}

/// A client whose user agent names a search-engine bot: its address and the bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotClient {
    /// The client address the log gave; `None` when it gave none (a host name) or when
    /// the reader kept no more addresses ([`MAX_BOT_CLIENTS`]).
    pub ip: Option<IpAddr>,
    /// The bot its user agent names ([`search_engine_bot`]).
    pub bot: &'static str,
    /// Its requests to the URLs kept.
    pub requests: u64,
}

/// One listed URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The absolute http(s) URL, without fragment (as the `url` crate serializes it).
    pub url: String,
    /// The line (or sitemap entry line) where it first appears, 1-based.
    pub line: u64,
    /// Requests for it, when the input is an access log (else zero).
    pub hits: Hits,
    /// What Search Console says about it, when the input is a page-indexing export or
    /// URL Inspection results.
    pub search_console: Option<Box<SearchConsole>>,
}

/// Why a line is not a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RejectKind {
    /// Not a URL at all.
    NotUrl,
    /// A URL, but not http or https.
    NotHttp,
    /// A path, and no site to resolve it against ([`Options::site`]).
    PathWithoutSite,
    /// Not valid UTF-8.
    NotUtf8,
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// In an access log: not a common or combined log line.
    NotLogLine,
    /// In a CSV file: the URL cell is empty or missing.
    NoUrlCell,
    /// In a sitemap: an entry without a usable `<loc>`, or a fault that stopped reading.
    Sitemap,
    /// Reading stopped here (a corrupt gzip stream, a CSV record over the size limit):
    /// the rest of the input was not read.
    Unreadable,
    /// In an access log: a proxy request (an absolute-form target, `GET
    /// http://other-host/...`) for another origin than the site's.
    ProxyRequest,
    /// In URL Inspection results: text that is not JSON.
    NotJson,
    /// In URL Inspection results: JSON that is not an inspection result naming its URL.
    NotInspection,
}

impl RejectKind {
    /// A stable name (`not_url`, `not_http`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            RejectKind::NotUrl => "not_url",
            RejectKind::NotHttp => "not_http",
            RejectKind::PathWithoutSite => "path_without_site",
            RejectKind::NotUtf8 => "not_utf8",
            RejectKind::TooLong => "too_long",
            RejectKind::NotLogLine => "not_log_line",
            RejectKind::NoUrlCell => "no_url_cell",
            RejectKind::Sitemap => "sitemap",
            RejectKind::Unreadable => "unreadable",
            RejectKind::ProxyRequest => "proxy_request",
            RejectKind::NotJson => "not_json",
            RejectKind::NotInspection => "not_inspection",
        }
    }
}

/// A line that is not a URL, as kept in the sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// 1-based line number.
    pub line: u64,
    /// Why.
    pub kind: RejectKind,
    /// Why, in a short sentence.
    pub reason: String,
    /// The line's first [`SAMPLE_CHARS`] characters (lossy UTF-8).
    pub text: String,
}

/// Everything read from one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlList {
    /// The detected format.
    pub format: Format,
    /// Whether the input was gzip-compressed.
    pub compressed: bool,
    /// Lines read (blank lines and comments included).
    pub lines: u64,
    /// The distinct URLs, in order of first appearance, at most [`Options::max_urls`].
    pub urls: Vec<Listed>,
    /// Child sitemaps of a sitemap index, to fetch (distinct, in order).
    pub sitemaps: Vec<String>,
    /// Lines (or sitemap entries) that are not URLs.
    pub rejected: u64,
    /// The first [`MAX_SAMPLES`] of them.
    pub samples: Vec<Rejected>,
    /// Lines naming a URL already listed (not counted for an access log, where a URL
    /// requested again is a hit).
    pub repeated: u64,
    /// Lines (or requests) naming URLs past [`Options::max_urls`]: not kept.
    pub over_limit: u64,
    /// Access log lines left out on purpose: other methods than `GET` and `HEAD`, and
    /// user agents that do not match [`Options::agent`].
    pub skipped: u64,
    /// Access log requests counted (every [`Hits::requests`], plus those over the limit).
    pub requests: u64,
    /// Access logs: the distinct clients of requests whose user agent names a bot, in
    /// order of first request ([`Hits::bots`] refers to them by index).
    pub clients: Vec<BotClient>,
}

impl UrlList {
    fn new(format: Format, compressed: bool) -> Self {
        UrlList {
            format,
            compressed,
            lines: 0,
            urls: Vec::new(),
            sitemaps: Vec::new(),
            rejected: 0,
            samples: Vec::new(),
            repeated: 0,
            over_limit: 0,
            skipped: 0,
            requests: 0,
            clients: Vec::new(),
        }
    }

    /// Requests whose user agent names a search-engine bot over every listed URL
    /// (access logs), verified or not.
    pub fn bot_requests(&self) -> u64 {
        self.urls.iter().map(|u| u.hits.bot_requests()).sum()
    }
}

/// Why an input cannot be read at all. A line that is not a URL is no error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UrlListError {
    /// Reading the input failed before any content was read.
    #[error("reading the list failed: {0}")]
    Io(#[source] io::Error),
    /// The input starts like gzip but does not decompress.
    #[error("the list is gzip-compressed but does not decompress: {0}")]
    Decompress(#[source] io::Error),
    /// An access log, and no site to resolve its paths against.
    #[error(
        "the list is an access log, whose lines hold paths: give the site's scheme and host (--site https://example.com)"
    )]
    SiteRequired,
    /// The site given is not an http(s) URL with a host.
    #[error("the site {0:?} is not an http(s) URL with a host")]
    BadSite(String),
    /// The user-agent pattern is not a regular expression.
    #[error("invalid user-agent pattern: {0}")]
    AgentPattern(#[source] regex::Error),
}

/// Reads a list from `reader` (plain or gzip), detecting its format from the content.
///
/// # Errors
/// [`UrlListError`] only when nothing can be read (I/O, a corrupt gzip header), when an
/// access log comes without [`Options::site`], or when an option is invalid.
pub fn read<R: Read>(reader: R, options: &Options) -> Result<UrlList, UrlListError> {
    if let Some(site) = &options.site
        && !(matches!(site.scheme(), "http" | "https") && site.host().is_some())
    {
        return Err(UrlListError::BadSite(site.to_string()));
    }
    let agent = match &options.agent {
        Some(p) => Some(regex::Regex::new(p).map_err(UrlListError::AgentPattern)?),
        None => None,
    };
    let opened = input::open(reader)?;
    let format = input::detect(&opened.prefix);
    let compressed = opened.compressed;
    let mut out = Collector::new(options.max_urls, format, compressed);
    match format {
        input::Detected::Xml => xml::read(opened.into_reader(), options, &mut out),
        input::Detected::AccessLog => {
            let site = options.site.as_ref().ok_or(UrlListError::SiteRequired)?;
            log::read(opened.into_reader(), site, agent.as_ref(), &mut out);
        }
        input::Detected::Csv { delimiter } | input::Detected::ConsoleTable { delimiter } => {
            table::read(opened.into_reader(), delimiter, options, &mut out);
        }
        input::Detected::Json => console::read_json(opened.into_reader(), options, &mut out),
        input::Detected::Plain => plain::read(opened.into_reader(), options, &mut out),
    }
    Ok(out.list)
}

/// Builds the list: de-duplicates URLs, applies the limit, samples rejections.
pub(crate) struct Collector {
    max_urls: usize,
    index: HashMap<String, usize>,
    /// Bot clients by address and bot id ([`bots::bot_id`]).
    clients: HashMap<(Option<IpAddr>, u8), u32>,
    pub(crate) list: UrlList,
}

impl Collector {
    fn new(max_urls: usize, detected: input::Detected, compressed: bool) -> Self {
        let format = match detected {
            input::Detected::Xml => Format::Sitemap,
            input::Detected::AccessLog => Format::AccessLog,
            input::Detected::Csv { .. } => Format::Csv,
            input::Detected::ConsoleTable { .. } => Format::SearchConsoleTable,
            input::Detected::Json => Format::UrlInspection,
            input::Detected::Plain => Format::Plain,
        };
        Collector {
            max_urls,
            index: HashMap::new(),
            clients: HashMap::new(),
            list: UrlList::new(format, compressed),
        }
    }

    /// The index of `url` in the list, adding it when new and room is left.
    fn slot(&mut self, url: &Url, line: u64) -> Option<(usize, bool)> {
        if let Some(&i) = self.index.get(url.as_str()) {
            return Some((i, false));
        }
        if self.list.urls.len() >= self.max_urls {
            self.list.over_limit += 1;
            return None;
        }
        let i = self.list.urls.len();
        self.index.insert(url.as_str().to_owned(), i);
        self.list.urls.push(Listed {
            url: url.as_str().to_owned(),
            line,
            hits: Hits::default(),
            search_console: None,
        });
        Some((i, true))
    }

    /// A URL that another row names on `line` (a Google canonical): listed once, never
    /// counted as repeated.
    pub(crate) fn also(&mut self, url: &Url, line: u64) {
        let _ = self.slot(url, line);
    }

    /// A URL Search Console names on `line`, with what it says about it.
    pub(crate) fn console(&mut self, url: &Url, line: u64, facts: SearchConsole) {
        if let Some((i, new)) = self.slot(url, line) {
            if !new {
                self.list.repeated += 1;
            }
            match &mut self.list.urls[i].search_console {
                Some(known) => known.merge(&facts),
                slot => *slot = Some(Box::new(facts)),
            }
        }
    }

    /// A URL listed on `line`.
    pub(crate) fn url(&mut self, url: &Url, line: u64) {
        if let Some((_, false)) = self.slot(url, line) {
            self.list.repeated += 1;
        }
    }

    /// A request for `url` logged on `line`, by a bot (its id, [`bots::bot_id`]) from
    /// an address, if its user agent names one.
    pub(crate) fn hit(&mut self, url: &Url, line: u64, bot: Option<(u8, Option<IpAddr>)>) {
        self.list.requests += 1;
        if let Some((i, _)) = self.slot(url, line) {
            let client = bot.map(|(id, ip)| self.client(id, ip));
            self.list.urls[i].hits.count(client);
        }
    }

    /// The index of the client (`ip`, bot `id`), added when new; past
    /// [`MAX_BOT_CLIENTS`] addresses, the bot's client without an address.
    fn client(&mut self, id: u8, ip: Option<IpAddr>) -> u32 {
        let mut key = (ip, id);
        if ip.is_some() && self.clients.len() >= MAX_BOT_CLIENTS && !self.clients.contains_key(&key)
        {
            key = (None, id);
        }
        let index = match self.clients.get(&key) {
            Some(&i) => i,
            None => {
                let i = u32::try_from(self.list.clients.len()).unwrap_or(u32::MAX);
                self.clients.insert(key, i);
                self.list.clients.push(BotClient {
                    ip: key.0,
                    bot: bots::bot_name(id),
                    requests: 0,
                });
                i
            }
        };
        if let Some(c) = self.list.clients.get_mut(index as usize) {
            c.requests += 1;
        }
        index
    }

    /// A line that is not a URL.
    pub(crate) fn reject(&mut self, line: u64, kind: RejectKind, reason: String, text: &[u8]) {
        self.list.rejected += 1;
        if self.list.samples.len() < MAX_SAMPLES {
            let text = String::from_utf8_lossy(text);
            self.list.samples.push(Rejected {
                line,
                kind,
                reason,
                text: text.chars().take(SAMPLE_CHARS).collect(),
            });
        }
    }

    /// Reading stopped at `line` because of `error`.
    pub(crate) fn stopped(&mut self, line: u64, error: &io::Error) {
        self.reject(
            line,
            RejectKind::Unreadable,
            format!("reading stopped here ({error}); the rest of the input was not read"),
            b"",
        );
    }
}

/// A URL as a list names it: an absolute http(s) URL, or a path (starting with one `/`)
/// resolved against `site`. The fragment is dropped.
pub(crate) fn to_url(text: &str, site: Option<&Url>) -> Result<Url, (RejectKind, String)> {
    if text.chars().any(char::is_whitespace) {
        return Err((RejectKind::NotUrl, "not a URL (it contains spaces)".into()));
    }
    let mut url = if text.starts_with('/') && !text.starts_with("//") {
        let Some(site) = site else {
            return Err((
                RejectKind::PathWithoutSite,
                "a path, and no site to resolve it against (--site)".into(),
            ));
        };
        let origin = site.origin().ascii_serialization();
        Url::parse(&format!("{origin}{text}"))
            .map_err(|e| (RejectKind::NotUrl, format!("not a URL ({e})")))?
    } else {
        match Url::parse(text) {
            Ok(url) => url,
            Err(e) => return Err((RejectKind::NotUrl, format!("not a URL ({e})"))),
        }
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Err((
            RejectKind::NotHttp,
            format!("a {} URL, not http(s)", url.scheme()),
        ));
    }
    if url.host().is_none() {
        return Err((RejectKind::NotUrl, "a URL without a host".into()));
    }
    url.set_fragment(None);
    Ok(url)
}

#[cfg(test)]
mod tests;
