//! Search-engine bots verified by DNS, the way the search engines document it.
//!
//! Anyone can send Googlebot's user agent. A request that claims to come from a
//! search-engine bot is believed only when its client address passes the check Google,
//! Bing, Yandex, Baidu, Apple, Seznam and Huawei (PetalBot) document:
//!
//! 1. a reverse DNS lookup (PTR) of the address gives a name;
//! 2. the name ends in one of the bot's documented domains ([`documented_domains`]:
//!    `googlebot.com`, `google.com` or `googleusercontent.com` for Googlebot,
//!    `search.msn.com` for Bingbot, ...), at a label boundary ([`in_domains`]);
//! 3. a forward lookup of that name (A for an IPv4 address, AAAA for IPv6) includes the
//!    address.
//!
//! Each client (an address and the bot its user agent names) gets a [`Check`], which is
//! one of three [`Outcome`]s:
//!
//! * **verified**: the three steps pass;
//! * **fake**: the resolver answered and the check failed: no name (NXDOMAIN or no PTR
//!   record), names outside the bot's domains, or a forward lookup without the address;
//! * **unverified**: nothing was learned: the resolver did not answer (time-out,
//!   SERVFAIL, refused, no name server), the bot documents no DNS check (DuckDuckBot,
//!   Qwantbot, ...), the log gave no address, or the address was past the limit.
//!
//! [`Verifier::check`] is bounded so that a machine without DNS finishes at once: at
//! most [`Options::max_ips`] distinct addresses (those with the most requests) are
//! looked up, [`Options::concurrency`] at a time, each query with one attempt and a
//! [`Options::timeout`], and at most [`MAX_NAMES_PER_IP`] of an address's names looked up
//! forward; when the first [`Options::give_up_after`] lookups all go unanswered, the
//! addresses left are unverified without a lookup, and at [`Options::max_duration`] the
//! check ends, lookups in flight included (their addresses unverified). The hosts file is
//! never read: only DNS answers.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::xfer::{DnsHandle, FirstAnswer};
use hickory_resolver::net::{DnsError, NetError};
use hickory_resolver::proto::op::{DnsRequestOptions, Query, ResponseCode};
use hickory_resolver::proto::rr::{Name, RData, Record, RecordType};
use hickory_resolver::{NameServerPool, PoolContext, TlsConfig};
use tokio::task::JoinSet;

/// Most distinct addresses looked up by default; the rest are unverified
/// ([`Check::OverLimit`]).
pub const MAX_IPS: usize = 5_000;
/// Addresses checked at once by default.
pub const CONCURRENCY: usize = 32;
/// How long one DNS query may take by default (one attempt).
pub const TIMEOUT: Duration = Duration::from_secs(2);
/// Names of an address's reverse lookup in the bot's domains that are looked up
/// forward (the first ones answered): a search engine's address has one, and a PTR
/// answer listing hundreds would otherwise cost a query each.
pub const MAX_NAMES_PER_IP: usize = 3;

/// The domains each bot's crawlers resolve to, as the search engines document them.
/// The names are those `urllist` counts bots under.
const DOMAINS: &[(&str, &[&str])] = &[
    (
        "Googlebot",
        &["googlebot.com", "google.com", "googleusercontent.com"],
    ),
    ("Bingbot", &["search.msn.com"]),
    ("YandexBot", &["yandex.ru", "yandex.net", "yandex.com"]),
    ("Baiduspider", &["baidu.com", "baidu.jp"]),
    ("Applebot", &["applebot.apple.com"]),
    ("SeznamBot", &["seznam.cz"]),
    ("PetalBot", &["petalsearch.com"]),
];

/// The domains a bot's reverse DNS names end in (`Googlebot`: `googlebot.com`,
/// `google.com`, `googleusercontent.com`), or `None` when the bot documents no DNS
/// check: its requests stay unverified.
pub fn documented_domains(bot: &str) -> Option<&'static [&'static str]> {
    DOMAINS
        .iter()
        .find(|(name, _)| *name == bot)
        .map(|&(_, domains)| domains)
}

/// Whether the DNS name `name` (any case, with or without its final dot) is one of
/// `domains` or under one of them, at a label boundary: `crawl-1.googlebot.com` is in
/// `googlebot.com`, `evilgooglebot.com` is not.
pub fn in_domains(name: &str, domains: &[&str]) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    domains.iter().any(|domain| {
        let domain = domain.strip_suffix('.').unwrap_or(domain);
        name == domain
            || name
                .strip_suffix(domain)
                .is_some_and(|head| head.ends_with('.') && head.len() > 1)
    })
}

