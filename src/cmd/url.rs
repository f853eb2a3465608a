//! `dustpan url`: one URL of an audit in full, as the app's detail pane shows it.

use super::db::DbArgs;
use super::output::{Format, print_json};
use super::report::Target;
use crate::terminal::safe;
use anyhow::{Context, Result, bail};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use view::output::{SCHEMA_VERSION, UrlDocument};
use view::{LinkDirection, LinkPage, LinkView, OpenAudit, UrlDetail};

/// Show one URL of an audit: its Pages row, response headers, canonicals and robots
/// directives from every source, inlinks and outlinks with anchor text and position, redirect hops,
/// cluster, the findings naming it and the sitemaps listing it.
#[derive(clap::Args)]
pub struct Args {
    /// The audit id (see `dustpan audits`).
    audit: i64,
    /// The URL, as found or in its rfc3986 form.
    url: String,
    /// The first inlink and outlink to print (0 is the first).
    #[arg(long, default_value_t = 0)]
    offset: u32,
    /// How many inlinks and outlinks to print (at most 5,000 a page; page on with
    /// --offset, or write them all with --inlinks-csv / --outlinks-csv).
    #[arg(long, default_value_t = 20)]
    limit: u32,
    /// Write every inlink of the URL to this CSV file.
    #[arg(long, value_name = "FILE")]
    inlinks_csv: Option<PathBuf>,
    /// Write every outlink of the URL to this CSV file.
    #[arg(long, value_name = "FILE")]
    outlinks_csv: Option<PathBuf>,
    /// text, or json (one document: the detail and the page of links asked for; see
    /// docs/json.md).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    #[command(flatten)]
    db: DbArgs,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.format == Format::Jsonl {
        bail!("dustpan url prints text or one JSON document: use --format json");
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let target = Target {
        audit: Some(args.audit),
        preset: None,
        policy: None,
        db: args.db.clone(),
    };
    let report = runtime.block_on(target.report())?;
    let open = OpenAudit::from_parts(report.audit, report.input, report.analysis, report.policy);
    let mut detail = open.url_detail(&args.url)?;
    let store = runtime.block_on(args.db.open())?;
    runtime.block_on(open.add_headers(&store, &args.url, &mut detail))?;
    let page = |d| open.url_links(&args.url, d, args.offset, args.limit);
    let (inlinks, outlinks) = (
        page(LinkDirection::Inlinks)?,
        page(LinkDirection::Outlinks)?,
    );
    for (path, direction) in [
        (&args.inlinks_csv, LinkDirection::Inlinks),
        (&args.outlinks_csv, LinkDirection::Outlinks),
    ] {
        if let Some(path) = path {
            let rows = open.export_url_links(&args.url, direction, path)?;
            eprintln!(
                "{rows} {} written to {}",
                direction.as_str(),
                path.display()
            );
        }
    }
    if args.format == Format::Json {
        detail.inlinks.clear();
        detail.outlinks.clear();
        print_json(&UrlDocument {
            schema_version: SCHEMA_VERSION,
            audit_id: args.audit,
            detail,
            inlinks,
            outlinks,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = BufWriter::new(io::stdout().lock());
    match print_text(&mut out, &detail, &inlinks, &outlinks).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write output")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The detail as text, every crawled string made safe for the terminal.
fn print_text(
    out: &mut impl Write,
    d: &UrlDetail,
    inlinks: &LinkPage,
    outlinks: &LinkPage,
) -> io::Result<()> {
    writeln!(out, "{}", safe(&d.url))?;
    for f in d
        .fields
        .iter()
        .filter(|f| f.key != "address" && !f.value.is_empty())
    {
        writeln!(out, "  {}: {}", safe(&f.label), safe(&f.value))?;
    }
    headers(out, d)?;
    writeln!(out, "\nCanonical declarations")?;
    if d.canonicals.is_empty() {
        writeln!(out, "  none")?;
    }
    for c in &d.canonicals {
        let target = match &c.target {
            Some(t) if *t != c.href => format!(" -> {}", safe(t)),
            Some(_) => String::new(),
            None => " (does not resolve)".to_owned(),
        };
        let place = if c.in_head { "" } else { " (outside <head>)" };
        writeln!(out, "  {}{place}: {}{target}", c.source, safe(&c.href))?;
    }
    writeln!(out, "\nRobots directives")?;
    if d.robots.is_empty() {
        writeln!(out, "  none")?;
    }
    for r in &d.robots {
        writeln!(out, "  {}", safe(r))?;
    }
    links(out, "Inlinks (from)", inlinks)?;
    links(out, "Outlinks (to)", outlinks)?;
    writeln!(out, "\nRedirect hops")?;
    if d.hops.is_empty() {
        writeln!(out, "  it does not redirect")?;
    }
    for h in &d.hops {
        let how = if h.kind == "HTTP" {
            h.status.to_string()
        } else {
            h.kind.clone()
        };
        let to = h.to.as_deref().map_or("(does not resolve)".into(), safe);
        writeln!(out, "  {} -> {how} -> {to}", safe(&h.from))?;
    }
    writeln!(out, "\nCluster")?;
    match &d.cluster {
        None => writeln!(out, "  not in a cluster")?,
        Some(c) => {
            writeln!(
                out,
                "  cluster {} ({}, {} members), preferred URL {}; this URL is {}",
                c.cluster_id,
                c.cause.label(),
                c.size,
                safe(&c.preferred_url),
                c.member.role.label()
            )?;
            for e in &c.member.evidence {
                writeln!(out, "    {}", safe(e))?;
            }
            if let Some(fix) = &c.member.fix {
                writeln!(out, "  fix: {}", safe(fix))?;
            }
        }
    }
    writeln!(out, "\nFindings naming it ({})", d.findings.len())?;
    for f in &d.findings {
        writeln!(
            out,
            "  [{}] {} {}",
            f.severity.as_str(),
            f.id,
            safe(&f.summary)
        )?;
    }
    writeln!(out, "\nSitemaps listing it ({})", d.sitemaps.len())?;
    for s in &d.sitemaps {
        let status = s.status.map(|s| format!(" ({s})")).unwrap_or_default();
        writeln!(out, "  {}{status}", safe(&s.sitemap))?;
    }
    Ok(())
}

/// The response headers, every value made safe for the terminal.
fn headers(out: &mut impl Write, d: &UrlDetail) -> io::Result<()> {
    writeln!(out, "\nResponse headers")?;
    if !d.headers_stored {
        writeln!(
            out,
            "  none stored (not fetched, or fetched by a version that did not store them)"
        )?;
    }
    for h in &d.headers {
        writeln!(out, "  {}: {}", safe(&h.name), safe(&h.value))?;
    }
    if d.headers_omitted > 0 {
        writeln!(
            out,
            "  … {} more not stored (at most {} headers and {} KiB are kept a response)",
            d.headers_omitted,
            store::MAX_HEADERS,
            store::MAX_HEADERS_BYTES / 1024
        )?;
    }
    Ok(())
}

/// One page of links, with where it sits among all of them.
fn links(out: &mut impl Write, title: &str, page: &LinkPage) -> io::Result<()> {
    writeln!(out, "\n{title}: {} in all", page.total)?;
    if page.links.is_empty() {
        if page.total > 0 {
            writeln!(out, "  none from {} on", page.offset + 1)?;
        }
        return Ok(());
    }
    let first = page.offset + 1;
    let last = page.offset + page.links.len() as u32;
    if first > 1 || last < page.total {
        writeln!(
            out,
            "  {first} to {last} of {} (--offset and --limit page on)",
            page.total
        )?;
    }
    for l in &page.links {
        writeln!(out, "  {}", link_line(l))?;
    }
    Ok(())
}

/// `URL  "anchor"  position  kind  follow  status`.
fn link_line(l: &LinkView) -> String {
    let mut line = safe(&l.url).into_owned();
    if let Some(a) = &l.anchor {
        line.push_str(&format!("  \"{}\"", safe(a)));
    }
    if let Some(r) = &l.region {
        line.push_str(&format!("  {}", safe(r)));
    }
    line.push_str(&format!(
        "  {}  {}",
        l.kind,
        if l.nofollow { "nofollow" } else { "follow" }
    ));
    if let Some(s) = l.status {
        line.push_str(&format!("  {s}"));
    }
    line
}
