//! DUST rules learned from a URL list alone: an old sitemap, a Screaming Frog export, the
//! URLs of a server log. No page is fetched here; what the list shows is which URLs
//! differ only by a part that recurs across the list (Bar-Yossef, Keidar, Schonfeld:
//! "Do not crawl in the DUST", where such rules found up to 68% of the redundant URLs of
//! a log). Every rule is a candidate until fetched samples confirm it (the caller
//! fetches [`Candidate::pairs`]; see `dustpan learn`), or confirms it on pages it
//! already fetched (the crawler, during a crawl).
//!
//! Four kinds of candidate, each counted on the list's equivalence keys (under a canon
//! policy, the seo preset by default, so what the policy already merges is merged):
//!
//! * **leading substitutions**: two keys whose paths differ only before a delimiter
//!   (`/ ? & = :`) and agree after it, `/w/?title=Foo` and `/wiki/Foo`, support the
//!   rule `/w/?title=` → `/wiki/`;
//! * **trailing substitutions**: two keys that agree up to a delimiter and differ after
//!   it, `/a/` and `/a/index.html`, `/b` and `/b?print=1`;
//! * **parameters** whose removal gives another key of the list (`drop_param:utm_source`);
//! * **host aliases**: two origins serving the same paths (`https://www.example.com` →
//!   `https://example.com`).
//!
//! A rule's direction goes toward the form more keys take. Its *support* is the number
//! of key pairs that show it; its *list precision* the share of the keys it applies to
//! whose rewrite is in the list. Cost: a few envelopes per key, hashed, so a
//! million-line log is learned in seconds.

use crate::url::{params, split, with_query};
use crate::{DustRule, DustRuleKind, NextChar, RuleStatus};
use canon::Policy;
use rustc_hash::{FxHashMap, FxHashSet};
use xxhash_rust::xxh3::xxh3_64;

/// Most URLs compared with their rewrite per parameter candidate (one per context).
const MAX_REWRITE_PROBES: usize = 3;

/// Characters that end a leading or trailing part of a URL.
const DELIMITERS: &[u8] = b"/?&=:";

/// Characters that bound a part in the middle of a path: the segment delimiter and the
/// word separators of slugs (`/x-books/`, `-old_24/`).
const MIDDLE_DELIMITERS: &[u8] = b"/-_.";

/// Most delimiters of a path, from its start, that bound a middle part.
const MAX_MIDDLE_CUTS: usize = 16;

/// How to learn.
#[derive(Clone, Debug)]
pub struct Options {
    /// The policy whose equivalence keys the rules rewrite (seo by default).
    pub policy: Policy,
    /// Fewest supporting key pairs for a candidate.
    pub min_support: u32,
    /// Most candidates kept, by support.
    pub max_candidates: usize,
    /// Delimiters considered from each end of a URL.
    pub max_delimiters: usize,
    /// An envelope shared by more distinct parts than this says nothing (`/page/1`,
    /// `/page/2`, ... all end in a number): it is left out.
    pub max_alternatives: usize,
    /// Key pairs kept per candidate for validation.
    pub max_pairs: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            policy: Policy::default(),
            min_support: 3,
            max_candidates: 200,
            max_delimiters: 5,
            max_alternatives: 12,
            max_pairs: 8,
        }
    }
}

/// A candidate rule with the list's evidence.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The rule: `support` (key pairs), `applicable` (keys it rewrites), `agreed` (of
    /// those, rewrites in the list), `precision` (their ratio) and `examples` are the
    /// list's; `status` is [`RuleStatus::NeedsValidation`].
    pub rule: DustRule,
    /// Pairs of URL indices into [`Learned::urls`], `(url, its rewrite)`, both in the
    /// list: the samples to fetch.
    pub pairs: Vec<(u32, u32)>,
    /// For a parameter no URL of the list is seen without: URLs of the list (indices
    /// into [`Learned::urls`], one per context of other parameters) and the URLs the
    /// rule rewrites them to, not in the list. Fetched before the pairs: otherwise only
    /// two values were ever compared, and two values can agree because both select
    /// nothing while the URL without the parameter shows everything.
    pub rewrite_probes: Vec<(u32, String)>,
}

