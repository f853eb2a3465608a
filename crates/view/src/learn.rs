//! `dustpan learn`'s workflow: DUST rules learned from URL lists (and an audit's URLs),
//! each candidate checked by fetching a few sample pairs and judged by the notion of
//! "same page" the crawl's own rules and the after-crawl check share
//! ([`rules::same_page`]). The command line reads the lists and prints; what a sample
//! shows, when a rule is confirmed or rejected and what the samples may request are
//! decided here.

use crate::error::ViewError;
use crate::options::CrawlOptions;
use canon::Policy;
use crawl::{CrawlConfig, SampleFetch};
use rules::learn::{Candidate, Learned};
use rules::same_page::Answers;
use rules::{DustRule, RuleStatus, ValidationReport};
use std::collections::{HashMap, HashSet};
use store::AuditId;

/// What `--audit` reads: its configuration, its URLs and the answers it stored.
pub struct FromAudit {
    /// Its crawl configuration.
    pub config: CrawlConfig,
    /// Every URL it recorded.
    pub urls: Vec<String>,
    /// The answers it stored, compared without a request.
    pub fetched: Vec<store::FetchFingerprint>,
}

/// Reads what learning from audit `id` needs.
pub async fn read_audit(store: &store::Store, id: AuditId) -> Result<FromAudit, ViewError> {
    let row = store.audit(id).await?;
    let config = crawl::stored_config(&row)?;
    let urls = store.urls(id).await?.into_iter().map(|u| u.url).collect();
    let fetched = store.fetch_fingerprints(id).await?;
    Ok(FromAudit {
        config,
        urls,
        fetched,
    })
}

/// Most origins of a list that the sample requests may reach, from its first
/// [`ORIGINS_READ`] URLs.
const MAX_ORIGINS: usize = 50;

/// URLs of a list whose origins are read.
const ORIGINS_READ: usize = 100_000;

/// The crawl settings the sample requests obey, from the one builder
/// ([`CrawlOptions::apply`]): the options given over the audit's own configuration
/// (`--audit`, whose scope stays its own: the URLs it recorded out of scope are not
/// asked) or the defaults. Without an audit the list's origins are the scope and their
/// addresses are checked as a list audit's are (a list is data: only `site`'s origin
/// and hosts given a resolve override may be at a non-public address).
pub fn sample_config(
    options: &CrawlOptions,
    learned: &Learned,
    site: Option<&str>,
    audit: Option<&FromAudit>,
) -> Result<CrawlConfig, ViewError> {
    let mut config = match audit {
        Some(a) => a.config.clone().for_new_audit(),
        None => CrawlConfig::default(),
    };
    options.apply(&mut config)?;
    if audit.is_none() {
        let mut origins: Vec<crawl::ListedUrl> = Vec::new();
        for u in learned.urls.iter().take(ORIGINS_READ) {
            if let Ok(url) = urllist::Url::parse(u) {
                let origin = url.origin().ascii_serialization() + "/";
                if !origins.iter().any(|o| o.url == origin) {
                    origins.push(crawl::ListedUrl {
                        url: origin,
                        ..crawl::ListedUrl::default()
                    });
                    if origins.len() >= MAX_ORIGINS {
                        break;
                    }
                }
            }
        }
        let site = site
            .and_then(|s| urllist::Url::parse(s).ok())
            .map(|s| s.origin().ascii_serialization() + "/");
        config.sitemaps.clear();
        config.set_list(crawl::ListMode {
            urls: origins,
            site,
            ..crawl::ListMode::default()
        });
    }
    config.validate()?;
    Ok(config)
}

/// The rules that group a list's URLs: the confirmed ones; unchecked (nothing fetched),
/// those whose rewrites the list itself holds at least [`LIST_PRECISION`] of the time
/// (a parameter whose values merely vary, such as an id, could be an identifier).
pub fn grouping_rules(learned: &Learned, checked: bool) -> Vec<&DustRule> {
    learned
        .candidates
        .iter()
        .map(|c| &c.rule)
        .filter(|r| {
            r.status == RuleStatus::Confirmed || (!checked && r.precision >= LIST_PRECISION)
        })
        .collect()
}

