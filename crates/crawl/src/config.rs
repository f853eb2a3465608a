//! What an audit crawls and how politely: [`CrawlConfig`], stored as JSON with the audit so
//! that a resumed audit crawls exactly as it started.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::CrawlError;

/// Addresses kept per host in [`CrawlConfig::start_addresses`].
pub const MAX_START_ADDRESSES: usize = 16;

/// The crawl configuration. Every field has a default (see [`CrawlConfig::default`]), so
/// `{"start_urls": ["https://example.com/"]}` is a complete configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    /// Where the crawl starts. Their scheme (http/https) and `www.` variants are requested
    /// too, and their origins make the default scope: their hosts (with and without
    /// `www.`) over http and https, on the start URL's port if it names one, else on the
    /// schemes' default ports (80 and 443; a default port and no port are the same
    /// origin). Another port of the same host is out of scope (see
    /// [`any_port`](Self::any_port)).
    pub start_urls: Vec<String>,
    /// Also crawl subdomains of the start hosts (`blog.example.com` for `example.com`),
    /// on the start URLs' ports.
    pub include_subdomains: bool,
    /// Extra hosts in scope (exact names, lower case): `host`, on the start URLs'
    /// ports, or `host:port` (IPv6 addresses in brackets).
    pub extra_hosts: Vec<String>,
    /// Every port of the audited hosts is in scope (and reachable, even when the host is
    /// on a loopback or private address), not just the start URLs' ports. Off by default.
    pub any_port: bool,
    /// If not empty, an in-scope URL must also match one of these regular expressions
    /// (matched against the whole absolute URL).
    pub include_patterns: Vec<String>,
    /// In-scope URLs matching any of these regular expressions are not crawled.
    pub exclude_patterns: Vec<String>,
    /// Obey robots.txt (RFC 9309): disallowed URLs are recorded as `blocked` and never
    /// requested; Crawl-delay is honoured up to [`max_crawl_delay_ms`](Self::max_crawl_delay_ms).
    pub obey_robots: bool,
    /// The User-Agent header. Its first product token (`Dustpan`) is the name matched
    /// against robots.txt `User-agent:` lines.
    pub user_agent: String,
    /// Most URLs admitted to the frontier (start URLs, variants and discovered URLs that
    /// are in scope). 50,000 covers most sites in one sitting: at a polite 20 pages/s
    /// against a real server that is about 40 minutes and a database of a few hundred MB;
    /// raise it for large sites (memory does not grow with it: the frontier is on disk).
    pub max_urls: u64,
    /// Most link hops from a start URL (redirects do not count as hops). Deep
    /// paginations and calendars beyond it are recorded as skipped (`max_depth`).
    pub max_depth: u32,
    /// URLs longer than this (bytes) are recorded but not fetched (`url_too_long`).
    /// 2,048 is the longest URL that every browser, CDN and search engine handles.
    pub max_url_length: usize,
    /// URLs with more query parameters than this are recorded but not fetched
    /// (`too_many_params`): faceted-navigation explosions.
    pub max_query_params: usize,
    /// Body bytes read per response (after decompression, so a gzip bomb stops here);
    /// the rest is not read and the fetch is marked truncated. 10 MiB (Google reads 15 MB
    /// of an HTML file, and pages over a few MB are a finding of their own).
    pub max_response_bytes: u64,
    /// Bytes read from a sitemap (after decompression). The sitemap protocol allows 50 MB.
    pub max_sitemap_bytes: u64,
    /// Most sitemaps fetched (indexes included).
    pub max_sitemaps: u32,
    /// Connecting (TCP + TLS) may take this long, in ms.
    pub connect_timeout_ms: u64,
    /// Waiting for any single read from the server may take this long, in ms.
    pub read_timeout_ms: u64,
    /// One request, from sending it to the end of the body, may take this long, in ms.
    pub total_timeout_ms: u64,
    /// Requests in flight at once (over all hosts).
    pub concurrency: usize,
    /// Most requests per second to one host; 0 means no limit beyond `concurrency`.
    pub requests_per_second: f64,
    /// robots.txt Crawl-delay values above this (ms) are capped to it, so one line cannot
    /// stretch an audit to days; 0 ignores Crawl-delay. Default 5 s.
    pub max_crawl_delay_ms: u64,
    /// Most redirect hops followed from a URL that was linked (longer chains are recorded
    /// as `too_long` and their next target as skipped `redirect_limit`).
    pub max_redirects: u32,
    /// Retries after a 429 or 503 that carries Retry-After.
    pub max_retries: u32,
    /// Longest Retry-After honoured, in ms; a longer one ends the retries.
    pub max_retry_after_ms: u64,
    /// Crawl links marked rel=nofollow. On by default: search engines treat the
    /// attribute as a hint and find the URLs such links lead to, duplicates included
    /// (`?replytocom=`, print views, sort links). Off, they are recorded as skipped
    /// `nofollow` and not requested. The links record their `nofollow` either way.
    ///
    /// Every stored configuration carries this field (the whole configuration is stored),
    /// so an audit started when the default was off resumes and re-runs with it off; a
    /// configuration file that leaves it out gets today's default.
    pub follow_nofollow: bool,
    /// Crawl the links of pages whose robots meta tag or X-Robots-Tag says nofollow. Off
    /// by default: unlike the link attribute, the page-level directive is a rule ("do not
    /// follow the links on this page"), and the pages that carry it (search results,
    /// edit forms, filtered change lists) are where unbounded URL spaces live. Their
    /// links are recorded as skipped `nofollow`.
    pub follow_nofollow_pages: bool,
    /// Crawl the targets of rel=canonical declarations.
    pub follow_canonicals: bool,
    /// Crawl hreflang alternates.
    pub follow_hreflang: bool,
    /// Sitemaps to read besides those listed in robots.txt and `/sitemap.xml`. Their
    /// origins are the audit's own (they may be on another host, or at a private address)
    /// but not crawled: only the in-scope URLs they list are.
    pub sitemaps: Vec<String>,
    /// Read `/sitemap.xml` of each start origin even if robots.txt lists no sitemap.
    pub default_sitemap: bool,
    /// DNS overrides as in curl's `--resolve`: `host:port:address` (IPv6 in brackets).
    /// reqwest cannot match on the port, so an entry applies to every port of the host;
    /// the port is used for URLs that do not name one.
    ///
    /// The address policy: loopback, private, link-local, unique-local, multicast,
    /// unspecified and cloud metadata addresses are reachable only for the audit's own
    /// origins, at the addresses the user put them (an IP address in a start URL, an
    /// override here, or what a start URL's host resolves to when the run starts). An
    /// override for another host (a CDN serving the sitemaps) is honoured only where it
    /// points at the site's own address and port.
    pub resolve: Vec<String>,
    /// The audit's own hosts may be at non-public addresses (loopback, private,
    /// link-local, ...) that DNS gives them: a start host name (or a list audit's
    /// `--site`) that resolves to one is refused without it, since a DNS answer cannot
    /// tell a staging server from a laptop's other services. In a list audit it also
    /// makes every listed origin the audit's own (without it, only `--site`'s origin and
    /// hosts with a [`resolve`](Self::resolve) override are). An IP address in a start
    /// URL and an override need no opt-in: they are the user's word.
    pub allow_internal: bool,
    /// What the audit's own host names resolved to in its runs (each host's addresses,
    /// at most [`MAX_START_ADDRESSES`]): a resume, or an audit started like this one,
    /// whose host now resolves to a non-public address not among them is refused until
    /// the user allows it again.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub start_addresses: BTreeMap<String, Vec<IpAddr>>,
    /// Extra trusted root certificates in PEM (one or more per string), for staging servers
    /// with a private CA; the system's roots stay trusted.
    pub extra_root_certs_pem: Vec<String>,
    /// Trap detection: most URLs admitted whose path (and query) differ only in numbers
    /// (`/calendar/2024/05` and `/calendar/2031/12` share `/calendar/#/#`); 0 turns the
    /// check off. Further URLs of the pattern are recorded as skipped `trap`. Raise it for
    /// catalogues with more numbered products than this.
    pub trap_pattern_budget: u64,
    /// Trap detection for faceted navigation: most distinct combinations of filter values
    /// admitted per path (`/shop/?color=red&size=m`, `/shop/?size=m&sort=price`, ...: two
    /// or more query parameters with few values each; a parameter with many, such as a
    /// page title or a product id, is an identifier and no filter); 0 turns the check
    /// off. URLs of further combinations of the path, and links on a filter page that
    /// repeat a parameter with its value, are recorded as skipped `trap_facets`. Default
    /// 1,000: a wiki's views of the pages it has seen before telling its titles from
    /// filters (16 titles × their edit, history and section links) stay well below it.
    pub facet_budget: u64,
    /// Trap detection: most times one path segment may repeat (`/a/b/a/b/a/b` repeats
    /// `a` three times); 0 turns the check off.
    pub max_segment_repeats: usize,
    /// Known-URL keys kept in memory to de-duplicate without asking the database
    /// (about 32 bytes each); beyond it the database's unique index decides.
    pub known_url_cache: usize,
    /// Learned DUST rules from an earlier audit of the site (`dustpan report
    /// --save-rules`): a URL their confirmed rules predict to duplicate a URL already
    /// queued is recorded as skipped `dust_duplicate` instead of being fetched, except
    /// for a verification sample (see [`dust_check_every`](Self::dust_check_every)).
    pub learned_rules: Option<rules::LearnedRules>,
    /// The first predicted duplicate, and then one in this many, is fetched anyway, so
    /// the audit can count wrong predictions (0: skip them all). Default 10.
    pub dust_check_every: u64,
    /// Learn DUST rules during the crawl: once the pages fetched show a URL rule (a
    /// parameter that never changes the page, a second URL pattern) on enough pairs with
    /// no counter-example, the URLs it predicts to duplicate a known URL are skipped as
    /// `dust_duplicate` (but for the verification sample), and a wrong prediction drops
    /// the rule (see the `online` module). Default on.
    pub learn_dust: bool,
    /// The rules this audit's own crawl learned (`learn_dust`), kept for its resumes and
    /// its analysis; an audit started like this one learns its own instead.
    pub learned_during_crawl: Option<rules::LearnedRules>,
    /// The audit's storage budget: bytes the crawl may hand to the database (row
    /// contents plus an estimate of their index entries, over all runs; within a few
    /// tens of percent of the file's growth). Once spent, the crawl stops: what it fetched
    /// is kept and the audit records `max_db_bytes`. 0 turns it off. Default 2 GiB: a
    /// 50,000-page audit of an ordinary site stores a few hundred MB.
    pub max_db_bytes: u64,
    /// Most time one run may crawl, in ms (discovery included); the crawl then stops,
    /// keeps what it fetched and records `max_duration`, and `--resume` continues with
    /// a new budget. 0 (the default) means no limit.
    pub max_duration_ms: u64,
    /// Slow-host cut-off: a host whose median response time (request to end of body)
    /// over its last [`slow_host_window`](Self::slow_host_window) requests exceeds this,
    /// in ms, is no longer requested; its remaining URLs stay queued for a resume and the
    /// audit records `slow_host`. 0 turns it off. Default 20 s: three times the slowest
    /// ordinary pages, and a pace at which a 50,000-page site takes days.
    pub slow_host_ms: u64,
    /// Requests per host the slow-host median is taken over (at least 3). Default 20.
    pub slow_host_window: u32,
    /// URL-variant probes: once the frontier has drained, request a sample of the
    /// site's pages under URL variants no page links to (the other host name or scheme,
    /// the trailing slash, upper-case, an index file, a doubled slash, tracking, session
    /// and unknown parameters, an empty query, the IP address) and record how the server
    /// answers them (see the `probe` module). Default on; an audit stored before probes
    /// existed never probes when resumed.
    pub probe_variants: bool,
    /// Site sections (first path segments, largest first) whose pages the probes sample,
    /// three pages per section and rule. Default 5.
    pub probe_samples: u32,
    /// List mode: audit exactly these URLs (with their redirect hops and, when
    /// [`follow_canonicals`](Self::follow_canonicals), their canonical targets), not a
    /// crawl of the site. See [`ListMode`]; `None` for a crawl.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListMode>,
    /// The normalization policy the audit is analysed under, chosen when it starts and
    /// kept with it: the frontier stores each URL's form under it, the crawl's own DUST
    /// rules are learned under it, and every analysis of the audit (its finishing step,
    /// `dustpan report`, the app) uses it unless asked for another as a what-if. The
    /// default preset's when absent.
    #[serde(skip_serializing_if = "AuditPolicy::is_default")]
    pub policy: AuditPolicy,
    /// Render every HTML page that answered 2xx in headless Chromium too (`--render`),
    /// kept with the audit so that a resume or a re-run renders again. See
    /// [`crate::RenderConfig`]; `None`: raw HTML only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render: Option<crate::RenderConfig>,
}

