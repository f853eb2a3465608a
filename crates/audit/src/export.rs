//! CSV exports of an analysed audit: RFC 4180, UTF-8, headers named as SEO tools name
//! them, and safe to open in a spreadsheet (a cell that starts with `=`, `+`, `-`,
//! `@`, a tab or a carriage return gets a leading `'`, so crawled text cannot run as
//! a formula).

use crate::cluster::{Action, Role};
use crate::input::{AuditInput, FetchRow, UrlId};
use crate::{Analysis, FixFiles};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

/// `cell`, defused for spreadsheets: a leading `'` before `= + - @ \t \r`.
pub fn spreadsheet_safe(cell: &str) -> Cow<'_, str> {
    match cell.as_bytes().first() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => Cow::Owned(format!("'{cell}")),
        _ => Cow::Borrowed(cell),
    }
}

/// One exportable table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Every URL with its status, indexability, title, canonical and cluster.
    Pages,
    /// One row per cluster member: the preferred URL, why the member is in, its fix.
    Clusters,
    /// Every finding with its URLs and fixes.
    Findings,
    /// One row per redirecting URL: its chain hop by hop.
    Redirects,
    /// Every rel=canonical declaration.
    Canonicals,
    /// Every sitemap entry with what the crawl found at its URL.
    SitemapEntries,
    /// Internal links that point at a URL that is not its cluster's preferred URL.
    LinksToNonPreferred,
}

impl Table {
    /// Every table, in export order.
    pub const ALL: [Table; 7] = [
        Table::Pages,
        Table::Clusters,
        Table::Findings,
        Table::Redirects,
        Table::Canonicals,
        Table::SitemapEntries,
        Table::LinksToNonPreferred,
    ];

    /// The file name the table is exported under.
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Pages => "pages.csv",
            Table::Clusters => "clusters.csv",
            Table::Findings => "findings.csv",
            Table::Redirects => "redirects.csv",
            Table::Canonicals => "canonicals.csv",
            Table::SitemapEntries => "sitemap_entries.csv",
            Table::LinksToNonPreferred => "links_to_non_preferred.csv",
        }
    }
}

/// Lookups shared by the tables.
struct Index<'a> {
    url: HashMap<UrlId, &'a str>,
    fetch: HashMap<UrlId, &'a FetchRow>,
    preferred: HashMap<UrlId, &'a str>,
    cluster: HashMap<UrlId, u32>,
    blocked: std::collections::HashSet<UrlId>,
}

impl<'a> Index<'a> {
    fn new(input: &'a AuditInput, analysis: &'a Analysis) -> Index<'a> {
        let mut preferred = HashMap::new();
        let mut cluster = HashMap::new();
        for c in &analysis.clusters {
            for m in &c.members {
                preferred.insert(m.url_id, c.preferred_url.as_str());
                cluster.insert(m.url_id, c.id);
            }
        }
        Index {
            url: input.urls.iter().map(|u| (u.id, u.url.as_str())).collect(),
            fetch: input.fetches.iter().map(|f| (f.url_id, f)).collect(),
            preferred,
            cluster,
            blocked: input.robots_blocks.iter().copied().collect(),
        }
    }

    fn url(&self, id: UrlId) -> &'a str {
        self.url.get(&id).copied().unwrap_or("")
    }

    fn status(&self, id: UrlId) -> String {
        self.fetch
            .get(&id)
            .and_then(|f| f.status)
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    /// (Indexability, Indexability Status) as crawlers report them.
    fn indexability(&self, id: UrlId, canonical: Option<UrlId>) -> (&'static str, &'static str) {
        if self.blocked.contains(&id) {
            return ("Non-Indexable", "Blocked by robots.txt");
        }
        let Some(f) = self.fetch.get(&id) else {
            return ("", "Not crawled");
        };
        match f.status {
            None => ("Non-Indexable", "No Response"),
            Some(s) if (300..400).contains(&s) => ("Non-Indexable", "Redirected"),
            Some(s) if s >= 400 => ("Non-Indexable", "Client or Server Error"),
            Some(_) if f.noindex => ("Non-Indexable", "noindex"),
            Some(_) if canonical.is_some_and(|c| c != id) => ("Non-Indexable", "Canonicalised"),
            Some(_) => ("Indexable", ""),
        }
    }
}

fn row<W: Write>(out: &mut csv::Writer<W>, cells: &[&str]) -> csv::Result<()> {
    out.write_record(cells.iter().map(|c| spreadsheet_safe(c).into_owned()))
}

