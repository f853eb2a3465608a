//! Dustpan's audits for AI assistants: a Model Context Protocol server (`dustpan mcp`)
//! over the same `view` layer the desktop app uses.
//!
//! Every tool answers what the app's command of the same job answers (the same
//! `view` call, the same JSON), as structured content with an output schema, and its
//! failures as tool errors whose structured content is the app's [`view::IpcError`]
//! (`{ code, message }`, `code` one of [`view::ErrorCode`]'s words). The server is
//! read-only unless it is built with [`Dustpan::allowing_crawl`]: then it also starts
//! audits (through `view::runs`, the app's runs, with the app's crawl configuration
//! builder), reports their progress and cancels them; it never resumes or deletes one.
//!
//! - [`Dustpan`]: the server, one [`view::Session`] behind it.
//! - [`serve_stdio`]: serves it on standard input and output until the client leaves.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use view::fixplan::{FixPlanFile, FixPlanPage, SimulationPage};
use view::runs::{RunEvents, Runs};
use view::{
    AnalysisPolicy, AuditListItem, ClusterDetail, ColumnFilter, DiffView, Family, FindingPage,
    FindingQuery, IpcError, IssueView, LinkDirection, LinkPage, NormalizedUrl, OpenAudit, Overview,
    PresetName, Progress, Session, Severity, SortSpec, StartAuditRequest, TableName, TablePage,
    TableQuery, UrlDetail, ViewError,
};

/// The rows or findings a page holds when the client does not say.
pub const DEFAULT_LIMIT: u32 = 50;

/// The most rows or findings a page holds.
pub const MAX_LIMIT: u32 = 1000;

/// Why the server stopped other than by the client leaving.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client and the server did not agree on a session.
    #[error("the MCP session did not start: {0}")]
    Initialize(#[from] Box<rmcp::service::ServerInitializeError>),
    /// The server's task failed.
    #[error("the MCP server failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Serves `store`'s audits on standard input and output until the client closes them;
/// with `crawl`, the tools that start audits too. Nothing else may write to standard
/// output meanwhile: it carries the protocol.
pub async fn serve_stdio(
    store: store::Store,
    crawl: Option<CrawlAccess>,
) -> Result<(), ServeError> {
    let session = Session::new(store);
    let server = match crawl {
        Some(access) => Dustpan::allowing_crawl(session, access),
        None => Dustpan::new(session),
    };
    let server = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(Box::new)?;
    server.waiting().await?;
    Ok(())
}

/// The audits of one database, as MCP tools.
#[derive(Clone)]
pub struct Dustpan {
    session: Session,
    /// The runs this server started; `None` when it may not crawl.
    runs: Option<Runs>,
    /// Extra certificate authorities (PEM text) the audits it starts trust.
    ca_pems: Arc<Vec<String>>,
    tool_router: ToolRouter<Dustpan>,
}

/// What a server that may crawl needs.
#[derive(Clone, Debug, Default)]
pub struct CrawlAccess {
    /// Extra certificate authorities (PEM text) the audits it starts trust.
    pub ca_pems: Vec<String>,
}

/// The tools that crawl, left out of a read-only server.
pub const CRAWL_TOOLS: [&str; 4] = [
    "start_audit",
    "start_list_audit",
    "audit_progress",
    "cancel_audit",
];

/// A started audit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    /// The new audit's id.
    pub audit_id: i64,
}

/// The progress of an audit this server started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressAnswer {
    /// The latest progress; `null` when this server did not start the audit.
    pub progress: Option<Progress>,
}

/// Whether a cancel found the audit running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    /// The audit was running here and is asked to stop (it can be resumed later).
    pub was_running: bool,
}

/// What to crawl.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct StartArgs {
    /// The start URL and limits, as the desktop app's new-audit form sends them.
    /// `allowInternal` is ignored: a host at a non-public address is audited only
    /// through an explicit `resolve` override.
    pub request: StartAuditRequest,
}

/// A run's end keeps the finished audit opened, as the app does.
struct Events {
    session: Session,
}

