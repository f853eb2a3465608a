//! How the server answers URL variants: the crawler's probes (`crawl::probe`) judged
//! one by one, then rule by rule, with the fix as one server rule for nginx and Apache.
//!
//! **A probe's verdict** ([`ProbeVerdict`]), from what the variant answered:
//!
//! | verdict | when | |
//! |---|---|---|
//! | `redirect_permanent` | 301/308 (every hop) to the page or a URL of its cluster | good |
//! | `redirect_temporary` | a 302, 303 or 307 hop on the way to the page or its cluster | warning |
//! | `redirect_elsewhere` | redirects to another page (or to an error, or nowhere) | warning |
//! | `gone` | 4xx (404, 410, or another refusal): the variant serves no page | good |
//! | `canonical` | 2xx with a canonical to the page or a URL of its cluster | acceptable |
//! | `duplicate` | 2xx without such a canonical, with the page's content (identical text or main content) or in its cluster | duplicate |
//! | `different` | 2xx with other content | note |
//! | `error` | 5xx, or no response | unknown |
//! | `not_fetched` | not requested: robots.txt, a limit, the scope | unknown |
//! | `unrendered` | 2xx without such a canonical, in an audit that renders, where what the page serves cannot show its content (a script's shell that pages with other rendered content serve too, or no text at all) and the variant was not rendered | unknown |
//!
//! **Content is compared as the analysis reads it** (`Site::text`: the rendered page
//! where it was rendered). The probes are requested after the crawl and are not
//! rendered, so where a script writes the page's content the variant's served bytes
//! say nothing about what it shows: every URL of a single-page app serves the same
//! shell, and `/index.html` or `//` of one may render the shell's source, an empty
//! view or the app's "not found" view. Such a probe is `unrendered` (whether it serves
//! the page cannot be told without rendering it), never a duplicate by its served
//! bytes. A page a script only adds to (a banner, a widget) serves its own text, and
//! its variants are compared as served. An audit without rendering compares the served
//! HTML, as before.
//!
//! **A rule's verdict** is the median by severity of its answered samples (`error` and
//! `not_fetched` left out): the worst verdict that at least half the samples reach or
//! exceed, in the order duplicate, redirect_temporary, redirect_elsewhere, different,
//! canonical, gone, redirect_permanent. A rule whose samples all went unanswered gets
//! `error` (if any failed) or `not_fetched`; a rule without samples has none. A worse
//! answer of fewer samples (one section of the site) still shows in the counts and
//! raises the rule's finding.
//!
//! **Findings**: `VARIANT-DUPLICATE` for a rule with any duplicate sample,
//! `VARIANT-TEMPORARY` for a rule with any temporary redirect. A probe is an ordinary URL
//! of the audit (clusters, fix files), so the per-URL findings would name it too
//! (`DUP-CASE`, `REDIRECT-TEMPORARY`, ...): a finding that names nothing but probes of a
//! rule with the same verdict is left out, since the rule's finding states the cause
//! once, with one server rule for every URL of the pattern (the fewest findings for one
//! cause). A finding that also names linked URLs stays, and the rule's finding says so.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::cluster::Clusters;
use crate::finding::{Finding, FindingId, Fix};
use crate::input::{HopKind, ProbeRule, UrlState};
use crate::site::{NONE, Site};

mod server;
pub use server::offered as server_rule_offered;

/// How the server answered one probe (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeVerdict {
    /// 2xx without a canonical to the page, with its content.
    Duplicate,
    /// A temporary redirect (302, 303, 307) to the page.
    RedirectTemporary,
    /// A redirect to another page, an error, or nowhere.
    RedirectElsewhere,
    /// 2xx with other content.
    Different,
    /// 2xx with a canonical to the page.
    Canonical,
    /// 4xx: no page.
    Gone,
    /// A permanent redirect (301, 308) to the page.
    RedirectPermanent,
    /// 5xx or no response.
    Error,
    /// Not requested.
    NotFetched,
    /// 2xx, but the page's content is written by script and the variant was not
    /// rendered: whether it serves the page cannot be told.
    Unrendered,
}

impl ProbeVerdict {
    /// Every verdict, worst first (the unanswered last).
    pub const ALL: &'static [ProbeVerdict] = &[
        ProbeVerdict::Duplicate,
        ProbeVerdict::RedirectTemporary,
        ProbeVerdict::RedirectElsewhere,
        ProbeVerdict::Different,
        ProbeVerdict::Canonical,
        ProbeVerdict::Gone,
        ProbeVerdict::RedirectPermanent,
        ProbeVerdict::Error,
        ProbeVerdict::NotFetched,
        ProbeVerdict::Unrendered,
    ];

    /// The word reports and CSV files use (`redirect_permanent`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeVerdict::Duplicate => "duplicate",
            ProbeVerdict::RedirectTemporary => "redirect_temporary",
            ProbeVerdict::RedirectElsewhere => "redirect_elsewhere",
            ProbeVerdict::Different => "different",
            ProbeVerdict::Canonical => "canonical",
            ProbeVerdict::Gone => "gone",
            ProbeVerdict::RedirectPermanent => "redirect_permanent",
            ProbeVerdict::Error => "error",
            ProbeVerdict::NotFetched => "not_fetched",
            ProbeVerdict::Unrendered => "unrendered",
        }
    }

    /// Whether the server answered (the verdict says something about the site).
    pub fn answered(self) -> bool {
        !matches!(
            self,
            ProbeVerdict::Error | ProbeVerdict::NotFetched | ProbeVerdict::Unrendered
        )
    }
}