/// Whether two sample answers are one page ([`rules::same_page::answers`]).
pub fn same_page(a: &SampleFetch, b: &SampleFetch, policy: &Policy) -> Option<Answers> {
    // Samples carry no text blocks, so no sort order is told apart here.
    rules::same_page::answers(&answer(a, policy), &answer(b, policy), policy)
}

/// A sample as [`rules::same_page::answers`] compares it (its canonical as
/// [`rules::same_page::canonical_key`] gives it).
fn answer<'a>(f: &'a SampleFetch, policy: &Policy) -> rules::same_page::Answer<'a> {
    let canonical = f
        .canonical
        .as_deref()
        .and_then(|c| rules::same_page::canonical_key(&f.url, c, policy));
    rules::same_page::Answer {
        url: &f.url,
        status: f.status,
        location: f.location.as_deref(),
        text: f.text_hash.map(|hash| rules::same_page::Text {
            hash,
            simhash: f.simhash,
            blocks: None,
            canonical,
        }),
        links: &f.links,
    }
}

/// With --no-fetch, the least share of a rule's rewrites the list must hold for the
/// rule to group URLs.
pub const LIST_PRECISION: f64 = 0.5;

/// Most candidates tested with requests: the others (the least supported) stay "needs
/// validation". Candidates that confirmed rules already explain, or that pages already
/// fetched decide, are not counted.
pub const MAX_TESTED: usize = 200;

/// Candidates learned from a list, of which the best [`MAX_TESTED`] not explained by
/// confirmed rules are tested.
pub const MAX_CANDIDATES: usize = 2 * MAX_TESTED;

/// Candidates tested at once: a candidate waits until the better supported ones before
/// it are decided or spent, so that the rules they confirm can explain it.
pub const WINDOW: usize = 24;