impl RunEvents for Events {
    fn progress(&self, _: &Progress) {}

    fn finished(&self, progress: &Progress, opened: Option<OpenAudit>) {
        self.session.run_finished(progress.audit_id, opened);
    }
}

/// Every audit in the database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditList {
    /// Newest first.
    pub audits: Vec<AuditListItem>,
}

/// Every kind of finding an audit has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueList {
    /// Site-wide errors first, then by priority, highest first.
    pub issues: Vec<IssueView>,
}

/// No arguments.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct NoArgs {}

/// One audit.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct AuditArgs {
    /// The audit's id, as `list_audits` gives it.
    pub audit_id: i64,
}

/// One cluster of an audit.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct ClusterArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// The cluster's id (the `clusters` table's `id` column, or a URL detail's
    /// `cluster.clusterId`).
    pub cluster_id: u32,
}

/// One URL of an audit.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct UrlArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// The URL exactly as the audit's tables show it.
    pub url: String,
}

/// A page of one URL's inlinks or outlinks.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct LinksArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// The URL exactly as the audit's tables show it.
    pub url: String,
    /// `inlinks` (the pages linking to it) or `outlinks` (the links on its page).
    pub direction: LinkDirection,
    /// The first link to return.
    #[serde(default)]
    pub offset: u32,
    /// Most links to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A page of one of an audit's tables.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct TableArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// The table.
    pub table: TableName,
    /// The order (the table's own order when absent).
    #[serde(default)]
    pub sort: Option<SortSpec>,
    /// Keep rows with this text in any cell (case-insensitive).
    #[serde(default)]
    pub search: Option<String>,
    /// Keep rows that pass every filter; a filter names a column by its `key` (the
    /// answer's `columns`).
    #[serde(default)]
    pub filters: Vec<ColumnFilter>,
    /// The first matched row to return (0 for the first page; the next page starts at
    /// `offset + rows.length` while that is below `matched`).
    #[serde(default)]
    pub offset: u32,
    /// Most rows to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A page of an audit's findings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct FindingArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// Only this severity.
    #[serde(default)]
    pub severity: Option<Severity>,
    /// Only this family.
    #[serde(default)]
    pub family: Option<Family>,
    /// Keep findings with this text in their id, title, URLs, evidence or fixes.
    #[serde(default)]
    pub search: Option<String>,
    /// The first matched finding to return.
    #[serde(default)]
    pub offset: u32,
    /// Most findings to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Two audits, the earlier first, and a page of the changes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct CompareArgs {
    /// The earlier audit's id.
    pub old_audit: i64,
    /// The later audit's id.
    pub new_audit: i64,
    /// Only this section (a section's `key` from an earlier answer).
    #[serde(default)]
    pub section: Option<String>,
    /// The first row of each section to return.
    #[serde(default)]
    pub offset: u32,
    /// Most rows of each section to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A list audit: the list itself, never a path.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct StartListArgs {
    /// The limits and options, as the desktop app's new-audit form sends them (its `url`
    /// is not used: a list audit starts at the listed URLs' origins).
    pub request: StartAuditRequest,
    /// The list's text: URLs one per line, an XML sitemap or sitemap index, a CSV export
    /// with an Address, URL or Loc column, or access-log lines (then `site` is needed).
    pub list: String,
    /// The site (scheme and host) that relative paths and an access log's paths are
    /// resolved against.
    #[serde(default)]
    pub site: Option<String>,
    /// For access logs: only requests whose user agent matches this regular expression.
    #[serde(default)]
    pub log_agent: Option<String>,
    /// Crawl on from the listed URLs as from start URLs instead of auditing the list
    /// alone.
    #[serde(default)]
    pub follow: bool,
}

