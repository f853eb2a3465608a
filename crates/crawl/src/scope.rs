//! What an audit may request: its scope, a set of origins (scheme, host, port), and the
//! one admission check that every request of the crawler passes, [`Guard::admit`]:
//! pages (through the frontier), redirects, robots.txt and its redirects, sitemaps (seeds,
//! index children, redirects) and DUST validation samples.
//!
//! * **Origins.** A start URL `https://example.com/` puts `example.com` and its `www.` twin
//!   in scope over http and https on the schemes' default ports (80, 443: a default port
//!   and no port are the same origin); a start URL with an explicit port
//!   (`http://example.test:8080/`) puts its hosts in scope on that port only, over both
//!   schemes. Subdomains ([`CrawlConfig::include_subdomains`]) and
//!   [`CrawlConfig::extra_hosts`] (`host` or `host:port`) follow the same port rule;
//!   [`CrawlConfig::any_port`] drops the port from the rule. Another port of an audited
//!   host is out of scope, whatever the route.
//! * **Sitemaps** may be elsewhere: a sitemap declared by the robots.txt of an audited
//!   origin (or named by the user) on another host is read (the protocol allows sitemaps
//!   on a CDN host), and so are its index children and redirects on that same origin;
//!   only the in-scope URLs it lists are crawled. Never on an audited host's other port,
//!   and never at an address the address policy refuses ([`crate::address`]).
//!
//! What is refused is recorded with the reason: as a skipped URL (`out_of_scope`) by the
//! frontier, in the sitemap's row (error and an issue of kind `out_of_scope` or
//! `address_refused`), in the robots.txt record's error, or as the sample's error kind.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use regex::Regex;
use url::{Host, Origin, Url};

use crate::address::AddressPolicy;
use crate::{CrawlConfig, CrawlError};

/// The host with and without a leading `www.` (none for IP addresses).
pub(crate) fn www_twin(host: &str) -> Option<String> {
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') || !host.contains('.') {
        return None;
    }
    Some(match host.strip_prefix("www.") {
        Some(bare) => bare.to_owned(),
        None => format!("www.{host}"),
    })
}

/// Which ports of a host are in scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ports {
    /// The scheme's default port (80 for http, 443 for https): a start URL without a port.
    Default,
    /// This port, over http and https.
    Explicit(u16),
}

impl Ports {
    fn of(url: &Url) -> Self {
        match url.port() {
            Some(p) => Ports::Explicit(p),
            None => Ports::Default,
        }
    }

    fn matches(self, url: &Url) -> bool {
        match self {
            // `url` drops a scheme's default port when parsing.
            Ports::Default => url.port().is_none(),
            Ports::Explicit(p) => url.port_or_known_default() == Some(p),
        }
    }
}

/// Which hosts a rule covers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hosts {
    /// Exactly this host (as `Url::host_str` writes it: lower case, IPv6 in brackets).
    Exact(String),
    /// Hosts ending with this (`.example.com`: subdomains).
    Suffix(String),
}

impl Hosts {
    fn matches(&self, host: &str) -> bool {
        match self {
            Hosts::Exact(h) => h == host,
            Hosts::Suffix(s) => host.ends_with(s.as_str()),
        }
    }
}

/// Splits an `extra_hosts` entry, `host` or `host:port` (IPv6 in brackets), into the host
/// as `Url::host_str` writes it and the port.
pub(crate) fn parse_extra_host(entry: &str) -> Result<(String, Option<u16>), CrawlError> {
    let bad = |why: &str| CrawlError::Config(format!("extra host {entry:?}: {why}"));
    let (host, port) = match entry.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && (!h.contains(':') || h.ends_with(']')) => {
            (h, Some(p.parse::<u16>().map_err(|_| bad("bad port"))?))
        }
        _ => (entry, None),
    };
    let host = Host::parse(host).map_err(|e| bad(&e.to_string()))?;
    Ok((host.to_string(), port))
}

/// The audit's scope: origins (see the module docs) and the include / exclude patterns.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    rules: Vec<(Hosts, Ports)>,
    any_port: bool,
    /// The origins of the sitemaps the user named: requested, not crawled.
    user_sitemaps: Vec<Origin>,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
}

