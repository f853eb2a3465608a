//! The address policy: loopback, private (RFC 1918), shared (RFC 6598), link-local,
//! unique-local, multicast, unspecified, reserved and cloud metadata addresses are
//! reachable only for the audit's own origins, never for anything a site or a list names.
//!
//! The audit's own origins are those the user typed (see [`trusted_config`]): a crawl's
//! start URLs and the sitemaps named with them; in a list audit only `--site`'s origin
//! and the listed hosts a `--resolve` override names (every listed origin with
//! [`CrawlConfig::allow_internal`]): a list (an access log, a sitemap, a crawler's
//! export) is data, not the user's word. Their own addresses are where the user put
//! them: an IP address in such a URL, a `--resolve` override, or what such a host name
//! resolves to when the run starts. A host name that resolves to a non-public address
//! needs [`CrawlConfig::allow_internal`] the first time, and a later run (a resume, an
//! audit started like this one) finds it at an address its earlier runs used
//! ([`CrawlConfig::start_addresses`]) or is refused ([`CrawlError::InternalAddress`]).
//! Then:
//!
//! * an own host may resolve to a non-public address only if it is one of the own
//!   addresses (a DNS answer cannot move the `www.` twin of a public site onto 127.0.0.1
//!   or 169.254.169.254); a `--resolve` override of such a host is the user's word and
//!   holds;
//! * any other host (a cross-host sitemap's, a listed origin's) may reach a non-public
//!   address only at an own socket address (IP and port): a `--resolve` override that
//!   puts a CDN name on the audited site's own server, an IP address that is the site's;
//! * a public address is always fine.
//!
//! The check runs on the addresses the crawler connects to: the HTTP client's DNS
//! resolver is [`GuardedResolver`], which answers `--resolve` overrides and system DNS
//! alike and drops what the policy refuses (an empty answer is an error,
//! [`AddressRefused`], recorded as error kind `address_refused`), so a DNS answer cannot
//! bypass it. The resolver sees host names, not ports: the ports are the admission
//! check's ([`crate::scope::Guard::admit`]), which also checks what is known before
//! connecting (an IP address in the URL, which is never resolved, and overrides).
//!
//! With a proxy configured (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`), the proxy resolves
//! the names it connects to, so the HTTP client's resolver never sees them: each request's
//! host name is then resolved here first and the policy applied to the answer
//! ([`AddressPolicy::check_proxied`]) before the request goes to the proxy. This is best
//! effort: the proxy may get another answer from its own DNS (split horizon, a name that
//! changed in between), and only a proxy that enforces its own policy closes that gap.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::config::parse_resolve;
use crate::scope::{Refusal, Scope};
use crate::{CrawlConfig, CrawlError};

/// The error kind (and skip reason) of a request the address policy refused.
pub(crate) const ADDRESS_REFUSED: &str = store::FetchErrorKind::AddressRefused.as_str();

/// Cloud metadata services on otherwise public addresses (Azure's wire server). The
/// others are in ranges refused anyway: 169.254.169.254 (AWS, GCP, Azure, OpenStack),
/// 169.254.170.2 (ECS), fd00:ec2::254 (AWS over IPv6), 100.100.100.200 (Alibaba),
/// 192.0.0.192 (Oracle).
const METADATA: [IpAddr; 1] = [IpAddr::V4(Ipv4Addr::new(168, 63, 129, 16))];

