//! The desktop app's contract with its web front end, in TypeScript.
//!
//! `cargo run -p view --bin export-bindings` writes to `ui/src/bindings/`: one file per
//! type of [`crate::types`] (enums become string-literal unions), `vocabulary.ts` (every
//! enum's values in order, the labels the app shows, which phases and statuses are
//! final), `commands.ts` (a typed wrapper per command of [`ipc_commands!`](crate::ipc_commands)
//! and the event names), and an `index.ts` re-exporting them all. A test fails when the
//! committed files differ from what this generates.

use crate::chosen::{PathChoice, PathPurpose};
use crate::explain::{SearchConsoleView, SignalRowView};
use crate::fixplan::{FixPlanFile, FixPlanPage, ProblemCount, ProblemView, SimulationPage};
use crate::migrate::{MigrationRowView, MigrationView};
use crate::types::*;
use crate::verify::{CheckView, VerdictCount, VerificationView};
use serde::Serialize;
use std::path::{Path, PathBuf};
use ts_rs::{Config, TS};

/// The desktop shell's commands, the one list both sides are built from: each entry is
/// `name(argument: Type, ...) -> Answer;` with its doc comment. The shell implements
/// them (`$callback!` receives the list and defines one Tauri command per entry, each
/// answering `Result<Answer, IpcError>`); [`export`] writes their TypeScript wrappers.
/// Arguments cross in camelCase (`audit_id` is `auditId`), as Tauri names them.
#[macro_export]
macro_rules! ipc_commands {
    ($callback:ident) => {
        $callback! {
            /// Every audit in the database, newest first.
            list_audits() -> ::std::vec::Vec<$crate::AuditListItem>;
            /// Starts an audit; answers its id.
            start_audit(request: $crate::StartAuditRequest) -> i64;
            /// Starts a list audit of files (URL lists, sitemaps, CSV, access logs) with
            /// the limits and options of `request` (its URL is not used); answers its id.
            start_list_audit(
                request: $crate::StartAuditRequest,
                list: $crate::ListAuditRequest
            ) -> i64;
            /// The latest progress of an audit running in this process.
            audit_progress(audit_id: i64) -> ::std::option::Option<$crate::Progress>;
            /// Stops a running audit (nothing when it already stopped).
            cancel_audit(audit_id: i64) -> ();
            /// Resumes a stopped audit; answers its id.
            resume_audit(audit_id: i64) -> i64;
            /// Starts a new audit with the configuration of another; answers the new id.
            rerun_audit(audit_id: i64) -> i64;
            /// Deletes an audit that is not running.
            delete_audit(audit_id: i64) -> ();
            /// Opens an audit (loads and analyses it when needed); answers its overview.
            open_audit(audit_id: i64) -> $crate::Overview;
            /// A page of one of an opened audit's tables.
            query_table(audit_id: i64, query: $crate::TableQuery) -> $crate::TablePage;
            /// One cluster in full.
            cluster_detail(audit_id: i64, cluster_id: u32) -> $crate::ClusterDetail;
            /// A page of findings.
            query_findings(audit_id: i64, query: $crate::FindingQuery) -> $crate::FindingPage;
            /// Every finding kind present, highest priority first.
            list_issues(audit_id: i64) -> ::std::vec::Vec<$crate::IssueView>;
            /// One URL in full (the detail pane), by its URL; while the audit is crawled, what
            /// the store holds so far (`UrlDetail::live`).
            url_detail(audit_id: i64, url: ::std::string::String) -> $crate::UrlDetail;
            /// A page of a URL's inlinks or outlinks (at most `LINK_PAGE_MAX`), with their
            /// total.
            url_links(
                audit_id: i64,
                url: ::std::string::String,
                direction: $crate::LinkDirection,
                offset: u32,
                limit: u32
            ) -> $crate::LinkPage;
            /// Writes every inlink or outlink of a URL as CSV to a path chosen with
            /// `choose_path`; answers the number of rows written.
            export_url_links(
                audit_id: i64,
                url: ::std::string::String,
                direction: $crate::LinkDirection,
                path: ::std::path::PathBuf
            ) -> usize;
            /// Writes every link of the audit as CSV ("All inlinks" grouped by the linked
            /// URL, "All outlinks" by the linking page) to a path chosen with `choose_path`;
            /// answers the number of rows written.
            export_all_links(
                audit_id: i64,
                direction: $crate::LinkDirection,
                path: ::std::path::PathBuf
            ) -> usize;
            /// Writes the Excel workbook (a sheet per table) to a path chosen with
            /// `choose_path`; answers the number of sheets written.
            export_workbook(audit_id: i64, path: ::std::path::PathBuf) -> usize;
            /// Writes the self-contained HTML report of the overview and the issues to a
            /// path chosen with `choose_path`.
            export_html(audit_id: i64, path: ::std::path::PathBuf) -> ();
            /// What changed between two audits.
            compare_audits(old_audit: i64, new_audit: i64) -> $crate::DiffView;
            /// Writes one table as CSV to a path chosen with `choose_path`; answers the number
            /// of rows written.
            export_table(
                audit_id: i64,
                table: $crate::TableName,
                path: ::std::path::PathBuf
            ) -> usize;
            /// Writes the rows a table's view shows (its filters, search and order; every
            /// column) as CSV to a path chosen with `choose_path`; answers the number of rows
            /// written.
            export_view(
                audit_id: i64,
                query: $crate::ViewQuery,
                path: ::std::path::PathBuf
            ) -> usize;
            /// Writes the full report into a folder chosen with `choose_path`; answers the
            /// files written.
            export_report(
                audit_id: i64,
                dir: ::std::path::PathBuf
            ) -> ::std::vec::Vec<::std::string::String>;
            /// Why pages cannot be rendered in Chromium on this machine (`null`: they can),
            /// for the start form's "Render with Chromium" box.
            render_unavailable() -> ::std::option::Option<::std::string::String>;
            /// A page of one file of an opened audit's fix plan (at most `fixplan::MAX_PAGE`
            /// rows), as `dustpan export` writes it, with the size of every part of the plan.
            fix_plan_page(
                audit_id: i64,
                file: $crate::fixplan::FixPlanFile,
                offset: u32,
                limit: u32
            ) -> $crate::fixplan::FixPlanPage;
            /// The opened audit's fix plan simulated (`dustpan simulate`): whether it is
            /// clean, what it would create by kind, the findings resolved, remaining and new,
            /// and a page of the problems (of one kind when given).
            simulate_fix_plan(
                audit_id: i64,
                kind: ::std::option::Option<::std::string::String>,
                offset: u32,
                limit: u32
            ) -> $crate::fixplan::SimulationPage;
            /// Starts verifying a fix plan on the live site (`dustpan verify`): a list audit
            /// of the plan's URLs with the audit's crawl configuration, reporting progress
            /// like any run; the plan is a folder chosen with `choose_path`, or `null`: the
            /// audit's own. `resolve` (`host:port:address` entries, as curl's `--resolve`,
            /// `dustpan verify --resolve`) sends the requests to a staging server instead,
            /// each replacing the audit's own override for its host. Answers the
            /// verification audit's id.
            start_verification(
                audit_id: i64,
                plan_dir: ::std::option::Option<::std::path::PathBuf>,
                resolve: ::std::vec::Vec<::std::string::String>
            ) -> i64;
            /// A fix plan (a folder chosen with `choose_path`, or `null`: the audit's own)
            /// judged on a stored verification audit: each line done, missing, wrong,
            /// harmful or not checked.
            verification_result(
                audit_id: i64,
                verification_id: i64,
                plan_dir: ::std::option::Option<::std::path::PathBuf>
            ) -> $crate::verify::VerificationView;
            /// Every page of the old audit mapped to its best URL on the new one (`dustpan
            /// migrate`).
            migrate_audits(old_audit: i64, new_audit: i64) -> $crate::migrate::MigrationView;
            /// Writes `migration.csv` and the redirect map's files for every server into a
            /// folder chosen with `choose_path` (`migrationFolder`); answers the files written.
            export_migration(
                old_audit: i64,
                new_audit: i64,
                dir: ::std::path::PathBuf
            ) -> ::std::vec::Vec<::std::string::String>;
            /// A URL of a list audit made from Search Console files, explained as `dustpan
            /// explain` explains it (`null`: no Search Console file named it).
            explain_url(
                audit_id: i64,
                url: ::std::string::String
            ) -> ::std::option::Option<$crate::explain::SearchConsoleView>;
            /// Opens a file or folder dialog; answers the path chosen (`null`: cancelled),
            /// the only kind of path the commands above accept.
            choose_path(choice: $crate::PathChoice) -> ::std::option::Option<::std::string::String>;
        }
    };
}

