//! `dustpan report`: clusters, findings and fixes of an audit, in the terminal.

use super::db::DbArgs;
use super::output::{Format, print_json, print_jsonl};
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
    /// recrawling, as a what-if: the audit keeps the policy it was started with.
    #[arg(long, value_name = "PRESET", conflicts_with = "policy")]
    pub preset: Option<String>,
    /// Re-cluster under this policy file (TOML or JSON) without recrawling, as a what-if.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

impl Target {
    /// The policy asked for as a what-if (`--preset`, `--policy`), if any: the audit is
    /// otherwise analysed under the policy it was started with.
    pub fn what_if(&self) -> Result<Option<view::AnalysisPolicy>> {
        named_policy(self.preset.as_deref(), self.policy.as_deref())
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
        let what_if = self.what_if()?;
        let stored = what_if.is_none();
        // The store's errors name the audit.
        let (loaded, policy) = view::workflow::load_as_stored(&store, id, what_if).await?;
        let (input, analysis) = view::workflow::analyse(loaded.input, loaded.config).await?;
        // Under the audit's own policy the audits list's counts are this analysis; a
        // what-if under another policy leaves them, and the audit's policy, as they are.
        if stored {
            super::audits::record_analysis(&store, id, &input, &analysis, &policy.name).await?;
        }
        Ok(Report {
            audit: loaded.audit,
            input,
            analysis,
            policy: policy.name,
        })
    }
}

/// The policy a `--preset` (a preset's name) or `--policy` (a policy file, TOML or
/// JSON) flag names, under that name; `None` when neither is given.
pub fn named_policy(
    preset: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<Option<view::AnalysisPolicy>> {
    Ok(match (preset, file) {
        (Some(p), _) => Some(crawl::AuditPolicy::preset(p.parse::<Preset>()?).into()),
        (None, Some(path)) => Some(view::AnalysisPolicy {
            name: path.display().to_string(),
            policy: Policy::from_path(path)?,
        }),
        (None, None) => None,
    })
}

/// An audit analysed for its report.
pub struct Report {
    /// The audit's row (its counts).
    pub audit: store::Audit,
    /// Everything the crawl stored.
    pub input: AuditInput,
    /// The analysis.
    pub analysis: Analysis,
    /// The name of the policy it ran under.
    pub policy: String,
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
    /// text, json (the overview, the issues and every finding, as the desktop app shows
    /// them) or jsonl (one finding a line); see docs/json.md.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Exit with code 1 when the audit has a finding of this severity or a more severe
    /// one (error; warning: errors or warnings; notice: any finding), for a CI job.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    fail_on: Option<FailOn>,
}

/// The least severe finding that fails `dustpan report --fail-on`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Errors.
    Error,
    /// Errors and warnings.
    Warning,
    /// Any finding.
    Notice,
}

impl FailOn {
    /// The severities that fail.
    fn severities(self) -> &'static [Severity] {
        match self {
            FailOn::Error => &[Severity::Error],
            FailOn::Warning => &[Severity::Error, Severity::Warning],
            FailOn::Notice => &[Severity::Error, Severity::Warning, Severity::Notice],
        }
    }

    /// How many of `analysis`'s findings fail.
    fn failing(self, analysis: &Analysis) -> usize {
        let fail = self.severities();
        analysis
            .findings
            .iter()
            .filter(|f| fail.contains(&f.severity))
            .count()
    }
}

/// Every finding of an opened audit, in the app's order.
fn all_findings(open: &view::OpenAudit) -> Vec<view::FindingView> {
    let mut out = Vec::new();
    loop {
        let page = open.query_findings(&view::FindingQuery {
            severity: None,
            family: None,
            search: None,
            offset: out.len() as u32,
            limit: view::MAX_LIMIT,
        });
        let done = page.items.is_empty() || out.len() + page.items.len() >= page.matched as usize;
        out.extend(page.items);
        if done {
            return out;
        }
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let Report {
        audit,
        input,
        analysis,
        policy,
    } = runtime.block_on(args.target.report())?;
    // Exit code 1 when findings at or above `--fail-on` exist.
    let failing = args.fail_on.map(|s| (s, s.failing(&analysis)));
    let code = match failing {
        Some((_, n)) if n > 0 => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    };
    if args.format != Format::Text {
        let open = view::OpenAudit::from_parts(audit, input, analysis, policy);
        let findings = all_findings(&open);
        if args.format == Format::Jsonl {
            print_jsonl(&findings)?;
        } else {
            print_json(&view::output::ReportDocument {
                schema_version: view::output::SCHEMA_VERSION,
                overview: open.overview().clone(),
                issues: open.issues(),
                findings,
            })?;
        }
        return Ok(code);
    }
    print(&audit, &input, &analysis, args.top);
    // A list audit: what its inputs held, and the crawl budget an access log shows
    // spent on duplicates.
    if let Some(list) = crawl::stored_config(&audit)?.list {
        println!();
        print_list(&list);
        print_log_waste(&analysis, args.top);
        if let Some(explanation) = view::explain::of_audit(&audit, &input, &analysis)? {
            println!();
            super::explain::print(&explanation, args.top);
        }
    }
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
            println!("  {:<20} {:<16} {}", p.name, p.verdict.as_str(), p.evidence);
        }
    }
    if let Some((level, n)) = failing
        && n > 0
    {
        eprintln!(
            "dustpan: {n} findings at or above {} (--fail-on)",
            level.severities().last().map_or("error", |s| s.as_str())
        );
    }
    Ok(code)
}