/// What a list taught.
#[derive(Clone, Debug)]
pub struct Learned {
    /// The list's URLs, distinct, in input order.
    pub urls: Vec<String>,
    /// Each URL's equivalence key under [`Options::policy`] (`None`: not a URL the policy
    /// can key).
    pub keys: Vec<Option<String>>,
    /// The candidates, by support (most first).
    pub candidates: Vec<Candidate>,
}

/// One equivalence group: the URLs whose keys the rules rewrite to one form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The form the members share.
    pub canonical: String,
    /// Indices into [`Learned::urls`].
    pub members: Vec<u32>,
}

/// Which end of a URL an envelope varies.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum End {
    Leading,
    Trailing,
    /// A part of the path between a fixed start and a fixed end: one delimiter, or one
    /// word with the delimiters on both sides (`/a-old_1/` and `/a_1/` differ by
    /// `-old_` and `_`).
    Middle,
}

/// Learns candidate rules from a list of URLs (duplicates ignored).
pub fn learn(urls: impl IntoIterator<Item = String>, opts: &Options) -> Learned {
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let mut list = Vec::new();
    for u in urls {
        if seen.insert(u.clone()) {
            list.push(u);
        }
    }
    drop(seen);
    let keys: Vec<Option<String>> = list
        .iter()
        .map(|u| canon::equivalence_key(u, &opts.policy).ok())
        .collect();
    // Distinct keys, each with the first URL that has it.
    let mut key_ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut distinct: Vec<(&str, u32)> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(k) = k
            && !key_ids.contains_key(k.as_str())
        {
            key_ids.insert(k.as_str(), distinct.len() as u32);
            distinct.push((k.as_str(), i as u32));
        }
    }
    let mut candidates = Vec::new();
    substitutions(&distinct, &key_ids, opts, &mut candidates);
    parameters(&list, &distinct, &key_ids, opts, &mut candidates);
    host_aliases(&distinct, &key_ids, opts, &mut candidates);
    candidates.sort_by(|a, b| {
        b.rule
            .support
            .cmp(&a.rule.support)
            .then_with(|| a.rule.id.cmp(&b.rule.id))
    });
    candidates.truncate(opts.max_candidates);
    drop(key_ids);
    Learned {
        urls: list,
        keys,
        candidates,
    }
}

/// The envelopes of one key's path and query: `(end, varying part, hash of the
/// envelope)`.
fn envelopes<'k>(key: &'k str, opts: &Options, out: &mut Vec<(End, &'k str, u64)>) {
    out.clear();
    let parts = split(key);
    let origin = &key[..parts.origin_end];
    let rest = &key[parts.origin_end..];
    let cuts: Vec<usize> = rest
        .bytes()
        .enumerate()
        .filter(|(_, b)| DELIMITERS.contains(b))
        .map(|(i, _)| i)
        .collect();
    let hash = |end: End, fixed: &str| {
        let mut buf = Vec::with_capacity(origin.len() + fixed.len() + 2);
        buf.push(end as u8);
        buf.extend_from_slice(origin.as_bytes());
        buf.push(0);
        buf.extend_from_slice(fixed.as_bytes());
        xxh3_64(&buf)
    };
    // Leading: the part up to and with a delimiter varies, the rest is fixed.
    for &i in cuts.iter().take(opts.max_delimiters) {
        let fixed = &rest[i + 1..];
        if !fixed.is_empty() {
            out.push((End::Leading, &rest[..=i], hash(End::Leading, fixed)));
        }
    }
    // Trailing: the part from a delimiter on varies (or is absent), the rest is fixed.
    out.push((End::Trailing, "", hash(End::Trailing, rest)));
    for &j in cuts.iter().rev().take(opts.max_delimiters) {
        if j > 0 {
            out.push((End::Trailing, &rest[j..], hash(End::Trailing, &rest[..j])));
        }
    }
    // Middle: within the path, a delimiter alone or a word with its two delimiters
    // varies; what comes before and after is fixed (neither empty).
    let path_end = rest.find('?').unwrap_or(rest.len());
    let middle: Vec<usize> = rest[..path_end]
        .bytes()
        .enumerate()
        .filter(|&(i, b)| i > 0 && MIDDLE_DELIMITERS.contains(&b))
        .map(|(i, _)| i)
        .take(MAX_MIDDLE_CUTS)
        .collect();
    for (x, &i) in middle.iter().enumerate() {
        for &j in middle[x..].iter().take(2) {
            if j + 1 >= rest.len() {
                continue;
            }
            let mut buf = Vec::with_capacity(origin.len() + rest.len() + 3);
            buf.push(End::Middle as u8);
            buf.extend_from_slice(origin.as_bytes());
            buf.push(0);
            buf.extend_from_slice(&rest.as_bytes()[..i]);
            buf.push(0);
            buf.extend_from_slice(&rest.as_bytes()[j + 1..]);
            out.push((End::Middle, &rest[i..=j], xxh3_64(&buf)));
        }
    }
}

