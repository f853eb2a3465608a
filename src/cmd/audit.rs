//! `dustpan audit`: crawl a site and its sitemaps into the audit database.

use super::db::DbArgs;
use anyhow::{Context, Result};
use crawl::{CancellationToken, CrawlConfig, CrawlSummary, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use store::{AuditId, Store};

/// Crawl a site (and its sitemaps, robots.txt and scheme / www variants) into the
/// audit database, or resume an audit that was cancelled or killed.
///
/// Press Ctrl-C to stop: pages in flight are stored and the audit can be resumed
/// with `--resume ID`.
#[derive(clap::Args)]
pub struct Args {
    /// The start URL (http or https; a bare host name such as example.com is audited
    /// over https). More start URLs with --start.
    #[arg(required_unless_present_any = ["resume", "config", "like", "lists"], conflicts_with_all = ["resume", "like", "lists"])]
    url: Option<String>,
    /// Resume audit ID where it stopped, with the configuration it started with (so
    /// no other crawl option may be given).
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "config", "starts", "max_urls", "max_depth", "concurrency", "rate", "no_robots",
        "user_agent", "include_subdomains", "includes", "excludes", "sitemaps", "resolves",
        "ca_certs", "timeout", "max_response_bytes", "trap_budget", "facet_budget", "rules",
        "any_port", "max_db_bytes", "max_duration", "slow_host", "no_dust_learning",
        "lists", "site", "log_agent", "follow", "no_follow_nofollow",
        "follow_nofollow_pages", "no_probes", "probe_samples", "dns_server",
        "no_bot_verification", "preset", "policy", "render", "render_concurrency",
    ])]
    resume: Option<i64>,
    /// Start a new audit with the configuration audit ID was started with (for scheduled
    /// re-audits, e.g. from cron), so no other crawl option may be given.
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "resume", "config", "starts", "max_urls", "max_depth", "concurrency", "rate",
        "no_robots", "user_agent", "include_subdomains", "includes", "excludes", "sitemaps",
        "resolves", "ca_certs", "timeout", "max_response_bytes", "trap_budget", "facet_budget",
        "rules", "any_port", "max_db_bytes", "max_duration", "slow_host", "no_dust_learning",
        "lists", "site", "log_agent", "follow", "no_follow_nofollow",
        "follow_nofollow_pages", "no_probes", "probe_samples", "dns_server",
        "no_bot_verification", "preset", "policy", "render", "render_concurrency",
    ])]
    like: Option<i64>,
    /// With --like: when the crawl finishes, compare the new audit with audit ID (each
    /// under its own policy), print what changed, and exit with code 3 if anything did
    /// (0 if nothing did), for a cron job or a CI pipeline.
    #[arg(long, requires = "like")]
    compare: bool,
    /// With --compare: also write the comparison as JSON (docs/json.md) to FILE.
    #[arg(long, value_name = "FILE", requires = "compare")]
    compare_out: Option<PathBuf>,
    /// A crawl configuration file (TOML, or JSON when it ends in .json) with any field
    /// of the crawl configuration; options given on the command line override it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Another start URL (repeatable).
    #[arg(long = "start", value_name = "URL")]
    starts: Vec<String>,
    /// Stop admitting new URLs after this many [default: 50000].
    #[arg(long, value_name = "N")]
    max_urls: Option<u64>,
    /// Most link hops from a start URL [default: 100].
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// Requests in flight at once [default: 8].
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Most requests per second to one host [default: no limit beyond --concurrency].
    #[arg(long, value_name = "N")]
    rate: Option<f64>,
    /// Ignore robots.txt (its blocks are then not recorded either).
    #[arg(long)]
    no_robots: bool,
    /// Do not crawl links marked rel=nofollow: they are recorded as skipped (nofollow).
    /// By default they are crawled, as search engines treat the attribute as a hint and
    /// find the duplicates behind such links.
    #[arg(long)]
    no_follow_nofollow: bool,
    /// Crawl the links of pages whose robots meta tag or X-Robots-Tag says nofollow too.
    /// By default they are recorded as skipped (nofollow): the page-level directive is a
    /// rule, and such pages (search results, edit forms, filtered lists) open unbounded
    /// URL spaces.
    #[arg(long)]
    follow_nofollow_pages: bool,
    /// The User-Agent header (its first token is matched against robots.txt).
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Crawl subdomains of the start host too.
    #[arg(long)]
    include_subdomains: bool,
    /// Crawl every port of the start hosts, not only the start URLs' ports (another port
    /// of the same host is out of scope by default).
    #[arg(long)]
    any_port: bool,
    /// Only crawl URLs matching this regular expression (repeatable).
    #[arg(long = "include", value_name = "REGEX")]
    includes: Vec<String>,
    /// Do not crawl URLs matching this regular expression (repeatable).
    #[arg(long = "exclude", value_name = "REGEX")]
    excludes: Vec<String>,
    /// Read this sitemap too (repeatable).
    #[arg(long = "sitemap", value_name = "URL")]
    sitemaps: Vec<String>,
    /// Send requests for HOST to ADDRESS, as curl's --resolve: `host:port:address`
    /// (repeatable). Audits a staging server or a local copy under the real names.
    #[arg(long = "resolve", value_name = "HOST:PORT:ADDR")]
    resolves: Vec<String>,
    /// Trust this PEM certificate authority too (repeatable), for servers with a
    /// private CA.
    #[arg(long = "ca-cert", value_name = "FILE")]
    ca_certs: Vec<PathBuf>,
    /// Give up on a request after this many seconds [default: 60].
    #[arg(long, value_name = "SECS")]
    timeout: Option<u64>,
    /// Read at most this many bytes of a response body [default: 10485760].
    #[arg(long, value_name = "BYTES")]
    max_response_bytes: Option<u64>,
    /// Most URLs admitted per path pattern that differs only in numbers, the crawler
    /// trap guard; raise it for large numbered catalogues (0 = off) [default: 10000].
    #[arg(long, value_name = "N")]
    trap_budget: Option<u64>,
    /// Most combinations of filter values crawled per path, the guard against faceted
    /// navigation (filters that combine without end): two or more query parameters with
    /// few values each (at most 16 seen; a parameter with more, such as a page title, is
    /// an identifier, not a filter); a filter page's link that repeats a parameter with
    /// its value is never crawled. Raise it to crawl more combinations (0 = off)
    /// [default: 1000].
    #[arg(long, value_name = "N")]
    facet_budget: Option<u64>,
    /// Most bytes the audit may store in the database (over all its runs); the crawl
    /// then stops, keeps what it fetched and says so (0 = off) [default: 2 GiB].
    #[arg(long, value_name = "BYTES")]
    max_db_bytes: Option<u64>,
    /// Most time one run may crawl, in seconds, or with a unit: `90s`, `30m`, `2h`;
    /// the crawl then stops, keeps what it fetched, and `--resume` continues [default: no limit].
    #[arg(long, value_name = "TIME", value_parser = parse_duration_ms)]
    max_duration: Option<u64>,
    /// Do not learn DUST rules during the crawl (rules that skip URLs which the pages
    /// fetched so far show to duplicate a known URL; a sample is fetched to check them).
    #[arg(long)]
    no_dust_learning: bool,
    /// Stop requesting a host whose median response time over its last 20 requests
    /// exceeds this many seconds; its URLs stay queued for `--resume` (0 = off)
    /// [default: 20].
    #[arg(long, value_name = "SECONDS")]
    slow_host: Option<u64>,
    /// Do not probe URL variants. By default, once the crawl is done, a sample of pages
    /// is requested under variants no page links to (the other host name and scheme,
    /// the trailing slash, upper-case, index.html / index.php, a doubled slash,
    /// tracking, session and unknown parameters, an empty query, the IP address) to show
    /// how the server answers them (`url_variants.csv`, the report's URL variants).
    #[arg(long)]
    no_probes: bool,
    /// Site sections (first path segments, largest first) whose pages the URL-variant
    /// probes sample, three pages each per variant [default: 5].
    #[arg(long, value_name = "N")]
    probe_samples: Option<u32>,
    /// Learned DUST rules from an earlier audit (`dustpan report --save-rules FILE`):
    /// URLs they predict to duplicate a URL already queued are skipped, except a
    /// verification sample that is fetched to count wrong predictions.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// List mode: audit exactly the URLs of FILE (repeatable; `-` reads standard
    /// input), with their redirect hops and canonical targets, not a crawl of the site.
    /// FILE is a URL list (one per line), an XML sitemap or sitemap index, a CSV file
    /// with an Address, URL or Loc column (Screaming Frog exports), an Apache / nginx
    /// access log (common or combined format; give --site), a Search Console
    /// page-indexing export (Table.csv with URL and Last crawled, named by its reason)
    /// or URL Inspection API results saved as JSON (then see `dustpan explain`), plain
    /// or gzip, told apart by content. At most --max-urls URLs are audited.
    #[arg(long = "list", value_name = "FILE")]
    lists: Vec<String>,
    /// List mode: the site's scheme and host (`https://example.com`), which the paths of
    /// an access log (or of a list) are resolved against.
    #[arg(long, value_name = "URL", requires = "lists")]
    site: Option<String>,
    /// List mode, access logs: count only requests whose user agent matches this
    /// regular expression (e.g. `(?i)googlebot`).
    #[arg(long, value_name = "REGEX", requires = "lists")]
    log_agent: Option<String>,
    /// List mode, access logs: the name server (`IP:PORT`) that checks the addresses of
    /// bot requests, instead of the system's (for split DNS). Each address whose user
    /// agent names a search-engine bot is looked up (reverse DNS, a name in the bot's
    /// documented domains, forward DNS back to the address): verified, fake, or
    /// unverified when no answer comes.
    #[arg(long, value_name = "IP:PORT", requires = "lists")]
    dns_server: Option<std::net::SocketAddr>,
    /// List mode, access logs: do not check bot addresses by DNS; every request whose
    /// user agent names a search-engine bot stays unverified.
    #[arg(long, requires = "lists", conflicts_with = "dns_server")]
    no_bot_verification: bool,
    /// List mode: crawl on from the listed URLs as from start URLs (their sites'
    /// variants and sitemaps too), instead of auditing the list alone.
    #[arg(long, requires = "lists")]
    follow: bool,
    /// Audit a site whose host name resolves to a non-public address (loopback, private,
    /// link-local, a cloud metadata service): refused without it, since a DNS answer
    /// cannot tell a staging server from a machine's other services (an IP address in
    /// the start URL, or --resolve, needs no flag). In list mode it also lets every
    /// listed host be at such an address (without it only --site's and those given with
    /// --resolve may). With --resume or --like: accept the address the start host
    /// resolves to now when it is not one the audit used before.
    #[arg(long)]
    allow_internal: bool,
    /// The normalization preset the audit is analysed under (rfc3986, seo, aggressive),
    /// kept with the audit: its reports, the desktop app and its resumes use it
    /// [default: seo].
    #[arg(long, value_name = "PRESET", conflicts_with = "policy")]
    preset: Option<String>,
    /// A normalization policy file (TOML or JSON) the audit is analysed under, kept with
    /// the audit (its rules, not the file's path).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Render every HTML page that answers 2xx in headless Chromium too (Debian's
    /// `chromium` package, /usr/bin/chromium), as a search engine's renderer does: the
    /// rendered canonical, robots, title, h1, hreflang, links and content are stored
    /// beside the raw ones, links found only in the rendered page are crawled, and
    /// clustering follows the rendered canonical and robots. Every request a page makes
    /// passes the audit's scope and address policy. Kept with the audit: a resume or
    /// --like renders again.
    #[arg(long)]
    render: bool,
    /// Pages rendered at once with --render (tabs of one browser) [default: 2].
    #[arg(long, value_name = "N", requires = "render")]
    render_concurrency: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    db: DbArgs,
}