/// Fetches sample pairs of the candidates in rounds (one pair per candidate per round,
/// the round's requests at once), best supported first, at most [`WINDOW`] candidates
/// at a time, until each rule is decided or its request budget is spent. A candidate
/// whose every pair the rules confirmed so far already join (a composition of them:
/// `/a/x` → `/b` beside `/a/` → `/b/` and `/x` → ``) is not tested, and at most
/// [`MAX_TESTED`] candidates are. A rule is decided on [`MIN_COMPARED`] compared pairs:
/// confirmed when each showed one page (two pages that read the same by a coincidence
/// of the data, a sort order of a list of one, are common enough that two pairs say too
/// little), rejected when one did not (a form, a counter: one sample says too little),
/// and rejected at once when its first compared pair shows two decisively different
/// pages (a form, a
/// counter: one sample says too little). A pair that could not be compared (not
/// fetched, refused by the scope or the address policy, an error) is not checked, never
/// a miss. Answers already in `cache` (an audit's stored pages) are compared without a
/// request and cost nothing. Returns the number of requests made, of stored answers
/// used, and what each candidate's validation found.
pub async fn validate(
    config: &CrawlConfig,
    learned: &mut Learned,
    budget: u32,
    cache: &mut HashMap<String, SampleFetch>,
    policy: &Policy,
) -> Result<Validated, ViewError> {
    let stored: HashSet<String> = cache.keys().cloned().collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut state: Vec<Tally> = vec![Tally::default(); learned.candidates.len()];
    let mut notes: Vec<Note> = vec![Note::default(); learned.candidates.len()];
    // Each candidate's pairs of URLs to compare: a URL and the rewrite the list lacks
    // first, when there is one, then the list's pairs.
    let plans: Vec<Vec<(String, String)>> = learned
        .candidates
        .iter()
        .map(|cand| {
            let url = |i: u32| learned.urls[i as usize].clone();
            cand.rewrite_probes
                .iter()
                .map(|(a, rewritten)| (url(*a), rewritten.clone()))
                .chain(cand.pairs.iter().map(|&(a, b)| (url(a), url(b))))
                .collect()
        })
        .collect();
    // Best supported first (the candidates come sorted so, kinds interleaved).
    let mut order: Vec<usize> = (0..learned.candidates.len()).collect();
    order.sort_by(|&a, &b| {
        learned.candidates[b]
            .rule
            .support
            .cmp(&learned.candidates[a].rule.support)
    });
    let mut made = 0;
    let mut started = 0usize;
    loop {
        let confirmed: Vec<&DustRule> = learned
            .candidates
            .iter()
            .zip(&state)
            .filter(|(_, t)| t.confirmed())
            .map(|(c, _)| &c.rule)
            .collect();
        let mut wanted: Vec<String> = Vec::new();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        for &c in &order {
            let t = state[c];
            // A decided rule stops; otherwise the pairs are tested while the budget lasts
            // (pairs from contexts not tested yet come first).
            if t.decided() || (!t.started && picks.len() >= WINDOW) {
                continue;
            }
            let Some((a, b)) = plans[c].get(t.next) else {
                continue;
            };
            let others: Vec<&DustRule> = confirmed
                .iter()
                .copied()
                .filter(|r| r.id != learned.candidates[c].rule.id)
                .collect();
            notes[c].explained =
                !t.confirmed() && rules::learn::explained(learned, &learned.candidates[c], &others);
            if notes[c].explained {
                continue;
            }
            let need: Vec<&String> = [a, b]
                .into_iter()
                .filter(|u| !cache.contains_key(*u) && !wanted.contains(u))
                .collect();
            if t.spent + need.len() as u32 > budget
                || (!t.costly && !need.is_empty() && started >= MAX_TESTED)
            {
                continue;
            }
            // Only a candidate that costs a request counts toward those tested: one
            // decided on pages already at hand is free.
            if !t.started {
                state[c].started = true;
            }
            if !t.costly && !need.is_empty() {
                started += 1;
                state[c].costly = true;
            }
            state[c].spent += need.len() as u32;
            wanted.extend(need.into_iter().cloned());
            picks.push((c, t.next));
        }
        if picks.is_empty() {
            break;
        }
        if !wanted.is_empty() {
            let fetched = crawl::fetch_urls(config, &wanted).await?;
            // Refused before any request (out of scope, robots.txt, ...): not a request.
            made += fetched
                .iter()
                .filter(|f| {
                    f.status.is_some()
                        || !f
                            .error_kind
                            .as_deref()
                            .and_then(store::FetchErrorKind::parse)
                            .is_some_and(store::FetchErrorKind::refused_before_request)
                })
                .count();
            for f in fetched {
                cache.insert(f.url.clone(), f);
            }
        }
        for (c, next) in picks {
            let t = &mut state[c];
            t.next += 1;
            let (a, b) = &plans[c][next];
            for u in [a, b] {
                if stored.contains(u) {
                    used.insert(u.clone());
                }
            }
            let (fa, fb) = (&cache[a], &cache[b]);
            let pair = same_page(fa, fb, policy);
            t.record(pair);
            if let Some(p) = pair
                && p != Answers::Same
                && notes[c].miss.is_none()
            {
                notes[c].miss = Some((a.clone(), b.clone(), p));
            }
        }
    }
    for ((cand, t), note) in learned.candidates.iter_mut().zip(state).zip(&notes) {
        decide(cand, t, note);
    }
    Ok(Validated {
        requests: made,
        reused: used.len(),
        notes,
    })
}

/// Compared pairs that decide a rule: all one page confirm it, one that is not rejects
/// it (a first pair decisively two pages rejects it at once).
pub const MIN_COMPARED: u32 = 3;

/// One candidate's validation so far.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Its next pair to compare.
    next: usize,
    /// Requests spent.
    spent: u32,
    /// A pair was picked for it.
    started: bool,
    /// A request was made for it.
    costly: bool,
    /// Pairs compared.
    tested: u32,
    /// Of those, pairs that were one page.
    agreed: u32,
    /// Its first compared pair was decisively two pages.
    decisive: bool,
}

impl Tally {
    fn misses(self) -> u32 {
        self.tested - self.agreed
    }

    /// Counts one compared pair (`None`: not compared, it counts for nothing).
    fn record(&mut self, pair: Option<Answers>) {
        let Some(pair) = pair else { return };
        self.tested += 1;
        match pair {
            Answers::Same => self.agreed += 1,
            Answers::Close => {}
            Answers::Different(_) => self.decisive |= self.tested == 1,
        }
    }

    /// The rule is rejected whatever the next pairs show.
    fn decided(self) -> bool {
        self.decisive || (self.misses() > 0 && self.tested >= MIN_COMPARED)
    }

    /// Every compared pair, [`MIN_COMPARED`] at least, was one page.
    fn confirmed(self) -> bool {
        self.tested >= MIN_COMPARED && self.misses() == 0
    }
}