/// Whether `ip` is public: none of the ranges the policy refuses. IPv4 addresses
/// embedded in IPv6 ones (mapped, compatible, NAT64, 6to4) are judged as IPv4.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => public_v6(v6),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // "this network", 0.0.0.0 included
        || a == 10 // private
        || a == 127 // loopback
        || (a == 100 && (64..128).contains(&b)) // shared (CGNAT): 100.100.100.200 included
        || (a == 169 && b == 254) // link-local: 169.254.169.254 included
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments: 192.0.0.192 included
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 168) // private
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224; // multicast, reserved, broadcast
    !special && !METADATA.contains(&IpAddr::V4(ip))
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return public_v4(v4);
    }
    if s[..6] == [0; 6] {
        // ::, ::1 and the deprecated IPv4-compatible addresses.
        return false;
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64 (RFC 6052): judged by the IPv4 address it reaches.
        return public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        // 6to4: judged by the IPv4 address it embeds.
        return public_v4(embedded(s[1], s[2]));
    }
    let special = (s[0] & 0xfe00) == 0xfc00 // unique-local: fd00:ec2::254 included
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00 // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2001 && s[1] == 0) // Teredo
        || (s[0] == 0x0100 && s[1..4] == [0; 3]) // discard-only
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1); // local-use NAT64
    !special
}

/// The error of a name whose every address the policy refused.
#[derive(Debug, thiserror::Error)]
#[error("{host}: not a public address, nor one of the audit's own (address policy)")]
pub(crate) struct AddressRefused {
    host: String,
}

/// The error of a name that does not resolve: the resolver found no address for it.
#[derive(Debug, thiserror::Error)]
#[error("{host}: the name does not resolve ({reason})")]
pub(crate) struct NameNotResolved {
    host: String,
    reason: String,
}

/// The system resolver's addresses for `name` (`getaddrinfo`), except for the names
/// RFC 6761 reserves as never resolving (`invalid` and `*.invalid`), answered at once
/// without a lookup; no address is an error too.
async fn lookup(name: &str, port: u16) -> Result<Vec<SocketAddr>, NameNotResolved> {
    let not_resolved = |reason: String| NameNotResolved {
        host: name.to_owned(),
        reason,
    };
    let reserved = name.trim_end_matches('.');
    if reserved.eq_ignore_ascii_case("invalid")
        || reserved.to_ascii_lowercase().ends_with(".invalid")
    {
        return Err(not_resolved("a reserved name that never resolves".into()));
    }
    let found: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
        .await
        .map_err(|e| not_resolved(e.to_string()))?
        .collect();
    if found.is_empty() {
        return Err(not_resolved("no address".into()));
    }
    Ok(found)
}