impl Args {
    /// The crawl options given on the command line, for the one builder
    /// ([`view::options::CrawlOptions`]).
    fn options(&self) -> Result<view::options::CrawlOptions> {
        let mut ca_pems = Vec::new();
        for path in &self.ca_certs {
            let pem = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read CA certificate {}", path.display()))?;
            ca_pems.push(pem);
        }
        let policy = super::report::named_policy(self.preset.as_deref(), self.policy.as_deref())?;
        let on = |flag: bool, value: bool| flag.then_some(value);
        Ok(view::options::CrawlOptions {
            url: self.url.clone(),
            more_urls: self.starts.clone(),
            max_urls: self.max_urls,
            max_depth: self.max_depth,
            concurrency: self.concurrency,
            requests_per_second: self.rate,
            obey_robots: on(self.no_robots, false),
            follow_nofollow: on(self.no_follow_nofollow, false),
            follow_nofollow_pages: on(self.follow_nofollow_pages, true),
            user_agent: self.user_agent.clone(),
            include_subdomains: self.include_subdomains,
            any_port: self.any_port,
            includes: self.includes.clone(),
            excludes: self.excludes.clone(),
            sitemaps: self.sitemaps.clone(),
            resolve: self.resolves.clone(),
            ca_pems,
            learn_dust: on(self.no_dust_learning, false),
            timeout_secs: self.timeout,
            max_response_bytes: self.max_response_bytes,
            trap_budget: self.trap_budget,
            facet_budget: self.facet_budget,
            max_db_bytes: self.max_db_bytes,
            max_duration_ms: self.max_duration,
            slow_host_secs: self.slow_host,
            probe_variants: on(self.no_probes, false),
            probe_samples: self.probe_samples,
            learned_rules: self.rules.as_deref().map(load_rules).transpose()?,
            allow_internal: self.allow_internal,
            policy,
            // --render sets the base configuration's rendering (with its concurrency).
            render: None,
        })
    }