/// A normalization policy with the name people know it by: a preset's name (`seo`) or
/// the path of the policy file it was read from (its rules are kept, so the file may
/// change or go away).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditPolicy {
    /// A preset's name, or the policy file's path.
    pub name: String,
    /// Its rules.
    pub policy: canon::Policy,
}

impl Default for AuditPolicy {
    /// The default preset ([`canon::Preset::default`]).
    fn default() -> AuditPolicy {
        AuditPolicy::preset(canon::Preset::default())
    }
}

impl AuditPolicy {
    /// A preset, under its name.
    pub fn preset(preset: canon::Preset) -> AuditPolicy {
        AuditPolicy {
            name: preset.as_str().to_owned(),
            policy: preset.policy(),
        }
    }

    /// The default preset, under its name.
    pub fn is_default(&self) -> bool {
        *self == AuditPolicy::default()
    }
}

/// A list audit (`dustpan audit --list FILE`): the listed URLs are admitted like start
/// URLs; their links are recorded but not followed (unless [`follow`](Self::follow)),
/// no scheme or `www.` variant is requested and no sitemap is looked for (only those in
/// [`CrawlConfig::sitemaps`] are read: a sitemap index's children). The start URLs are the
/// listed URLs' origins (`https://host/`, see [`CrawlConfig::for_list`]): the scope, and
/// what the audits list shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListMode {
    /// The listed URLs (absolute http(s)), distinct, in the order listed.
    pub urls: Vec<ListedUrl>,
    /// Crawl on from the listed URLs as from start URLs (a crawl of their origins, the
    /// listed URLs included).
    pub follow: bool,
    /// What each input held, for the reports.
    pub inputs: Vec<ListInput>,
    /// What the DNS check of the access logs' bot addresses found (access logs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_check: Option<BotCheckSummary>,
    /// The site the list belongs to (`--site`, `https://host[:port]/`): its origin is
    /// the audit's own, which may be at a non-public address like a crawl's start URL;
    /// the other listed origins are audited under the address policy like any host a
    /// site names (see [`CrawlConfig::allow_internal`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
}

