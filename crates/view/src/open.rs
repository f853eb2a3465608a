//! [`OpenAudit`]: one audit loaded from the store and analysed, answering the app's
//! queries.

use crate::detail::Lookup;
use crate::error::ViewError;
use crate::findings::FindingIndex;
use crate::overview;
use crate::table::{PagedTable, TableCache};
use crate::tables;
use crate::types::{
    ClusterDetail, FindingPage, FindingQuery, Overview, PresetName, SeverityCounts, TableName,
    TablePage, TableQuery,
};
use audit::{Analysis, AuditInput, Severity};
use canon::{Policy, Preset};
use std::path::Path;
use std::sync::OnceLock;

/// The normalization policy an audit is analysed under, with the name the app shows.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisPolicy {
    /// `seo`, `rfc3986`, `aggressive` or the policy file's path.
    pub name: String,
    /// The policy.
    pub policy: Policy,
}

impl Default for AnalysisPolicy {
    fn default() -> Self {
        crawl::AuditPolicy::default().into()
    }
}

impl From<crawl::AuditPolicy> for AnalysisPolicy {
    fn from(p: crawl::AuditPolicy) -> Self {
        AnalysisPolicy {
            name: p.name,
            policy: p.policy,
        }
    }
}

impl From<AnalysisPolicy> for crawl::AuditPolicy {
    fn from(p: AnalysisPolicy) -> Self {
        crawl::AuditPolicy {
            name: p.name,
            policy: p.policy,
        }
    }
}

impl AnalysisPolicy {
    /// The default policy ([`crawl::AuditPolicy::default`]).
    pub fn is_default(&self) -> bool {
        *self == AnalysisPolicy::default()
    }

    /// The policy audit `row` was started with, stored with it: the one every analysis
    /// of the audit uses unless another is asked for as a what-if.
    pub fn of_audit(row: &store::Audit) -> Result<AnalysisPolicy, ViewError> {
        Ok(crawl::stored_config(row)?.policy.into())
    }

    /// A preset.
    pub fn preset(p: PresetName) -> AnalysisPolicy {
        let preset = match p {
            PresetName::Rfc3986 => Preset::Rfc3986,
            PresetName::Seo => Preset::Seo,
            PresetName::Aggressive => Preset::Aggressive,
        };
        AnalysisPolicy {
            name: preset.as_str().to_owned(),
            policy: preset.policy(),
        }
    }

    /// The policy a stored name stands for: a preset's name, else a policy file's path.
    /// A file that no longer reads (moved, deleted, invalid) is an error naming it,
    /// never the default policy in its place.
    pub fn named(name: &str) -> Result<AnalysisPolicy, ViewError> {
        match name.parse::<Preset>() {
            Ok(preset) => Ok(AnalysisPolicy {
                name: preset.as_str().to_owned(),
                policy: preset.policy(),
            }),
            Err(_) => AnalysisPolicy::from_file(Path::new(name)),
        }
    }

    /// A TOML or JSON policy file.
    pub fn from_file(path: &Path) -> Result<AnalysisPolicy, ViewError> {
        let name = path.display().to_string();
        match Policy::from_path(path) {
            Ok(policy) => Ok(AnalysisPolicy { name, policy }),
            Err(source) => Err(ViewError::Policy { path: name, source }),
        }
    }

    /// The preset or policy file of a start request (the default when neither).
    pub fn choose(
        preset: Option<PresetName>,
        file: Option<&str>,
    ) -> Result<AnalysisPolicy, ViewError> {
        match (preset, file) {
            (Some(_), Some(_)) => Err(ViewError::Invalid(
                "choose a preset or a policy file, not both".into(),
            )),
            (Some(p), None) => Ok(AnalysisPolicy::preset(p)),
            (None, Some(f)) => AnalysisPolicy::from_file(Path::new(f)),
            (None, None) => Ok(AnalysisPolicy::default()),
        }
    }
}