    async fn crawl_config(&self) -> Result<CrawlConfig> {
        let mut base = match &self.config {
            Some(path) => load_config(path)?,
            None => CrawlConfig::default(),
        };
        if self.render {
            let mut render = base.render.take().unwrap_or_default();
            if let Some(n) = self.render_concurrency {
                render.concurrency = n.max(1);
            }
            base.render = Some(render);
        }
        let options = self.options()?;
        if !self.lists.is_empty() {
            let mut config = base;
            options.apply(&mut config)?;
            self.read_lists(&mut config).await?;
            config.validate()?;
            return Ok(config);
        }
        let (config, rewritten) = options.crawl(base)?;
        // A bare host name (`example.com`) is audited as https://example.com (its http
        // variant is requested too).
        for r in &rewritten {
            eprintln!("auditing {} (no scheme given; http is tried too)", r.url);
        }
        Ok(config)
    }
}

impl Args {
    /// Reads the `--list` inputs into a list audit of `config` (at most its `max_urls`
    /// URLs over all inputs), checks the addresses of access logs' bot requests by DNS,
    /// and prints what each input held.
    async fn read_lists(&self, config: &mut CrawlConfig) -> Result<()> {
        let site = match &self.site {
            Some(s) => Some(
                urllist::Url::parse(&crawl::start_url(s))
                    .with_context(|| format!("--site {s:?} is not a URL"))?,
            ),
            None => None,
        };
        let cap = usize::try_from(config.max_urls).unwrap_or(usize::MAX);
        let mut merged = urllist::Merged::new(cap);
        let mut inputs = Vec::new();
        for name in &self.lists {
            let options = urllist::Options {
                max_urls: merged.room(),
                site: site.clone(),
                agent: self.log_agent.clone(),
                reason: urllist::reason_from_name(name),
                ..urllist::Options::default()
            };
            let list = if name == "-" {
                urllist::read(std::io::stdin().lock(), &options)
            } else {
                let file = std::fs::File::open(name)
                    .with_context(|| format!("cannot open the list {name}"))?;
                urllist::read(file, &options)
            }
            .with_context(|| format!("cannot read the list {name}"))?;
            config.sitemaps.extend(list.sitemaps.iter().cloned());
            inputs.push(view::lists::merge_input(&mut merged, name, list));
        }
        let bots = match (self.no_bot_verification, self.dns_server) {
            (true, _) => view::lists::BotCheck::Off,
            (false, Some(server)) => view::lists::BotCheck::Server(server),
            (false, None) => view::lists::BotCheck::System,
        };
        let (urls, bot_check) = view::lists::verify_listed(merged, bots).await;
        if let Some(check) = &bot_check {
            println!("Bots verified by DNS: {check}");
        }
        let list = crawl::ListMode {
            urls,
            follow: self.follow,
            inputs,
            bot_check,
            site: site.map(|s| format!("{}/", s.origin().ascii_serialization())),
        };
        if list.urls.is_empty() && config.sitemaps.is_empty() {
            super::report::print_list(&list);
            anyhow::bail!("the lists hold no http(s) URL to audit");
        }
        config.set_list(list);
        print_list_origins(config);
        Ok(())
    }
}

