//! `dustpan explain`: Google Search Console's verdicts on a list audit's URLs explained
//! (each URL's cluster, signal table, Google's and the user's canonicals, the signal
//! that contradicts the user's choice with its fix, and the predicted canonical's
//! agreement with the inspected ones).

use super::output::{Format, print_json, print_jsonl};
use super::report::Target;
use crate::terminal::safe;
use anyhow::{Context, Result};
use std::process::ExitCode;
use view::explain::{Explained, Explanation, UrlSignals};

/// Explain Search Console's verdicts on the URLs of a list audit made from Search
/// Console inputs (page-indexing exports, URL Inspection results: `dustpan audit --list`):
/// each URL's cluster, its signals (redirects, canonicals served and rendered,
/// internal links, sitemaps, hreflang, HTTPS), Google's canonical and the page's own,
/// the signal that contradicts the page's choice with the fix, and how often the
/// predicted canonical is the one Google chose.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// text, json (the whole explanation) or jsonl (one URL a line).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(args.target.report())?;
    let Some(explanation) =
        view::explain::of_audit(&report.audit, &report.input, &report.analysis)?
    else {
        anyhow::bail!(
            "audit {} was not made from Search Console inputs: run `dustpan audit --list` on a page-indexing export (Table.csv, named by its reason) or URL Inspection results (JSON)",
            report.audit.id.0
        );
    };
    match args.format {
        Format::Json => print_json(&explanation)?,
        Format::Jsonl => print_jsonl(&explanation.urls)?,
        Format::Text => print(&explanation, usize::MAX),
    }
    Ok(ExitCode::SUCCESS)
}

/// The agreement line: how often the predicted canonical is Google's.
fn agreement(e: &Explanation) -> String {
    match e.agreement() {
        Some(rate) => format!(
            "predicted canonical = Google's canonical for {} of {} inspected URLs ({:.0}%)",
            e.agreed,
            e.compared,
            rate * 100.0
        ),
        None => "no URL inspection gave a Google canonical to compare with".to_owned(),
    }
}

/// Prints the explanation, the first `top` URLs in full.
pub fn print(e: &Explanation, top: usize) {
    println!(
        "Search Console verdicts explained: {} URLs; {}",
        e.urls.len(),
        agreement(e)
    );
    for x in e.urls.iter().take(top) {
        print_one(x);
    }
    if e.urls.len() > top {
        println!(
            "  ... and {} more URLs (dustpan explain prints every one)",
            e.urls.len() - top
        );
    }
}

fn print_one(x: &Explained) {
    println!();
    println!("  {}", safe(&x.url));
    let facts = &x.search_console;
    for r in &facts.reasons {
        println!("    Search Console   {}", safe(r));
    }
    if let Some(state) = &facts.coverage_state {
        println!(
            "    Inspection       {} ({})",
            safe(state),
            safe(facts.verdict.as_deref().unwrap_or("no verdict"))
        );
    }
    let or_none = |u: &Option<String>| u.as_deref().map_or("none".into(), |u| safe(u).into_owned());
    println!(
        "    Cluster          {}",
        x.cluster.map_or("none".into(), |c| format!("#{c}"))
    );
    println!("    Your canonical   {}", or_none(&x.user_canonical));
    println!("    Google's         {}", or_none(&x.google_canonical));
    println!(
        "    Predicted        {}{}",
        safe(&x.predicted),
        match x.agrees {
            Some(true) => " (agrees with Google)",
            Some(false) => " (Google chose otherwise)",
            None => "",
        }
    );
    match &x.contradiction {
        Some(c) => {
            println!(
                "    Contradicts      {}: {}",
                c.kind.as_str(),
                safe(&c.detail)
            );
            println!("    Fix              {}", safe(&c.fix));
        }
        None => println!("    Contradicts      nothing: Google follows the page's choice"),
    }
    println!("    Signals");
    for s in &x.signals {
        print_signals(s);
    }
}

fn print_signals(s: &UrlSignals) {
    let target = match (&s.redirects_to, &s.canonical, &s.rendered_canonical) {
        (Some(to), _, _) => format!("-> {}", safe(to)),
        (None, Some(c), Some(r)) if c != r => {
            format!("canonical {} (rendered {})", safe(c), safe(r))
        }
        (None, Some(c), _) => format!("canonical {}", safe(c)),
        (None, None, Some(r)) => format!("canonical (rendered) {}", safe(r)),
        (None, None, None) => "no canonical".into(),
    };
    println!(
        "      {}: {}, {target}; redirected to by {}, canonical of {}, {} internal links in, {} sitemaps, {} hreflang, {}{}",
        safe(&s.url),
        s.status.map_or("not fetched".into(), |c| c.to_string()),
        s.redirects_in,
        s.canonicals_in,
        s.links_in,
        s.sitemaps,
        s.hreflang_in,
        if s.https { "https" } else { "http" },
        if s.noindex { ", noindex" } else { "" }
    );
}
