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
        max_candidates: MAX_CANDIDATES,
        ..Options::default()
    };
    let mut learned = rules::learn::learn(urls, &opts);
    let learn_time = started.elapsed();
    let mut fetches = 0usize;
    let mut reused = 0usize;
    let mut notes: Vec<Note> = Vec::new();
    if !args.no_fetch && !learned.candidates.is_empty() {
        let config = crawl_config(&args, &learned, from_audit.as_ref())?;
        let mut cache: HashMap<String, SampleFetch> = from_audit
            .map(|a| a.fetched.into_iter().map(|f| (f.url.clone(), f)).collect())
            .unwrap_or_default();
        (fetches, reused, notes) = runtime.block_on(validate(
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
    print_rules(table, &learned, &notes)?;
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

/// Most candidates tested with requests: the others (the least supported) stay "needs
/// validation". Candidates that confirmed rules already explain, or that pages already
/// fetched decide, are not counted.
const MAX_TESTED: usize = 200;

/// Candidates learned from a list, of which the best [`MAX_TESTED`] not explained by
/// confirmed rules are tested.
const MAX_CANDIDATES: usize = 2 * MAX_TESTED;

/// Candidates tested at once: a candidate waits until the better supported ones before
/// it are decided or spent, so that the rules they confirm can explain it.
const WINDOW: usize = 24;

/// Fetches sample pairs of the candidates in rounds (one pair per candidate per round,
/// the round's requests at once), best supported first, at most [`WINDOW`] candidates
/// at a time, until each rule is decided or its request budget is spent. A candidate
/// whose every pair the rules confirmed so far already join (a composition of them:
/// `/a/x` → `/b` beside `/a/` → `/b/` and `/x` → ``) is not tested, and at most
/// [`MAX_TESTED`] candidates are. A rule is decided on [`MIN_COMPARED`] compared pairs:
/// confirmed when each showed one page (two pages that read the same by a coincidence
/// of the data, a sort order of a list of one, are common enough that two pairs say too
/// little), rejected when one did not (a form, a counter: one sample says too little),
/// and rejected at once when its first compared pair shows two decisively different
/// pages (a form, a
/// counter: one sample says too little). A pair that could not be compared (not
/// fetched, refused by the scope or the address policy, an error) is not checked, never
/// a miss. Answers already in `cache` (an audit's stored pages) are compared without a
/// request and cost nothing. Returns the number of requests made, of stored answers
/// used, and what each candidate's validation found.
async fn validate(
    config: &CrawlConfig,
    learned: &mut Learned,
    budget: u32,
    cache: &mut HashMap<String, SampleFetch>,
    policy: &Policy,
) -> Result<(usize, usize, Vec<Note>)> {
    let stored: HashSet<String> = cache.keys().cloned().collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut state: Vec<Tally> = vec![Tally::default(); learned.candidates.len()];
    let mut notes: Vec<Note> = vec![Note::default(); learned.candidates.len()];
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
    // Best supported first (the candidates come sorted so, kinds interleaved).
    let mut order: Vec<usize> = (0..learned.candidates.len()).collect();
    order.sort_by(|&a, &b| {
        learned.candidates[b]
            .rule
            .support
            .cmp(&learned.candidates[a].rule.support)
    });
    let mut made = 0;
    let mut started = 0usize;
    loop {
        let confirmed: Vec<&DustRule> = learned
            .candidates
            .iter()
            .zip(&state)
            .filter(|(_, t)| t.confirmed())
            .map(|(c, _)| &c.rule)
            .collect();
        let mut wanted: Vec<String> = Vec::new();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        for &c in &order {
            let t = state[c];
            // A decided rule stops; otherwise the pairs are tested while the budget lasts
            // (pairs from contexts not tested yet come first).
            if t.decided() || (!t.started && picks.len() >= WINDOW) {
                continue;
            }
            let Some((a, b)) = plans[c].get(t.next) else {
                continue;
            };
            let others: Vec<&DustRule> = confirmed
                .iter()
                .copied()
                .filter(|r| r.id != learned.candidates[c].rule.id)
                .collect();
            notes[c].explained =
                !t.confirmed() && rules::learn::explained(learned, &learned.candidates[c], &others);
            if notes[c].explained {
                continue;
            }
            let need: Vec<&String> = [a, b]
                .into_iter()
                .filter(|u| !cache.contains_key(*u) && !wanted.contains(u))
                .collect();
            if t.spent + need.len() as u32 > budget
                || (!t.costly && !need.is_empty() && started >= MAX_TESTED)
            {
                continue;
            }
            // Only a candidate that costs a request counts toward those tested: one
            // decided on pages already at hand is free.
            if !t.started {
                state[c].started = true;
            }
            if !t.costly && !need.is_empty() {
                started += 1;
                state[c].costly = true;
            }
            state[c].spent += need.len() as u32;
            wanted.extend(need.into_iter().cloned());
            picks.push((c, t.next));
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
                        || !f
                            .error_kind
                            .as_deref()
                            .and_then(store::FetchErrorKind::parse)
                            .is_some_and(store::FetchErrorKind::refused_before_request)
                })
                .count();
            for f in fetched {
                cache.insert(f.url.clone(), f);
            }
        }
        for (c, next) in picks {
            let t = &mut state[c];
            t.next += 1;
            let (a, b) = &plans[c][next];
            for u in [a, b] {
                if stored.contains(u) {
                    used.insert(u.clone());
                }
            }
            let (fa, fb) = (&cache[a], &cache[b]);
            let pair = same_page(fa, fb, policy);
            t.record(pair);
            if let Some(p) = pair
                && p != Pair::Same
                && notes[c].miss.is_none()
            {
                notes[c].miss = Some((a.clone(), b.clone(), p));
            }
        }
    }
    for ((cand, t), note) in learned.candidates.iter_mut().zip(state).zip(&notes) {
        decide(cand, t, note);
    }
    Ok((made, used.len(), notes))
}

/// Compared pairs that decide a rule: all one page confirm it, one that is not rejects
/// it (a first pair decisively two pages rejects it at once).
const MIN_COMPARED: u32 = 3;

/// One candidate's validation so far.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Its next pair to compare.
    next: usize,
    /// Requests spent.
    spent: u32,
    /// A pair was picked for it.
    started: bool,
    /// A request was made for it.
    costly: bool,
    /// Pairs compared.
    tested: u32,
    /// Of those, pairs that were one page.
    agreed: u32,
    /// Its first compared pair was decisively two pages.
    decisive: bool,
}

