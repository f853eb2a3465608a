//! The types the desktop app exchanges with its web front end (JSON, camelCase).
//!
//! Their TypeScript declarations are generated into `ui/src/bindings/` by
//! [`crate::bindings::export`]; change them here, never there.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use ts_rs::{Config, TS};

/// One table cell: text, a number, or empty (`null`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(untagged)]
pub enum Cell {
    /// Text, shown as text (never as HTML).
    Text(String),
    /// An integer (sorts numerically).
    Number(i64),
    /// No value.
    Empty,
}

impl Cell {
    /// The cell as the text a filter compares with (`""` when empty).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Text(s) => std::borrow::Cow::Borrowed(s),
            Cell::Number(n) => std::borrow::Cow::Owned(n.to_string()),
            Cell::Empty => std::borrow::Cow::Borrowed(""),
        }
    }
}

/// How a column's cells are shown and sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ColumnKind {
    /// Free text.
    Text,
    /// Integers, sorted numerically.
    Number,
    /// A URL (shown as text, never as a live link to crawled content).
    Url,
}

/// A table column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Column {
    /// The column's stable id (snake_case), which a [`SortSpec`] or [`ColumnFilter`]
    /// names; never shown.
    pub key: String,
    /// The header shown (the CSV export's header).
    pub title: String,
    /// How the cells are shown and sorted.
    pub kind: ColumnKind,
}

/// Every table of an audit the app can page through.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum TableName {
    /// Every URL with status, indexability, title, canonical and cluster.
    Pages,
    /// One row per cluster: id, preferred URL, members, cause, fix.
    Clusters,
    /// One row per cluster member (the CSV export's clusters table).
    ClusterMembers,
    /// Every finding.
    Findings,
    /// One row per redirecting URL with its chain.
    Redirects,
    /// Every rel=canonical declaration.
    Canonicals,
    /// Every sitemap entry.
    SitemapEntries,
    /// Internal links to URLs that are not their cluster's preferred URL.
    LinksToNonPreferred,
    /// The query-parameter classifier.
    Params,
    /// The learned DUST rules.
    DustRules,
    /// One row per URL a finding names: the Issues view's URLs, with the finding's
    /// summary, fix and evidence.
    IssueUrls,
    /// How the server answers URL variants no page links to, one row per rule.
    UrlVariants,
    /// Titles, first headings and meta descriptions that different pages share, one
    /// row per value and page.
    DuplicateMetadata,
    /// An access log's requests to each cluster's non-preferred URLs, ranked: the
    /// crawl budget wasted on duplicates (empty unless the audit read an access log).
    LogWaste,
    /// Links to other sites (hosts outside the audit's own), one row per link, with
    /// how many pages link to each target.
    External,
}

impl TableName {
    /// Every table.
    pub const ALL: [TableName; 15] = [
        TableName::Pages,
        TableName::Clusters,
        TableName::ClusterMembers,
        TableName::Findings,
        TableName::Redirects,
        TableName::Canonicals,
        TableName::SitemapEntries,
        TableName::LinksToNonPreferred,
        TableName::Params,
        TableName::DustRules,
        TableName::IssueUrls,
        TableName::UrlVariants,
        TableName::DuplicateMetadata,
        TableName::LogWaste,
        TableName::External,
    ];
}

/// Sort by one column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SortSpec {
    /// A [`Column::key`].
    pub column: String,
    /// Largest first.
    pub descending: bool,
}

/// How a [`ColumnFilter`] compares a cell with its value.
///
/// Text operators compare the cell's text (a number's decimal digits, `""` for an empty
/// cell) case-insensitively, after lower-casing both sides as the search does: an empty
/// cell is the empty text, so `equals ""` keeps the empty cells, `not_equals ""` the
/// others, and `not_contains` keeps them too. Number operators compare the cell's number
/// (an integer cell, or a text cell that is a decimal number such as `0.95`); an empty
/// or non-numeric cell matches no number operator, `ne` included.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FilterOp {
    /// The text contains the value.
    Contains,
    /// The text does not contain the value.
    NotContains,
    /// The text is the value (the form of filters written before operators existed).
    #[default]
    Equals,
    /// The text is not the value.
    NotEquals,
    /// The text starts with the value.
    StartsWith,
    /// The text ends with the value.
    EndsWith,
    /// The text matches the value as a regular expression (Rust `regex` syntax,
    /// case-insensitive, unanchored; at most [`MAX_PATTERN_LEN`] bytes).
    Regex,
    /// The number equals the value.
    Eq,
    /// The number differs from the value.
    Ne,
    /// The number is below the value.
    Lt,
    /// The number is at most the value.
    Le,
    /// The number is above the value.
    Gt,
    /// The number is at least the value.
    Ge,
    /// The number lies between the value and [`ColumnFilter::upper`], both included
    /// (in either order).
    Between,
}

impl FilterOp {
    /// The operators on text, in the order the app offers them.
    pub const TEXT: [FilterOp; 7] = [
        FilterOp::Contains,
        FilterOp::NotContains,
        FilterOp::Equals,
        FilterOp::NotEquals,
        FilterOp::StartsWith,
        FilterOp::EndsWith,
        FilterOp::Regex,
    ];

    /// The operators on numbers, in the order the app offers them.
    pub const NUMBER: [FilterOp; 7] = [
        FilterOp::Eq,
        FilterOp::Ne,
        FilterOp::Lt,
        FilterOp::Le,
        FilterOp::Gt,
        FilterOp::Ge,
        FilterOp::Between,
    ];

