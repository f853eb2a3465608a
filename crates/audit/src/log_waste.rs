//! Crawl budget spent on duplicates: the requests an access log holds for each
//! cluster's non-preferred URLs, split into search-engine bots and everything else.

use serde::{Deserialize, Serialize};

use crate::cluster::Cluster;
use crate::export::{Cell, Header, TableData};
use crate::input::UrlId;

/// The requests an access log holds for one URL. Bots are told by their user agent
/// only (unverified: anyone can send Googlebot's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHit {
    /// The URL.
    pub url: UrlId,
    /// Requests whose user agent names a search-engine bot.
    pub bot_requests: u64,
    /// Every other request.
    pub other_requests: u64,
}

/// One cluster's requests, when its non-preferred URLs got any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogWaste {
    /// The cluster's position in [`Analysis::clusters`](crate::Analysis::clusters).
    pub cluster: u32,
    /// Its preferred URL.
    pub preferred_url: String,
    /// Non-preferred members that were requested.
    pub duplicates_requested: u32,
    /// Requests from search-engine bots to the non-preferred members.
    pub bot_requests: u64,
    /// Other requests to the non-preferred members.
    pub other_requests: u64,
    /// Requests from search-engine bots to the preferred URL.
    pub preferred_bot_requests: u64,
    /// Other requests to the preferred URL.
    pub preferred_other_requests: u64,
}

/// The clusters whose non-preferred URLs were requested, most bot requests first (then
/// most other requests, then by preferred URL).
pub(crate) fn rank(clusters: &[Cluster], hits: &[LogHit]) -> Vec<LogWaste> {
    if hits.is_empty() {
        return Vec::new();
    }
    let by_url: rustc_hash::FxHashMap<UrlId, (u64, u64)> = hits
        .iter()
        .map(|h| (h.url, (h.bot_requests, h.other_requests)))
        .collect();
    let mut out: Vec<LogWaste> = clusters
        .iter()
        .filter_map(|c| {
            let mut w = LogWaste {
                cluster: c.id,
                preferred_url: c.preferred_url.clone(),
                ..LogWaste::default()
            };
            for m in &c.members {
                let Some(&(bot, other)) = by_url.get(&m.url_id) else {
                    continue;
                };
                if m.url_id == c.preferred {
                    w.preferred_bot_requests += bot;
                    w.preferred_other_requests += other;
                } else {
                    w.duplicates_requested += u32::from(bot + other > 0);
                    w.bot_requests += bot;
                    w.other_requests += other;
                }
            }
            (w.bot_requests + w.other_requests > 0).then_some(w)
        })
        .collect();
    out.sort_by(|a, b| {
        b.bot_requests
            .cmp(&a.bot_requests)
            .then(b.other_requests.cmp(&a.other_requests))
            .then_with(|| a.preferred_url.cmp(&b.preferred_url))
    });
    out
}

/// The file `log_waste.csv` is exported under (list audits of an access log only).
pub const LOG_WASTE_FILE: &str = "log_waste.csv";

/// The columns of `log_waste.csv`.
pub const LOG_WASTE_HEADERS: [Header; 7] = [
    Header {
        title: "Preferred URL",
        kind: crate::export::ColumnType::Url,
    },
    Header {
        title: "Cluster",
        kind: crate::export::ColumnType::Number,
    },
    Header {
        title: "Duplicates Requested",
        kind: crate::export::ColumnType::Number,
    },
    Header {
        title: "Bot Requests To Duplicates",
        kind: crate::export::ColumnType::Number,
    },
    Header {
        title: "Other Requests To Duplicates",
        kind: crate::export::ColumnType::Number,
    },
    Header {
        title: "Bot Requests To Preferred",
        kind: crate::export::ColumnType::Number,
    },
    Header {
        title: "Other Requests To Preferred",
        kind: crate::export::ColumnType::Number,
    },
];

