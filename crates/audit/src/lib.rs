//! Dustpan's analysis: which URLs of a crawl are really the same page, which one of
//! each group is preferred, and what is wrong with duplicates, canonicals, redirects
//! and sitemaps — each finding with the exact fix.
//!
//! The crate is pure: [`analyse`] takes the crawl as plain rows ([`AuditInput`],
//! mirroring the store's schema) and returns an [`Analysis`]. No I/O, no SQL.
//!
//! ```
//! use audit::{AuditInput, AnalysisConfig, FetchRow, RedirectRow, UrlRow, analyse};
//!
//! let url = |id, u: &str| UrlRow { id, url: u.into(), ..UrlRow::default() };
//! let page = |id| FetchRow {
//!     url_id: id, status: Some(200), text_hash: Some(7), simhash: Some(7), word_count: Some(300),
//!     ..FetchRow::default()
//! };
//! let input = AuditInput {
//!     urls: vec![url(1, "http://208.77.188.166/"), url(2, "http://example.com/")],
//!     fetches: vec![FetchRow { url_id: 1, status: Some(301), ..FetchRow::default() }, page(2)],
//!     redirects: vec![RedirectRow { from: 1, to: Some(2), status: 301, ..RedirectRow::default() }],
//!     ..AuditInput::default()
//! };
//! let analysis = analyse(&input, &AnalysisConfig::default());
//! assert_eq!(analysis.clusters[0].preferred_url, "http://example.com/");
//! assert!(analysis.findings.is_empty()); // a clean redirect is not a problem
//! ```
//!
//! # Equivalence
//!
//! URLs are joined by evidence edges, strongest first; each merge keeps the edge that
//! made it, so every member of a cluster carries its chain of [`Evidence`] to the
//! preferred URL:
//!
//! 1. **redirect**: a URL and the final target of its redirect chain;
//! 2. **rel=canonical** (element in `<head>` or HTTP header, when all declarations
//!    agree) — only when the content agrees: identical text or main content, or main
//!    content at least [`AnalysisConfig::near_similarity`] similar (the evidence says
//!    which); a page that has no text to compare (a PDF, a page of a few words) merges
//!    on the declaration alone when its target answers 2xx. A canonical between pages
//!    whose contents differ is a `CANON-TO-UNRELATED` finding, never a merge (one
//!    finding per URL pattern when a template sets it: page N of a listing naming page 1);
//! 3. **same equivalence key** under the audit's canon policy, recomputed from each
//!    stored raw URL (so re-running with another policy is a what-if without
//!    re-crawling). Merge safety: URLs whose rfc3986 forms are equal (only safe-class
//!    rules differ) merge on their own; when usual, seo or evidence-class rules made
//!    the keys equal, the URLs merge only if their text is identical or near-identical.
//!    A pair whose text differs by more than [`AnalysisConfig::different_distance`]
//!    bits, and that no other evidence joins, is reported (`RULE-DOES-NOT-HOLD`);
//! 4. **learned DUST rule** (confirmed, see [Learned rules](#learned-rules)), on pairs
//!    whose text agrees;
//! 5. **identical text** (same `text_hash`, both pages 2xx with at least
//!    [`AnalysisConfig::min_words`] words, so empty and error pages never merge; nor do
//!    pages titled like an error page — "not found", "no results", "404 -" —, which
//!    are soft 404s sharing one text, not duplicates to canonicalise);
//! 6. **near-identical text**: SimHash Hamming distance at most
//!    [`AnalysisConfig::near_distance`].
//!
//! Clusters are the connected components (union-find) with two or more URLs.
//!
//! ## Near-duplicate threshold
//!
//! The default is **3 of 64 bits**, the value Manku, Jain and Das Sarma ("Detecting
//! near-duplicates for web crawling", WWW 2007) found to balance precision and recall
//! for 64-bit SimHash on billions of pages. Unrelated pages sit around 32 bits apart
//! (binomial, σ = 4), so a chance match at ≤ 3 bits has probability about 2·10⁻¹⁵ per
//! pair; pages differing by a date or a counter stay within 3. Candidate pairs come from
//! banding, never all pairs: 4 blocks of 16 bits, and by pigeonhole two hashes within 3
//! bits agree on at least one block (in general `k + 1` blocks for threshold `k`).
//!
//! ## Preferred URL
//!
//! Within a cluster, members are ranked by these criteria in order, the first
//! difference deciding:
//!
//! 1. answers 2xx itself (not a redirect, not a meta refresh);
//! 2. indexable (no noindex, not blocked by robots.txt);
//! 3. declared canonical: self-canonical, or the target of another page's canonical
//!    while not pointing elsewhere itself; then pages without any canonical; last,
//!    pages whose canonical names another URL;
//! 4. uses the site's preferred scheme, as its scheme-changing redirects show (https
//!    when they show nothing);
//! 5. is on a host the site does not redirect away from;
//! 6. listed in a sitemap;
//! 7. more internal pages linking to it; then not a URL-variant probe (a variant
//!    requested after the crawl, see [`probes`]);
//! 8. shorter equivalence key, then the smaller key, then the URL that is already in
//!    its key's form, then the smaller URL (bytes).
//!
//! Each cluster also has a signal table ([`Signal`]): which member the redirects, the
//! canonical elements, the canonical headers, the sitemaps, hreflang and internal
//! links vote for, and whether each agrees with the preferred URL.
//!
//! # Findings
//!
//! Each [`Finding`] has a stable id, a severity, a title, why it matters, the URLs, the
//! evidence and concrete [`Fix`]es, plus a key built from URLs (never row ids) so two
//! audits can be [`compare`]d. A clean page gives no finding.
//!
//! | id | severity | when |
//! |---|---|---|
//! | `DUP-HOST` | warning | a 2xx indexable duplicate of the preferred URL on another host (www, IP, alias); fix: 301 |
//! | `DUP-SCHEME` | warning | http and https both serve the page; fix: 301 |
//! | `DUP-SLASH` | warning | trailing or doubled slash variant; fix: 301 |
//! | `DUP-INDEX` | warning | directory index file variant; fix: 301 |
//! | `DUP-CASE` | warning | path letter-case variant; fix: 301 |
//! | `DUP-PARAM` | notice | same path, other query (tracking, session, order, irrelevant); fix: canonical |
//! | `DUP-DUST` | warning | joined by a learned URL-pattern rule; fix: 301 |
//! | `DUP-CONTENT` | warning | identical text under unrelated URLs; fix: canonical |
//! | `DUP-NEAR` | notice | near-identical text; fix: canonical |
//! | `RULE-DOES-NOT-HOLD` | warning | a policy rule gives different pages the same key; fix: turn the rule off |
//! | `CLUSTER-CONFLICT` | warning | the canonical names one live URL while redirects end at, or the sitemaps list, another (a listed page that is canonicalised or a duplicate is reported per entry instead) |
//! | `CANON-MULTIPLE` | notice | several canonical elements naming the same URL |
//! | `CANON-CONFLICT` | error | declarations (two elements, element vs header) name different URLs |
//! | `CANON-INVALID` | warning | a canonical href that does not resolve |
//! | `CANON-OUTSIDE-HEAD` | warning | a canonical element in the body |
//! | `CANON-RELATIVE` | notice | a relative canonical href |
//! | `CANON-TO-REDIRECT` | warning | the canonical target redirects |
//! | `CANON-TO-ERROR` | error | the canonical target answers 4xx/5xx or not at all |
//! | `CANON-TO-NOINDEX` | error | the canonical target is noindex |
//! | `CANON-TO-BLOCKED` | warning | the canonical target is blocked by robots.txt |
//! | `CANON-CHAIN` | warning | the canonical target declares another canonical |
//! | `CANON-LOOP` | error | canonicals form a cycle |
//! | `CANON-CROSS-HOST` | notice | the canonical names another site |
//! | `CANON-CROSS-SCHEME` | warning | the canonical names the scheme the site does not use |
//! | `CANON-TO-UNRELATED` | warning | the canonical target's text is unrelated |
//! | `CANON-LINKED` | notice | internal links to a canonicalised page |
//! | `REDIRECT-CHAIN` | warning | more than one hop from an entry URL to a live page |
//! | `REDIRECT-LOOP` | error | redirects form a cycle |
//! | `REDIRECT-TEMPORARY` | warning | 302/303/307 for a canonical move (URL variant or same key) |
//! | `REDIRECT-TO-ERROR` | error | a chain ending at 4xx/5xx, no response or an unresolvable Location |
//! | `REDIRECT-META-REFRESH` | warning | a meta refresh redirect |
//! | `REDIRECT-HTTP-NOT-HTTPS` | warning | an http page answers on a host that otherwise redirects to https |
//! | `LINK-TO-REDIRECT` | notice | internal links to a redirecting URL |
//! | `SITEMAP-REDIRECT` | warning | a sitemap lists a redirect |
//! | `SITEMAP-ERROR` | error | a sitemap lists a 4xx/5xx or unanswered URL |
//! | `SITEMAP-BLOCKED` | warning | a sitemap lists a robots-blocked URL |
//! | `SITEMAP-NOINDEX` | warning | a sitemap lists a noindex page |
//! | `SITEMAP-CANONICALISED` | warning | a sitemap lists a page canonicalised elsewhere |
//! | `SITEMAP-NON-PREFERRED` | warning | a sitemap lists a duplicate instead of the preferred URL |
//! | `SITEMAP-MISSING` | notice | an indexable preferred HTML page on a sitemap host is in no sitemap |
//! | `SITEMAP-ORPHAN` | notice | a sitemap page no crawled page links to (only judged when the crawl hit no limit) |
//! | `SITEMAP-INVALID` | error | a declared sitemap (robots.txt, user, index) did not download or parse |
//! | `SITEMAP-OVER-LIMIT` | error | a sitemap over 50,000 URLs / 50 MB |
//! | `SITEMAP-LOCATION-REDIRECT` | notice | a sitemap URL redirects to the sitemap (followed, within scope); not for a guessed `/sitemap.xml` redirecting to a declared sitemap |
//! | `SITEMAP-GUESS-UNREADABLE` | notice | the guessed `/sitemap.xml` (declared nowhere) answers, but not with a readable sitemap (404, 410 and no answer are no finding) |
//! | `TRAP` | warning | URLs the crawler skipped as a trap (`trap: ...` reasons) |
//! | `ROBOTS-HIDES-DUP` | notice | a linked robots-blocked URL that duplicates a crawlable page |
//! | `LINK-BROKEN` | error | internal links to a URL answering 4xx/5xx or nothing; fix: link to its live twin (same key or learned rule) or remove the links |
//! | `HREFLANG-TO-REDIRECT` | warning | an hreflang alternate redirects; fix: name the final URL |
//! | `HREFLANG-TO-ERROR` | error | an hreflang alternate answers 4xx/5xx or nothing |
//! | `HREFLANG-TO-NOINDEX` | error | an hreflang alternate is noindex |
//! | `HREFLANG-NON-PREFERRED` | warning | an hreflang alternate is a duplicate; fix: name its preferred URL |
//! | `HREFLANG-NO-RETURN` | warning | the alternate does not name the page back |
//! | `HREFLANG-INVALID-LANG` | warning | a code that is not `x-default` nor ISO 639-1 (+ script, + region); `en_US`, `en-UK`, `jp` get the code meant |
//! | `HREFLANG-NO-SELF` | notice | a page lists alternates but not itself |
//! | `HREFLANG-CONFLICT` | error | one page maps one code (or x-default) to several URLs |
//! | `HREFLANG-X-DEFAULT` | warning | two pages that name each other name different x-default pages |
//! | `VARIANT-DUPLICATE` | warning | URL variants no page links to (probed after the crawl: upper-case, index file, doubled slash, other host, parameters) answer 200 with the page's content and no canonical; fix: one server rule |
//! | `VARIANT-TEMPORARY` | notice | URL variants redirect to the page with a 302, 303 or 307; fix: make it a 301 |
//! | `TITLE-DUPLICATE` | warning | different pages (each cluster once, through its preferred URL; indexable HTML pages answering 2xx; a list's numbered pages and filtered or sorted views, and hreflang alternates, counted as one page) share a title, compared trimmed, whitespace collapsed, ignoring letter case; fix: a title of its own for each |
//! | `H1-DUPLICATE` | notice | different pages share their first `<h1>` (compared as titles are) |
//! | `META-DESCRIPTION-DUPLICATE` | notice | different pages share a meta description (compared as titles are) |
//! | `RENDER-CANON-ADDED` | warning | rendered audits: the served HTML names no canonical, the rendered page does (the clusters follow the rendered one); fix: the canonical in the served HTML |
//! | `RENDER-CANON-CHANGED` | error | rendered audits: the rendered canonical differs from the served one (the clusters follow the rendered one); fix: the canonical in the served HTML |
//! | `RENDER-NOINDEX-ADDED` | error | rendered audits: a script adds noindex to an indexable page (the page counts as noindex) |
//! | `RENDER-NOINDEX-REMOVED` | error | rendered audits: a script removes the served noindex (the page stays noindex) |
//! | `RENDER-TITLE-CHANGED` | notice | rendered audits: a script changes the title or the first heading |
//! | `RENDER-JS-LINKS` | warning | rendered audits: only links written by scripts lead to the URL; fix: link it from served HTML |
//! | `RENDER-CONTENT` | notice | rendered audits: at least 30 more words after rendering, the served HTML holding at most half of them |
//! | `RENDER-FAILED` | warning | rendered audits: the page did not settle within its budget, looped, ran out of memory or its renderer failed |
//!
//! A sitemap entry gets at most one `SITEMAP-*` finding (the first that applies, in the
//! table's order) and a canonical target at most one target problem. A duplicate
//! without a canonical is reported once, by its `DUP-*` finding, whose evidence says
//! so. Noindex duplicates are not reported as duplicates. An hreflang alternate gets at
//! most one target problem (redirect, error, noindex, non-preferred, in that order);
//! the return link is judged only for an alternate without one. Only pages answering
//! 2xx are judged for hreflang, and only alternates on the audited site.
//!
//! # Learned rules
//!
//! Site-specific DUST rules (Schonfeld, Bar-Yossef, Keidar, "Do not crawl in the DUST",
//! WWW 2006/2007) are mined from the audit's own URLs and fingerprints, on the URLs'
//! equivalence keys (what the policy already unifies is not learned again):
//!
//! * **substitutions** `from → to` ([`DustRuleKind::Replace`]): pages with identical
//!   text are paired (at most [`DustConfig::max_group`] per text); each pair's common
//!   prefix and suffix are cut, and the differing substrings, with their left context
//!   back to the last `/` when that context has no digits, form a candidate
//!   (`/story?id=` → `/story_`). Support is the number of pairs giving it. The rule
//!   rewrites toward the shorter side, where the character after `from` is of a kind
//!   seen in its support;
//! * **irrelevant parameters** ([`DustRuleKind::DropParam`]): URLs with and without a
//!   parameter, and URLs differing only in its value, are compared. The same
//!   comparisons make the parameter classifier ([`Analysis::params`]): a parameter
//!   changes content (more than 10% of pairs differ), only reorders (near-identical),
//!   never matters (identical in at least 90%), or is unknown (under two pairs).
//!
//! Every rule is measured on the whole audit: it *applies* where rewriting a page's key
//! gives another fetched page, and *agrees* where their text is identical or near.
//! Precision = agreed / applicable. A rule is [`RuleStatus::Confirmed`] with support and
//! applicable pairs of at least [`DustConfig::min_support`] and precision of at least
//! [`DustConfig::min_precision`]; [`RuleStatus::Rejected`] when enough pairs show less;
//! [`RuleStatus::NeedsValidation`] otherwise: [`validation_candidates`] picks rewritten
//! URLs to fetch and [`measure_validation`] turns the fetched fingerprints into a
//! false-positive rate, which [`DustRule::apply_validation`] folds in. Rules serialize
//! ([`LearnedRules`]); carried into the next audit through
//! [`AnalysisConfig::learned`], their earlier evidence adds to the new audit's, and
//! [`LearnedRules::predicts_duplicate`] lets the crawler skip predicted duplicates.
//!
//! # Scale
//!
//! URLs are dense `u32` indices into `Vec`s; grouping is by sorting (hashes, then
//! verification), never by pairwise comparison; the only per-URL allocation is the
//! equivalence key. Singleton URLs produce no cluster.