impl std::fmt::Display for ProbeVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One probe judged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantProbe {
    /// The variant.
    pub url: String,
    /// The page it varies.
    pub base: String,
    /// The verdict.
    pub verdict: ProbeVerdict,
    /// What the server answered, in words (`301 to https://example.com/a`).
    pub answer: String,
    /// The crawl had found the variant before the probe (a page, a sitemap or a
    /// redirect names it): a URL of the site, not only a probe's.
    #[serde(default)]
    pub known: bool,
    /// The site's own pages this sample speaks for: the distinct pages (served, the
    /// preferred URL of their cluster, none made up by Dustpan) of its page's site
    /// section (host and first path segment, as the probes are sampled), or of its
    /// host for a rule about the host name or scheme.
    #[serde(default)]
    pub reach: u32,
}

/// One rule of URL variants, over its samples (a row of `url_variants.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantRule {
    /// The rule.
    pub rule: ProbeRule,
    /// The rule's verdict (see the module docs); `None` without samples.
    pub verdict: Option<ProbeVerdict>,
    /// The samples, by variant URL.
    pub probes: Vec<VariantProbe>,
    /// The fix for nginx, in the site's `server` block (see [`server_rule_offered`]:
    /// a text may only say why no rule is offered).
    pub nginx: String,
    /// The fix for Apache httpd (mod_rewrite, mod_headers), in the site's
    /// `<VirtualHost>`.
    pub apache: String,
    /// The fix for Apache httpd in the `.htaccess` of the document root.
    #[serde(default)]
    pub htaccess: String,
}

impl VariantRule {
    /// Samples probed.
    pub fn samples(&self) -> u32 {
        self.probes.len() as u32
    }

    /// Samples with this verdict.
    pub fn count(&self, verdict: ProbeVerdict) -> u32 {
        self.probes.iter().filter(|p| p.verdict == verdict).count() as u32
    }

    /// The first sample with the rule's verdict (else the first sample).
    pub fn example(&self) -> Option<&VariantProbe> {
        self.probes
            .iter()
            .find(|p| Some(p.verdict) == self.verdict)
            .or_else(|| self.probes.first())
    }

    /// The verdict's word, `not_probed` without samples.
    pub fn verdict_word(&self) -> &'static str {
        self.verdict.map_or("not_probed", ProbeVerdict::as_str)
    }
}

/// What the variants of a rule are, for sentences ("Upper-case URLs").
pub fn rule_label(rule: ProbeRule) -> &'static str {
    match rule {
        ProbeRule::HostWww => "URLs on the other host name (www. added or removed)",
        ProbeRule::Scheme => "URLs over the other scheme (http or https)",
        ProbeRule::TrailingSlash => "URLs with the trailing slash added or removed",
        ProbeRule::PathCase => "Upper-case URLs",
        ProbeRule::IndexFile => "URLs with an index file name (index.html, index.php)",
        ProbeRule::DoubleSlash => "URLs with a doubled slash",
        ProbeRule::TrackingParam => "URLs with a tracking parameter (utm_source)",
        ProbeRule::SessionParam => "URLs with a session parameter (sessionid)",
        ProbeRule::UnknownParam => "URLs with an unknown parameter",
        ProbeRule::EmptyQuery => "URLs with an empty query (a bare ?)",
        ProbeRule::IpHost => "URLs on the server's IP address",
    }
}

/// The label inside a sentence (first letter lower-cased, except "URLs").
fn label_in_sentence(rule: ProbeRule) -> String {
    let label = rule_label(rule);
    match label.strip_prefix("Upper") {
        Some(rest) => format!("upper{rest}"),
        None => label.to_owned(),
    }
}

/// Judges every probe of the audit, rule by rule (every rule listed once any probe
/// exists; none when the audit made no probes).
pub(crate) fn analyse(site: &Site<'_>, clusters: &Clusters) -> Vec<VariantRule> {
    let probes = &site.input.probes;
    if probes.is_empty() {
        return Vec::new();
    }
    let mut by_rule: BTreeMap<ProbeRule, Vec<VariantProbe>> = BTreeMap::new();
    let own = site_pages(site, clusters);
    let pages = pages_by_section(site, &own);
    let preferred: Vec<String> = own.iter().map(|&i| site.url_string(i)).collect();
    let shells = shells(site);
    for p in probes {
        let (Some(v), Some(b)) = (site.idx(p.url), site.idx(p.base)) else {
            continue;
        };
        let (verdict, answer) = judge(site, clusters, &shells, v, b);
        let row = &site.input.urls[v as usize];
        by_rule.entry(p.rule).or_default().push(VariantProbe {
            url: site.url_string(v),
            base: site.url_string(b),
            verdict,
            answer,
            known: !row.is_probe(),
            reach: reach(&pages, p.rule, site.url(b)),
        });
    }
    ProbeRule::ALL
        .iter()
        .map(|&rule| {
            let mut probes = by_rule.remove(&rule).unwrap_or_default();
            probes.sort_by(|a, b| a.url.cmp(&b.url));
            let verdict = rule_verdict(&probes);
            let (nginx, apache, htaccess) = match probes.first() {
                Some(p) => {
                    let r = server::server_rules(rule, &p.base, &probes, &preferred);
                    (r.nginx, r.apache, r.htaccess)
                }
                None => (String::new(), String::new(), String::new()),
            };
            VariantRule {
                rule,
                verdict,
                probes,
                nginx,
                apache,
                htaccess,
            }
        })
        .collect()
}