/// What a check says of a client, in short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The address belongs to the bot.
    Verified,
    /// The resolver answered and the address does not belong to the bot.
    Fake,
    /// Nothing was learned.
    Unverified,
}

/// What the check of one client found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// The address's name is in the bot's domains and resolves back to the address.
    Verified,
    /// The resolver answered that the address has no name (NXDOMAIN or no PTR record).
    NoName,
    /// The address's names are all outside the bot's domains.
    OtherDomain,
    /// A name in the bot's domains whose forward lookup does not include the address.
    AddressMismatch,
    /// The resolver did not answer (time-out, SERVFAIL, refused, no name server).
    NoAnswer,
    /// The bot documents no DNS check.
    NoCheck,
    /// The log gave no address for the request (or the reader kept no more addresses).
    NoAddress,
    /// Past the most addresses looked up ([`Options::max_ips`]).
    OverLimit,
    /// No lookup was made: verification was turned off, or no resolver is configured.
    NotChecked,
}

impl Check {
    /// Verified, fake or unverified.
    pub const fn outcome(self) -> Outcome {
        match self {
            Check::Verified => Outcome::Verified,
            Check::NoName | Check::OtherDomain | Check::AddressMismatch => Outcome::Fake,
            Check::NoAnswer
            | Check::NoCheck
            | Check::NoAddress
            | Check::OverLimit
            | Check::NotChecked => Outcome::Unverified,
        }
    }
}

/// A client to check: an address, and the bot its user agent names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client<'a> {
    /// The client's address, if the log gave one.
    pub ip: Option<IpAddr>,
    /// The bot (`Googlebot`, `Bingbot`, ...: the names of [`documented_domains`]).
    pub bot: &'a str,
    /// Its requests: the addresses with the most are checked first.
    pub requests: u64,
}

/// Clients counted by what their check found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Verified.
    pub verified: u64,
    /// Fake: no name, a name outside the bot's domains, or a name that does not resolve
    /// back to the address.
    pub fake: u64,
    /// Unverified: the resolver did not answer.
    pub no_answer: u64,
    /// Unverified: bots without a documented check, and requests without an address.
    pub no_check: u64,
    /// Unverified: past the most addresses looked up.
    pub over_limit: u64,
    /// Unverified: no lookup made (verification off, no resolver).
    pub not_checked: u64,
}

impl Summary {
    /// Counts `checks`.
    pub fn of(checks: &[Check]) -> Self {
        let mut s = Summary::default();
        for check in checks {
            match check {
                Check::Verified => s.verified += 1,
                Check::NoName | Check::OtherDomain | Check::AddressMismatch => s.fake += 1,
                Check::NoAnswer => s.no_answer += 1,
                Check::NoCheck | Check::NoAddress => s.no_check += 1,
                Check::OverLimit => s.over_limit += 1,
                Check::NotChecked => s.not_checked += 1,
            }
        }
        s
    }

    /// Clients left unverified, whatever the reason.
    pub fn unverified(&self) -> u64 {
        self.no_answer + self.no_check + self.over_limit + self.not_checked
    }
}

/// What [`Verifier::check`] found: one [`Check`] per client, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The check of each client.
    pub checks: Vec<Check>,
    /// Them counted.
    pub summary: Summary,
}

impl Report {
    /// A report without lookups: every client that could be checked gets `check`
    /// ([`Check::NotChecked`] when verification is off or no resolver is configured),
    /// the others why they could not.
    pub fn unchecked(clients: &[Client<'_>], check: Check) -> Self {
        let checks: Vec<Check> = clients
            .iter()
            .map(|c| precheck(c).unwrap_or(check))
            .collect();
        Report {
            summary: Summary::of(&checks),
            checks,
        }
    }
}

/// Why a client cannot be looked up at all, if it cannot.
fn precheck(client: &Client<'_>) -> Option<Check> {
    if client.ip.is_none() {
        Some(Check::NoAddress)
    } else if documented_domains(client.bot).is_none() {
        Some(Check::NoCheck)
    } else {
        None
    }
}

/// The limits of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Most distinct addresses looked up (those with the most requests first).
    /// Default [`MAX_IPS`].
    pub max_ips: usize,
    /// Addresses checked at once. Default [`CONCURRENCY`].
    pub concurrency: usize,
    /// How long one query may take (one attempt). Default [`TIMEOUT`].
    pub timeout: Duration,
    /// Give up when this many addresses went unanswered before any answer came (no DNS
    /// at all). Default 16.
    pub give_up_after: usize,
    /// Most time the whole check may take; the addresses left are then unverified.
    /// Default 2 minutes.
    pub max_duration: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_ips: MAX_IPS,
            concurrency: CONCURRENCY,
            timeout: TIMEOUT,
            give_up_after: 16,
            max_duration: Duration::from_secs(120),
        }
    }
}