    /// Every operator: text ones, then number ones.
    pub const ALL: [FilterOp; 14] = [
        FilterOp::Contains,
        FilterOp::NotContains,
        FilterOp::Equals,
        FilterOp::NotEquals,
        FilterOp::StartsWith,
        FilterOp::EndsWith,
        FilterOp::Regex,
        FilterOp::Eq,
        FilterOp::Ne,
        FilterOp::Lt,
        FilterOp::Le,
        FilterOp::Gt,
        FilterOp::Ge,
        FilterOp::Between,
    ];

    /// It compares numbers.
    pub fn is_numeric(self) -> bool {
        FilterOp::NUMBER.contains(&self)
    }

    /// The operator as the app shows it (`contains`, `≥`, ...).
    pub fn label(self) -> &'static str {
        match self {
            FilterOp::Contains => "contains",
            FilterOp::NotContains => "does not contain",
            FilterOp::Equals => "equals",
            FilterOp::NotEquals => "does not equal",
            FilterOp::StartsWith => "starts with",
            FilterOp::EndsWith => "ends with",
            FilterOp::Regex => "matches regex",
            FilterOp::Eq => "=",
            FilterOp::Ne => "≠",
            FilterOp::Lt => "<",
            FilterOp::Le => "≤",
            FilterOp::Gt => ">",
            FilterOp::Ge => "≥",
            FilterOp::Between => "between",
        }
    }
}

/// The longest regular expression a [`FilterOp::Regex`] filter accepts, in bytes.
pub const MAX_PATTERN_LEN: usize = 1000;

/// Keep rows whose cell in `column` passes `op` with `value` (and `upper`).
///
/// `{ "column", "equals" }`, the form before operators, still reads: an
/// [`FilterOp::Equals`] filter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnFilter {
    /// A [`Column::key`].
    pub column: String,
    /// How the cell is compared.
    pub op: FilterOp,
    /// The text, pattern or number compared with (the lower bound of `between`).
    pub value: String,
    /// The upper bound of [`FilterOp::Between`]; the other operators ignore it.
    pub upper: Option<String>,
}

impl<'de> Deserialize<'de> for ColumnFilter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ColumnFilter, D::Error> {
        /// The wire form, with the one before operators (`equals`) as an alias.
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            column: String,
            #[serde(default)]
            op: FilterOp,
            #[serde(alias = "equals")]
            value: String,
            #[serde(default)]
            upper: Option<String>,
        }
        let w = Wire::deserialize(d)?;
        Ok(ColumnFilter {
            column: w.column,
            op: w.op,
            value: w.value,
            upper: w.upper,
        })
    }
}

impl ColumnFilter {
    /// A filter of `op` with one value.
    pub fn new(column: impl Into<String>, op: FilterOp, value: impl Into<String>) -> ColumnFilter {
        ColumnFilter {
            column: column.into(),
            op,
            value: value.into(),
            upper: None,
        }
    }

    /// A [`FilterOp::Between`] filter, both bounds included.
    pub fn between(
        column: impl Into<String>,
        low: impl Into<String>,
        high: impl Into<String>,
    ) -> ColumnFilter {
        ColumnFilter {
            column: column.into(),
            op: FilterOp::Between,
            value: low.into(),
            upper: Some(high.into()),
        }
    }
}

/// A table's view without paging: which rows, in which order (what Export writes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewQuery {
    /// The table.
    pub table: TableName,
    /// The order (the table's own order when absent).
    pub sort: Option<SortSpec>,
    /// Case-insensitive substring over every cell of the row.
    pub search: Option<String>,
    /// All must match.
    pub filters: Vec<ColumnFilter>,
}

impl From<&TableQuery> for ViewQuery {
    fn from(q: &TableQuery) -> ViewQuery {
        ViewQuery {
            table: q.table,
            sort: q.sort.clone(),
            search: q.search.clone(),
            filters: q.filters.clone(),
        }
    }
}

/// A page of a table: which rows, in which order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TableQuery {
    /// The table.
    pub table: TableName,
    /// The order (the table's own order when absent).
    pub sort: Option<SortSpec>,
    /// Case-insensitive substring over every cell of the row.
    pub search: Option<String>,
    /// All must match.
    pub filters: Vec<ColumnFilter>,
    /// First matched row to return.
    pub offset: u32,
    /// Most rows to return (capped at [`MAX_LIMIT`]).
    pub limit: u32,
}

/// The most rows one query returns.
pub const MAX_LIMIT: u32 = 1000;

/// A page of rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TablePage {
    /// The table.
    pub table: TableName,
    /// Its columns.
    pub columns: Vec<Column>,
    /// Rows in the table.
    pub total: u32,
    /// Rows after search and filters.
    pub matched: u32,
    /// The first row's position among the matched rows.
    pub offset: u32,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// A stable key per row (clusters: the cluster id; findings: the finding key).
    pub row_keys: Vec<String>,
}

/// Findings per severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeverityCounts {
    /// Errors.
    pub error: u32,
    /// Warnings.
    pub warning: u32,
    /// Notices.
    pub notice: u32,
}

