//! The report's tables as typed data ([`table_data`]) and as CSV ([`write_table`]): RFC
//! 4180, UTF-8, headers named as SEO tools name them, and safe to open in a spreadsheet (a
//! text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
//! leading `'`, so crawled text cannot run as a formula). The desktop app pages through
//! the same data.

use crate::cluster::{Action, Role};
use crate::input::{AuditInput, FetchRow, UrlId};
use crate::{Analysis, FixFiles, Tier};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

/// `cell`, defused for spreadsheets: a `'` before `= + - @ \t \r` at its start, and
/// after each `;` or tab (where spreadsheets of many locales start a new cell).
pub fn spreadsheet_safe(cell: &str) -> Cow<'_, str> {
    let formula = |b: u8| matches!(b, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r');
    let bytes = cell.as_bytes();
    // A spreadsheet in a locale that splits on `;` or a tab starts a new cell after
    // each: a formula character there is defused too.
    let after_separator =
        |i: usize| i > 0 && matches!(bytes[i - 1], b';' | b'\t') && formula(bytes[i]);
    let risky = |i: usize| (i == 0 && formula(bytes[0])) || after_separator(i);
    if !(0..bytes.len()).any(risky) {
        return Cow::Borrowed(cell);
    }
    let mut out = String::with_capacity(cell.len() + 2);
    for (i, c) in cell.char_indices() {
        if risky(i) {
            out.push('\'');
        }
        out.push(c);
    }
    Cow::Owned(out)
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
    main_words: HashMap<UrlId, u32>,
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
            url: input.urls.iter().map(|u| (u.id, u.found_url())).collect(),
            fetch: input.fetches.iter().map(|f| (f.url_id, f)).collect(),
            preferred,
            cluster,
            main_words: analysis.main_words.iter().copied().collect(),
            blocked: input.robots_blocks.iter().copied().collect(),
        }
    }

    fn url(&self, id: UrlId) -> &'a str {
        self.url.get(&id).copied().unwrap_or("")
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

/// One cell of a table: text, an integer, or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Text (made spreadsheet-safe when written as CSV).
    Text(String),
    /// An integer (sorts numerically).
    Int(i64),
    /// No value (an empty CSV cell).
    Empty,
}

impl Cell {
    /// The cell as CSV writes it (before [`spreadsheet_safe`]).
    pub fn as_text(&self) -> Cow<'_, str> {
        match self {
            Cell::Text(s) => Cow::Borrowed(s),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Empty => Cow::Borrowed(""),
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_owned())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<bool> for Cell {
    fn from(b: bool) -> Cell {
        Cell::Text(if b { "true" } else { "false" }.to_owned())
    }
}

impl<T: Into<i64>> From<Option<T>> for Cell {
    fn from(n: Option<T>) -> Cell {
        n.map_or(Cell::Empty, |n| Cell::Int(n.into()))
    }
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// Free text.
    Text,
    /// Integers.
    Number,
    /// URLs.
    Url,
}

/// A column header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The header as SEO tools name it.
    pub title: &'static str,
    /// What the column holds.
    pub kind: ColumnType,
}

const fn text(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Text,
    }
}

const fn number(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Number,
    }
}

const fn url(title: &'static str) -> Header {
    Header {
        title,
        kind: ColumnType::Url,
    }
}

/// A table as typed data: the one source of the CSV export and the app's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableData {
    /// The columns.
    pub headers: Vec<Header>,
    /// The rows, each with one cell per header.
    pub rows: Vec<Vec<Cell>>,
}

impl TableData {
    fn new(headers: &[Header]) -> TableData {
        TableData {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Writes the table as CSV (RFC 4180, spreadsheet-safe text); returns the number
    /// of data rows.
    pub fn write_csv<W: Write>(&self, out: W) -> csv::Result<usize> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(self.headers.iter().map(|h| h.title))?;
        for row in &self.rows {
            w.write_record(row.iter().map(|c| match c {
                Cell::Text(s) => spreadsheet_safe(s).into_owned(),
                other => other.as_text().into_owned(),
            }))?;
        }
        w.flush()?;
        Ok(self.rows.len())
    }
}

fn int(n: impl Into<i64>) -> Cell {
    Cell::Int(n.into())
}

fn opt_text(s: Option<&str>) -> Cell {
    Cell::Text(s.unwrap_or("").to_owned())
}

/// A cluster member's role as the exports name it.
pub fn role_name(role: Role) -> &'static str {
    role.as_str()
}

/// A cluster member's fix as the exports word it (empty when there is nothing to do).
pub fn fix_text(action: Action, preferred_url: &str) -> String {
    match action {
        Action::None => String::new(),
        Action::Redirect301 => format!("301 redirect to {preferred_url}"),
        Action::Canonical => {
            format!("add <link rel=\"canonical\" href=\"{preferred_url}\">")
        }
    }
}

