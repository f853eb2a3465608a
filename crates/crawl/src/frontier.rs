//! Admission to the frontier: which discovered URLs are new, in scope and within limits.
//!
//! The frontier itself is the `urls` table (see the store crate). In memory the crawler
//! keeps only a map from each known URL's `rfc3986` key (as a 128-bit hash) to its id, so
//! that the links of a page are de-duplicated without a database round trip. The map is
//! bounded ([`CrawlConfig::known_url_cache`]); once full it stops growing and the
//! database's UNIQUE index de-duplicates the rest (the writer maps the ids).

use std::collections::{HashMap, HashSet};

use canon::Policy;
use store::{FoundVia, KnownUrl, NewUrl, ReasonKind, UrlId, UrlReason, UrlState};
use url::{Host, Url};
use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

use crate::scope::{Route, Scope};
use crate::{CrawlConfig, CrawlError};

/// A URL as discovered, before admission.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found<'a> {
    /// The absolute URL, fragment removed.
    pub url: &'a Url,
    /// Its `rfc3986` key.
    pub key: &'a str,
    /// Link hops from a start URL.
    pub depth: u32,
    /// Redirect hops that led to it.
    pub redirect_depth: u32,
    /// The page that found it.
    pub from: Option<UrlId>,
    /// That page's URL has a query string: a filter state linking further states.
    pub from_query: bool,
    /// How.
    pub via: FoundVia,
    /// Why it must not be followed from here (`Nofollow`, `NotFollowed`), if so.
    pub unfollowed: Option<ReasonKind>,
}

/// What admission decided.
#[derive(Debug)]
pub(crate) enum Admission {
    /// Already known under this id: nothing to write.
    Known(UrlId),
    /// New: write this row (queued or skipped).
    New(NewUrl),
    /// Known but skipped for a reason that no longer holds: put it in the queue.
    Requeue(UrlId, u32),
}

impl Admission {
    /// The URL's id.
    pub(crate) fn id(&self) -> UrlId {
        match self {
            Admission::Known(id) | Admission::Requeue(id, _) => *id,
            Admission::New(url) => url.id,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    id: UrlId,
    /// Skipped for a reason that depends on how it was found
    /// ([`ReasonKind::depends_on_context`]).
    requeueable: bool,
}

/// Counts of admission outcomes, for progress reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FrontierCounts {
    /// URLs recorded.
    pub urls: u64,
    /// URLs admitted to the queue.
    pub admitted: u64,
    /// URLs recorded as skipped.
    pub skipped: u64,
}

/// Skips URLs that learned rules predict to duplicate a URL already queued.
#[derive(Debug)]
struct Predictor {
    rules: rules::LearnedRules,
    /// Hashes of the keys (under the rules' policy) of the URLs queued so far.
    queued: HashSet<u64>,
    /// Hashes of the keys of queued URLs that are fetched whatever the rules predict:
    /// verification samples, start URLs and their variants (URL-variant probes
    /// included, which exist to be fetched).
    fetch_anyway: HashSet<u64>,
    check_every: u64,
    /// Predictions made so far.
    predicted: u64,
}

impl Predictor {
    /// A predictor for the carried rules, or an empty one the crawl's own rules fill
    /// (`learn_dust`).
    fn new(config: &CrawlConfig) -> Option<Self> {
        let rules = match config.prediction_rules() {
            Some(rules) if rules.confirmed().next().is_some() || config.learn_dust => rules,
            None if config.learn_dust => rules::LearnedRules {
                policy: config.policy.policy.clone(),
                rules: Vec::new(),
            },
            _ => return None,
        };
        Some(Self {
            rules,
            queued: HashSet::new(),
            fetch_anyway: HashSet::new(),
            check_every: config.dust_check_every,
            predicted: 0,
        })
    }

    fn key(&self, url: &str) -> Option<String> {
        canon::equivalence_key(url, &self.rules.policy).ok()
    }

    /// Whether to skip the URL with this key: the rules predict a twin that is queued,
    /// and the URL is not one of the verification sample.
    fn skips(&mut self, key: &str) -> bool {
        let Some(twin) = self.rules.predicts_duplicate_of_key(key) else {
            return false;
        };
        if !self.queued.contains(&xxh3_64(twin.as_bytes())) {
            return false;
        }
        let sample = self.check_every > 0 && self.predicted.is_multiple_of(self.check_every);
        self.predicted += 1;
        if sample {
            self.fetch_anyway.insert(xxh3_64(key.as_bytes()));
        }
        !sample
    }
}

impl Frontier {
    /// The policy the predictor's keys are made under, when URLs may be predicted.
    pub(crate) fn dust_policy(&self) -> Option<Policy> {
        self.predictor.as_ref().map(|p| p.rules.policy.clone())
    }

    /// Rules the crawl confirmed: URLs they predict to duplicate a queued URL are
    /// skipped from now on.
    pub(crate) fn add_dust_rules(&mut self, rules: Vec<rules::DustRule>) {
        if let Some(p) = self.predictor.as_mut() {
            for r in rules {
                if !p.rules.rules.iter().any(|x| x.id == r.id) {
                    p.rules.rules.push(r);
                }
            }
        }
    }

