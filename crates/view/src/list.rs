//! The audits list (history).

use crate::error::ViewError;
use crate::types::{AuditListItem, AuditStatus, ListInputView, SeverityCounts};

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Every audit in the store, newest first, with the finding counts of its latest
/// analysis (saved by [`crate::OpenAudit::open`] and by the command-line program) and
/// what its stored configuration would run (start URLs, DNS overrides, extra CAs,
/// include and exclude patterns, nofollow links followed or not).
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
                includes: config
                    .as_ref()
                    .map(|c| c.include_patterns.clone())
                    .unwrap_or_default(),
                excludes: config
                    .as_ref()
                    .map(|c| c.exclude_patterns.clone())
                    .unwrap_or_default(),
                follow_nofollow: config.as_ref().is_none_or(|c| c.follow_nofollow),
                config_problem: config_problem.clone(),
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
                stop: a.stop.as_ref().map(ToString::to_string),
                failure: a.failure.clone(),
                resumable: a.resumable() && config.is_some() && config_problem.is_none(),
                list: config
                    .as_ref()
                    .and_then(|c| c.list.as_ref())
                    .map(|list| list.inputs.iter().map(input_view).collect()),
            }
        })
        .collect())
}

/// One list file as the audits list shows it.
fn input_view(input: &crawl::ListInput) -> ListInputView {
    ListInputView {
        name: input.name.clone(),
        format: input.format.clone(),
        lines: input.lines,
        urls: input.urls,
        rejected: input.rejected,
        repeated: input.repeated,
        over_limit: input.over_limit,
        rejected_lines: input
            .samples
            .iter()
            .map(|s| format!("line {}: {}: {:?}", s.line, s.reason, s.text))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The list says in words what `dustpan audits` says: an audit stopped at a limit,
    /// why one failed, whether a resume would continue it, and a list audit's files with
    /// their skipped lines.
    #[tokio::test]
    async fn the_list_says_stopped_failed_resumable_and_list() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("a.sqlite"))
            .await
            .unwrap();
        let config = crawl::CrawlConfig::for_url("https://example.test/");
        let start = config.start_urls.clone();
        let json = serde_json::to_string(&config).unwrap();

        let stopped = store.create_audit(&start, &json).await.unwrap();
        let stop = store::AuditStop {
            reason: store::StopReason::MaxUrls,
            detail: "after 20 URLs; 7 more were found and not crawled".into(),
        };
        store.record_run_end(stopped, Some(&stop), 0).await.unwrap();
        store
            .set_audit_status(stopped, store::AuditStatus::Finished, None)
            .await
            .unwrap();

        let failed = store.create_audit(&start, &json).await.unwrap();
        store
            .set_audit_status(
                failed,
                store::AuditStatus::Failed,
                Some("no page answered 2xx"),
            )
            .await
            .unwrap();

        let mut listed = config.clone();
        listed.list = Some(crawl::ListMode {
            inputs: vec![crawl::ListInput {
                name: "urls.txt".into(),
                lines: 12,
                urls: 9,
                rejected: 3,
                samples: vec![crawl::RejectedLine {
                    line: 4,
                    reason: "not a URL".into(),
                    text: "hello".into(),
                }],
                ..crawl::ListInput::default()
            }],
            ..crawl::ListMode::default()
        });
        let list = store
            .create_audit(&start, &serde_json::to_string(&listed).unwrap())
            .await
            .unwrap();
        store
            .set_audit_status(list, store::AuditStatus::Finished, None)
            .await
            .unwrap();

        let items = list_audits(&store, &|_| false).await.unwrap();
        let item = |id: store::AuditId| items.iter().find(|i| i.id == id.0).unwrap();
        assert_eq!(
            item(stopped).stop.as_deref(),
            Some("max_urls (after 20 URLs; 7 more were found and not crawled)")
        );
        assert!(!item(stopped).resumable, "a finished audit is complete");
        assert_eq!(item(stopped).list, None);
        assert_eq!(
            item(failed).failure.as_deref(),
            Some("no page answered 2xx")
        );
        assert!(item(failed).resumable);
        let inputs = item(list).list.clone().unwrap();
        assert_eq!(inputs.len(), 1);
        assert_eq!((inputs[0].urls, inputs[0].rejected), (9, 3));
        assert_eq!(inputs[0].rejected_lines, ["line 4: not a URL: \"hello\""]);
    }

    /// The include and exclude patterns and the nofollow choice of an audit's stored
    /// configuration are listed with it (what its re-run crawls); an audit without them
    /// lists none and follows nofollow links, as the defaults do.
    #[tokio::test]
    async fn the_list_shows_the_crawl_rules_a_rerun_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(&dir.path().join("a.sqlite"))
            .await
            .unwrap();
        let plain = crawl::CrawlConfig::for_url("https://example.test/");
        let start = plain.start_urls.clone();
        let mut narrowed = plain.clone();
        narrowed.include_patterns = vec!["^https://example\\.test/blog/".into()];
        narrowed.exclude_patterns = vec![r"\?replytocom=".into()];
        narrowed.follow_nofollow = false;
        let a = store
            .create_audit(&start, &serde_json::to_string(&plain).unwrap())
            .await
            .unwrap();
        let b = store
            .create_audit(&start, &serde_json::to_string(&narrowed).unwrap())
            .await
            .unwrap();
        let items = list_audits(&store, &|_| false).await.unwrap();
        let item = |id: store::AuditId| items.iter().find(|i| i.id == id.0).unwrap();
        assert!(item(a).includes.is_empty() && item(a).excludes.is_empty());
        assert!(item(a).follow_nofollow);
        assert_eq!(item(b).includes, ["^https://example\\.test/blog/"]);
        assert_eq!(item(b).excludes, [r"\?replytocom="]);
        assert!(!item(b).follow_nofollow);
    }
}
