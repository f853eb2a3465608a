//! `dustpan diff`: what changed between two audits.

use super::audits::{record_analysis, utc};
use super::db::DbArgs;
use super::output::{Format, print_json, print_jsonl};
use anyhow::{Context, Result};
use audit::{Analysis, AnalysisConfig, AuditInput};
use canon::{Policy, Preset};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use store::{AuditId, Store};

/// Compare two audits of a site (older first): findings new, resolved and persisting;
/// clusters that formed, grew, shrank or dissolved; preferred URLs, status codes,
/// redirects and canonicals that changed; URLs added to and removed from the crawl and
/// the sitemaps. Everything is matched by URL, so two audits of an unchanged site give
/// an empty diff.
#[derive(clap::Args)]
pub struct Args {
    /// The older audit's id (see `dustpan audits`).
    old: i64,
    /// The newer audit's id.
    new: i64,
    /// Also write each section as a CSV file into this folder (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Cluster both audits under this normalization preset (rfc3986, seo, aggressive).
    #[arg(long, value_name = "PRESET", conflicts_with = "policy")]
    preset: Option<String>,
    /// Cluster both audits under this policy file (TOML or JSON).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// How many rows of each section to print.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// text, json (the comparison the desktop app shows, with `unchanged`) or jsonl (one
    /// changed row a line, with its section); see docs/json.md.
    #[arg(long, value_enum, default_value_t, conflicts_with = "out")]
    format: Format,
    #[command(flatten)]
    db: DbArgs,
}

impl Args {
    fn policy(&self) -> Result<Option<Policy>> {
        Ok(match (&self.preset, &self.policy) {
            (Some(p), _) => Some(p.parse::<Preset>()?.policy()),
            (None, Some(path)) => Some(Policy::from_path(path)?),
            (None, None) => None,
        })
    }
}

/// Loads an audit and the analysis configuration `dustpan report` uses for it: under
/// the audit's own policy unless `policy` is given; answers that policy's name too.
async fn load(
    store: &Store,
    id: AuditId,
    policy: &Option<Policy>,
) -> Result<(AuditInput, AnalysisConfig, String)> {
    let what_if = policy.clone().map(|policy| view::AnalysisPolicy {
        name: String::new(),
        policy,
    });
    // The store's errors name the audit.
    let (loaded, used) = view::workflow::load_as_stored(store, id, what_if).await?;
    Ok((loaded.input, loaded.config, used.name))
}

