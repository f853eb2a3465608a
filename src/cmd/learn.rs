//! `dustpan learn`: DUST rules learned from URL lists and server logs, each checked by
//! fetching a few sample pairs.

use super::db::DbArgs;
use anyhow::{Context, Result};
use canon::{Policy, Preset};
use crawl::{CrawlConfig, SampleFetch};
use rules::learn::{Candidate, Learned, Options};
use rules::{DustRule, LearnedRules, RuleStatus, ValidationReport};
use std::collections::{HashMap, HashSet};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use store::AuditId;

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
    /// Most requests made to check one rule [default: 5].
    #[arg(long, value_name = "N", default_value_t = 5)]
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
    /// Normalization preset the rules build on: rfc3986, seo or aggressive.
    #[arg(long, value_name = "PRESET", default_value = "seo")]
    preset: String,
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
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<ExitCode> {
    let started = Instant::now();
    let policy: Policy = args.preset.parse::<Preset>()?.policy();
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
    if let Some(a) = &from_audit {
        lines += a.urls.len() as u64;
        urls.extend(a.urls.iter().cloned());
    }
    for path in &args.files {
        let list = if path.as_os_str() == "-" {
            urllist::read(io::stdin().lock(), &options)
        } else {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            urllist::read(file, &options)
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
    let opts = Options {
        policy: policy.clone(),
        min_support: args.min_support.max(1),
        ..Options::default()
    };
    let mut learned = rules::learn::learn(urls, &opts);
    let learn_time = started.elapsed();
    let mut fetches = 0usize;
    let mut reused = 0usize;
    if !args.no_fetch && !learned.candidates.is_empty() {
        let config = crawl_config(&args, &learned, from_audit.as_ref())?;
        let mut cache: HashMap<String, SampleFetch> = from_audit
            .map(|a| a.fetched.into_iter().map(|f| (f.url.clone(), f)).collect())
            .unwrap_or_default();
        (fetches, reused) = runtime.block_on(validate(
            &config,
            &mut learned,
            args.samples,
            &mut cache,
            &policy,
        ))?;
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
    print_rules(table, &learned)?;
    // Unchecked, only the rules whose rewrites the list itself shows (a parameter whose
    // values merely vary, such as an id, could be an identifier).
    let used: Vec<&DustRule> = learned
        .candidates
        .iter()
        .map(|c| &c.rule)
        .filter(|r| {
            r.status == RuleStatus::Confirmed || (args.no_fetch && r.precision >= LIST_PRECISION)
        })
        .collect();
    let groups = rules::learn::group(&learned, &used);
    let grouped: usize = groups.iter().map(|g| g.members.len() - 1).sum();
    writeln!(
        table,
        "Under {} and the {} preset: {} URLs in {} groups ({} URLs grouped with another).",
        match used.len() {
            1 => "1 rule".to_owned(),
            n => format!("{n} rules"),
        },
        args.preset,
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
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--audit` reads: its configuration, its URLs and the answers it stored.
struct FromAudit {
    config: CrawlConfig,
    urls: Vec<String>,
    fetched: Vec<store::FetchFingerprint>,
}

async fn read_audit(db: &DbArgs, id: AuditId) -> Result<FromAudit> {
    let store = db.open().await?;
    let row = store.audit(id).await?;
    let config = crawl::stored_config(&row)?;
    let urls = store.urls(id).await?.into_iter().map(|u| u.url).collect();
    let fetched = store.fetch_fingerprints(id).await?;
    store.close().await;
    Ok(FromAudit {
        config,
        urls,
        fetched,
    })
}

/// The crawl settings the sample requests obey: the list's origins are the scope, with
/// the audit's own settings (`--audit`) or the defaults beneath the options given.
fn crawl_config(args: &Args, learned: &Learned, audit: Option<&FromAudit>) -> Result<CrawlConfig> {
    let mut config = match audit {
        Some(a) => a.config.clone().for_new_audit(),
        None => CrawlConfig::default(),
    };
    config.resolve.extend(args.resolves.iter().cloned());
    config.allow_internal |= args.allow_internal;
    // An audit's scope stays its own: the URLs it recorded out of scope are not asked.
    // Without one, the list's origins are the scope and their addresses are checked as
    // a list audit's are (a list is data: only --site's origin and hosts given with
    // --resolve may be at a non-public address).
    if audit.is_none() {
        let mut origins: Vec<crawl::ListedUrl> = Vec::new();
        for u in learned.urls.iter().take(100_000) {
            if let Ok(url) = url::Url::parse(u) {
                let origin = url.origin().ascii_serialization() + "/";
                if !origins.iter().any(|o| o.url == origin) {
                    origins.push(crawl::ListedUrl {
                        url: origin,
                        ..crawl::ListedUrl::default()
                    });
                    if origins.len() >= 50 {
                        break;
                    }
                }
            }
        }
        let site = args
            .site
            .as_deref()
            .and_then(|s| url::Url::parse(s).ok())
            .map(|s| s.origin().ascii_serialization() + "/");
        config.sitemaps.clear();
        config.set_list(crawl::ListMode {
            urls: origins,
            site,
            ..crawl::ListMode::default()
        });
    }
    for path in &args.ca_certs {
        let pem = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read CA certificate {}", path.display()))?;
        config.extra_root_certs_pem.push(pem);
    }
    if let Some(ua) = &args.user_agent {
        config.user_agent = ua.clone();
    }
    if args.no_robots {
        config.obey_robots = false;
    }
    if let Some(secs) = args.timeout {
        config.total_timeout_ms = secs.saturating_mul(1000);
    }
    config.validate()?;
    Ok(config)
}

/// With --no-fetch, the least share of a rule's rewrites the list must hold for the
/// rule to group URLs.
const LIST_PRECISION: f64 = 0.5;

/// Fetches sample pairs of each candidate, in rounds (one pair per candidate per round,
/// the round's requests at once), until a pair shows two pages or the rule's request
/// budget is spent. A rule is confirmed when at least two pairs were compared and each
/// showed one page, and rejected when one did not. Answers already in `cache` (an
/// audit's stored pages) are compared without a request and cost nothing. Returns the
/// number of requests made and of stored answers used.
async fn validate(
    config: &CrawlConfig,
    learned: &mut Learned,
    budget: u32,
    cache: &mut HashMap<String, SampleFetch>,
    policy: &Policy,
) -> Result<(usize, usize)> {
    let stored: HashSet<String> = cache.keys().cloned().collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut state: Vec<(usize, u32, u32, u32)> = vec![(0, 0, 0, 0); learned.candidates.len()];
    // Each candidate's pairs of URLs to compare: a URL and the rewrite the list lacks
    // first, when there is one, then the list's pairs.
    let plans: Vec<Vec<(String, String)>> = learned
        .candidates
        .iter()
        .map(|cand| {
            let url = |i: u32| learned.urls[i as usize].clone();
            cand.rewrite_probes
                .iter()
                .map(|(a, rewritten)| (url(*a), rewritten.clone()))
                .chain(cand.pairs.iter().map(|&(a, b)| (url(a), url(b))))
                .collect()
        })
        .collect();
    let mut made = 0;
    for _round in 0..8 {
        let mut wanted: Vec<String> = Vec::new();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        for (c, plan) in plans.iter().enumerate() {
            let (next, spent, tested, agreed) = state[c];
            // A miss decides; otherwise the pairs are tested while the budget lasts
            // (pairs from contexts not tested yet come first).
            if tested > agreed {
                continue;
            }
            let Some((a, b)) = plan.get(next) else {
                continue;
            };
            let need: Vec<&String> = [a, b]
                .into_iter()
                .filter(|u| !cache.contains_key(*u) && !wanted.contains(u))
                .collect();
            if spent + need.len() as u32 > budget {
                continue;
            }
            state[c].1 += need.len() as u32;
            wanted.extend(need.into_iter().cloned());
            picks.push((c, next));
        }
        if picks.is_empty() {
            break;
        }
        if !wanted.is_empty() {
            let fetched = crawl::fetch_urls(config, &wanted).await?;
            // Refused before any request (out of scope, robots.txt, ...): not a request.
            made += fetched
                .iter()
                .filter(|f| {
                    f.status.is_some()
                        || !matches!(
                            f.error_kind.as_deref(),
                            Some("invalid_url" | "out_of_scope" | "address_refused" | "robots_txt")
                        )
                })
                .count();
            for f in fetched {
                cache.insert(f.url.clone(), f);
            }
        }
        for (c, next) in picks {
            state[c].0 += 1;
            let (a, b) = &plans[c][next];
            for u in [a, b] {
                if stored.contains(u) {
                    used.insert(u.clone());
                }
            }
            let (fa, fb) = (&cache[a], &cache[b]);
            if let Some(same) = same_page(fa, fb, policy) {
                state[c].2 += 1;
                if same {
                    state[c].3 += 1;
                }
            }
        }
    }
    for (cand, (_, _, tested, agreed)) in learned.candidates.iter_mut().zip(state) {
        decide(cand, tested, agreed);
    }
    Ok((made, used.len()))
}

/// Whether two answers are one page, by their visible text: `None` when they say
/// nothing (an error, a redirect, a page that is not HTML). Near-identical text is
/// two pages: on a page mostly made of the site's template, a few lines of difference
/// (a log with two entries and an empty one) leave the text nearly the same, and a
/// rule confirmed by such a pair would merge different pages, as near-identical
/// evidence never merges in the audit.
///
/// Two URLs a page offers as choices are two pages, even where today's data makes them
/// read the same: one of the two pages links to both (the "last 7 days" and "last 30
/// days" links of a change list, the sort links of a listing), or one links to the other
/// whose own page has no link to itself (a control whose current choice is not a link).
/// A duplicate's link to its original that both pages carry (the template's link to the
/// page itself) and a link a page makes to itself alone (a login link naming the page)
/// say nothing.
fn same_page(a: &SampleFetch, b: &SampleFetch, policy: &Policy) -> Option<bool> {
    let ok = |f: &SampleFetch| f.status.is_some_and(|s| (200..300).contains(&s));
    if !ok(a) || !ok(b) {
        return None;
    }
    if a.text_hash? != b.text_hash? {
        return Some(false);
    }
    let key = |u: &str| canon::equivalence_key(u, policy).ok();
    let (Some(ka), Some(kb)) = (key(&a.url), key(&b.url)) else {
        return Some(true);
    };
    let link_keys = |page: &SampleFetch| -> HashSet<String> {
        page.links.iter().filter_map(|l| key(l)).collect()
    };
    let (from_a, from_b) = (link_keys(a), link_keys(b));
    let (a_to_a, a_to_b) = (from_a.contains(&ka), from_a.contains(&kb));
    let (b_to_a, b_to_b) = (from_b.contains(&ka), from_b.contains(&kb));
    let offered =
        (a_to_a && a_to_b) || (b_to_a && b_to_b) || (a_to_b && !b_to_b) || (b_to_a && !a_to_a);
    Some(!offered)
}

fn decide(cand: &mut Candidate, tested: u32, agreed: u32) {
    let false_positives = tested - agreed;
    cand.rule.validation = Some(ValidationReport {
        tested,
        agreed,
        false_positives,
        false_positive_rate: if tested == 0 {
            0.0
        } else {
            f64::from(false_positives) / f64::from(tested)
        },
    });
    cand.rule.status = if false_positives > 0 {
        RuleStatus::Rejected
    } else if tested >= 2 {
        RuleStatus::Confirmed
    } else {
        RuleStatus::NeedsValidation
    };
}

fn print_rules(out: &mut dyn Write, learned: &Learned) -> io::Result<()> {
    if learned.candidates.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n  {:<16} {:>8} {:>10} {:>7} {:>10}  rule",
        "status", "support", "list prec.", "tested", "false pos."
    )?;
    for c in &learned.candidates {
        let r = &c.rule;
        let (tested, fp) = r
            .validation
            .as_ref()
            .map_or((String::new(), String::new()), |v| {
                (
                    v.tested.to_string(),
                    format!("{:.0}%", 100.0 * v.false_positive_rate),
                )
            });
        writeln!(
            out,
            "  {:<16} {:>8} {:>10.2} {:>7} {:>10}  {}",
            r.status.as_str(),
            r.support,
            r.precision,
            tested,
            fp,
            r.id
        )?;
        if let Some(&(a, b)) = c.pairs.first() {
            writeln!(
                out,
                "  {:<16} {:>8} {:>10} {:>7} {:>10}    e.g. {} ~ {}",
                "", "", "", "", "", learned.urls[a as usize], learned.urls[b as usize]
            )?;
        }
    }
    writeln!(out)
}
