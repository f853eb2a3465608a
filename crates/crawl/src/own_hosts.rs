//! The audit's own hosts, as its scope decides them, for readers of a stored audit: a
//! link to a host outside them is an external link.

use crate::scope::Scope;
use crate::{CrawlConfig, CrawlError};

/// The hosts an audit crawls: each start URL's host and its `www.` twin, their
/// subdomains when [`CrawlConfig::include_subdomains`] is on, the
/// [`CrawlConfig::extra_hosts`], and the hosts of the sitemaps the user named. Every
/// other host is another site (whatever its port; include / exclude patterns do not
/// make a URL of an own host external).
#[derive(Debug, Clone)]
pub struct OwnHosts(Option<Scope>);

impl OwnHosts {
    /// The own hosts of an audit crawled with `config`.
    pub fn new(config: &CrawlConfig) -> Result<Self, CrawlError> {
        Ok(Self(Some(Scope::new(config)?)))
    }

    /// The own hosts of a stored audit: its configuration's, with the IP addresses its
    /// hosts were put at (a `resolve` override's address, and what a start host resolved
    /// to when a run started); or its start URLs' hosts (with their `www.` twins) when
    /// that configuration cannot be read. A server that answers on its address serves
    /// the site again under that host (the crawl takes it in scope as the site's IP
    /// alias), so a link to `http://127.0.0.1:8480/` of an audit of
    /// `http://site.test:8480/` that resolves there is no link to another site.
    pub fn of_audit(row: &store::Audit) -> Self {
        crate::stored_config(row)
            .and_then(Self::with_addresses)
            .unwrap_or_else(|_| {
                let start_urls = row
                    .start_urls
                    .iter()
                    .filter(|u| url::Url::parse(u).is_ok())
                    .cloned()
                    .collect();
                Self(
                    Scope::new(&CrawlConfig {
                        start_urls,
                        ..CrawlConfig::default()
                    })
                    .ok(),
                )
            })
    }

    /// The own hosts of `config`, and the addresses its own hosts were put at.
    fn with_addresses(mut config: CrawlConfig) -> Result<Self, CrawlError> {
        let named = Self::new(&config)?;
        let host = |ip: std::net::IpAddr| match ip.to_canonical() {
            std::net::IpAddr::V4(v4) => v4.to_string(),
            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        };
        let overrides = config
            .resolve
            .iter()
            .filter_map(|entry| crate::parse_resolve(entry).ok())
            .map(|(name, at)| (name, at.ip()));
        let resolved = config
            .start_addresses
            .iter()
            .flat_map(|(name, ips)| ips.iter().map(move |&ip| (name.to_ascii_lowercase(), ip)));
        let aliases: Vec<String> = overrides
            .chain(resolved)
            .filter(|(name, _)| named.contains(name))
            .map(|(_, ip)| host(ip))
            .collect();
        if aliases.is_empty() {
            return Ok(named);
        }
        config.extra_hosts.extend(aliases);
        Self::new(&config)
    }

    /// Whether `host` (lower case, as `url::Url::host_str` writes it) is one of them.
    pub fn contains(&self, host: &str) -> bool {
        self.0.as_ref().is_some_and(|s| s.audited_host(host))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn start_hosts_and_their_twins_are_own_others_are_not() {
        let config = CrawlConfig {
            start_urls: vec!["https://example.test:8443/".into()],
            extra_hosts: vec!["cdn.example.net".into()],
            ..CrawlConfig::default()
        };
        let own = OwnHosts::new(&config).unwrap();
        assert!(own.contains("example.test"));
        assert!(own.contains("www.example.test"));
        assert!(own.contains("cdn.example.net"));
        assert!(!own.contains("blog.example.test"));
        assert!(!own.contains("other.test"));
        let subdomains = OwnHosts::new(&CrawlConfig {
            include_subdomains: true,
            ..config
        })
        .unwrap();
        assert!(subdomains.contains("blog.example.test"));
    }
}