/// Writes `table` as CSV; returns the number of data rows.
pub fn write_table<W: Write>(
    table: Table,
    input: &AuditInput,
    analysis: &Analysis,
    out: W,
) -> csv::Result<usize> {
    table_data(table, input, analysis).write_csv(out)
}

/// Builds `table` as typed data.
pub fn table_data(table: Table, input: &AuditInput, analysis: &Analysis) -> TableData {
    let ix = Index::new(input, analysis);
    let first_canonical: HashMap<UrlId, Option<UrlId>> = {
        let mut m = HashMap::new();
        for c in &input.canonicals {
            m.entry(c.page).or_insert(c.target);
        }
        m
    };
    let status = |id: UrlId| -> Cell { ix.fetch.get(&id).and_then(|f| f.status).into() };
    match table {
        Table::Pages => {
            let mut t = TableData::new(&[
                url("Address"),
                number("Status Code"),
                text("Content Type"),
                text("Indexability"),
                text("Indexability Status"),
                text("Title 1"),
                url("Canonical Link Element 1"),
                url("Redirect URL"),
                number("Crawl Depth"),
                number("Word Count"),
                number("Main Content Word Count"),
                number("Cluster"),
                url("Preferred URL"),
            ]);
            t.rows.reserve(input.urls.len());
            for u in &input.urls {
                let canonical = first_canonical.get(&u.id).copied().flatten();
                let (indexable, why) = ix.indexability(u.id, canonical);
                let f = ix.fetch.get(&u.id);
                t.rows.push(vec![
                    u.found_url().into(),
                    status(u.id),
                    opt_text(f.and_then(|f| f.content_type.as_deref())),
                    indexable.into(),
                    why.into(),
                    opt_text(f.and_then(|f| f.title.as_deref())),
                    canonical.map(|c| ix.url(c)).unwrap_or("").into(),
                    f.and_then(|f| f.redirect_to)
                        .map(|t| ix.url(t))
                        .unwrap_or("")
                        .into(),
                    int(u.depth),
                    f.and_then(|f| f.word_count).into(),
                    ix.main_words.get(&u.id).copied().into(),
                    ix.cluster.get(&u.id).copied().into(),
                    ix.preferred.get(&u.id).copied().unwrap_or("").into(),
                ]);
            }
            t
        }
        Table::Clusters => {
            let mut t = TableData::new(&[
                number("Cluster"),
                url("Preferred URL"),
                url("Address"),
                text("Role"),
                number("Status Code"),
                text("Why In Cluster"),
                text("Evidence Tier"),
                text("Rules Fired"),
                text("Fix"),
            ]);
            for c in &analysis.clusters {
                for m in &c.members {
                    let why: Vec<String> = m
                        .evidence
                        .iter()
                        .map(|e| format!("{} -> {}: {}", ix.url(e.from), ix.url(e.to), e.kind))
                        .collect();
                    let rules: Vec<&str> = m.rules.iter().map(|r| r.id()).collect();
                    t.rows.push(vec![
                        int(c.id),
                        c.preferred_url.as_str().into(),
                        m.url.as_str().into(),
                        role_name(m.role).into(),
                        m.status.into(),
                        why.join("\n").into(),
                        if m.role == Role::Preferred {
                            ""
                        } else {
                            Tier::Strong.as_str()
                        }
                        .into(),
                        rules.join(", ").into(),
                        fix_text(m.action, &c.preferred_url).into(),
                    ]);
                }
            }
            t
        }
        Table::Findings => {
            let mut t = TableData::new(&[
                text("Finding"),
                text("Severity"),
                text("Evidence Tier"),
                text("Title"),
                text("Summary"),
                url("Addresses"),
                text("Fix"),
                text("Why It Matters"),
                text("Evidence"),
                text("Key"),
            ]);
            for f in &analysis.findings {
                let fixes: Vec<String> = f.fixes.iter().map(|x| x.to_string()).collect();
                t.rows.push(vec![
                    f.id.code().into(),
                    f.severity.as_str().into(),
                    f.id.tier().as_str().into(),
                    (&*f.title).into(),
                    f.summary.as_str().into(),
                    f.urls.join("\n").into(),
                    fixes.join("\n").into(),
                    (&*f.why).into(),
                    f.evidence.join("\n").into(),
                    f.key.as_str().into(),
                ]);
            }
            t
        }
        Table::Redirects => {
            let mut t = TableData::new(&[
                url("Address"),
                number("Hops"),
                url("Final Address"),
                number("Final Status Code"),
                text("Chain"),
                text("Problem"),
            ]);
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
                t.rows.push(vec![
                    ix.url(r.from).into(),
                    int(hops),
                    ix.url(at).into(),
                    status(at),
                    chain.join(" -> ").into(),
                    problem.get(&r.from).copied().unwrap_or("").into(),
                ]);
            }
            t
        }
        Table::Canonicals => {
            let mut t = TableData::new(&[
                url("Address"),
                url("Canonical Link Element"),
                text("Source"),
                text("In Head"),
                number("Canonical Status Code"),
                text("Self-Referencing"),
            ]);
            for c in &input.canonicals {
                let source = match c.source {
                    crate::input::DeclarationSource::LinkElement => "link element",
                    crate::input::DeclarationSource::HttpHeader => "HTTP header",
                };
                let target = c.target.map(|t| ix.url(t)).unwrap_or(&c.href_raw);
                t.rows.push(vec![
                    ix.url(c.page).into(),
                    target.into(),
                    source.into(),
                    c.in_head.into(),
                    c.target.map_or(Cell::Empty, status),
                    (c.target == Some(c.page)).into(),
                ]);
            }
            t
        }
        Table::SitemapEntries => {
            let mut t = TableData::new(&[
                url("Sitemap"),
                url("Address"),
                number("Status Code"),
                text("Indexability"),
                url("Preferred URL"),
            ]);
            let sitemap: HashMap<u32, &str> = input
                .sitemaps
                .iter()
                .map(|s| (s.id, s.url.as_str()))
                .collect();
            for e in &input.sitemap_entries {
                let (address, code, indexable, preferred) = match e.url_id {
                    Some(id) => {
                        let canonical = first_canonical.get(&id).copied().flatten();
                        (
                            ix.url(id),
                            status(id),
                            ix.indexability(id, canonical).0,
                            ix.preferred.get(&id).copied().unwrap_or(""),
                        )
                    }
                    None => (e.loc_raw.as_str(), Cell::Empty, "", ""),
                };
                t.rows.push(vec![
                    sitemap.get(&e.sitemap_id).copied().unwrap_or("").into(),
                    address.into(),
                    code,
                    indexable.into(),
                    preferred.into(),
                ]);
            }
            t
        }
        Table::LinksToNonPreferred => {
            let mut t = TableData::new(&[
                url("Source"),
                url("Destination"),
                url("Preferred URL"),
                text("Anchor Text"),
                text("Link Position"),
                text("Nofollow"),
            ]);
            let anchors: HashMap<(UrlId, UrlId), &str> = input
                .anchors
                .iter()
                .map(|a| ((a.from, a.to), a.text.as_str()))
                .collect();
            for l in &input.links {
                let Some(to) = l.to else { continue };
                let Some(preferred) = ix.preferred.get(&to) else {
                    continue;
                };
                if *preferred == ix.url(to) {
                    continue;
                }
                t.rows.push(vec![
                    ix.url(l.from).into(),
                    ix.url(to).into(),
                    (*preferred).into(),
                    anchors.get(&(l.from, to)).copied().unwrap_or("").into(),
                    l.region.map_or("", |r| r.as_str()).into(),
                    l.nofollow.into(),
                ]);
            }
            t
        }
    }
}