/// A URL's site section as the probes are sampled: its host (lower-cased, with the
/// port) and its first path segment.
fn section_of(url: &str) -> (String, String) {
    let (_, authority, _) = origin_and_host(url);
    let path = path_of(url);
    let first = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("")
        .to_owned();
    (authority.to_ascii_lowercase(), first)
}

/// The site's own distinct pages: served (2xx, no redirect), the preferred URL of their
/// cluster, in scope, none made up by Dustpan.
fn site_pages(site: &Site<'_>, clusters: &Clusters) -> Vec<u32> {
    (0..site.n as u32)
        .filter(|&i| {
            site.serves(i)
                && !site.external[i as usize]
                && !site.made_up[i as usize]
                && clusters.preferred_of(i) == i
        })
        .collect()
}

/// The site's own distinct pages per section.
fn pages_by_section(site: &Site<'_>, own: &[u32]) -> FxHashMap<(String, String), u32> {
    let mut out: FxHashMap<(String, String), u32> = FxHashMap::default();
    for &i in own {
        *out.entry(section_of(site.url(i))).or_default() += 1;
    }
    out
}

/// The pages a sample of `rule` on `base` speaks for (see [`VariantProbe::reach`]).
fn reach(pages: &FxHashMap<(String, String), u32>, rule: ProbeRule, base: &str) -> u32 {
    let (host, section) = section_of(base);
    if host_wide(rule) {
        pages
            .iter()
            .filter(|((h, _), _)| *h == host)
            .map(|(_, n)| n)
            .sum()
    } else {
        pages.get(&(host, section)).copied().unwrap_or(0)
    }
}

/// The site's pages a rule's samples with one verdict speak for: each section (each
/// host, for a rule about the host) counted once.
fn pages_concerned(rule: ProbeRule, hits: &[&VariantProbe]) -> u32 {
    let mut seen: FxHashSet<(String, String)> = FxHashSet::default();
    let mut n = 0u32;
    for p in hits {
        let (host, section) = section_of(&p.base);
        let key = if host_wide(rule) {
            (host, String::new())
        } else {
            (host, section)
        };
        if seen.insert(key) {
            n = n.saturating_add(p.reach);
        }
    }
    n
}

/// The median by severity of the answered samples (see the module docs).
fn rule_verdict(probes: &[VariantProbe]) -> Option<ProbeVerdict> {
    if probes.is_empty() {
        return None;
    }
    let answered: Vec<ProbeVerdict> = probes
        .iter()
        .map(|p| p.verdict)
        .filter(|v| v.answered())
        .collect();
    if answered.is_empty() {
        let any = |v: ProbeVerdict| probes.iter().any(|p| p.verdict == v);
        return Some(if any(ProbeVerdict::Error) {
            ProbeVerdict::Error
        } else if any(ProbeVerdict::Unrendered) {
            ProbeVerdict::Unrendered
        } else {
            ProbeVerdict::NotFetched
        });
    }
    let mut reached = 0;
    for &v in ProbeVerdict::ALL.iter().filter(|v| v.answered()) {
        reached += answered.iter().filter(|&&a| a == v).count();
        if reached * 2 >= answered.len() {
            return Some(v);
        }
    }
    answered.iter().max().copied()
}

/// Whether `a` is `b` or in its cluster.
fn same_page(clusters: &Clusters, a: u32, b: u32) -> bool {
    a == b
        || (clusters.of[a as usize] != NONE && clusters.of[a as usize] == clusters.of[b as usize])
}

/// The served texts that are a script's shell, not a page: each is served by rendered
/// pages whose rendered texts differ (every route of a single-page app serves the same
/// bytes and renders its own content), so served bytes equal to one show nothing about
/// the page. A page whose script only adds to server-written content (a banner, a
/// widget) serves text of its own and is not counted here.
fn shells(site: &Site<'_>) -> FxHashSet<u64> {
    let mut rendered_of: FxHashMap<u64, FxHashSet<u64>> = FxHashMap::default();
    for r in &site.input.renders {
        let Some(i) = site.idx(r.url_id) else {
            continue;
        };
        if let (Some(served), Some(rendered)) =
            (site.fetch(i).and_then(|f| f.text_hash), r.text_hash)
        {
            rendered_of.entry(served).or_default().insert(rendered);
        }
    }
    rendered_of
        .into_iter()
        .filter(|(_, rendered)| rendered.len() > 1)
        .map(|(served, _)| served)
        .collect()
}

/// Whether page `b` was rendered and what it serves cannot show its content: a
/// script's shell ([`shells`]), or no text at all where the rendered page has some.
fn written_by_script(site: &Site<'_>, shells: &FxHashSet<u64>, b: u32) -> bool {
    site.rendered_dom(b).is_some_and(|r| {
        let served = site.fetch(b);
        let words = |w: Option<u32>| w.unwrap_or(0);
        served
            .and_then(|f| f.text_hash)
            .is_some_and(|h| shells.contains(&h))
            || (words(served.and_then(|f| f.word_count)) == 0 && words(r.word_count) > 0)
    })
}