/// A page of one file of an audit's fix plan.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct FixPlanArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// The file: `redirect_map` (the default), `canonicals_to_set` or `sitemap_changes`.
    #[serde(default)]
    pub file: Option<FixPlanFile>,
    /// The first row to return.
    #[serde(default)]
    pub offset: u32,
    /// Most rows to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The simulation of an audit's fix plan, a page of its problems.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct SimulateArgs {
    /// The audit's id.
    pub audit_id: i64,
    /// Only problems of this kind: redirect_loop, redirect_chain, redirect_to_error,
    /// redirect_to_non_preferred, canonical_to_redirect, orphan, content_lost,
    /// cluster_unresolved, page_taken_out (a migration's map only).
    #[serde(default)]
    pub kind: Option<String>,
    /// The first matched problem to return.
    #[serde(default)]
    pub offset: u32,
    /// Most problems to return (50 when absent, at most 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A URL to normalize.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
pub struct NormalizeArgs {
    /// An absolute http(s) URL.
    pub url: String,
    /// Normalize under this preset (`seo` when neither it nor `audit_id` is given).
    #[serde(default)]
    pub preset: Option<PresetName>,
    /// Normalize under the policy this audit is analysed under.
    #[serde(default)]
    pub audit_id: Option<i64>,
}

/// `request` as an assistant may send it: internal addresses only through an explicit
/// `resolve` override, and no file read on its behalf (a policy file is refused).
fn confined(mut request: StartAuditRequest) -> Result<StartAuditRequest, Json<IpcError>> {
    request.allow_internal = false;
    if request.policy_file.is_some() {
        return Err(fail(ViewError::Invalid(
            "policyFile is not read over MCP: choose a preset (seo, rfc3986, aggressive)".into(),
        )));
    }
    Ok(request)
}

/// A view error as a tool answers it.
fn fail(e: ViewError) -> Json<IpcError> {
    Json(IpcError::from(e))
}

/// Runs a view call off the async threads, as the desktop shell does: the view's value,
/// or the app's error.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ViewError> + Send + 'static,
) -> Result<Json<T>, Json<IpcError>> {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(v)) => Ok(Json(v)),
        Ok(Err(e)) => Err(fail(e)),
        Err(e) => Err(fail(ViewError::Task(e.to_string()))),
    }
}

#[tool_router]
impl Dustpan {
    /// A read-only server over `session`'s database: the crawl tools left out.
    pub fn new(session: Session) -> Dustpan {
        let mut tool_router = Dustpan::tool_router();
        for name in CRAWL_TOOLS {
            tool_router.remove_route(name);
        }
        Dustpan {
            session,
            runs: None,
            ca_pems: Arc::new(Vec::new()),
            tool_router,
        }
    }

    /// A server that also starts, follows and cancels audits.
    pub fn allowing_crawl(session: Session, access: CrawlAccess) -> Dustpan {
        Dustpan {
            session,
            runs: Some(Runs::new()),
            ca_pems: Arc::new(access.ca_pems),
            tool_router: Dustpan::tool_router(),
        }
    }

    /// The runs, when this server may crawl.
    fn runs(&self) -> Result<&Runs, Json<IpcError>> {
        self.runs.as_ref().ok_or_else(|| {
            fail(ViewError::Invalid(
                "this server is read-only: start it with --allow-crawl".into(),
            ))
        })
    }

    /// Starts `config` under `request`'s analysis policy; answers the new id.
    async fn start(
        &self,
        request: &StartAuditRequest,
        config: view::runs::CrawlConfig,
    ) -> Result<Json<Started>, Json<IpcError>> {
        let runs = self.runs()?;
        let policy = AnalysisPolicy::choose(request.preset, None).map_err(fail)?;
        let events = Arc::new(Events {
            session: self.session.clone(),
        });
        let id = runs
            .start(self.session.store().clone(), config, policy.clone(), events)
            .await
            .map_err(fail)?;
        self.session.remember_policy(id, policy);
        Ok(Json(Started { audit_id: id }))
    }

    /// Audit `id`, opened on first use (loaded and analysed under its own policy).
    async fn open(&self, id: i64) -> Result<Arc<OpenAudit>, Json<IpcError>> {
        self.session.open(id).await.map_err(fail)
    }

