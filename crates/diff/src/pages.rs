//! URL-level changes: URLs added to and removed from the crawl, status codes and redirect
//! targets, canonical declarations, sitemap entries.

use crate::rules::{CrawlRules, configured_out, patterns_out};
use crate::urls::{Response, Urls, identity};
use audit::{AuditInput, DeclarationSource};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

/// Whether something appeared or disappeared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Presence {
    /// Only in the newer audit.
    Added,
    /// Only in the older audit.
    Removed,
}

impl Presence {
    /// `added` or `removed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Presence::Added => "added",
            Presence::Removed => "removed",
        }
    }
}

/// A URL only one of the two audits saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlChange {
    /// Added or removed.
    pub change: Presence,
    /// The URL (rfc3986 form).
    pub url: String,
    /// What the audit that saw it got back (`200`, `301`, `blocked by robots.txt`, ...).
    pub status: String,
}

/// A URL whose status code or redirect target changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseChange {
    /// The URL.
    pub url: String,
    /// Status before (`200`, `no response (timeout)`, `not fetched (skipped)`, ...).
    pub old_status: String,
    /// Status now.
    pub new_status: String,
    /// Where it redirected before.
    pub old_target: Option<String>,
    /// Where it redirects now.
    pub new_target: Option<String>,
}

/// A URL one audit did not fetch, or never met, because of its own configuration (its
/// patterns, nofollow, its limits): not compared, whatever the other audit got.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotCompared {
    /// The URL.
    pub url: String,
    /// What the older audit has for it (empty when it never met the URL).
    pub old_status: String,
    /// What the newer audit has for it (empty when it never met the URL).
    pub new_status: String,
    /// Why, in words: `outside the older audit's crawl rules: excluded by pattern `shoes``.
    pub why: String,
}

/// A page whose canonical declarations changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalChange {
    /// The declaring page.
    pub url: String,
    /// Its declarations before, sorted (`URL`, `URL (HTTP header)`, `URL (in <body>)`).
    pub old: Vec<String>,
    /// Its declarations now.
    pub new: Vec<String>,
}

/// A sitemap entry only one of the two audits read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SitemapEntryChange {
    /// Added or removed.
    pub change: Presence,
    /// The sitemap's URL.
    pub sitemap: String,
    /// The listed URL (rfc3986 form; the `<loc>` as written when it did not resolve).
    pub url: String,
}

/// URLs only one audit saw, sorted by URL; a URL the other audit's patterns keep out
/// goes to `not_compared` instead.
pub(crate) fn url_changes(
    old: &Urls<'_>,
    new: &Urls<'_>,
    rules: [&CrawlRules; 2],
    not_compared: &mut Vec<NotCompared>,
) -> Vec<UrlChange> {
    let mut out = Vec::new();
    for (side, other, change, other_rules, which) in [
        (old, new, Presence::Removed, rules[1], "newer"),
        (new, old, Presence::Added, rules[0], "older"),
    ] {
        for (i, row) in side.rows.iter().enumerate() {
            let url = identity(row);
            if !other.by_identity.contains_key(url)
                && side.by_identity.get(url) == Some(&(i as u32))
            {
                let status = side.response(i).status_text();
                if let Some(why) = patterns_out(url, other_rules, which) {
                    let (old_status, new_status) = match change {
                        Presence::Removed => (status, String::new()),
                        Presence::Added => (String::new(), status),
                    };
                    not_compared.push(NotCompared {
                        url: url.to_owned(),
                        old_status,
                        new_status,
                        why,
                    });
                    continue;
                }
                out.push(UrlChange {
                    change,
                    url: url.to_owned(),
                    status,
                });
            }
        }
    }
    out.sort_by(|a, b| a.url.cmp(&b.url).then(a.change.cmp(&b.change)));
    out
}

/// URLs in both audits, as (old row, new row), in the older audit's order.
fn common<'s>(old: &'s Urls<'_>, new: &'s Urls<'_>) -> impl Iterator<Item = (usize, usize)> + 's {
    old.rows.iter().enumerate().filter_map(|(i, row)| {
        let url = identity(row);
        (old.by_identity.get(url) == Some(&(i as u32)))
            .then(|| new.by_identity.get(url).map(|&j| (i, j as usize)))
            .flatten()
    })
}