impl Scope {
    pub(crate) fn new(config: &CrawlConfig) -> Result<Self, CrawlError> {
        let mut rules: Vec<(Hosts, Ports)> = Vec::new();
        let mut start_ports = Vec::new();
        for start in &config.start_urls {
            let url = Url::parse(start)
                .map_err(|e| CrawlError::Config(format!("start URL {start:?}: {e}")))?;
            let Some(host) = url.host_str() else { continue };
            let host = host.to_ascii_lowercase();
            let ports = Ports::of(&url);
            if !start_ports.contains(&ports) {
                start_ports.push(ports);
            }
            if let Some(twin) = www_twin(&host) {
                let bare = host.strip_prefix("www.").unwrap_or(&host).to_owned();
                if config.include_subdomains {
                    rules.push((Hosts::Suffix(format!(".{bare}")), ports));
                }
                rules.push((Hosts::Exact(twin), ports));
            }
            rules.push((Hosts::Exact(host), ports));
        }
        for entry in &config.extra_hosts {
            let (host, port) = parse_extra_host(&entry.to_ascii_lowercase())?;
            match port {
                Some(p) => rules.push((Hosts::Exact(host), Ports::Explicit(p))),
                None => {
                    for &ports in &start_ports {
                        rules.push((Hosts::Exact(host.clone()), ports));
                    }
                }
            }
        }
        let mut unique = Vec::with_capacity(rules.len());
        for rule in rules {
            if !unique.contains(&rule) {
                unique.push(rule);
            }
        }
        let user_sitemaps = config
            .sitemaps
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .map(|u| u.origin())
            .collect();
        let compile = |patterns: &[String]| -> Result<Vec<Regex>, CrawlError> {
            patterns
                .iter()
                .map(|p| {
                    Regex::new(p).map_err(|e| CrawlError::Config(format!("pattern {p:?}: {e}")))
                })
                .collect()
        };
        Ok(Self {
            rules: unique,
            any_port: config.any_port,
            user_sitemaps,
            include: compile(&config.include_patterns)?,
            exclude: compile(&config.exclude_patterns)?,
        })
    }

    /// Takes in, for each host of the scope, the server address its requests go to (what
    /// it resolved to when the run started, or a `--resolve` override) on the same
    /// ports, or on the override's port: a server that answers on its IP address serves
    /// the whole site again under another host, the `ip_host` URL variant. Only the
    /// audited hosts' own addresses, which the address policy already allows.
    pub(crate) fn add_ip_aliases(&mut self, policy: &AddressPolicy) {
        let mut aliases = Vec::new();
        for (hosts, ports) in &self.rules {
            let Hosts::Exact(name) = hosts else { continue };
            let Some((ip, port)) = policy.server_of(name) else {
                continue;
            };
            let host = match ip {
                std::net::IpAddr::V4(v4) => v4.to_string(),
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            };
            let ports = match (port, *ports) {
                (Some(p), Ports::Default) => Ports::Explicit(p),
                (_, ports) => ports,
            };
            let rule = (Hosts::Exact(host), ports);
            if !self.rules.contains(&rule) && !aliases.contains(&rule) {
                aliases.push(rule);
            }
        }
        self.rules.extend(aliases);
    }

    /// Whether `host` (as `Url::host_str` writes it) is audited, on any port: a host of
    /// the scope or of a sitemap the user named.
    pub(crate) fn audited_host(&self, host: &str) -> bool {
        self.rules.iter().any(|(h, _)| h.matches(host))
            || self.user_sitemaps.iter().any(|o| match o {
                Origin::Tuple(_, h, _) => h.to_string() == host,
                Origin::Opaque(_) => false,
            })
    }

    /// Whether `url`'s origin is in scope: an http(s) URL on an audited host and port.
    pub(crate) fn origin_in_scope(&self, url: &Url) -> bool {
        if !matches!(url.scheme(), "http" | "https") {
            return false;
        }
        let Some(host) = url.host_str() else {
            return false;
        };
        self.rules
            .iter()
            .any(|(h, p)| h.matches(host) && (self.any_port || p.matches(url)))
    }

    /// Whether `url`'s origin is one of the audit's own: in scope, or that of a sitemap
    /// the user named.
    pub(crate) fn own_origin(&self, url: &Url) -> bool {
        self.origin_in_scope(url) || self.user_sitemaps.contains(&url.origin())
    }

    /// Whether `url` is crawled: its origin is in scope, and it matches the include
    /// patterns (if any) and none of the exclude patterns.
    pub(crate) fn contains(&self, url: &Url) -> bool {
        self.origin_in_scope(url) && self.patterns_match(url)
    }

    /// Whether `url` matches the include patterns (if any) and none of the exclude ones.
    fn patterns_match(&self, url: &Url) -> bool {
        (self.include.is_empty() || self.include.iter().any(|r| r.is_match(url.as_str())))
            && !self.exclude.iter().any(|r| r.is_match(url.as_str()))
    }

    /// The include / exclude patterns alone (for URLs on the audit's origins by
    /// construction: the start URLs' scheme and `www.` variants).
    pub(crate) fn admit_patterns(&self, url: &Url) -> Result<(), Refusal> {
        if self.patterns_match(url) {
            Ok(())
        } else {
            Err(Refusal::out_of_scope(format!(
                "{url} does not match the include / exclude patterns"
            )))
        }
    }