    /// Whether a queued URL, now that it is handed to a fetcher, is skipped after all: a
    /// rule confirmed since it was queued predicts it to duplicate another queued URL
    /// (and it is not a verification sample, a start URL or a variant). The rules an
    /// audit learns while its queue fills then also spare the URLs queued before.
    pub(crate) fn skips_claimed(&mut self, url: &str) -> bool {
        let Some(p) = self.predictor.as_mut() else {
            return false;
        };
        if p.rules.confirmed().next().is_none() {
            return false;
        }
        let Some(key) = p.key(url) else {
            return false;
        };
        !p.fetch_anyway.contains(&xxh3_64(key.as_bytes())) && p.skips(&key)
    }

    /// A rule whose prediction failed: it predicts nothing more.
    pub(crate) fn drop_dust_rule(&mut self, id: &str) {
        if let Some(p) = self.predictor.as_mut() {
            for r in p.rules.rules.iter_mut().filter(|r| r.id == id) {
                r.status = rules::RuleStatus::Rejected;
            }
        }
    }
}

/// The in-memory side of the frontier.
#[derive(Debug)]
pub(crate) struct Frontier {
    predictor: Option<Predictor>,
    known: HashMap<u128, Slot>,
    cache_cap: usize,
    next_id: UrlId,
    counts: FrontierCounts,
    patterns: HashMap<u64, u64>,
    /// The filter combinations each path has admitted (see [`Frontier::facet_of`]).
    facets: HashMap<u64, Facets>,
    /// Distinct values seen per path and parameter name (hashes, at most
    /// [`FACET_VALUES`] + 1 kept: past that the parameter is an identifier).
    param_values: HashMap<u64, Vec<u64>>,
    scope: Scope,
    /// The audit's policy: each new URL's form under it is stored (`url_seo`).
    policy: Policy,
    max_urls: u64,
    max_depth: u32,
    max_url_length: usize,
    max_query_params: usize,
    max_redirects: u32,
    trap_pattern_budget: u64,
    facet_budget: u64,
    max_segment_repeats: usize,
    /// A list audit without `--follow`: only what the listed URLs lead to by
    /// [`follows_in_list`] is queued.
    list_only: bool,
}

/// Whether a list audit that stays on its listed URLs queues URLs found this way: the
/// listed URLs (`Start`), the URLs of the sitemaps it reads, redirect hops and canonical
/// targets. Links, hreflang alternates and anything else are recorded, not followed.
fn follows_in_list(via: FoundVia) -> bool {
    matches!(
        via,
        FoundVia::Start
            | FoundVia::Sitemap
            | FoundVia::Redirect
            | FoundVia::MetaRefresh
            | FoundVia::Canonical
    )
}

/// The reason of a refusal or failure named by its word (`out_of_scope`, `timeout`,
/// ...); a word the store does not list is kept as the detail of an `other` reason.
pub(crate) fn reason_of_word(word: &str) -> UrlReason {
    match ReasonKind::parse(word) {
        Some(kind) => kind.into(),
        None => UrlReason::with_detail(ReasonKind::Other, word),
    }
}

/// The `rfc3986` key of an absolute URL (the frontier's identity).
pub(crate) fn rfc3986_key(url: &Url, policy: &Policy) -> Result<String, canon::CanonError> {
    canon::equivalence_key(url.as_str(), policy)
}

/// Whether URLs found this way neither use nor count toward the numeric-pattern budget:
/// the start URLs, their variants and what the site's sitemaps list (a site declaring
/// 50,000 `/p/N` pages is not a trap). They still count toward `max_urls`.
fn budget_exempt(via: FoundVia) -> bool {
    matches!(via, FoundVia::Start | FoundVia::Variant | FoundVia::Sitemap)
}

/// Whether a `-` at `i` of `bytes` is the sign of a number: a digit follows and it starts
/// a path segment, a query value or a parameter (`/-3`, `=-3`, `&-3`, ...), so that `-3`
/// and `3` are one pattern while `a-3` keeps its hyphen.
fn is_sign(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'-'
        && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
        && (i == 0 || matches!(bytes[i - 1], b'/' | b'=' | b'&' | b'?' | b';' | b',' | b':'))
}

/// `text` with every number (a run of digits, with an optional leading sign: see
/// [`is_sign`]) replaced by `#`.
fn numbers_as_hashes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut pattern = Vec::with_capacity(bytes.len());
    let mut in_number = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() || (!in_number && is_sign(bytes, i)) {
            if !in_number {
                pattern.push(b'#');
            }
            in_number = true;
        } else {
            pattern.push(b);
            in_number = false;
        }
    }
    pattern
}

/// The path (and query) with every number (see [`numbers_as_hashes`]) replaced by `#`,
/// hashed; `None` when the URL has no digit in them (such URLs cannot form a numeric
/// trap).
fn numeric_pattern(url: &str) -> Option<u64> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or(rest);
    if !rest.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(xxh3_64(&numbers_as_hashes(rest)))
}

