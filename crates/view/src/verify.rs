//! A fix plan verified on the live site after deployment, as `dustpan verify` and the
//! app's Fix plan view run it: the plan read from its files, the list audit of its URLs
//! configured from the audit's own crawl configuration, and each planned line judged
//! ([`audit::verify`]) on what that list audit stored.

use crate::error::ViewError;
use crate::open::AnalysisPolicy;
pub use audit::FixFiles;
pub use audit::verify::{Check, CheckKind, Requests, Verdict};
use audit::verify::{audited_origins, judge, plan_requests};
use crawl::CrawlConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;
use store::{AuditId, Store};
use ts_rs::TS;

/// The plan files a folder written by `dustpan export` may hold.
pub const PLAN_FILES: [&str; 3] = [
    "redirect_map.csv",
    "canonicals_to_set.csv",
    "sitemap_changes.csv",
];

/// The plan in `path`: a folder written by `dustpan export` (its redirect_map.csv,
/// canonicals_to_set.csv and sitemap_changes.csv, each optional), or one
/// redirect_map.csv.
pub fn read_plan(path: &Path) -> Result<FixFiles, ViewError> {
    let read = |p: &Path| -> Result<Option<String>, ViewError> {
        match std::fs::read_to_string(p) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ViewError::Invalid(format!(
                "cannot read {}: {e}",
                p.display()
            ))),
        }
    };
    let (redirects, canonicals, sitemap) = if path.is_dir() {
        let [r, c, s] = PLAN_FILES.map(|f| read(&path.join(f)));
        let (r, c, s) = (r?, c?, s?);
        if r.is_none() && c.is_none() && s.is_none() {
            return Err(ViewError::Invalid(format!(
                "{} holds no redirect_map.csv, canonicals_to_set.csv or sitemap_changes.csv",
                path.display()
            )));
        }
        (r, c, s)
    } else {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ViewError::Invalid(format!("cannot read {}: {e}", path.display())))?;
        (Some(text), None, None)
    };
    audit::simulate::read_fix_files(
        redirects.as_deref(),
        canonicals.as_deref(),
        sitemap.as_deref(),
    )
    .map_err(|e| ViewError::Invalid(format!("cannot read the plan in {}: {e}", path.display())))
}

/// Where a verification's requests go instead of where the audit sent them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redirected {
    /// `host:port:address` overrides, as curl's `--resolve`; each replaces the audit's
    /// own overrides for its host.
    pub resolves: Vec<String>,
    /// PEM certificate authorities trusted too.
    pub ca_pems: Vec<String>,
}

/// A verification about to be requested: the list audit's configuration and what it
/// leaves out.
#[derive(Debug)]
pub struct Planned {
    /// The list audit of the plan's URLs and changed sitemaps, with the audit's crawl
    /// configuration (no URL-variant probes, no DUST learning, no following).
    pub config: CrawlConfig,
    /// Lines left out: not on one of the audit's origins.
    pub outside_scope: u32,
    /// The policy audit `id` is analysed under, for the verification too.
    pub policy: AnalysisPolicy,
}

/// The list audit that verifies `plan` of audit `id` on the live site (or where
/// `redirected` sends it: a staging server). An error when the plan names no URL on the
/// audit's origins, or an override is not `host:port:address`.
pub async fn plan_verification(
    store: &Store,
    id: AuditId,
    plan: &FixFiles,
    redirected: &Redirected,
) -> Result<Planned, ViewError> {
    let row = store.audit(id).await?;
    let policy = AnalysisPolicy::of_audit(&row)?;
    let original = crate::workflow::load(store, id, policy.policy.clone()).await?;
    let requests = plan_requests(plan, &audited_origins(&original.input));
    if requests.urls.is_empty() && requests.sitemaps.is_empty() {
        return Err(ViewError::Invalid(format!(
            "the plan names no URL on the origins audit {} crawled",
            id.0
        )));
    }
    let mut config = crawl::stored_config(&row)?;
    for r in &redirected.resolves {
        crawl::parse_resolve(r)?;
        let host = r.split(':').next().unwrap_or("").to_owned();
        config
            .resolve
            .retain(|old| old.split(':').next() != Some(host.as_str()));
        config.resolve.push(r.clone());
    }
    config
        .extra_root_certs_pem
        .extend(redirected.ca_pems.iter().cloned());
    config.sitemaps = requests.sitemaps.clone();
    config.probe_variants = false;
    config.learn_dust = false;
    config.learned_rules = None;
    config.learned_during_crawl = None;
    config.follow_canonicals = false;
    config.follow_hreflang = false;
    config.default_sitemap = false;
    let site = config.list.as_ref().and_then(|l| l.site.clone());
    config.set_list(crawl::ListMode {
        urls: requests
            .urls
            .iter()
            .map(|u| crawl::ListedUrl {
                url: u.clone(),
                ..crawl::ListedUrl::default()
            })
            .collect(),
        site,
        ..crawl::ListMode::default()
    });
    Ok(Planned {
        config,
        outside_scope: requests.outside,
        policy,
    })
}