/// Origins printed before a list audit starts; the rest are counted.
const ORIGINS_SHOWN: usize = 20;

/// Prints the origins a list audit will send requests to, before it starts: a list is
/// data (a log, a sitemap, an export), so what it makes the crawler contact is shown,
/// and which of those may be at a non-public address.
fn print_list_origins(config: &CrawlConfig) {
    let origins = &config.start_urls;
    println!(
        "The list audit will send requests to {} origin{}:",
        origins.len(),
        if origins.len() == 1 { "" } else { "s" }
    );
    for origin in origins.iter().take(ORIGINS_SHOWN) {
        println!("  {}", crate::terminal::safe(origin));
    }
    if origins.len() > ORIGINS_SHOWN {
        println!("  ... and {} more", origins.len() - ORIGINS_SHOWN);
    }
    if !config.allow_internal {
        println!(
            "  (a host at a non-public address is refused unless it is --site's, named by --resolve, or --allow-internal is given)"
        );
    }
}

/// Reads learned rules written by `dustpan report --save-rules`.
pub fn load_rules(path: &std::path::Path) -> Result<audit::LearnedRules> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read learned rules {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("invalid learned rules file {}", path.display()))
}

fn load_config(path: &std::path::Path) -> Result<CrawlConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read crawl configuration {}", path.display()))?;
    let config = if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        serde_json::from_str(&text).map_err(anyhow::Error::from)
    } else {
        toml::from_str(&text).map_err(anyhow::Error::from)
    };
    config.with_context(|| format!("invalid crawl configuration {}", path.display()))
}

