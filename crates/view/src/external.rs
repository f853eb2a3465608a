//! The External table: every link from the audit's pages to another site, one row per
//! link, from the stored links (nothing is requested again). "Another site" is a host
//! outside the audit's own hosts as its crawl scope decides them ([`crawl::OwnHosts`]:
//! the start hosts and their `www.` twins, subdomains when the audit included them,
//! extra hosts); a URL of an own host left out by an include / exclude pattern is not
//! external.

use crate::url_detail::UrlIndex;
use audit::export::{Cell, ColumnType, Header, TableData};
use audit::{AuditInput, UrlId};
use std::collections::{HashMap, HashSet};

/// The table's columns.
const HEADERS: [Header; 7] = [
    Header {
        title: "Address",
        kind: ColumnType::Url,
    },
    Header {
        title: "Host",
        kind: ColumnType::Text,
    },
    Header {
        title: "Source",
        kind: ColumnType::Url,
    },
    Header {
        title: "Anchor",
        kind: ColumnType::Text,
    },
    Header {
        title: "Link Position",
        kind: ColumnType::Text,
    },
    Header {
        title: "Follow",
        kind: ColumnType::Text,
    },
    Header {
        title: "Linking Pages",
        kind: ColumnType::Number,
    },
];

/// Marks the links whose other end is on another site.
pub fn mark(links: &mut [crate::types::LinkView], own: &crawl::OwnHosts) {
    for l in links {
        l.external = url::Url::parse(&l.url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .is_some_and(|host| !own.contains(&host));
    }
}

/// The table without rows.
pub(crate) fn empty() -> TableData {
    TableData {
        headers: HEADERS.to_vec(),
        rows: Vec::new(),
    }
}

/// The host of each URL of another site, by id.
pub(crate) fn external_hosts(input: &AuditInput, own: &crawl::OwnHosts) -> HashMap<UrlId, String> {
    input
        .urls
        .iter()
        .filter_map(|u| {
            let url = url::Url::parse(u.found_url()).ok()?;
            let host = url.host_str()?.to_ascii_lowercase();
            (!own.contains(&host)).then_some((u.id, host))
        })
        .collect()
}

/// One row per link to another site: its target, host, linking page, anchor text,
/// position and follow, and how many pages link to that target; with the rows' keys
/// (`source position-in-source`).
pub fn external_links(
    input: &AuditInput,
    index: &UrlIndex,
    own: &crawl::OwnHosts,
) -> (TableData, Vec<String>) {
    let hosts = external_hosts(input, own);
    // The pages of URL-variant probes are Dustpan's, not the site's: their links are not
    // the site's links.
    let made_up = input.made_up_urls();
    let mut pages: HashMap<UrlId, HashSet<UrlId>> = HashMap::new();
    for l in input.links.iter().filter(|l| !made_up.contains(&l.from)) {
        if let Some(to) = l.to.filter(|to| hosts.contains_key(to)) {
            pages.entry(to).or_default().insert(l.from);
        }
    }
    let mut rows = Vec::new();
    let mut keys = Vec::new();
    let mut position: HashMap<UrlId, u32> = HashMap::new();
    for l in &input.links {
        let at = position.entry(l.from).or_insert(0);
        *at += 1;
        let Some(to) = l.to else { continue };
        let Some(host) = hosts.get(&to) else { continue };
        // Links found on another site's pages (a redirect target's) are that site's.
        if hosts.contains_key(&l.from) || made_up.contains(&l.from) {
            continue;
        }
        let source = index.url(input, l.from);
        keys.push(format!("{source} {at}"));
        rows.push(vec![
            Cell::Text(index.url(input, to).to_owned()),
            Cell::Text(host.clone()),
            Cell::Text(source.to_owned()),
            index
                .anchor(input, l.from, to)
                .map_or(Cell::Empty, |a| Cell::Text(a.to_owned())),
            l.region
                .map_or(Cell::Empty, |r| Cell::Text(r.as_str().to_owned())),
            Cell::Text(if l.nofollow { "nofollow" } else { "follow" }.to_owned()),
            Cell::Int(pages.get(&to).map_or(0, |p| p.len() as i64)),
        ]);
    }
    (
        TableData {
            headers: HEADERS.to_vec(),
            rows,
        },
        keys,
    )
}
