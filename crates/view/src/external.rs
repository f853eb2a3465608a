//! The External table: every link from the audit's pages to another site, one row per
//! link, from the stored links (nothing is requested again). "Another site" is a host
//! outside the audit's own hosts as its crawl scope decides them ([`crawl::OwnHosts`]:
//! the start hosts and their `www.` twins, subdomains when the audit included them,
//! extra hosts, and the IP addresses those hosts were put at: [`crawl::OwnHosts::of_audit`]); a URL of an
//! own host left out by an include / exclude pattern, or by the scope of an IP alias, is
//! not external: it is an internal URL not crawled, with its reason.

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
/// (`source position-in-source`). The URL index is built (`index`) and the links read
/// only when the audit found a URL of another site.
pub fn external_links<'i>(
    input: &AuditInput,
    index: impl FnOnce() -> &'i UrlIndex,
    own: &crawl::OwnHosts,
) -> (TableData, Vec<String>) {
    let hosts = external_hosts(input, own);
    if hosts.is_empty() {
        return (empty(), Vec::new());
    }
    let index = index();
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
            Cell::from(index.url(input, to)),
            Cell::from(host.as_str()),
            Cell::from(source),
            index
                .anchor(input, l.from, to)
                .map_or(Cell::Empty, Cell::from),
            l.region.map_or(Cell::Empty, |r| Cell::from(r.as_str())),
            Cell::from(if l.nofollow { "nofollow" } else { "follow" }),
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use audit::{FetchRow, LinkRow, ReasonKind, UrlRow, UrlState};

    /// An audit of `http://site.test:8480/` put at 127.0.0.1 by a `resolve` override,
    /// stored in a real store: its links to the server's own address (one crawled, one on
    /// another port it left out of scope) are internal, its link to another site external.
    #[tokio::test]
    async fn links_to_the_audit_s_own_address_are_internal() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("audits.sqlite"))
            .await
            .unwrap();
        let url = |id, url: &str, state, reason: Option<ReasonKind>| UrlRow {
            id,
            url: url.into(),
            url_rfc3986: url.into(),
            state,
            reason: reason.map(Into::into),
            ..UrlRow::default()
        };
        let fetched = |id| FetchRow {
            url_id: id,
            status: Some(200),
            ..FetchRow::default()
        };
        let input = audit::AuditInput {
            urls: vec![
                url(1, "http://site.test:8480/", UrlState::Done, None),
                url(2, "http://127.0.0.1:8480/a", UrlState::Done, None),
                url(
                    3,
                    "http://127.0.0.1:9999/b",
                    UrlState::Skipped,
                    Some(ReasonKind::OutOfScope),
                ),
                url(
                    4,
                    "https://other.test/",
                    UrlState::Skipped,
                    Some(ReasonKind::OutOfScope),
                ),
            ],
            fetches: vec![fetched(1), fetched(2)],
            links: (2..=4)
                .map(|to| LinkRow {
                    from: 1,
                    to: Some(to),
                    ..LinkRow::default()
                })
                .collect(),
            ..audit::AuditInput::default()
        };
        let id = synthetic::write(&store, &input).await;
        let config = crawl::CrawlConfig {
            start_urls: vec!["http://site.test:8480/".into()],
            resolve: vec!["site.test:8480:127.0.0.1".into()],
            ..crawl::CrawlConfig::default()
        };
        store
            .replace_audit_config(id, &serde_json::to_string(&config).unwrap())
            .await
            .unwrap();
        let session = crate::session::Session::new(store.clone());
        let open = session.open(id.0).await.unwrap();
        let own = open.own_hosts();
        assert!(own.contains("site.test") && own.contains("127.0.0.1"));
        assert!(!own.contains("other.test") && !own.contains("127.0.0.2"));

        let page = open
            .query_table(&crate::types::TableQuery {
                table: crate::types::TableName::External,
                sort: None,
                search: None,
                filters: vec![],
                offset: 0,
                limit: 100,
            })
            .unwrap();
        let addresses: Vec<String> = page
            .rows
            .iter()
            .map(|r| match &r[0] {
                crate::types::Cell::Text(t) => t.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(addresses, ["https://other.test/"]);

        // The home page's outlinks: only the other site's is external; the address's
        // URL left out of scope is an internal URL not crawled, with its reason.
        let home = open.url_detail("http://site.test:8480/").unwrap();
        let external: Vec<(&str, bool)> = home
            .outlinks
            .iter()
            .map(|l| (l.url.as_str(), l.external))
            .collect();
        assert_eq!(
            external,
            [
                ("http://127.0.0.1:8480/a", false),
                ("http://127.0.0.1:9999/b", false),
                ("https://other.test/", true),
            ]
        );
        let left = open.url_detail("http://127.0.0.1:9999/b").unwrap();
        let field = |key: &str| {
            left.fields
                .iter()
                .find(|f| f.key == key)
                .map(|f| f.value.as_str())
        };
        assert_eq!(field("indexability_status"), Some("Not crawled"));
        assert_eq!(field("reason"), Some("out_of_scope"));
    }
}