mod analysis;
mod checks;
mod cluster;
mod config;
pub mod consistency;
mod dust;
pub mod export;
mod finding;
mod fixes;
mod input;
mod keys;
mod log_hits;
mod log_waste;
mod main_content;
pub mod migrate;
mod near;
mod prediction;
pub mod probes;
mod rendered;
pub mod search_console;
pub mod simulate;
mod site;
mod stored_blocks;
mod table;
mod urlparts;
mod validation;
pub mod verify;
mod wording;

#[cfg(test)]
mod tests;

pub use analysis::{Analysis, SiteRedirect, SiteSignals, Stats};
pub use checks::KeptLink;
pub use checks::metadata::{DuplicatePage, DuplicateValue};
pub use cluster::{
    Action, CanonicalContent, Cluster, Confirmation, EdgeCounts, Evidence, EvidenceKind,
    MAX_EVIDENCE, Member, Role, Signal, SignalKind,
};
pub use config::{AnalysisConfig, DustConfig};
pub use dust::{
    DustRule, DustRuleKind, LearnedRules, NextChar, ParamClass, ParamStats, ParamVerdict,
    RuleStatus, ValidationCandidate, ValidationFetch, ValidationReport, measure_validation,
    validation_candidates,
};
pub use finding::{
    Comparison, Family, Finding, FindingId, Fix, MetaElement, Severity, Tier, compare,
};
pub use fixes::{CanonicalTag, FixFiles, RedirectLine, RedirectState, SitemapChange};
pub use input::Links;
pub use input::{
    AnchorRow, AuditInput, CanonicalRow, ChainProblem, DeclarationSource, FetchErrorKind, FetchRow,
    FoundVia, HopKind, HreflangRow, JsLinkRow, LinkKind, LinkRegion, LinkRow, ProbeRow, ProbeRule,
    ReasonKind, RedirectChainRow, RedirectRow, RenderOutcome, RenderedPage, RobotsRow,
    SitemapEntryRow, SitemapId, SitemapIssue, SitemapRow, SitemapSource, UnknownReason, UrlId,
    UrlReason, UrlRow, UrlState,
};
pub use log_hits::{LogHit, LogRequests};
pub use log_waste::{LOG_WASTE_FILE, LOG_WASTE_HEADERS, LogWaste, log_waste_table};
pub use prediction::{PREDICTED_DUPLICATE, PredictionCheck, check_predictions};
pub use probes::{ProbeVerdict, VariantProbe, VariantRule, server_rule_offered};
pub use rendered::{CanonicalFrom, PageVersion};
pub use site::{SOFT_404_TITLES, Sameness};
pub use stored_blocks::{Spill, StoredBlocks};

