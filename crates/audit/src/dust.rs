//! Learned DUST rules and the parameter classifier (see the crate docs, "Learned
//! rules").

use crate::config::AnalysisConfig;
use crate::input::AuditInput;
use crate::keys::Keys;
use crate::site::{Agreement, Site};
use crate::urlparts::{params, split};
pub use crate::validation::{ValidationCandidate, ValidationFetch};
use rules::url::with_query;
pub use rules::{DustRule, DustRuleKind, LearnedRules, NextChar, RuleStatus, ValidationReport};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

/// What a query parameter does to a page, judged on pairs of fetched URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamClass {
    /// More than 10% of the pairs have different text.
    ChangesContent,
    /// The text stays near-identical but not identical (sort orders, minor variation).
    ReordersOnly,
    /// The text stays identical in at least 90% of the pairs.
    NeverMatters,
    /// Fewer than two pairs could be compared.
    Unknown,
}

/// What a query parameter is for, from its name, its values and the pages compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamVerdict {
    /// A campaign or click tag (`utm_source`, `gclid`): never changes the page.
    Tracking,
    /// A session id: never changes the page, and every visitor gets another.
    Session,
    /// Pages with and without it, or with two values, are the same page.
    Ignored,
    /// Numbered pages of a list.
    Pagination,
    /// Another order of the same items.
    Sort,
    /// Selects one of a few views or subsets of the page (a filter, a tab, a mode).
    Filter,
    /// Names what the page shows (an id, a title, a search).
    ChangesContent,
    /// Too little evidence.
    #[default]
    Unknown,
}

impl ParamVerdict {
    /// `tracking`, `session`, `ignored`, `pagination`, `sort`, `filter or view`,
    /// `changes content`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamVerdict::Tracking => "tracking",
            ParamVerdict::Session => "session",
            ParamVerdict::Ignored => "ignored",
            ParamVerdict::Pagination => "pagination",
            ParamVerdict::Sort => "sort",
            ParamVerdict::Filter => "filter or view",
            ParamVerdict::ChangesContent => "changes content",
            ParamVerdict::Unknown => "unknown",
        }
    }
}

/// Evidence about one query parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamStats {
    /// The parameter's name.
    pub name: String,
    /// URLs (keys) carrying it.
    pub urls: u32,
    /// Compared pairs (with / without it, or two values) whose text is identical.
    pub identical: u32,
    /// Pairs whose text is near-identical (SimHash within the near threshold).
    pub near: u32,
    /// Pairs whose text differs.
    pub different: u32,
    /// The verdict.
    pub class: ParamClass,
    /// What the parameter is for.
    #[serde(default)]
    pub verdict: ParamVerdict,
    /// Why, in a sentence.
    #[serde(default)]
    pub evidence: String,
}

/// Names of pagination parameters.
const PAGINATION_NAMES: &[&str] = &[
    "page", "p", "paged", "pg", "pagenum", "pageno", "cpage", "start", "offset", "from",
];
/// Names of sort parameters.
const SORT_NAMES: &[&str] = &[
    "sort",
    "sortby",
    "sort_by",
    "order",
    "orderby",
    "order_by",
    "dir",
    "direction",
];
/// A parameter with at most this many values is a filter when it changes the page.
const FILTER_VALUES: usize = 16;

/// What the raw URLs show of one parameter: every URL that carries it, as written
/// (tracking and session parameters the policy drops included).
#[derive(Default)]
struct RawParam {
    urls: u32,
    /// Hashes of its distinct values, at most [`FILTER_VALUES`] + 1 kept.
    values: Vec<u64>,
    /// URLs whose value is a number.
    numeric: u32,
    /// URLs whose value looks like a random token (16+ characters of letters and digits
    /// mixed).
    token: u32,
}