/// Why no verifier could be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BotCheckError {
    /// The system's resolver configuration (`/etc/resolv.conf`) cannot be read.
    #[error("no system resolver: {0}")]
    SystemConfig(#[source] NetError),
    /// The system's resolver configuration names no name server.
    #[error("the system's resolver configuration names no name server")]
    NoNameServer,
    /// The resolver could not be built.
    #[error("cannot build the DNS resolver: {0}")]
    Resolver(#[source] NetError),
}

/// The name servers queries go to.
type Pool = NameServerPool<TokioRuntimeProvider>;

/// Checks clients against DNS, through the name servers of one resolver configuration.
#[derive(Clone)]
pub struct Verifier {
    pool: Pool,
    options: Options,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// A verifier asking the system's name servers (`/etc/resolv.conf` on Unix).
    ///
    /// # Errors
    /// [`BotCheckError::SystemConfig`] when the configuration cannot be read,
    /// [`BotCheckError::NoNameServer`] when it names no server.
    pub fn system(options: Options) -> Result<Self, BotCheckError> {
        let (config, _) = hickory_resolver::system_conf::read_system_conf()
            .map_err(BotCheckError::SystemConfig)?;
        if config.name_servers().is_empty() {
            return Err(BotCheckError::NoNameServer);
        }
        Self::build(config, options)
    }

    /// A verifier asking the name server at `server` only (UDP, and TCP for truncated
    /// answers), instead of the system's.
    ///
    /// # Errors
    /// [`BotCheckError::Resolver`] when the resolver cannot be built.
    pub fn with_server(server: SocketAddr, options: Options) -> Result<Self, BotCheckError> {
        let connections = [ConnectionConfig::udp(), ConnectionConfig::tcp()]
            .into_iter()
            .map(|mut c| {
                c.port = server.port();
                c
            })
            .collect();
        let name_server = NameServerConfig::new(server.ip(), true, connections);
        Self::build(
            ResolverConfig::from_name_servers(vec![name_server]),
            options,
        )
    }

    /// Queries go straight to the name servers: no hosts file and no answers made up
    /// for special-use names (a stub resolver answers `localhost.` for any address in
    /// 127.0.0.0/8 without asking), one attempt each, within the timeout.
    fn build(config: ResolverConfig, options: Options) -> Result<Self, BotCheckError> {
        let mut opts = ResolverOpts::default();
        opts.timeout = options.timeout;
        // One attempt: the attempts counted are retries.
        opts.attempts = 0;
        let tls = TlsConfig::new().map_err(BotCheckError::Resolver)?;
        let (_, _, name_servers) = config.into_parts();
        let pool = NameServerPool::from_config(
            name_servers,
            Arc::new(PoolContext::new(opts, tls)),
            TokioRuntimeProvider::default(),
        );
        Ok(Verifier { pool, options })
    }

    /// The limits this verifier checks within.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Checks `clients`: one [`Check`] each, in the order given. Never fails: what the
    /// resolver does not answer is [`Check::NoAnswer`].
    pub async fn check(&self, clients: &[Client<'_>]) -> Report {
        let started = Instant::now();
        let mut checks: Vec<Check> = clients
            .iter()
            .map(|c| precheck(c).unwrap_or(Check::OverLimit))
            .collect();
        // The addresses to look up, most requests first (then by address, so that the
        // same log checks the same addresses), each with its clients' bots.
        let mut by_ip: HashMap<IpAddr, Job> = HashMap::new();
        for (i, c) in clients.iter().enumerate() {
            let (Some(ip), Some(domains)) = (c.ip, documented_domains(c.bot)) else {
                continue;
            };
            let job = by_ip.entry(ip).or_insert_with(|| Job {
                ip,
                requests: 0,
                bots: Vec::new(),
            });
            job.requests += c.requests;
            job.bots.push((i, domains));
        }
        let mut jobs: Vec<Job> = by_ip.into_values().collect();
        jobs.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.ip.cmp(&b.ip)));
        jobs.truncate(self.options.max_ips);
        // Until a lookup says otherwise (a lookup task that fails leaves this).
        for job in &jobs {
            for &(i, _) in &job.bots {
                checks[i] = Check::NoAnswer;
            }
        }

        let mut running: JoinSet<(Vec<(usize, Check)>, bool)> = JoinSet::new();
        let (mut answered, mut unanswered) = (0usize, 0usize);
        let mut jobs = jobs.into_iter();
        loop {
            let give_up = (answered == 0 && unanswered >= self.options.give_up_after.max(1))
                || started.elapsed() >= self.options.max_duration;
            while running.len() < self.options.concurrency.max(1) {
                let Some(job) = jobs.next() else { break };
                if give_up {
                    // Its clients stay unanswered.
                    continue;
                }
                let dns = Dns {
                    pool: self.pool.clone(),
                    timeout: self.options.timeout,
                };
                running.spawn(async move { check_ip(&dns, job).await });
            }
            // The deadline holds for lookups in flight too: their clients stay
            // unanswered.
            let deadline = tokio::time::Instant::from_std(started + self.options.max_duration);
            let Ok(next) = tokio::time::timeout_at(deadline, running.join_next()).await else {
                running.abort_all();
                break;
            };
            let Some(done) = next else {
                break;
            };
            match done {
                Ok((results, was_answered)) => {
                    if was_answered {
                        answered += 1;
                    } else {
                        unanswered += 1;
                    }
                    for (i, check) in results {
                        checks[i] = check;
                    }
                }
                // A lookup task that failed leaves its clients unanswered.
                Err(e) => {
                    tracing::warn!("a bot check failed: {e}");
                    unanswered += 1;
                }
            }
        }
        Report {
            summary: Summary::of(&checks),
            checks,
        }
    }
}

