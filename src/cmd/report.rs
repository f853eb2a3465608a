//! `dustpan report`: clusters, findings and fixes of an audit, in the terminal.

use super::db::DbArgs;
use anyhow::{Context, Result, bail};
use audit::export::fix_text;
use audit::{Analysis, AuditInput, Severity};
use canon::{Policy, Preset};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use store::AuditId;

/// Which audit to analyse, and under which normalization policy.
#[derive(clap::Args, Clone)]
pub struct Target {
    /// The audit id (see `dustpan audits`); the newest audit when absent.
    pub audit: Option<i64>,
    /// Re-cluster under this normalization preset (rfc3986, seo, aggressive) without
    /// recrawling.
    #[arg(long, value_name = "PRESET", conflicts_with = "policy")]
    pub preset: Option<String>,
    /// Re-cluster under this policy file (TOML or JSON) without recrawling.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

impl Target {
    /// The normalization policy asked for (the default one when none is).
    pub fn policy(&self) -> Result<Policy> {
        Ok(match (&self.preset, &self.policy) {
            (Some(p), _) => p.parse::<Preset>()?.policy(),
            (None, Some(path)) => Policy::from_path(path)?,
            (None, None) => Policy::seo(),
        })
    }

    /// Opens the database, loads the audit and analyses it.
    pub async fn analyse(&self) -> Result<(AuditId, AuditInput, Analysis)> {
        let report = self.report().await?;
        Ok((report.audit.id, report.input, report.analysis))
    }