impl Tally {
    fn misses(self) -> u32 {
        self.tested - self.agreed
    }

    /// Counts one compared pair (`None`: not compared, it counts for nothing).
    fn record(&mut self, pair: Option<Pair>) {
        let Some(pair) = pair else { return };
        self.tested += 1;
        match pair {
            Pair::Same => self.agreed += 1,
            Pair::Close => {}
            Pair::Different(_) => self.decisive |= self.tested == 1,
        }
    }

    /// The rule is rejected whatever the next pairs show.
    fn decided(self) -> bool {
        self.decisive || (self.misses() > 0 && self.tested >= MIN_COMPARED)
    }

    /// Every compared pair, [`MIN_COMPARED`] at least, was one page.
    fn confirmed(self) -> bool {
        self.tested >= MIN_COMPARED && self.misses() == 0
    }
}

/// Why two pages are decisively two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Apart {
    /// Their visible texts are far apart.
    Text,
    /// One page offers both URLs, or one of them, as choices.
    Offered,
    /// One answered with a page, the other that there is none (404, 410).
    Missing,
}

/// What one sample pair shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pair {
    /// One page: identical visible text, or one URL redirects to the other.
    Same,
    /// Not identical, but only a little apart (a form, a counter, a date).
    Close,
    /// Decisively two pages.
    Different(Apart),
}

impl Pair {
    fn describe(self) -> &'static str {
        match self {
            Pair::Same => "one page",
            Pair::Close => "texts a little apart",
            Pair::Different(Apart::Text) => "different texts",
            Pair::Different(Apart::Offered) => "offered side by side as choices",
            Pair::Different(Apart::Missing) => "one of them is not found",
        }
    }
}

/// What validation found for one candidate, beside its counts.
#[derive(Clone, Debug, Default)]
struct Note {
    /// Confirmed rules already join every pair: not tested further.
    explained: bool,
    /// The first compared pair that was not one page.
    miss: Option<(String, String, Pair)>,
}