/// Runs the subcommand: takes the audit's lease (a new audit's at once; a resumed one's
/// before anything is read or written, refused while another process crawls it), crawls,
/// finishes, and releases the lease whatever happened.
pub fn run(args: Args) -> Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = args.db.open().await?;
        let (lease, config) = match (args.resume, args.like) {
            (Some(id), _) => {
                let lease = store.acquire_lease(AuditId(id)).await?;
                match view::runs::resumable_config(&store, AuditId(id)).await {
                    Ok(config) => {
                        // The stored configuration is data in a file that anyone with
                        // the file may have changed: shown before it runs, as --like
                        // shows it.
                        let config = allow_internal(config, args.allow_internal);
                        println!("Resuming audit {id} with its stored configuration:");
                        print_config(&config);
                        (lease, config)
                    }
                    Err(e) => {
                        release(lease).await;
                        return Err(e.into());
                    }
                }
            }
            (None, Some(id)) => {
                let id = AuditId(id);
                let row = store.audit(id).await?;
                let config = crawl::stored_config(&row)?.for_new_audit();
                view::runs::check_stored_config(&row, &config)?;
                let config = allow_internal(config, args.allow_internal);
                println!(
                    "Starting a new audit with the configuration of audit {}:",
                    id.0
                );
                print_config(&config);
                new_audit(&store, config).await?
            }
            (None, None) => new_audit(&store, args.crawl_config().await?).await?,
        };
        let new_id = lease.audit();
        let result = crawl_and_finish(&store, &lease, config, args.quiet).await;
        release(lease).await;
        match (result, args.like) {
            (Ok(code), Some(old)) if args.compare && code == ExitCode::SUCCESS => {
                let out = args.compare_out.as_deref();
                super::diff::compare_with(&store, AuditId(old), new_id, out).await
            }
            (result, _) => result,
        }
    })
}

/// A stored configuration run again with `--allow-internal`: its hosts may be at the
/// non-public addresses they resolve to now (those its earlier runs used are forgotten).
fn allow_internal(mut config: CrawlConfig, allow: bool) -> CrawlConfig {
    if allow {
        config.allow_internal = true;
        config.start_addresses.clear();
    }
    config
}

/// Creates an audit for `config` and takes its lease.
async fn new_audit(store: &Store, config: CrawlConfig) -> Result<(store::Lease, CrawlConfig)> {
    let id = crawl::create_audit(store, &config).await?;
    Ok((store.acquire_lease(id).await?, config))
}

/// Releases a lease; a failure only leaves it to time out, so it is a warning.
async fn release(lease: store::Lease) {
    let id = lease.audit().0;
    if let Err(e) = lease.release().await {
        eprintln!(
            "dustpan: warning: the lease of audit {id} stays until it times out ({} s): {e}",
            store::lease_timeout().as_secs()
        );
    }
}