/// One audit in the history list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditListItem {
    /// The audit id.
    pub id: i64,
    /// The first start URL.
    pub start_url: String,
    /// The start URLs of its stored configuration: what a resume or a re-run requests.
    pub start_urls: Vec<String>,
    /// The DNS overrides of its stored configuration (`host:port:address`, as curl's
    /// `--resolve`): a re-run sends these hosts' requests to these addresses.
    pub resolve: Vec<String>,
    /// Extra certificate authorities its stored configuration trusts.
    pub extra_ca_certs: u32,
    /// The include patterns of its stored configuration (regular expressions; only
    /// matching URLs are crawled when any is given).
    pub includes: Vec<String>,
    /// The exclude patterns of its stored configuration (matching URLs are not crawled).
    pub excludes: Vec<String>,
    /// Its stored configuration follows links marked nofollow.
    pub follow_nofollow: bool,
    /// Why its stored configuration is not run (unreadable, or start URLs that differ
    /// from the audit's); `null` when it can be.
    pub config_problem: Option<String>,
    /// Where the audit stands.
    pub status: AuditStatus,
    /// When it started (ms since the epoch).
    pub started_at: i64,
    /// When its last run ended.
    pub finished_at: Option<i64>,
    /// Pages fetched.
    pub pages: i64,
    /// URLs known.
    pub urls: i64,
    /// Findings per severity; `null` until the audit has been analysed once.
    pub findings: Option<SeverityCounts>,
    /// Clusters; `null` until the audit has been analysed once.
    pub clusters: Option<u32>,
    /// The limit or budget its crawl stopped at, and where (as the overview says it);
    /// `null` for a crawl that covered the site.
    #[serde(default)]
    pub stop: Option<String>,
    /// Why it failed, as stored; `null` unless it failed.
    #[serde(default)]
    pub failure: Option<String>,
    /// A resume would continue it: it did not finish (or a per-run budget stopped it)
    /// and its stored configuration can run (the rule `dustpan audit --resume` follows).
    #[serde(default)]
    pub resumable: bool,
    /// For a list audit, what each list file held; `null` for a crawl from start URLs.
    #[serde(default)]
    pub list: Option<Vec<ListInputView>>,
}

/// One file of a list audit: what it held and the lines that were not URLs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListInputView {
    /// The file as given.
    pub name: String,
    /// Its format (`plain`, `sitemap`, `sitemap_index`, `csv`, `access_log`).
    pub format: String,
    /// Lines read.
    pub lines: u64,
    /// Distinct URLs it listed, kept for the audit.
    pub urls: u64,
    /// Lines that were not URLs (skipped).
    pub rejected: u64,
    /// Lines naming a URL listed before.
    pub repeated: u64,
    /// Lines naming URLs past the limit: not audited.
    pub over_limit: u64,
    /// The first lines that were not URLs: `line 4: not a URL: "foo"`.
    pub rejected_lines: Vec<String>,
}

/// A normalization preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PresetName {
    /// RFC 3986 safe normalization only.
    Rfc3986,
    /// What search engines unify (the default).
    Seo,
    /// Every rule.
    Aggressive,
}

impl PresetName {
    /// Every preset, safest first.
    pub const ALL: [PresetName; 3] = [PresetName::Rfc3986, PresetName::Seo, PresetName::Aggressive];
}

/// What the start form asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartAuditRequest {
    /// The start URL (http or https).
    pub url: String,
    /// Stop admitting URLs after this many.
    pub max_urls: Option<u32>,
    /// Most link hops from the start URL.
    pub max_depth: Option<u32>,
    /// Requests in flight at once.
    pub concurrency: Option<u32>,
    /// Obey robots.txt.
    pub respect_robots: bool,
    /// The User-Agent header.
    pub user_agent: Option<String>,
    /// The normalization preset for the analysis (exclusive with `policyFile`).
    pub preset: Option<PresetName>,
    /// A TOML or JSON policy file for the analysis.
    pub policy_file: Option<String>,
    /// `host:port:addr` overrides, like curl's `--resolve`.
    pub resolve: Vec<String>,
    /// Audit a site whose host name resolves to a non-public address (loopback,
    /// private, link-local, a cloud metadata service): refused without it, since a DNS
    /// answer cannot tell a staging server from a machine's other services (an IP
    /// address in the start URL, or a resolve override, needs no opt-in). For a list,
    /// every listed host may then be at such an address (without it only the site's and
    /// those given a resolve override may). The command line's `--allow-internal`; off
    /// unless the form says so.
    #[serde(default)]
    pub allow_internal: bool,
    /// Only crawl URLs matching one of these regular expressions (the command line's
    /// `--include`).
    #[serde(default)]
    pub includes: Vec<String>,
    /// Do not crawl URLs matching any of these regular expressions (`--exclude`).
    #[serde(default)]
    pub excludes: Vec<String>,
    /// Follow links marked rel=nofollow (`--no-follow-nofollow` is `false`); the
    /// crawl's default (follow) when absent.
    #[serde(default)]
    pub follow_nofollow: Option<bool>,
    /// Probe URL variants once the crawl is done (`--no-probes` is `false`); the
    /// crawl's default (probe) when absent.
    #[serde(default)]
    pub probe_variants: Option<bool>,
    /// Most requests per second to one host (`--rate`); the crawl's default when absent.
    #[serde(default)]
    pub requests_per_second: Option<f64>,
    /// Render every HTML page in headless Chromium too (`--render`), kept with the audit
    /// so that its re-run renders again; refused when Chromium is not installed.
    #[serde(default)]
    pub render: bool,
}