/// One address to look up, with the clients (index, domains) that claim it.
struct Job {
    ip: IpAddr,
    requests: u64,
    bots: Vec<(usize, &'static [&'static str])>,
}

/// What a lookup gave.
enum Reply<T> {
    /// Records.
    Records(T),
    /// The resolver answered: no such name, or no record of the type.
    Nothing,
    /// No answer: time-out, a server failure, no name server.
    NoAnswer,
}

/// One query's way to the name servers.
struct Dns {
    pool: Pool,
    timeout: Duration,
}

impl Dns {
    /// The answer records of `kind` for `name`.
    async fn query(&self, name: Name, kind: RecordType) -> Reply<Vec<Record>> {
        let lookup = self
            .pool
            .lookup(Query::query(name, kind), DnsRequestOptions::default())
            .first_answer();
        match tokio::time::timeout(self.timeout, lookup).await {
            Ok(Ok(response)) => {
                let records: Vec<Record> = response
                    .answers
                    .iter()
                    .filter(|r| r.record_type() == kind)
                    .cloned()
                    .collect();
                if records.is_empty() {
                    Reply::Nothing
                } else {
                    Reply::Records(records)
                }
            }
            Ok(Err(NetError::Dns(DnsError::NoRecordsFound(no))))
                if matches!(
                    no.response_code,
                    ResponseCode::NXDomain | ResponseCode::NoError
                ) =>
            {
                Reply::Nothing
            }
            Ok(Err(e)) => {
                tracing::debug!("no answer for {kind} lookup: {e}");
                Reply::NoAnswer
            }
            Err(_) => Reply::NoAnswer,
        }
    }
}

/// Checks one address for each bot that claims it; also says whether the resolver
/// answered its reverse lookup.
async fn check_ip(dns: &Dns, job: Job) -> (Vec<(usize, Check)>, bool) {
    let names: Vec<String> = match dns.query(Name::from(job.ip), RecordType::PTR).await {
        Reply::Records(records) => records
            .iter()
            .filter_map(|r| match &r.data {
                RData::PTR(ptr) => Some(ptr.0.to_ascii()),
                _ => None,
            })
            .collect(),
        Reply::Nothing => Vec::new(),
        Reply::NoAnswer => {
            let results = job
                .bots
                .iter()
                .map(|&(i, _)| (i, Check::NoAnswer))
                .collect();
            return (results, false);
        }
    };
    let mut results = Vec::with_capacity(job.bots.len());
    for &(i, domains) in &job.bots {
        let check = if names.is_empty() {
            Check::NoName
        } else {
            let mut check = Check::OtherDomain;
            let mut in_domain: Vec<&String> =
                names.iter().filter(|n| in_domains(n, domains)).collect();
            in_domain.dedup();
            for name in in_domain.into_iter().take(MAX_NAMES_PER_IP) {
                match forward_includes(dns, name, job.ip).await {
                    Some(true) => {
                        check = Check::Verified;
                        break;
                    }
                    Some(false) if check != Check::NoAnswer => check = Check::AddressMismatch,
                    Some(false) => {}
                    None => check = Check::NoAnswer,
                }
            }
            check
        };
        results.push((i, check));
    }
    (results, true)
}