/// One listed URL, and the requests an access log holds for it: from search-engine
/// bots (by user agent) whose address a reverse and forward DNS check verified, did not
/// verify, or found fake, and from everything else. The four counts are disjoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListedUrl {
    /// The URL.
    pub url: String,
    /// Requests from search-engine bots whose address the DNS check verified.
    #[serde(skip_serializing_if = "is_zero")]
    pub verified_bot_requests: u64,
    /// Requests from search-engine bots by user agent whose address was not verified
    /// (no answer, no documented check, not looked up). Configurations stored before
    /// the check call it `bot_requests`.
    #[serde(skip_serializing_if = "is_zero", alias = "bot_requests")]
    pub unverified_bot_requests: u64,
    /// Requests with a search-engine bot's user agent from an address that failed the
    /// check: not counted as bot requests.
    #[serde(skip_serializing_if = "is_zero")]
    pub fake_bot_requests: u64,
    /// Other requests, in an access log.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_requests: u64,
    /// What Google Search Console says about it (a page-indexing export or a URL
    /// inspection listed it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_console: Option<urllist::SearchConsole>,
}

impl ListedUrl {
    /// Every request the log holds for the URL.
    pub fn requests(&self) -> u64 {
        self.verified_bot_requests
            + self.unverified_bot_requests
            + self.fake_bot_requests
            + self.other_requests
    }
}