/// A list audit's inputs (`dustpan audit --list`): files read through `urllist`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ListAuditRequest {
    /// URL lists, XML sitemaps, CSV files (an Address / URL / Loc column) or access
    /// logs, on this machine.
    pub files: Vec<String>,
    /// The site's scheme and host, which an access log's paths (and a list's) are
    /// resolved against; required for an access log.
    pub site: Option<String>,
    /// For access logs: keep only requests whose user agent matches this regular
    /// expression.
    pub log_agent: Option<String>,
    /// Crawl on from the listed URLs as from start URLs, instead of auditing the list
    /// alone.
    pub follow: bool,
}

/// What a running audit is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ProgressPhase {
    /// Start URLs, robots.txt, sitemaps.
    Discovery,
    /// Fetching pages.
    Crawling,
    /// Walking redirect chains and analysing.
    Analysing,
    /// Finished.
    Done,
    /// Stopped by the user (can be resumed).
    Cancelled,
    /// Stopped by an error (can be resumed).
    Failed,
}

impl ProgressPhase {
    /// Every phase, in the order a run goes through them.
    pub const ALL: [ProgressPhase; 6] = [
        ProgressPhase::Discovery,
        ProgressPhase::Crawling,
        ProgressPhase::Analysing,
        ProgressPhase::Done,
        ProgressPhase::Cancelled,
        ProgressPhase::Failed,
    ];

    /// The run is over.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            ProgressPhase::Done | ProgressPhase::Cancelled | ProgressPhase::Failed
        )
    }
}

/// The event a running audit's [`Progress`] is sent in, a few times a second.
pub const PROGRESS_EVENT: &str = "audit-progress";

/// The event the last [`Progress`] of a run (a final phase) is sent in.
pub const FINISHED_EVENT: &str = "audit-finished";

/// A snapshot of a running audit (the [`PROGRESS_EVENT`] and [`FINISHED_EVENT`] events).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The audit.
    pub audit_id: i64,
    /// What it is doing.
    pub phase: ProgressPhase,
    /// URLs processed (fetched, failed or blocked).
    pub fetched: u32,
    /// URLs waiting.
    pub queued: u32,
    /// Fetches without a usable response.
    pub errors: u32,
    /// URLs processed per second in this run.
    pub pages_per_second: f64,
    /// Time spent in this run, ms.
    pub elapsed_ms: u32,
    /// The error, when the audit failed.
    pub message: Option<String>,
    /// Processed URLs by the class of their answer, earlier runs of the audit included.
    pub statuses: StatusCounts,
    /// The latest URLs that failed to fetch or answered 4xx / 5xx in this run, newest
    /// first (at most ten).
    pub latest_errors: Vec<LatestError>,
}

impl Progress {
    /// An audit's progress before its crawl reports anything.
    pub fn starting(audit_id: i64, phase: ProgressPhase) -> Progress {
        Progress {
            audit_id,
            phase,
            fetched: 0,
            queued: 0,
            errors: 0,
            pages_per_second: 0.0,
            elapsed_ms: 0,
            message: None,
            statuses: StatusCounts::default(),
            latest_errors: Vec::new(),
        }
    }
}

/// Processed URLs by the class of their answer (the progress panel's breakdown): the
/// fetches by status class, and the URLs robots.txt kept the crawler from requesting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusCounts {
    /// 2xx.
    pub success: u32,
    /// 3xx.
    pub redirect: u32,
    /// 4xx.
    pub client_error: u32,
    /// 5xx.
    pub server_error: u32,
    /// 1xx and codes outside 100-599.
    pub other: u32,
    /// Requests that ended without a response (timeout, refused or dropped connection).
    pub no_response: u32,
    /// Not requested: disallowed by robots.txt.
    pub blocked: u32,
}

/// A URL that failed to fetch or answered 4xx / 5xx while the audit ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LatestError {
    /// The URL requested.
    pub url: String,
    /// Its status code, when a response arrived.
    pub status: Option<u16>,
    /// What went wrong when the fetch failed (`timeout`, `connect`, `body`, ...).
    pub error: Option<String>,
    /// When it was requested (ms since the epoch).
    pub at: i64,
}

/// A label and a count (chart data).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountItem {
    /// What is counted.
    pub label: String,
    /// How many.
    pub count: u32,
}

/// The overview of an opened audit: totals and chart data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// The audit.
    pub audit_id: i64,
    /// The first start URL.
    pub start_url: String,
    /// Its status.
    pub status: AuditStatus,
    /// When it started (ms since the epoch).
    pub started_at: i64,
    /// When its last run ended.
    pub finished_at: Option<i64>,
    /// Pages fetched.
    pub pages: u32,
    /// URLs known.
    pub urls: u32,
    /// Clusters.
    pub clusters: u32,
    /// URLs in clusters.
    pub clustered_urls: u32,
    /// Findings per severity (`error`, `warning`, `notice`).
    pub findings_by_severity: Vec<CountItem>,
    /// Findings per family (each a [`Family`] name), in the order [`Family::ALL`] lists them.
    pub findings_by_family: Vec<CountItem>,
    /// Clusters per main cause.
    pub clusters_by_cause: Vec<CountItem>,
    /// Fetches per status code (`200`, `301`, `no response`, ...) of the site's own URLs
    /// (the URL variants Dustpan made up to test the server's rules left out).
    pub status_codes: Vec<CountItem>,
    /// Redirect chains per length (`1`, `2`, `3`, `4+` hops).
    pub redirect_chain_lengths: Vec<CountItem>,
    /// The scheme the site prefers, as its redirects show.
    pub preferred_scheme: Option<String>,
    /// The normalization policy the analysis used.
    pub policy: String,
    /// The limit or budget the crawl stopped at, and where (`max_urls (after 500 URLs;
    /// 1,234 more were found and not crawled)`); `None` for a crawl that covered the site.
    #[serde(default)]
    pub stop: Option<String>,
    /// Why the audit failed, as stored; `null` unless it failed.
    #[serde(default)]
    pub failure: Option<String>,
}