/// Whether the forward lookup of `name` (A for an IPv4 address, AAAA for IPv6)
/// includes `ip`; `None` when the resolver did not answer.
async fn forward_includes(dns: &Dns, name: &str, ip: IpAddr) -> Option<bool> {
    let Ok(mut fqdn) = Name::from_ascii(name) else {
        return Some(false);
    };
    fqdn.set_fqdn(true);
    let kind = match ip {
        IpAddr::V4(_) => RecordType::A,
        IpAddr::V6(_) => RecordType::AAAA,
    };
    match dns.query(fqdn, kind).await {
        Reply::Records(records) => Some(records.iter().any(|r| match &r.data {
            RData::A(a) => IpAddr::V4(a.0) == ip,
            RData::AAAA(aaaa) => IpAddr::V6(aaaa.0) == ip,
            _ => false,
        })),
        Reply::Nothing => Some(false),
        Reply::NoAnswer => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_their_domains_at_a_label_boundary() {
        let google = documented_domains("Googlebot").unwrap_or_default();
        assert!(in_domains("crawl-66-249-66-1.googlebot.com", google));
        assert!(in_domains("crawl-66-249-66-1.googlebot.com.", google));
        assert!(in_domains("CRAWL-66-249-66-1.GoogleBot.COM", google));
        assert!(in_domains(
            "rate-limited-proxy-66-249-90-77.google.com",
            google
        ));
        assert!(in_domains(
            "google-proxy-66-249-81-1.googleusercontent.com",
            google
        ));
        assert!(in_domains("googlebot.com", google));
        assert!(!in_domains("evilgooglebot.com", google));
        assert!(!in_domains("crawl.evilgooglebot.com", google));
        assert!(!in_domains("googlebot.com.evil.example", google));
        assert!(!in_domains("evil.example", google));
        assert!(!in_domains("", google));
        assert!(!in_domains(".googlebot.com", google));
        let bing = documented_domains("Bingbot").unwrap_or_default();
        assert!(in_domains("msnbot-157-55-39-1.search.msn.com", bing));
        assert!(!in_domains("msn.com", bing));
        assert!(!in_domains("x.notsearch.msn.com", bing));
    }

    #[test]
    fn only_bots_with_a_documented_check_are_looked_up() {
        for bot in [
            "Googlebot",
            "Bingbot",
            "YandexBot",
            "Baiduspider",
            "Applebot",
            "SeznamBot",
            "PetalBot",
        ] {
            assert!(documented_domains(bot).is_some(), "{bot}");
        }
        assert_eq!(documented_domains("DuckDuckBot"), None);
        assert_eq!(documented_domains("googlebot"), None);
        let ip = Some(IpAddr::from([192, 0, 2, 1]));
        let clients = [
            Client {
                ip,
                bot: "Googlebot",
                requests: 3,
            },
            Client {
                ip,
                bot: "DuckDuckBot",
                requests: 1,
            },
            Client {
                ip: None,
                bot: "Googlebot",
                requests: 1,
            },
        ];
        let report = Report::unchecked(&clients, Check::NotChecked);
        assert_eq!(
            report.checks,
            [Check::NotChecked, Check::NoCheck, Check::NoAddress]
        );
        assert_eq!(
            report.summary,
            Summary {
                no_check: 2,
                not_checked: 1,
                ..Summary::default()
            }
        );
        assert_eq!(report.summary.unverified(), 3);
    }

    #[test]
    fn outcomes_are_verified_fake_or_unverified() {
        assert_eq!(Check::Verified.outcome(), Outcome::Verified);
        for fake in [Check::NoName, Check::OtherDomain, Check::AddressMismatch] {
            assert_eq!(fake.outcome(), Outcome::Fake);
        }
        for unverified in [
            Check::NoAnswer,
            Check::NoCheck,
            Check::NoAddress,
            Check::OverLimit,
            Check::NotChecked,
        ] {
            assert_eq!(unverified.outcome(), Outcome::Unverified);
        }
    }
}
