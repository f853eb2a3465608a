//! The audits list (history).

use crate::error::ViewError;
use crate::types::{AuditListItem, AuditStatus, SeverityCounts};

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Every audit in the store, newest first, with the finding counts of its latest
/// analysis (saved by [`crate::OpenAudit::open`] and by the command-line program) and
/// what its stored configuration would run (start URLs, DNS overrides, extra CAs).
/// `running` says whether this process runs an audit: a `running` audit that is not is
/// shown `interrupted` (it was killed and can be resumed).
pub async fn list_audits(
    store: &store::Store,
    running: &(dyn Fn(i64) -> bool + Sync),
) -> Result<Vec<AuditListItem>, ViewError> {
    let audits = store.list_audits_with_summary().await?;
    Ok(audits
        .into_iter()
        .map(|l| {
            let a = l.audit;
            let id = a.id.0;
            let (config, config_problem) = match crawl::stored_config(&a) {
                Ok(config) => {
                    let problem = crate::runs::check_stored_config(&a, &config)
                        .err()
                        .map(|e| e.to_string());
                    (Some(config), problem)
                }
                Err(e) => (None, Some(e.to_string())),
            };
            AuditListItem {
                id,
                start_url: a.start_urls.first().cloned().unwrap_or_default(),
                start_urls: config
                    .as_ref()
                    .map(|c| c.start_urls.clone())
                    .unwrap_or_default(),
                resolve: config
                    .as_ref()
                    .map(|c| c.resolve.clone())
                    .unwrap_or_default(),
                extra_ca_certs: config.as_ref().map_or(0, |c| {
                    clamp(crate::runs::certificate_count(&c.extra_root_certs_pem) as u64)
                }),
                config_problem,
                status: AuditStatus::of(a.status, running(id)),
                started_at: a.started_at,
                finished_at: a.finished_at,
                pages: a.pages_fetched as i64,
                urls: a.urls_found as i64,
                findings: l.analysis.as_ref().map(|s| SeverityCounts {
                    error: clamp(s.errors),
                    warning: clamp(s.warnings),
                    notice: clamp(s.notices),
                }),
                clusters: l.analysis.as_ref().map(|s| clamp(s.clusters)),
            }
        })
        .collect())
}