/// An audit opened for reading.
pub struct OpenAudit {
    audit: store::Audit,
    input: AuditInput,
    analysis: Analysis,
    policy: String,
    overview: Overview,
    /// The tables built so far, the least used dropped past a budget of rows.
    tables: std::sync::Mutex<TableCache>,
    lookup: OnceLock<Lookup>,
    findings: OnceLock<FindingIndex>,
    urls: OnceLock<crate::url_detail::UrlIndex>,
    fix_plan: OnceLock<crate::fixplan::FixPlanCache>,
}

impl OpenAudit {
    /// Loads audit `id` from the store and analyses it under `policy` (the analysis
    /// runs on a blocking thread).
    pub async fn open(
        store: &store::Store,
        id: i64,
        policy: &AnalysisPolicy,
    ) -> Result<OpenAudit, ViewError> {
        // The same configuration `dustpan report` analyses with.
        let loaded =
            crate::workflow::load(store, store::AuditId(id), policy.policy.clone()).await?;
        let (input, analysis) = crate::workflow::analyse(loaded.input, loaded.config).await?;
        let open = OpenAudit::from_parts(loaded.audit, input, analysis, policy.name.clone());
        open.save_summary(store).await?;
        Ok(open)
    }

    /// Saves the counts the audits list shows and this overview, which the next open
    /// of the audit under the same policy shows at once ([`OpenAudit::stored_overview`]).
    pub async fn save_summary(&self, store: &store::Store) -> Result<(), ViewError> {
        save(store, self.audit.id, &self.summary(), &self.overview).await
    }

    /// The overview of audit `id` as its last analysis under `policy` left it, if the
    /// audit has not changed since: the audit is not running and that analysis came
    /// after its last run ended. `None` when it must be analysed again.
    pub async fn stored_overview(
        store: &store::Store,
        id: i64,
        policy: &AnalysisPolicy,
    ) -> Result<Option<Overview>, ViewError> {
        let audit_id = store::AuditId(id);
        let (row, stored) =
            tokio::try_join!(store.audit(audit_id), store.stored_overview(audit_id))?;
        let Some((summary, json)) = stored else {
            return Ok(None);
        };
        let fresh = row.status != store::AuditStatus::Running
            && summary.policy == policy.name
            && row
                .finished_at
                .is_some_and(|end| summary.analysed_at >= end);
        // The stored overview is a copy of what an analysis shows: one in a format
        // version this build reads but whose shape it no longer parses is analysed again
        // (and stored anew); one from a newer version is the store's error above.
        Ok(fresh
            .then(|| serde_json::from_str::<Overview>(&json).ok())
            .flatten()
            .filter(|o| o.audit_id == id))
    }

    /// The counts the audits list shows.
    pub fn summary(&self) -> store::AnalysisSummary {
        analysis_summary(&self.analysis, &self.policy)
    }

    /// An audit from its parts (the overview is computed here).
    pub fn from_parts(
        audit: store::Audit,
        input: AuditInput,
        analysis: Analysis,
        policy: String,
    ) -> OpenAudit {
        let overview = overview::compute(&audit, &input, &analysis, &policy);
        OpenAudit {
            audit,
            input,
            analysis,
            policy,
            overview,
            tables: std::sync::Mutex::new(TableCache::new(
                TableName::ALL.len(),
                crate::table::TABLE_ROWS_KEPT,
            )),
            lookup: OnceLock::new(),
            findings: OnceLock::new(),
            urls: OnceLock::new(),
            fix_plan: OnceLock::new(),
        }
    }

    /// The parts [`OpenAudit::from_parts`] took, back: the audit's row, its input, its
    /// analysis and the policy's name.
    pub fn into_parts(self) -> (store::Audit, AuditInput, Analysis, String) {
        (self.audit, self.input, self.analysis, self.policy)
    }

    /// The audit's id.
    pub fn id(&self) -> i64 {
        self.audit.id.0
    }

    /// The store's row for the audit, as it was when opened.
    pub fn audit(&self) -> &store::Audit {
        &self.audit
    }

    /// The analysis input.
    pub fn input(&self) -> &AuditInput {
        &self.input
    }