/// Crawls the leased audit with `config`, prints its summary and finishes it; stops the
/// crawl if another process takes the lease over.
async fn crawl_and_finish(
    store: &Store,
    lease: &store::Lease,
    config: CrawlConfig,
    quiet: bool,
) -> Result<ExitCode> {
    let id = lease.audit();
    let lost = async {
        lease.lost().await;
        eprintln!(
            "\nstopping: another process took over audit {} (this one stopped renewing its lease)",
            id.0
        );
    };
    let summary = crawl_with_progress_until(quiet, lost, |tx, cancel| {
        let store = store.clone();
        async move { crawl::run(&store, id, &config, &tx, &cancel).await }
    })
    .await?;
    print_summary(store, &summary).await?;
    after_crawl(store, &summary).await?;
    Ok(exit_code(&summary))
}

/// Prints what a stored configuration runs, one line per kind of setting.
pub fn print_config(config: &CrawlConfig) {
    // A stored configuration is data: shown with its control and format characters
    // escaped.
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            crate::terminal::safe(&items.join(" ")).into_owned()
        }
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!("  Start URLs    {}", list(&config.start_urls));
    if let Some(l) = &config.list {
        println!(
            "  List          {} URLs from {} inputs, {}",
            l.urls.len(),
            l.inputs.len(),
            if l.follow {
                "crawling on from them"
            } else {
                "nothing else crawled"
            }
        );
    }
    println!(
        "  Scope         subdomains {}, any port {}, extra hosts {}",
        yes_no(config.include_subdomains),
        yes_no(config.any_port),
        list(&config.extra_hosts)
    );
    println!("  Include       {}", list(&config.include_patterns));
    println!("  Exclude       {}", list(&config.exclude_patterns));
    println!("  Sitemaps      {}", list(&config.sitemaps));
    println!("  Resolve       {}", list(&config.resolve));
    println!(
        "  CA certs      {} extra",
        view::runs::certificate_count(&config.extra_root_certs_pem)
    );
    println!(
        "  Robots.txt    {}; user agent {}",
        if config.obey_robots {
            "obeyed"
        } else {
            "ignored"
        },
        crate::terminal::safe(&config.user_agent)
    );
    let rate = if config.requests_per_second > 0.0 {
        format!("{} requests/s per host", config.requests_per_second)
    } else {
        "no rate limit".to_owned()
    };
    println!(
        "  Limits        {} URLs, depth {}, {} in flight, {rate}, {} s per request, {} bytes per response, trap budget {}, facet budget {}",
        config.max_urls,
        config.max_depth,
        config.concurrency,
        config.total_timeout_ms / 1000,
        config.max_response_bytes,
        config.trap_pattern_budget,
        config.facet_budget
    );
    let duration = match config.max_duration_ms {
        0 => "no time limit".to_owned(),
        ms => format!("at most {} s a run", ms / 1000),
    };
    println!(
        "  Budgets       {} bytes stored, {duration}, slow host after a median of {} ms",
        config.max_db_bytes, config.slow_host_ms
    );
    if config.probe_variants {
        println!(
            "  URL variants  probed on the pages of up to {} site sections",
            config.probe_samples
        );
    } else {
        println!("  URL variants  not probed");
    }
    println!(
        "  Nofollow      rel=nofollow links {}; links of nofollow pages {}",
        if config.follow_nofollow {
            "followed"
        } else {
            "not followed"
        },
        if config.follow_nofollow_pages {
            "followed"
        } else {
            "not followed"
        }
    );
    if let Some(rules) = &config.learned_rules {
        println!("  Learned rules {}", rules.rules.len());
    }
    let mut addresses = if config.allow_internal {
        "internal addresses allowed (--allow-internal)".to_owned()
    } else {
        "public only".to_owned()
    };
    if !config.start_addresses.is_empty() {
        let hosts: Vec<String> = config
            .start_addresses
            .iter()
            .map(|(host, ips)| {
                let ips: Vec<String> = ips.iter().map(ToString::to_string).collect();
                format!("{host} at {}", ips.join(", "))
            })
            .collect();
        addresses.push_str("; start hosts as earlier runs found them: ");
        addresses.push_str(&list(&hosts));
    }
    println!("  Addresses     {addresses}");
    println!(
        "  Policy        {} (the analysis's normalization)",
        crate::terminal::safe(&config.policy.name)
    );
}

/// A duration in seconds (`90`) or with a unit (`90s`, `30m`, `2h`), in milliseconds.
fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration such as 90s, 30m or 2h"))?;
    let seconds = match unit.trim() {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        other => return Err(format!("unknown unit {other:?}: use s, m or h")),
    };
    Ok(seconds.saturating_mul(1000))
}