/// The fix files a developer applies: `(file name, contents)`. The redirect map comes as
/// CSV and as configuration for nginx, Apache, Netlify (`_redirects`), Vercel
/// (`vercel.json`), Cloudflare Bulk Redirects and the WordPress Redirection plugin.
/// The server files hold only the redirects that are new or change what the site
/// answers; `include_existing` writes those it already answers too.
pub fn fix_files(analysis: &Analysis, include_existing: bool) -> Vec<(&'static str, String)> {
    let mut f: FixFiles = analysis.fix_files();
    f.include_existing = include_existing;
    vec![
        ("redirect_map.csv", f.redirects_csv()),
        ("redirects.nginx.conf", f.nginx()),
        ("redirects.apache.conf", f.apache()),
        ("_redirects", f.netlify()),
        ("vercel.json", f.vercel()),
        ("redirects.cloudflare.csv", f.cloudflare_csv()),
        ("redirects.wordpress.csv", f.wordpress_csv()),
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
            "https://example.com/,200,,Indexable,,\"'=cmd|' /C calc'!A0, \"\"quoted\"\"\",,,0,30,,,"
        );
    }

    #[test]
    fn cells_stay_whole_where_a_spreadsheet_splits_on_semicolons() {
        let input: AuditInput = serde_json::from_value(serde_json::json!({
            "urls": [{"id": 1, "url": "https://example.com/a;=1+1;b"}],
            "fetches": [{"url_id": 1, "status": 200, "title": "x;=HYPERLINK(\"y\");@SUM(A1)\t-2", "word_count": 30}]
        }))
        .unwrap();
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let mut out = Vec::new();
        write_table(Table::Pages, &input, &analysis, &mut out).unwrap();
        // Read back as a spreadsheet in a `;` (or tab) locale would: quoted fields stay
        // whole, so no field starts a formula.
        for delimiter in [b';', b'\t', b','] {
            let mut r = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .has_headers(false)
                .flexible(true)
                .from_reader(out.as_slice());
            for record in r.records() {
                for field in record.unwrap().iter() {
                    assert!(
                        !field.starts_with(['=', '+', '-', '@']),
                        "{:?}: {field:?}",
                        delimiter as char
                    );
                }
            }
        }
    }
}
