//! `dustpan learn`: DUST rules learned from URL lists and server logs, each checked by
//! fetching a few sample pairs.

use super::db::DbArgs;
use super::output::{Format, print_json, print_jsonl};
use anyhow::{Context, Result};
use canon::{Policy, Preset};
use crawl::SampleFetch;
use rules::learn::{Learned, Options};
use rules::{DustRule, LearnedRules, RuleStatus};
use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use store::AuditId;
use view::learn::Note;

/// Learn DUST rules (URL patterns that lead to the same page) from URL lists or server
/// logs, without crawling the site: substitutions in paths and queries, parameters that
/// do not change the page, host aliases. Each candidate is checked by fetching a few
/// sample pairs (same scope, robots.txt and limits as `audit`) and kept when every
/// sample shows the same page.
///
/// Inputs are read as `audit --list` reads them: plain URL lists, XML sitemaps, CSV files
/// with a URL column (Screaming Frog's `Address`) and access logs (common or combined
/// format, with --site).
#[derive(clap::Args)]
pub struct Args {
    /// URL lists, sitemaps, CSV files or access logs (`-`: standard input).
    #[arg(required_unless_present = "audit", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Learn from the URLs audit ID recorded (in --db) too. Its configuration gives the
    /// scope, robots.txt, --resolve and certificates of the sample requests, and the
    /// pages it fetched are compared from its store instead of being fetched again.
    #[arg(long, value_name = "ID")]
    audit: Option<i64>,
    #[command(flatten)]
    db: DbArgs,
    /// The site's scheme and host, for inputs that hold paths (access logs).
    #[arg(long, value_name = "URL")]
    site: Option<String>,
    /// Keep only access log requests whose user agent matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    log_agent: Option<String>,
    /// Do not fetch: print the candidates as the list shows them. Unchecked, --group
    /// uses the rules whose rewrites the list holds at least half the time: expect some
    /// wrong groups.
    #[arg(long)]
    no_fetch: bool,
    /// Most requests made to check one rule [default: 6: three pairs of new URLs].
    #[arg(long, value_name = "N", default_value_t = 6)]
    samples: u32,
    /// Fewest URL pairs that must show a rule before it is a candidate.
    #[arg(long, value_name = "N", default_value_t = 3)]
    min_support: u32,
    /// Print the list's equivalence groups under the confirmed rules and the policy, in
    /// the format of `normalize --group`: `COUNT<TAB>CANONICAL`, then one `<TAB>URL` line
    /// per member, largest first (the rules go to standard error).
    #[arg(long)]
    group: bool,
    /// With --group, also print groups of a single URL.
    #[arg(long, requires = "group")]
    all: bool,
    /// Write the confirmed rules (and the rejected ones, marked) to FILE, for
    /// `dustpan audit --rules FILE`.
    #[arg(long, value_name = "FILE")]
    save_rules: Option<PathBuf>,
    /// Normalization preset the rules build on: rfc3986, seo (the default) or aggressive;
    /// with --audit and no preset, the policy that audit was started with.
    #[arg(long, value_name = "PRESET")]
    preset: Option<String>,
    /// Most distinct URLs read from each input.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    max_urls: usize,
    /// Send requests for HOST to ADDRESS, as curl's --resolve: `host:port:address`.
    #[arg(long = "resolve", value_name = "HOST:PORT:ADDR")]
    resolves: Vec<String>,
    /// Let the sample requests reach listed hosts at non-public addresses (loopback,
    /// private, link-local, cloud metadata): without it only --site's host and hosts
    /// given with --resolve may be there, as in `audit --list`.
    #[arg(long)]
    allow_internal: bool,
    /// Trust this PEM certificate authority too (repeatable).
    #[arg(long = "ca-cert", value_name = "FILE")]
    ca_certs: Vec<PathBuf>,
    /// The User-Agent header (its first token is matched against robots.txt).
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Ignore robots.txt.
    #[arg(long)]
    no_robots: bool,
    /// Give up on a request after this many seconds [default: 60].
    #[arg(long, value_name = "SECS")]
    timeout: Option<u64>,
    /// text, json (counts, every candidate with its check, the groups' counts) or jsonl
    /// (one candidate a line); see docs/json.md.
    #[arg(long, value_enum, default_value_t, conflicts_with = "group")]
    format: Format,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let started = Instant::now();
    let site = args
        .site
        .as_deref()
        .map(|s| url::Url::parse(s).with_context(|| format!("--site {s:?} is not a URL")))
        .transpose()?;
    let options = urllist::Options {
        max_urls: args.max_urls,
        site,
        agent: args.log_agent.clone(),
        ..urllist::Options::default()
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let mut urls: Vec<String> = Vec::new();
    let (mut lines, mut rejected) = (0u64, 0u64);
    let from_audit = match args.audit {
        Some(id) => Some(runtime.block_on(read_audit(&args.db, AuditId(id)))?),
        None => None,
    };
    // The rules build on --preset, else on the policy audit ID was started with, else on
    // the default preset.
    let named = match (&args.preset, &from_audit) {
        (Some(p), _) => crawl::AuditPolicy::preset(p.parse::<Preset>()?),
        (None, Some(a)) => a.config.policy.clone(),
        (None, None) => crawl::AuditPolicy::default(),
    };
    let policy: Policy = named.policy.clone();
    if let Some(a) = &from_audit {
        lines += a.urls.len() as u64;
        urls.extend(a.urls.iter().cloned());
    }
    let (listed, listed_lines, not_urls) = read_files(&args.files, &options)?;
    urls.extend(listed);
    lines += listed_lines;
    rejected += not_urls;
    let opts = Options {
        policy: policy.clone(),
        min_support: args.min_support.max(1),
        max_candidates: view::learn::MAX_CANDIDATES,
        ..Options::default()
    };
    let mut learned = rules::learn::learn(urls, &opts);
    let learn_time = started.elapsed();
    let mut fetches = 0usize;
    let mut reused = 0usize;
    let mut notes: Vec<Note> = Vec::new();
    if !args.no_fetch && !learned.candidates.is_empty() {
        let config = view::learn::sample_config(
            &args.sample_options()?,
            &learned,
            args.site.as_deref(),
            from_audit.as_ref(),
        )?;
        let mut cache: HashMap<String, SampleFetch> = from_audit
            .map(|a| a.fetched.into_iter().map(|f| (f.url.clone(), f)).collect())
            .unwrap_or_default();
        let validated = runtime.block_on(view::learn::validate(
            &config,
            &mut learned,
            args.samples,
            &mut cache,
            &policy,
        ))?;
        (fetches, reused, notes) = (validated.requests, validated.reused, validated.notes);
    }
    if args.format != Format::Text {
        let used = view::learn::grouping_rules(&learned, !args.no_fetch);
        let groups = rules::learn::group(&learned, &used);
        let rules = learned_rules(&learned, &notes);
        if args.format == Format::Jsonl {
            print_jsonl(&rules)?;
        } else {
            print_json(&view::output::LearnDocument {
                schema_version: view::output::SCHEMA_VERSION,
                urls: learned.urls.len() as u64,
                lines,
                rejected,
                requests: fetches as u64,
                policy: named.name.clone(),
                rules,
                groups: groups.len() as u64,
                grouped: groups.iter().map(|g| g.members.len() as u64 - 1).sum(),
            })?;
        }
        if let Some(path) = &args.save_rules {
            save_rules(path, &learned, policy, &mut io::stderr().lock())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut err = io::stderr().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let table: &mut dyn Write = if args.group { &mut err } else { &mut out };
    writeln!(
        table,
        "Read {} URLs from {} ({} lines, {} not URLs); {} candidate rules learned in {:.1} s{}.",
        learned.urls.len(),
        match args.files.len() + usize::from(args.audit.is_some()) {
            1 => "1 input".to_owned(),
            n => format!("{n} inputs"),
        },
        lines,
        rejected,
        learned.candidates.len(),
        learn_time.as_secs_f64(),
        if args.no_fetch {
            "; nothing fetched (--no-fetch)".to_owned()
        } else {
            format!(
                ", checked with {fetches} requests (at most {} per rule){}",
                args.samples,
                match (args.audit, reused) {
                    (Some(id), n) => format!(" and {n} pages audit {id} fetched"),
                    (None, _) => String::new(),
                }
            )
        }
    )?;
    print_rules(table, &learned, &notes)?;
    let used = view::learn::grouping_rules(&learned, !args.no_fetch);
    let groups = rules::learn::group(&learned, &used);
    let grouped: usize = groups.iter().map(|g| g.members.len() - 1).sum();
    writeln!(
        table,
        "Under {} and the {} preset: {} URLs in {} groups ({} URLs grouped with another).",
        match used.len() {
            1 => "1 rule".to_owned(),
            n => format!("{n} rules"),
        },
        crate::terminal::safe(&named.name),
        learned.keys.iter().flatten().count(),
        groups.len(),
        grouped
    )?;
    if args.group {
        for g in groups.iter().filter(|g| args.all || g.members.len() > 1) {
            writeln!(out, "{}\t{}", g.members.len(), g.canonical)?;
            for &m in &g.members {
                writeln!(out, "\t{}", learned.urls[m as usize])?;
            }
        }
    }
    out.flush()?;
    if let Some(path) = &args.save_rules {
        save_rules(path, &learned, policy, &mut err)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads the URLs of `files` (`-`: standard input), printing each input's lines that are
/// not URLs; answers the URLs, the lines read and how many were not URLs.
fn read_files(files: &[PathBuf], options: &urllist::Options) -> Result<(Vec<String>, u64, u64)> {
    let mut urls: Vec<String> = Vec::new();
    let (mut lines, mut rejected) = (0u64, 0u64);
    for path in files {
        let list = if path.as_os_str() == "-" {
            urllist::read(io::stdin().lock(), options)
        } else {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            urllist::read(file, options)
        }
        .with_context(|| format!("cannot read {}", path.display()))?;
        lines += list.lines;
        rejected += list.rejected;
        for r in &list.samples {
            eprintln!(
                "{}:{}: not a URL ({}): {}",
                crate::terminal::safe(&path.display().to_string()),
                r.line,
                crate::terminal::safe(&r.reason),
                crate::terminal::safe(&r.text)
            );
        }
        urls.extend(list.urls.into_iter().map(|u| u.url));
    }
    Ok((urls, lines, rejected))
}

/// Writes the decided rules (confirmed first, rejected ones marked) to `path`, for
/// `dustpan audit --rules`, and says so on `err`.
fn save_rules(
    path: &std::path::Path,
    learned: &Learned,
    policy: Policy,
    err: &mut dyn Write,
) -> Result<()> {
    let mut rules: Vec<DustRule> = learned
        .candidates
        .iter()
        .map(|c| c.rule.clone())
        .filter(|r| r.status != RuleStatus::NeedsValidation)
        .collect();
    rules.sort_by_key(|r| r.status);
    let confirmed = rules
        .iter()
        .filter(|r| r.status == RuleStatus::Confirmed)
        .count();
    let file = LearnedRules { policy, rules };
    let json = serde_json::to_string_pretty(&file).context("cannot serialize the rules")?;
    std::fs::write(path, json + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(
        err,
        "Rules written to {} ({confirmed} confirmed); crawl with: dustpan audit URL --rules {}",
        path.display(),
        path.display()
    )?;
    Ok(())
}

/// Reads what learning from audit `id` of the database needs.
async fn read_audit(db: &DbArgs, id: AuditId) -> Result<view::learn::FromAudit> {
    let store = db.open().await?;
    let read = view::learn::read_audit(&store, id).await;
    store.close().await;
    Ok(read?)
}

impl Args {
    /// The options the sample requests obey, for the one crawl configuration builder.
    fn sample_options(&self) -> Result<view::options::CrawlOptions> {
        let mut ca_pems = Vec::new();
        for path in &self.ca_certs {
            let pem = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read CA certificate {}", path.display()))?;
            ca_pems.push(pem);
        }
        Ok(view::options::CrawlOptions {
            resolve: self.resolves.clone(),
            allow_internal: self.allow_internal,
            ca_pems,
            user_agent: self.user_agent.clone(),
            obey_robots: self.no_robots.then_some(false),
            timeout_secs: self.timeout,
            ..view::options::CrawlOptions::default()
        })
    }
}

/// The candidates as `--format json` gives them: what the table prints, row by row.
fn learned_rules(learned: &Learned, notes: &[Note]) -> Vec<view::output::LearnedRule> {
    learned
        .candidates
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let r = &c.rule;
            let note = notes.get(k);
            let checked = r
                .validation
                .as_ref()
                .filter(|v| v.tested > 0 || note.is_some_and(|n| !n.explained));
            let explained =
                note.is_some_and(|n| n.explained) && r.status == RuleStatus::NeedsValidation;
            view::output::LearnedRule {
                id: r.id.clone(),
                status: if explained {
                    "explained"
                } else {
                    r.status.as_str()
                }
                .to_owned(),
                support: r.support,
                precision: r.precision,
                tested: checked.map(|v| v.tested),
                false_positive_rate: checked.map(|v| v.false_positive_rate),
                example: c.pairs.first().map(|&(a, b)| {
                    [
                        learned.urls[a as usize].clone(),
                        learned.urls[b as usize].clone(),
                    ]
                }),
            }
        })
        .collect()
}

fn print_rules(out: &mut dyn Write, learned: &Learned, notes: &[Note]) -> io::Result<()> {
    if learned.candidates.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n  {:<16} {:>8} {:>10} {:>7} {:>10}  rule",
        "status", "support", "list prec.", "tested", "false pos."
    )?;
    let blank = format!("  {:<16} {:>8} {:>10} {:>7} {:>10}   ", "", "", "", "", "");
    for (k, c) in learned.candidates.iter().enumerate() {
        let r = &c.rule;
        let note = notes.get(k);
        let (tested, fp) = r
            .validation
            .as_ref()
            .filter(|v| v.tested > 0 || note.is_some_and(|n| !n.explained))
            .map_or((String::new(), String::new()), |v| {
                (
                    v.tested.to_string(),
                    format!("{:.0}%", 100.0 * v.false_positive_rate),
                )
            });
        let explained =
            note.is_some_and(|n| n.explained) && r.status == RuleStatus::NeedsValidation;
        writeln!(
            out,
            "  {:<16} {:>8} {:>10.2} {:>7} {:>10}  {}",
            if explained {
                "explained"
            } else {
                r.status.as_str()
            },
            r.support,
            r.precision,
            tested,
            fp,
            r.id
        )?;
        if let Some(&(a, b)) = c.pairs.first() {
            writeln!(
                out,
                "{blank} e.g. {} ~ {}",
                crate::terminal::safe(&learned.urls[a as usize]),
                crate::terminal::safe(&learned.urls[b as usize])
            )?;
        }
        if let Some((a, b, pair)) = note.and_then(|n| n.miss.as_ref()) {
            writeln!(
                out,
                "{blank} {}: {} ~ {}",
                pair.describe(),
                crate::terminal::safe(a),
                crate::terminal::safe(b)
            )?;
        }
    }
    if notes.iter().any(|n| n.explained) {
        writeln!(
            out,
            "\n  explained: the confirmed rules join every pair of the candidate already (a composition of them); not tested."
        )?;
    }
    writeln!(out)
}