    #[tool(
        description = "Every audit in the database, newest first: id, start URL, status, pages and URLs, findings per severity and clusters of its latest analysis. Start here to find an audit id.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_audits(&self, _: Parameters<NoArgs>) -> Result<Json<AuditList>, Json<IpcError>> {
        // An audit marked running may be crawled by another process.
        match view::list_audits(self.session.store(), &|_| true).await {
            Ok(audits) => Ok(Json(AuditList { audits })),
            Err(e) => Err(fail(e)),
        }
    }

    #[tool(
        description = "Opens an audit and answers its overview: totals (pages, URLs, clusters), findings per severity and family, clusters per cause, status codes, redirect chain lengths, the policy, and the limit the crawl stopped at, if any.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn audit_overview(
        &self,
        Parameters(a): Parameters<AuditArgs>,
    ) -> Result<Json<Overview>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        Ok(Json(open.overview().clone()))
    }

    #[tool(
        description = "The audit's issues: one entry per kind of finding present, site-wide errors first, then by priority (severity weight x log2(1 + URLs)), with why it matters, how to fix it and an example fix. The best place to start fixing a site.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_issues(
        &self,
        Parameters(a): Parameters<AuditArgs>,
    ) -> Result<Json<IssueList>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        blocking(move || {
            Ok(IssueList {
                issues: open.issues(),
            })
        })
        .await
    }

    #[tool(
        description = "A page of the audit's findings, filtered by severity (error, warning, notice), family (duplicates, canonicals, redirects, sitemaps, dust, hreflang, crawl) or text; each with its URLs, evidence and fixes. Page with offset and limit.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn query_findings(
        &self,
        Parameters(a): Parameters<FindingArgs>,
    ) -> Result<Json<FindingPage>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        let query = FindingQuery {
            severity: a.severity,
            family: a.family,
            search: a.search,
            offset: a.offset,
            limit: a.limit.unwrap_or(DEFAULT_LIMIT),
        };
        blocking(move || Ok(open.query_findings(&query))).await
    }

    #[tool(
        description = "One cluster (URLs that are the same page) in full: its preferred URL, every member with its role, the evidence that put it in and the fix (a 301 or a canonical), which URL each site signal votes for, and the findings on its members.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn cluster_detail(
        &self,
        Parameters(a): Parameters<ClusterArgs>,
    ) -> Result<Json<ClusterDetail>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        blocking(move || open.cluster_detail(a.cluster_id)).await
    }

    #[tool(
        description = "One URL in full: its Pages row, canonical declarations from every source, robots directives, inlinks with anchor text and region, outlinks, redirect hops, its cluster with its role and fix, the findings that name it and the sitemaps that list it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn url_detail(
        &self,
        Parameters(a): Parameters<UrlArgs>,
    ) -> Result<Json<UrlDetail>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        blocking(move || open.url_detail(&a.url)).await
    }

    #[tool(
        description = "A page of one URL's inlinks (the pages linking to it) or outlinks (the links on its page), each with its anchor text, region (content, navigation, ...), follow and the status of the other end; with the total. url_detail holds only the first links of each; page the rest here with offset and limit.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn url_links(
        &self,
        Parameters(a): Parameters<LinksArgs>,
    ) -> Result<Json<LinkPage>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        let limit = a.limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
        blocking(move || open.url_links(&a.url, a.direction, a.offset, limit)).await
    }

    #[tool(
        description = "A page of one of the audit's tables (pages, clusters, clusterMembers, findings, redirects, canonicals, sitemapEntries, linksToNonPreferred, params, dustRules, issueUrls, urlVariants, duplicateMetadata, logWaste), with the app's sort, search and column filters (text: contains, not_contains, equals, not_equals, starts_with, ends_with, regex; numbers: eq, ne, lt, le, gt, ge, between). The answer gives the columns, the total and matched row counts and the rows; page with offset and limit.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn query_table(
        &self,
        Parameters(a): Parameters<TableArgs>,
    ) -> Result<Json<TablePage>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        let query = TableQuery {
            table: a.table,
            sort: a.sort,
            search: a.search,
            filters: a.filters,
            offset: a.offset,
            limit: a.limit.unwrap_or(DEFAULT_LIMIT),
        };
        blocking(move || open.query_table(&query)).await
    }

    #[tool(
        description = "What changed between two audits of a site, the earlier first: counts (findings new and resolved, clusters formed and dissolved, ...), the changes table by table (each section's total, and a page of its rows: offset and limit apply to every section, or to the one named by section), and warnings when coverage differs.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn compare_audits(
        &self,
        Parameters(a): Parameters<CompareArgs>,
    ) -> Result<Json<DiffView>, Json<IpcError>> {
        let old = self.open(a.old_audit).await?;
        let new = self.open(a.new_audit).await?;
        let limit = a.limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
        blocking(move || view::compare(&old, &new).paged(a.section.as_deref(), a.offset, limit))
            .await
    }

    #[tool(
        description = "Normalizes a URL and explains it: its canonical form under a preset (rfc3986, seo, aggressive) or an audit's own policy, and every rule that changed it with the URL before and after. Two URLs with the same canonical form are the same page as far as the rules can tell.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn normalize_url(
        &self,
        Parameters(a): Parameters<NormalizeArgs>,
    ) -> Result<Json<NormalizedUrl>, Json<IpcError>> {
        let policy = match (a.audit_id, a.preset) {
            (Some(_), Some(_)) => {
                return Err(fail(ViewError::Invalid(
                    "give a preset or an audit, not both".into(),
                )));
            }
            (Some(id), None) => self.session.policy_of(id).await.map_err(fail)?,
            (None, preset) => AnalysisPolicy::preset(preset.unwrap_or(PresetName::Seo)),
        };
        view::normalize_url(&a.url, &policy.policy)
            .map(Json)
            .map_err(fail)
    }

    #[tool(
        description = "A page of the audit's fix plan, one file at a time as `dustpan export` writes it: redirect_map (every non-preferred URL and the preferred URL it should 301 to, marked new, changed or existing), canonicals_to_set (the canonical each page should declare) or sitemap_changes (sitemap lines to remove, replace or add); with the size of every part of the plan, the internal links to change included (their rows: query_table linksToNonPreferred). Page with offset and limit.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn fix_plan(
        &self,
        Parameters(a): Parameters<FixPlanArgs>,
    ) -> Result<Json<FixPlanPage>, Json<IpcError>> {
        let open = self.open(a.audit_id).await?;
        let file = a.file.unwrap_or(FixPlanFile::RedirectMap);
        let limit = a.limit.unwrap_or(DEFAULT_LIMIT);
        blocking(move || view::fixplan::fix_plan_page(&open, file, a.offset, limit)).await
    }

    #[tool(
        description = "Simulates the audit's fix plan before it is deployed: the stored crawl with the redirect map answered, the canonicals set, the internal links and sitemap lines changed, analysed again. Answers whether the plan is clean, what was applied, findings resolved, remaining and new, and a page of the problems the plan would create (redirect loops and chains, redirects to an error or to a non-preferred URL, canonicals to a redirect, pages left without internal links, content taken out of the index with no other copy, clusters left unresolved). The first call analyses the audit twice (seconds on large audits); paging reuses it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn simulate_fix_plan(
        &self,
        Parameters(a): Parameters<SimulateArgs>,
    ) -> Result<Json<SimulationPage>, Json<IpcError>> {
        let sim = self.session.simulation(a.audit_id).await.map_err(fail)?;
        let limit = a.limit.unwrap_or(DEFAULT_LIMIT);
        blocking(move || view::fixplan::simulation_page(&sim, a.kind.as_deref(), a.offset, limit))
            .await
    }

    #[tool(
        description = "Starts an audit of a site (only when the server runs with --allow-crawl): the start URL with the new-audit form's limits (maxUrls, maxDepth, concurrency, respectRobots, userAgent, preset, resolve). Answers its id at once; follow it with audit_progress, then read it with the other tools once its phase is done.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn start_audit(
        &self,
        Parameters(a): Parameters<StartArgs>,
    ) -> Result<Json<Started>, Json<IpcError>> {
        self.runs()?;
        let request = confined(a.request)?;
        let config = view::runs::crawl_config(&request, &self.ca_pems).map_err(fail)?;
        self.start(&request, config).await
    }

    #[tool(
        description = "Starts a list audit (only when the server runs with --allow-crawl): the URLs of a list sent as text (URLs one per line, an XML sitemap, a CSV export with an Address/URL/Loc column, or access-log lines with `site`), audited alone or crawled on from (`follow`), with the new-audit form's limits in `request`. Answers its id at once; follow it with audit_progress.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn start_list_audit(
        &self,
        Parameters(a): Parameters<StartListArgs>,
    ) -> Result<Json<Started>, Json<IpcError>> {
        self.runs()?;
        let request = confined(a.request)?;
        let list = view::ListAuditRequest {
            files: Vec::new(),
            site: a.site,
            log_agent: a.log_agent,
            follow: a.follow,
        };
        let ca = self.ca_pems.clone();
        let req = request.clone();
        // Reading a long list and checking an access log's bots by DNS take a while.
        let config = blocking(move || {
            view::lists::text_list_crawl_config(
                &req,
                "the list sent by the client",
                &a.list,
                &list,
                &ca,
                view::lists::BotCheck::System,
            )
        })
        .await?
        .0;
        self.start(&request, config).await
    }

    #[tool(
        description = "The latest progress of an audit this server started: phase (discovery, crawling, analysing, done, cancelled, failed), URLs fetched and queued, errors, answers by status class, the latest failures.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn audit_progress(
        &self,
        Parameters(a): Parameters<AuditArgs>,
    ) -> Result<Json<ProgressAnswer>, Json<IpcError>> {
        Ok(Json(ProgressAnswer {
            progress: self.runs()?.progress(a.audit_id),
        }))
    }

    #[tool(
        description = "Stops an audit this server started (the pages fetched so far are kept; it can be resumed with `dustpan audit --resume ID`).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn cancel_audit(
        &self,
        Parameters(a): Parameters<AuditArgs>,
    ) -> Result<Json<Cancelled>, Json<IpcError>> {
        Ok(Json(Cancelled {
            was_running: self.runs()?.cancel(a.audit_id),
        }))
    }
}

