//! Verification after deployment: each planned redirect, canonical and sitemap line
//! judged on what the live site answers, as a list audit of the plan's URLs recorded it.
//!
//! [`plan_requests`] says which URLs and sitemaps to request (those of the audit's own
//! origins only); [`judge`] compares the answers with the plan, one [`Check`] per line:
//! [`Verdict::Done`], [`Verdict::Missing`] (the site answers as before the fix),
//! [`Verdict::Wrong`] (another target or status, a chain, another canonical) or
//! [`Verdict::Harmful`] (the URL now answers an error).

use crate::fixes::FixFiles;
use crate::input::{AuditInput, FetchRow, ReasonKind, UrlId, UrlState};
use crate::urlparts::split;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

/// What one planned line is on the live site.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Deployed as planned.
    Done,
    /// Not deployed: the site answers as it did.
    Missing,
    /// Deployed otherwise: another target or status, a chain, another canonical.
    Wrong,
    /// The URL now answers an error (or a redirect ends at one).
    Harmful,
    /// Not requested: outside the audit's origins, or not answered by the verification.
    NotChecked,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Done,
        Verdict::Missing,
        Verdict::Wrong,
        Verdict::Harmful,
        Verdict::NotChecked,
    ];

    /// `done`, `missing`, `wrong`, `harmful`, `not_checked`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Done => "done",
            Verdict::Missing => "missing",
            Verdict::Wrong => "wrong",
            Verdict::Harmful => "harmful",
            Verdict::NotChecked => "not_checked",
        }
    }
}

/// Which kind of planned line.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// A redirect of the map.
    Redirect,
    /// A canonical to set.
    Canonical,
    /// A sitemap entry to add.
    SitemapAdd,
    /// A sitemap entry to remove.
    SitemapRemove,
    /// A sitemap entry to replace.
    SitemapReplace,
}

impl CheckKind {
    /// `redirect`, `canonical`, `sitemap_add`, `sitemap_remove`, `sitemap_replace`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Redirect => "redirect",
            CheckKind::Canonical => "canonical",
            CheckKind::SitemapAdd => "sitemap_add",
            CheckKind::SitemapRemove => "sitemap_remove",
            CheckKind::SitemapReplace => "sitemap_replace",
        }
    }
}

/// One planned line and what the live site does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    /// The kind of line.
    pub kind: CheckKind,
    /// The redirect's source, the page, or the sitemap entry.
    pub url: String,
    /// What the plan says: the redirect's status and target, the canonical, the
    /// sitemap and what to list.
    pub planned: String,
    /// The verdict.
    pub verdict: Verdict,
    /// What the site answers, in words.
    pub found: String,
}

/// What to request to verify a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Redirect sources and canonical pages, distinct, in plan order.
    pub urls: Vec<String>,
    /// The sitemaps the plan changes.
    pub sitemaps: Vec<String>,
    /// Lines left out: their URL is not on one of the audit's origins.
    pub outside: u32,
}

/// `scheme://host:port` of a URL, lower case, with the scheme's default port.
fn origin(url: &str) -> Option<String> {
    let p = split(url);
    let scheme = p.scheme.to_ascii_lowercase();
    let port = match p.port.strip_prefix(':').unwrap_or(p.port) {
        "" if scheme == "https" => "443",
        "" if scheme == "http" => "80",
        "" => return None,
        port => port,
    };
    if p.host.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{}:{port}", p.host.to_ascii_lowercase()))
}

/// The origins an audit requested pages on (not those it only saw, out of its scope).
pub fn audited_origins(input: &AuditInput) -> FxHashSet<String> {
    let fetched: FxHashSet<UrlId> = input.fetches.iter().map(|f| f.url_id).collect();
    input
        .urls
        .iter()
        .filter(|u| fetched.contains(&u.id))
        .filter(|u| {
            !(u.state == UrlState::Skipped
                && u.reason.as_ref().map(|r| r.kind) == Some(ReasonKind::OutOfScope))
        })
        .filter_map(|u| origin(u.found_url()))
        .collect()
}

/// The URLs and sitemaps to request to verify `plan`, on `origins` only (see
/// [`audited_origins`]).
pub fn plan_requests(plan: &FixFiles, origins: &FxHashSet<String>) -> Requests {
    let mut out = Requests::default();
    let mut seen = FxHashSet::default();
    let ours = |u: &str| origin(u).is_some_and(|o| origins.contains(&o));
    let urls = plan
        .redirects
        .iter()
        .map(|r| r.source.as_str())
        .chain(plan.canonicals.iter().map(|c| c.page.as_str()));
    for u in urls {
        if !ours(u) {
            out.outside += 1;
        } else if seen.insert(u) {
            out.urls.push(u.to_owned());
        }
    }
    let mut seen = FxHashSet::default();
    for s in plan.sitemap_add.iter().chain(&plan.sitemap_remove) {
        if !ours(&s.sitemap) {
            out.outside += 1;
        } else if seen.insert(s.sitemap.as_str()) {
            out.sitemaps.push(s.sitemap.clone());
        }
    }
    out
}