/// A probe's verdict and what the server answered.
fn judge(
    site: &Site<'_>,
    clusters: &Clusters,
    shells: &FxHashSet<u64>,
    v: u32,
    b: u32,
) -> (ProbeVerdict, String) {
    let row = &site.input.urls[v as usize];
    let Some(status) = site.status(v) else {
        let why = site
            .reason(v)
            .map_or_else(|| "no reason recorded".to_owned(), ToString::to_string);
        return match row.state {
            UrlState::Failed | UrlState::Done => {
                (ProbeVerdict::Error, format!("no response ({why})"))
            }
            _ => (ProbeVerdict::NotFetched, format!("not requested ({why})")),
        };
    };
    if site.hops[v as usize].is_some() {
        return redirect(site, clusters, v, b);
    }
    match status {
        200..=299 => {
            let canonical = site.eff_canon[v as usize];
            if canonical != NONE && canonical != v && same_page(clusters, canonical, b) {
                return (
                    ProbeVerdict::Canonical,
                    format!("{status} with a canonical to {}", site.url(canonical)),
                );
            }
            if site.rendered_dom(v).is_none() && written_by_script(site, shells, b) {
                return (
                    ProbeVerdict::Unrendered,
                    format!(
                        "{status}; the page's content is written by script and the variant \
                         was not rendered, so whether it serves the page cannot be told \
                         without rendering it"
                    ),
                );
            }
            // Like with like: as the analysis reads both (`Site::text`) where both were
            // rendered, else as both were served (the base's served text is its own,
            // not a shell: checked above).
            let same = |x: Option<u64>, y: Option<u64>| x.is_some() && x == y;
            let same_text = if site.rendered_dom(v).is_some() && site.rendered_dom(b).is_some() {
                same(
                    site.text(v).and_then(|t| t.text_hash),
                    site.text(b).and_then(|t| t.text_hash),
                )
            } else {
                same(
                    site.fetch(v).and_then(|f| f.text_hash),
                    site.fetch(b).and_then(|f| f.text_hash),
                )
            };
            if same_text
                || same_page(clusters, v, b)
                || matches!(site.agreement(v, b), crate::site::Agreement::Identical(_))
            {
                let canon = if canonical == NONE {
                    "no canonical".to_owned()
                } else {
                    format!("a canonical to {}", site.url(canonical))
                };
                (
                    ProbeVerdict::Duplicate,
                    format!("{status} with the page's content and {canon}"),
                )
            } else {
                (
                    ProbeVerdict::Different,
                    format!("{status} with other content"),
                )
            }
        }
        400..=499 => (ProbeVerdict::Gone, status.to_string()),
        300..=399 => (
            ProbeVerdict::RedirectElsewhere,
            format!("{status} without a usable Location"),
        ),
        _ => (ProbeVerdict::Error, status.to_string()),
    }
}

/// The verdict of a redirecting probe: where its chain ends, and how.
fn redirect(site: &Site<'_>, clusters: &Clusters, v: u32, b: u32) -> (ProbeVerdict, String) {
    let mut at = v;
    let mut statuses: Vec<String> = Vec::new();
    let mut temporary = false;
    let mut seen = FxHashSet::default();
    while let Some(hop) = site.hops[at as usize] {
        if !seen.insert(at) || statuses.len() > 20 {
            return (
                ProbeVerdict::RedirectElsewhere,
                format!("{} in a loop", statuses.join(", ")),
            );
        }
        statuses.push(match hop.kind {
            HopKind::Http => hop.status.to_string(),
            HopKind::MetaRefresh => "meta refresh".to_owned(),
        });
        temporary |= hop.kind == HopKind::Http && matches!(hop.status, 302 | 303 | 307);
        temporary |= hop.kind == HopKind::MetaRefresh;
        if hop.to == NONE {
            return (
                ProbeVerdict::RedirectElsewhere,
                format!(
                    "{} to a Location that does not resolve",
                    statuses.join(", ")
                ),
            );
        }
        at = hop.to;
    }
    let how = format!("{} to {}", statuses.join(", "), site.url(at));
    if !same_page(clusters, at, b) {
        let end = match site.status(at) {
            Some(s) if (200..300).contains(&s) => String::new(),
            Some(s) => format!(" (answering {s})"),
            None => " (not fetched)".to_owned(),
        };
        return (ProbeVerdict::RedirectElsewhere, format!("{how}{end}"));
    }
    if temporary {
        (ProbeVerdict::RedirectTemporary, how)
    } else {
        (ProbeVerdict::RedirectPermanent, how)
    }
}

/// The scheme, authority (`example.com:8080`) and host of a URL.
fn origin_and_host(url: &str) -> (String, String, String) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = if authority.starts_with('[') {
        authority.find(']').map_or(authority, |i| &authority[..=i])
    } else {
        authority
            .rsplit_once(':')
            .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
            .map_or(authority, |(h, _)| h)
    };
    (scheme.to_owned(), authority.to_owned(), host.to_owned())
}

/// A regular expression matching `s` literally.
fn regex_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or(path)
}

/// `1 page`, `5 pages`.
fn count_pages(n: u32) -> String {
    if n == 1 {
        "1 page".to_owned()
    } else {
        format!("{n} pages")
    }
}

/// `1 of 5 samples answers`, `5 of 5 samples answer`.
fn of_samples(k: u32, n: u32, verb: &str) -> String {
    let noun = if n == 1 { "sample" } else { "samples" };
    let verb = if k == 1 {
        format!("{verb}s")
    } else {
        verb.to_owned()
    };
    format!("{k} of {n} {noun} {verb}")
}