/// What the server tells a client about itself.
pub const INSTRUCTIONS: &str = "Dustpan audits web sites for URLs that are really the same page (duplicates, canonicals, redirects, sitemaps, learned URL rules). Call list_audits for an audit id, then list_issues for what to fix first, cluster_detail and url_detail for the evidence and the fix (url_links pages a URL's links), query_table or query_findings to page through everything, fix_plan and simulate_fix_plan for the changes to make and what they would do, compare_audits for what changed. Errors come back as tool errors whose structured content is { code, message } with code one of not_found, invalid_input, busy, database, unreadable, io, internal.";

/// The SDK answers arguments that do not fit a tool's input schema with its own text;
/// this rewords such an answer as every other failure is worded, the app's
/// `invalid_input` error, naming the tool. Any other answer passes unchanged.
fn argument_error_as_ipc(tool: &str, response: CallToolResponse) -> CallToolResponse {
    let CallToolResponse::Complete(result) = &response else {
        return response;
    };
    if result.is_error != Some(true) || result.structured_content.is_some() {
        return response;
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    let Some(detail) = text.iter().find_map(|t| t.strip_prefix(SDK_ARGUMENT_ERROR)) else {
        return response;
    };
    let error = IpcError::from(ViewError::Invalid(format!(
        "the arguments of {tool} do not fit its input schema:{detail}"
    )));
    let value = serde_json::to_value(&error).unwrap_or_default();
    CallToolResult::structured_error(value).into()
}

/// How the SDK begins its answer to arguments that do not deserialize.
const SDK_ARGUMENT_ERROR: &str = "failed to deserialize parameters:";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Dustpan {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let tool = request.name.to_string();
        let call = ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(call).await?;
        Ok(argument_error_as_ipc(&tool, response))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("dustpan", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
