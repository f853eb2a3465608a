//! Crawl budget spent on duplicates: the requests an access log holds for each
//! cluster's non-preferred URLs, split into search-engine bots whose address a DNS check
//! verified, bots not verified, fake bots (a bot's user agent from an address that
//! failed the check: not bot requests) and everything else.

use serde::{Deserialize, Serialize};

use crate::cluster::Cluster;
use crate::input::UrlId;
use crate::log_hits::{LogHit, LogRequests};
use crate::table::{Cell, ColumnType, Header, TableData};

/// One cluster's requests, when its non-preferred URLs got any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogWaste {
    /// The cluster's position in [`Analysis::clusters`](crate::Analysis::clusters).
    pub cluster: u32,
    /// Its preferred URL.
    pub preferred_url: String,
    /// Non-preferred members that were requested.
    pub duplicates_requested: u32,
    /// Requests to the non-preferred members: the crawl budget wasted.
    pub duplicates: LogRequests,
    /// Requests to the preferred URL.
    pub preferred: LogRequests,
}

/// The clusters whose non-preferred URLs were requested, ranked by the requests to
/// them: verified bot requests first, then unverified bot requests, then other
/// requests, then fake bot requests, then by preferred URL.
pub(crate) fn rank(clusters: &[Cluster], hits: &[LogHit]) -> Vec<LogWaste> {
    if hits.is_empty() {
        return Vec::new();
    }
    let by_url: rustc_hash::FxHashMap<UrlId, LogRequests> =
        hits.iter().map(|h| (h.url, h.requests())).collect();
    let mut out: Vec<LogWaste> = clusters
        .iter()
        .filter_map(|c| {
            let mut w = LogWaste {
                cluster: c.id,
                preferred_url: c.preferred_url.clone(),
                ..LogWaste::default()
            };
            for m in &c.members {
                let Some(&requests) = by_url.get(&m.url_id) else {
                    continue;
                };
                if m.url_id == c.preferred {
                    w.preferred.add(requests);
                } else {
                    w.duplicates_requested += u32::from(requests.total() > 0);
                    w.duplicates.add(requests);
                }
            }
            (w.duplicates.total() > 0).then_some(w)
        })
        .collect();
    out.sort_by(|a, b| {
        let (x, y) = (&a.duplicates, &b.duplicates);
        y.verified_bots
            .cmp(&x.verified_bots)
            .then(y.unverified_bots.cmp(&x.unverified_bots))
            .then(y.others.cmp(&x.others))
            .then(y.fake_bots.cmp(&x.fake_bots))
            .then_with(|| a.preferred_url.cmp(&b.preferred_url))
    });
    out
}

/// The file `log_waste.csv` is exported under (list audits of an access log only).
pub const LOG_WASTE_FILE: &str = "log_waste.csv";

/// The columns of `log_waste.csv`.
pub const LOG_WASTE_HEADERS: [Header; 11] = [
    Header {
        title: "Preferred URL",
        kind: ColumnType::Url,
    },
    count("Cluster"),
    count("Duplicates Requested"),
    count("Verified Bot Requests To Duplicates"),
    count("Unverified Bot Requests To Duplicates"),
    count("Fake Bot Requests To Duplicates"),
    count("Other Requests To Duplicates"),
    count("Verified Bot Requests To Preferred"),
    count("Unverified Bot Requests To Preferred"),
    count("Fake Bot Requests To Preferred"),
    count("Other Requests To Preferred"),
];

const fn count(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Number,
    }
}