/// The ranked clusters as a table: one row per [`LogWaste`], in rank order. Bots are
/// told by user agent (unverified).
pub fn log_waste_table(waste: &[LogWaste]) -> TableData {
    let int = |n: u64| Cell::Int(i64::try_from(n).unwrap_or(i64::MAX));
    TableData {
        headers: LOG_WASTE_HEADERS.to_vec(),
        rows: waste
            .iter()
            .map(|w| {
                vec![
                    Cell::Text(w.preferred_url.clone()),
                    Cell::Int(i64::from(w.cluster)),
                    Cell::Int(i64::from(w.duplicates_requested)),
                    int(w.bot_requests),
                    int(w.other_requests),
                    int(w.preferred_bot_requests),
                    int(w.preferred_other_requests),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{B, check};
    use crate::{AnalysisConfig, analyse};

    fn u(path: &str) -> String {
        format!("https://example.com{path}")
    }

    #[test]
    fn a_list_audit_reports_no_orphan_and_nothing_missing_from_the_sitemaps() {
        let mut b = B::new();
        b.page(&u("/"), 90)
            .start(&u("/"))
            .page(&u("/lonely"), 91)
            .page(&u("/a"), 92)
            .page(&u("/b"), 93)
            .link(&u("/"), &u("/a"))
            .link(&u("/"), &u("/b"));
        b.listed(&u("/s.xml"), &u("/"))
            .listed(&u("/s.xml"), &u("/lonely"))
            .listed(&u("/s.xml"), &u("/b"));
        check(
            &b.analyse(),
            "SITEMAP-ORPHAN https://example.com/lonely
             SITEMAP-MISSING https://example.com/a",
        );
        let list = AnalysisConfig {
            list_audit: true,
            ..AnalysisConfig::default()
        };
        check(&b.analyse_config(&list), "");
    }

    #[test]
    fn clusters_rank_by_bot_requests_to_their_duplicates() {
        let mut b = B::new();
        b.page(&u("/a"), 1)
            .page(&u("/a?utm_source=x"), 1)
            .page(&u("/b"), 2)
            .page(&u("/b?utm_source=y"), 2)
            .page(&u("/b?utm_source=z"), 2)
            .page(&u("/c"), 3)
            .page(&u("/c?utm_source=q"), 3)
            .page(&u("/alone"), 4);
        let hit = |b: &mut B, path: &str, bot, other| LogHit {
            url: b.id(&u(path)),
            bot_requests: bot,
            other_requests: other,
        };
        let log_hits = vec![
            hit(&mut b, "/a", 7, 1),
            hit(&mut b, "/a?utm_source=x", 2, 9),
            hit(&mut b, "/b?utm_source=y", 3, 0),
            hit(&mut b, "/b?utm_source=z", 1, 1),
            hit(&mut b, "/c", 50, 50),
            hit(&mut b, "/alone", 100, 0),
        ];
        let config = AnalysisConfig {
            list_audit: true,
            log_hits,
            ..AnalysisConfig::default()
        };
        let a = analyse(&b.input, &config);
        let got: Vec<(&str, u32, u64, u64, u64, u64)> = a
            .log_waste
            .iter()
            .map(|w| {
                (
                    w.preferred_url.as_str(),
                    w.duplicates_requested,
                    w.bot_requests,
                    w.other_requests,
                    w.preferred_bot_requests,
                    w.preferred_other_requests,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.com/b", 2, 4, 1, 0, 0),
                ("https://example.com/a", 1, 2, 9, 7, 1),
            ]
        );
        let table = log_waste_table(&a.log_waste);
        let mut csv = Vec::new();
        table.write_csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(
            csv.starts_with("Preferred URL,Cluster,Duplicates Requested,Bot Requests To Duplicates,Other Requests To Duplicates,"),
            "{csv}"
        );
        assert_eq!(csv.lines().count(), 3);
        // No log, no ranking.
        assert!(b.analyse().log_waste.is_empty());
    }
}