/// A cluster member and why it is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    /// The URL.
    pub url: String,
    /// Its place in the cluster.
    pub role: Role,
    /// Its status code.
    pub status: Option<u16>,
    /// Indexable (2xx, no noindex, not blocked, not canonicalised elsewhere).
    pub indexable: bool,
    /// Why it is in the cluster, as sentences.
    pub evidence: Vec<String>,
    /// The tier of that evidence: `strong` (every merge is strong evidence), `null` for
    /// the preferred URL.
    pub tier: Option<Tier>,
    /// What to do (`null` for the preferred URL).
    pub fix: Option<String>,
}

/// Which URL one site signal votes for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalView {
    /// The signal.
    pub signal: SignalKind,
    /// The URL it votes for, if any.
    pub votes_for: Option<String>,
    /// It votes for the preferred URL.
    pub agrees: bool,
}

/// A finding, ready to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindingView {
    /// Stable key (the same in every audit of the same problem).
    pub key: String,
    /// The finding id, e.g. `DUP-HOST` (one of [`FindingCode`]'s codes).
    #[ts(as = "FindingCode")]
    pub id: String,
    /// How much it matters.
    pub severity: Severity,
    /// The family it is listed under.
    pub family: Family,
    /// `strong` (stated as fact) or `review` (near-identical content: weak evidence,
    /// never merged, no canonical proposed).
    pub tier: Tier,
    /// One line.
    pub title: String,
    /// One sentence about this instance.
    pub summary: String,
    /// Why it matters.
    pub why: String,
    /// The URLs concerned.
    pub urls: Vec<String>,
    /// What was seen.
    pub evidence: Vec<String>,
    /// What to do.
    pub fixes: Vec<String>,
}

/// One kind of finding present in an audit, as the Issues view lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueView {
    /// The finding id, e.g. `DUP-HOST` (one of [`FindingCode`]'s codes).
    #[ts(as = "FindingCode")]
    pub code: String,
    /// The kind's title.
    pub title: String,
    /// How much it matters.
    pub severity: Severity,
    /// The family it is listed under.
    pub family: Family,
    /// `strong` or `review`.
    pub tier: Tier,
    /// Findings of this kind.
    pub findings: u32,
    /// Distinct URLs they name; a URL-variant rule's finding counts the site's pages
    /// it concerns instead of the variants Dustpan made up as examples.
    pub urls: u32,
    /// Severity weight × log2(1 + URLs), rounded to two decimals (see
    /// [`crate::issues::priority`]); the list is sorted by it, highest first.
    pub priority: f64,
    /// Why it matters (the kind's catalog text).
    pub why: String,
    /// How to fix it: the kinds of change its findings propose, with counts.
    pub how_to_fix: String,
    /// The first finding's first fix, as an example.
    pub example_fix: String,
}

/// One labelled value of a URL's detail (the Pages table's columns, in its order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetailField {
    /// A [`Column::key`] of the Pages table.
    pub key: String,
    /// Its title.
    pub label: String,
    /// The value as text (empty when none).
    pub value: String,
}

/// A canonical declaration of a URL's page, from any source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalView {
    /// `link element` or `HTTP header`.
    pub source: String,
    /// The href as written.
    pub href: String,
    /// The URL it resolved to (`None` when it did not resolve).
    pub target: Option<String>,
    /// The element is in `<head>` (always true for a header).
    pub in_head: bool,
}

/// One link from or to a URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkView {
    /// The other end: the linking page (inlinks) or the target (outlinks).
    pub url: String,
    /// The anchor text, when the store keeps it (links to redirects, errors and
    /// canonicalised URLs).
    pub anchor: Option<String>,
    /// Where in the page: navigation, header, footer, sidebar, main, body.
    pub region: Option<String>,
    /// What the link comes from: `link`, `nofollow link`, `rel=next`, `og:url`, ….
    pub kind: String,
    /// rel=nofollow.
    pub nofollow: bool,
    /// The target's status code (outlinks; the URL's own for inlinks), when fetched.
    pub status: Option<u16>,
    /// The other end is on another site: a host outside the audit's own (see
    /// [`crate::external`]).
    pub external: bool,
}

/// One redirect hop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HopView {
    /// The redirecting URL.
    pub from: String,
    /// Where it points (`None`: the target did not resolve).
    pub to: Option<String>,
    /// The status code (0 for a meta refresh).
    pub status: u16,
    /// `HTTP` or `meta refresh`.
    pub kind: String,
}

/// A URL's place in its cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MembershipView {
    /// The cluster.
    pub cluster_id: u32,
    /// Its preferred URL.
    pub preferred_url: String,
    /// Its main cause.
    pub cause: Cause,
    /// Members.
    pub size: u32,
    /// The URL as a member: role, evidence, fix.
    pub member: MemberView,
}

/// One sitemap entry naming a URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SitemapEntryView {
    /// The sitemap's URL.
    pub sitemap: String,
    /// Its HTTP status.
    pub status: Option<u16>,
}