/// The ranked clusters as a table: one row per [`LogWaste`], in rank order. Bots are
/// told by user agent and a DNS check of their address (verified, unverified, fake).
pub fn log_waste_table(waste: &[LogWaste]) -> TableData {
    let int = |n: u64| Cell::Int(i64::try_from(n).unwrap_or(i64::MAX));
    TableData {
        headers: LOG_WASTE_HEADERS.to_vec(),
        rows: waste
            .iter()
            .map(|w| {
                vec![
                    Cell::Text(w.preferred_url.as_str().into()),
                    Cell::Int(i64::from(w.cluster)),
                    Cell::Int(i64::from(w.duplicates_requested)),
                    int(w.duplicates.verified_bots),
                    int(w.duplicates.unverified_bots),
                    int(w.duplicates.fake_bots),
                    int(w.duplicates.others),
                    int(w.preferred.verified_bots),
                    int(w.preferred.unverified_bots),
                    int(w.preferred.fake_bots),
                    int(w.preferred.others),
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
    fn clusters_rank_by_verified_then_unverified_bot_requests_to_their_duplicates() {
        let mut b = B::new();
        b.page(&u("/a"), 1)
            .page(&u("/a?utm_source=x"), 1)
            .page(&u("/b"), 2)
            .page(&u("/b?utm_source=y"), 2)
            .page(&u("/b?utm_source=z"), 2)
            .page(&u("/c"), 3)
            .page(&u("/c?utm_source=q"), 3)
            .page(&u("/d"), 5)
            .page(&u("/d?utm_source=f"), 5)
            .page(&u("/e"), 6)
            .page(&u("/e?utm_source=g"), 6)
            .page(&u("/alone"), 4);
        // (verified, unverified, fake, other)
        let hit = |b: &mut B, path: &str, (v, n, f, o)| LogHit {
            url: b.id(&u(path)),
            verified_bot_requests: v,
            unverified_bot_requests: n,
            fake_bot_requests: f,
            other_requests: o,
        };
        let log_hits = vec![
            hit(&mut b, "/a", (7, 0, 0, 1)),
            hit(&mut b, "/a?utm_source=x", (0, 2, 0, 9)),
            hit(&mut b, "/b?utm_source=y", (3, 0, 0, 0)),
            hit(&mut b, "/b?utm_source=z", (0, 1, 0, 1)),
            hit(&mut b, "/c", (50, 0, 0, 50)),
            // Many fake bot requests rank after any verified or unverified one.
            hit(&mut b, "/d?utm_source=f", (0, 0, 900, 0)),
            // More unverified requests do not outrank one verified request.
            hit(&mut b, "/e?utm_source=g", (0, 40, 0, 0)),
            hit(&mut b, "/alone", (100, 0, 0, 0)),
        ];
        let config = AnalysisConfig {
            list_audit: true,
            log_hits,
            ..AnalysisConfig::default()
        };
        let a = analyse(&b.input, &config);
        let got: Vec<(&str, u32, LogRequests, LogRequests)> = a
            .log_waste
            .iter()
            .map(|w| {
                (
                    w.preferred_url.as_str(),
                    w.duplicates_requested,
                    w.duplicates,
                    w.preferred,
                )
            })
            .collect();
        let r = |verified_bots, unverified_bots, fake_bots, others| LogRequests {
            verified_bots,
            unverified_bots,
            fake_bots,
            others,
        };
        assert_eq!(
            got,
            [
                ("https://example.com/b", 2, r(3, 1, 0, 1), r(0, 0, 0, 0)),
                ("https://example.com/e", 1, r(0, 40, 0, 0), r(0, 0, 0, 0)),
                ("https://example.com/a", 1, r(0, 2, 0, 9), r(7, 0, 0, 1)),
                ("https://example.com/d", 1, r(0, 0, 900, 0), r(0, 0, 0, 0)),
            ]
        );
        let table = log_waste_table(&a.log_waste);
        let mut csv = Vec::new();
        table.write_csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some(
                "Preferred URL,Cluster,Duplicates Requested,\
                 Verified Bot Requests To Duplicates,Unverified Bot Requests To Duplicates,\
                 Fake Bot Requests To Duplicates,Other Requests To Duplicates,\
                 Verified Bot Requests To Preferred,Unverified Bot Requests To Preferred,\
                 Fake Bot Requests To Preferred,Other Requests To Preferred"
            ),
            "{csv}"
        );
        let first = lines.next().unwrap();
        assert!(first.starts_with("https://example.com/b,"), "{first}");
        assert!(first.ends_with(",2,3,1,0,1,0,0,0,0"), "{first}");
        assert_eq!(lines.count(), 3);
        // No log, no ranking.
        assert!(b.analyse().log_waste.is_empty());
    }
}