/// What the fix does for a rule, as the start of a sentence (`offered`: a server rule is
/// offered for it).
fn fix_action(rule: ProbeRule, temporary: bool, offered: bool) -> String {
    let label = label_in_sentence(rule);
    if !offered {
        return format!("Declare the page's own URL canonical on {label}");
    }
    if temporary {
        return format!("Make the redirects of {label} permanent (301 instead of 302, 303 or 307)");
    }
    match rule {
        ProbeRule::TrackingParam | ProbeRule::SessionParam | ProbeRule::UnknownParam => {
            format!("Declare the URL without the parameter canonical on {label}")
        }
        _ => format!("Redirect {label} to the page's own URL with a 301"),
    }
}

/// The findings of the URL-variant rules (see the module docs).
pub(crate) fn findings(rules: &[VariantRule]) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in rules {
        let n = r.samples();
        for (id, verdict, temporary) in [
            (FindingId::VariantDuplicate, ProbeVerdict::Duplicate, false),
            (
                FindingId::VariantTemporary,
                ProbeVerdict::RedirectTemporary,
                true,
            ),
        ] {
            let hits: Vec<&VariantProbe> =
                r.probes.iter().filter(|p| p.verdict == verdict).collect();
            let Some(first) = hits.first() else { continue };
            let k = hits.len() as u32;
            let label = rule_label(r.rule);
            let summary = if temporary {
                format!(
                    "{label} redirect temporarily: {} 302, 303 or 307 on the way to the page.",
                    of_samples(k, n, "answer")
                )
            } else {
                format!(
                    "{label} serve duplicate pages: {} 200 without a canonical to the page.",
                    of_samples(k, n, "answer")
                )
            };
            let (_, authority, _) = origin_and_host(&first.base);
            let pages = pages_concerned(r.rule, &hits);
            let offered = [&r.nginx, &r.apache, &r.htaccess]
                .iter()
                .any(|t| server_rule_offered(t));
            let mut f = Finding::new(id, &[r.rule.as_str(), &authority], summary)
                .urls(hits.iter().flat_map(|p| [p.url.clone(), p.base.clone()]))
                .affects(pages)
                .evidence(format!(
                    "{} {} of the site: {}.",
                    if offered {
                        "One server rule concerns"
                    } else {
                        "The pattern concerns"
                    },
                    count_pages(pages),
                    if host_wide(r.rule) {
                        "every page of the host"
                    } else {
                        "the pages of the site sections whose samples answered so"
                    }
                ));
            for p in &hits {
                f = f.evidence(format!(
                    "{} answers {} (a variant of {})",
                    p.url, p.answer, p.base
                ));
            }
            f = f.fix(Fix::ServerRule {
                change: fix_action(r.rule, temporary, offered),
                example: [first.url.clone(), first.base.clone()],
                nginx: r.nginx.clone(),
                apache: r.apache.clone(),
                htaccess: r.htaccess.clone(),
            });
            out.push(f);
        }
    }
    out
}

/// The per-URL finding kinds that state the cause of a rule's duplicates.
fn same_cause(rule: ProbeRule) -> &'static [FindingId] {
    match rule {
        ProbeRule::HostWww | ProbeRule::IpHost => &[FindingId::DupHost],
        ProbeRule::Scheme => &[FindingId::DupScheme, FindingId::RedirectHttpNotHttps],
        ProbeRule::TrailingSlash | ProbeRule::DoubleSlash => &[FindingId::DupSlash],
        ProbeRule::IndexFile => &[FindingId::DupIndex],
        ProbeRule::PathCase => &[FindingId::DupCase],
        ProbeRule::TrackingParam
        | ProbeRule::SessionParam
        | ProbeRule::UnknownParam
        | ProbeRule::EmptyQuery => &[FindingId::DupParam],
    }
}

/// Whether any finding of the rule's kind states its cause (another host name or
/// scheme serving the site's pages is one cause, whichever pages show it); for the
/// other rules only a finding that names the rule's probes does (a trailing slash and a
/// doubled slash are two patterns of one kind).
fn host_wide(rule: ProbeRule) -> bool {
    matches!(
        rule,
        ProbeRule::HostWww | ProbeRule::Scheme | ProbeRule::IpHost
    )
}