    /// The scope half of the admission check (see [`Guard::admit`]).
    pub(crate) fn admit(&self, url: &Url, route: Route<'_>) -> Result<(), Refusal> {
        let admitted = match route {
            Route::Crawl => self.contains(url),
            Route::Fetch => self.origin_in_scope(url),
            Route::Sitemap { declared } => {
                if self.own_origin(url) {
                    true
                } else if url.host_str().is_some_and(|h| self.audited_host(h)) {
                    return Err(Refusal::out_of_scope(format!(
                        "{url} is on another port of an audited host, outside the audit's scope"
                    )));
                } else {
                    declared.is_some_and(|d| *d == url.origin())
                }
            }
        };
        if admitted {
            Ok(())
        } else {
            Err(Refusal::out_of_scope(format!(
                "{url} is outside the audit's scope"
            )))
        }
    }
}

/// What a request is for, which decides what the admission check asks of its URL.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'a> {
    /// A URL to crawl (a page found by a link, a redirect, a declaration, a sitemap
    /// entry) or a DUST sample: an in-scope origin and the include / exclude patterns.
    Crawl,
    /// A request on behalf of an in-scope URL already admitted (a queued page, its
    /// origin's robots.txt and that file's redirects): an in-scope origin.
    Fetch,
    /// A sitemap: an own origin (in scope, or a sitemap the user named), or the origin
    /// `declared` (that of a sitemap named by an audited origin's robots.txt or by the
    /// user, inherited by its index children and redirects) when it is not another port
    /// of an audited host.
    Sitemap {
        /// The origin the sitemap chain was declared on.
        declared: Option<&'a Origin>,
    },
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefusalKind {
    /// Outside the audit's scope.
    OutOfScope,
    /// At an address the address policy refuses.
    AddressRefused,
}

/// A request the admission check refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Why.
    pub kind: RefusalKind,
    /// What, in words (names the URL, never anything learnt by requesting it).
    pub message: String,
}

impl Refusal {
    pub(crate) fn out_of_scope(message: String) -> Self {
        Self {
            kind: RefusalKind::OutOfScope,
            message,
        }
    }

    pub(crate) fn address_refused(message: String) -> Self {
        Self {
            kind: RefusalKind::AddressRefused,
            message,
        }
    }

    /// The reason as stored: `out_of_scope` or `address_refused`.
    pub(crate) fn reason(&self) -> &'static str {
        match self.kind {
            RefusalKind::OutOfScope => store::FetchErrorKind::OutOfScope.as_str(),
            RefusalKind::AddressRefused => crate::address::ADDRESS_REFUSED,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: not requested", self.reason(), self.message)
    }
}

/// The admission check of a run (or of a batch of samples): the scope, the address
/// policy, and counts of what they refused.
#[derive(Debug)]
pub(crate) struct Guard {
    scope: Scope,
    policy: Arc<AddressPolicy>,
    scope_refused: AtomicU64,
}

impl Guard {
    /// The admission check of `scope` under `policy`; the scope takes in the server
    /// address of each audited host (see [`Scope::add_ip_aliases`]).
    pub(crate) fn new(mut scope: Scope, policy: Arc<AddressPolicy>) -> Self {
        scope.add_ip_aliases(&policy);
        Self {
            scope,
            policy,
            scope_refused: AtomicU64::new(0),
        }
    }

    /// The scope.
    pub(crate) fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The check every request passes before it is sent: the scope for `route`, then the
    /// address policy on what is known before connecting (an IP address in the URL, a
    /// `--resolve` override). The address a name resolves to is checked when connecting
    /// ([`crate::address::GuardedResolver`]). Refusals are counted.
    pub(crate) fn admit(&self, url: &Url, route: Route<'_>) -> Result<(), Refusal> {
        if let Err(refusal) = self.scope.admit(url, route) {
            self.scope_refused.fetch_add(1, Ordering::Relaxed);
            return Err(refusal);
        }
        self.policy.check_url(url, self.policy.own_origin(url))
    }

    /// Where the requests for the host `name` go, when known before connecting (see
    /// [`AddressPolicy::server_of`]).
    pub(crate) fn server_of(&self, name: &str) -> Option<crate::probe::Server> {
        let (ip, port) = self.policy.server_of(name)?;
        Some(crate::probe::Server { ip, port })
    }

    /// Requests refused by the scope so far.
    pub(crate) fn scope_refused(&self) -> u64 {
        self.scope_refused.load(Ordering::Relaxed)
    }

