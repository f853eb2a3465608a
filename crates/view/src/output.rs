//! The command line's machine-readable output (`--format json` and `jsonl`): one
//! document type per command, built from the same types the app's bindings and the MCP
//! tools use, and their JSON Schemas (`docs/json/`, checked by a test against these
//! types).
//!
//! `--format json` prints one document; `--format jsonl` prints the document's rows,
//! one JSON value a line, without the envelope. Every document carries
//! [`SCHEMA_VERSION`], raised when a field is removed or changes meaning (adding a
//! field does not raise it).

use crate::normalize::NormalizedUrl;
use crate::types::{
    AuditListItem, DiffView, FindingView, IssueView, LinkPage, Overview, UrlDetail,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version of every document here.
pub const SCHEMA_VERSION: u32 = 1;

/// `dustpan audits --format json`: every audit in the database, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditsDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// The audits (one a line with `--format jsonl`).
    pub audits: Vec<AuditListItem>,
}

/// `dustpan report --format json`: an audit's overview, issues and every finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// Totals and counts, as the app's overview shows them.
    pub overview: Overview,
    /// One entry per kind of finding, highest priority first.
    pub issues: Vec<IssueView>,
    /// Every finding (one a line with `--format jsonl`).
    pub findings: Vec<FindingView>,
}

/// `dustpan diff --format json`: what changed between two audits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// The comparison, as the app's comparison view shows it.
    pub diff: DiffView,
    /// Nothing changed: no section has a row.
    pub unchanged: bool,
}

/// One row of a [`DiffDocument`]'s sections (`dustpan diff --format jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffRow {
    /// The section's key (`findings`, `clusters`, ...).
    pub section: String,
    /// The row's cells by column key.
    pub cells: serde_json::Map<String, serde_json::Value>,
}

/// One line of `dustpan normalize`'s input, normalized or rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", untagged)]
pub enum NormalizeLine {
    /// A URL in its canonical form, with the rules that changed it.
    Url(NormalizedUrl),
    /// A line that is not an absolute http(s) URL.
    Rejected {
        /// The line.
        input: String,
        /// Why, as a stable word (`not_absolute`, `unsupported_scheme`, `invalid_host`, ...).
        error: String,
        /// Why, in a sentence.
        message: String,
    },
}

/// `dustpan normalize --format json`: every input line, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NormalizeDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// One entry per input line (one a line with `--format jsonl`).
    pub lines: Vec<NormalizeLine>,
}

/// One candidate rule of `dustpan learn`, as its table prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LearnedRule {
    /// The rule's stable id: `replace:FROM=>TO`, `drop_param:NAME` or `host:FROM=>TO`
    /// (what `dustpan audit --rules` files hold).
    pub id: String,
    /// `confirmed`, `rejected`, `needs validation`, or `explained` (the confirmed rules
    /// already join every pair it joins; not tested).
    pub status: String,
    /// Pairs of URLs in the inputs the rule rewrites one into the other.
    pub support: u32,
    /// How often the list holds a rewrite the rule predicts (0 to 1).
    pub precision: f64,
    /// Sample pairs fetched to check it; `null` when none was.
    pub tested: Option<u32>,
    /// The share of those that were different pages (0 to 1).
    pub false_positive_rate: Option<f64>,
    /// One pair of listed URLs the rule joins.
    pub example: Option<[String; 2]>,
}

/// `dustpan learn --format json`: the rules learned from URL lists and logs, checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LearnDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// Distinct URLs read.
    pub urls: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines that were not URLs.
    pub rejected: u64,
    /// Requests made to check the candidates.
    pub requests: u64,
    /// The normalization policy the rules build on.
    pub policy: String,
    /// Every candidate, best supported first (one a line with `--format jsonl`).
    pub rules: Vec<LearnedRule>,
    /// Equivalence groups of the listed URLs under the confirmed rules and the policy.
    pub groups: u64,
    /// URLs grouped with another.
    pub grouped: u64,
}

/// `dustpan url --format json`: one URL of an audit in full, as the app's detail pane
/// shows it, with the page of its inlinks and outlinks asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UrlDocument {
    /// The version of the document's schema: 1 (`SCHEMA_VERSION`).
    pub schema_version: u32,
    /// The audit.
    pub audit_id: i64,
    /// The URL in full; its `inlinks` and `outlinks` lists are empty here (their totals
    /// are kept): the two pages below hold the links asked for (`--offset`, `--limit`).
    pub detail: UrlDetail,
    /// The page of its inlinks asked for.
    pub inlinks: LinkPage,
    /// The page of its outlinks asked for.
    pub outlinks: LinkPage,
}

/// Every document's JSON Schema, by the file name it is committed under in
/// `docs/json/v1/` (the folder is named by [`SCHEMA_VERSION`]). The documents of
/// `simulate --json`, `verify --json`, `migrate --json` and `explain --format json`
/// (and a line of its `jsonl`) are the analysis's own types, in snake_case and without
/// `schemaVersion`.
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    vec![
        ("audits.schema.json", schemars::schema_for!(AuditsDocument)),
        ("report.schema.json", schemars::schema_for!(ReportDocument)),
        ("diff.schema.json", schemars::schema_for!(DiffDocument)),
        ("diff-row.schema.json", schemars::schema_for!(DiffRow)),
        ("learn.schema.json", schemars::schema_for!(LearnDocument)),
        (
            "normalize.schema.json",
            schemars::schema_for!(NormalizeDocument),
        ),
        ("url.schema.json", schemars::schema_for!(UrlDocument)),
        (
            "simulate.schema.json",
            schemars::schema_for!(crate::fixplan::Simulation),
        ),
        (
            "verify.schema.json",
            schemars::schema_for!(crate::verify::Verification),
        ),
        (
            "migrate.schema.json",
            schemars::schema_for!(crate::migrate::MigrationReport),
        ),
        (
            "explain.schema.json",
            schemars::schema_for!(crate::explain::Explanation),
        ),
        (
            "explain-url.schema.json",
            schemars::schema_for!(crate::explain::Explained),
        ),
    ]
}

/// The folder under the repository's `docs/json/` that holds this version's schemas.
pub fn schema_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/json")
        .join(format!("v{SCHEMA_VERSION}"))
}

/// The rows of a [`DiffView`]'s sections, one per row, cells by column key.
pub fn diff_rows(d: &DiffView) -> Vec<DiffRow> {
    d.sections
        .iter()
        .flat_map(|s| {
            s.rows.iter().map(|row| DiffRow {
                section: s.key.clone(),
                cells: s
                    .columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| {
                        (
                            c.key.clone(),
                            serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                        )
                    })
                    .collect(),
            })
        })
        .collect()
}