/// Whether a name did not resolve (somewhere in the error's causes).
pub(crate) fn name_not_resolved(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.downcast_ref::<NameNotResolved>().is_some() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// The address policy of a run (see the module docs).
#[derive(Debug)]
pub(crate) struct AddressPolicy {
    /// The audit's own origins (the scope of [`trusted_config`]).
    trusted: Scope,
    /// `--resolve` overrides by host (the last entry for a host wins, as reqwest did).
    overrides: HashMap<String, SocketAddr>,
    /// Where the own origins are: IP and port.
    own: HashSet<SocketAddr>,
    /// Their IPs.
    own_ips: HashSet<IpAddr>,
    /// What the own host names resolved to when the run started (the first address of
    /// each).
    resolved: HashMap<String, IpAddr>,
    /// Every address each own host name resolved to when the run started.
    looked_up: BTreeMap<String, Vec<IpAddr>>,
    /// The proxies' host names (they connect for us).
    proxies: HashSet<String>,
    refused: AtomicU64,
}

/// The origins of `config` whose addresses are the user's choice, as a configuration
/// (start URLs, named sitemaps, extra hosts and the scope flags; nothing else set): a
/// crawl's start URLs and sitemaps; in a list audit, `--site`'s origin and the listed
/// origins and sitemaps whose host a `--resolve` override names, or all of them with
/// [`CrawlConfig::allow_internal`].
pub(crate) fn trusted_config(config: &CrawlConfig) -> CrawlConfig {
    let mut trusted = CrawlConfig {
        include_subdomains: config.include_subdomains,
        extra_hosts: config.extra_hosts.clone(),
        any_port: config.any_port,
        ..CrawlConfig::default()
    };
    match &config.list {
        Some(list) if !config.allow_internal => {
            let overridden: HashSet<String> = config
                .resolve
                .iter()
                .filter_map(|e| parse_resolve(e).ok())
                .map(|(host, _)| host)
                .collect();
            let named = |s: &&String| {
                Url::parse(s)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .is_some_and(|h| overridden.contains(&h))
            };
            trusted.start_urls = list
                .site
                .iter()
                .chain(config.start_urls.iter().filter(named))
                .cloned()
                .collect();
            trusted.sitemaps = config.sitemaps.iter().filter(named).cloned().collect();
        }
        _ => {
            trusted.start_urls = config.start_urls.clone();
            trusted.sitemaps = config.sitemaps.clone();
        }
    }
    trusted
}

fn canonical(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(addr.ip().to_canonical(), addr.port())
}

/// The port a request for `url` connects to when its host is overridden by `addr`: the
/// URL's, else the override's (unless 0), else the scheme's default. (What reqwest's
/// connector does with a resolver's answer.)
fn connect_port(url: &Url, addr: SocketAddr) -> u16 {
    match url.port() {
        Some(p) => p,
        None if addr.port() != 0 => addr.port(),
        None => url.port_or_known_default().unwrap_or(0),
    }
}

/// The host names of the proxies the environment configures (reqwest uses them).
fn proxy_hosts() -> HashSet<String> {
    [
        "ALL_PROXY",
        "all_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
    ]
    .iter()
    .filter_map(|var| std::env::var(var).ok())
    .filter_map(|value| {
        let value = value.trim();
        let value = if value.contains("://") {
            value.to_owned()
        } else {
            format!("http://{value}")
        };
        Some(Url::parse(&value).ok()?.host_str()?.to_ascii_lowercase())
    })
    .collect()
}

impl AddressPolicy {
    /// The policy for `config`: its own addresses come from the own origins
    /// ([`trusted_config`]: their scheme and `www.` variants too) and the overrides; the
    /// own host names are resolved now (their non-public answers become own addresses,
    /// if allowed: see [`check_start_addresses`](Self::check_start_addresses)).
    pub(crate) async fn new(config: &CrawlConfig) -> Result<Self, CrawlError> {
        let trusted = trusted_config(config);
        let mut overrides = HashMap::new();
        for entry in &config.resolve {
            let (host, addr) = parse_resolve(entry)?;
            overrides.insert(host, canonical(addr));
        }
        let mut policy = Self {
            trusted: Scope::new(&trusted)?,
            overrides,
            own: HashSet::new(),
            own_ips: HashSet::new(),
            resolved: HashMap::new(),
            looked_up: BTreeMap::new(),
            proxies: proxy_hosts(),
            refused: AtomicU64::new(0),
        };
        let typed: Vec<Url> = trusted
            .start_urls
            .iter()
            .chain(&trusted.sitemaps)
            .filter_map(|s| Url::parse(s).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .collect();
        let variants: Vec<Url> = trusted
            .start_urls
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .flat_map(|u| crate::run::variants(&u))
            .collect();
        let mut lookups = Vec::new();
        for url in typed.iter().chain(&variants) {
            let Some(port) = url.port_or_known_default() else {
                continue;
            };
            match url.host() {
                Some(Host::Ipv4(ip)) => policy.own_at(SocketAddr::new(IpAddr::V4(ip), port)),
                Some(Host::Ipv6(ip)) => policy.own_at(SocketAddr::new(IpAddr::V6(ip), port)),
                Some(Host::Domain(name)) => {
                    if let Some(addr) = policy.overrides.get(name).copied() {
                        policy.own_at(SocketAddr::new(addr.ip(), connect_port(url, addr)));
                    } else if typed.contains(url) && !lookups.contains(&(name, port)) {
                        lookups.push((name, port));
                    }
                }
                None => {}
            }
        }
        for (name, port) in lookups {
            let lookup = lookup(name, port);
            // Unresolvable now: no own address from it (its pages will fail the same way).
            if let Ok(Ok(addrs)) = tokio::time::timeout(config.connect_timeout(), lookup).await {
                let addrs: Vec<SocketAddr> = addrs.into_iter().map(canonical).collect();
                check_start_addresses(config, name, &addrs)?;
                for addr in addrs {
                    policy.own_at(addr);
                    policy.resolved.entry(name.to_owned()).or_insert(addr.ip());
                    let ips = policy.looked_up.entry(name.to_owned()).or_default();
                    if !ips.contains(&addr.ip()) {
                        ips.push(addr.ip());
                    }
                }
            }
        }
        Ok(policy)
    }

    /// Every address each own host name resolved to when the run started, merged into
    /// `known` (the audit's [`CrawlConfig::start_addresses`]); `None` when nothing is new.
    pub(crate) fn start_addresses(
        &self,
        known: &BTreeMap<String, Vec<IpAddr>>,
    ) -> Option<BTreeMap<String, Vec<IpAddr>>> {
        let mut merged = known.clone();
        for (name, ips) in &self.looked_up {
            let entry = merged.entry(name.clone()).or_default();
            for ip in ips {
                if !entry.contains(ip) && entry.len() < crate::MAX_START_ADDRESSES {
                    entry.push(*ip);
                }
            }
        }
        (merged != *known).then_some(merged)
    }

    /// Whether the environment configures a proxy (see the module docs).
    pub(crate) fn proxied(&self) -> bool {
        !self.proxies.is_empty()
    }

    /// With a proxy, the policy on `url`'s host name before the request goes to the
    /// proxy: the name resolved here (overrides first, as the resolver does) and its
    /// answer checked; a name that does not resolve here is refused unless it is an own
    /// host (the proxy's DNS may know names this machine does not, an intranet's
    /// included). Best effort (see the module docs).
    pub(crate) async fn check_proxied(self: &Arc<Self>, url: &Url) -> Result<(), String> {
        let Some(Host::Domain(name)) = url.host() else {
            // IP addresses were checked by the admission check.
            return Ok(());
        };
        let name = name.to_ascii_lowercase();
        if self.proxies.contains(&name) {
            return Ok(());
        }
        match resolve(Arc::clone(self), name.clone()).await {
            Ok(_) => Ok(()),
            Err(e) if e.downcast_ref::<AddressRefused>().is_some() => Err(e.to_string()),
            Err(_) if self.trusted.audited_host(&name) => Ok(()),
            Err(e) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                Err(format!(
                    "{name}: not resolved here ({e}), so its address cannot be checked before the request goes to the proxy (address policy)"
                ))
            }
        }
    }

    /// Whether `url`'s origin is one of the audit's own ([`trusted_config`]).
    pub(crate) fn own_origin(&self, url: &Url) -> bool {
        self.trusted.own_origin(url)
    }

    fn own_at(&mut self, addr: SocketAddr) {
        let addr = canonical(addr);
        self.own.insert(addr);
        self.own_ips.insert(addr.ip());
    }

    /// Where requests for the host `name` go, when known before connecting: a
    /// `--resolve` override's address and port (`None`: the URL's own), else the address
    /// it resolved to when the run started.
    pub(crate) fn server_of(&self, name: &str) -> Option<(IpAddr, Option<u16>)> {
        match self.overrides.get(name) {
            Some(a) => Some((a.ip(), (a.port() != 0).then_some(a.port()))),
            None => self.resolved.get(name).map(|&ip| (ip, None)),
        }
    }

    /// Requests refused so far.
    pub(crate) fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    fn refuse(&self, url: &Url) -> Refusal {
        self.refused.fetch_add(1, Ordering::Relaxed);
        Refusal::address_refused(format!(
            "{url} is at an address that is not public, nor one of the audit's own"
        ))
    }

    /// The address half of the admission check, on what is known before connecting:
    /// an IP address in the URL (never resolved) or a `--resolve` override. `own`: the
    /// URL's origin is one of the audit's own (whose addresses the user chose).
    pub(crate) fn check_url(&self, url: &Url, own: bool) -> Result<(), Refusal> {
        let at = |ip: IpAddr, port: u16| {
            let ip = ip.to_canonical();
            is_public(ip) || own || self.own.contains(&SocketAddr::new(ip, port))
        };
        let port = url.port_or_known_default().unwrap_or(0);
        let allowed = match url.host() {
            Some(Host::Ipv4(ip)) => at(IpAddr::V4(ip), port),
            Some(Host::Ipv6(ip)) => at(IpAddr::V6(ip), port),
            Some(Host::Domain(name)) => match self.overrides.get(name) {
                Some(addr) => at(addr.ip(), connect_port(url, *addr)),
                // A proxy's own address is not for a site to name.
                None => own || !self.proxies.contains(name),
            },
            None => true,
        };
        if allowed {
            Ok(())
        } else {
            Err(self.refuse(url))
        }
    }

    /// Whether a connection for host `name` may go to `ip` (the resolver's check).
    fn allows(&self, name: &str, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        if is_public(ip) || self.proxies.contains(name) {
            return true;
        }
        if self.trusted.audited_host(name) {
            // An override of an audited host is the user's word; a DNS answer must be
            // one of the own addresses.
            return self.overrides.contains_key(name) || self.own_ips.contains(&ip);
        }
        // Anything else only at an own address (the admission check checked the port:
        // an override of another name must put it on an own socket address).
        self.overrides.contains_key(name) && self.own_ips.contains(&ip)
    }
}

/// Whether own host `name`, resolved to `addrs`, may be audited there: a non-public
/// address needs [`CrawlConfig::allow_internal`] when the audit's earlier runs did not
/// resolve the name, and must be one they used when they did.
fn check_start_addresses(
    config: &CrawlConfig,
    name: &str,
    addrs: &[SocketAddr],
) -> Result<(), CrawlError> {
    let known = config.start_addresses.get(name);
    for addr in addrs {
        let ip = addr.ip();
        if is_public(ip) {
            continue;
        }
        let allowed = match known {
            Some(known) => known.contains(&ip),
            None => config.allow_internal,
        };
        if !allowed {
            return Err(CrawlError::InternalAddress {
                host: name.to_owned(),
                address: ip,
                known: known.cloned().unwrap_or_default(),
            });
        }
    }
    Ok(())
}

/// The HTTP client's DNS resolver: `--resolve` overrides, else the system's resolver
/// (`getaddrinfo`, as reqwest's default), then the address policy on every answer.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver(pub(crate) Arc<AddressPolicy>);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(resolve(
            Arc::clone(&self.0),
            name.as_str().to_ascii_lowercase(),
        ))
    }
}