/// The pattern shown in a trap reason (numbers as `#`, host left out).
fn pattern_text(url: &Url) -> String {
    let path_and_query = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let cut = path_and_query
        .char_indices()
        .nth(200)
        .map_or(path_and_query.len(), |(i, _)| i);
    String::from_utf8_lossy(&numbers_as_hashes(&path_and_query[..cut])).into_owned()
}

/// A path segment that occurs more than `max` times, if any.
fn repeated_segment(url: &Url, max: usize) -> Option<String> {
    let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
    if segments.len() <= max {
        return None;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in &segments {
        let n = counts.entry(s).or_insert(0);
        *n += 1;
        if *n > max {
            return Some((*s).chars().take(100).collect());
        }
    }
    None
}

/// The filter combinations one path admitted: the distinct combinations of its
/// filter-like parameters' values, and the admitted URLs' parameters (hashed, at most
/// [`FACET_ENTRIES`]) to count them again when a parameter turns out to be an
/// identifier.
#[derive(Debug, Default)]
struct Facets {
    combinations: std::collections::HashSet<u64>,
    entries: Vec<Vec<(u64, u64)>>,
}

/// URLs' parameters kept per path to count its combinations again.
const FACET_ENTRIES: usize = 2_000;

/// A query parameter is filter-like (a facet) while at most this many distinct values
/// of it have been seen on its path: a colour, a size, a sort order. One with more is
/// an identifier (a page title, a product id, a revision) whose URLs are pages, not
/// combinations; when a parameter turns out to be one, its path's combinations are
/// counted again without it.
const FACET_VALUES: usize = 16;

/// The path (scheme, host, path) and the `name=value` pairs of a URL key with a query.
fn path_and_pairs(key: &str) -> Option<(&str, impl Iterator<Item = (&str, &str)>)> {
    let (path, query) = key.split_once('?')?;
    let query = query.split('#').next().unwrap_or(query);
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")));
    Some((path, pairs))
}

/// The hash of a path and a parameter name.
fn param_key(path: &str, name: &str) -> u64 {
    xxh3_64(format!("{path}?{name}").as_bytes())
}

/// A parameter given twice with the same value (`?color=red&color=red`): a URL no
/// navigation needs, made by filter links that add to the current URL (refused when a
/// filter state links it; a page without a query that links it names it on purpose).
fn repeated_parameter(url: &Url) -> Option<String> {
    let query = url.query()?;
    let mut seen: Vec<&str> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        if seen.contains(&pair) {
            let name = pair.split_once('=').map_or(pair, |(n, _)| n);
            return Some(name.chars().take(100).collect());
        }
        seen.push(pair);
    }
    None
}

fn query_params(url: &Url) -> usize {
    url.query()
        .map_or(0, |q| q.split('&').filter(|p| !p.is_empty()).count())
}

impl Frontier {
    /// An empty frontier whose ids start at `next_id`.
    pub(crate) fn new(config: &CrawlConfig, next_id: UrlId) -> Result<Self, CrawlError> {
        Ok(Self {
            predictor: Predictor::new(config),
            known: HashMap::new(),
            cache_cap: config.known_url_cache,
            next_id,
            counts: FrontierCounts::default(),
            patterns: HashMap::new(),
            facets: HashMap::new(),
            param_values: HashMap::new(),
            scope: Scope::new(config)?,
            policy: config.policy.policy.clone(),
            max_urls: config.max_urls,
            max_depth: config.max_depth,
            max_url_length: config.max_url_length,
            max_query_params: config.max_query_params,
            max_redirects: config.max_redirects,
            trap_pattern_budget: config.trap_pattern_budget,
            facet_budget: config.facet_budget,
            max_segment_repeats: config.max_segment_repeats,
            list_only: config.list_only(),
        })
    }

    /// Adds a URL stored by an earlier run (resume).
    pub(crate) fn load(&mut self, known: &KnownUrl) {
        let requeueable = known.state == UrlState::Skipped
            && known
                .reason
                .as_ref()
                .is_some_and(|r| r.kind.depends_on_context());
        if self.known.len() < self.cache_cap {
            self.known.insert(
                xxh3_128(known.url_rfc3986.as_bytes()),
                Slot {
                    id: known.id,
                    requeueable,
                },
            );
        }
        self.counts.urls += 1;
        if known.state == UrlState::Skipped {
            self.counts.skipped += 1;
        } else {
            if let Some(p) = self.predictor.as_mut()
                && let Some(key) = p.key(&known.url_rfc3986)
            {
                p.queued.insert(xxh3_64(key.as_bytes()));
            }
            self.counts.admitted += 1;
            if !budget_exempt(known.found_via)
                && let Some(p) = numeric_pattern(&known.url_rfc3986)
            {
                *self.patterns.entry(p).or_insert(0) += 1;
            }
            self.observe_params(&known.url_rfc3986);
            if !budget_exempt(known.found_via) {
                self.count_facet(&known.url_rfc3986);
            }
        }
    }

