//! DUST learned during the crawl: once the pages fetched so far show a URL rule (a
//! substitution, a parameter that never changes the page) on enough pairs with no
//! counter-example, the frontier stops fetching the URLs the rule says duplicate a URL
//! already known, those found from then on and those already queued, except a
//! verification sample (one in
//! [`CrawlConfig::dust_check_every`](crate::CrawlConfig::dust_check_every)).
//!
//! Pairs are judged as `dustpan learn` judges its samples ([`crate::same_page`]): one
//! page (identical visible text), a little apart (a form, a counter: a reply-to-comment
//! page whose reply form names the comment) or decisively two pages. A pair a little
//! apart counts as one page only when one of the two names the other as its canonical
//! (the site's own word; an old revision of a wiki page reads a little apart from the
//! article too, and names nothing): without it, it confirms nothing. A rule is
//! confirmed on [`MIN_AGREEING`] pairs of fetched pages that are one page, with none
//! decisively different. A verification sample decisively different from its predicted
//! twin is a wrong prediction: the rule is dropped at once. A sample a little apart
//! with a canonical is what a rule confirmed on such pairs predicts (and a miss for a
//! rule confirmed on identical pages only); without one it is a miss; [`MAX_MISSES`]
//! misses drop a rule.
//!
//! Rules are learned from the fetched URLs with [`rules::learn::learn`] (the envelopes of a URL
//! list), and confirmed on the text of pages already fetched, never on extra requests.
//! Learning runs when the fetched pages reach [`FIRST_ROUND`], then each time they grow
//! by a quarter (at least by half of [`FIRST_ROUND`]), so its cost stays proportional
//! to the crawl while a rule that appears midway is confirmed before most of its URLs
//! are fetched.

use std::sync::Mutex;

use canon::Policy;
use rules::{DustRule, RuleStatus};
use rustc_hash::FxHashMap;

use crate::same_page::{Pair, Text, declared_one, text_pair};

/// Fetched pages before the first learning round.
const FIRST_ROUND: usize = 100;
/// Agreeing pairs of fetched pages a rule needs, with no pair decisively different.
const MIN_AGREEING: u32 = 5;
/// Samples a little apart from their twin that drop a rule confirmed on identical pages.
const MAX_MISSES: u32 = 2;

/// What observing a page changes in the frontier's predictions.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Rules now confirmed: add them to the predictor.
    pub confirmed: Vec<DustRule>,
    /// Ids of rules whose prediction failed: remove them.
    pub dropped: Vec<String>,
}

/// Counts of the crawl's own rules.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OnlineCounts {
    /// Rules confirmed during the crawl.
    pub rules: usize,
    /// Of those, rules dropped after a wrong prediction or repeated misses.
    pub dropped: usize,
    /// Fetched pages a rule predicts to duplicate another fetched page (verification
    /// samples, and pages fetched before the rule was confirmed) that were one page with
    /// it: identical, or a little apart (a form, a counter).
    pub verified: u64,
    /// Of those, pages only a little apart from their twin.
    pub close: u64,
    /// Predicted pages decisively different from their twin: wrong predictions.
    pub wrong: u64,
}

/// One rule learned during the crawl.
#[derive(Debug)]
struct Learned {
    rule: DustRule,
    active: bool,
    /// Whether the pairs that confirmed it were all identical ([`Pair::Same`]), or some
    /// only a little apart ([`Pair::Close`]).
    basis: Pair,
    /// Samples a little apart from their twin under a rule confirmed on identical pages.
    misses: u32,
}

#[derive(Debug, Default)]
struct Inner {
    /// Fetched pages, as fetched.
    urls: Vec<String>,
    /// Their text fingerprints by equivalence key.
    pages: FxHashMap<String, Text>,
    /// Observations at which the next learning round runs.
    next_round: usize,
    rules: Vec<Learned>,
    counts: OnlineCounts,
}

/// The crawl's DUST learner (one per run; see the module docs).
#[derive(Debug)]
pub(crate) struct OnlineDust {
    policy: Policy,
    inner: Mutex<Inner>,
}