/// What the DNS check of an access log's bot addresses found, in distinct clients
/// (an address and the bot its user agent names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotCheckSummary {
    /// Whether addresses were looked up (false: the check was turned off, or no
    /// resolver was configured).
    pub looked_up: bool,
    /// Why not, when nothing was looked up.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Clients verified.
    pub verified: u64,
    /// Clients whose check failed (fake).
    pub fake: u64,
    /// Clients unverified: the resolver did not answer.
    pub no_answer: u64,
    /// Clients unverified: a bot without a documented check, or no address.
    pub no_check: u64,
    /// Clients unverified: past the most addresses looked up.
    pub over_limit: u64,
    /// Clients unverified: not looked up.
    pub not_checked: u64,
}

impl BotCheckSummary {
    /// Clients left unverified, whatever the reason.
    pub fn unverified(&self) -> u64 {
        self.no_answer + self.no_check + self.over_limit + self.not_checked
    }
}

impl std::fmt::Display for BotCheckSummary {
    /// `12 IPs verified, 3 fake, 40 unverified (no answer)`; with the reasons when
    /// several: `... 42 unverified (40 no answer, 2 no documented check)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ips = if self.verified == 1 { "IP" } else { "IPs" };
        write!(
            f,
            "{} {ips} verified, {} fake, {} unverified",
            self.verified,
            self.fake,
            self.unverified()
        )?;
        let not_looked_up = if self.note.is_empty() {
            "not looked up".to_owned()
        } else {
            format!("not looked up: {}", self.note)
        };
        let reasons: Vec<(u64, &str)> = [
            (self.no_answer, "no answer"),
            (self.no_check, "no documented check"),
            (self.over_limit, "over the limit of addresses looked up"),
            (self.not_checked, not_looked_up.as_str()),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .collect();
        match reasons.as_slice() {
            [] => Ok(()),
            [(_, why)] => write!(f, " ({why})"),
            _ => {
                let text: Vec<String> = reasons
                    .iter()
                    .map(|(n, why)| format!("{n} {why}"))
                    .collect();
                write!(f, " ({})", text.join(", "))
            }
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What one list input held.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ListInput {
    /// The file as given (`-` for standard input).
    pub name: String,
    /// Its format (`plain`, `sitemap`, `sitemap_index`, `csv`, `access_log`).
    pub format: String,
    /// Whether it was gzip-compressed.
    pub compressed: bool,
    /// Lines read.
    pub lines: u64,
    /// Distinct URLs it listed (kept).
    pub urls: u64,
    /// Child sitemaps it listed (a sitemap index), read by the crawl.
    pub sitemaps: u64,
    /// Lines that were not URLs.
    pub rejected: u64,
    /// The first of them.
    pub samples: Vec<RejectedLine>,
    /// Lines naming a URL listed before.
    pub repeated: u64,
    /// Lines (or requests) naming URLs past the limit (`max_urls`): not audited.
    pub over_limit: u64,
    /// Access log lines left out: other methods than GET and HEAD, or user agents not
    /// matching the pattern given.
    pub skipped: u64,
    /// Access log requests counted for the URLs audited (not those past the limit).
    pub requests: u64,
    /// Of those, requests whose user agent names a search-engine bot (verified by DNS
    /// or not: see [`ListMode::bot_check`]).
    pub bot_requests: u64,
}

/// A line of a list input that is not a URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RejectedLine {
    /// 1-based line number.
    pub line: u64,
    /// Why it is not a URL.
    pub reason: String,
    /// The line's beginning.
    pub text: String,
}

impl ListMode {
    /// Whether the crawl stays on the listed URLs (no `--follow`).
    pub fn list_only(&self) -> bool {
        !self.follow
    }

    /// Whether any listed URL carries access-log requests.
    pub fn has_log_hits(&self) -> bool {
        self.urls.iter().any(|u| u.requests() > 0)
    }
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self {
            start_urls: Vec::new(),
            include_subdomains: false,
            extra_hosts: Vec::new(),
            any_port: false,
            include_patterns: Vec::new(),
            exclude_patterns: Vec::new(),
            obey_robots: true,
            user_agent: default_user_agent(),
            max_urls: 50_000,
            max_depth: 100,
            max_url_length: 2_048,
            max_query_params: 20,
            max_response_bytes: 10 * 1024 * 1024,
            max_sitemap_bytes: 50 * 1024 * 1024,
            max_sitemaps: 1_000,
            connect_timeout_ms: 10_000,
            read_timeout_ms: 20_000,
            total_timeout_ms: 60_000,
            concurrency: 8,
            requests_per_second: 0.0,
            max_crawl_delay_ms: 5_000,
            max_redirects: 10,
            max_retries: 2,
            max_retry_after_ms: 30_000,
            follow_nofollow: true,
            follow_nofollow_pages: false,
            follow_canonicals: true,
            follow_hreflang: true,
            sitemaps: Vec::new(),
            default_sitemap: true,
            resolve: Vec::new(),
            allow_internal: false,
            start_addresses: BTreeMap::new(),
            extra_root_certs_pem: Vec::new(),
            trap_pattern_budget: 10_000,
            facet_budget: 1_000,
            max_segment_repeats: 2,
            known_url_cache: 4_000_000,
            learned_rules: None,
            dust_check_every: 10,
            learn_dust: true,
            learned_during_crawl: None,
            max_db_bytes: 2 << 30,
            max_duration_ms: 0,
            slow_host_ms: 20_000,
            slow_host_window: 20,
            probe_variants: true,
            probe_samples: 5,
            list: None,
            policy: AuditPolicy::default(),
            render: None,
        }
    }
}

/// `Dustpan/<version> (+site audit)`.
pub fn default_user_agent() -> String {
    format!("Dustpan/{} (+site audit)", env!("CARGO_PKG_VERSION"))
}

impl CrawlConfig {
    /// The rules the crawl may predict with: those carried in and those this audit's
    /// crawl learned, one list under the carried rules' policy (else the crawl's).
    pub fn prediction_rules(&self) -> Option<rules::LearnedRules> {
        let mut all = self
            .learned_rules
            .clone()
            .or_else(|| self.learned_during_crawl.clone())?;
        if self.learned_rules.is_some()
            && let Some(own) = &self.learned_during_crawl
        {
            for r in &own.rules {
                if !all.rules.iter().any(|x| x.id == r.id) {
                    all.rules.push(r.clone());
                }
            }
        }
        Some(all)
    }