/// Verdicts for every parameter the audit's URLs carry: the compared pairs of `stats`
/// (keys under the policy) and the raw URLs, for parameters the policy drops.
fn verdicts(site: &Site<'_>, stats: &mut Vec<ParamStats>) {
    let policy = &site.cfg.policy;
    let mut raw: FxHashMap<String, RawParam> = FxHashMap::default();
    for i in 0..site.n as u32 {
        let Some(query) = split(site.url(i)).query else {
            continue;
        };
        for (name, component) in params(query) {
            let value = component.split_once('=').map_or("", |(_, v)| v);
            if !raw.contains_key(name) {
                raw.insert(name.to_owned(), RawParam::default());
            }
            let Some(r) = raw.get_mut(name) else { continue };
            r.urls += 1;
            let h = xxh3_64(value.as_bytes());
            if r.values.len() <= FILTER_VALUES && !r.values.contains(&h) {
                r.values.push(h);
            }
            if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                r.numeric += 1;
            }
            if value.len() >= 16
                && value.bytes().all(|b| b.is_ascii_alphanumeric())
                && value.bytes().any(|b| b.is_ascii_digit())
                && value.bytes().any(|b| b.is_ascii_alphabetic())
            {
                r.token += 1;
            }
        }
    }
    for (name, r) in &raw {
        if !stats.iter().any(|s| &s.name == name) {
            stats.push(ParamStats {
                name: name.clone(),
                urls: r.urls,
                identical: 0,
                near: 0,
                different: 0,
                class: ParamClass::Unknown,
                verdict: ParamVerdict::Unknown,
                evidence: String::new(),
            });
        }
    }
    for s in stats.iter_mut() {
        let r = raw.get(&s.name);
        let urls = r.map_or(s.urls, |r| r.urls);
        let values = r.map_or(0, |r| r.values.len());
        let many = if values > FILTER_VALUES {
            format!("more than {FILTER_VALUES} values")
        } else {
            crate::wording::count(values, "value", "values")
        };
        let lower = s.name.to_ascii_lowercase();
        let pairs = s.identical + s.near + s.different;
        let compared = if pairs == 0 {
            "no pair of fetched pages to compare".to_owned()
        } else {
            format!(
                "{} of fetched pages compared: {} identical, {} near-identical, {} different",
                crate::wording::count(pairs as usize, "pair", "pairs"),
                s.identical,
                s.near,
                s.different
            )
        };
        let on = crate::wording::count(urls as usize, "URL", "URLs");
        (s.verdict, s.evidence) = if policy.names_tracking_param(&s.name) {
            (
                ParamVerdict::Tracking,
                format!("a tracking parameter by its name, on {on}"),
            )
        } else if policy.names_session_param(&s.name)
            || r.is_some_and(|r| r.token * 2 > r.urls && values > FILTER_VALUES)
                && s.class != ParamClass::ChangesContent
        {
            (
                ParamVerdict::Session,
                format!("a session id by its name or its random values, on {on} with {many}"),
            )
        } else if PAGINATION_NAMES.contains(&lower.as_str())
            && r.is_some_and(|r| r.numeric * 10 >= r.urls * 9)
            && s.class != ParamClass::NeverMatters
        {
            (
                ParamVerdict::Pagination,
                format!("numbered pages: numeric values on {on}; {compared}"),
            )
        } else if s.class == ParamClass::ReordersOnly {
            (
                ParamVerdict::Sort,
                format!("the same items in another order ({many}); {compared}"),
            )
        } else if SORT_NAMES.contains(&lower.as_str()) && s.class != ParamClass::NeverMatters {
            (
                ParamVerdict::Sort,
                format!("a sort order by its name, on {on} with {many}; {compared}"),
            )
        } else {
            match s.class {
                ParamClass::NeverMatters => (
                    ParamVerdict::Ignored,
                    format!("the page stays the same without it or with another value; {compared}"),
                ),
                ParamClass::ChangesContent if values <= FILTER_VALUES => (
                    ParamVerdict::Filter,
                    format!(
                        "{many} on {on}, and the pages differ: it selects one of a few views or \
                         subsets; {compared}"
                    ),
                ),
                ParamClass::ChangesContent => (
                    ParamVerdict::ChangesContent,
                    format!("{many} on {on}, and the pages differ; {compared}"),
                ),
                _ => (
                    ParamVerdict::Unknown,
                    format!("{on} with {many}; {compared}, too few to judge"),
                ),
            }
        };
    }
    stats.sort_by(|a, b| a.name.cmp(&b.name));
}

impl ParamStats {
    fn classify(&mut self) {
        let obs = self.identical + self.near + self.different;
        self.class = if obs < 2 {
            ParamClass::Unknown
        } else if u64::from(self.different) * 10 > u64::from(obs) {
            ParamClass::ChangesContent
        } else if u64::from(self.identical) * 10 >= u64::from(self.identical + self.near) * 9 {
            ParamClass::NeverMatters
        } else {
            ParamClass::ReordersOnly
        };
    }
}