impl OnlineDust {
    /// A learner for keys under `policy` (the predictor's), starting from rules an earlier
    /// run of the audit confirmed.
    pub(crate) fn new(policy: Policy, earlier: Vec<DustRule>) -> Self {
        let rules = earlier
            .into_iter()
            .map(|rule| Learned {
                rule,
                active: true,
                basis: Pair::Close,
                misses: 0,
            })
            .collect::<Vec<_>>();
        let counts = OnlineCounts {
            rules: rules.len(),
            ..OnlineCounts::default()
        };
        OnlineDust {
            policy,
            inner: Mutex::new(Inner {
                next_round: FIRST_ROUND,
                rules,
                counts,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records a fetched HTML page's text fingerprints, checks it against the rules that
    /// predict it to duplicate a fetched page (a verification sample, or a page fetched
    /// before the rule was confirmed), and learns when the fetched pages reach the next
    /// round.
    pub(crate) fn observe(&self, url: &str, mut text: Text, canonical: Option<&str>) -> Changes {
        let Ok(key) = canon::equivalence_key(url, &self.policy) else {
            return Changes::default();
        };
        text.canonical =
            canonical.and_then(|c| crate::same_page::canonical_key(url, c, &self.policy));
        let mut changes = Changes::default();
        let mut inner = self.lock();
        let mut verdicts = Vec::new();
        for (k, l) in inner.rules.iter().enumerate() {
            let mut close_without_canonical = false;
            if !l.active {
                continue;
            }
            if let Some(twin) = l.rule.apply(&key)
                && twin != key
                && let Some(&t) = inner.pages.get(&twin)
            {
                let mut verdict = text_pair(text, t);
                // A little apart counts as one page only where one names the other as
                // its canonical; otherwise it is a miss.
                if verdict == Pair::Close && !declared_one(text, &key, t, &twin) {
                    verdict = Pair::Different;
                    close_without_canonical = true;
                }
                verdicts.push((k, verdict, close_without_canonical));
            }
        }
        for (k, verdict, unproven) in verdicts {
            let inner = &mut *inner;
            let learned = &mut inner.rules[k];
            let drop = match verdict {
                Pair::Same => {
                    inner.counts.verified += 1;
                    false
                }
                Pair::Close => {
                    inner.counts.verified += 1;
                    inner.counts.close += 1;
                    if learned.basis == Pair::Same {
                        learned.misses += 1;
                    }
                    learned.misses >= MAX_MISSES
                }
                // Close without a canonical: a miss, neither a right nor a wrong
                // prediction.
                Pair::Different if unproven => {
                    learned.misses += 1;
                    learned.misses >= MAX_MISSES
                }
                Pair::Different => {
                    inner.counts.wrong += 1;
                    true
                }
            };
            if drop && learned.active {
                learned.active = false;
                inner.counts.dropped += 1;
                changes.dropped.push(learned.rule.id.clone());
            }
        }
        inner.pages.insert(key, text);
        inner.urls.push(url.to_owned());
        if inner.urls.len() >= inner.next_round {
            let n = inner.urls.len();
            inner.next_round = n + (n / 4).max(FIRST_ROUND / 2);
            changes.confirmed = self.learn_round(&mut inner);
        }
        changes
    }

    /// Learns candidates from the fetched URLs and confirms those with at least
    /// [`MIN_AGREEING`] pairs of fetched pages that are one page and none decisively
    /// different.
    fn learn_round(&self, inner: &mut Inner) -> Vec<DustRule> {
        let options = rules::learn::Options {
            policy: self.policy.clone(),
            max_pairs: 12,
            ..rules::learn::Options::default()
        };
        let learned = rules::learn::learn(inner.urls.iter().cloned(), &options);
        let mut confirmed = Vec::new();
        for c in learned.candidates {
            if inner.rules.iter().any(|l| l.rule.id == c.rule.id) {
                continue;
            }
            let (mut same, mut close, mut differ) = (0u32, 0u32, 0u32);
            for &(a, b) in &c.pairs {
                let fingerprint = |i: u32| {
                    learned.keys[i as usize]
                        .as_ref()
                        .and_then(|k| inner.pages.get(k))
                        .copied()
                };
                let key = |i: u32| learned.keys[i as usize].as_deref().unwrap_or("");
                if let (Some(x), Some(y)) = (fingerprint(a), fingerprint(b)) {
                    match text_pair(x, y) {
                        Pair::Same => same += 1,
                        // A little apart confirms only with the site's canonical saying
                        // so; without it the pair says nothing either way.
                        Pair::Close if declared_one(x, key(a), y, key(b)) => close += 1,
                        Pair::Close => {}
                        Pair::Different => differ += 1,
                    }
                }
            }
            let agreed = same + close;
            if differ == 0 && agreed >= MIN_AGREEING {
                let mut rule = c.rule;
                rule.agreed = agreed;
                rule.applicable = agreed;
                rule.precision = 1.0;
                rule.status = RuleStatus::Confirmed;
                inner.counts.rules += 1;
                inner.rules.push(Learned {
                    rule: rule.clone(),
                    active: true,
                    basis: if close == 0 { Pair::Same } else { Pair::Close },
                    misses: 0,
                });
                confirmed.push(rule);
            }
        }
        confirmed
    }

    /// The rules still in use.
    #[cfg(test)]
    fn active_rules(&self) -> Vec<DustRule> {
        self.lock()
            .rules
            .iter()
            .filter(|l| l.active)
            .map(|l| l.rule.clone())
            .collect()
    }

    /// Every rule learned during this run and the earlier ones: in use (confirmed) or
    /// dropped after a wrong prediction or repeated misses (rejected).
    pub(crate) fn rules(&self) -> Vec<DustRule> {
        self.lock()
            .rules
            .iter()
            .map(|l| {
                let mut r = l.rule.clone();
                if !l.active {
                    r.status = RuleStatus::Rejected;
                }
                r
            })
            .collect()
    }

    /// The policy the rules' keys are made under.
    pub(crate) fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The learner's counts.
    pub(crate) fn counts(&self) -> OnlineCounts {
        self.lock().counts.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(hash: u64, simhash: Option<u64>) -> Text {
        Text {
            hash,
            simhash,
            blocks: None,
            canonical: None,
        }
    }

    fn see(dust: &OnlineDust, url: &str, hash: u64, simhash: Option<u64>) -> Changes {
        dust.observe(url, text(hash, simhash), None)
    }

    /// [`see`] a page whose canonical link names `canonical`.
    fn see_declaring(
        dust: &OnlineDust,
        url: &str,
        hash: u64,
        simhash: Option<u64>,
        canonical: &str,
    ) -> Changes {
        dust.observe(url, text(hash, simhash), Some(canonical))
    }

    fn page(k: u64) -> (u64, Option<u64>) {
        (
            1000 + k,
            Some((1000 + k).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        )
    }

    #[test]
    fn a_parameter_that_never_changes_the_page_is_confirmed_then_dropped_on_a_miss() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..150u64 {
            let (h, s) = page(k);
            for url in [
                format!("https://s.test/p/{k}"),
                format!("https://s.test/p/{k}?view=full"),
            ] {
                confirmed.extend(see(&dust, &url, h, s).confirmed);
            }
        }
        let ids: Vec<&str> = confirmed.iter().map(|r| r.id.as_str()).collect();
        assert!(ids.contains(&"drop_param:view"), "{ids:?}");
        // A sample whose twin was not fetched says nothing.
        let (h, s) = page(999);
        let changes = see(&dust, "https://s.test/p/500?view=full", h, s);
        assert!(changes.dropped.is_empty());
        // A sample that matches its twin is verified.
        let verified = dust.counts().verified;
        let (h8, s8) = page(8);
        assert!(
            see(&dust, "https://s.test/p/8?view=print", h8, s8)
                .dropped
                .is_empty()
        );
        assert_eq!(dust.counts().verified, verified + 1);
        // A sample that is another page: a wrong prediction, and the rule goes.
        let (h7, s7) = page(7);
        let changes = see(&dust, "https://s.test/p/9?view=compact", h7, s7);
        assert_eq!(changes.dropped, ["drop_param:view"]);
        let counts = dust.counts();
        assert_eq!(counts.wrong, 1, "{counts:?}");
        assert!(
            !dust
                .active_rules()
                .iter()
                .any(|r| r.id == "drop_param:view")
        );
    }

    #[test]
    fn a_reply_parameter_a_form_apart_is_confirmed_and_its_samples_are_no_wrong_predictions() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..80u64 {
            let (h, s) = page(k);
            confirmed.extend(see(&dust, &format!("https://s.test/post/{k}"), h, s).confirmed);
            // The reply form names the comment: the text differs by a few words, and
            // the page names the post as its canonical.
            for c in 0..2u64 {
                let reply = s.map(|s| s ^ (1 << c));
                confirmed.extend(
                    see_declaring(
                        &dust,
                        &format!("https://s.test/post/{k}?replytocom={}", 10 * k + c),
                        h ^ (c + 1),
                        reply,
                        &format!("https://s.test/post/{k}"),
                    )
                    .confirmed,
                );
            }
        }
        let ids: Vec<&str> = confirmed.iter().map(|r| r.id.as_str()).collect();
        assert!(ids.contains(&"drop_param:replytocom"), "{ids:?}");
        let (h, s) = page(3);
        let changes = see_declaring(
            &dust,
            "https://s.test/post/3?replytocom=999",
            h ^ 7,
            s.map(|s| s ^ 0b11),
            "https://s.test/post/3",
        );
        assert!(changes.dropped.is_empty(), "{changes:?}");
        let counts = dust.counts();
        assert_eq!(counts.wrong, 0, "{counts:?}");
        assert!(counts.close > 0, "{counts:?}");
        // A reply page that is another post: decisively different, dropped at once.
        let (h9, s9) = page(9);
        let changes = see(&dust, "https://s.test/post/4?replytocom=998", h9, s9);
        assert_eq!(changes.dropped, ["drop_param:replytocom"]);
        assert_eq!(dust.counts().wrong, 1);
    }

    /// A wiki's revisions: each reads a little apart from its article (the revision
    /// box) and names no canonical. Texts a little apart are not the site saying the
    /// pages are one: nothing is confirmed.
    #[test]
    fn pages_a_little_apart_without_a_canonical_confirm_nothing() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..120u64 {
            let (h, s) = page(k);
            confirmed
                .extend(see(&dust, &format!("https://w.test/wiki?title=A{k}"), h, s).confirmed);
            confirmed.extend(
                see(
                    &dust,
                    &format!("https://w.test/wiki?title=A{k}&oldid={}", 500 + k),
                    h ^ 1,
                    s.map(|s| s ^ 0b101),
                )
                .confirmed,
            );
        }
        let ids: Vec<&str> = confirmed.iter().map(|r| r.id.as_str()).collect();
        assert!(!ids.iter().any(|id| id.contains("oldid")), "{ids:?}");
    }

    #[test]
    fn a_rule_confirmed_on_identical_pages_goes_after_repeated_misses_not_one() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        for k in 0..150u64 {
            let (h, s) = page(k);
            for url in [
                format!("https://s.test/log/{k}"),
                format!("https://s.test/log/{k}?limit=50"),
            ] {
                see(&dust, &url, h, s);
            }
        }
        assert!(
            dust.active_rules()
                .iter()
                .any(|r| r.id == "drop_param:limit")
        );
        // A longer log: a little apart. One miss keeps the rule, a second drops it.
        let (h, s) = page(20);
        let near = s.map(|s| s ^ 0b1);
        let once = see(&dust, "https://s.test/log/20?limit=500", h + 1, near);
        assert!(once.dropped.is_empty());
        let twice = see(&dust, "https://s.test/log/20?limit=5000", h + 2, near);
        assert_eq!(twice.dropped, ["drop_param:limit"]);
        // Misses are neither right nor wrong predictions.
        let counts = dust.counts();
        assert_eq!((counts.wrong, counts.close), (0, 0), "{counts:?}");
    }

    #[test]
    fn an_identifier_is_never_confirmed() {
        let dust = OnlineDust::new(Policy::seo(), Vec::new());
        let mut confirmed = Vec::new();
        for k in 0..300u64 {
            let (h, s) = page(k);
            confirmed.extend(see(&dust, &format!("https://s.test/show?id={k}"), h, s).confirmed);
        }
        assert!(confirmed.is_empty(), "{confirmed:?}");
    }
}