async fn resolve(
    policy: Arc<AddressPolicy>,
    host: String,
) -> Result<Addrs, Box<dyn std::error::Error + Send + Sync>> {
    let found: Vec<SocketAddr> = match policy.overrides.get(&host) {
        Some(addr) => vec![*addr],
        None => lookup(&host, 0).await?,
    };
    let allowed: Vec<SocketAddr> = found
        .iter()
        .copied()
        .filter(|a| policy.allows(&host, a.ip()))
        .collect();
    if allowed.is_empty() && !found.is_empty() {
        policy.refused.fetch_add(1, Ordering::Relaxed);
        return Err(Box::new(AddressRefused { host }));
    }
    Ok(Box::new(allowed.into_iter()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn special_ranges_and_metadata_addresses_are_not_public() {
        for special in [
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "100.100.100.200",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "169.254.170.2",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.192",
            "192.168.1.1",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "168.63.129.16",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
        ] {
            assert!(!is_public(ip(special)), "{special}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.0.1",
            "172.32.0.1",
            "93.184.216.34",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(is_public(ip(public)), "{public}");
        }
    }

    async fn policy(config: CrawlConfig) -> AddressPolicy {
        AddressPolicy::new(&config).await.unwrap()
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[tokio::test]
    async fn an_audit_on_loopback_owns_exactly_its_origins() {
        let p = policy(CrawlConfig {
            resolve: vec![
                "example.test:8080:127.0.0.1".into(),
                "cdn.test:8080:127.0.0.1".into(),
                "internal.test:9000:127.0.0.1".into(),
            ],
            ..CrawlConfig::for_url("http://example.test:8080/")
        })
        .await;
        let check = |u: &str, own: bool| p.check_url(&url(u), own).is_ok();
        assert!(check("http://example.test:8080/", true));
        // A CDN name the user put on the site's own server, on its port.
        assert!(check("http://cdn.test/s.xml", false));
        assert!(check("http://cdn.test:8080/s.xml", false));
        assert!(!check("http://cdn.test:9000/s.xml", false));
        assert!(!check("http://internal.test/s.xml", false));
        assert!(!check("http://internal.test:9000/s.xml", false));
        assert!(check("http://127.0.0.1:8080/s.xml", false));
        assert!(!check("http://127.0.0.1:9000/s.xml", false));
        assert!(!check("http://[::1]:8080/s.xml", false));
        assert!(!check("http://169.254.169.254/latest/meta-data/", false));
        assert!(check("http://93.184.216.34/s.xml", false));
        // Names left to DNS: the resolver decides.
        assert!(check("http://cdn.example.net/s.xml", false));
        assert_eq!(p.refused(), 6);

        // The resolver: the audited hosts' overrides hold; a DNS answer for an audited
        // host must be an own address; other names get public addresses only.
        assert!(p.allows("example.test", ip("127.0.0.1")));
        assert!(p.allows("www.example.test", ip("127.0.0.1")));
        assert!(!p.allows("www.example.test", ip("127.0.0.2")));
        assert!(!p.allows("www.example.test", ip("169.254.169.254")));
        assert!(!p.allows("localhost", ip("127.0.0.1")));
        assert!(!p.allows("metadata.google.internal", ip("169.254.169.254")));
        assert!(p.allows("localhost", ip("8.8.8.8")));
        assert!(p.allows("cdn.test", ip("127.0.0.1")));
    }

    #[tokio::test]
    async fn a_public_site_owns_no_special_address() {
        // A public address (an override: no DNS query from the tests).
        let p = policy(CrawlConfig {
            resolve: vec!["example.test:443:93.184.216.34".into()],
            ..CrawlConfig::for_url("https://example.test/")
        })
        .await;
        assert!(p.own_ips.iter().all(|ip| is_public(*ip)), "{:?}", p.own);
        // Its www twin moved onto loopback or the metadata service by DNS: refused.
        for special in ["127.0.0.1", "::1", "169.254.169.254", "10.0.0.1"] {
            assert!(!p.allows("www.example.test", ip(special)), "{special}");
        }
        assert!(p.allows("www.example.test", ip("93.184.216.35")));
        assert!(
            p.check_url(&url("http://127.0.0.1/"), false).is_err(),
            "an address in a URL is checked before connecting"
        );
    }

    #[tokio::test]
    async fn a_list_owns_only_its_site_and_the_hosts_the_user_resolved() {
        let listed = |url: &str| crate::ListedUrl {
            url: url.into(),
            ..crate::ListedUrl::default()
        };
        let mut config = CrawlConfig {
            resolve: vec!["example.test:8080:127.0.0.1".into()],
            sitemaps: vec![
                "http://127.0.0.2:9000/child.xml".into(),
                "http://example.test:8080/s.xml".into(),
            ],
            ..CrawlConfig::default()
        };
        config.set_list(crate::ListMode {
            urls: vec![
                listed("http://example.test:8080/a"),
                listed("http://127.0.0.2:9000/latest/meta-data/"),
                listed("http://user@127.0.0.2.:9000/x"),
                listed("http://127.0.0.3:8080/y"),
            ],
            site: Some("http://127.0.0.4:7000/".into()),
            ..crate::ListMode::default()
        });
        let trusted = trusted_config(&config);
        assert_eq!(
            (trusted.start_urls.as_slice(), trusted.sitemaps.as_slice()),
            (
                &[
                    "http://127.0.0.4:7000/".to_owned(),
                    "http://example.test:8080/".to_owned()
                ][..],
                &["http://example.test:8080/s.xml".to_owned()][..]
            )
        );
        let p = policy(config.clone()).await;
        let check = |u: &str| p.check_url(&url(u), p.own_origin(&url(u))).is_ok();
        assert!(check("http://example.test:8080/a"));
        assert!(check("http://127.0.0.4:7000/log-path"));
        for internal in [
            "http://127.0.0.2:9000/latest/meta-data/",
            "http://user@127.0.0.2.:9000/x",
            "http://%31%32%37.0.0.2:9000/x",
            "http://\u{ff11}\u{ff12}\u{ff17}.0.0.2:9000/x",
            "http://127.0.0.2:9000/child.xml",
            "http://127.0.0.3:8080/y",
        ] {
            assert!(!check(internal), "{internal}");
        }
        // A listed host's DNS answer is no own address.
        assert!(!p.allows("internal.test", ip("10.0.0.1")));
        // With the opt-in, the listed origins are the audit's own, as before.
        let open = policy(CrawlConfig {
            allow_internal: true,
            ..config
        })
        .await;
        assert!(
            open.check_url(
                &url("http://127.0.0.2:9000/a"),
                open.own_origin(&url("http://127.0.0.2:9000/a"))
            )
            .is_ok()
        );
    }

    #[test]
    fn a_start_host_on_a_non_public_address_needs_the_opt_in_or_its_earlier_address() {
        let at = |s: &str| vec![SocketAddr::new(ip(s), 443)];
        let config = CrawlConfig::for_url("https://staging.test/");
        assert!(check_start_addresses(&config, "staging.test", &at("93.184.216.34")).is_ok());
        let error = check_start_addresses(&config, "staging.test", &at("10.0.0.5")).unwrap_err();
        assert!(error.to_string().contains("--allow-internal"), "{error}");
        let allowed = CrawlConfig {
            allow_internal: true,
            ..config.clone()
        };
        assert!(check_start_addresses(&allowed, "staging.test", &at("10.0.0.5")).is_ok());
        // Later runs: the address the audit used, and nothing else, even when allowed
        // at the start.
        let used = CrawlConfig {
            start_addresses: [("staging.test".to_owned(), vec![ip("10.0.0.5")])].into(),
            ..allowed
        };
        assert!(check_start_addresses(&used, "staging.test", &at("10.0.0.5")).is_ok());
        let moved = check_start_addresses(&used, "staging.test", &at("10.0.0.9")).unwrap_err();
        assert!(
            moved.to_string().contains("now resolves to 10.0.0.9")
                && moved.to_string().contains("10.0.0.5"),
            "{moved}"
        );
        let public_before = CrawlConfig {
            start_addresses: [("staging.test".to_owned(), vec![ip("93.184.216.34")])].into(),
            ..config
        };
        assert!(
            check_start_addresses(&public_before, "staging.test", &at("169.254.169.254")).is_err()
        );
    }

    #[tokio::test]
    async fn the_resolver_answers_overrides_and_refuses_with_a_recognisable_error() {
        let config = CrawlConfig {
            resolve: vec!["example.test:8080:127.0.0.1".into()],
            ..CrawlConfig::for_url("http://example.test:8080/")
        };
        let p = Arc::new(policy(config).await);
        let resolver = GuardedResolver(Arc::clone(&p));
        let addrs: Vec<SocketAddr> = resolver
            .resolve("example.test".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert_eq!(addrs, ["127.0.0.1:8080".parse().unwrap()]);
        let Err(error) = resolver.resolve("localhost".parse().unwrap()).await else {
            panic!("localhost resolved");
        };
        assert!(error.downcast_ref::<AddressRefused>().is_some(), "{error}");
        assert_eq!(p.refused(), 1);
    }
}