/// The live answers, by URL.
struct Live<'a> {
    input: &'a AuditInput,
    ids: FxHashMap<&'a str, UrlId>,
    url: FxHashMap<UrlId, &'a str>,
    fetch: FxHashMap<UrlId, &'a FetchRow>,
    hop: FxHashMap<UrlId, (Option<UrlId>, u16)>,
}

impl<'a> Live<'a> {
    fn new(input: &'a AuditInput) -> Live<'a> {
        let mut ids = FxHashMap::default();
        let mut url = FxHashMap::default();
        for u in &input.urls {
            ids.insert(u.found_url(), u.id);
            if !u.url_rfc3986.is_empty() {
                ids.insert(u.url_rfc3986.as_str(), u.id);
            }
            url.insert(u.id, u.found_url());
        }
        let mut hop = FxHashMap::default();
        for r in &input.redirects {
            hop.entry(r.from).or_insert((r.to, r.status));
        }
        Live {
            input,
            ids,
            url,
            fetch: input.fetches.iter().map(|f| (f.url_id, f)).collect(),
            hop,
        }
    }

    fn id(&self, url: &str) -> Option<UrlId> {
        self.ids.get(url).copied()
    }

    fn url(&self, id: UrlId) -> &'a str {
        self.url.get(&id).copied().unwrap_or("")
    }

    /// `answers 404`, `no response (timeout)`, `not requested`.
    fn answer(&self, id: UrlId) -> String {
        match self.fetch.get(&id) {
            Some(f) => match (f.status, &f.error_kind) {
                (Some(s), _) => format!("answers {s}"),
                (None, Some(e)) => format!("no response ({e})"),
                (None, None) => "no response".to_owned(),
            },
            None => "not requested".to_owned(),
        }
    }

    fn error(&self, id: UrlId) -> Option<bool> {
        let f = self.fetch.get(&id)?;
        Some(f.status.is_none_or(|s| s >= 400))
    }

    /// The chain from `id`: each hop's target and status, until a URL that does not
    /// redirect, a loop or an unresolved Location (`None` target).
    fn chain(&self, id: UrlId) -> Vec<(Option<UrlId>, u16)> {
        let mut out = Vec::new();
        let mut at = id;
        let mut seen = FxHashSet::default();
        seen.insert(id);
        while let Some(&(to, status)) = self.hop.get(&at) {
            out.push((to, status));
            match to {
                Some(t) if seen.insert(t) && out.len() < 32 => at = t,
                _ => break,
            }
        }
        out
    }
}

/// Why a line has no answer to judge.
const NOT_REQUESTED: &str = "not requested: outside the audit's origins, or refused by its scope";

/// Whether the site's status stands for the planned one (a 308 for a 301, as
/// [`RedirectLine::state`](crate::RedirectLine::state) counts it).
fn same_status(planned: u16, found: u16) -> bool {
    planned == found || (planned == 301 && found == 308)
}

