//! What an audit left unfetched by its own configuration (its hosts and include / exclude
//! patterns, nofollow links it did not follow, its depth, size and URL limits) rather than
//! because of the site (robots.txt, a redirect, an error): such a URL has no status in
//! that audit, so nothing about it is compared.

use audit::{ReasonKind, UrlRow, UrlState};
use regex::Regex;

/// An audit's include / exclude patterns, to name the one that kept a URL out.
#[derive(Clone, Debug, Default)]
pub struct CrawlRules {
    include: Vec<(String, Regex)>,
    exclude: Vec<(String, Regex)>,
}

impl CrawlRules {
    /// The patterns of an audit's configuration (a pattern that does not compile is left
    /// out: no crawl ran with it).
    pub fn new(include: &[String], exclude: &[String]) -> Self {
        let compile = |patterns: &[String]| {
            patterns
                .iter()
                .filter_map(|p| Regex::new(p).ok().map(|r| (p.clone(), r)))
                .collect()
        };
        Self {
            include: compile(include),
            exclude: compile(exclude),
        }
    }

    /// Why the patterns keep `url` out, in words (`excluded by pattern `shoes``), or
    /// `None` when they admit it.
    pub fn refusal(&self, url: &str) -> Option<String> {
        if let Some((p, _)) = self.exclude.iter().find(|(_, r)| r.is_match(url)) {
            return Some(format!("excluded by pattern `{p}`"));
        }
        if !self.include.is_empty() && !self.include.iter().any(|(_, r)| r.is_match(url)) {
            let names: Vec<String> = self.include.iter().map(|(p, _)| format!("`{p}`")).collect();
            return Some(format!(
                "matches none of the include patterns {}",
                names.join(", ")
            ));
        }
        None
    }
}

/// Why the audit (`which`: `older` or `newer`) did not fetch `row` by its own
/// configuration, as a sentence, or `None` when it fetched it or the site decided.
pub(crate) fn configured_out(row: &UrlRow, rules: &CrawlRules, which: &str) -> Option<String> {
    if matches!(row.state, UrlState::Queued | UrlState::Fetching) {
        return Some(format!(
            "the {which} audit stopped before fetching it (a limit, or it did not finish)"
        ));
    }
    let kind = row.reason.as_ref()?.kind;
    let why = match kind {
        ReasonKind::OutOfScope => rules
            .refusal(row.found_url())
            .or_else(|| rules.refusal(&row.url_rfc3986))
            .unwrap_or_else(|| "outside its hosts or patterns".to_owned()),
        ReasonKind::AddressRefused => "at an address its address policy refuses".to_owned(),
        ReasonKind::MaxDepth => "deeper than its depth limit (max_depth)".to_owned(),
        ReasonKind::MaxUrls => "over its URL limit (max_urls)".to_owned(),
        ReasonKind::Nofollow => "found only through nofollow links, not followed".to_owned(),
        ReasonKind::NotFollowed => {
            "found only as a canonical, hreflang or unlisted link target it does not follow"
                .to_owned()
        }
        ReasonKind::RedirectLimit => "more redirect hops than it follows".to_owned(),
        ReasonKind::UrlTooLong => "longer than its URL length limit".to_owned(),
        ReasonKind::TooManyParams => "more query parameters than it allows".to_owned(),
        ReasonKind::DustDuplicate => {
            "predicted a duplicate by its learned URL rules, not fetched".to_owned()
        }
        _ => return None,
    };
    Some(format!("outside the {which} audit's crawl rules: {why}"))
}

/// Why an audit that never met `url` would not have fetched it: its patterns refuse it.
pub(crate) fn patterns_out(url: &str, rules: &CrawlRules, which: &str) -> Option<String> {
    rules
        .refusal(url)
        .map(|why| format!("outside the {which} audit's crawl rules: {why}"))
}