/// The outcome of mining.
pub(crate) struct Mined {
    pub rules: Vec<DustRule>,
    pub params: Vec<ParamStats>,
    /// Agreeing pairs of confirmed rules: `(url, rewritten, rule index)`.
    pub pairs: Vec<(u32, u32, u32)>,
}

/// How two fetched pages compare.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compare {
    Identical,
    Near,
    Different,
}

fn compare(site: &Site<'_>, a: u32, b: u32) -> Option<Compare> {
    match site.agreement(a, b) {
        Agreement::Identical(_) => Some(Compare::Identical),
        Agreement::Near(_) => Some(Compare::Near),
        Agreement::Unclear(_) | Agreement::Different(_) => Some(Compare::Different),
        Agreement::Unknown => None,
    }
}

struct Candidate {
    support: u32,
    next: Vec<NextChar>,
    examples: Vec<[String; 2]>,
}

/// Mines substitution and parameter rules, then measures them (and carried rules).
pub(crate) fn mine(site: &Site<'_>, keys: &Keys, carried: Option<&LearnedRules>) -> Mined {
    let cfg = &site.cfg.dust;
    let mut rules = Vec::new();
    if cfg.enabled {
        rules = substitution_candidates(site, keys);
    }
    // Carried rules: their evidence from earlier audits is added to this audit's.
    let carried: Vec<&DustRule> = carried
        .map(|c| {
            c.rules
                .iter()
                .filter(|r| r.status != RuleStatus::Rejected)
                .collect()
        })
        .unwrap_or_default();
    for r in &carried {
        if !rules.iter().any(|x: &DustRule| x.id == r.id) {
            let mut r = DustRule::new(r.kind.clone());
            r.examples.clear();
            rules.push(r);
        }
    }
    let mut pairs = Vec::new();
    for (ri, rule) in rules.iter_mut().enumerate() {
        if matches!(rule.kind, DustRuleKind::Replace { .. }) {
            measure_replace(site, keys, rule, ri as u32, &mut pairs);
        }
    }
    let (params, param_pairs) = if cfg.enabled {
        classify_params(site, keys)
    } else {
        (Vec::new(), Vec::new())
    };
    for p in &params {
        let agreed = p.identical + p.near;
        let obs = agreed + p.different;
        if obs == 0 || p.class == ParamClass::ChangesContent {
            continue;
        }
        let id = format!("drop_param:{}", p.name);
        // Measured in place: the pairs already recorded hold the rules' indices.
        let at = match rules.iter().position(|r| r.id == id) {
            Some(at) => at,
            None => {
                rules.push(DustRule::new(DustRuleKind::DropParam {
                    name: p.name.clone(),
                }));
                rules.len() - 1
            }
        };
        let rule = &mut rules[at];
        rule.support = agreed;
        rule.applicable = obs;
        rule.agreed = agreed;
        rule.measure(cfg.min_support, cfg.min_precision);
    }
    for rule in &mut rules {
        if let Some(old) = carried.iter().find(|r| r.id == rule.id) {
            rule.support += old.support;
            rule.applicable += old.applicable;
            rule.agreed += old.agreed;
            rule.unverified += old.unverified;
            for e in &old.examples {
                if rule.examples.len() < 3 && !rule.examples.contains(e) {
                    rule.examples.push(e.clone());
                }
            }
            rule.measure(cfg.min_support, cfg.min_precision);
        }
    }
    let by_name: FxHashMap<&str, u32> = rules
        .iter()
        .enumerate()
        .filter_map(|(ri, r)| match &r.kind {
            DustRuleKind::DropParam { name } => Some((name.as_str(), ri as u32)),
            DustRuleKind::Replace { .. } | DustRuleKind::Host { .. } => None,
        })
        .collect();
    let mut param_examples: Vec<(u32, [String; 2])> = Vec::new();
    for (a, b, name) in param_pairs {
        if let Some(&ri) = by_name.get(params[name as usize].name.as_str()) {
            if param_examples.iter().filter(|(r, _)| *r == ri).count() < 3 {
                param_examples.push((
                    ri,
                    [
                        keys.get(site, a).unwrap_or_default().to_owned(),
                        keys.get(site, b).unwrap_or_default().to_owned(),
                    ],
                ));
            }
            pairs.push((a, b, ri));
        }
    }
    for (ri, example) in param_examples {
        let rule = &mut rules[ri as usize];
        if rule.examples.len() < 3 {
            rule.examples.push(example);
        }
    }
    // Validation samples fetched after the crawl decide rules that needed them.
    for rule in &mut rules {
        let fetched: Vec<&ValidationFetch> = site
            .cfg
            .validations
            .iter()
            .filter(|v| v.rule_id == rule.id)
            .collect();
        if !fetched.is_empty() && rule.status == RuleStatus::NeedsValidation {
            let report = measure_validation(fetched);
            rule.apply_validation(&report, cfg.min_support, cfg.min_precision);
        }
    }
    // Order: confirmed first, then by support; pairs follow their rules' new indices.
    let mut order: Vec<u32> = (0..rules.len() as u32).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (&rules[x as usize], &rules[y as usize]);
        (a.status, std::cmp::Reverse(a.support), &a.id).cmp(&(
            b.status,
            std::cmp::Reverse(b.support),
            &b.id,
        ))
    });
    let mut new_index = vec![0u32; rules.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    let mut slots: Vec<Option<DustRule>> = rules.into_iter().map(Some).collect();
    let rules: Vec<DustRule> = order
        .iter()
        .filter_map(|&o| slots[o as usize].take())
        .collect();
    let pairs = pairs
        .into_iter()
        .map(|(a, b, r)| (a, b, new_index[r as usize]))
        .filter(|&(_, _, r)| rules[r as usize].status == RuleStatus::Confirmed)
        .collect();
    let mut params = params;
    if cfg.enabled {
        verdicts(site, &mut params);
    }
    Mined {
        rules,
        params,
        pairs,
    }
}