/// After a finished crawl: the workflow's finishing step (DUST rule validation, the
/// analysis and its stored summary), printed.
pub async fn after_crawl(
    store: &Store,
    summary: &CrawlSummary,
) -> Result<Option<view::workflow::Finished>> {
    if summary.status != store::AuditStatus::Finished {
        return Ok(None);
    }
    let finished = view::workflow::finish_audit(store, summary.audit)
        .await
        .with_context(|| format!("cannot finish audit {}", summary.audit.0))?;
    if let Some(check) = &finished.predictions {
        println!(
            "  Learned rules {} fetches saved (predicted duplicates skipped); {} predictions checked by fetching, {} wrong ({:.0}%)",
            check.skipped,
            check.checked,
            check.wrong,
            check.wrong_rate() * 100.0
        );
    }
    for v in &finished.validations {
        println!(
            "  DUST rule     {}: {} samples fetched, {} false positives ({:.0}%), now {}",
            v.rule,
            v.tested,
            v.false_positives,
            v.false_positive_rate * 100.0,
            v.status.as_str()
        );
    }
    Ok(Some(finished))
}

/// The exit code for a finished (0), cancelled (130) or failed (1) audit.
pub fn exit_code(summary: &CrawlSummary) -> ExitCode {
    match summary.status {
        store::AuditStatus::Finished => ExitCode::SUCCESS,
        store::AuditStatus::Cancelled => ExitCode::from(130),
        _ => ExitCode::from(1),
    }
}

/// Runs a crawl with a progress bar on stderr and Ctrl-C wired to a graceful cancel.
pub async fn crawl_with_progress<F, Fut>(quiet: bool, start: F) -> Result<CrawlSummary>
where
    F: FnOnce(tokio::sync::watch::Sender<Progress>, CancellationToken) -> Fut,
    Fut: std::future::Future<Output = Result<CrawlSummary, crawl::CrawlError>> + Send + 'static,
{
    crawl_with_progress_until(quiet, std::future::pending(), start).await
}

/// [`crawl_with_progress`] that also cancels the crawl when `stop` resolves.
pub async fn crawl_with_progress_until<F, Fut>(
    quiet: bool,
    stop: impl std::future::Future<Output = ()>,
    start: F,
) -> Result<CrawlSummary>
where
    F: FnOnce(tokio::sync::watch::Sender<Progress>, CancellationToken) -> Fut,
    Fut: std::future::Future<Output = Result<CrawlSummary, crawl::CrawlError>> + Send + 'static,
{
    let (tx, mut rx) = tokio::sync::watch::channel(Progress::default());
    let cancel = CancellationToken::new();
    let ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\nstopping: storing the pages in flight (Ctrl-C again to kill)");
                cancel.cancel();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        })
    };
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    set_bar(Some(bar.clone()));
    let mut crawl = tokio::spawn(start(tx, cancel.clone()));
    let drawer = {
        let bar = bar.clone();
        tokio::spawn(async move {
            while rx.changed().await.is_ok() {
                let p = rx.borrow_and_update().clone();
                bar.set_message(format!(
                    "{:?} | fetched {} | queued {} | in flight {} | errors {} | blocked {} | {:.0} pages/s",
                    p.phase, p.fetched, p.queued, p.in_flight, p.errors, p.blocked, p.pages_per_sec
                ));
            }
        })
    };
    let result = tokio::select! {
        result = &mut crawl => result,
        () = stop => {
            cancel.cancel();
            crawl.await
        }
    };
    drawer.abort();
    ctrl_c.abort();
    set_bar(None);
    bar.finish_and_clear();
    Ok(result.context("the crawl task panicked")??)
}

/// The progress bar on screen, if any: log lines are written around it.
static BAR: std::sync::Mutex<Option<ProgressBar>> = std::sync::Mutex::new(None);

fn set_bar(bar: Option<ProgressBar>) {
    *BAR.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = bar;
}