/// Whether two answers are one page: one redirects (or refreshes) to the other, or
/// their visible text is identical; `None` when they say nothing (an error, a redirect
/// elsewhere, a page that is not HTML). Near-identical text never confirms: on a page
/// mostly made of the site's template, a few lines of difference (a log with two
/// entries and an empty one) leave the text nearly the same, and a rule confirmed by
/// such a pair would merge different pages, as near-identical evidence never merges in
/// the audit; but one such pair rejects a rule only among [`MIN_COMPARED`].
/// A page beside a "not found" (404, 410) is two pages.
///
/// Two URLs a page offers as choices are two pages, even where today's data makes them
/// read the same: one of the two pages links to both (the "last 7 days" and "last 30
/// days" links of a change list, the sort links of a listing), or one links to the other
/// whose own page has no link to itself (a control whose current choice is not a link).
/// A duplicate's link to its original that both pages carry (the template's link to the
/// page itself) and a link a page makes to itself alone (a login link naming the page)
/// say nothing, and neither do links between two hosts (the pages of a host alias link
/// to the site's own host).
fn same_page(a: &SampleFetch, b: &SampleFetch, policy: &Policy) -> Option<Pair> {
    let key = |u: &str| canon::equivalence_key(u, policy).ok();
    // A redirect or a meta refresh from one URL of the pair to the other: the site
    // itself says they are one page.
    let leads = |from: &SampleFetch, to: &SampleFetch| {
        from.location
            .as_deref()
            .and_then(key)
            .is_some_and(|k| key(&to.url).is_some_and(|t| t == k))
    };
    if leads(a, b) || leads(b, a) {
        return Some(Pair::Same);
    }
    let ok = |f: &SampleFetch| f.status.is_some_and(|s| (200..300).contains(&s));
    let gone = |f: &SampleFetch| matches!(f.status, Some(404 | 410));
    if (ok(a) && gone(b)) || (gone(a) && ok(b)) {
        return Some(Pair::Different(Apart::Missing));
    }
    if !ok(a) || !ok(b) {
        return None;
    }
    // The texts compared as the crawl's own rules compare them (samples carry no text
    // blocks, so no sort order is told apart here).
    let text = |f: &SampleFetch| {
        f.text_hash.map(|hash| crawl::same_page::Text {
            hash,
            simhash: f.simhash,
            blocks: None,
            canonical: None,
        })
    };
    match crawl::same_page::text_pair(text(a)?, text(b)?) {
        crawl::same_page::Pair::Same => {}
        crawl::same_page::Pair::Close => return Some(Pair::Close),
        crawl::same_page::Pair::Different => return Some(Pair::Different(Apart::Text)),
    }
    let (Some(ka), Some(kb)) = (key(&a.url), key(&b.url)) else {
        return Some(Pair::Same);
    };
    if origin(&ka) != origin(&kb) {
        return Some(Pair::Same);
    }
    // A link to a fragment of the page itself (`href="#"`, a "back to top" or a menu
    // toggle) points at no page: it is not a choice the page offers.
    let link_keys = |page: &SampleFetch| -> HashSet<String> {
        let own = url::Url::parse(&page.url).map_or_else(|_| page.url.clone(), String::from);
        page.links
            .iter()
            .filter(|l| l.split_once('#').is_none_or(|(doc, _)| doc != own))
            .filter_map(|l| key(l))
            .collect()
    };
    let (from_a, from_b) = (link_keys(a), link_keys(b));
    let (a_to_a, a_to_b) = (from_a.contains(&ka), from_a.contains(&kb));
    let (b_to_a, b_to_b) = (from_b.contains(&ka), from_b.contains(&kb));
    let offered =
        (a_to_a && a_to_b) || (b_to_a && b_to_b) || (a_to_b && !b_to_b) || (b_to_a && !a_to_a);
    Some(if offered {
        Pair::Different(Apart::Offered)
    } else {
        Pair::Same
    })
}

/// The scheme, host and port of a URL (the text before its path).
fn origin(url: &str) -> &str {
    &url[..rules::url::split(url).origin_end]
}