/// Candidate substitutions from pairs of pages with identical text.
fn substitution_candidates(site: &Site<'_>, keys: &Keys) -> Vec<DustRule> {
    let cfg = &site.cfg.dust;
    let mut by_text: Vec<(u64, u32)> = (0..site.n as u32)
        .filter(|&i| keys.get(site, i).is_some() && !site.probe(i))
        .filter_map(|i| site.content(i).map(|c| (c.text_hash, i)))
        .collect();
    by_text.sort_unstable();
    let mut cands: FxHashMap<(String, String), Candidate> = FxHashMap::default();
    let mut group: Vec<&str> = Vec::new();
    let mut start = 0;
    while start < by_text.len() {
        let mut end = start + 1;
        while end < by_text.len() && by_text[end].0 == by_text[start].0 {
            end += 1;
        }
        if end - start >= 2 {
            group.clear();
            group.extend(
                by_text[start..end]
                    .iter()
                    .filter_map(|&(_, i)| keys.get(site, i)),
            );
            group.sort_unstable();
            group.dedup();
            group.truncate(cfg.max_group);
            for x in 0..group.len() {
                for y in x + 1..group.len() {
                    if let Some((from, to, next)) =
                        substitution(group[x], group[y], cfg.max_substitution)
                    {
                        let c = cands.entry((from, to)).or_insert_with(|| Candidate {
                            support: 0,
                            next: Vec::new(),
                            examples: Vec::new(),
                        });
                        c.support += 1;
                        if !c.next.contains(&next) {
                            c.next.push(next);
                        }
                        if c.examples.len() < 3 {
                            let (a, b) = (group[x], group[y]);
                            c.examples.push([a.to_owned(), b.to_owned()]);
                        }
                    }
                }
            }
        }
        start = end;
    }
    let mut list: Vec<((String, String), Candidate)> =
        cands.into_iter().filter(|(_, c)| c.support >= 2).collect();
    list.sort_by(|a, b| b.1.support.cmp(&a.1.support).then_with(|| a.0.cmp(&b.0)));
    list.truncate(cfg.max_rules);
    list.into_iter()
        .map(|((from, to), mut c)| {
            c.next.sort_unstable();
            let mut rule = DustRule::new(DustRuleKind::Replace {
                from,
                to,
                next: c.next,
            });
            rule.support = c.support;
            rule.examples = c.examples;
            rule
        })
        .collect()
}