/// Adds the findings of the URL-variant rules to `findings`, one finding per cause (see
/// the module docs): a per-URL finding that names nothing but probes of a rule with
/// that rule's verdict is left out, the rule's finding states the cause; where a
/// finding about URLs pages link to already states the cause of a rule's duplicates
/// (the same kind, or naming its probes among other URLs), the rule's finding is left
/// out instead and that finding says what the probes showed.
pub(crate) fn merge(rules: &[VariantRule], findings: &mut Vec<Finding>) {
    let own = self::findings(rules);
    if own.is_empty() {
        return;
    }
    // Probe URL -> (rule, verdict).
    let mut probe: FxHashMap<&str, (ProbeRule, ProbeVerdict)> = FxHashMap::default();
    // Only variants that are probes alone: a URL the crawl found otherwise is a URL of
    // the site, whose findings stand.
    let mut any_probe: FxHashMap<&str, ProbeRule> = FxHashMap::default();
    for r in rules {
        for p in &r.probes {
            any_probe.insert(p.url.as_str(), r.rule);
            if !p.known {
                probe.insert(p.url.as_str(), (r.rule, p.verdict));
            }
        }
    }
    let covers = |id: FindingId| -> Option<ProbeVerdict> {
        use FindingId::*;
        match id {
            DupHost | DupScheme | DupSlash | DupIndex | DupCase | DupParam | DupDust
            | DupContent | RedirectHttpNotHttps => Some(ProbeVerdict::Duplicate),
            RedirectTemporary => Some(ProbeVerdict::RedirectTemporary),
            _ => None,
        }
    };
    // Per finding of those kinds: the probe rules it names, and whether it names
    // nothing else.
    let mut pure = vec![false; findings.len()];
    let mut named_rules: Vec<Vec<ProbeRule>> = vec![Vec::new(); findings.len()];
    for (i, f) in findings.iter().enumerate() {
        let Some(verdict) = covers(f.id) else {
            continue;
        };
        let pattern = f.fixes.iter().find_map(|x| match x {
            Fix::ForPattern { urls, .. } => Some(*urls as usize),
            _ => None,
        });
        // The URLs the finding is about: a pattern's listed URLs, else its first.
        let named: Vec<&str> = match pattern {
            Some(_) => f.urls.iter().map(String::as_str).collect(),
            None => f.urls.first().map(String::as_str).into_iter().collect(),
        };
        let hits: Vec<&(ProbeRule, ProbeVerdict)> =
            named.iter().filter_map(|u| probe.get(u)).collect();
        // A pattern lists a few of its URLs: when they are all probes, it is all probes
        // if it counts no more URLs than there are probes with the verdict.
        let with_verdict = probe.values().filter(|p| p.1 == verdict).count();
        pure[i] = !hits.is_empty()
            && pattern.is_none_or(|n| n == named.len() || n <= with_verdict)
            && hits.len() == named.len()
            && hits.iter().all(|h| h.1 == verdict);
        named_rules[i] = named
            .iter()
            .filter_map(|u| any_probe.get(u).copied())
            .collect();
    }
    // The rules whose duplicates a finding about linked URLs already states.
    let mut covered: Vec<(ProbeRule, usize)> = Vec::new();
    for r in rules
        .iter()
        .filter(|r| r.count(ProbeVerdict::Duplicate) > 0)
    {
        let by = (0..findings.len()).find(|&i| {
            !pure[i]
                && same_cause(r.rule).contains(&findings[i].id)
                && (host_wide(r.rule) || named_rules[i].contains(&r.rule))
        });
        if let Some(i) = by {
            covered.push((r.rule, i));
        }
    }
    for &(rule, i) in &covered {
        let r = rules.iter().find(|r| r.rule == rule);
        if let Some(r) = r {
            findings[i].evidence.push(format!(
                "URL-variant probes: {} 200 with the page's content too, so the server \
                 serves every URL of this kind; url_variants.csv gives one server rule for \
                 them.",
                of_samples(r.count(ProbeVerdict::Duplicate), r.samples(), "answer")
            ));
        }
    }
    let covered_rules: Vec<ProbeRule> = covered.iter().map(|c| c.0).collect();
    // Pure findings go when their rules' own findings state the cause.
    let mut keep = pure.iter().map(|p| !p).collect::<Vec<bool>>();
    for (i, k) in keep.iter_mut().enumerate() {
        if !*k && named_rules[i].iter().any(|r| covered_rules.contains(r)) {
            *k = true;
        }
    }
    // Any other finding about a probe URL (a relative canonical the variant inherits
    // from its page, say) repeats the page's own finding: the probes are a sample,
    // reported by their rules.
    for (i, f) in findings.iter().enumerate() {
        if covers(f.id).is_none()
            && !matches!(
                f.id,
                FindingId::VariantDuplicate | FindingId::VariantTemporary
            )
            && f.urls
                .first()
                .is_some_and(|u| any_probe.contains_key(u.as_str()))
        {
            keep[i] = false;
        }
    }
    let mut at = 0;
    findings.retain(|_| {
        at += 1;
        keep[at - 1]
    });
    findings.extend(own.into_iter().filter(|f| {
        f.id != FindingId::VariantDuplicate
            || !covered_rules.iter().any(|r| {
                f.key
                    .starts_with(&format!("{} {} ", f.id.code(), r.as_str()))
            })
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::only;

    fn probe(verdict: ProbeVerdict) -> VariantProbe {
        VariantProbe {
            url: String::new(),
            base: String::new(),
            verdict,
            answer: String::new(),
            known: false,
            reach: 0,
        }
    }

    fn verdict(vs: &[ProbeVerdict]) -> Option<ProbeVerdict> {
        rule_verdict(&vs.iter().map(|&v| probe(v)).collect::<Vec<_>>())
    }

    #[test]
    fn a_rule_takes_the_median_verdict_by_severity() {
        use ProbeVerdict::*;
        assert_eq!(verdict(&[]), None);
        assert_eq!(verdict(&[Duplicate]), Some(Duplicate));
        assert_eq!(
            verdict(&[Duplicate, Duplicate, RedirectPermanent, RedirectPermanent]),
            Some(Duplicate),
            "half is enough"
        );
        assert_eq!(
            verdict(&[
                Duplicate,
                Duplicate,
                RedirectPermanent,
                RedirectPermanent,
                Gone
            ]),
            Some(Gone)
        );
        assert_eq!(
            verdict(&[Duplicate, RedirectTemporary, Gone, RedirectPermanent]),
            Some(RedirectTemporary),
            "two of four at temporary or worse"
        );
        assert_eq!(
            verdict(&[Error, NotFetched, Gone]),
            Some(Gone),
            "unanswered samples do not count"
        );
        assert_eq!(verdict(&[NotFetched, Error]), Some(Error));
        assert_eq!(verdict(&[NotFetched]), Some(NotFetched));
    }

    fn u(path: &str) -> String {
        format!("https://example.com{path}")
    }

    #[test]
    fn each_probe_gets_the_verdict_of_its_answer() {
        use crate::tests::B;
        use ProbeVerdict::*;
        let mut b = B::new();
        let page = u("/shop/red");
        b.page(&page, 7).page(&u("/other"), 8).start(&u("/"));
        let probes: [(&str, ProbeRule, Option<ProbeVerdict>); 9] = [
            ("/SHOP/RED", ProbeRule::PathCase, Some(Duplicate)),
            ("/shop//red", ProbeRule::DoubleSlash, Some(Canonical)),
            (
                "/shop/red/",
                ProbeRule::TrailingSlash,
                Some(RedirectPermanent),
            ),
            ("/shop/red?", ProbeRule::EmptyQuery, Some(RedirectTemporary)),
            (
                "/shop/red?utm_source=dustpan",
                ProbeRule::TrackingParam,
                Some(RedirectElsewhere),
            ),
            (
                "/shop/red?dustpan_probe=1",
                ProbeRule::UnknownParam,
                Some(Different),
            ),
            ("/shop/red/index.html", ProbeRule::IndexFile, Some(Gone)),
            (
                "/shop/red?sessionid=1",
                ProbeRule::SessionParam,
                Some(Error),
            ),
            ("/Shop/red", ProbeRule::PathCase, None),
        ];
        b.page(&u("/SHOP/RED"), 7)
            .page(&u("/shop//red"), 7)
            .canonical(&u("/shop//red"), &page)
            .redirect(&u("/shop/red/"), &page, 301)
            .redirect(&u("/shop/red?"), &page, 302)
            .redirect(&u("/shop/red?utm_source=dustpan"), &u("/other"), 301)
            .page(&u("/shop/red?dustpan_probe=1"), 9)
            .status(&u("/shop/red/index.html"), 404)
            .status(&u("/shop/red?sessionid=1"), 503)
            .skipped(&u("/Shop/red"), "robots_txt");
        for (path, rule, _) in &probes {
            b.probe(&u(path), &page, *rule);
        }
        let a = b.analyse();
        for (path, rule, want) in probes {
            let r = a.url_variants.iter().find(|r| r.rule == rule).unwrap();
            let p = r.probes.iter().find(|p| p.url == u(path)).unwrap();
            assert_eq!(Some(p.verdict), want.or(Some(NotFetched)), "{path}: {p:?}");
        }
        assert_eq!(a.url_variants.len(), ProbeRule::ALL.len());
        let case = a
            .url_variants
            .iter()
            .find(|r| r.rule == ProbeRule::PathCase)
            .unwrap();
        assert_eq!(
            case.verdict,
            Some(Duplicate),
            "one answered sample, a duplicate"
        );
        assert!(case.apache.contains("RewriteMap lc int:tolower"));
        let host = a
            .url_variants
            .iter()
            .find(|r| r.rule == ProbeRule::HostWww)
            .unwrap();
        assert_eq!((host.samples(), host.verdict), (0, None));

        // One finding per rule, and the per-URL finding of the same probe left out.
        let dup: Vec<&Finding> = a.findings_with(FindingId::VariantDuplicate).collect();
        assert_eq!(dup.len(), 1, "{:#?}", a.findings);
        assert_eq!(
            dup[0].summary,
            "Upper-case URLs serve duplicate pages: 1 of 2 samples answers 200 without a \
             canonical to the page."
        );
        assert!(
            a.findings_with(FindingId::DupCase).next().is_none(),
            "{:#?}",
            a.findings
        );
        assert_eq!(a.findings_with(FindingId::VariantTemporary).count(), 1);
        assert!(
            a.findings_with(FindingId::RedirectTemporary)
                .next()
                .is_none()
        );
        assert!(
            a.findings
                .iter()
                .all(|f| !f.urls.contains(&u("/shop//red")) || f.id == FindingId::CanonLinked)
        );
    }

    #[test]
    fn a_cause_findings_about_linked_urls_state_is_not_stated_twice() {
        use crate::tests::B;
        let mut b = B::new();
        let (home, page) = (u("/"), u("/a"));
        let (www_home, www_page) = ("https://www.example.com/", "https://www.example.com/a");
        b.page(&home, 1)
            .start(&home)
            .page(&page, 2)
            .link(&home, &page);
        // www serves every page; a page links one www URL, a probe found the other.
        b.page(www_home, 1).link(&page, www_home);
        b.page(www_page, 2)
            .probe(www_page, &page, ProbeRule::HostWww);
        let a = b.analyse();
        assert_eq!(
            a.findings_with(FindingId::VariantDuplicate).count(),
            0,
            "{:#?}",
            a.findings
        );
        assert!(
            a.findings_with(FindingId::DupHost).any(|f| f
                .evidence
                .iter()
                .any(|e| e.starts_with("URL-variant probes: 1 of 1 sample answers"))),
            "{:#?}",
            a.findings
        );
        let rule = a
            .url_variants
            .iter()
            .find(|r| r.rule == ProbeRule::HostWww)
            .unwrap();
        assert_eq!(rule.verdict, Some(ProbeVerdict::Duplicate));
    }

    #[test]
    fn made_up_urls_are_evidence_about_a_rule_never_the_site_s_problems() {
        use crate::export::{Cell, Table, table_data};
        use crate::tests::B;
        let mut b = B::new();
        let home = u("/");
        b.page(&home, 1).start(&home);
        // Twelve shop pages and three news pages, each linked from the home page.
        for i in 0..12 {
            b.page(&u(&format!("/shop/p{i}")), 100 + i)
                .link(&home, &u(&format!("/shop/p{i}")));
        }
        for i in 0..3 {
            b.page(&u(&format!("/news/n{i}")), 200 + i)
                .link(&home, &u(&format!("/news/n{i}")));
        }
        // The site's own duplicate: a linked URL with an empty query.
        let real = u("/shop/p4?");
        b.page(&real, 104).link(&home, &real);
        // Two empty-query probes serve their pages; their pages link a redirect the
        // site's own pages never link.
        let old = u("/old");
        b.redirect(&old, &u("/shop/p3"), 301);
        for i in [1, 2] {
            let probe = u(&format!("/shop/p{i}?"));
            b.page(&probe, 100 + i)
                .probe(&probe, &u(&format!("/shop/p{i}")), ProbeRule::EmptyQuery)
                .link(&probe, &old);
        }
        // A probe whose redirect leads to a URL nothing else names, which answers 404.
        let upper = u("/SHOP/P5");
        let gone = u("/shop/p5-old");
        b.redirect(&upper, &gone, 301).status(&gone, 404).probe(
            &upper,
            &u("/shop/p5"),
            ProbeRule::PathCase,
        );
        let upper_id = b.id(&upper);
        let gone_id = b.id(&gone);
        b.input.urls[gone_id as usize - 1].found_from = Some(upper_id);
        b.input.urls[gone_id as usize - 1].found_via = crate::input::FoundVia::Redirect;

        let made_up = b.input.made_up_urls();
        let mut named: Vec<&str> = made_up
            .iter()
            .map(|&id| b.input.urls[id as usize - 1].url.as_str())
            .collect();
        named.sort_unstable();
        assert_eq!(
            named,
            [
                u("/SHOP/P5"),
                u("/shop/p1?"),
                u("/shop/p2?"),
                u("/shop/p5-old")
            ]
        );

        let a = b.analyse();
        for f in &a.findings {
            let variant = matches!(
                f.id,
                FindingId::VariantDuplicate | FindingId::VariantTemporary
            );
            assert!(
                variant || !f.urls.iter().any(|x| named.contains(&x.as_str())),
                "{f:#?}"
            );
        }
        // The site's own duplicate stands alone; the probes are one rule's finding,
        // concerning the twelve pages of the shop section.
        let dup = only(&a, FindingId::DupParam);
        assert_eq!(dup.urls, [real.clone(), u("/shop/p4")], "{dup:#?}");
        let rule = only(&a, FindingId::VariantDuplicate);
        assert!(rule.key.contains("empty_query"), "{rule:#?}");
        assert_eq!(rule.affects, Some(12), "{rule:#?}");
        assert_eq!(rule.concerns(), 12);
        assert!(
            a.findings_with(FindingId::LinkToRedirect).next().is_none(),
            "only a probe's page links {old}: {:#?}",
            a.findings
        );
        // No link of a made-up page in the links export or the inlink counts.
        let links = table_data(Table::LinksToNonPreferred, &b.input, &a);
        assert!(
            links
                .rows
                .iter()
                .all(|r| !named.iter().any(|m| r[0] == Cell::Text((*m).into()))),
            "{:#?}",
            links.rows
        );
        let pages = table_data(Table::Pages, &b.input, &a);
        let inlinks = pages
            .headers
            .iter()
            .position(|h| h.title == "Inlinks")
            .unwrap();
        let row = pages
            .rows
            .iter()
            .find(|r| r[0] == Cell::Text(old.as_str().into()))
            .unwrap();
        assert!(
            matches!(row[inlinks], Cell::Empty | Cell::Int(0)),
            "{:?}",
            row[inlinks]
        );
    }

    #[test]
    fn an_audit_without_probes_has_no_variant_table() {
        let mut b = crate::tests::B::new();
        b.page(&u("/"), 1);
        assert!(b.analyse().url_variants.is_empty());
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(of_samples(1, 1, "answer"), "1 of 1 sample answers");
        assert_eq!(of_samples(1, 5, "answer"), "1 of 5 samples answers");
        assert_eq!(of_samples(5, 5, "answer"), "5 of 5 samples answer");
    }

    #[test]
    fn server_rules_name_the_site() {
        let p = [VariantProbe {
            url: "https://www.example.test/a".into(),
            base: "https://example.test/a".into(),
            verdict: ProbeVerdict::Duplicate,
            answer: String::new(),
            known: false,
            reach: 0,
        }];
        let r = server::server_rules(ProbeRule::HostWww, "https://example.test/a", &p, &[]);
        assert!(
            r.nginx
                .contains(r#"if ($http_host ~* "^www\.example\.test(:[0-9]+)?$")"#),
            "{}",
            r.nginx
        );
        assert!(
            r.nginx
                .contains("return 301 $scheme://example.test$1$request_uri;"),
            "{}",
            r.nginx
        );
        assert!(
            r.apache.contains(r"^www\.example\.test(:[0-9]+)?$"),
            "{}",
            r.apache
        );
        let r = server::server_rules(ProbeRule::HostWww, "http://www.example.test:8080/", &p, &[]);
        assert!(
            r.nginx.contains("://www.example.test$1$request_uri"),
            "{}",
            r.nginx
        );
        let r = server::server_rules(ProbeRule::TrailingSlash, "https://example.test/a", &p, &[]);
        assert!(
            r.apache.contains("RewriteRule ^ %1 [R=301,L,NE]"),
            "{}",
            r.apache
        );
        assert_eq!(path_of("https://example.test/a/?x=1"), "/a/");
        assert_eq!(path_of("https://example.test"), "/");
    }
}