/// Replaces control characters (crawled text is hostile) and folds lines for the terminal.
fn printable(cell: &str) -> String {
    cell.replace('\n', ", ")
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

async fn describe(store: &Store, id: AuditId) -> Result<String> {
    let a = store.audit(id).await?;
    Ok(format!(
        "audit {} ({} UTC, {})",
        id.0,
        utc(a.started_at),
        a.start_urls.join(" ")
    ))
}

/// The crawl settings that differ between two audits (by name), and a line per audit
/// that stopped short of its site.
async fn config_differences(store: &Store, old: AuditId, new: AuditId) -> Result<Vec<String>> {
    let (a, b) = (store.audit(old).await?, store.audit(new).await?);
    let mut out = Vec::new();
    let json = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap_or_default();
    if let (serde_json::Value::Object(x), serde_json::Value::Object(y)) =
        (json(&a.config_json), json(&b.config_json))
    {
        let null = serde_json::Value::Null;
        let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
        keys.sort();
        keys.dedup();
        let differ: Vec<&str> = keys
            .into_iter()
            .filter(|k| x.get(*k).unwrap_or(&null) != y.get(*k).unwrap_or(&null))
            .map(String::as_str)
            .collect();
        if !differ.is_empty() {
            out.push(format!(
                "the audits ran with different crawl settings: {}",
                differ.join(", ")
            ));
        }
    }
    for audit in [&a, &b] {
        if let Some(stop) = &audit.stop {
            out.push(format!("audit {} stopped at {stop}", audit.id));
        }
    }
    Ok(out)
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let policy = args.policy()?;
    let (old, new) = (AuditId(args.old), AuditId(args.new));
    let (store, (a, ca, pa), (b, cb, pb)) = runtime.block_on(async {
        let store = args.db.open().await?;
        let (x, y) = tokio::try_join!(load(&store, old, &policy), load(&store, new, &policy))?;
        anyhow::Ok((store, x, y))
    })?;
    // The two analyses are independent: one per core.
    let (x, y): (Analysis, Analysis) = std::thread::scope(|s| {
        let other = s.spawn(|| audit::analyse(&a, &ca));
        let y = audit::analyse(&b, &cb);
        other
            .join()
            .map(|x| (x, y))
            .map_err(|_| anyhow::anyhow!("the analysis of audit {} panicked", old.0))
    })?;
    if args.format != Format::Text {
        let (row_a, row_b) = runtime.block_on(async {
            if policy.is_none() {
                record_analysis(&store, old, &a, &x, &pa).await?;
                record_analysis(&store, new, &b, &y, &pb).await?;
            }
            let rows = (store.audit(old).await?, store.audit(new).await?);
            store.close().await;
            anyhow::Ok(rows)
        })?;
        let older = view::OpenAudit::from_parts(row_a, a, x, pa);
        let newer = view::OpenAudit::from_parts(row_b, b, y, pb);
        let d = view::compare(&older, &newer);
        if args.format == Format::Jsonl {
            print_jsonl(view::output::diff_rows(&d))?;
        } else {
            print_json(&view::output::DiffDocument {
                schema_version: view::output::SCHEMA_VERSION,
                unchanged: d.sections.iter().all(|s| s.rows.is_empty()),
                diff: d,
            })?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // What each audit's own crawl rules kept out is not compared (the reason names the
    // pattern), as in the JSON output.
    let rules = runtime.block_on(async {
        let rules = [
            view::crawl_rules(&store.audit(old).await?),
            view::crawl_rules(&store.audit(new).await?),
        ];
        anyhow::Ok(rules)
    })?;
    let d = diff::diff_with_rules((&a, &x), (&b, &y), [&rules[0], &rules[1]]);
    let sections = d.sections();
    // The files first: a reader that stops reading the terminal output early (`| head`)
    // must not keep them from being written.
    let mut written = Vec::new();
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for t in &sections {
            let path = dir.join(t.file_name());
            let file =
                File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
            t.write_csv(BufWriter::new(file))
                .with_context(|| format!("cannot write {}", path.display()))?;
            written.push((t.rows.len(), path));
        }
    }

    runtime.block_on(async {
        if policy.is_none() {
            record_analysis(&store, old, &a, &x, &pa).await?;
            record_analysis(&store, new, &b, &y, &pb).await?;
        }
        println!(
            "From {}\n  to {}",
            describe(&store, old).await?,
            describe(&store, new).await?
        );
        let mut warnings = config_differences(&store, old, new).await?;
        warnings.extend(d.warnings.iter().cloned());
        for w in &warnings {
            println!("  warning: {w}");
        }
        if !d.findings.not_crawled.is_empty() {
            println!(
                "  warning: {} findings of the older audit are on URLs the newer one did not fetch: listed as \"not crawled\", not resolved",
                d.findings.not_crawled.len()
            );
        }
        store.close().await;
        anyhow::Ok(())
    })?;

    for (label, n) in d.summary() {
        println!("  {n:>7}  {label}");
    }
    if d.is_empty() {
        println!("\nNo changes.");
    }
    for t in sections.iter().filter(|t| !t.rows.is_empty()) {
        println!("\n{} ({}):", t.title, t.rows.len());
        println!(
            "  {}",
            t.headers
                .iter()
                .map(|h| h.title)
                .collect::<Vec<_>>()
                .join(" | ")
        );
        for row in t.rows.iter().take(args.top) {
            let cells: Vec<String> = row.iter().map(|c| printable(c)).collect();
            println!("  {}", cells.join(" | "));
        }
        if t.rows.len() > args.top {
            println!("  ... and {} more", t.rows.len() - args.top);
        }
    }
    if !written.is_empty() {
        println!();
    }
    for (rows, path) in written {
        println!("{rows:>8} rows  {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The exit code of `dustpan audit --like ID --compare` when the new audit differs from
/// audit ID (0 when it does not; a failed or cancelled crawl keeps its own code).
pub const CHANGED: u8 = 3;

/// `dustpan audit --like OLD --compare`: compares the new audit with the one it was
/// started like, each under its own policy, prints a summary fit for a cron mail or a
/// CI log, writes the comparison as JSON (`view::output::DiffDocument`) to `out` when
/// given, and answers [`CHANGED`] when anything changed.
pub async fn compare_with(
    store: &Store,
    old: AuditId,
    new: AuditId,
    out: Option<&std::path::Path>,
) -> Result<ExitCode> {
    let ((a, ca, pa), (b, cb, pb)) =
        tokio::try_join!(load(store, old, &None), load(store, new, &None))?;
    let (row_a, row_b) = (store.audit(old).await?, store.audit(new).await?);
    let (older, newer) = tokio::task::spawn_blocking(move || {
        let x = audit::analyse(&a, &ca);
        let y = audit::analyse(&b, &cb);
        (
            view::OpenAudit::from_parts(row_a, a, x, pa),
            view::OpenAudit::from_parts(row_b, b, y, pb),
        )
    })
    .await
    .context("the comparison's analysis failed")?;
    let d = view::compare(&older, &newer);
    let changed: Vec<&view::DiffSection> = d.sections.iter().filter(|s| s.total > 0).collect();
    println!("\nCompared with audit {} (started like it):", old.0);
    for w in &d.warnings {
        println!("  warning: {}", printable(w));
    }
    for item in &d.summary {
        println!("  {:>7}  {}", item.count, item.label);
    }
    if changed.is_empty() {
        println!("No changes.");
    } else {
        let what: Vec<String> = changed
            .iter()
            .map(|s| format!("{} {}", s.total, s.title.to_lowercase()))
            .collect();
        println!("Changed: {}", what.join(", "));
    }
    if let Some(path) = out {
        let doc = view::output::DiffDocument {
            schema_version: view::output::SCHEMA_VERSION,
            unchanged: changed.is_empty(),
            diff: d.clone(),
        };
        let json = serde_json::to_string_pretty(&doc).context("cannot serialize the comparison")?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("Comparison written to {}", path.display());
    }
    Ok(if changed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(CHANGED)
    })
}