    /// Opens the database, loads the audit and analyses it, keeping the audit's row.
    pub async fn report(&self) -> Result<Report> {
        let store = self.db.open().await?;
        let id = match self.audit {
            Some(id) => AuditId(id),
            None => match store.list_audits().await?.first() {
                Some(a) => a.id,
                None => bail!(
                    "no audits in {}; run `dustpan audit URL` first",
                    self.db.path()?.display()
                ),
            },
        };
        // The store's errors name the audit.
        let loaded = view::workflow::load(&store, id, self.policy()?).await?;
        let (input, analysis) = view::workflow::analyse(loaded.input, loaded.config).await?;
        // Under the default policy the audits list's counts are this analysis.
        if self.preset.is_none() && self.policy.is_none() {
            super::audits::record_analysis(&store, id, &input, &analysis).await?;
        }
        Ok(Report {
            audit: loaded.audit,
            input,
            analysis,
        })
    }
}

/// An audit analysed for its report.
pub struct Report {
    /// The audit's row (its counts).
    pub audit: store::Audit,
    /// Everything the crawl stored.
    pub input: AuditInput,
    /// The analysis.
    pub analysis: Analysis,
}

/// What the report's first line says about the audit.
pub struct Subject {
    id: AuditId,
    /// The audit's pages fetched ([`store::Audit::pages_fetched`]), when at hand.
    pages_fetched: Option<u64>,
    /// Why its crawl stopped short, when at hand.
    stop: Option<store::AuditStop>,
}

impl From<AuditId> for Subject {
    /// An audit whose pages fetched were just printed (the end-of-crawl summary).
    fn from(id: AuditId) -> Subject {
        Subject {
            id,
            pages_fetched: None,
            stop: None,
        }
    }
}

impl From<&store::Audit> for Subject {
    fn from(audit: &store::Audit) -> Subject {
        Subject {
            id: audit.id,
            pages_fetched: Some(audit.pages_fetched),
            stop: audit.stop.clone(),
        }
    }
}

/// Print the audit's report: pages, clusters by cause, findings by severity, the
/// largest clusters with their preferred URL and fixes, learned DUST rules and the
/// parameter classification.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// How many clusters and findings to list in full.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Write the learned DUST rules (JSON) to FILE, for `dustpan audit --rules FILE`.
    #[arg(long, value_name = "FILE")]
    save_rules: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let Report {
        audit,
        input,
        analysis,
    } = runtime.block_on(args.target.report())?;
    print(&audit, &input, &analysis, args.top);
    if let Some(path) = &args.save_rules {
        let json = serde_json::to_string_pretty(&analysis.learned)
            .context("cannot serialize the learned rules")?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!(
            "\nLearned rules written to {} ({} confirmed); crawl with: dustpan audit URL --rules {}",
            path.display(),
            analysis.learned.confirmed().count(),
            path.display()
        );
    }
    if !analysis.params.is_empty() {
        println!("\nQuery parameters:");
        for p in &analysis.params {
            println!(
                "  {:<20} {:?} ({} URLs: {} identical, {} near, {} different)",
                p.name, p.class, p.urls, p.identical, p.near, p.different
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the report of an analysis: pages, clusters by cause, findings by severity,
/// the `top` largest clusters with their fixes and the first `top` findings, learned
/// DUST rules.
pub fn print(audit: impl Into<Subject>, input: &AuditInput, analysis: &Analysis, top: usize) {
    let Subject {
        id,
        pages_fetched,
        stop,
    } = audit.into();
    let ok = input
        .fetches
        .iter()
        .filter(|f| f.status.is_some_and(|s| (200..300).contains(&s)))
        .count();
    // Pages fetched is the audit's one count, the one every screen shows.
    let fetched = pages_fetched.map_or_else(String::new, |n| format!(", {n} fetched"));
    println!(
        "Audit {}: {} URLs{fetched} ({ok} answered 2xx)",
        id.0,
        input.urls.len(),
    );
    if let Some(stop) = &stop {
        println!("Stopped at {}: {}", stop.reason, stop.detail);
    }

    // A cluster's main cause, named as the desktop app names it.
    let mut by_cause: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &analysis.clusters {
        *by_cause.entry(view::tables::cluster_cause(c)).or_default() += 1;
    }
    let clustered: usize = analysis.clusters.iter().map(|c| c.members.len()).sum();
    println!(
        "\nClusters: {} groups of URLs that are one page ({} URLs)",
        analysis.clusters.len(),
        clustered
    );
    for (cause, n) in &by_cause {
        println!("  {n:>6}  by {cause}");
    }
    println!(
        "  (every merge is strong evidence: a redirect, a rel=canonical, identical content with \
         the site's template left out, or a URL rule confirmed by identical content; \
         near-identical pages are never merged: they are DUP-NEAR findings, for review)"
    );

    let count = |s: Severity| analysis.findings.iter().filter(|f| f.severity == s).count();
    println!(
        "\nFindings: {} errors, {} warnings, {} notices",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Notice)
    );
    let mut by_id: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for f in &analysis.findings {
        by_id.entry(f.id.code()).or_insert((0, &f.title)).0 += 1;
    }
    for (code, (n, title)) in &by_id {
        let review = match audit::FindingId::from_code(code).map(audit::FindingId::tier) {
            Some(audit::Tier::Review) => "  [for review: weak evidence]",
            _ => "",
        };
        println!("  {n:>6}  {code:<24} {title}{review}");
    }

    let mut clusters: Vec<_> = analysis.clusters.iter().collect();
    clusters.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.preferred_url.cmp(&b.preferred_url))
    });
    println!("\nLargest clusters:");
    for c in clusters.iter().take(top) {
        println!("  {} ({} URLs)", c.preferred_url, c.members.len());
        for m in c
            .members
            .iter()
            .filter(|m| m.url != c.preferred_url)
            .take(8)
        {
            let why = m
                .evidence
                .first()
                .map(|e| e.kind.to_string())
                .unwrap_or_default();
            // The fix as the exports and the app's cluster page word it.
            let fix = match m.action {
                audit::Action::None => String::new(),
                a => format!(" -> fix: {}", fix_text(a, &c.preferred_url)),
            };
            println!("      {}  [{why}]{fix}", m.url);
        }
    }

    let mut findings: Vec<_> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| (f.severity, f.id.code()));
    println!("\nFirst findings by severity:");
    for f in findings.iter().take(top) {
        println!("  [{}] {}: {}", f.severity.as_str(), f.id.code(), f.summary);
        for fix in f.fixes.iter().take(3) {
            println!("      fix: {fix}");
        }
    }

    let rules: Vec<_> = analysis.learned.rules.iter().collect();
    if !rules.is_empty() {
        println!("\nLearned DUST rules:");
        for r in rules {
            println!(
                "  {}  support {}, precision {:.0}% ({} of {}), {}",
                r.id,
                r.support,
                r.precision * 100.0,
                r.agreed,
                r.applicable,
                r.status.as_str()
            );
            if let Some(v) = &r.validation {
                println!(
                    "      validated by fetching {} rewritten URLs: {} false positives, false-positive rate {:.0}%",
                    v.tested,
                    v.false_positives,
                    v.false_positive_rate * 100.0
                );
            }
        }
    }
}