/// Everything the app shows about one URL (the detail pane), its response headers
/// included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UrlDetail {
    /// The URL as first found.
    pub url: String,
    /// The Pages table's row for it.
    pub fields: Vec<DetailField>,
    /// Every canonical declaration of the page, in declaration order.
    pub canonicals: Vec<CanonicalView>,
    /// Robots directives from every source (meta robots, X-Robots-Tag, robots.txt).
    pub robots: Vec<String>,
    /// Links to it, at most [`DETAIL_LINKS`].
    pub inlinks: Vec<LinkView>,
    /// How many links to it in all.
    pub inlinks_total: u32,
    /// Links from it, at most [`DETAIL_LINKS`].
    pub outlinks: Vec<LinkView>,
    /// How many links from it in all.
    pub outlinks_total: u32,
    /// Its redirect hops, from it to the end of the chain.
    pub hops: Vec<HopView>,
    /// Its cluster, when it is in one.
    pub cluster: Option<MembershipView>,
    /// Findings that name it.
    pub findings: Vec<FindingView>,
    /// Sitemaps that list it.
    pub sitemaps: Vec<SitemapEntryView>,
    /// Read from the store while the audit is being crawled, before any analysis: the
    /// fetch, canonicals, robots directives, outlinks and redirect hops stored so far,
    /// and as the only inlink the page the URL was first found on; no cluster, findings
    /// or sitemaps yet.
    pub live: bool,
    /// The response's headers as stored (at most 32 and 8 KiB, a value over 1 KiB cut
    /// with a marker): `link`, `x-robots-tag`, `cache-control`, `location` and
    /// `content-type` first, then the rest in the order sent. The values are the crawled
    /// site's text, shown escaped.
    pub headers: Vec<HeaderView>,
    /// Headers of the response not stored (past the bounds).
    pub headers_omitted: u32,
    /// Headers were stored for this URL: false when it was not fetched, or fetched by a
    /// version that did not store them.
    pub headers_stored: bool,
}

/// One response header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeaderView {
    /// The name, lower case.
    pub name: String,
    /// The value as sent (a long one cut with a marker).
    pub value: String,
}

/// The most inlinks or outlinks a [`UrlDetail`] carries.
pub const DETAIL_LINKS: usize = 1000;

/// Which of a URL's links: the links to it or the links from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LinkDirection {
    /// Links to the URL, from the pages that link to it.
    Inlinks,
    /// Links from the URL's page.
    Outlinks,
}

impl LinkDirection {
    /// Both, inlinks first.
    pub const ALL: [LinkDirection; 2] = [LinkDirection::Inlinks, LinkDirection::Outlinks];

    /// `inlinks` or `outlinks`.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkDirection::Inlinks => "inlinks",
            LinkDirection::Outlinks => "outlinks",
        }
    }
}

/// A page of one URL's inlinks or outlinks, in the order the crawl stored them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkPage {
    /// The URL as first found.
    pub url: String,
    /// Inlinks or outlinks.
    pub direction: LinkDirection,
    /// The position of the first link of the page among all of them.
    pub offset: u32,
    /// How many there are in all.
    pub total: u32,
    /// The links of this page.
    pub links: Vec<LinkView>,
}

/// The most links a [`LinkPage`] carries.
pub const LINK_PAGE_MAX: u32 = 5000;

/// One cluster in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterDetail {
    /// The cluster id.
    pub id: u32,
    /// The preferred URL.
    pub preferred_url: String,
    /// The main cause.
    pub cause: Cause,
    /// Members.
    pub size: u32,
    /// Every member, the preferred URL first.
    pub members: Vec<MemberView>,
    /// Which URL each site signal votes for.
    pub signals: Vec<SignalView>,
    /// Findings that concern members of this cluster.
    pub findings: Vec<FindingView>,
}

/// Which findings to list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindingQuery {
    /// Only this severity.
    pub severity: Option<Severity>,
    /// Only this family.
    pub family: Option<Family>,
    /// Case-insensitive substring over id, title, URLs, evidence and fixes.
    pub search: Option<String>,
    /// First matched finding to return.
    pub offset: u32,
    /// Most findings to return (capped at [`MAX_LIMIT`]).
    pub limit: u32,
}

/// A page of findings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FindingPage {
    /// Findings in the audit.
    pub total: u32,
    /// Findings matching the query.
    pub matched: u32,
    /// The first item's position among the matched.
    pub offset: u32,
    /// The findings.
    pub items: Vec<FindingView>,
}

/// One section of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffSection {
    /// Stable key.
    pub key: String,
    /// Heading.
    pub title: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows.
    pub rows: Vec<Vec<Cell>>,
    /// Rows in the section.
    pub total: u32,
}

/// What changed between two audits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffView {
    /// The earlier audit.
    pub old_audit: i64,
    /// The later audit.
    pub new_audit: i64,
    /// Counts: findings new, findings resolved, clusters formed, ...
    pub summary: Vec<CountItem>,
    /// The changes, table by table.
    pub sections: Vec<DiffSection>,
    /// What makes the two audits hard to compare: a crawl that stopped at a limit,
    /// coverage that differs (findings on URLs the later audit did not fetch are "not
    /// crawled", never "resolved").
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Broken or self-defeating: search engines act against the site's intent.
    Error,
    /// Wastes ranking signals or crawl budget.
    Warning,
    /// Worth cleaning up.
    Notice,
}

