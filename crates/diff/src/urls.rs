//! One audit's URLs by identity: the canon rfc3986 form, which does not depend on row ids
//! or on the order the crawl found them in.

use crate::traps::Traps;
use audit::{AuditInput, FetchRow, UrlId, UrlRow, UrlState};
use rustc_hash::FxHashMap;

const NONE: u32 = u32::MAX;

/// What one audit got back for a URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Response<'a> {
    /// Never fetched: blocked, skipped, queued.
    NotFetched(UrlState),
    /// A response with this status; `to` is the hop target (redirect or meta refresh).
    Answered { status: u16, to: Option<&'a str> },
    /// Fetched, but no usable response arrived.
    Unanswered { error: Option<&'a str> },
}

impl Response<'_> {
    /// The status cell of a table: `200`, `no response (timeout)`, `blocked by robots.txt`.
    pub(crate) fn status_text(&self) -> String {
        match self {
            Response::Answered { status, .. } => status.to_string(),
            Response::Unanswered { error: Some(e) } => format!("no response ({e})"),
            Response::Unanswered { error: None } => "no response".to_owned(),
            Response::NotFetched(state) => state_text(*state).to_owned(),
        }
    }

    /// The hop target, if any.
    pub(crate) fn target(&self) -> Option<&str> {
        match self {
            Response::Answered { to, .. } => *to,
            _ => None,
        }
    }

    /// A fetch row exists (so the page's canonicals were read).
    pub(crate) fn fetched(&self) -> bool {
        !matches!(self, Response::NotFetched(_))
    }
}

fn state_text(state: UrlState) -> &'static str {
    match state {
        UrlState::Queued => "not fetched (queued)",
        UrlState::Fetching => "not fetched (interrupted)",
        UrlState::Done => "not fetched",
        UrlState::Blocked => "blocked by robots.txt",
        UrlState::Failed => "failed",
        UrlState::Skipped => "not fetched (skipped)",
    }
}

/// A URL's identity: its rfc3986 form, or the URL as found when the form is missing.
pub(crate) fn identity(row: &UrlRow) -> &str {
    if row.url_rfc3986.is_empty() {
        &row.url
    } else {
        &row.url_rfc3986
    }
}

/// The URLs of one audit, looked up by id and by identity.
pub(crate) struct Urls<'a> {
    pub rows: &'a [UrlRow],
    /// Row index per URL id (`NONE` when absent).
    by_id: Vec<u32>,
    /// Fetch index per row (`NONE` when not fetched).
    fetch_of: Vec<u32>,
    fetches: &'a [FetchRow],
    /// Row index per identity, crawler-trap URLs left out.
    pub by_identity: FxHashMap<&'a str, u32>,
}

impl<'a> Urls<'a> {
    pub(crate) fn new(input: &'a AuditInput, traps: &Traps) -> Urls<'a> {
        let max = input.urls.iter().map(|u| u.id).max().unwrap_or(0) as usize;
        let mut by_id = vec![NONE; max + 1];
        let mut by_identity =
            FxHashMap::with_capacity_and_hasher(input.urls.len(), Default::default());
        // URL-variant probes found by nothing else are left out: which pages they sample
        // follows the site's largest sections, not a change of the site.
        let probes: rustc_hash::FxHashSet<UrlId> = input.probes.iter().map(|p| p.url).collect();
        let probe = |u: &UrlRow| {
            u.found_via == audit::FoundVia::Variant && u.depth > 0 && probes.contains(&u.id)
        };
        for (i, u) in input.urls.iter().enumerate() {
            by_id[u.id as usize] = i as u32;
            if !traps.contains(identity(u), u.reason.as_ref()) && !probe(u) {
                by_identity.entry(identity(u)).or_insert(i as u32);
            }
        }
        let mut fetch_of = vec![NONE; input.urls.len()];
        for (f, fetch) in input.fetches.iter().enumerate() {
            if let Some(&row) = by_id.get(fetch.url_id as usize)
                && row != NONE
            {
                fetch_of[row as usize] = f as u32;
            }
        }
        Urls {
            rows: &input.urls,
            by_id,
            fetch_of,
            fetches: &input.fetches,
            by_identity,
        }
    }

    /// The row index of a URL id.
    pub(crate) fn row_of(&self, id: UrlId) -> Option<usize> {
        match self.by_id.get(id as usize) {
            Some(&r) if r != NONE => Some(r as usize),
            _ => None,
        }
    }

    /// The identity of a URL id.
    pub(crate) fn url(&self, id: UrlId) -> Option<&'a str> {
        self.row_of(id).map(|r| identity(&self.rows[r]))
    }

    /// What the audit got back for row `row`.
    pub(crate) fn response(&self, row: usize) -> Response<'a> {
        match self.fetch_of[row] {
            NONE => Response::NotFetched(self.rows[row].state),
            f => {
                let fetch = &self.fetches[f as usize];
                match fetch.status {
                    Some(status) => Response::Answered {
                        status,
                        to: fetch.redirect_to.and_then(|t| self.url(t)),
                    },
                    None => Response::Unanswered {
                        error: fetch.error_kind.as_deref(),
                    },
                }
            }
        }
    }
}
