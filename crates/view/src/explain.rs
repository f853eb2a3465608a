//! Search Console's verdicts explained, as `dustpan explain` prints them and the app's
//! URL detail pane shows them: the URLs a list audit read from Search Console inputs,
//! each with its cluster, signal table and the signal that contradicts the page's own
//! choice ([`audit::search_console`]).

use crate::error::ViewError;
use crate::open::OpenAudit;
pub use audit::search_console::{Contradiction, Explained, Explanation, UrlSignals};
use audit::{Analysis, AuditInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The Search Console facts the stored list of `audit` gives its URLs, in list order;
/// empty when its list came from no Search Console input (or it is no list audit).
fn listed(audit: &store::Audit) -> Result<Vec<(String, urllist::SearchConsole)>, ViewError> {
    let Some(list) = crawl::stored_config(audit)?.list else {
        return Ok(Vec::new());
    };
    Ok(list
        .urls
        .into_iter()
        .filter_map(|u| u.search_console.map(|f| (u.url, f)))
        .collect())
}

/// The explanation of a stored audit's Search Console URLs (`dustpan explain`); `None`
/// when its list came from no Search Console input.
pub fn of_audit(
    audit: &store::Audit,
    input: &AuditInput,
    analysis: &Analysis,
) -> Result<Option<Explanation>, ViewError> {
    let listed = listed(audit)?;
    if listed.is_empty() {
        return Ok(None);
    }
    Ok(Some(audit::search_console::explain(
        input,
        analysis,
        listed.iter().map(|(u, f)| (u.as_str(), f)),
    )))
}

/// One row of a URL's signal table, for the app.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignalRowView {
    /// The URL.
    pub url: String,
    /// Its HTTP status, if fetched.
    pub status: Option<u16>,
    /// Where its redirects end, if it redirects.
    pub redirects_to: Option<String>,
    /// The canonical its served HTML declares, as written.
    pub canonical: Option<String>,
    /// The rendered page's canonical, where the page was rendered.
    pub rendered_canonical: Option<String>,
    /// Other crawled URLs that redirect to it.
    pub redirects_in: u32,
    /// Other pages whose canonical names it.
    pub canonicals_in: u32,
    /// Internal links to it from other pages.
    pub links_in: u32,
    /// Sitemaps listing it.
    pub sitemaps: u32,
    /// hreflang alternates of other pages naming it.
    pub hreflang_in: u32,
    /// It is an https URL.
    pub https: bool,
    /// It is marked noindex.
    pub noindex: bool,
}

/// One URL Search Console names, explained, for the app's URL detail pane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchConsoleView {
    /// The URL.
    pub url: String,
    /// The page-indexing reasons whose exports list it.
    pub reasons: Vec<String>,
    /// The inspection's `coverageState`.
    pub coverage_state: Option<String>,
    /// The inspection's `verdict` (`PASS`, `NEUTRAL`, `FAIL`, ...).
    pub verdict: Option<String>,
    /// Its cluster's id, if it is in one.
    pub cluster: Option<u32>,
    /// The page's own choice of canonical.
    pub user_canonical: Option<String>,
    /// Google's canonical (the inspection's `googleCanonical`).
    pub google_canonical: Option<String>,
    /// The predicted Google canonical.
    pub predicted: String,
    /// Whether the prediction is Google's canonical (only where an inspection gave one).
    pub agrees: Option<bool>,
    /// The contradicting signal (`redirect`, `internal_links`, ...); `null`: Google
    /// follows the page's choice.
    pub contradiction: Option<String>,
    /// What the contradicting signal is, in a sentence.
    pub detail: Option<String>,
    /// What to change.
    pub fix: Option<String>,
    /// The signal table: this URL, both choices and the cluster's other members.
    pub signals: Vec<SignalRowView>,
}

impl From<&Explained> for SearchConsoleView {
    fn from(x: &Explained) -> SearchConsoleView {
        let c = x.contradiction.as_ref();
        SearchConsoleView {
            url: x.url.clone(),
            reasons: x.search_console.reasons.clone(),
            coverage_state: x.search_console.coverage_state.clone(),
            verdict: x.search_console.verdict.clone(),
            cluster: x.cluster,
            user_canonical: x.user_canonical.clone(),
            google_canonical: x.google_canonical.clone(),
            predicted: x.predicted.clone(),
            agrees: x.agrees,
            contradiction: c.map(|c| c.kind.as_str().to_owned()),
            detail: c.map(|c| c.detail.clone()),
            fix: c.map(|c| c.fix.clone()),
            signals: x
                .signals
                .iter()
                .map(|s| SignalRowView {
                    url: s.url.clone(),
                    status: s.status,
                    redirects_to: s.redirects_to.clone(),
                    canonical: s.canonical.clone(),
                    rendered_canonical: s.rendered_canonical.clone(),
                    redirects_in: s.redirects_in,
                    canonicals_in: s.canonicals_in,
                    links_in: s.links_in,
                    sitemaps: s.sitemaps,
                    hreflang_in: s.hreflang_in,
                    https: s.https,
                    noindex: s.noindex,
                })
                .collect(),
        }
    }
}

/// `url` of `open` explained as `dustpan explain` explains it; `None` when the audit
/// read no Search Console file naming it.
pub fn explain_url(open: &OpenAudit, url: &str) -> Result<Option<SearchConsoleView>, ViewError> {
    let listed = listed(open.audit())?;
    let Some((url, facts)) = listed.iter().find(|(u, _)| u == url) else {
        return Ok(None);
    };
    let e = audit::search_console::explain(open.input(), open.analysis(), [(url.as_str(), facts)]);
    Ok(e.urls.first().map(SearchConsoleView::from))
}