impl Severity {
    /// Every severity, most severe first.
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Notice];

    /// The word reports print (`error`, `warning`, `notice`).
    pub fn as_str(self) -> &'static str {
        audit::Severity::from(self).as_str()
    }
}

impl From<audit::Severity> for Severity {
    fn from(s: audit::Severity) -> Severity {
        match s {
            audit::Severity::Error => Severity::Error,
            audit::Severity::Warning => Severity::Warning,
            audit::Severity::Notice => Severity::Notice,
        }
    }
}

impl From<Severity> for audit::Severity {
    fn from(s: Severity) -> audit::Severity {
        match s {
            Severity::Error => audit::Severity::Error,
            Severity::Warning => audit::Severity::Warning,
            Severity::Notice => audit::Severity::Notice,
        }
    }
}

/// The family a finding is listed under.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The same page under several URLs, and clusters whose signals disagree.
    Duplicates,
    /// rel=canonical declarations.
    Canonicals,
    /// Redirects and links to redirects.
    Redirects,
    /// Sitemaps.
    Sitemaps,
    /// Learned DUST rules, and policy rules that do not hold on the site.
    Dust,
    /// hreflang annotations.
    Hreflang,
    /// Everything else the crawl met: traps, robots.txt, links.
    Crawl,
}

impl Family {
    /// Every family, in the order the app lists them.
    pub const ALL: [Family; 7] = [
        Family::Duplicates,
        Family::Canonicals,
        Family::Redirects,
        Family::Sitemaps,
        Family::Dust,
        Family::Hreflang,
        Family::Crawl,
    ];

    /// The family's name (also its wire form): `duplicates`, `canonicals`, ...
    pub const fn as_str(self) -> &'static str {
        match self {
            Family::Duplicates => "duplicates",
            Family::Canonicals => "canonicals",
            Family::Redirects => "redirects",
            Family::Sitemaps => "sitemaps",
            Family::Dust => "dust",
            Family::Hreflang => "hreflang",
            Family::Crawl => "crawl",
        }
    }
}

impl From<audit::Family> for Family {
    fn from(f: audit::Family) -> Family {
        match f {
            audit::Family::Duplicates => Family::Duplicates,
            audit::Family::Canonicals => Family::Canonicals,
            audit::Family::Redirects => Family::Redirects,
            audit::Family::Sitemaps => Family::Sitemaps,
            audit::Family::Dust => Family::Dust,
            audit::Family::Hreflang => Family::Hreflang,
            audit::Family::Crawl => Family::Crawl,
        }
    }
}

/// How strong the evidence behind a finding or a cluster member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Enough to merge URLs and to redirect or canonicalize one to another.
    Strong,
    /// Worth a look, never a merge, never a fix that de-indexes a page.
    Review,
}

impl From<audit::Tier> for Tier {
    fn from(t: audit::Tier) -> Tier {
        match t {
            audit::Tier::Strong => Tier::Strong,
            audit::Tier::Review => Tier::Review,
        }
    }
}

/// A cluster member's place in its cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The cluster's preferred URL.
    Preferred,
    /// Redirects (its chain is part of the cluster).
    Redirects,
    /// Answers 2xx and declares another member canonical.
    Canonicalised,
    /// Answers 2xx with no canonical to another member: a duplicate.
    Duplicate,
    /// Answers 4xx/5xx or did not answer.
    Error,
    /// Not fetched (blocked, skipped or queued).
    Unfetched,
}

impl Role {
    /// Every role, the preferred URL's first.
    pub const ALL: [Role; 6] = [
        Role::Preferred,
        Role::Redirects,
        Role::Canonicalised,
        Role::Duplicate,
        Role::Error,
        Role::Unfetched,
    ];

    /// The role as every report, table and diff words it (`not fetched`, ...).
    pub fn label(self) -> &'static str {
        audit::Role::from(self).as_str()
    }
}

impl From<audit::Role> for Role {
    fn from(r: audit::Role) -> Role {
        match r {
            audit::Role::Preferred => Role::Preferred,
            audit::Role::Redirects => Role::Redirects,
            audit::Role::Canonicalised => Role::Canonicalised,
            audit::Role::Duplicate => Role::Duplicate,
            audit::Role::Error => Role::Error,
            audit::Role::Unfetched => Role::Unfetched,
        }
    }
}

impl From<Role> for audit::Role {
    fn from(r: Role) -> audit::Role {
        match r {
            Role::Preferred => audit::Role::Preferred,
            Role::Redirects => audit::Role::Redirects,
            Role::Canonicalised => audit::Role::Canonicalised,
            Role::Duplicate => audit::Role::Duplicate,
            Role::Error => audit::Role::Error,
            Role::Unfetched => audit::Role::Unfetched,
        }
    }
}

/// What made most of a cluster's merges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Redirects.
    Redirect,
    /// rel=canonical declarations.
    Canonical,
    /// The same key under the normalization policy.
    UrlNormalization,
    /// A learned DUST rule.
    DustRule,
    /// Identical text or main content.
    IdenticalContent,
    /// No evidence (a cluster of one).
    Other,
}

impl Cause {
    /// Every cause, strongest evidence first.
    pub const ALL: [Cause; 6] = [
        Cause::Redirect,
        Cause::Canonical,
        Cause::UrlNormalization,
        Cause::DustRule,
        Cause::IdenticalContent,
        Cause::Other,
    ];