/// What validation found for one candidate, beside its counts.
#[derive(Clone, Debug, Default)]
pub struct Note {
    /// Confirmed rules already join every pair: not tested further.
    pub explained: bool,
    /// The first compared pair that was not one page.
    pub miss: Option<(String, String, Answers)>,
}

/// What [`validate`] did.
#[derive(Clone, Debug, Default)]
pub struct Validated {
    /// Requests made.
    pub requests: usize,
    /// Stored answers (an audit's pages) compared without a request.
    pub reused: usize,
    /// What each candidate's validation found, in the candidates' order.
    pub notes: Vec<Note>,
}

fn decide(cand: &mut Candidate, t: Tally, note: &Note) {
    let (tested, agreed) = (t.tested, t.agreed);
    let false_positives = tested - agreed;
    cand.rule.validation = Some(ValidationReport {
        tested,
        agreed,
        false_positives,
        false_positive_rate: if tested == 0 {
            0.0
        } else {
            f64::from(false_positives) / f64::from(tested)
        },
    });
    cand.rule.status = if t.decided() {
        RuleStatus::Rejected
    } else if t.confirmed() && !note.explained {
        RuleStatus::Confirmed
    } else {
        RuleStatus::NeedsValidation
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, status: u16, text: u64, simhash: u64) -> SampleFetch {
        SampleFetch {
            url: url.to_owned(),
            status: Some(status),
            text_hash: Some(text),
            simhash: Some(simhash),
            ..SampleFetch::default()
        }
    }

    #[test]
    fn a_sample_never_fetched_is_not_checked() {
        let policy = Policy::default();
        let refused = SampleFetch {
            url: "http://10.0.0.1/a".to_owned(),
            error_kind: Some("address_refused".to_owned()),
            ..SampleFetch::default()
        };
        let a = page("https://example.test/a", 200, 1, 1);
        assert_eq!(same_page(&refused, &a, &policy), None);
    }

    #[test]
    fn a_pair_a_little_apart_rejects_a_rule_only_among_three() {
        let policy = Policy::default();
        let a = page("https://example.test/post/", 200, 1, 0);
        // The comment form reads "Reply to Ann" instead of "Leave a reply": 2 bits apart.
        let reply = page("https://example.test/post/?replytocom=5", 200, 2, 0b11);
        assert_eq!(same_page(&a, &reply, &policy), Some(Answers::Close));
        let other = page("https://example.test/other/", 200, 3, u64::MAX);
        assert_eq!(
            same_page(&a, &other, &policy),
            Some(Answers::Different(rules::same_page::Apart::Text))
        );

        let mut t = Tally::default();
        t.record(Some(Answers::Close));
        assert!(!t.decided(), "one close pair decides nothing");
        t.record(None);
        t.record(Some(Answers::Same));
        assert!(!t.decided() && !t.confirmed());
        t.record(Some(Answers::Same));
        assert!(t.decided(), "three compared pairs, one a miss");

        let mut first = Tally::default();
        first.record(Some(Answers::Different(rules::same_page::Apart::Text)));
        assert!(
            first.decided(),
            "a first pair decisively apart rejects at once"
        );
    }

    /// Two reviews lists of one review read the same in any order: two agreeing pairs
    /// do not confirm a rule, three do.
    #[test]
    fn a_rule_is_confirmed_on_three_agreeing_pairs() {
        let mut t = Tally::default();
        t.record(Some(Answers::Same));
        t.record(Some(Answers::Same));
        assert!(!t.confirmed() && !t.decided(), "{t:?}");
        t.record(None);
        assert!(!t.confirmed(), "a pair not compared counts for nothing");
        t.record(Some(Answers::Same));
        assert!(t.confirmed() && !t.decided(), "{t:?}");
    }

    /// A decisively different pair after one that agreed is a miss, not a verdict: the
    /// rule is rejected only once three pairs were compared.
    #[test]
    fn only_the_first_pair_rejects_at_once() {
        let mut t = Tally::default();
        t.record(Some(Answers::Same));
        t.record(Some(Answers::Different(rules::same_page::Apart::Text)));
        assert!(!t.decided(), "{t:?}");
        assert!(!t.confirmed(), "{t:?}");
        t.record(Some(Answers::Same));
        assert!(t.decided(), "{t:?}");
    }
}