/// The substitution that turns one key into the other: `(from, to, next char kind)`,
/// oriented toward the shorter side, or `None` when the pair is not a candidate (other
/// host, query-only difference, too long).
pub(crate) fn substitution(a: &str, b: &str, max: usize) -> Option<(String, String, NextChar)> {
    let (pa, pb) = (split(a), split(b));
    if a[..pa.origin_end] != b[..pb.origin_end] || pa.path == pb.path {
        return None;
    }
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let mut lcp = ab.iter().zip(bb).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(lcp) || !b.is_char_boundary(lcp) {
        lcp -= 1;
    }
    let room = a.len().min(b.len()) - lcp;
    let mut lcs = ab
        .iter()
        .rev()
        .zip(bb.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - lcs) || !b.is_char_boundary(b.len() - lcs) {
        lcs -= 1;
    }
    let (da, db) = (&a[lcp..a.len() - lcs], &b[lcp..b.len() - lcs]);
    if da.len() + db.len() > max || (da.is_empty() && db.is_empty()) {
        return None;
    }
    let prefix = &a[..lcp];
    let ctx = match prefix.rfind('/') {
        Some(at) if at >= pa.origin_end => {
            let c = &prefix[at..];
            if c.bytes().any(|b| b.is_ascii_digit()) || c.len() > 32 {
                ""
            } else {
                c
            }
        }
        _ => "",
    };
    let (fa, fb) = (format!("{ctx}{da}"), format!("{ctx}{db}"));
    let after = &a[a.len() - lcs..];
    if (fa.len(), &fa) > (fb.len(), &fb) {
        Some((fa, fb, NextChar::of(after)))
    } else {
        Some((fb, fa, NextChar::of(after)))
    }
}

fn measure_replace(
    site: &Site<'_>,
    keys: &Keys,
    rule: &mut DustRule,
    ri: u32,
    pairs: &mut Vec<(u32, u32, u32)>,
) {
    let DustRuleKind::Replace { from, .. } = &rule.kind else {
        return;
    };
    let from = from.clone();
    let mut examples = std::mem::take(&mut rule.examples);
    for i in 0..site.n as u32 {
        let Some(key) = keys.get(site, i).filter(|_| !site.probe(i)) else {
            continue;
        };
        if !key.contains(from.as_str()) || site.content(i).is_none() {
            continue;
        }
        let Some(rewritten) = rule.apply(key) else {
            continue;
        };
        match keys.find(site, &rewritten) {
            Some(j) if j != i && site.fetch(j).is_some() => match compare(site, i, j) {
                Some(c @ (Compare::Identical | Compare::Near)) => {
                    rule.applicable += 1;
                    rule.agreed += 1;
                    // Only identical content merges: a rule with near content is weak.
                    if c == Compare::Identical {
                        pairs.push((i, j, ri));
                    }
                    if examples.len() < 3 {
                        examples.push([key.to_owned(), rewritten]);
                    }
                }
                Some(Compare::Different) => rule.applicable += 1,
                None if site.error(j) => rule.applicable += 1,
                None => {}
            },
            Some(j) if j == i => {}
            _ => rule.unverified += 1,
        }
    }
    rule.examples = examples;
    rule.measure(site.cfg.dust.min_support, site.cfg.dust.min_precision);
}