/// A substitution found: from, to (part ids), support, the characters seen after
/// `from`, and pairs of URL indices.
type Found = (u32, u32, u32, Vec<NextChar>, Vec<(u32, u32)>);

/// Support and sample pairs of a candidate.
type Evidence = (u32, Vec<(u32, u32)>);

/// Leading and trailing substitutions.
fn substitutions(
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
    out: &mut Vec<Candidate>,
) {
    // Intern the varying parts; count the keys each one appears in, per end.
    let mut parts: FxHashMap<(End, &str), u32> = FxHashMap::default();
    let mut part_text: Vec<(End, &str)> = Vec::new();
    let mut part_keys: Vec<u32> = Vec::new();
    let mut buckets: FxHashMap<u64, Vec<(u32, u32)>> = FxHashMap::default();
    let mut env = Vec::new();
    for (k, &(key, _)) in distinct.iter().enumerate() {
        envelopes(key, opts, &mut env);
        for &(end, part, h) in &env {
            let id = *parts.entry((end, part)).or_insert_with(|| {
                part_text.push((end, part));
                part_keys.push(0);
                (part_text.len() - 1) as u32
            });
            part_keys[id as usize] += 1;
            buckets.entry(h).or_default().push((id, k as u32));
        }
    }
    drop(parts);
    // Support per unordered pair of parts.
    let mut support: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    for members in buckets.values() {
        if members.len() < 2 || members.len() > opts.max_alternatives {
            continue;
        }
        for (x, &(a, _)) in members.iter().enumerate() {
            for &(b, _) in &members[x + 1..] {
                if a != b {
                    *support.entry((a.min(b), a.max(b))).or_default() += 1;
                }
            }
        }
    }
    let mut chosen: Vec<((u32, u32), u32)> = support
        .into_iter()
        .filter(|&(_, s)| s >= opts.min_support)
        .collect();
    chosen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // Refinements are pruned below: keep more than the candidates wanted until then.
    chosen.truncate(opts.max_candidates.saturating_mul(4));
    // Direction: toward the part more keys take (a trailing part that is absent is the
    // target); a rule never rewrites from nothing.
    let mut rules: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut found: Vec<Found> = Vec::new();
    for ((a, b), s) in chosen {
        let (ta, tb) = (part_text[a as usize].1, part_text[b as usize].1);
        let a_first = !ta.is_empty()
            && (tb.is_empty()
                || part_keys[a as usize] < part_keys[b as usize]
                || (part_keys[a as usize] == part_keys[b as usize] && ta.len() > tb.len()));
        let (from, to) = if a_first { (a, b) } else { (b, a) };
        rules.insert((from, to), found.len());
        found.push((from, to, s, Vec::new(), Vec::new()));
    }
    // The pairs and the characters that follow `from`, from a second pass.
    for members in buckets.values() {
        if members.len() < 2 || members.len() > opts.max_alternatives {
            continue;
        }
        for &(a, ka) in members {
            for &(b, kb) in members {
                let Some(&at) = rules.get(&(a, b)) else {
                    continue;
                };
                let f = &mut found[at];
                let (key_a, url_a) = distinct[ka as usize];
                let from = part_text[a as usize].1;
                let rest = &key_a[split(key_a).origin_end..];
                let next = match part_text[a as usize].0 {
                    End::Leading => NextChar::of(&rest[from.len()..]),
                    End::Trailing => NextChar::End,
                    End::Middle => {
                        let to = part_text[b as usize].1;
                        let Some(next) = middle_next(rest, from, to, distinct[kb as usize].0)
                        else {
                            continue;
                        };
                        next
                    }
                };
                if !f.3.contains(&next) {
                    f.3.push(next);
                }
                if f.4.len() < opts.max_pairs {
                    f.4.push((url_a, distinct[kb as usize].1));
                }
            }
        }
    }
    drop(buckets);
    // One rule per text: the same substitution can be seen at either end and in the
    // middle.
    let mut by_text: FxHashMap<(&str, &str), usize> = FxHashMap::default();
    let mut merged: Vec<Substitution> = Vec::new();
    for (from, to, s, next, pairs) in found {
        let text = (part_text[from as usize].1, part_text[to as usize].1);
        match by_text.get(&text) {
            Some(&at) => {
                let m = &mut merged[at];
                m.support = m.support.max(s);
                for n in next {
                    if !m.next.contains(&n) {
                        m.next.push(n);
                    }
                }
                for p in pairs {
                    if m.pairs.len() < opts.max_pairs && !m.pairs.contains(&p) {
                        m.pairs.push(p);
                    }
                }
            }
            None => {
                by_text.insert(text, merged.len());
                merged.push(Substitution {
                    from: text.0,
                    to: text.1,
                    support: s,
                    next,
                    pairs,
                });
            }
        }
    }
    // Pairs that no key pair showed in the rule's own form (a middle part that is not
    // the first of its text) make no rule.
    merged.retain(|m| !m.pairs.is_empty() && !m.next.is_empty());
    let mut kept = without_generalizations(merged);
    kept.sort_by(|a, b| b.support.cmp(&a.support).then_with(|| a.from.cmp(b.from)));
    kept.truncate(opts.max_candidates);
    for mut m in kept {
        m.next.sort();
        let kind = DustRuleKind::Replace {
            from: m.from.to_owned(),
            to: m.to.to_owned(),
            next: m.next,
        };
        out.push(candidate(kind, m.support, distinct, key_ids, m.pairs));
    }
}

