//! An audit's tables as Parquet files (`dustpan export --parquet DIR`, and the input of
//! `dustpan analyse --engine datafusion|ballista`).

use super::report::Target;
use anyhow::{Context, Result};
use std::path::Path;

/// Writes the audit `target` names, analysed as `report`, into `dir` as Parquet, one
/// file per table: `content.parquet` (main content with the site's template removed)
/// comes from the analysis, then `report` is dropped and the tables stream from the
/// store. Answers the files written.
pub async fn write(
    target: &Target,
    report: super::report::Report,
    dir: &Path,
) -> Result<Vec<columnar::Written>> {
    let id = report.audit.id;
    let policy = match target.what_if()? {
        Some(p) => p,
        None => view::AnalysisPolicy::of_audit(&report.audit)?,
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let content = columnar::export_content(&report.analysis, dir)
        .with_context(|| format!("cannot export audit {} to {}", id.0, dir.display()))?;
    // The audit in memory is no longer needed: the tables stream from the store.
    drop(report);
    let store = target.db.open().await?;
    let mut written = columnar::export_audit(&store, id, &policy.policy, dir)
        .await
        .with_context(|| format!("cannot export audit {} to {}", id.0, dir.display()))?;
    written.push(content);
    Ok(written)
}