/// How many issues "Fix these first" lists (as the desktop app's Overview does).
const FIX_FIRST: usize = 5;

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
    // The URL variants Dustpan made up to test the server's rules are no URLs of the
    // site: its own URLs and answers are counted apart.
    let made_up = input.made_up_urls();
    if !made_up.is_empty() {
        let own_ok = input
            .fetches
            .iter()
            .filter(|f| !made_up.contains(&f.url_id))
            .filter(|f| f.status.is_some_and(|s| (200..300).contains(&s)))
            .count();
        println!(
            "  the site's own: {} URLs ({own_ok} answered 2xx); {} URL variants Dustpan made up to test the server's rules (URL variants below)",
            input.urls.len() - made_up.len(),
            made_up.len()
        );
    }
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
    // Duplicates behind nofollow links: search engines may follow such links, and a
    // crawl that does not would not see them.
    match audit::export::reached_only_via_nofollow(input, analysis).len() {
        0 => {}
        1 => println!("  1 duplicate URL was reached only through nofollow links"),
        n => println!("  {n} duplicate URLs were reached only through nofollow links"),
    }

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
    // The desktop app's "Fix these first": the same ranking (view::issues).
    let first = view::issues::issues(analysis);
    if !first.is_empty() {
        println!("\nFix these first:");
        for (i, issue) in first.iter().take(FIX_FIRST).enumerate() {
            let urls = if issue.urls == 1 { "URL" } else { "URLs" };
            println!(
                "  {}. {:<24} {} ({} {urls})",
                i + 1,
                issue.code,
                issue.title,
                issue.urls
            );
        }
    }

    print_largest_clusters(analysis, top);
    print_first_findings(analysis, top);
    print_url_variants(analysis);
    print_duplicate_values(analysis, top);

    print_learned_rules(analysis);
}

/// The `top` largest clusters, each with up to eight members, why they joined and their
/// fix.
fn print_largest_clusters(analysis: &Analysis, top: usize) {
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
}

/// The first `top` findings, most severe first, with up to three fixes each.
fn print_first_findings(analysis: &Analysis, top: usize) {
    let mut findings: Vec<_> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| (f.severity, f.id.code()));
    println!("\nFirst findings by severity:");
    for f in findings.iter().take(top) {
        println!("  [{}] {}: {}", f.severity.as_str(), f.id.code(), f.summary);
        for fix in f.fixes.iter().take(3) {
            println!("      fix: {fix}");
        }
    }
}

