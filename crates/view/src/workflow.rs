//! The audit workflow both front ends run: what one analysis of a stored audit is made
//! of, what happens once a crawl has finished, and what a full report export writes.
//!
//! The command-line program and the desktop app call these functions and only print
//! or show their results, so the same site gives the same clusters, findings and fixes
//! from either.

use crate::error::ViewError;
use crate::open::AnalysisPolicy;
use crate::tables;
use crate::types::TableName;
use audit::{Analysis, AnalysisConfig, AuditInput, PredictionCheck, RuleStatus};
use canon::Policy;
use std::path::{Path, PathBuf};
use store::{AuditId, Store};

/// Rewritten URLs fetched per learned DUST rule that needs validation.
pub const VALIDATION_SAMPLE: usize = 5;

/// A stored audit ready to analyse: its row, its rows, and the configuration every
/// analysis of it uses.
pub struct Loaded {
    /// The audit's row.
    pub audit: store::Audit,
    /// Everything the crawl stored.
    pub input: AuditInput,
    /// `policy`, the audit's DUST validation samples and the rules its crawl carried in.
    pub config: AnalysisConfig,
}

/// The analysis configuration of audit `row` under `policy`: its stored DUST
/// validation samples, and the learned rules its crawl carried in (re-measured). A
/// stored crawl configuration that cannot be read is an error naming the audit, never a
/// silent analysis without its rules.
pub async fn analysis_config(
    store: &Store,
    row: &store::Audit,
    policy: Policy,
) -> Result<AnalysisConfig, ViewError> {
    let crawl_config = crawl::stored_config(row)?;
    let validations = load::stored_validations(store, row.id).await?;
    // A list audit: no orphans, nothing missing from the sitemaps; an access log's
    // requests rank the clusters.
    let log_hits = match &crawl_config.list {
        Some(list) if list.has_log_hits() => store
            .log_hits(row.id)
            .await?
            .into_iter()
            .filter_map(|h| {
                Some(audit::LogHit {
                    url: u32::try_from(h.url_id).ok()?,
                    verified_bot_requests: h.verified_bot_requests,
                    unverified_bot_requests: h.unverified_bot_requests,
                    fake_bot_requests: h.fake_bot_requests,
                    other_requests: h.other_requests,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(AnalysisConfig {
        validations,
        learned: crawl_config.prediction_rules(),
        list_audit: crawl_config.list.is_some(),
        log_hits,
        ..AnalysisConfig::with_policy(policy)
    })
}

/// Loads audit `id` and its analysis configuration under `policy`.
pub async fn load(store: &Store, id: AuditId, policy: Policy) -> Result<Loaded, ViewError> {
    let audit = store.audit(id).await?;
    load_row(store, audit, policy).await
}

/// Loads audit `row` and its analysis configuration under `policy`.
async fn load_row(store: &Store, audit: store::Audit, policy: Policy) -> Result<Loaded, ViewError> {
    let (input, config) = tokio::try_join!(
        async { load::load(store, audit.id).await.map_err(ViewError::from) },
        analysis_config(store, &audit, policy),
    )?;
    Ok(Loaded {
        audit,
        input,
        config,
    })
}

/// Loads audit `id` under the policy it was started with ([`AnalysisPolicy::of_audit`]),
/// or under `what_if` when one is given: another policy's clusters without recrawling,
/// which changes nothing stored. Answers the policy used too.
pub async fn load_as_stored(
    store: &Store,
    id: AuditId,
    what_if: Option<AnalysisPolicy>,
) -> Result<(Loaded, AnalysisPolicy), ViewError> {
    let audit = store.audit(id).await?;
    let policy = match what_if {
        Some(p) => p,
        None => AnalysisPolicy::of_audit(&audit)?,
    };
    let loaded = load_row(store, audit, policy.policy.clone()).await?;
    Ok((loaded, policy))
}

/// One learned rule's validation after a crawl.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleValidation {
    /// The rule's id.
    pub rule: String,
    /// Samples fetched and compared.
    pub tested: u32,
    /// Samples whose page was not the same.
    pub false_positives: u32,
    /// `false_positives / tested`.
    pub false_positive_rate: f64,
    /// The rule's status once validated.
    pub status: RuleStatus,
}

/// What finishing an audit did.
pub struct Finished {
    /// The rules the crawl carried in: fetches saved and predictions checked.
    pub predictions: Option<PredictionCheck>,
    /// Rules that needed validation, with their measured false-positive rates.
    pub validations: Vec<RuleValidation>,
    /// The audit's rows.
    pub input: AuditInput,
    /// The analysis under the audit's policy, validation samples included.
    pub analysis: Analysis,
    /// The audit's policy, the one the analysis used.
    pub policy: AnalysisPolicy,
}

/// Finishes a crawled audit, whoever ran the crawl: checks the predictions of the rules
/// the crawl carried in, fetches validation samples for the learned DUST rules that
/// need them (same client, scope, robots.txt and limits as the crawl) and stores them,
/// analyses the audit under the policy it was started with and stores that analysis'
/// summary and overview (what the audits list and the next open show).
pub async fn finish_audit(store: &Store, id: AuditId) -> Result<Finished, ViewError> {
    let (
        Loaded {
            audit: row,
            input,
            config,
        },
        policy,
    ) = load_as_stored(store, id, None).await?;
    let crawl_config = crawl::stored_config(&row)?;
    let predictions = crawl_config
        .prediction_rules()
        .as_ref()
        .map(|rules| audit::check_predictions(&input, rules, config.near_distance));
    let (input, analysis) = analyse(input, config.clone()).await?;
    let mut samples: Vec<(String, audit::ValidationCandidate)> = Vec::new();
    for rule in &analysis.learned.rules {
        if rule.status == RuleStatus::NeedsValidation {
            for c in audit::validation_candidates(&input, &config, rule, VALIDATION_SAMPLE) {
                samples.push((rule.id.clone(), c));
            }
        }
    }
    if samples.is_empty() {
        crate::record_analysis(store, id, &input, &analysis, &policy.name).await?;
        return Ok(Finished {
            predictions,
            validations: Vec::new(),
            input,
            analysis,
            policy,
        });
    }
    let urls: Vec<String> = samples.iter().map(|(_, c)| c.rewritten.clone()).collect();
    let fetched = crawl::fetch_samples(store, id, &crawl_config, &urls).await?;
    let records: Vec<store::ValidationRecord> = samples
        .into_iter()
        .zip(fetched)
        .map(|((rule_id, c), f)| store::ValidationRecord {
            rule_id,
            url: c.url,
            rewritten: c.rewritten,
            url_text_hash: c.text_hash,
            url_simhash: c.simhash,
            fetched_at: f.fetched_at,
            status: f.status,
            text_hash: f.text_hash,
            simhash: f.simhash,
            error_kind: f.error_kind,
        })
        .collect();
    store.add_validations(id, &records).await?;
    // The samples stored before (a resumed audit) and the ones just fetched.
    let mut config = config;
    config
        .validations
        .extend(records.iter().map(load::validation_fetch));
    let (input, analysis) = analyse(input, config).await?;
    crate::record_analysis(store, id, &input, &analysis, &policy.name).await?;
    let validations = analysis
        .learned
        .rules
        .iter()
        .filter_map(|r| {
            r.validation.as_ref().map(|v| RuleValidation {
                rule: r.id.clone(),
                tested: v.tested,
                false_positives: v.false_positives,
                false_positive_rate: v.false_positive_rate,
                status: r.status,
            })
        })
        .collect();
    Ok(Finished {
        predictions,
        validations,
        input,
        analysis,
        policy,
    })
}

/// Runs the analysis on a blocking thread (it is CPU-bound).
pub async fn analyse(
    input: AuditInput,
    config: AnalysisConfig,
) -> Result<(AuditInput, Analysis), ViewError> {
    tokio::task::spawn_blocking(move || {
        let analysis = audit::analyse(&input, &config);
        (input, analysis)
    })
    .await
    .map_err(|e| ViewError::Task(e.to_string()))
}

/// One file of a report export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// Data rows, for a table (`None` for a fix file).
    pub rows: Option<usize>,
}

/// Writes the full report into `dir` (created if missing): every table as CSV, every
/// link (`all_inlinks.csv`, `all_outlinks.csv`) and the fix files. Both front ends export with this, so they write the same files.
pub fn export_report(
    input: &AuditInput,
    analysis: &Analysis,
    dir: &Path,
) -> Result<Vec<Written>, ViewError> {
    export_report_with(input, analysis, dir, ExportOptions::default())
}

/// Choices of what an export writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions {
    /// The server redirect files also hold the redirects the site already answers.
    pub include_existing_redirects: bool,
}

/// [`export_report`] with options.
pub fn export_report_with(
    input: &AuditInput,
    analysis: &Analysis,
    dir: &Path,
    options: ExportOptions,
) -> Result<Vec<Written>, ViewError> {
    std::fs::create_dir_all(dir).map_err(|e| ViewError::io(dir, e))?;
    let mut written = Vec::new();
    // The crawl budget wasted on duplicates is written below, only for an access log.
    for name in TableName::ALL
        .into_iter()
        .filter(|&t| t != TableName::LogWaste && t != TableName::External)
    {
        let path = dir.join(tables::file_name(name));
        let rows = export_table(input, analysis, name, &path)?;
        written.push(Written {
            path,
            rows: Some(rows),
        });
    }
    // A list audit of an access log: the crawl budget its duplicates took.
    if !analysis.log_waste.is_empty() {
        let path = dir.join(audit::LOG_WASTE_FILE);
        let file = std::fs::File::create(&path).map_err(|e| ViewError::io(&path, e))?;
        let rows = audit::log_waste_table(&analysis.log_waste)
            .write_csv(std::io::BufWriter::new(file))
            .map_err(|e| ViewError::Csv(path.display().to_string(), e))?;
        written.push(Written {
            path,
            rows: Some(rows),
        });
    }
    // Every link, once grouped by the linked URL and once by the linking page.
    let index = crate::url_detail::UrlIndex::new(input);
    for direction in crate::LinkDirection::ALL {
        let path = dir.join(crate::links::all_links_file(direction));
        let rows = crate::links::export_all_links(input, &index, direction, &path)?;
        written.push(Written {
            path,
            rows: Some(rows),
        });
    }
    for (file, contents) in audit::export::fix_files(analysis, options.include_existing_redirects) {
        let path = dir.join(file);
        std::fs::write(&path, contents).map_err(|e| ViewError::io(&path, e))?;
        written.push(Written { path, rows: None });
    }
    Ok(written)
}

/// Writes one table as CSV to `path`; returns the data rows written.
pub fn export_table(
    input: &AuditInput,
    analysis: &Analysis,
    name: TableName,
    path: &Path,
) -> Result<usize, ViewError> {
    let (data, _) = tables::build(name, input, analysis);
    let file = std::fs::File::create(path).map_err(|e| ViewError::io(path, e))?;
    data.write_csv(std::io::BufWriter::new(file))
        .map_err(|e| ViewError::Csv(path.display().to_string(), e))
}