/// Standard error for log lines: each is written with the progress bar (if one is on
/// screen) cleared, then the bar is drawn again below it.
pub struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let bar = BAR
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        match bar {
            Some(bar) => bar.suspend(|| std::io::stderr().write_all(buf))?,
            None => std::io::stderr().write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Prints the end-of-audit summary from the database.
pub async fn print_summary(store: &Store, summary: &CrawlSummary) -> Result<()> {
    let s = store.audit_summary(summary.audit).await?;
    let id = summary.audit.0;
    let status = summary.status.as_str();
    println!(
        "Audit {id} {status} in {:.1} s ({:.0} URLs/s this run)",
        summary.elapsed.as_secs_f64(),
        summary.pages_per_sec
    );
    let st = &s.states;
    println!(
        "  URLs          {} recorded: {} done, {} blocked by robots.txt, {} skipped, {} failed, {} queued",
        s.audit.urls_found, st.done, st.blocked, st.skipped, st.failed, st.queued
    );
    println!(
        "  Pages         {} fetched (answered with an HTTP status)",
        s.audit.pages_fetched
    );
    let c = &s.status_classes;
    println!(
        "  Status codes  2xx {}  3xx {}  4xx {}  5xx {}  other {}  no response {}",
        c.success, c.redirect, c.client_error, c.server_error, c.other, c.no_response
    );
    println!(
        "  Redirects     {} {}, {} with a loop or too many hops",
        s.redirects,
        if s.redirects == 1 { "hop" } else { "hops" },
        match s.redirect_problems {
            1 => "1 chain".to_owned(),
            n => format!("{n} chains"),
        }
    );
    println!(
        "  Canonicals    {} declarations on {} pages",
        s.canonicals, s.pages_with_canonical
    );
    println!(
        "  Sitemaps      {} read, {} URLs listed",
        s.sitemaps, s.sitemap_urls
    );
    println!("  Links         {}", s.links);
    println!("  Errors        {}", s.errors);
    if let Ok(config) = crawl::audit_config(store, summary.audit).await
        && let Some(list) = &config.list
    {
        super::report::print_list(list);
    }
    if summary.scope_refused + summary.address_refused > 0 {
        println!(
            "  Refused       {} requests outside the audit's origins, {} to an address only the audit's own origins may use (this run)",
            summary.scope_refused, summary.address_refused
        );
    }
    if !s.skipped_by_reason.is_empty() {
        let reasons: Vec<String> = s
            .skipped_by_reason
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        println!("  Skipped       {}", reasons.join(", "));
    }
    if let Some(d) = &summary.dust
        && d.rules > 0
    {
        let saved = s
            .skipped_by_reason
            .iter()
            .find(|(k, _)| *k == store::ReasonKind::DustDuplicate)
            .map_or(0, |(_, n)| *n);
        let rules = match d.rules {
            1 => "1 rule".to_owned(),
            n => format!("{n} rules"),
        };
        println!(
            "  DUST          {rules} learned during the crawl, {} dropped after a wrong prediction or repeated misses: {saved} fetches saved; of the predictions fetched to check them, {} right ({} of them a little apart: a form, a counter), {} wrong",
            d.dropped, d.verified, d.close, d.wrong
        );
    }
    if let Some(stop) = &s.audit.stop {
        println!("  Stopped at    {}: {}", stop.reason, stop.detail);
        if stop.reason.resumable() {
            println!("Continue with: dustpan audit --resume {id}");
        }
    }
    // A resume continues the queue; with nothing queued, or the audit's storage budget
    // spent (it counts over all runs), it could not progress, so it is not advised.
    let budget_spent = s
        .audit
        .stop
        .as_ref()
        .is_some_and(|stop| stop.reason == store::StopReason::MaxDbBytes);
    let resume = if summary.queued == 0 {
        None
    } else if budget_spent {
        Some(format!(
            "A resume cannot continue: the audit's storage budget (--max-db-bytes) is spent; {} URLs stay queued",
            summary.queued
        ))
    } else {
        Some(format!("Resume with: dustpan audit --resume {id}"))
    };
    match summary.status {
        store::AuditStatus::Cancelled => {
            if let Some(line) = &resume {
                println!("{line}");
            }
        }
        store::AuditStatus::Failed => {
            println!(
                "Failed: {}",
                summary.failure.as_deref().unwrap_or("unknown reason")
            );
            if let Some(line) = &resume {
                println!("{line}");
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_duration_ms;

    #[test]
    fn durations_in_seconds_minutes_and_hours() {
        assert_eq!(parse_duration_ms("90"), Ok(90_000));
        assert_eq!(parse_duration_ms("90s"), Ok(90_000));
        assert_eq!(parse_duration_ms("30m"), Ok(1_800_000));
        assert_eq!(parse_duration_ms("2h"), Ok(7_200_000));
        assert!(parse_duration_ms("2 days").is_err());
        assert!(parse_duration_ms("h").is_err());
    }
}