    /// The kind of one link of evidence.
    pub fn of(kind: &audit::EvidenceKind) -> Cause {
        match kind {
            audit::EvidenceKind::Redirect { .. } => Cause::Redirect,
            audit::EvidenceKind::Canonical { .. } => Cause::Canonical,
            audit::EvidenceKind::SameKey { .. } => Cause::UrlNormalization,
            audit::EvidenceKind::Dust { .. } => Cause::DustRule,
            audit::EvidenceKind::IdenticalContent { .. } => Cause::IdenticalContent,
        }
    }

    /// The cause as the report names it.
    pub fn label(self) -> &'static str {
        match self {
            Cause::Redirect => "redirect",
            Cause::Canonical => "canonical",
            Cause::UrlNormalization => "URL normalization",
            Cause::DustRule => "learned DUST rule",
            Cause::IdenticalContent => "identical content",
            Cause::Other => "other",
        }
    }
}

/// A signal the site gives about which URL of a cluster is the real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// Where members' redirects end.
    Redirect,
    /// `<link rel="canonical">` elements.
    CanonicalElement,
    /// `Link: <...>; rel="canonical"` headers.
    CanonicalHeader,
    /// Sitemap entries.
    Sitemap,
    /// hreflang alternates of other pages.
    Hreflang,
    /// Internal links.
    InternalLinks,
}

impl SignalKind {
    /// Every signal.
    pub const ALL: [SignalKind; 6] = [
        SignalKind::Redirect,
        SignalKind::CanonicalElement,
        SignalKind::CanonicalHeader,
        SignalKind::Sitemap,
        SignalKind::Hreflang,
        SignalKind::InternalLinks,
    ];

    /// The signal as the cluster page names it.
    pub fn label(self) -> &'static str {
        match self {
            SignalKind::Redirect => "redirects",
            SignalKind::CanonicalElement => "canonical elements",
            SignalKind::CanonicalHeader => "canonical headers",
            SignalKind::Sitemap => "sitemaps",
            SignalKind::Hreflang => "hreflang",
            SignalKind::InternalLinks => "internal links",
        }
    }
}

impl From<audit::SignalKind> for SignalKind {
    fn from(k: audit::SignalKind) -> SignalKind {
        match k {
            audit::SignalKind::Redirect => SignalKind::Redirect,
            audit::SignalKind::CanonicalElement => SignalKind::CanonicalElement,
            audit::SignalKind::CanonicalHeader => SignalKind::CanonicalHeader,
            audit::SignalKind::Sitemap => SignalKind::Sitemap,
            audit::SignalKind::Hreflang => SignalKind::Hreflang,
            audit::SignalKind::InternalLinks => SignalKind::InternalLinks,
        }
    }
}

/// Where an audit stands, as the audits list shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    /// Crawling in this process.
    Running,
    /// Finished.
    Done,
    /// Stopped by the user (can be resumed).
    Cancelled,
    /// Stopped by an error (can be resumed).
    Failed,
    /// Marked running, but no process runs it: it was killed (can be resumed).
    Interrupted,
}

impl AuditStatus {
    /// Every status.
    pub const ALL: [AuditStatus; 5] = [
        AuditStatus::Running,
        AuditStatus::Done,
        AuditStatus::Cancelled,
        AuditStatus::Failed,
        AuditStatus::Interrupted,
    ];

    /// The stored status; `running` says whether this process runs the audit (a
    /// `running` audit that is not is [`AuditStatus::Interrupted`]).
    pub fn of(stored: store::AuditStatus, running: bool) -> AuditStatus {
        match stored {
            store::AuditStatus::Running if running => AuditStatus::Running,
            store::AuditStatus::Running => AuditStatus::Interrupted,
            store::AuditStatus::Finished => AuditStatus::Done,
            store::AuditStatus::Cancelled => AuditStatus::Cancelled,
            store::AuditStatus::Failed => AuditStatus::Failed,
        }
    }

    /// The status word (also its wire form).
    pub fn as_str(self) -> &'static str {
        match self {
            AuditStatus::Running => "running",
            AuditStatus::Done => "done",
            AuditStatus::Cancelled => "cancelled",
            AuditStatus::Failed => "failed",
            AuditStatus::Interrupted => "interrupted",
        }
    }

    /// Its crawl is not going on.
    pub fn is_settled(self) -> bool {
        self != AuditStatus::Running
    }

    /// It stopped before the end and can be resumed.
    pub fn can_resume(self) -> bool {
        matches!(
            self,
            AuditStatus::Cancelled | AuditStatus::Failed | AuditStatus::Interrupted
        )
    }
}

/// A finding's code (`DUP-HOST`, ...) in the TypeScript contract: the union of every
/// code the analysis knows. In Rust the code travels as text.
pub struct FindingCode;

impl TS for FindingCode {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some("/**\n * A finding's stable code, e.g. `DUP-HOST`.\n */\n".to_owned())
    }

    fn name(_: &Config) -> String {
        "FindingCode".to_owned()
    }

    fn inline(_: &Config) -> String {
        audit::FindingId::ALL
            .iter()
            .map(|id| format!("\"{}\"", id.code()))
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn decl(cfg: &Config) -> String {
        format!("type FindingCode = {};", Self::inline(cfg))
    }

    fn decl_concrete(cfg: &Config) -> String {
        Self::decl(cfg)
    }

    fn output_path() -> Option<PathBuf> {
        Some(PathBuf::from("FindingCode.ts"))
    }
}

pub use crate::error::{ErrorCode, IpcError};