/// A substitution the list shows, before its counts over the list.
struct Substitution<'a> {
    from: &'a str,
    to: &'a str,
    support: u32,
    next: Vec<NextChar>,
    pairs: Vec<(u32, u32)>,
}

/// The substitutions less those a more specific one with the same support refines
/// (`?sort=a` → `` beside `/list/?sort=a` → `/list/`, each shown by the same pairs):
/// the list gives no evidence for the general form outside the context every pair
/// shares, and testing both would spend the requests twice on the same pairs.
fn without_generalizations(subs: Vec<Substitution<'_>>) -> Vec<Substitution<'_>> {
    let mut by_support: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (i, s) in subs.iter().enumerate() {
        by_support.entry(s.support).or_default().push(i);
    }
    let mut general = vec![false; subs.len()];
    for same in by_support.values() {
        for &i in same {
            for &j in same {
                if i != j && refines(&subs[j], &subs[i]) {
                    general[i] = true;
                    break;
                }
            }
        }
    }
    subs.into_iter()
        .zip(general)
        .filter(|(_, g)| !g)
        .map(|(s, _)| s)
        .collect()
}

/// Whether `specific` is `general` with context around it: `from = x + general.from +
/// y` and `to = x + general.to + y`, with `x` or `y` not empty.
fn refines(specific: &Substitution<'_>, general: &Substitution<'_>) -> bool {
    refines_text((specific.from, specific.to), (general.from, general.to))
}

/// [`refines`] on `(from, to)` texts.
fn refines_text((f, t): (&str, &str), (gf, gt): (&str, &str)) -> bool {
    if f.len() <= gf.len() || f.len() - gf.len() + gt.len() != t.len() {
        return false;
    }
    f.match_indices(gf).any(|(at, _)| {
        let (x, y) = (&f[..at], &f[at + gf.len()..]);
        t.starts_with(x) && t.ends_with(y) && &t[x.len()..t.len() - y.len()] == gt
    })
}

/// For a middle part `from` of `rest` (a key's path and query) that `to` replaces to
/// give `other` (the other key of the pair): the kind of character after it, when its
/// first occurrence is the one replaced (the rule rewrites the first occurrence, so a
/// pair whose part comes later is not the rule's).
fn middle_next(rest: &str, from: &str, to: &str, other: &str) -> Option<NextChar> {
    let at = rest.find(from)?;
    let after = &rest[at + from.len()..];
    let other = &other[split(other).origin_end..];
    (other.len() == at + to.len() + after.len()
        && other.starts_with(&rest[..at])
        && other[at..].starts_with(to)
        && other.ends_with(after))
    .then(|| NextChar::of(after))
}

/// Parameters that do not change the page, by two kinds of evidence: removing the
/// parameter gives another key of the list (`/a?foo=1` and `/a`), or keys that differ
/// only in its value recur (`?returnto=A` and `?returnto=B` on one login page). An
/// identifier (`?title=A`, `?title=B`) shows the second kind too: only fetching tells
/// them apart, and the pairs kept are what to fetch.
fn parameters(
    urls: &[String],
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
    out: &mut Vec<Candidate>,
) {
    let (found, values) = parameter_evidence(distinct, key_ids, opts);
    parameter_candidates(found, urls, distinct, key_ids, opts, out);
    value_candidates(values, distinct, key_ids, opts, out);
}

/// What the list shows of one parameter.
#[derive(Default)]
struct ParamEvidence {
    /// Keys its removal or its other values join.
    support: u32,
    /// A URL and its form without the parameter, from a context (the other
    /// parameters' names) not seen before: these are fetched first, so a parameter
    /// that matters in one context (`curid` alone names the page; beside `title` it
    /// does not) is caught.
    diverse: Vec<(u32, u32)>,
    /// Pairs of two values from a new context: fetched next.
    varied: Vec<(u32, u32)>,
    /// Other pairs, fetched last.
    pairs: Vec<(u32, u32)>,
    /// The contexts seen.
    contexts: FxHashSet<u64>,
    /// Per key without the parameter: a first value's hash and URL, and whether a
    /// second value was seen there already.
    buckets: FxHashMap<u64, (u64, u32, u32)>,
}

/// One value of a parameter whose removal gives another key (keyed by the `(from, to)`
/// of its substitution): its support, the kinds of character after it and its pairs.
type ValueEvidence = (u32, Vec<NextChar>, Vec<(u32, u32)>);

/// Single values' evidence, by the `(from, to)` of their substitution.
type Values = FxHashMap<(String, String), ValueEvidence>;

/// Every parameter's evidence, and every single value's whose removal gives another key.
fn parameter_evidence<'k>(
    distinct: &[(&'k str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
) -> (FxHashMap<&'k str, ParamEvidence>, Values) {
    let mut found: FxHashMap<&str, ParamEvidence> = FxHashMap::default();
    let mut values: Values = FxHashMap::default();
    for &(key, url) in distinct {
        let Some(query) = split(key).query else {
            continue;
        };
        let mut names: Vec<(&str, &str)> = params(query).collect();
        names.sort_unstable();
        names.dedup_by(|a, b| a.0 == b.0);
        let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
        for &(name, component) in &names {
            let context = xxh3_64(
                all.iter()
                    .filter(|n| **n != name)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("&")
                    .as_bytes(),
            );
            let rule = DustRule::new(DustRuleKind::DropParam {
                name: name.to_owned(),
            });
            let Some(rewritten) = rule.apply(key) else {
                continue;
            };
            let e = found.entry(name).or_default();
            let keep = |e: &mut ParamEvidence, pair: (u32, u32), new_context: bool| {
                if new_context && e.diverse.len() < opts.max_pairs {
                    e.diverse.push(pair);
                } else if e.pairs.len() < opts.max_pairs {
                    e.pairs.push(pair);
                }
            };
            if let Some(&k) = key_ids.get(rewritten.as_str()) {
                e.support += 1;
                let new_context = e.contexts.insert(context);
                keep(e, (url, distinct[k as usize].1), new_context);
                // The one value too: `?page=1` may be the page without `page` while
                // `?page=2` is not.
                let components: Vec<&str> = params(query).map(|(_, c)| c).collect();
                if components.iter().filter(|c| param_name(c) == name).count() == 1 {
                    let at = components.iter().position(|c| *c == component).unwrap_or(0);
                    let (from, to) = match (at, components.len()) {
                        (_, 1) => (format!("?{component}"), String::new()),
                        (0, _) => (format!("?{component}&"), "?".to_owned()),
                        _ => (format!("&{component}"), String::new()),
                    };
                    let next = key
                        .find(from.as_str())
                        .map_or(NextChar::End, |i| NextChar::of(&key[i + from.len()..]));
                    let v = values.entry((from, to)).or_default();
                    v.0 += 1;
                    if !v.1.contains(&next) {
                        v.1.push(next);
                    }
                    if v.2.len() < opts.max_pairs {
                        v.2.push((url, distinct[k as usize].1));
                    }
                }
            }
            let value = xxh3_64(component.as_bytes());
            let bucket = e
                .buckets
                .entry(xxh3_64(rewritten.as_bytes()))
                .or_insert((value, url, 0));
            if bucket.0 != value {
                bucket.2 += 1;
                let (first, other) = (bucket.2 == 1, bucket.1);
                e.support += 1;
                // One pair per bucket, so the pairs come from different pages; two
                // values side by side test an identifier: contexts of their own.
                if first {
                    if e.contexts.insert(context ^ 1) && e.varied.len() < opts.max_pairs {
                        e.varied.push((url, other));
                    } else {
                        keep(e, (url, other), false);
                    }
                }
            }
        }
    }
    (found, values)
}

/// A candidate per parameter with enough support, with the pairs to fetch, most
/// diverse first.
fn parameter_candidates(
    found: FxHashMap<&str, ParamEvidence>,
    urls: &[String],
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
    out: &mut Vec<Candidate>,
) {
    let mut names: Vec<(&str, ParamEvidence)> = found
        .into_iter()
        .filter(|(_, e)| e.support >= opts.min_support)
        .collect();
    names.sort_by(|a, b| a.0.cmp(b.0));
    for (name, mut e) in names {
        let kind = DustRuleKind::DropParam {
            name: name.to_owned(),
        };
        // A parameter's value against its absence first: two values can agree because
        // both select nothing (an empty log filtered by page A or by page B) while the
        // URL without the parameter, which the rule rewrites them to, shows everything.
        // Without a URL of the list lacking the parameter, each context's first pair of
        // values gives a URL to compare with its rewrite.
        let probes: Vec<(u32, String)> = if e.diverse.is_empty() {
            e.varied
                .iter()
                .take(MAX_REWRITE_PROBES)
                .filter_map(|&(a, _)| without_param(&urls[a as usize], name).map(|u| (a, u)))
                .collect()
        } else {
            Vec::new()
        };
        e.diverse.append(&mut e.varied);
        e.diverse.append(&mut e.pairs);
        e.diverse.truncate(opts.max_pairs);
        let mut cand = candidate(kind, e.support, distinct, key_ids, e.diverse);
        cand.rewrite_probes = probes;
        out.push(cand);
    }
}

/// A candidate per single value with enough support that is not its parameter's rule
/// again, nor a generalization of a candidate already there.
fn value_candidates(
    values: Values,
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
    out: &mut Vec<Candidate>,
) {
    // A value whose removal joins fewer keys than its parameter's does is a rule of its
    // own (`?page=1` → ``); with the same support it is the parameter's rule again.
    let mut values: Vec<((String, String), ValueEvidence)> = values
        .into_iter()
        .filter(|(_, v)| v.0 >= opts.min_support)
        .collect();
    values.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    values.truncate(opts.max_candidates);
    for ((from, to), (support, mut next, pairs)) in values {
        let name = param_name(from.trim_start_matches(['?', '&']).trim_end_matches('&'));
        if parameter_support(out, name) == Some(support) {
            continue;
        }
        next.sort();
        let kind = DustRuleKind::Replace { from, to, next };
        // A substitution seen in a context every pair shares is the same rule, kept in
        // its specific form (see `without_generalizations`).
        let DustRuleKind::Replace { from, to, .. } = &kind else {
            continue;
        };
        let id = DustRule::new(kind.clone()).id;
        if out.iter().any(|c| {
            c.rule.id == id
                || (c.rule.support == support
                    && matches!(&c.rule.kind, DustRuleKind::Replace { from: f, to: t, .. }
                        if refines_text((f, t), (from, to))))
        }) {
            continue;
        }
        out.push(candidate(kind, support, distinct, key_ids, pairs));
    }
}

/// The name of a query component `name=value`.
fn param_name(component: &str) -> &str {
    component.split_once('=').map_or(component, |(n, _)| n)
}

/// The support of the candidate that drops parameter `name`, if any.
fn parameter_support(candidates: &[Candidate], name: &str) -> Option<u32> {
    candidates.iter().find_map(|c| match &c.rule.kind {
        DustRuleKind::DropParam { name: n } if n == name => Some(c.rule.support),
        _ => None,
    })
}

/// `url` without the query parameter `name` (every occurrence), or `None` when its
/// query does not name it.
fn without_param(url: &str, name: &str) -> Option<String> {
    let parts = split(url);
    let query = parts.query?;
    let kept: Vec<&str> = params(query)
        .filter(|(n, _)| *n != name)
        .map(|(_, c)| c)
        .collect();
    if kept.len() == params(query).count() {
        return None;
    }
    Some(with_query(url, &parts, &kept))
}

/// Origins that serve the same paths.
fn host_aliases(
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    opts: &Options,
    out: &mut Vec<Candidate>,
) {
    let mut origins: FxHashMap<&str, u32> = FxHashMap::default();
    let mut by_rest: FxHashMap<&str, Vec<(&str, u32)>> = FxHashMap::default();
    for &(key, url) in distinct {
        let end = split(key).origin_end;
        *origins.entry(&key[..end]).or_default() += 1;
        by_rest
            .entry(&key[end..])
            .or_default()
            .push((&key[..end], url));
    }
    if origins.len() < 2 {
        return;
    }
    let mut pairs: FxHashMap<(&str, &str), Evidence> = FxHashMap::default();
    for members in by_rest.values() {
        if members.len() < 2 || members.len() > opts.max_alternatives {
            continue;
        }
        for &(a, ua) in members {
            for &(b, ub) in members {
                // Toward the origin with more keys, then a host name rather than an IP
                // address, then the shorter name.
                if a == b || origin_rank(a, origins[a]) <= origin_rank(b, origins[b]) {
                    continue;
                }
                let e = pairs.entry((a, b)).or_default();
                e.0 += 1;
                if e.1.len() < opts.max_pairs {
                    e.1.push((ua, ub));
                }
            }
        }
    }
    let mut pairs: Vec<_> = pairs
        .into_iter()
        .filter(|(_, (s, _))| *s >= opts.min_support)
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    for ((from, to), (s, list)) in pairs {
        let kind = DustRuleKind::Host {
            from: from.to_owned(),
            to: to.to_owned(),
        };
        out.push(candidate(kind, s, distinct, key_ids, list));
    }
}

/// How much an origin is the form a host alias rule rewrites to (smaller: more): most
/// keys first, then a host name before an IP address, then the shorter, then the first
/// in order. Two origins never rank the same.
fn origin_rank(origin: &str, keys: u32) -> (std::cmp::Reverse<u32>, bool, usize, &str) {
    let host = split(origin).host;
    let ip = host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok();
    (std::cmp::Reverse(keys), ip, origin.len(), origin)
}

/// A candidate with the list's counts: how many keys it rewrites and how many of the
/// rewrites are in the list.
fn candidate(
    kind: DustRuleKind,
    support: u32,
    distinct: &[(&str, u32)],
    key_ids: &FxHashMap<&str, u32>,
    pairs: Vec<(u32, u32)>,
) -> Candidate {
    let mut rule = DustRule::new(kind);
    rule.support = support;
    // Most keys do not hold the rule's text at all: a substring test skips them before
    // the rewrite allocates.
    let needle = match &rule.kind {
        DustRuleKind::Replace { from, .. } => from.clone(),
        DustRuleKind::DropParam { name } => name.clone(),
        DustRuleKind::Host { from, .. } => from.clone(),
    };
    for &(key, _) in distinct {
        if !key.contains(needle.as_str()) {
            continue;
        }
        if let Some(rewritten) = rule.apply(key) {
            rule.applicable += 1;
            if key_ids.contains_key(rewritten.as_str()) {
                rule.agreed += 1;
            } else {
                rule.unverified += 1;
            }
        }
    }
    rule.precision = if rule.applicable == 0 {
        0.0
    } else {
        f64::from(rule.agreed) / f64::from(rule.applicable)
    };
    rule.status = RuleStatus::NeedsValidation;
    Candidate {
        rule,
        pairs,
        rewrite_probes: Vec::new(),
    }
}

/// A key rewritten by `rules` until none applies (host aliases, then parameters, then
/// substitutions, at most 16 rounds; a cycle stops at the smallest form seen).
pub fn rewrite(key: &str, rules: &[&DustRule]) -> String {
    let mut current = key.to_owned();
    let mut seen: Vec<String> = Vec::new();
    for _ in 0..16 {
        let mut next = current.clone();
        for r in rules {
            if matches!(r.kind, DustRuleKind::Host { .. })
                && let Some(x) = r.apply(&next)
            {
                next = x;
                break;
            }
        }
        for r in rules {
            if matches!(r.kind, DustRuleKind::DropParam { .. })
                && let Some(x) = r.apply(&next)
            {
                next = x;
            }
        }
        for r in rules {
            if matches!(r.kind, DustRuleKind::Replace { .. })
                && let Some(x) = r.apply(&next)
            {
                next = x;
                break;
            }
        }
        if next == current {
            return current;
        }
        if seen.contains(&next) {
            seen.push(next);
            return seen.into_iter().min().unwrap_or(current);
        }
        seen.push(current);
        current = next;
    }
    current
}

/// Whether `rules` already join every pair of `candidate` (the candidate is a
/// composition of them, such as `/a/x` → `/b` beside `/a/` → `/b/` and `/x` → ``):
/// confirming it would group nothing more on its evidence, so it is not worth a request.
/// A candidate without pairs is never explained.
pub fn explained(learned: &Learned, candidate: &Candidate, rules: &[&DustRule]) -> bool {
    let key = |i: u32| learned.keys.get(i as usize).and_then(Option::as_deref);
    !rules.is_empty()
        && !candidate.pairs.is_empty()
        && candidate
            .pairs
            .iter()
            .all(|&(a, b)| match (key(a), key(b)) {
                (Some(a), Some(b)) => rewrite(a, rules) == rewrite(b, rules),
                _ => false,
            })
}

/// The list's equivalence groups under `rules` (and the policy the keys were made
/// with), largest first; URLs without a key are left out. Two keys are in one group when
/// rewriting them until no rule applies gives one form, or when one rule rewrites one
/// into the other or both into one URL: rules that overlap (`/page/1/` → `/` and
/// `/page/1/` → `/page/1`) join what each of them joins. A group is named by the
/// smallest form its members rewrite to.
pub fn group(learned: &Learned, rules: &[&DustRule]) -> Vec<Group> {
    let mut ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut parent: Vec<u32> = Vec::new();
    fn id(s: &str, ids: &mut FxHashMap<String, u32>, parent: &mut Vec<u32>) -> u32 {
        if let Some(&i) = ids.get(s) {
            return i;
        }
        let i = parent.len() as u32;
        parent.push(i);
        ids.insert(s.to_owned(), i);
        i
    }
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }
    fn union(parent: &mut [u32], a: u32, b: u32) {
        let (ra, rb) = (root(parent, a), root(parent, b));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let mut forms: FxHashMap<&str, String> = FxHashMap::default();
    for key in learned.keys.iter().flatten() {
        if forms.contains_key(key.as_str()) {
            continue;
        }
        let k = id(key, &mut ids, &mut parent);
        let form = rewrite(key, rules);
        let f = id(&form, &mut ids, &mut parent);
        union(&mut parent, k, f);
        for r in rules {
            if let Some(x) = r.apply(key) {
                let x = id(&x, &mut ids, &mut parent);
                union(&mut parent, k, x);
            }
        }
        forms.insert(key.as_str(), form);
    }
    let mut groups: FxHashMap<u32, Group> = FxHashMap::default();
    for (i, key) in learned.keys.iter().enumerate() {
        let Some(key) = key else { continue };
        let r = root(&mut parent, ids[key.as_str()]);
        let form = &forms[key.as_str()];
        let g = groups.entry(r).or_insert_with(|| Group {
            canonical: form.clone(),
            members: Vec::new(),
        });
        if *form < g.canonical {
            g.canonical = form.clone();
        }
        g.members.push(i as u32);
    }
    let mut out: Vec<Group> = groups.into_values().collect();
    out.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.canonical.cmp(&b.canonical))
    });
    out
}

#[cfg(test)]
mod tests;