/// Writes `table` as CSV; returns the number of data rows.
pub fn write_table<W: Write>(
    table: Table,
    input: &AuditInput,
    analysis: &Analysis,
    out: W,
) -> csv::Result<usize> {
    let ix = Index::new(input, analysis);
    let mut w = csv::Writer::from_writer(out);
    let mut rows = 0;
    let first_canonical: HashMap<UrlId, Option<UrlId>> = {
        let mut m = HashMap::new();
        for c in &input.canonicals {
            m.entry(c.page).or_insert(c.target);
        }
        m
    };
    match table {
        Table::Pages => {
            row(
                &mut w,
                &[
                    "Address",
                    "Status Code",
                    "Content Type",
                    "Indexability",
                    "Indexability Status",
                    "Title 1",
                    "Canonical Link Element 1",
                    "Redirect URL",
                    "Crawl Depth",
                    "Word Count",
                    "Cluster",
                    "Preferred URL",
                ],
            )?;
            for u in &input.urls {
                let canonical = first_canonical.get(&u.id).copied().flatten();
                let (indexable, why) = ix.indexability(u.id, canonical);
                let f = ix.fetch.get(&u.id);
                let cluster = ix
                    .cluster
                    .get(&u.id)
                    .map(|c| c.to_string())
                    .unwrap_or_default();
                row(
                    &mut w,
                    &[
                        &u.url,
                        &ix.status(u.id),
                        f.and_then(|f| f.content_type.as_deref()).unwrap_or(""),
                        indexable,
                        why,
                        f.and_then(|f| f.title.as_deref()).unwrap_or(""),
                        canonical.map(|c| ix.url(c)).unwrap_or(""),
                        f.and_then(|f| f.redirect_to)
                            .map(|t| ix.url(t))
                            .unwrap_or(""),
                        &u.depth.to_string(),
                        &f.and_then(|f| f.word_count)
                            .map(|n| n.to_string())
                            .unwrap_or_default(),
                        &cluster,
                        ix.preferred.get(&u.id).copied().unwrap_or(""),
                    ],
                )?;
                rows += 1;
            }
        }
        Table::Clusters => {
            row(
                &mut w,
                &[
                    "Cluster",
                    "Preferred URL",
                    "Address",
                    "Role",
                    "Status Code",
                    "Why In Cluster",
                    "Rules Fired",
                    "Fix",
                ],
            )?;
            for c in &analysis.clusters {
                for m in &c.members {
                    let why: Vec<String> = m
                        .evidence
                        .iter()
                        .map(|e| format!("{} -> {}: {}", ix.url(e.from), ix.url(e.to), e.kind))
                        .collect();
                    let rules: Vec<&str> = m.rules.iter().map(|r| r.id()).collect();
                    let role = match m.role {
                        Role::Preferred => "preferred",
                        Role::Redirects => "redirects",
                        Role::Canonicalised => "canonicalised",
                        Role::Duplicate => "duplicate",
                        Role::Error => "error",
                        Role::Unfetched => "not fetched",
                    };
                    let fix = match m.action {
                        Action::None => String::new(),
                        Action::Redirect301 => format!("301 redirect to {}", c.preferred_url),
                        Action::Canonical => {
                            format!("add <link rel=\"canonical\" href=\"{}\">", c.preferred_url)
                        }
                    };
                    row(
                        &mut w,
                        &[
                            &c.id.to_string(),
                            &c.preferred_url,
                            &m.url,
                            role,
                            &m.status.map(|s| s.to_string()).unwrap_or_default(),
                            &why.join("\n"),
                            &rules.join(", "),
                            &fix,
                        ],
                    )?;
                    rows += 1;
                }
            }
        }
        Table::Findings => {
            row(
                &mut w,
                &[
                    "Finding",
                    "Severity",
                    "Title",
                    "Summary",
                    "Addresses",
                    "Fix",
                    "Why It Matters",
                    "Evidence",
                    "Key",
                ],
            )?;
            for f in &analysis.findings {
                let fixes: Vec<String> = f.fixes.iter().map(|x| x.to_string()).collect();
                row(
                    &mut w,
                    &[
                        f.id.code(),
                        f.severity.as_str(),
                        &f.title,
                        &f.summary,
                        &f.urls.join("\n"),
                        &fixes.join("\n"),
                        &f.why,
                        &f.evidence.join("\n"),
                        &f.key,
                    ],
                )?;
                rows += 1;
            }
        }
        Table::Redirects => {
            row(
                &mut w,
                &[
                    "Address",
                    "Hops",
                    "Final Address",
                    "Final Status Code",
                    "Chain",
                    "Problem",
                ],
            )?;
            let hop: HashMap<UrlId, &crate::input::RedirectRow> =
                input.redirects.iter().map(|r| (r.from, r)).collect();
            let problem: HashMap<UrlId, &'static str> = input
                .redirect_chains
                .iter()
                .map(|c| {
                    let p = match c.problem {
                        crate::input::ChainProblem::Loop => "loop",
                        crate::input::ChainProblem::TooLong => "too long",
                    };
                    (c.start, p)
                })
                .collect();
            for r in &input.redirects {
                let mut chain = vec![ix.url(r.from).to_owned()];
                let mut seen = std::collections::HashSet::from([r.from]);
                let mut at = r.from;
                let mut hops = 0u32;
                while let Some(h) = hop.get(&at) {
                    hops += 1;
                    let Some(to) = h.to else { break };
                    chain.push(format!("({}) {}", h.status, ix.url(to)));
                    if !seen.insert(to) || hops > 50 {
                        break;
                    }
                    at = to;
                }
                row(
                    &mut w,
                    &[
                        ix.url(r.from),
                        &hops.to_string(),
                        ix.url(at),
                        &ix.status(at),
                        &chain.join(" -> "),
                        problem.get(&r.from).copied().unwrap_or(""),
                    ],
                )?;
                rows += 1;
            }
        }
        Table::Canonicals => {
            row(
                &mut w,
                &[
                    "Address",
                    "Canonical Link Element",
                    "Source",
                    "In Head",
                    "Canonical Status Code",
                    "Self-Referencing",
                ],
            )?;
            for c in &input.canonicals {
                let source = match c.source {
                    crate::input::DeclarationSource::LinkElement => "link element",
                    crate::input::DeclarationSource::HttpHeader => "HTTP header",
                };
                let target = c.target.map(|t| ix.url(t)).unwrap_or(&c.href_raw);
                row(
                    &mut w,
                    &[
                        ix.url(c.page),
                        target,
                        source,
                        if c.in_head { "true" } else { "false" },
                        &c.target.map(|t| ix.status(t)).unwrap_or_default(),
                        if c.target == Some(c.page) {
                            "true"
                        } else {
                            "false"
                        },
                    ],
                )?;
                rows += 1;
            }
        }
        Table::SitemapEntries => {
            row(
                &mut w,
                &[
                    "Sitemap",
                    "Address",
                    "Status Code",
                    "Indexability",
                    "Preferred URL",
                ],
            )?;
            let sitemap: HashMap<u32, &str> = input
                .sitemaps
                .iter()
                .map(|s| (s.id, s.url.as_str()))
                .collect();
            for e in &input.sitemap_entries {
                let (url, status, indexable, preferred) = match e.url_id {
                    Some(id) => {
                        let canonical = first_canonical.get(&id).copied().flatten();
                        (
                            ix.url(id),
                            ix.status(id),
                            ix.indexability(id, canonical).0,
                            ix.preferred.get(&id).copied().unwrap_or(""),
                        )
                    }
                    None => (e.loc_raw.as_str(), String::new(), "", ""),
                };
                row(
                    &mut w,
                    &[
                        sitemap.get(&e.sitemap_id).copied().unwrap_or(""),
                        url,
                        &status,
                        indexable,
                        preferred,
                    ],
                )?;
                rows += 1;
            }
        }
        Table::LinksToNonPreferred => {
            row(
                &mut w,
                &["Source", "Destination", "Preferred URL", "Nofollow"],
            )?;
            for l in &input.links {
                let Some(to) = l.to else { continue };
                let Some(preferred) = ix.preferred.get(&to) else {
                    continue;
                };
                if *preferred == ix.url(to) {
                    continue;
                }
                row(
                    &mut w,
                    &[
                        ix.url(l.from),
                        ix.url(to),
                        preferred,
                        if l.nofollow { "true" } else { "false" },
                    ],
                )?;
                rows += 1;
            }
        }
    }
    w.flush()?;
    Ok(rows)
}