    /// The analysis.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The fix plan and its files' rows, built on first use and kept while the audit
    /// is open (every page of a plan reads the same one).
    pub(crate) fn fix_plan(&self) -> &crate::fixplan::FixPlanCache {
        self.fix_plan
            .get_or_init(|| crate::fixplan::FixPlanCache::new(&self.input, &self.analysis))
    }

    /// The policy name the analysis used.
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// Totals and chart data.
    pub fn overview(&self) -> &Overview {
        &self.overview
    }

    /// Findings per severity.
    pub fn severity_counts(&self) -> SeverityCounts {
        let mut c = SeverityCounts::default();
        for f in &self.analysis.findings {
            match f.severity {
                Severity::Error => c.error += 1,
                Severity::Warning => c.warning += 1,
                Severity::Notice => c.notice += 1,
            }
        }
        c
    }

    /// A table, built on first use and kept while the tables built hold no more than
    /// 2.5 million rows (the least recently used are dropped and built again when asked
    /// for).
    pub fn table(&self, name: TableName) -> std::sync::Arc<PagedTable> {
        let slot = TableName::ALL.iter().position(|&t| t == name).unwrap_or(0);
        let cache = || {
            self.tables
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(table) = cache().get(slot) {
            return table;
        }
        // Built outside the lock: the other tables answer meanwhile.
        let (data, keys) = match name {
            TableName::External => {
                let (data, keys) = crate::external::external_links(
                    &self.input,
                    || self.url_index(),
                    &self.own_hosts(),
                );
                (data, Some(keys))
            }
            _ => tables::build(name, &self.input, &self.analysis),
        };
        let table = std::sync::Arc::new(PagedTable::new(name, data, keys));
        cache().keep(slot, table)
    }

    /// The audit's own hosts ([`crawl::OwnHosts::of_audit`]).
    pub fn own_hosts(&self) -> crawl::OwnHosts {
        crawl::OwnHosts::of_audit(&self.audit)
    }

    /// A page of a table.
    pub fn query_table(&self, q: &TableQuery) -> Result<TablePage, ViewError> {
        Ok(self.table(q.table).query(q)?)
    }

    fn lookup(&self) -> &Lookup {
        self.lookup
            .get_or_init(|| Lookup::new(&self.input, &self.analysis))
    }

    fn finding_index(&self) -> &FindingIndex {
        self.findings
            .get_or_init(|| FindingIndex::new(&self.analysis))
    }

    /// One cluster in full: members with their evidence and fix, signals, findings.
    pub fn cluster_detail(&self, id: u32) -> Result<ClusterDetail, ViewError> {
        let cluster = self
            .analysis
            .clusters
            .get(id as usize)
            .filter(|c| c.id == id)
            .or_else(|| self.analysis.clusters.iter().find(|c| c.id == id))
            .ok_or(ViewError::NoSuchCluster(id))?;
        Ok(crate::detail::cluster_detail(
            cluster,
            &self.input,
            &self.analysis,
            self.lookup(),
            self.finding_index(),
            &self.policy,
        ))
    }

    /// Every finding kind present, highest priority first ([`crate::issues`]).
    pub fn issues(&self) -> Vec<crate::types::IssueView> {
        crate::issues::issues(&self.analysis)
    }

    fn url_index(&self) -> &crate::url_detail::UrlIndex {
        self.urls
            .get_or_init(|| crate::url_detail::UrlIndex::new(&self.input))
    }

    /// The id of `url` (as found or in its rfc3986 form).
    pub fn url_id(&self, url: &str) -> Result<audit::UrlId, ViewError> {
        self.url_index()
            .id_of(&self.input, url)
            .ok_or_else(|| ViewError::NoSuchUrl(url.to_owned()))
    }

    /// A page of `url`'s inlinks or outlinks: at most `limit` (capped at
    /// [`crate::LINK_PAGE_MAX`]) from `offset` on, with their total.
    pub fn url_links(
        &self,
        url: &str,
        direction: crate::LinkDirection,
        offset: u32,
        limit: u32,
    ) -> Result<crate::LinkPage, ViewError> {
        let id = self.url_id(url)?;
        let mut page =
            crate::links::link_page(&self.input, self.url_index(), id, direction, offset, limit);
        crate::external::mark(&mut page.links, &self.own_hosts());
        Ok(page)
    }

    /// Writes every inlink or outlink of `url` as CSV; answers the rows written.
    pub fn export_url_links(
        &self,
        url: &str,
        direction: crate::LinkDirection,
        path: &Path,
    ) -> Result<usize, ViewError> {
        let id = self.url_id(url)?;
        crate::links::export_url_links(&self.input, self.url_index(), id, direction, path)
    }

    /// Writes every link of the audit as CSV ("All inlinks" or "All outlinks"); answers
    /// the rows written.
    pub fn export_all_links(
        &self,
        direction: crate::LinkDirection,
        path: &Path,
    ) -> Result<usize, ViewError> {
        crate::links::export_all_links(&self.input, self.url_index(), direction, path)
    }

    /// One URL in full with its response headers read from `store` (the detail pane and
    /// `dustpan url`).
    pub async fn url_detail_with_headers(
        &self,
        store: &store::Store,
        url: &str,
    ) -> Result<crate::types::UrlDetail, ViewError> {
        let mut detail = self.url_detail(url)?;
        self.add_headers(store, url, &mut detail).await?;
        Ok(detail)
    }

    /// Adds `url`'s response headers, read from `store`, to its `detail`.
    pub async fn add_headers(
        &self,
        store: &store::Store,
        url: &str,
        detail: &mut crate::types::UrlDetail,
    ) -> Result<(), ViewError> {
        let id = self.url_id(url)?;
        crate::url_detail::add_headers(store, self.audit.id.0, i64::from(id), detail).await
    }

    /// One URL in full (the detail pane): `url` as found or in its rfc3986 form.
    pub fn url_detail(&self, url: &str) -> Result<crate::types::UrlDetail, ViewError> {
        let index = self.url_index();
        let id = self.url_id(url)?;
        // The Pages table has one row per URL, in the input's order.
        let pages = self.table(TableName::Pages);
        let mut fields: Vec<crate::types::DetailField> = index
            .row_of(id)
            .and_then(|i| pages.rows().get(i))
            .map(|row| {
                pages
                    .columns()
                    .iter()
                    .zip(row)
                    .map(|(c, v)| crate::types::DetailField {
                        key: c.key.clone(),
                        label: c.title.clone(),
                        value: v.as_text().into_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        // Why a URL was not crawled (out of scope, nofollow, a limit), as the live detail
        // says it.
        if let Some(reason) = index
            .row_of(id)
            .and_then(|i| self.input.urls.get(i))
            .and_then(|u| u.reason.as_ref())
        {
            fields.push(crate::types::DetailField {
                key: "reason".to_owned(),
                label: "Reason".to_owned(),
                value: reason.to_string(),
            });
        }
        let mut detail = crate::url_detail::url_detail(&self.input, index, id, fields);
        let own = self.own_hosts();
        crate::external::mark(&mut detail.inlinks, &own);
        crate::external::mark(&mut detail.outlinks, &own);
        if let Some(c) = self.analysis.cluster_of(id) {
            let at = c.members.iter().position(|m| m.url_id == id);
            let full = self.cluster_detail(c.id)?;
            if let Some(member) = at.and_then(|i| full.members.get(i)) {
                detail.cluster = Some(crate::types::MembershipView {
                    cluster_id: full.id,
                    preferred_url: full.preferred_url.clone(),
                    cause: full.cause,
                    size: full.size,
                    member: member.clone(),
                });
            }
        }
        detail.findings = self
            .finding_index()
            .concerning(&self.analysis, &[detail.url.as_str()]);
        Ok(detail)
    }

    /// A page of findings.
    pub fn query_findings(&self, q: &FindingQuery) -> FindingPage {
        self.finding_index().query(&self.analysis, q)
    }

    /// Writes one table as CSV (the same bytes as `dustpan export` for the tables it
    /// writes); returns the number of rows.
    pub fn export_table(&self, name: TableName, path: &Path) -> Result<usize, ViewError> {
        if name == TableName::External {
            let all = crate::types::ViewQuery {
                table: name,
                sort: None,
                search: None,
                filters: Vec::new(),
            };
            return self.table(name).write_csv(&all, path);
        }
        crate::workflow::export_table(&self.input, &self.analysis, name, path)
    }

    /// Writes the Excel workbook, one sheet per table (the External table's as
    /// `external_links.csv` holds it); answers the sheets written.
    pub fn export_workbook(&self, path: &Path) -> Result<Vec<crate::deliver::Sheet>, ViewError> {
        let (external, _) =
            crate::external::external_links(&self.input, || self.url_index(), &self.own_hosts());
        crate::deliver::export_workbook(&self.input, &self.analysis, &external, path)
    }

    /// Writes the self-contained HTML report of the overview and the issues.
    pub fn export_html(&self, path: &Path) -> Result<(), ViewError> {
        crate::deliver::export_html(&self.overview, &self.issues(), path)
    }

    /// Writes every table and the fix files into `dir` (created if missing); returns
    /// the paths written.
    pub fn export_report(&self, dir: &Path) -> Result<Vec<String>, ViewError> {
        let mut files: Vec<String> =
            crate::workflow::export_report(&self.input, &self.analysis, dir)?
                .into_iter()
                .map(|w| w.path.display().to_string())
                .collect();
        files.push(self.export_external(dir)?.0);
        Ok(files)
    }

    /// Writes the External table into `dir` (as `external_links.csv`); answers the path
    /// and the rows written.
    pub fn export_external(&self, dir: &Path) -> Result<(String, usize), ViewError> {
        let path = dir.join(tables::EXTERNAL_FILE);
        let rows = self.export_table(TableName::External, &path)?;
        Ok((path.display().to_string(), rows))
    }
}

/// The counts the audits list shows of an analysis under the policy named `policy`.
pub fn analysis_summary(analysis: &Analysis, policy: &str) -> store::AnalysisSummary {
    let count = |s: Severity| analysis.findings.iter().filter(|f| f.severity == s).count() as u64;
    store::AnalysisSummary {
        analysed_at: store::now_ms(),
        policy: policy.to_owned(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notices: count(Severity::Notice),
        clusters: u64::from(analysis.stats.clusters),
        clustered_urls: u64::from(analysis.stats.clustered_urls),
    }
}

/// Stores what the audits list and the next open in the app show of an analysis of
/// audit `id` under the policy named `policy`: its counts and its overview (for
/// analyses made outside the app, such as `dustpan audit` and `dustpan report`).
pub async fn record_analysis(
    store: &store::Store,
    id: store::AuditId,
    input: &AuditInput,
    analysis: &Analysis,
    policy: &str,
) -> Result<(), ViewError> {
    let audit = store.audit(id).await?;
    let overview = overview::compute(&audit, input, analysis, policy);
    save(store, id, &analysis_summary(analysis, policy), &overview).await
}

/// Saves a summary and, beside it, the overview.
async fn save(
    store: &store::Store,
    id: store::AuditId,
    summary: &store::AnalysisSummary,
    overview: &Overview,
) -> Result<(), ViewError> {
    store.save_analysis_summary(id, summary).await?;
    let json = serde_json::to_string(overview)
        .map_err(|e| ViewError::Invalid(format!("cannot store the overview: {e}")))?;
    store.save_overview(id, &summary.policy, &json).await?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_file_that_does_not_read_is_an_error_not_the_default() {
        assert_eq!(
            AnalysisPolicy::named("aggressive").unwrap().name,
            "aggressive"
        );
        let missing = "/nonexistent/dustpan-policy.toml";
        let error = AnalysisPolicy::named(missing).unwrap_err();
        assert!(matches!(error, ViewError::Policy { .. }), "{error:?}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("policy file {missing}: "))
        );
    }

    #[test]
    fn an_overview_stored_before_versions_still_reads() {
        // Captured from an audit of the fixture by a build that stored it unversioned.
        let json = include_str!("../../store/tests/data/overview_v1.json");
        let overview: Overview = serde_json::from_str(json).unwrap();
        assert_eq!(overview.audit_id, 1);
        assert_eq!(overview.pages, 468);
    }
}
