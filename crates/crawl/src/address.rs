//! The address policy: loopback, private (RFC 1918), shared (RFC 6598), link-local,
//! unique-local, multicast, unspecified, reserved and cloud metadata addresses are
//! reachable only for the audit's own origins, never for anything a site names.
//!
//! The audit's own origins are its scope's origins and those of the sitemaps the user
//! named (see [`crate::scope`]). Their own addresses are where the user put them: an IP
//! address in a start URL (or a named sitemap's URL), a `--resolve` override, or what a
//! start URL's host (or a named sitemap's) resolves to when the run starts. Then:
//!
//! * a host of the audit (a scope host, a named sitemap's host) may resolve to a
//!   non-public address only if it is one of the own addresses (a DNS answer cannot move
//!   the `www.` twin of a public site onto 127.0.0.1 or 169.254.169.254); a `--resolve`
//!   override of such a host is the user's word and holds;
//! * any other host (a cross-host sitemap's) may reach a non-public address only at an
//!   own socket address (IP and port): a `--resolve` override that puts a CDN name on the
//!   audited site's own server, an IP address that is the site's;
//! * a public address is always fine; so are the proxies of the environment
//!   (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`), which connect on our behalf.
//!
//! The check runs on the addresses the crawler connects to: the HTTP client's DNS
//! resolver is [`GuardedResolver`], which answers `--resolve` overrides and system DNS
//! alike and drops what the policy refuses (an empty answer is an error,
//! [`AddressRefused`], recorded as error kind `address_refused`), so a DNS answer cannot
//! bypass it. The resolver sees host names, not ports: the ports are the admission
//! check's ([`crate::scope::Guard::admit`]), which also checks what is known before
//! connecting (an IP address in the URL, which is never resolved, and overrides).

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::config::parse_resolve;
use crate::scope::{Refusal, Scope};
use crate::{CrawlConfig, CrawlError};

/// The error kind (and skip reason) of a request the address policy refused.
pub(crate) const ADDRESS_REFUSED: &str = "address_refused";

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

/// The address policy of a run (see the module docs).
#[derive(Debug)]
pub(crate) struct AddressPolicy {
    scope: Scope,
    /// `--resolve` overrides by host (the last entry for a host wins, as reqwest did).
    overrides: HashMap<String, SocketAddr>,
    /// Where the own origins are: IP and port.
    own: HashSet<SocketAddr>,
    /// Their IPs.
    own_ips: HashSet<IpAddr>,
    /// What the start URLs' and named sitemaps' host names resolved to when the run
    /// started (the first address of each).
    resolved: HashMap<String, IpAddr>,
    /// The proxies' host names (they connect for us).
    proxies: HashSet<String>,
    refused: AtomicU64,
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
    /// The policy for `config`: its own addresses come from the start URLs (and their
    /// scheme and `www.` variants), the sitemaps the user named and the overrides; the
    /// start URLs' and named sitemaps' hosts are resolved now (their non-public answers
    /// become own addresses).
    pub(crate) async fn new(config: &CrawlConfig, scope: Scope) -> Result<Self, CrawlError> {
        let mut overrides = HashMap::new();
        for entry in &config.resolve {
            let (host, addr) = parse_resolve(entry)?;
            overrides.insert(host, canonical(addr));
        }
        let mut policy = Self {
            scope,
            overrides,
            own: HashSet::new(),
            own_ips: HashSet::new(),
            resolved: HashMap::new(),
            proxies: proxy_hosts(),
            refused: AtomicU64::new(0),
        };
        let typed: Vec<Url> = config
            .start_urls
            .iter()
            .chain(&config.sitemaps)
            .filter_map(|s| Url::parse(s).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .collect();
        let variants: Vec<Url> = config
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
            let lookup = tokio::net::lookup_host((name, port));
            // Unresolvable now: no own address from it (its pages will fail the same way).
            if let Ok(Ok(addrs)) = tokio::time::timeout(config.connect_timeout(), lookup).await {
                for addr in addrs {
                    policy.own_at(addr);
                    policy
                        .resolved
                        .entry(name.to_owned())
                        .or_insert_with(|| addr.ip().to_canonical());
                }
            }
        }
        Ok(policy)
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
        if self.scope.audited_host(name) {
            // An override of an audited host is the user's word; a DNS answer must be
            // one of the own addresses.
            return self.overrides.contains_key(name) || self.own_ips.contains(&ip);
        }
        // Anything else only at an own address (the admission check checked the port:
        // an override of another name must put it on an own socket address).
        self.overrides.contains_key(name) && self.own_ips.contains(&ip)
    }
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
        None => tokio::net::lookup_host((host.as_str(), 0)).await?.collect(),
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
        let scope = Scope::new(&config).unwrap();
        AddressPolicy::new(&config, scope).await.unwrap()
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