/// Analyses one audit.
pub fn analyse(input: &AuditInput, config: &AnalysisConfig) -> Analysis {
    let site = site::Site::new(input, config);
    let keys = keys::Keys::compute(&site);
    let mined = dust::mine(&site, &keys, config.learned.as_ref());
    let mut graph = cluster::build_graph(&site, &keys, &mined);
    let clusters = cluster::assemble(&site, &keys, &mut graph, &mined);
    let url_variants = probes::analyse(&site, &clusters);
    let (findings, duplicate_values, kept_links) = {
        let mut cx = checks::Ctx::new(&site, &clusters, &graph, &mined, &keys);
        // URLs some link points at (a byte per URL, not a list of the links).
        let mut linked = vec![false; site.n];
        for i in input.links.iter().filter_map(|l| site.idx(l.to?)) {
            linked[i as usize] = true;
        }
        let kept_links = (0..site.n as u32)
            .filter(|&i| linked[i as usize] && clusters.preferred_of(i) != i)
            .filter_map(|i| Some((site.id(i), cx.kept_link(i)?)))
            .collect();
        let mut findings = checks::run(&cx);
        if !url_variants.is_empty() {
            probes::merge(&url_variants, &mut findings);
            findings.sort_by(|a, b| (a.severity, a.id, &a.key).cmp(&(b.severity, b.id, &b.key)));
        }
        (findings, cx.take_duplicate_values(), kept_links)
    };
    let stats = Stats {
        urls: site.n as u32,
        fetched: input.fetches.len() as u32,
        with_content: (0..site.n as u32)
            .filter(|&i| site.content(i).is_some())
            .count() as u32,
        unkeyed: keys.invalid_count() as u32,
        clusters: clusters.list.len() as u32,
        clustered_urls: clusters.members.iter().map(|m| m.len() as u32).sum(),
        merges: graph.counts,
        template_blocks: site.main.template_blocks,
        type_template_blocks: site.main.type_blocks,
        unreadable_blocks: site.main.unreadable,
    };
    let main_words = (0..site.n as u32)
        .filter_map(|i| Some((site.id(i), site.main.words(i)?)))
        .collect();
    let main_hashes = (0..site.n as u32)
        .filter_map(|i| Some((site.id(i), site.main.get(i)?.0)))
        .collect();
    let mut live_redirects: Vec<SiteRedirect> = (0..site.n as u32)
        .filter_map(|i| {
            let h = site.hops[i as usize]?;
            (h.to != site::NONE && h.kind == HopKind::Http).then(|| SiteRedirect {
                source: site.url_string(i),
                to: site.url_string(h.to),
                status: h.status,
            })
        })
        .collect();
    live_redirects.sort_by(|a, b| a.source.cmp(&b.source));
    let log_waste = log_waste::rank(&clusters.list, &config.log_hits);
    Analysis {
        site: SiteSignals {
            preferred_scheme: site.preferred_scheme.map(str::to_owned),
            demoted_hosts: site.demoted_hosts.clone(),
            host_redirects: site.host_votes.clone(),
        },
        clusters: clusters.list,
        findings,
        learned: LearnedRules {
            policy: config.policy.clone(),
            rules: mined.rules,
        },
        params: mined.params,
        main_words,
        main_hashes,
        live_redirects,
        log_waste,
        url_variants,
        duplicate_values,
        kept_links,
        stats,
    }
}