/// One command of [`ipc_commands!`](crate::ipc_commands), in TypeScript terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// The command's name in the shell (`list_audits`).
    pub name: &'static str,
    /// Its doc comment, line by line.
    pub docs: Vec<&'static str>,
    /// Each argument's name in Rust (`audit_id`) and its TypeScript type.
    pub args: Vec<(&'static str, String)>,
    /// The TypeScript type of its answer.
    pub returns: String,
}

/// The TypeScript type of `T` (`void` for `()`).
fn ts_type<T: TS + 'static>(cfg: &Config) -> String {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<()>() {
        "void".to_owned()
    } else {
        T::name(cfg)
    }
}

macro_rules! command_specs {
    ($($(#[doc = $doc:literal])* $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        /// Every command of [`ipc_commands!`](crate::ipc_commands), in order.
        pub fn commands() -> Vec<CommandSpec> {
            let cfg = config(Path::new("."));
            vec![$(CommandSpec {
                name: stringify!($name),
                docs: vec![$($doc.trim()),*],
                args: vec![$((stringify!($arg), ts_type::<$ty>(&cfg))),*],
                returns: ts_type::<$ret>(&cfg),
            }),*]
        }
    };
}

crate::ipc_commands!(command_specs);

/// The events the shell sends: the constant's name, the event's name, its payload.
fn events(cfg: &Config) -> Vec<(&'static str, &'static str, String)> {
    vec![
        ("PROGRESS_EVENT", PROGRESS_EVENT, Progress::name(cfg)),
        ("FINISHED_EVENT", FINISHED_EVENT, Progress::name(cfg)),
    ]
}

/// Why the declarations could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BindingsError {
    /// ts-rs failed.
    #[error(transparent)]
    Export(#[from] ts_rs::ExportError),
    /// The folder or a file could not be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// `ui/src/bindings/` in this repository.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings")
}

/// The config: 64-bit integers are plain `number`s (ids and times stay far below 2^53).
fn config(dir: &Path) -> Config {
    Config::new().with_out_dir(dir).with_large_int("number")
}

macro_rules! exported {
    ($($ty:ident),+ $(,)?) => {
        /// The exported type names, in `index.ts` order.
        pub const TYPE_NAMES: &[&str] = &[$(stringify!($ty)),+];

        fn export_types(cfg: &Config) -> Result<(), ts_rs::ExportError> {
            $(<$ty as TS>::export_all(cfg)?;)+
            Ok(())
        }
    };
}

exported!(
    Severity,
    Family,
    Tier,
    Role,
    Cause,
    SignalKind,
    AuditStatus,
    FindingCode,
    ErrorCode,
    IpcError,
    Cell,
    Column,
    ColumnKind,
    TableName,
    SortSpec,
    FilterOp,
    ColumnFilter,
    TableQuery,
    ViewQuery,
    TablePage,
    SeverityCounts,
    AuditListItem,
    ListInputView,
    PresetName,
    StartAuditRequest,
    ListAuditRequest,
    PathPurpose,
    PathChoice,
    ProgressPhase,
    Progress,
    StatusCounts,
    LatestError,
    CountItem,
    Overview,
    MemberView,
    SignalView,
    FindingView,
    IssueView,
    DetailField,
    CanonicalView,
    LinkView,
    LinkDirection,
    LinkPage,
    HopView,
    HeaderView,
    MembershipView,
    SitemapEntryView,
    UrlDetail,
    ClusterDetail,
    FindingQuery,
    FindingPage,
    DiffSection,
    DiffView,
    FixPlanFile,
    FixPlanPage,
    ProblemCount,
    ProblemView,
    SimulationPage,
    VerdictCount,
    CheckView,
    VerificationView,
    MigrationRowView,
    MigrationView,
    SignalRowView,
    SearchConsoleView,
);

/// The first line of every module written here (ts-rs writes its own).
const GENERATED: &str =
    "// This file was generated by `cargo run -p view --bin export-bindings`. Do not edit it.\n";

/// `value`'s wire form, quoted for TypeScript.
fn literal(value: impl Serialize) -> String {
    serde_json::to_string(&value).unwrap_or_default()
}

/// Import lines for every exported type the code of `body` (not its comments) names.
fn imports(body: &str) -> String {
    let words: std::collections::BTreeSet<&str> = body
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !(l.starts_with("/*") || l.starts_with('*') || l.starts_with("//"))
        })
        .flat_map(|l| l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .collect();
    TYPE_NAMES
        .iter()
        .filter(|n| words.contains(**n))
        .map(|n| format!("import type {{ {n} }} from \"./{n}\";\n"))
        .collect()
}

/// A JSDoc comment, indented by `indent`.
fn jsdoc(lines: &[&str], indent: &str) -> String {
    match lines {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        _ => {
            let mut s = format!("{indent}/**\n");
            for l in lines {
                s.push_str(&format!("{indent} * {l}\n"));
            }
            s.push_str(&format!("{indent} */\n"));
            s
        }
    }
}

/// `const NAME: readonly Type[] = [...]`.
fn list<T: Serialize + Copy>(doc: &str, name: &str, ty: &str, values: &[T]) -> String {
    let items: Vec<String> = values.iter().map(|v| literal(*v)).collect();
    format!(
        "{}export const {name}: readonly {ty}[] = [{}];\n\n",
        jsdoc(&[doc], ""),
        items.join(", ")
    )
}

/// `const NAME: Readonly<Record<Type, string>> = {...}`.
fn labels<T: Serialize + Copy>(
    doc: &str,
    name: &str,
    ty: &str,
    values: &[T],
    label: impl Fn(T) -> &'static str,
) -> String {
    let mut s = format!(
        "{}export const {name}: Readonly<Record<{ty}, string>> = {{\n",
        jsdoc(&[doc], "")
    );
    for v in values {
        s.push_str(&format!("  {}: {},\n", literal(*v), literal(label(*v))));
    }
    s.push_str("};\n\n");
    s
}

/// `vocabulary.ts`: every enum's values, their labels, and which are final.
pub fn vocabulary() -> String {
    let mut body = String::new();
    body.push_str(&list(
        "Finding severities, most severe first.",
        "SEVERITIES",
        "Severity",
        &Severity::ALL,
    ));
    body.push_str(&list(
        "Finding families, in the order the app lists them.",
        "FAMILIES",
        "Family",
        &Family::ALL,
    ));
    body.push_str(&list(
        "Normalization presets, safest first.",
        "PRESETS",
        "PresetName",
        &PresetName::ALL,
    ));
    body.push_str(&list(
        "Every phase of a run, in order.",
        "PHASES",
        "ProgressPhase",
        &ProgressPhase::ALL,
    ));
    let finals: Vec<ProgressPhase> = ProgressPhase::ALL
        .into_iter()
        .filter(|p| p.is_final())
        .collect();
    body.push_str(&list(
        "Phases after which a run's crawl no longer changes.",
        "FINAL_PHASES",
        "ProgressPhase",
        &finals,
    ));
    body.push_str(&list(
        "Every audit status.",
        "AUDIT_STATUSES",
        "AuditStatus",
        &AuditStatus::ALL,
    ));
    let settled: Vec<AuditStatus> = AuditStatus::ALL
        .into_iter()
        .filter(|s| s.is_settled())
        .collect();
    body.push_str(&list(
        "Statuses of an audit whose crawl is not going on.",
        "SETTLED_STATUSES",
        "AuditStatus",
        &settled,
    ));
    let resumable: Vec<AuditStatus> = AuditStatus::ALL
        .into_iter()
        .filter(|s| s.can_resume())
        .collect();
    body.push_str(&list(
        "Statuses of an audit that stopped before the end and can be resumed.",
        "RESUMABLE_STATUSES",
        "AuditStatus",
        &resumable,
    ));
    body.push_str(&list(
        "Every kind of error a command answers.",
        "ERROR_CODES",
        "ErrorCode",
        &ErrorCode::ALL,
    ));
    body.push_str(&list(
        "Column filter operators on text, in the order the app offers them.",
        "TEXT_FILTER_OPS",
        "FilterOp",
        &FilterOp::TEXT,
    ));
    body.push_str(&list(
        "Column filter operators on numbers, in the order the app offers them.",
        "NUMBER_FILTER_OPS",
        "FilterOp",
        &FilterOp::NUMBER,
    ));
    body.push_str(&labels(
        "Column filter operators as the app shows them.",
        "FILTER_OP_LABELS",
        "FilterOp",
        &FilterOp::ALL,
        FilterOp::label,
    ));
    body.push_str(&format!(
        "{}export const MAX_PATTERN_LEN = {MAX_PATTERN_LEN};\n\n",
        jsdoc(
            &["The longest regular expression a column filter accepts, in bytes."],
            ""
        )
    ));
    body.push_str(&labels(
        "Cluster member roles as the reports word them.",
        "ROLE_LABELS",
        "Role",
        &Role::ALL,
        Role::label,
    ));
    body.push_str(&labels(
        "Cluster causes as the reports name them.",
        "CAUSE_LABELS",
        "Cause",
        &Cause::ALL,
        Cause::label,
    ));
    body.push_str(&labels(
        "Site signals as the cluster page names them.",
        "SIGNAL_LABELS",
        "SignalKind",
        &SignalKind::ALL,
        SignalKind::label,
    ));
    let body = body.trim_end().to_owned() + "\n";
    format!("{GENERATED}{}\n{body}", imports(&body))
}

/// camelCase of a snake_case name (`audit_id` → `auditId`), as Tauri names arguments.
fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.push(ch.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// `commands.ts`: one typed wrapper per command, and the event names.
pub fn commands_module() -> String {
    let cfg = config(Path::new("."));
    let specs = commands();
    let mut body = String::from(
        "/** Calls one command of the desktop shell by name, as Tauri's `invoke` does. */\n\
         export type Invoke = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;\n\n\
         /** The desktop shell's commands; a failed command rejects with an `IpcError`. */\n\
         export interface Commands {\n",
    );
    let params = |c: &CommandSpec| -> String {
        c.args
            .iter()
            .map(|(n, t)| format!("{}: {t}", camel(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for c in &specs {
        body.push_str(&jsdoc(&c.docs, "  "));
        body.push_str(&format!(
            "  {}({}): Promise<{}>;\n",
            camel(c.name),
            params(c),
            c.returns
        ));
    }
    body.push_str(
        "}\n\n/** The commands, each sent through `invoke` under its name in the shell. */\n\
         export function commands(invoke: Invoke): Commands {\n  return {\n",
    );
    for c in &specs {
        let names: Vec<String> = c.args.iter().map(|(n, _)| camel(n)).collect();
        let args = if names.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", names.join(", "))
        };
        body.push_str(&format!(
            "    {}: ({}) => invoke<{}>(\"{}\"{args}),\n",
            camel(c.name),
            names.join(", "),
            c.returns,
            c.name
        ));
    }
    body.push_str("  };\n}\n\n/** The events the desktop shell sends, by name, with their payloads. */\nexport interface Events {\n");
    let events = events(&cfg);
    for (_, name, payload) in &events {
        body.push_str(&format!("  {}: {payload};\n", literal(name)));
    }
    body.push_str("}\n");
    for (constant, name, _) in &events {
        body.push_str(&format!("\nexport const {constant} = {};\n", literal(name)));
    }
    format!("{GENERATED}{}\n{body}", imports(&body))
}

/// Writes every declaration, `vocabulary.ts`, `commands.ts` and `index.ts` into `dir`
/// (created if missing); returns the file names written, sorted.
pub fn export(dir: &Path) -> Result<Vec<String>, BindingsError> {
    std::fs::create_dir_all(dir)?;
    export_types(&config(dir))?;
    std::fs::write(dir.join("vocabulary.ts"), vocabulary())?;
    std::fs::write(dir.join("commands.ts"), commands_module())?;
    let mut index = String::from(GENERATED);
    for name in TYPE_NAMES {
        index.push_str(&format!("export type {{ {name} }} from \"./{name}\";\n"));
    }
    index.push_str("export * from \"./vocabulary\";\nexport * from \"./commands\";\n");
    std::fs::write(dir.join("index.ts"), index)?;
    let mut files: Vec<String> = TYPE_NAMES.iter().map(|n| format!("{n}.ts")).collect();
    files.extend(["index.ts", "vocabulary.ts", "commands.ts"].map(String::from));
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts_files(dir: &Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "ts"))
                    .map(|e| {
                        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                        (e.file_name().to_string_lossy().into_owned(), text)
                    })
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    #[test]
    fn committed_bindings_are_current() {
        let fresh = tempfile::tempdir().unwrap();
        let written = export(fresh.path()).unwrap();
        let generated = ts_files(fresh.path());
        assert_eq!(
            generated.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
            written
        );
        let committed = ts_files(&default_dir());
        assert!(
            committed == generated,
            "ui/src/bindings/ is stale: run `cargo run -p view --bin export-bindings` to regenerate it"
        );
    }

    #[test]
    fn declarations_follow_the_contract() {
        let dir = tempfile::tempdir().unwrap();
        export(dir.path()).unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(read("Cell.ts").contains("string | number | null"));
        assert!(read("TableName.ts").contains("\"clusterMembers\""));
        assert!(read("TableQuery.ts").contains("sort: SortSpec | null"));
        assert!(read("AuditListItem.ts").contains("startedAt: number"));
        assert!(read("StartAuditRequest.ts").contains("preset: PresetName | null"));
        assert!(read("PresetName.ts").contains("\"rfc3986\""));
        assert!(read("index.ts").contains("export type { DiffView } from \"./DiffView\";"));
        assert!(read("Severity.ts").contains("\"error\" | \"warning\" | \"notice\""));
        assert!(read("FindingView.ts").contains("severity: Severity"));
        assert!(read("FindingView.ts").contains("id: FindingCode"));
        assert!(read("FindingCode.ts").contains("\"DUP-HOST\""));
        assert!(read("MemberView.ts").contains("role: Role"));
        assert!(read("AuditListItem.ts").contains("status: AuditStatus"));
        assert!(read("Overview.ts").contains("status: AuditStatus"));
        assert!(read("ColumnFilter.ts").contains("op: FilterOp"));
        assert!(read("ColumnFilter.ts").contains("upper: string | null"));
        assert!(read("FilterOp.ts").contains("\"not_contains\""));
        assert!(read("IpcError.ts").contains("code: ErrorCode"));
        assert!(read("ErrorCode.ts").contains("\"not_found\""));
        let vocabulary = read("vocabulary.ts");
        assert!(vocabulary.contains(
            "export const FINAL_PHASES: readonly ProgressPhase[] = [\"done\", \"cancelled\", \"failed\"];"
        ));
        assert!(vocabulary.contains("\"unfetched\": \"not fetched\""));
        assert!(vocabulary.contains("\"ge\": \"≥\""));
        assert!(vocabulary.contains("export const MAX_PATTERN_LEN = 1000;"));
        let commands = read("commands.ts");
        assert!(commands.contains(
            "queryTable: (auditId, query) => invoke<TablePage>(\"query_table\", { auditId, query }),"
        ));
        assert!(commands.contains("cancelAudit(auditId: number): Promise<void>;"));
        assert!(commands.contains("export const PROGRESS_EVENT = \"audit-progress\";"));
        assert!(commands.contains("import type { TablePage } from \"./TablePage\";"));
    }

    #[test]
    fn every_command_has_a_unique_name_and_docs() {
        let specs = commands();
        let mut names: Vec<&str> = specs.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), specs.len());
        assert!(specs.iter().all(|c| !c.docs.is_empty()));
    }

    #[test]
    fn vocabulary_matches_the_wire_form() {
        for s in Severity::ALL {
            assert_eq!(literal(s), format!("\"{}\"", s.as_str()));
        }
        for s in AuditStatus::ALL {
            assert_eq!(literal(s), format!("\"{}\"", s.as_str()));
        }
    }
}