fn decide(cand: &mut Candidate, t: Tally, note: &Note) {
    let (tested, agreed) = (t.tested, t.agreed);
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
    cand.rule.status = if t.decided() {
        RuleStatus::Rejected
    } else if t.confirmed() && !note.explained {
        RuleStatus::Confirmed
    } else {
        RuleStatus::NeedsValidation
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, status: u16, text: u64, simhash: u64) -> SampleFetch {
        SampleFetch {
            url: url.to_owned(),
            status: Some(status),
            text_hash: Some(text),
            simhash: Some(simhash),
            ..SampleFetch::default()
        }
    }

    fn redirect(url: &str, to: &str) -> SampleFetch {
        SampleFetch {
            url: url.to_owned(),
            status: Some(301),
            location: Some(to.to_owned()),
            ..SampleFetch::default()
        }
    }

    #[test]
    fn a_redirect_from_one_url_to_the_other_is_one_page() {
        let policy = Policy::seo();
        let short = redirect("https://example.test/a", "https://example.test/a/");
        let long = page("https://example.test/a/", 200, 1, 1);
        assert_eq!(same_page(&short, &long, &policy), Some(Pair::Same));
        assert_eq!(same_page(&long, &short, &policy), Some(Pair::Same));
        // A redirect elsewhere says nothing about the pair.
        let elsewhere = redirect("https://example.test/b", "https://example.test/");
        let b = page("https://example.test/b/", 200, 2, 2);
        assert_eq!(same_page(&elsewhere, &b, &policy), None);
    }

    #[test]
    fn a_sample_never_fetched_is_not_checked() {
        let policy = Policy::seo();
        let refused = SampleFetch {
            url: "http://10.0.0.1/a".to_owned(),
            error_kind: Some("address_refused".to_owned()),
            ..SampleFetch::default()
        };
        let a = page("https://example.test/a", 200, 1, 1);
        assert_eq!(same_page(&refused, &a, &policy), None);
    }

    #[test]
    fn a_pair_a_little_apart_rejects_a_rule_only_among_three() {
        let policy = Policy::seo();
        let a = page("https://example.test/post/", 200, 1, 0);
        // The comment form reads "Reply to Ann" instead of "Leave a reply": 2 bits apart.
        let reply = page("https://example.test/post/?replytocom=5", 200, 2, 0b11);
        assert_eq!(same_page(&a, &reply, &policy), Some(Pair::Close));
        let other = page("https://example.test/other/", 200, 3, u64::MAX);
        assert_eq!(
            same_page(&a, &other, &policy),
            Some(Pair::Different(Apart::Text))
        );

        let mut t = Tally::default();
        t.record(Some(Pair::Close));
        assert!(!t.decided(), "one close pair decides nothing");
        t.record(None);
        t.record(Some(Pair::Same));
        assert!(!t.decided() && !t.confirmed());
        t.record(Some(Pair::Same));
        assert!(t.decided(), "three compared pairs, one a miss");

        let mut first = Tally::default();
        first.record(Some(Pair::Different(Apart::Text)));
        assert!(
            first.decided(),
            "a first pair decisively apart rejects at once"
        );
    }

    /// Two reviews lists of one review read the same in any order: two agreeing pairs
    /// do not confirm a rule, three do.
    #[test]
    fn a_rule_is_confirmed_on_three_agreeing_pairs() {
        let mut t = Tally::default();
        t.record(Some(Pair::Same));
        t.record(Some(Pair::Same));
        assert!(!t.confirmed() && !t.decided(), "{t:?}");
        t.record(None);
        assert!(!t.confirmed(), "a pair not compared counts for nothing");
        t.record(Some(Pair::Same));
        assert!(t.confirmed() && !t.decided(), "{t:?}");
    }

    /// A decisively different pair after one that agreed is a miss, not a verdict: the
    /// rule is rejected only once three pairs were compared.
    #[test]
    fn only_the_first_pair_rejects_at_once() {
        let mut t = Tally::default();
        t.record(Some(Pair::Same));
        t.record(Some(Pair::Different(Apart::Text)));
        assert!(!t.decided(), "{t:?}");
        assert!(!t.confirmed(), "{t:?}");
        t.record(Some(Pair::Same));
        assert!(t.decided(), "{t:?}");
    }

    #[test]
    fn a_page_beside_a_not_found_is_two_pages() {
        let policy = Policy::seo();
        let a = page("https://example.test/item?id=3", 200, 1, 1);
        let mut missing = page("https://example.test/item", 404, 2, 2);
        assert_eq!(
            same_page(&a, &missing, &policy),
            Some(Pair::Different(Apart::Missing))
        );
        // A server error or a refusal says nothing.
        missing.status = Some(503);
        assert_eq!(same_page(&a, &missing, &policy), None);
        missing.status = Some(403);
        assert_eq!(same_page(&a, &missing, &policy), None);
    }

    /// `href="#"` (a menu toggle) on both pages is no link to a choice: the reviews in
    /// their default order, with and without the order named, are one page.
    #[test]
    fn a_link_to_a_fragment_of_the_page_itself_offers_nothing() {
        let policy = Policy::seo();
        let list = "http://shop.example/p/1/reviews/";
        let mut named = page(&format!("{list}?sort_by=score"), 200, 1, 1);
        named.links = vec![format!("{list}?sort_by=score#"), list.to_owned()];
        let mut default = page(list, 200, 1, 1);
        default.links = vec![format!("{list}#"), list.to_owned()];
        assert_eq!(same_page(&named, &default, &policy), Some(Pair::Same));
    }

    /// A page served under the server's IP address links to the site's own host, the
    /// same path included: the links of a host alias are not choices.
    #[test]
    fn a_host_alias_linking_to_the_site_is_one_page() {
        let policy = Policy::seo();
        let mut on_ip = page("http://192.0.2.7/post/", 200, 1, 1);
        on_ip.links = vec![
            "http://blog.example/post/".into(),
            "http://blog.example/".into(),
        ];
        let mut on_host = page("http://blog.example/post/", 200, 1, 1);
        on_host.links = vec!["http://blog.example/".into()];
        assert_eq!(same_page(&on_ip, &on_host, &policy), Some(Pair::Same));
        // On one host the same links are a choice.
        let mut sorted = page("http://blog.example/list?sort=new", 200, 1, 1);
        sorted.links = vec!["http://blog.example/list".into()];
        let mut list = page("http://blog.example/list", 200, 1, 1);
        list.links = vec!["http://blog.example/list?sort=new".into()];
        assert_eq!(
            same_page(&sorted, &list, &policy),
            Some(Pair::Different(Apart::Offered))
        );
    }
}