/// URLs whose status or redirect target changed, sorted by URL; a URL either audit left
/// unfetched by its own configuration ([`configured_out`]) goes to `not_compared`
/// instead, whatever the other audit got.
pub(crate) fn response_changes(
    old: &Urls<'_>,
    new: &Urls<'_>,
    rules: [&CrawlRules; 2],
    not_compared: &mut Vec<NotCompared>,
) -> Vec<ResponseChange> {
    let mut out: Vec<ResponseChange> = common(old, new)
        .filter_map(|(i, j)| {
            let (a, b): (Response<'_>, Response<'_>) = (old.response(i), new.response(j));
            if a == b {
                return None;
            }
            let url = identity(&old.rows[i]);
            let why = (!a.fetched())
                .then(|| configured_out(&old.rows[i], rules[0], "older"))
                .flatten()
                .or_else(|| {
                    (!b.fetched())
                        .then(|| configured_out(&new.rows[j], rules[1], "newer"))
                        .flatten()
                });
            if let Some(why) = why {
                not_compared.push(NotCompared {
                    url: url.to_owned(),
                    old_status: a.status_text(),
                    new_status: b.status_text(),
                    why,
                });
                return None;
            }
            Some(ResponseChange {
                url: url.to_owned(),
                old_status: a.status_text(),
                new_status: b.status_text(),
                old_target: a.target().map(str::to_owned),
                new_target: b.target().map(str::to_owned),
            })
        })
        .collect();
    out.sort_by(|a, b| a.url.cmp(&b.url));
    out
}

/// Each page's canonical declarations, as sorted text, by row index.
fn declarations(input: &AuditInput, urls: &Urls<'_>) -> FxHashMap<usize, Vec<String>> {
    let mut map: FxHashMap<usize, Vec<String>> = FxHashMap::default();
    for c in &input.canonicals {
        let Some(row) = urls.row_of(c.page) else {
            continue;
        };
        let mut text = match c.target.and_then(|t| urls.url(t)) {
            Some(u) => u.to_owned(),
            None => format!("{} (unresolved)", c.href_raw),
        };
        if c.source == DeclarationSource::HttpHeader {
            text.push_str(" (HTTP header)");
        } else if !c.in_head {
            text.push_str(" (in <body>)");
        }
        map.entry(row).or_default().push(text);
    }
    for v in map.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    map
}

/// Pages fetched in both audits whose canonical declarations changed, sorted by URL.
pub(crate) fn canonical_changes(
    old_input: &AuditInput,
    old: &Urls<'_>,
    new_input: &AuditInput,
    new: &Urls<'_>,
) -> Vec<CanonicalChange> {
    let (a, b) = (declarations(old_input, old), declarations(new_input, new));
    let none: Vec<String> = Vec::new();
    let mut out: Vec<CanonicalChange> = common(old, new)
        .filter(|&(i, j)| old.response(i).fetched() && new.response(j).fetched())
        .filter_map(|(i, j)| {
            let (x, y) = (a.get(&i).unwrap_or(&none), b.get(&j).unwrap_or(&none));
            (x != y).then(|| CanonicalChange {
                url: identity(&old.rows[i]).to_owned(),
                old: x.clone(),
                new: y.clone(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.url.cmp(&b.url));
    out
}

/// The (sitemap URL, entry URL) pairs of one audit.
fn entries<'a>(input: &'a AuditInput, urls: &Urls<'a>) -> FxHashSet<(&'a str, &'a str)> {
    let sitemap_url: FxHashMap<u32, &str> = input
        .sitemaps
        .iter()
        .map(|s| (s.id, s.url.as_str()))
        .collect();
    input
        .sitemap_entries
        .iter()
        .filter_map(|e| {
            let sitemap = *sitemap_url.get(&e.sitemap_id)?;
            let url = e
                .url_id
                .and_then(|id| urls.url(id))
                .unwrap_or_else(|| e.loc_raw.trim());
            Some((sitemap, url))
        })
        .collect()
}

/// Sitemap entries only one audit read, sorted by URL then sitemap.
pub(crate) fn sitemap_changes<'a>(
    old_input: &'a AuditInput,
    old: &Urls<'a>,
    new_input: &'a AuditInput,
    new: &Urls<'a>,
) -> Vec<SitemapEntryChange> {
    let (a, b) = (entries(old_input, old), entries(new_input, new));
    let mut out: Vec<SitemapEntryChange> = a
        .difference(&b)
        .map(|&(s, u)| (Presence::Removed, s, u))
        .chain(b.difference(&a).map(|&(s, u)| (Presence::Added, s, u)))
        .map(|(change, sitemap, url)| SitemapEntryChange {
            change,
            sitemap: sitemap.to_owned(),
            url: url.to_owned(),
        })
        .collect();
    out.sort_by(|a, b| (&a.url, &a.sitemap, a.change).cmp(&(&b.url, &b.sitemap, b.change)));
    out
}