/// The learned DUST rules with their evidence and validation.
fn print_learned_rules(analysis: &Analysis) {
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

/// Rejected lines shown per list input.
const SAMPLES_SHOWN: usize = 5;

/// Prints what a list audit's inputs held: lines read, URLs listed, lines that are not
/// URLs with the first few, and an access log's requests.
pub fn print_list(list: &crawl::ListMode) {
    println!(
        "List audit: {} URLs listed from {} input{}, {}",
        list.urls.len(),
        list.inputs.len(),
        if list.inputs.len() == 1 { "" } else { "s" },
        if list.follow {
            "crawling on from them (--follow)"
        } else {
            "audited with their redirect hops and canonical targets, links not followed"
        }
    );
    for input in &list.inputs {
        let format = match input.format.as_str() {
            "plain" => "a URL list",
            "sitemap" => "an XML sitemap",
            "sitemap_index" => "an XML sitemap index",
            "csv" => "a CSV file",
            "access_log" => "an access log",
            "search_console_table" => "a Search Console page-indexing export",
            "url_inspection" => "URL Inspection API results",
            other => other,
        };
        let gzip = if input.compressed { ", gzip" } else { "" };
        println!(
            "  {} ({format}{gzip}): {} lines read, {} URLs listed, {} lines not URLs",
            crate::terminal::safe(&input.name),
            input.lines,
            input.urls,
            input.rejected
        );
        if input.sitemaps > 0 {
            println!("      {} child sitemaps read by the crawl", input.sitemaps);
        }
        if input.repeated > 0 {
            println!("      {} lines repeat a URL listed before", input.repeated);
        }
        if input.over_limit > 0 {
            println!(
                "      {} lines name URLs past the limit (--max-urls): not audited",
                input.over_limit
            );
        }
        if input.format == "access_log" {
            println!(
                "      {} requests to the URLs audited ({} with a search-engine bot's user agent; {} others); {} lines skipped (not GET or HEAD, or another user agent)",
                input.requests,
                input.bot_requests,
                input.requests - input.bot_requests.min(input.requests),
                input.skipped
            );
        }
        for s in input.samples.iter().take(SAMPLES_SHOWN) {
            println!("      line {}: {}: {:?}", s.line, s.reason, s.text);
        }
        let more = input
            .rejected
            .saturating_sub(SAMPLES_SHOWN.min(input.samples.len()) as u64);
        if more > 0 {
            println!("      ... and {more} more lines not URLs");
        }
    }
    if let Some(check) = &list.bot_check {
        println!("  Bots verified by DNS: {check}");
    }
}

/// Prints the clusters ranked by the requests an access log shows to their
/// non-preferred URLs (nothing when the audit listed no access log): search-engine bots
/// whose address a DNS check verified first, then bots not verified; requests with a
/// bot's user agent from an address that failed the check count apart, as fake.
pub fn print_log_waste(analysis: &Analysis, top: usize) {
    if analysis.log_waste.is_empty() {
        return;
    }
    let mut total = audit::LogRequests::default();
    for w in &analysis.log_waste {
        total.verified_bots += w.duplicates.verified_bots;
        total.unverified_bots += w.duplicates.unverified_bots;
        total.fake_bots += w.duplicates.fake_bots;
        total.others += w.duplicates.others;
    }
    println!(
        "\nCrawl budget wasted on duplicates: {} verified and {} unverified search-engine bot requests, {} other requests and {} from fake bots to the non-preferred URLs of {} clusters (bots verified by reverse and forward DNS)",
        total.verified_bots,
        total.unverified_bots,
        total.others,
        total.fake_bots,
        analysis.log_waste.len()
    );
    println!("  verified bot  unverified bot   other    fake");
    for w in analysis.log_waste.iter().take(top) {
        let (d, p) = (&w.duplicates, &w.preferred);
        println!(
            "  {:>12}  {:>14}  {:>6}  {:>6}  to {} duplicate{} of {} (which got {} verified bot, {} unverified bot, {} other, {} fake)",
            d.verified_bots,
            d.unverified_bots,
            d.others,
            d.fake_bots,
            w.duplicates_requested,
            if w.duplicates_requested == 1 { "" } else { "s" },
            w.preferred_url,
            p.verified_bots,
            p.unverified_bots,
            p.others,
            p.fake_bots
        );
    }
}

/// Prints the titles, first headings and meta descriptions that different pages share
/// (each cluster once, through its preferred URL): the first `top` values, titles
/// first, then first headings, then descriptions, each most pages first, with up to
/// eight of its pages and their clusters.
pub fn print_duplicate_values(analysis: &Analysis, top: usize) {
    if analysis.duplicate_values.is_empty() {
        return;
    }
    // Titles first, then first headings, then descriptions; each most pages first.
    let values = &analysis.duplicate_values;
    println!(
        "\nShared titles, headings and descriptions ({} values shared by different pages; \
         duplicate_metadata.csv lists every page):",
        values.len()
    );
    for v in values.iter().take(top) {
        println!(
            "  {} \"{}\": {} pages",
            v.element.as_str(),
            v.value,
            v.pages.len()
        );
        for p in v.pages.iter().take(8) {
            let cluster = p.cluster.map_or_else(String::new, |c| {
                format!("  [cluster {c}, {} URLs]", p.cluster_urls)
            });
            let with = p.later_pages.len() + p.views.len() + p.alternates.len();
            let with = match with {
                0 => String::new(),
                1 => "  (+1 later page, view or language version)".to_owned(),
                n => format!("  (+{n} later pages, views or language versions)"),
            };
            println!("      {}{cluster}{with}", p.url);
        }
        if v.pages.len() > 8 {
            println!("      ... and {} more", v.pages.len() - 8);
        }
    }
}

/// Prints how the server answers URL variants no page links to, rule by rule (nothing
/// for an audit without probes), with the server rules of those to fix.
pub fn print_url_variants(analysis: &Analysis) {
    use audit::ProbeVerdict;
    if analysis.url_variants.is_empty() {
        return;
    }
    println!(
        "\nURL variants (requested after the crawl for a sample of pages; no page links them):"
    );
    println!(
        "  {:<15} {:>7}  {:<19} example",
        "rule", "samples", "verdict"
    );
    for r in &analysis.url_variants {
        let example = r
            .example()
            .map_or_else(String::new, |p| format!("{} answers {}", p.url, p.answer));
        println!(
            "  {:<15} {:>7}  {:<19} {example}",
            r.rule.as_str(),
            r.samples(),
            r.verdict_word()
        );
        let counts: Vec<String> = ProbeVerdict::ALL
            .iter()
            .filter(|&&v| r.count(v) > 0)
            .map(|&v| format!("{} {v}", r.count(v)))
            .collect();
        if counts.len() > 1 {
            println!("  {:<15} {:>7}  ({})", "", "", counts.join(", "));
        }
        if r.count(ProbeVerdict::Duplicate) + r.count(ProbeVerdict::RedirectTemporary) > 0 {
            for (server, rule) in [
                ("nginx", &r.nginx),
                ("Apache VirtualHost", &r.apache),
                ("Apache .htaccess", &r.htaccess),
            ] {
                println!("      {server}:");
                for line in rule.lines() {
                    println!("        {line}");
                }
            }
        }
    }
}