    /// Requests refused by the address policy so far (here and when connecting).
    pub(crate) fn address_refused(&self) -> u64 {
        self.policy.refused()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn scope(config: CrawlConfig) -> Scope {
        Scope::new(&config).unwrap()
    }

    #[test]
    fn scope_covers_the_www_twin_and_both_schemes_on_default_ports() {
        let s = scope(CrawlConfig::for_url("https://example.test/"));
        for inside in [
            "https://example.test/",
            "http://example.test/x",
            "https://www.example.test:443/x",
            "http://www.example.test:80/x",
        ] {
            assert!(s.origin_in_scope(&url(inside)), "{inside}");
        }
        for outside in [
            "https://blog.example.test/",
            "https://other.test/",
            "http://example.test:8080/",
            "https://example.test:80/",
            "ftp://example.test/",
        ] {
            assert!(!s.origin_in_scope(&url(outside)), "{outside}");
        }
        let sub = scope(CrawlConfig {
            include_subdomains: true,
            ..CrawlConfig::for_url("https://example.test/")
        });
        assert!(sub.origin_in_scope(&url("https://blog.example.test/")));
        assert!(!sub.origin_in_scope(&url("https://blog.example.test:8443/")));
    }

    #[test]
    fn an_explicit_port_is_the_only_port_of_the_scope() {
        let s = scope(CrawlConfig::for_url("http://127.0.0.1:8080/"));
        assert!(s.origin_in_scope(&url("http://127.0.0.1:8080/a")));
        assert!(s.origin_in_scope(&url("https://127.0.0.1:8080/a")));
        assert!(!s.origin_in_scope(&url("http://127.0.0.1/a")));
        assert!(!s.origin_in_scope(&url("http://127.0.0.1:8081/a")));
        assert!(s.audited_host("127.0.0.1"));
        let any = scope(CrawlConfig {
            any_port: true,
            ..CrawlConfig::for_url("http://127.0.0.1:8080/")
        });
        assert!(any.origin_in_scope(&url("http://127.0.0.1:22/")));
        assert!(!any.origin_in_scope(&url("http://127.0.0.2:8080/")));
    }

    #[test]
    fn extra_hosts_take_the_start_ports_or_their_own() {
        let s = scope(CrawlConfig {
            extra_hosts: vec!["CDN.example.test".into(), "[::1]:9000".into()],
            ..CrawlConfig::for_url("http://example.test:8080/")
        });
        assert!(s.origin_in_scope(&url("http://cdn.example.test:8080/")));
        assert!(!s.origin_in_scope(&url("http://cdn.example.test/")));
        assert!(s.origin_in_scope(&url("http://[::1]:9000/")));
        assert!(!s.origin_in_scope(&url("http://[::1]:8080/")));
        assert_eq!(
            parse_extra_host("[::1]:9000").unwrap(),
            ("[::1]".to_owned(), Some(9000))
        );
        assert_eq!(
            parse_extra_host("shop.test").unwrap(),
            ("shop.test".to_owned(), None)
        );
        assert!(parse_extra_host("shop.test:x").is_err());
    }

    #[test]
    fn sitemaps_may_be_declared_elsewhere_but_not_on_an_audited_hosts_other_port() {
        let s = scope(CrawlConfig {
            sitemaps: vec!["https://user.test/s.xml".into()],
            ..CrawlConfig::for_url("http://127.0.0.1:8080/")
        });
        let cdn = url("https://cdn.test/s.xml");
        let declared = cdn.origin();
        fn sitemap(declared: Option<&Origin>) -> Route<'_> {
            Route::Sitemap { declared }
        }
        assert!(s.admit(&cdn, sitemap(Some(&declared))).is_ok());
        assert!(s.admit(&cdn, sitemap(None)).is_err());
        assert!(
            s.admit(
                &url("https://cdn.test:8443/s.xml"),
                sitemap(Some(&declared))
            )
            .is_err()
        );
        assert!(
            s.admit(&url("http://127.0.0.1:8080/s.xml"), sitemap(None))
                .is_ok()
        );
        assert!(
            s.admit(&url("https://user.test/x.xml"), sitemap(None))
                .is_ok()
        );
        // Another port of an audited host, even declared there.
        for other in ["http://127.0.0.1:22/s.xml", "https://user.test:22/s.xml"] {
            let other = url(other);
            let origin = other.origin();
            let refusal = s.admit(&other, sitemap(Some(&origin))).unwrap_err();
            assert_eq!(refusal.reason(), "out_of_scope");
            assert!(refusal.message.contains("another port"), "{refusal}");
        }
        assert!(s.admit(&url("https://user.test/p"), Route::Crawl).is_err());
    }
}