    /// This configuration for a new audit started like the one it belongs to: the
    /// rules that audit's crawl learned stay with it.
    pub fn for_new_audit(mut self) -> CrawlConfig {
        self.learned_during_crawl = None;
        self
    }

    /// A default configuration starting at `url`.
    pub fn for_url(url: &str) -> Self {
        Self {
            start_urls: vec![start_url(url)],
            ..Self::default()
        }
    }

    /// A default configuration for a list audit: the start URLs are the listed URLs'
    /// origins (`scheme://host[:port]/`, in order of first appearance). Set
    /// [`sitemaps`](Self::sitemaps) first with [`CrawlConfig::set_list`] when the list
    /// names sitemaps to read.
    pub fn for_list(list: ListMode) -> Self {
        let mut config = Self::default();
        config.set_list(list);
        config
    }

    /// Makes this configuration a list audit of `list` (see [`CrawlConfig::for_list`]):
    /// the start URLs become the origins of the listed URLs and of the sitemaps to read
    /// ([`sitemaps`](Self::sitemaps), set before).
    pub fn set_list(&mut self, list: ListMode) {
        let mut origins: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let urls = list.urls.iter().map(|u| &u.url).chain(&self.sitemaps);
        for listed in urls {
            if let Ok(url) = url::Url::parse(listed)
                && matches!(url.scheme(), "http" | "https")
                && url.host().is_some()
            {
                let origin = format!("{}/", url.origin().ascii_serialization());
                if seen.insert(origin.clone()) {
                    origins.push(origin);
                }
            }
        }
        self.start_urls = origins;
        self.list = Some(list);
    }