/// Compares URLs with and without each parameter, and with two values of it.
/// Returns the table and the agreeing pairs `(url, other, parameter index)`.
fn classify_params(site: &Site<'_>, keys: &Keys) -> (Vec<ParamStats>, Vec<(u32, u32, u32)>) {
    let mut names: FxHashMap<String, u32> = FxHashMap::default();
    let mut stats: Vec<ParamStats> = Vec::new();
    let mut records: Vec<(u32, u64, u64, u32)> = Vec::new();
    let mut pairs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let count = |stats: &mut Vec<ParamStats>, p: u32, c: Compare| {
        let s = &mut stats[p as usize];
        match c {
            Compare::Identical => s.identical += 1,
            Compare::Near => s.near += 1,
            Compare::Different => s.different += 1,
        }
    };
    for i in 0..site.n as u32 {
        let Some(key) = keys.get(site, i).filter(|_| !site.probe(i)) else {
            continue;
        };
        let parts = split(key);
        let Some(query) = parts.query else { continue };
        let has_content = site.content(i).is_some();
        seen.clear();
        for (name, _) in params(query) {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let p = match names.get(name) {
                Some(&p) => p,
                None => {
                    let p = stats.len() as u32;
                    names.insert(name.to_owned(), p);
                    stats.push(ParamStats {
                        name: name.to_owned(),
                        urls: 0,
                        identical: 0,
                        near: 0,
                        different: 0,
                        class: ParamClass::Unknown,
                        verdict: ParamVerdict::Unknown,
                        evidence: String::new(),
                    });
                    p
                }
            };
            stats[p as usize].urls += 1;
            if !has_content {
                continue;
            }
            let kept: Vec<&str> = params(query)
                .filter(|(n, _)| *n != name)
                .map(|(_, c)| c)
                .collect();
            let value: Vec<&str> = params(query)
                .filter(|(n, _)| *n == name)
                .map(|(_, c)| c)
                .collect();
            let rest = with_query(key, &parts, &kept);
            if let Some(j) = keys.find(site, &rest)
                && j != i
                && let Some(c) = compare(site, i, j)
            {
                count(&mut stats, p, c);
                if c == Compare::Identical {
                    pairs.push((i, j, p));
                }
            }
            records.push((
                p,
                xxh3_64(rest.as_bytes()),
                xxh3_64(value.join("&").as_bytes()),
                i,
            ));
        }
    }
    records.sort_unstable();
    for w in records.windows(2) {
        let ((p, rest, va, a), (q, rest2, vb, b)) = (w[0], w[1]);
        if p == q
            && rest == rest2
            && va != vb
            && let Some(c) = compare(site, a, b)
        {
            count(&mut stats, p, c);
            if c == Compare::Identical {
                pairs.push((a, b, p));
            }
        }
    }
    for s in &mut stats {
        s.classify();
    }
    // Stable output order: by name; remap pair indices.
    let mut order: Vec<u32> = (0..stats.len() as u32).collect();
    order.sort_by(|&a, &b| stats[a as usize].name.cmp(&stats[b as usize].name));
    let mut new_index = vec![0u32; stats.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    let mut slots: Vec<Option<ParamStats>> = stats.into_iter().map(Some).collect();
    let stats = order
        .iter()
        .filter_map(|&o| slots[o as usize].take())
        .collect();
    let pairs = pairs
        .into_iter()
        .map(|(a, b, p)| (a, b, new_index[p as usize]))
        .collect();
    (stats, pairs)
}

/// Up to `n` candidates for testing `rule`: fetched pages where it applies whose
/// rewritten URL the audit did not fetch, spread evenly over the sorted list so the
/// sample is deterministic.
pub fn validation_candidates(
    input: &AuditInput,
    config: &AnalysisConfig,
    rule: &DustRule,
    n: usize,
) -> Vec<ValidationCandidate> {
    let site = Site::new(input, config);
    let keys = Keys::compute(&site);
    let mut all: Vec<ValidationCandidate> = Vec::new();
    for i in 0..site.n as u32 {
        let Some(key) = keys.get(&site, i) else {
            continue;
        };
        let Some(content) = site.content(i) else {
            continue;
        };
        let Some(rewritten) = rule.apply(key) else {
            continue;
        };
        let fetched = keys
            .find(&site, &rewritten)
            .is_some_and(|j| site.fetch(j).is_some());
        if !fetched {
            all.push(ValidationCandidate {
                url: key.to_owned(),
                rewritten,
                text_hash: content.text_hash,
                simhash: content.simhash,
            });
        }
    }
    all.sort_by(|a, b| a.url.cmp(&b.url));
    all.dedup_by(|a, b| a.rewritten == b.rewritten);
    if all.len() <= n {
        return all;
    }
    (0..n).map(|k| all[k * all.len() / n].clone()).collect()
}

/// Measures a rule's false-positive rate from the fingerprints fetched for its
/// [`validation_candidates`]: a sample agrees when its page is the candidate's by the
/// notion of "same page" the crawl's own rules and `dustpan learn` share
/// ([`rules::same_page::text_pair`]: identical visible text; text a little apart is a
/// miss, as near-identical evidence never confirms a rule). A redirect says nothing; any
/// other answer than a page is a miss.
pub fn measure_validation<'a>(
    fetched: impl IntoIterator<Item = &'a ValidationFetch>,
) -> ValidationReport {
    use rules::same_page::{Pair, Text, text_pair};
    let text = |hash, simhash| Text {
        hash,
        simhash,
        blocks: None,
        canonical: None,
    };
    let (mut tested, mut agreed) = (0u32, 0u32);
    for f in fetched {
        match f.status {
            Some(s) if (300..400).contains(&s) => continue,
            Some(s) if (200..300).contains(&s) => {
                tested += 1;
                let sample = f.text_hash.map(|hash| text(hash, f.simhash));
                let candidate = text(f.candidate.text_hash, f.candidate.simhash);
                if sample.is_some_and(|t| text_pair(candidate, t) == Pair::Same) {
                    agreed += 1;
                }
            }
            _ => tested += 1,
        }
    }
    let false_positives = tested - agreed;
    ValidationReport {
        tested,
        agreed,
        false_positives,
        false_positive_rate: if tested == 0 {
            0.0
        } else {
            f64::from(false_positives) / f64::from(tested)
        },
    }
}