/// What a verification found (`dustpan verify --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verification {
    /// The audit the plan was made from.
    pub audit: i64,
    /// One per planned line, in plan order: redirects, canonicals, sitemap lines.
    pub checks: Vec<Check>,
    /// Lines left out: their URL is not on one of the audit's origins.
    pub outside_scope: u32,
    /// The stored list audit of the live answers.
    pub verification: i64,
}

impl Verification {
    /// Every checked line is done.
    pub fn all_done(&self) -> bool {
        self.checks
            .iter()
            .all(|c| matches!(c.verdict, Verdict::Done | Verdict::NotChecked))
    }

    /// How many checks have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.checks.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// `plan` of audit `id` judged on the stored verification audit `verification` (a list
/// audit of the plan's URLs, made now or earlier: `dustpan verify --audit-of`).
pub async fn judge_stored(
    store: &Store,
    id: AuditId,
    verification: AuditId,
    plan: &FixFiles,
) -> Result<Verification, ViewError> {
    let row = store.audit(id).await?;
    let policy = AnalysisPolicy::of_audit(&row)?;
    let original = crate::workflow::load(store, id, policy.policy.clone()).await?;
    let outside_scope = plan_requests(plan, &audited_origins(&original.input)).outside;
    drop(original);
    judge_on(store, id, verification, plan, outside_scope, policy).await
}

/// `plan` judged on the stored verification audit, loaded under `policy`.
async fn judge_on(
    store: &Store,
    id: AuditId,
    verification: AuditId,
    plan: &FixFiles,
    outside_scope: u32,
    policy: AnalysisPolicy,
) -> Result<Verification, ViewError> {
    let live = crate::workflow::load(store, verification, policy.policy).await?;
    Ok(Verification {
        audit: id.0,
        checks: judge(plan, &live.input),
        outside_scope,
        verification: verification.0,
    })
}

/// Verifies `plan` of audit `id` on the live site: its list audit crawled and finished
/// here (stored like any audit), then judged.
pub async fn verify(
    store: &Store,
    id: AuditId,
    plan: &FixFiles,
    redirected: &Redirected,
) -> Result<Verification, ViewError> {
    let planned = plan_verification(store, id, plan, redirected).await?;
    let (progress, _watch) = tokio::sync::watch::channel(crawl::Progress::default());
    let cancel = crawl::CancellationToken::new();
    let summary = crawl::start_audit(store, &planned.config, &progress, &cancel).await?;
    crate::workflow::finish_audit(store, summary.audit).await?;
    judge_on(
        store,
        id,
        summary.audit,
        plan,
        planned.outside_scope,
        planned.policy,
    )
    .await
}

/// How many checks have one verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct VerdictCount {
    /// `done`, `missing`, `wrong`, `harmful` or `not_checked`.
    pub verdict: String,
    /// How many.
    pub count: u32,
}

/// One planned line and its verdict, for the app.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CheckView {
    /// `redirect`, `canonical`, `sitemap_add`, `sitemap_remove` or `sitemap_replace`.
    pub kind: String,
    /// The redirect's source, the page, or the sitemap entry.
    pub url: String,
    /// What the plan says.
    pub planned: String,
    /// `done`, `missing`, `wrong`, `harmful` or `not_checked`.
    pub verdict: String,
    /// What the site answers, in words.
    pub found: String,
}

/// A verification as the app shows it: the counts by verdict (every verdict listed, in
/// report order) and the checks, those not done first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct VerificationView {
    /// The audit the plan was made from.
    pub audit_id: i64,
    /// The stored list audit of the live answers.
    pub verification_id: i64,
    /// Lines left out: their URL is not on one of the audit's origins.
    pub outside_scope: u32,
    /// Every checked line is done.
    pub all_done: bool,
    /// Checks per verdict.
    pub counts: Vec<VerdictCount>,
    /// Every check: missing, wrong and harmful first, then not checked, then done.
    pub checks: Vec<CheckView>,
}

impl From<&Verification> for VerificationView {
    fn from(v: &Verification) -> VerificationView {
        let rank = |verdict: Verdict| match verdict {
            Verdict::Harmful => 0,
            Verdict::Wrong => 1,
            Verdict::Missing => 2,
            Verdict::NotChecked => 3,
            Verdict::Done => 4,
        };
        let mut checks: Vec<&Check> = v.checks.iter().collect();
        checks.sort_by_key(|c| rank(c.verdict));
        VerificationView {
            audit_id: v.audit,
            verification_id: v.verification,
            outside_scope: v.outside_scope,
            all_done: v.all_done(),
            counts: Verdict::ALL
                .iter()
                .map(|&verdict| VerdictCount {
                    verdict: verdict.as_str().to_owned(),
                    count: u32::try_from(v.count(verdict)).unwrap_or(u32::MAX),
                })
                .collect(),
            checks: checks
                .into_iter()
                .map(|c| CheckView {
                    kind: c.kind.as_str().to_owned(),
                    url: c.url.clone(),
                    planned: c.planned.clone(),
                    verdict: c.verdict.as_str().to_owned(),
                    found: c.found.clone(),
                })
                .collect(),
        }
    }
}