    /// Records the values of a URL's query parameters, which tell filters from
    /// identifiers (see [`FACET_VALUES`]); a parameter that turns into an identifier has
    /// its path's combinations counted again without it.
    fn observe_params(&mut self, key: &str) {
        let Some((path, pairs)) = path_and_pairs(key) else {
            return;
        };
        let mut turned = false;
        for (name, value) in pairs {
            let values = self.param_values.entry(param_key(path, name)).or_default();
            if values.len() <= FACET_VALUES {
                let v = xxh3_64(value.as_bytes());
                if !values.contains(&v) {
                    values.push(v);
                    turned |= values.len() == FACET_VALUES + 1;
                }
            }
        }
        if turned {
            let p = xxh3_64(path.as_bytes());
            if let Some(mut facets) = self.facets.remove(&p) {
                facets.combinations = facets
                    .entries
                    .iter()
                    .filter_map(|pairs| self.combination(pairs.iter().copied()))
                    .collect();
                self.facets.insert(p, facets);
            }
        }
    }

    /// Whether a parameter (its path-and-name hash) is filter-like.
    fn is_filter(&self, name: u64) -> bool {
        self.param_values
            .get(&name)
            .is_none_or(|v| v.len() <= FACET_VALUES)
    }

    /// The combination of filter values among `pairs` (path-and-name hash, value hash),
    /// when two or more filter-like parameters combine.
    fn combination(&self, pairs: impl Iterator<Item = (u64, u64)>) -> Option<u64> {
        let mut filters: Vec<(u64, u64)> = pairs.filter(|&(n, _)| self.is_filter(n)).collect();
        if filters.len() < 2 {
            return None;
        }
        filters.sort_unstable();
        let mut bytes = Vec::with_capacity(filters.len() * 16);
        for (n, v) in filters {
            bytes.extend_from_slice(&n.to_le_bytes());
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        Some(xxh3_64(&bytes))
    }

    /// The hashed parameters of a URL key with a query, and its hashed path.
    fn hashed_pairs(key: &str) -> Option<(u64, Vec<(u64, u64)>)> {
        let (path, pairs) = path_and_pairs(key)?;
        let pairs = pairs
            .map(|(name, value)| (param_key(path, name), xxh3_64(value.as_bytes())))
            .collect();
        Some((xxh3_64(path.as_bytes()), pairs))
    }

    /// The hashed path of a URL that combines two or more filter-like parameters (each
    /// with at most [`FACET_VALUES`] values seen on the path), and the combination: a
    /// listing whose filters combine (faceted navigation). `?title=Page&action=edit` is
    /// no combination once many titles are seen: `title` identifies a page.
    fn facet_of(&self, key: &str) -> Option<(u64, u64)> {
        let (path, pairs) = Self::hashed_pairs(key)?;
        Some((path, self.combination(pairs.into_iter())?))
    }

    /// Counts an admitted URL's filter combination toward its path's budget.
    fn count_facet(&mut self, key: &str) {
        let Some((path, pairs)) = Self::hashed_pairs(key) else {
            return;
        };
        if pairs.len() < 2 {
            return;
        }
        let combination = self.combination(pairs.iter().copied());
        let facets = self.facets.entry(path).or_default();
        if let Some(c) = combination {
            facets.combinations.insert(c);
        }
        if facets.entries.len() < FACET_ENTRIES {
            facets.entries.push(pairs);
        }
    }

    /// Admission counts so far.
    pub(crate) fn counts(&self) -> FrontierCounts {
        self.counts
    }

    /// Why `found` must not be queued, judged on how it was found (context reasons).
    fn context_reason(&self, found: &Found<'_>) -> Option<UrlReason> {
        if let Some(kind) = found.unfollowed {
            return Some(kind.into());
        }
        if self.list_only && !follows_in_list(found.via) {
            return Some(ReasonKind::NotFollowed.into());
        }
        if found.depth > self.max_depth {
            return Some(ReasonKind::MaxDepth.into());
        }
        if found.redirect_depth > self.max_redirects {
            return Some(ReasonKind::RedirectLimit.into());
        }
        None
    }

    /// Why the URL itself must not be queued (scope, limits, traps).
    fn url_reason(&self, found: &Found<'_>) -> Option<UrlReason> {
        let url = found.url;
        // A start URL is the user's; its variants (and the probes' URL variants) are on
        // its origins by construction but obey the include / exclude patterns.
        let checked = match found.via {
            FoundVia::Start => Ok(()),
            FoundVia::Variant => self.scope.admit_patterns(url),
            _ => self.scope.admit(url, Route::Crawl),
        };
        if let Err(refusal) = checked {
            return Some(reason_of_word(refusal.reason()));
        }
        if url.as_str().len() > self.max_url_length {
            return Some(ReasonKind::UrlTooLong.into());
        }
        if query_params(url) > self.max_query_params {
            return Some(ReasonKind::TooManyParams.into());
        }
        if self.max_segment_repeats > 0
            && let Some(segment) = repeated_segment(url, self.max_segment_repeats)
        {
            return Some(UrlReason::with_detail(
                ReasonKind::TrapRepeatedSegment,
                format!("path repeats segment {segment:?}"),
            ));
        }
        if self.trap_pattern_budget > 0
            && !budget_exempt(found.via)
            && let Some(p) = numeric_pattern(found.key)
            && self.patterns.get(&p).copied().unwrap_or(0) >= self.trap_pattern_budget
        {
            return Some(UrlReason::with_detail(
                ReasonKind::TrapPattern,
                format!(
                    "over {} URLs like {}",
                    self.trap_pattern_budget,
                    pattern_text(url)
                ),
            ));
        }
        if self.facet_budget > 0 && !budget_exempt(found.via) {
            if found.from_query
                && let Some(name) = repeated_parameter(url)
            {
                return Some(UrlReason::with_detail(
                    ReasonKind::TrapFacets,
                    format!("parameter {name} repeated in {}", url.path()),
                ));
            }
            if let Some((p, combination)) = self.facet_of(found.key)
                && let Some(facets) = self.facets.get(&p)
                && facets.combinations.len() as u64 >= self.facet_budget
                && !facets.combinations.contains(&combination)
            {
                return Some(UrlReason::with_detail(
                    ReasonKind::TrapFacets,
                    format!(
                        "over {} combinations of query parameters on {}",
                        self.facet_budget,
                        url.path()
                    ),
                ));
            }
        }
        if self.counts.admitted >= self.max_urls {
            return Some(ReasonKind::MaxUrls.into());
        }
        None
    }

    /// URLs the frontier may still admit under `max_urls`.
    pub(crate) fn room(&self) -> usize {
        usize::try_from(self.max_urls.saturating_sub(self.counts.admitted)).unwrap_or(usize::MAX)
    }

    /// The id of the URL with rfc3986 key `key`, if the frontier knows it (in its
    /// in-memory cache: beyond [`CrawlConfig::known_url_cache`] URLs, `None`).
    pub(crate) fn known_id(&self, key: &str) -> Option<UrlId> {
        self.known
            .get(&xxh3_128(key.as_bytes()))
            .map(|slot| slot.id)
    }

    /// Decides what to do with a discovered URL.
    pub(crate) fn admit(&mut self, found: &Found<'_>) -> Admission {
        let hash = xxh3_128(found.key.as_bytes());
        if let Some(slot) = self.known.get(&hash).copied() {
            if slot.requeueable
                && self.context_reason(found).is_none()
                && self.url_reason(found).is_none()
            {
                self.known.insert(
                    hash,
                    Slot {
                        id: slot.id,
                        requeueable: false,
                    },
                );
                self.counts.admitted += 1;
                self.counts.skipped = self.counts.skipped.saturating_sub(1);
                return Admission::Requeue(slot.id, found.depth);
            }
            return Admission::Known(slot.id);
        }
        self.observe_params(found.key);
        let context = self.context_reason(found);
        let mut reason = context.clone().or_else(|| self.url_reason(found));
        if reason.is_none()
            && let Some(p) = self.predictor.as_mut()
            && let Some(key) = p.key(found.url.as_str())
        {
            let hash = xxh3_64(key.as_bytes());
            if matches!(found.via, FoundVia::Start | FoundVia::Variant) {
                p.fetch_anyway.insert(hash);
                p.queued.insert(hash);
            } else if p.skips(&key) {
                reason = Some(ReasonKind::DustDuplicate.into());
            } else {
                p.queued.insert(hash);
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        if self.known.len() < self.cache_cap {
            let requeueable = context.is_some() && reason == context;
            self.known.insert(hash, Slot { id, requeueable });
        }
        self.counts.urls += 1;
        if reason.is_some() {
            self.counts.skipped += 1;
        } else {
            self.counts.admitted += 1;
            if !budget_exempt(found.via)
                && let Some(p) = numeric_pattern(found.key)
            {
                *self.patterns.entry(p).or_insert(0) += 1;
            }
            if !budget_exempt(found.via) {
                self.count_facet(found.key);
            }
        }
        Admission::New(NewUrl {
            id,
            url: found.url.as_str().to_owned(),
            url_rfc3986: found.key.to_owned(),
            url_seo: canon::equivalence_key(found.url.as_str(), &self.policy).ok(),
            host: match found.url.host() {
                Some(Host::Domain(d)) => d.to_owned(),
                Some(other) => other.to_string(),
                None => String::new(),
            },
            depth: found.depth,
            redirect_depth: found.redirect_depth,
            found_from: found.from,
            found_via: found.via,
            state: if reason.is_some() {
                UrlState::Skipped
            } else {
                UrlState::Queued
            },
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> CrawlConfig {
        CrawlConfig {
            max_depth: 3,
            max_urls: 5,
            trap_pattern_budget: 2,
            ..CrawlConfig::for_url("https://example.test/")
        }
    }

    fn admit(f: &mut Frontier, url: &str, depth: u32) -> Admission {
        admit_via(f, url, depth, FoundVia::Link)
    }

    #[test]
    fn start_variants_obey_the_include_and_exclude_patterns() {
        let config = CrawlConfig {
            include_patterns: vec![r"^https://example\.test/shop/".into()],
            exclude_patterns: vec![r"/shop/private".into()],
            ..CrawlConfig::for_url("https://example.test/shop/")
        };
        let mut f = Frontier::new(&config, 1).unwrap();
        assert_eq!(
            reason(&admit_via(
                &mut f,
                "https://example.test/shop/",
                0,
                FoundVia::Start
            )),
            None
        );
        for variant in [
            "http://example.test/shop/",
            "https://www.example.test/shop/",
            "https://example.test/shop/private/",
        ] {
            assert_eq!(
                reason(&admit_via(&mut f, variant, 0, FoundVia::Variant)),
                Some(ReasonKind::OutOfScope),
                "{variant}"
            );
        }
        assert_eq!(
            reason(&admit_via(
                &mut f,
                "https://example.test/shop/a",
                0,
                FoundVia::Variant
            )),
            None
        );
    }

    fn admit_via(f: &mut Frontier, url: &str, depth: u32, via: FoundVia) -> Admission {
        let url = Url::parse(url).unwrap();
        let key = rfc3986_key(&url, &Policy::rfc3986()).unwrap();
        f.admit(&Found {
            url: &url,
            key: &key,
            depth,
            redirect_depth: 0,
            from: None,
            from_query: false,
            via,
            unfollowed: None,
        })
    }

    /// Admits `url` as a link on a filter state (a page whose URL has a query string).
    fn admit_from_filter(f: &mut Frontier, url: &str) -> Admission {
        let url = Url::parse(url).unwrap();
        let key = rfc3986_key(&url, &Policy::rfc3986()).unwrap();
        f.admit(&Found {
            url: &url,
            key: &key,
            depth: 2,
            redirect_depth: 0,
            from: Some(1),
            from_query: true,
            via: FoundVia::Link,
            unfollowed: None,
        })
    }

    fn reason(a: &Admission) -> Option<ReasonKind> {
        match a {
            Admission::New(u) => u.reason.as_ref().map(|r| r.kind),
            _ => None,
        }
    }

    fn detail(a: &Admission) -> Option<&str> {
        match a {
            Admission::New(u) => u.reason.as_ref().and_then(|r| r.detail.as_deref()),
            _ => None,
        }
    }

    #[test]
    fn known_urls_get_one_id_and_rfc3986_variants_are_one_url() {
        let mut f = Frontier::new(&config(), 10).unwrap();
        let a = admit(&mut f, "https://example.test/a", 1);
        assert!(matches!(a, Admission::New(ref u) if u.id == 10 && u.state == UrlState::Queued));
        assert!(matches!(
            admit(&mut f, "https://EXAMPLE.test:443/%61", 1),
            Admission::Known(10)
        ));
        // An SEO variant is a different URL (it is fetched).
        assert!(
            matches!(admit(&mut f, "https://example.test/a/", 1), Admission::New(ref u) if u.id == 11)
        );
    }

    /// Each new URL's form is its key under the audit's policy, whichever it started
    /// with, and the crawl's own rules are learned under it.
    #[test]
    fn an_audit_s_policy_keys_its_urls() {
        let url = "https://www.example.test/Shop/?utm_source=x";
        let form =
            |config: &CrawlConfig| match admit(&mut Frontier::new(config, 1).unwrap(), url, 1) {
                Admission::New(u) => u.url_seo,
                _ => None,
            };
        assert_eq!(
            form(&config()),
            canon::equivalence_key(url, &Policy::default()).ok()
        );
        let mut aggressive = config();
        aggressive.policy = crate::AuditPolicy::preset(canon::Preset::Aggressive);
        assert_eq!(
            form(&aggressive),
            canon::equivalence_key(url, &Policy::aggressive()).ok()
        );
        assert_ne!(form(&aggressive), form(&config()));
        let f = Frontier::new(&aggressive, 1).unwrap();
        assert_eq!(f.dust_policy(), Some(Policy::aggressive()));
    }

    #[test]
    fn limits_and_traps_are_recorded_with_reasons() {
        let mut f = Frontier::new(&config(), 1).unwrap();
        assert_eq!(
            reason(&admit(&mut f, "https://other.test/", 1)),
            Some(ReasonKind::OutOfScope)
        );
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/deep", 4)),
            Some(ReasonKind::MaxDepth)
        );
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/cal/1", 1)),
            None
        );
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/cal/2", 1)),
            None
        );
        let trap = admit(&mut f, "https://example.test/cal/3", 1);
        assert_eq!(reason(&trap), Some(ReasonKind::TrapPattern));
        assert_eq!(detail(&trap), Some("over 2 URLs like /cal/#"));
        let trap = admit(&mut f, "https://example.test/a/b/a/b/a/", 1);
        assert_eq!(reason(&trap), Some(ReasonKind::TrapRepeatedSegment));
        assert_eq!(detail(&trap), Some("path repeats segment \"a\""));
        let long = format!("https://example.test/{}", "x".repeat(3000));
        assert_eq!(
            reason(&admit(&mut f, &long, 1)),
            Some(ReasonKind::UrlTooLong)
        );
        let params: String = (0..30).map(|i| format!("p{i}=1&")).collect();
        assert_eq!(
            reason(&admit(
                &mut f,
                &format!("https://example.test/q?{params}"),
                1
            )),
            Some(ReasonKind::TooManyParams)
        );
        assert_eq!(reason(&admit(&mut f, "https://example.test/x", 1)), None);
        assert_eq!(reason(&admit(&mut f, "https://example.test/y", 1)), None);
        assert_eq!(reason(&admit(&mut f, "https://example.test/z", 1)), None);
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/w", 1)),
            Some(ReasonKind::MaxUrls)
        );
        assert_eq!(f.counts().admitted, 5);
    }

    #[test]
    fn sitemap_and_start_urls_are_exempt_from_the_pattern_budget_but_not_from_max_urls() {
        let mut f = Frontier::new(&config(), 1).unwrap();
        // The budget is 2 and max_urls 5: four sitemap-listed /p/N pages are all queued.
        for n in 0..4 {
            let url = format!("https://example.test/p/{n}");
            assert_eq!(
                reason(&admit_via(&mut f, &url, 1, FoundVia::Sitemap)),
                None,
                "{url}"
            );
        }
        // They did not use the budget of URLs found by links.
        assert_eq!(reason(&admit(&mut f, "https://example.test/p/10", 1)), None);
        assert_eq!(
            reason(&admit_via(
                &mut f,
                "https://example.test/p/11",
                0,
                FoundVia::Variant
            )),
            Some(ReasonKind::MaxUrls),
            "max_urls still applies"
        );
        let mut f = Frontier::new(&config(), 1).unwrap();
        for n in 0..3 {
            let url = format!("https://example.test/s/{n}");
            assert_eq!(reason(&admit_via(&mut f, &url, 0, FoundVia::Start)), None);
        }
        assert_eq!(reason(&admit(&mut f, "https://example.test/s/8", 1)), None);
        assert_eq!(reason(&admit(&mut f, "https://example.test/s/9", 1)), None);
        assert!(
            reason(&admit_via(
                &mut f,
                "https://example.test/s/7",
                1,
                FoundVia::Sitemap
            ))
            .is_some_and(|r| r == ReasonKind::MaxUrls)
        );

        // On resume, stored sitemap URLs do not count toward the budget either.
        let mut f = Frontier::new(&config(), 100).unwrap();
        for n in 0..3 {
            f.load(&KnownUrl {
                id: n,
                url_rfc3986: format!("https://example.test/q/{n}"),
                state: UrlState::Done,
                reason: None,
                found_via: FoundVia::Sitemap,
            });
        }
        assert_eq!(reason(&admit(&mut f, "https://example.test/q/8", 1)), None);
    }

    #[test]
    fn facet_combinations_stop_at_the_budget_of_their_path_and_repeats_never_pass() {
        let mut f = Frontier::new(
            &CrawlConfig {
                max_urls: 1_000,
                facet_budget: 3,
                ..config()
            },
            1,
        )
        .unwrap();
        let shop = "https://example.test/shop/";
        // Single parameters are not combinations: no budget.
        for q in ["color=red", "color=blue", "size=m", "sort=price", "page=2"] {
            assert_eq!(
                reason(&admit(&mut f, &format!("{shop}?{q}"), 1)),
                None,
                "{q}"
            );
        }
        for q in ["color=red&size=m", "color=blue&size=m", "size=m&sort=price"] {
            assert_eq!(
                reason(&admit(&mut f, &format!("{shop}?{q}"), 1)),
                None,
                "{q}"
            );
        }
        let over = admit(&mut f, &format!("{shop}?color=red&size=l"), 1);
        assert_eq!(reason(&over), Some(ReasonKind::TrapFacets));
        assert_eq!(
            detail(&over),
            Some("over 3 combinations of query parameters on /shop/")
        );
        // Another listing has its own budget.
        let other = "https://example.test/boots/?color=red&size=m";
        assert_eq!(reason(&admit(&mut f, other, 1)), None);
        // A parameter repeated with its value, linked from a filter state, is refused
        // whatever the budget; a page without a query names it on purpose.
        let repeat = admit_from_filter(&mut f, "https://example.test/bags/?color=red&color=red");
        assert_eq!(reason(&repeat), Some(ReasonKind::TrapFacets));
        assert_eq!(detail(&repeat), Some("parameter color repeated in /bags/"));
        let named = admit(&mut f, "https://example.test/hats/?size=m&size=m", 1);
        assert_eq!(reason(&named), None);
        // Sitemap URLs are the site's own list: exempt.
        let listed = admit_via(
            &mut f,
            &format!("{shop}?color=green&size=s"),
            1,
            FoundVia::Sitemap,
        );
        assert_eq!(reason(&listed), None);
    }

    #[test]
    fn identifiers_are_not_filters_a_wiki_is_no_facet_trap() {
        let mut f = Frontier::new(
            &CrawlConfig {
                max_urls: 100_000,
                // The default budget: until more than FACET_VALUES titles are seen, a
                // title could be a filter, and the first titles' views count.
                facet_budget: CrawlConfig::default().facet_budget,
                trap_pattern_budget: 0,
                ..config()
            },
            1,
        )
        .unwrap();
        // 300 pages, each with its views, section edit forms, a revision and a login
        // link back to it, all through one script: `title`, `oldid` and `returnto` name
        // pages, `action` and `section` combine on each.
        let mut skipped = Vec::new();
        for t in 0..300 {
            let mut urls: Vec<String> = ["edit", "history", "info", "raw", "purge", "watch"]
                .iter()
                .map(|a| format!("title=Page_{t}&action={a}"))
                .collect();
            urls.extend((0..8).map(|n| format!("title=Page_{t}&action=edit&section={n}")));
            urls.push(format!("title=Page_{t}&oldid={}", 1000 + t));
            urls.push(format!("title=Special:UserLogin&returnto=Page_{t}"));
            for q in urls {
                let url = format!("https://example.test/w/index.php?{q}");
                if reason(&admit(&mut f, &url, 1)).is_some() {
                    skipped.push(url);
                }
            }
        }
        assert!(
            skipped.is_empty(),
            "{} skipped, first {:?}",
            skipped.len(),
            skipped.first()
        );
    }

    #[test]
    fn negative_numbers_share_the_pattern_of_positive_ones() {
        let p = |u: &str| numeric_pattern(u).unwrap();
        assert_eq!(
            p("https://example.test/calendar?month=-3"),
            p("https://example.test/calendar?month=3")
        );
        assert_eq!(
            p("https://example.test/t/-12/x"),
            p("https://example.test/t/7/x")
        );
        assert_eq!(
            p("https://example.test/a?x=1&-2"),
            p("https://example.test/a?x=1&3")
        );
        // A hyphen inside a word is not a sign.
        assert_ne!(
            p("https://example.test/item-3"),
            p("https://example.test/item3")
        );
        assert_ne!(
            p("https://example.test/a?m=--3"),
            p("https://example.test/a?m=3")
        );
        let url = Url::parse("https://example.test/calendar?month=-12&day=4").unwrap();
        assert_eq!(pattern_text(&url), "/calendar?month=#&day=#");

        let mut f = Frontier::new(&config(), 1).unwrap();
        for m in ["1", "0", "-1"] {
            let url = format!("https://example.test/calendar?month={m}");
            let a = admit(&mut f, &url, 1);
            if m == "-1" {
                assert_eq!(reason(&a), Some(ReasonKind::TrapPattern), "{url}");
                assert_eq!(detail(&a), Some("over 2 URLs like /calendar?month=#"));
            } else {
                assert_eq!(reason(&a), None, "{url}");
            }
        }
    }

    #[test]
    fn a_url_skipped_for_depth_is_requeued_when_found_shallower() {
        let mut f = Frontier::new(&config(), 1).unwrap();
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/d", 9)),
            Some(ReasonKind::MaxDepth)
        );
        assert!(matches!(
            admit(&mut f, "https://example.test/d", 2),
            Admission::Requeue(1, 2)
        ));
        assert!(matches!(
            admit(&mut f, "https://example.test/d", 1),
            Admission::Known(1)
        ));
    }

    #[test]
    fn a_full_cache_stops_growing_but_keeps_allocating() {
        let mut f = Frontier::new(
            &CrawlConfig {
                known_url_cache: 1,
                ..config()
            },
            1,
        )
        .unwrap();
        assert_eq!(admit(&mut f, "https://example.test/a", 1).id(), 1);
        assert_eq!(admit(&mut f, "https://example.test/b", 1).id(), 2);
        // Not cached: a new id, which the store's writer maps onto 2.
        assert_eq!(admit(&mut f, "https://example.test/b", 1).id(), 3);
        assert!(matches!(
            admit(&mut f, "https://example.test/a", 1),
            Admission::Known(1)
        ));
    }

    #[test]
    fn a_list_audit_queues_redirects_canonicals_and_sitemaps_but_records_links() {
        let list = crate::ListMode {
            urls: vec![crate::ListedUrl {
                url: "https://example.test/listed".into(),
                ..crate::ListedUrl::default()
            }],
            ..crate::ListMode::default()
        };
        let mut f = Frontier::new(&CrawlConfig::for_list(list.clone()), 1).unwrap();
        assert_eq!(
            reason(&admit_via(
                &mut f,
                "https://example.test/listed",
                0,
                FoundVia::Start
            )),
            None
        );
        for via in [
            FoundVia::Redirect,
            FoundVia::MetaRefresh,
            FoundVia::Canonical,
            FoundVia::Sitemap,
        ] {
            let url = format!("https://example.test/{via}");
            assert_eq!(reason(&admit_via(&mut f, &url, 1, via)), None, "{via}");
        }
        for via in [FoundVia::Link, FoundVia::Hreflang, FoundVia::Variant] {
            let url = format!("https://example.test/{via}");
            assert_eq!(
                reason(&admit_via(&mut f, &url, 1, via)),
                Some(ReasonKind::NotFollowed),
                "{via}"
            );
        }
        // With --follow, links are crawled.
        let follow = crate::ListMode {
            follow: true,
            ..list
        };
        let mut f = Frontier::new(&CrawlConfig::for_list(follow), 1).unwrap();
        assert_eq!(
            reason(&admit(&mut f, "https://example.test/linked", 1)),
            None
        );
    }
}