/// Judges each line of `plan` on `live`, the list audit of [`plan_requests`].
pub fn judge(plan: &FixFiles, live: &AuditInput) -> Vec<Check> {
    let live = Live::new(live);
    let mut out = Vec::new();
    for r in &plan.redirects {
        let planned = format!("{} to {}", r.status, r.target);
        let (verdict, found) = judge_redirect(&live, &r.source, &r.target, r.status);
        out.push(Check {
            kind: CheckKind::Redirect,
            url: r.source.clone(),
            planned,
            verdict,
            found,
        });
    }
    for c in &plan.canonicals {
        let (verdict, found) = judge_canonical(&live, &c.page, &c.href);
        out.push(Check {
            kind: CheckKind::Canonical,
            url: c.page.clone(),
            planned: c.href.clone(),
            verdict,
            found,
        });
    }
    let sitemaps: FxHashMap<&str, &crate::input::SitemapRow> = live
        .input
        .sitemaps
        .iter()
        .map(|s| (s.url.as_str(), s))
        .collect();
    let mut listed: FxHashMap<u32, FxHashSet<&str>> = FxHashMap::default();
    for e in &live.input.sitemap_entries {
        let loc = match e.url_id {
            Some(id) => live.url(id),
            None => e.loc_raw.as_str(),
        };
        let set = listed.entry(e.sitemap_id).or_default();
        set.insert(loc);
        if let Some(id) = e.url_id
            && let Some(u) = live.input.urls.iter().find(|u| u.id == id)
            && !u.url_rfc3986.is_empty()
        {
            set.insert(u.url_rfc3986.as_str());
        }
    }
    let empty = FxHashSet::default();
    let adds = plan.sitemap_add.iter().map(|s| (s, true));
    for (s, add) in adds.chain(plan.sitemap_remove.iter().map(|s| (s, false))) {
        let kind = match (add, &s.with) {
            (true, _) => CheckKind::SitemapAdd,
            (false, None) => CheckKind::SitemapRemove,
            (false, Some(_)) => CheckKind::SitemapReplace,
        };
        let planned = match (&s.with, add) {
            (_, true) => format!("listed in {}", s.sitemap),
            (None, false) => format!("not listed in {}", s.sitemap),
            (Some(w), false) => format!("{w} listed instead in {}", s.sitemap),
        };
        let (verdict, found) = match sitemaps.get(s.sitemap.as_str()) {
            None => (Verdict::NotChecked, "the sitemap was not read".to_owned()),
            Some(row) if row.error.is_some() || row.status.is_none_or(|st| st >= 400) => (
                Verdict::Harmful,
                format!(
                    "the sitemap {}",
                    match (row.status, &row.error) {
                        (Some(st), _) if st >= 400 => format!("answers {st}"),
                        (_, Some(e)) => format!("cannot be read: {e}"),
                        _ => "cannot be read".to_owned(),
                    }
                ),
            ),
            Some(row) => {
                let set = listed.get(&row.id).unwrap_or(&empty);
                let has_loc = set.contains(s.loc.as_str());
                match (add, &s.with) {
                    (true, _) if has_loc => (Verdict::Done, "listed".to_owned()),
                    (true, _) => (Verdict::Missing, "not listed".to_owned()),
                    (false, _) if has_loc => (Verdict::Missing, "still listed".to_owned()),
                    (false, None) => (Verdict::Done, "not listed".to_owned()),
                    (false, Some(w)) if set.contains(w.as_str()) => {
                        (Verdict::Done, format!("{w} listed instead"))
                    }
                    (false, Some(w)) => (
                        Verdict::Wrong,
                        format!("removed, but {w} is not listed instead"),
                    ),
                }
            }
        };
        out.push(Check {
            kind,
            url: s.loc.clone(),
            planned,
            verdict,
            found,
        });
    }
    out
}

fn judge_redirect(live: &Live<'_>, source: &str, target: &str, status: u16) -> (Verdict, String) {
    let Some(id) = live.id(source) else {
        return (Verdict::NotChecked, NOT_REQUESTED.to_owned());
    };
    let Some(error) = live.error(id) else {
        return (Verdict::NotChecked, live.answer(id));
    };
    let chain = live.chain(id);
    let Some(&(first, first_status)) = chain.first() else {
        return if error {
            (Verdict::Harmful, live.answer(id))
        } else {
            (
                Verdict::Missing,
                format!("{}, no redirect", live.answer(id)),
            )
        };
    };
    let words = chain
        .iter()
        .map(|(to, s)| {
            format!(
                "{s} to {}",
                to.map_or("(no valid Location)", |t| live.url(t))
            )
        })
        .collect::<Vec<_>>()
        .join(", then ");
    let last = chain.last().and_then(|(to, _)| *to);
    let ends_in_error = match last {
        None => true,
        Some(t) => live.error(t) == Some(true),
    };
    if ends_in_error {
        let end = last.map_or(String::new(), |t| format!(", which {}", live.answer(t)));
        return (Verdict::Harmful, format!("{words}{end}"));
    }
    let hits = first.is_some_and(|t| live.url(t) == target || live.id(target) == Some(t));
    if hits && same_status(status, first_status) && chain.len() == 1 {
        (Verdict::Done, words)
    } else {
        (Verdict::Wrong, words)
    }
}

fn judge_canonical(live: &Live<'_>, page: &str, href: &str) -> (Verdict, String) {
    let Some(id) = live.id(page) else {
        return (Verdict::NotChecked, NOT_REQUESTED.to_owned());
    };
    match live.error(id) {
        None => return (Verdict::NotChecked, live.answer(id)),
        Some(true) => return (Verdict::Harmful, live.answer(id)),
        Some(false) => {}
    }
    if let Some(&(to, s)) = live.hop.get(&id) {
        let to = to.map_or("(no valid Location)", |t| live.url(t));
        return (Verdict::Wrong, format!("redirects ({s} to {to})"));
    }
    let declared: Vec<&str> = live
        .input
        .canonicals
        .iter()
        .filter(|c| c.page == id)
        .map(|c| match c.target {
            Some(t) => live.url(t),
            None => c.href_raw.as_str(),
        })
        .collect();
    if declared.is_empty() {
        return (Verdict::Missing, "no canonical".to_owned());
    }
    let target = live.id(href);
    let right = |d: &&str| *d == href || (target.is_some() && live.id(d) == target);
    if declared.iter().all(right) {
        (Verdict::Done, format!("canonical {href}"))
    } else {
        (Verdict::Wrong, format!("canonical {}", declared.join(", ")))
    }
}