    /// Whether this is a list audit that stays on the listed URLs (no `--follow`).
    pub fn list_only(&self) -> bool {
        self.list.as_ref().is_some_and(ListMode::list_only)
    }

    /// Reads the start URLs as a user types them: a bare host name (`example.com`,
    /// `example.com/shop`) becomes `https://` plus it (the crawler also requests the
    /// http variant of every start URL, so a site served only over http is still found).
    pub fn normalize_start_urls(&mut self) {
        for url in &mut self.start_urls {
            *url = start_url(url);
        }
    }

    /// The name matched against robots.txt `User-agent:` lines: the user agent's first
    /// product token (`Dustpan` for `Dustpan/0.1 (+site audit)`).
    pub fn robots_agent(&self) -> &str {
        let token = self
            .user_agent
            .split(|c: char| c == '/' || c.is_whitespace())
            .next()
            .unwrap_or("");
        if token.is_empty() { "*" } else { token }
    }

    /// Connect timeout.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms.max(1))
    }

    /// Read timeout.
    pub fn read_timeout(&self) -> Duration {
        Duration::from_millis(self.read_timeout_ms.max(1))
    }

    /// The run's duration budget, if any.
    pub fn max_duration(&self) -> Option<Duration> {
        (self.max_duration_ms > 0).then(|| Duration::from_millis(self.max_duration_ms))
    }

    /// Total timeout of one request.
    pub fn total_timeout(&self) -> Duration {
        Duration::from_millis(self.total_timeout_ms.max(1))
    }

    /// Checks what can be checked before crawling: start URLs, patterns, overrides.
    pub fn validate(&self) -> Result<(), CrawlError> {
        // A start URL given without a scheme is rejected here with a hint; front ends
        // call `normalize_start_urls` first.
        if let Some(list) = &self.list {
            if list.urls.is_empty() && self.sitemaps.is_empty() {
                return Err(CrawlError::Config("the list holds no URL".into()));
            }
            for listed in &list.urls {
                let ok = url::Url::parse(&listed.url)
                    .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
                if !ok {
                    return Err(CrawlError::Config(format!(
                        "listed URL {:?} is not an http(s) URL",
                        listed.url
                    )));
                }
            }
        }
        if self.start_urls.is_empty() {
            return Err(CrawlError::Config("no start URL".into()));
        }
        for url in &self.start_urls {
            let parsed = url::Url::parse(url).map_err(|e| {
                CrawlError::Config(format!(
                    "start URL {url:?}: {e} (give a URL such as https://{})",
                    url.trim_start_matches('/')
                ))
            })?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(CrawlError::Config(format!(
                    "start URL {url:?} is not an http(s) URL"
                )));
            }
        }
        for pattern in self.include_patterns.iter().chain(&self.exclude_patterns) {
            regex::Regex::new(pattern)
                .map_err(|e| CrawlError::Config(format!("pattern {pattern:?}: {e}")))?;
        }
        for entry in &self.resolve {
            parse_resolve(entry)?;
        }
        for entry in &self.extra_hosts {
            crate::scope::parse_extra_host(&entry.to_ascii_lowercase())?;
        }
        if self.concurrency == 0 {
            return Err(CrawlError::Config("concurrency must be at least 1".into()));
        }
        if !(self.requests_per_second >= 0.0 && self.requests_per_second.is_finite()) {
            return Err(CrawlError::Config(
                "requests_per_second must be a finite number >= 0".into(),
            ));
        }
        Ok(())
    }
}