/// The fix files a developer applies: `(file name, contents)`.
pub fn fix_files(analysis: &Analysis) -> Vec<(&'static str, String)> {
    let f: FixFiles = analysis.fix_files();
    vec![
        ("redirect_map.csv", f.redirects_csv()),
        ("redirects.nginx.conf", f.nginx()),
        ("redirects.apache.conf", f.apache()),
        ("canonicals_to_set.csv", f.canonicals_csv()),
        ("sitemap_changes.csv", f.sitemap_csv()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_defused() {
        assert_eq!(spreadsheet_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(spreadsheet_safe("+1"), "'+1");
        assert_eq!(spreadsheet_safe("-2"), "'-2");
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("\tx"), "'\tx");
        assert_eq!(
            spreadsheet_safe("https://example.com/"),
            "https://example.com/"
        );
    }

    #[test]
    fn pages_table_is_rfc4180_and_safe() {
        let input: AuditInput = serde_json::from_value(serde_json::json!({
            "urls": [{"id": 1, "url": "https://example.com/", "host": "example.com"}],
            "fetches": [{"url_id": 1, "status": 200, "title": "=cmd|' /C calc'!A0, \"quoted\"", "word_count": 30}]
        }))
        .unwrap();
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let mut out = Vec::new();
        let n = write_table(Table::Pages, &input, &analysis, &mut out).unwrap();
        assert_eq!(n, 1);
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("Address,Status Code,"));
        assert_eq!(
            lines.next().unwrap(),
            "https://example.com/,200,,Indexable,,\"'=cmd|' /C calc'!A0, \"\"quoted\"\"\",,,0,30,,"
        );
    }
}