/// Parses a curl-style `host:port:address` override into the host and socket address.
pub fn parse_resolve(entry: &str) -> Result<(String, SocketAddr), CrawlError> {
    let bad = |why: &str| {
        CrawlError::Config(format!(
            "resolve entry {entry:?}: {why} (want host:port:address)"
        ))
    };
    let (host, rest) = entry.split_once(':').ok_or_else(|| bad("no port"))?;
    let (port, address) = rest.split_once(':').ok_or_else(|| bad("no address"))?;
    let port: u16 = port.parse().map_err(|_| bad("bad port"))?;
    let address = address.trim_start_matches('[').trim_end_matches(']');
    let ip: IpAddr = address.parse().map_err(|_| bad("bad address"))?;
    if host.is_empty() {
        return Err(bad("empty host"));
    }
    Ok((host.to_ascii_lowercase(), SocketAddr::new(ip, port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_round_trip_and_partial_json_fills_in() {
        let config: CrawlConfig =
            serde_json::from_str(r#"{"start_urls":["https://example.test/"]}"#).unwrap();
        assert_eq!(config.max_urls, 50_000);
        assert!(config.obey_robots);
        assert!(config.user_agent.starts_with("Dustpan/"));
        assert_eq!(config.robots_agent(), "Dustpan");
        let json = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<CrawlConfig>(&json).unwrap(), config);
        assert!(serde_json::from_str::<CrawlConfig>(r#"{"max_urlz":1}"#).is_err());
        config.validate().unwrap();
    }

    #[test]
    fn nofollow_links_are_followed_unless_a_configuration_says_not() {
        assert!(CrawlConfig::default().follow_nofollow);
        assert!(CrawlConfig::for_url("https://example.test/").follow_nofollow);
        let partial: CrawlConfig =
            serde_json::from_str(r#"{"start_urls":["https://example.test/"]}"#).unwrap();
        assert!(partial.follow_nofollow);
        let off: CrawlConfig = serde_json::from_str(
            r#"{"start_urls":["https://example.test/"],"follow_nofollow":false}"#,
        )
        .unwrap();
        assert!(!off.follow_nofollow);
        // The page-level directive is obeyed unless asked otherwise.
        assert!(!CrawlConfig::default().follow_nofollow_pages);
        assert!(!partial.follow_nofollow_pages);
        // Written whole: a stored configuration keeps its value.
        let json = serde_json::to_string(&off).unwrap();
        assert!(json.contains(r#""follow_nofollow":false"#), "{json}");
    }

    #[test]
    fn a_list_audit_starts_at_its_origins_and_round_trips() {
        let listed = |url: &str, bot| ListedUrl {
            url: url.into(),
            unverified_bot_requests: bot,
            ..ListedUrl::default()
        };
        let mut config = CrawlConfig {
            sitemaps: vec!["https://cdn.example.test/s.xml".into()],
            ..CrawlConfig::default()
        };
        config.set_list(ListMode {
            urls: vec![
                listed("https://example.test/a?x=1", 2),
                listed("http://example.test:8080/b", 0),
                listed("https://example.test/c", 0),
            ],
            ..ListMode::default()
        });
        assert_eq!(
            config.start_urls,
            [
                "https://example.test/",
                "http://example.test:8080/",
                "https://cdn.example.test/"
            ]
        );
        assert!(config.list_only());
        assert!(config.list.as_ref().unwrap().has_log_hits());
        config.validate().unwrap();
        let json = serde_json::to_string(&config).unwrap();
        assert!(
            json.contains(r#"{"url":"http://example.test:8080/b"}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<CrawlConfig>(&json).unwrap(), config);
        config
            .list
            .as_mut()
            .unwrap()
            .urls
            .push(listed("ftp://x.test/", 0));
        assert!(config.validate().is_err());
        assert!(
            CrawlConfig::for_list(ListMode::default())
                .validate()
                .is_err()
        );
    }

    #[test]
    fn a_list_stored_before_the_dns_check_loads_its_bot_requests_as_unverified() {
        let stored = r#"{"urls":[{"url":"https://example.test/a","bot_requests":3,"other_requests":1}],"inputs":[{"name":"access.log","bot_requests":3}]}"#;
        let list: ListMode = serde_json::from_str(stored).unwrap();
        assert_eq!(
            list.urls[0],
            ListedUrl {
                url: "https://example.test/a".into(),
                unverified_bot_requests: 3,
                other_requests: 1,
                ..ListedUrl::default()
            }
        );
        assert_eq!(list.urls[0].requests(), 4);
        assert_eq!(list.bot_check, None);
        // Written back under the new names, the zero counts left out.
        let json = serde_json::to_string(&list.urls[0]).unwrap();
        assert_eq!(
            json,
            r#"{"url":"https://example.test/a","unverified_bot_requests":3,"other_requests":1}"#
        );
        let checked = ListMode {
            bot_check: Some(BotCheckSummary {
                looked_up: true,
                verified: 2,
                fake: 1,
                ..BotCheckSummary::default()
            }),
            ..list
        };
        let json = serde_json::to_string(&checked).unwrap();
        assert_eq!(serde_json::from_str::<ListMode>(&json).unwrap(), checked);
        assert_eq!(
            checked.bot_check.unwrap().to_string(),
            "2 IPs verified, 1 fake, 0 unverified"
        );
        let summary = BotCheckSummary {
            looked_up: true,
            verified: 12,
            fake: 3,
            no_answer: 40,
            ..BotCheckSummary::default()
        };
        assert_eq!(
            summary.to_string(),
            "12 IPs verified, 3 fake, 40 unverified (no answer)"
        );
        let summary = BotCheckSummary {
            no_check: 2,
            ..summary
        };
        assert_eq!(
            summary.to_string(),
            "12 IPs verified, 3 fake, 42 unverified (40 no answer, 2 no documented check)"
        );
        let off = BotCheckSummary {
            note: "turned off".into(),
            not_checked: 1,
            ..BotCheckSummary::default()
        };
        assert_eq!(
            off.to_string(),
            "0 IPs verified, 0 fake, 1 unverified (not looked up: turned off)"
        );
    }

    #[test]
    fn resolve_entries_parse_like_curl() {
        let (host, addr) = parse_resolve("Example.test:8080:127.0.0.1").unwrap();
        assert_eq!(host, "example.test");
        assert_eq!(addr, "127.0.0.1:8080".parse().unwrap());
        let (_, addr) = parse_resolve("example.test:443:[::1]").unwrap();
        assert_eq!(addr, "[::1]:443".parse().unwrap());
        assert!(parse_resolve("example.test:443").is_err());
        assert!(parse_resolve("example.test:x:127.0.0.1").is_err());
    }

    #[test]
    fn validation_rejects_bad_input() {
        assert!(CrawlConfig::default().validate().is_err());
        assert!(
            CrawlConfig::for_url("ftp://example.test/")
                .validate()
                .is_err()
        );
        let mut config = CrawlConfig::for_url("https://example.test/");
        config.exclude_patterns.push("(".into());
        assert!(config.validate().is_err());
    }
}

/// A start URL as a user types it: trimmed, and `https://` added to a bare host name
/// (`example.com`, `www.example.com/shop`). Anything with a scheme is left as it is.
pub fn start_url(input: &str) -> String {
    let t = input.trim();
    // `host` or `host:port`: letters, digits, `-` and `.`, then digits after a colon.
    let authority = t.split(['/', '?', '#']).next().unwrap_or("");
    let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
    let bare = !t.contains("://")
        && !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '.')
        && port.chars().all(|c| c.is_ascii_digit())
        && (port.is_empty() != authority.contains(':'));
    if bare {
        format!("https://{t}")
    } else {
        t.to_owned()
    }
}

#[cfg(test)]
mod start_url_tests {
    use super::start_url;

    #[test]
    fn a_bare_host_gets_https() {
        assert_eq!(start_url(" example.com "), "https://example.com");
        assert_eq!(
            start_url("www.example.com/shop?a=1"),
            "https://www.example.com/shop?a=1"
        );
        assert_eq!(start_url("localhost:8080/"), "https://localhost:8080/");
        assert_eq!(start_url("http://example.com/"), "http://example.com/");
        assert_eq!(start_url("ftp://example.com/"), "ftp://example.com/");
        assert_eq!(start_url("mailto:me@example.com"), "mailto:me@example.com");
        assert_eq!(start_url("/relative"), "/relative");
    }
}
