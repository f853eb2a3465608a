//! The crawl configuration from a user's options: one builder that `dustpan audit`,
//! `dustpan learn` and the desktop app's start form all go through. Each front end only
//! maps what the user gave (command-line flags, a start request) into [`CrawlOptions`].

use crate::error::ViewError;
use crate::open::AnalysisPolicy;
use crate::types::StartAuditRequest;
use crawl::CrawlConfig;

/// What a user may set of a crawl. `None` (or an empty list, or `false`) leaves the base
/// configuration's value: the defaults, a configuration file's, or a stored audit's.
#[derive(Clone, Debug, Default)]
pub struct CrawlOptions {
    /// The start URL: replaces the base's start URLs. A bare host name (`example.com`)
    /// is audited over https ([`crawl::start_url`]).
    pub url: Option<String>,
    /// More start URLs, after the base's (or [`url`](Self::url)).
    pub more_urls: Vec<String>,
    /// Stop admitting new URLs after this many.
    pub max_urls: Option<u64>,
    /// Most link hops from a start URL.
    pub max_depth: Option<u32>,
    /// Requests in flight at once (at least one).
    pub concurrency: Option<usize>,
    /// Most requests per second to one host.
    pub requests_per_second: Option<f64>,
    /// Obey robots.txt.
    pub obey_robots: Option<bool>,
    /// Follow links marked rel=nofollow.
    pub follow_nofollow: Option<bool>,
    /// Follow the links of pages whose robots directives say nofollow.
    pub follow_nofollow_pages: Option<bool>,
    /// The User-Agent header.
    pub user_agent: Option<String>,
    /// Crawl subdomains of the start hosts too.
    pub include_subdomains: bool,
    /// Crawl every port of the start hosts.
    pub any_port: bool,
    /// Only crawl URLs matching one of these regular expressions (added to the base's).
    pub includes: Vec<String>,
    /// Do not crawl URLs matching these regular expressions (added to the base's).
    pub excludes: Vec<String>,
    /// More sitemaps to read.
    pub sitemaps: Vec<String>,
    /// `host:port:address` overrides, as curl's `--resolve` (each checked here).
    pub resolve: Vec<String>,
    /// More trusted certificate authorities (PEM text).
    pub ca_pems: Vec<String>,
    /// Learn DUST rules during the crawl.
    pub learn_dust: Option<bool>,
    /// Give up on a request after this many seconds.
    pub timeout_secs: Option<u64>,
    /// Read at most this many bytes of a response body.
    pub max_response_bytes: Option<u64>,
    /// URLs admitted per numeric path pattern.
    pub trap_budget: Option<u64>,
    /// Filter combinations crawled per path.
    pub facet_budget: Option<u64>,
    /// Most bytes the audit may store.
    pub max_db_bytes: Option<u64>,
    /// Most time one run may crawl, in milliseconds.
    pub max_duration_ms: Option<u64>,
    /// The slow-host cut-off, in seconds of median response time.
    pub slow_host_secs: Option<u64>,
    /// Probe URL variants once the crawl is done.
    pub probe_variants: Option<bool>,
    /// Site sections the probes sample.
    pub probe_samples: Option<u32>,
    /// Learned rules carried in from an earlier audit.
    pub learned_rules: Option<audit::LearnedRules>,
    /// Hosts at non-public addresses may be audited.
    pub allow_internal: bool,
    /// The normalization policy the audit is analysed under (stored with it).
    pub policy: Option<AnalysisPolicy>,
    /// Render pages in Chromium (the base's rendering settings, else the defaults);
    /// `Some(false)` renders nothing. Refused when Chromium is not installed.
    pub render: Option<bool>,
}

/// A start URL the builder rewrote: a bare host name given without a scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewritten {
    /// What was given.
    pub typed: String,
    /// The URL audited.
    pub url: String,
}

impl CrawlOptions {
    /// The options of the app's start request; `ca_pems` are the extra certificate
    /// authorities the app trusts. Blank text fields count as not given.
    pub fn from_request(req: &StartAuditRequest, ca_pems: &[String]) -> CrawlOptions {
        let given = |s: &str| {
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_owned())
        };
        CrawlOptions {
            url: given(&req.url),
            max_urls: req.max_urls.map(u64::from),
            max_depth: req.max_depth,
            concurrency: req.concurrency.map(|n| n as usize),
            obey_robots: Some(req.respect_robots),
            user_agent: req.user_agent.as_deref().and_then(given),
            resolve: req.resolve.iter().filter_map(|r| given(r)).collect(),
            ca_pems: ca_pems.to_vec(),
            allow_internal: req.allow_internal,
            includes: req.includes.iter().filter_map(|p| given(p)).collect(),
            excludes: req.excludes.iter().filter_map(|p| given(p)).collect(),
            follow_nofollow: req.follow_nofollow,
            probe_variants: req.probe_variants,
            requests_per_second: req.requests_per_second,
            render: Some(req.render),
            ..CrawlOptions::default()
        }
    }

    /// Sets what these options give on `config` (start URLs included, as given).
    pub fn apply(&self, config: &mut CrawlConfig) -> Result<(), ViewError> {
        if let Some(url) = &self.url {
            config.start_urls = vec![url.clone()];
        }
        config.start_urls.extend(self.more_urls.iter().cloned());
        set(&mut config.max_urls, self.max_urls);
        set(&mut config.max_depth, self.max_depth);
        set(&mut config.concurrency, self.concurrency.map(|n| n.max(1)));
        set(&mut config.requests_per_second, self.requests_per_second);
        set(&mut config.obey_robots, self.obey_robots);
        set(&mut config.follow_nofollow, self.follow_nofollow);
        set(
            &mut config.follow_nofollow_pages,
            self.follow_nofollow_pages,
        );
        set(&mut config.user_agent, self.user_agent.clone());
        config.include_subdomains |= self.include_subdomains;
        config.any_port |= self.any_port;
        config
            .include_patterns
            .extend(self.includes.iter().cloned());
        config
            .exclude_patterns
            .extend(self.excludes.iter().cloned());
        config.sitemaps.extend(self.sitemaps.iter().cloned());
        for entry in &self.resolve {
            crawl::parse_resolve(entry)?;
            config.resolve.push(entry.clone());
        }
        config
            .extra_root_certs_pem
            .extend(self.ca_pems.iter().cloned());
        set(&mut config.learn_dust, self.learn_dust);
        set(
            &mut config.total_timeout_ms,
            self.timeout_secs.map(|s| s.saturating_mul(1000)),
        );
        set(&mut config.max_response_bytes, self.max_response_bytes);
        set(&mut config.trap_pattern_budget, self.trap_budget);
        set(&mut config.facet_budget, self.facet_budget);
        set(&mut config.max_db_bytes, self.max_db_bytes);
        set(&mut config.max_duration_ms, self.max_duration_ms);
        set(
            &mut config.slow_host_ms,
            self.slow_host_secs.map(|s| s.saturating_mul(1000)),
        );
        set(&mut config.probe_variants, self.probe_variants);
        set(&mut config.probe_samples, self.probe_samples);
        if let Some(rules) = &self.learned_rules {
            config.learned_rules = Some(rules.clone());
        }
        config.allow_internal |= self.allow_internal;
        if let Some(policy) = &self.policy {
            config.policy = policy.clone().into();
        }
        match self.render {
            Some(true) => {
                let render = config.render.get_or_insert_with(Default::default);
                render
                    .settings()
                    .check()
                    .map_err(|e| ViewError::Invalid(format!("Render with Chromium: {e}")))?;
            }
            Some(false) => config.render = None,
            None => {}
        }
        Ok(())
    }

    /// The configuration of a crawl: these options over `base`, its start URLs made
    /// URLs (a bare host name is audited over https; each one rewritten is answered so
    /// the front end can say so), checked. A crawl needs a start URL.
    pub fn crawl(&self, base: CrawlConfig) -> Result<(CrawlConfig, Vec<Rewritten>), ViewError> {
        let mut config = base;
        self.apply(&mut config)?;
        if config.start_urls.iter().all(|u| u.trim().is_empty()) {
            return Err(ViewError::Invalid("enter the URL to audit".into()));
        }
        let typed = config.start_urls.clone();
        config.normalize_start_urls();
        let rewritten = typed
            .into_iter()
            .zip(&config.start_urls)
            .filter(|(typed, url)| typed.trim() != url.as_str())
            .map(|(typed, url)| Rewritten {
                typed,
                url: url.clone(),
            })
            .collect();
        config.validate()?;
        Ok((config, rewritten))
    }
}

/// Why pages cannot be rendered in Chromium on this machine with the default settings
/// (the check a crawl that renders makes before it starts); `None` when they can.
pub fn render_unavailable() -> Option<String> {
    crawl::RenderConfig::default()
        .settings()
        .check()
        .err()
        .map(|e| e.to_string())
}

/// Sets `field` to `value` when one is given.
fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn request(url: &str) -> StartAuditRequest {
        StartAuditRequest {
            url: url.into(),
            max_urls: Some(10),
            max_depth: Some(2),
            concurrency: Some(0),
            respect_robots: false,
            user_agent: Some("  ".into()),
            preset: None,
            policy_file: None,
            resolve: vec![" ".into(), "example.test:443:127.0.0.1".into()],
            allow_internal: true,
            includes: vec![r"^https://example\.test/blog/".into(), " ".into()],
            excludes: vec![r"\?replytocom=".into()],
            follow_nofollow: Some(false),
            probe_variants: Some(false),
            requests_per_second: Some(2.5),
            render: false,
        }
    }

    /// The app's request and the command line's flags for the same crawl give the same
    /// configuration.
    #[test]
    fn a_request_and_its_flags_build_one_configuration() {
        let (from_app, _) = CrawlOptions::from_request(&request("example.test"), &[])
            .crawl(CrawlConfig::default())
            .unwrap();
        let flags = CrawlOptions {
            url: Some("example.test".into()),
            max_urls: Some(10),
            max_depth: Some(2),
            concurrency: Some(0),
            obey_robots: Some(false),
            resolve: vec!["example.test:443:127.0.0.1".into()],
            allow_internal: true,
            includes: vec![r"^https://example\.test/blog/".into()],
            excludes: vec![r"\?replytocom=".into()],
            follow_nofollow: Some(false),
            probe_variants: Some(false),
            requests_per_second: Some(2.5),
            render: Some(false),
            ..CrawlOptions::default()
        };
        let (from_cli, rewritten) = flags.crawl(CrawlConfig::default()).unwrap();
        assert_eq!(from_app, from_cli);
        // The form's crawl settings reach the configuration stored with the audit.
        assert_eq!(from_app.exclude_patterns, [r"\?replytocom="]);
        assert_eq!(from_app.include_patterns, [r"^https://example\.test/blog/"]);
        assert!(!from_app.follow_nofollow);
        assert!(!from_app.probe_variants);
        assert_eq!(from_app.requests_per_second, 2.5);
        assert_eq!(from_cli.start_urls, ["https://example.test"]);
        assert_eq!(from_cli.concurrency, 1);
        assert_eq!(from_cli.user_agent, crawl::default_user_agent());
        assert_eq!(
            rewritten,
            [Rewritten {
                typed: "example.test".into(),
                url: "https://example.test".into()
            }]
        );
    }

    #[test]
    fn a_crawl_needs_a_start_url_and_good_overrides() {
        let none = CrawlOptions::from_request(&request("  "), &[]);
        assert!(none.crawl(CrawlConfig::default()).is_err());
        // A pattern that is not a regular expression is refused as the command line's is.
        let mut bad_pattern = request("example.test");
        bad_pattern.excludes = vec!["(".into()];
        let refused = CrawlOptions::from_request(&bad_pattern, &[]).crawl(CrawlConfig::default());
        assert!(refused.is_err(), "{refused:?}");
        let bad = CrawlOptions {
            url: Some("https://example.test/".into()),
            resolve: vec!["example.test:443".into()],
            ..CrawlOptions::default()
        };
        assert!(bad.crawl(CrawlConfig::default()).is_err());
    }

    /// The form's "Render with Chromium" box sets the configuration stored with the
    /// audit (which its re-run starts from), and is refused up front, with the command
    /// line's reason, where the browser is missing.
    #[test]
    fn the_form_renders_with_chromium_or_says_why_not() {
        let mut asked = request("example.test");
        asked.render = true;
        let base = CrawlConfig {
            render: Some(crawl::RenderConfig {
                chromium: Some("/nonexistent/chromium".into()),
                ..crawl::RenderConfig::default()
            }),
            ..CrawlConfig::default()
        };
        let refused = CrawlOptions::from_request(&asked, &[])
            .crawl(base.clone())
            .unwrap_err()
            .to_string();
        assert!(
            refused
                .contains("no Chromium at /nonexistent/chromium (install the `chromium` package)"),
            "{refused}"
        );
        // Unticked, the base's rendering is dropped; an installed browser renders.
        let (plain, _) = CrawlOptions::from_request(&request("example.test"), &[])
            .crawl(base)
            .unwrap();
        assert_eq!(plain.render, None);
        let installed = std::env::current_exe().unwrap().display().to_string();
        let base = CrawlConfig {
            render: Some(crawl::RenderConfig {
                chromium: Some(installed.clone()),
                ..crawl::RenderConfig::default()
            }),
            ..CrawlConfig::default()
        };
        let (rendered, _) = CrawlOptions::from_request(&asked, &[]).crawl(base).unwrap();
        let stored: CrawlConfig =
            serde_json::from_str(&serde_json::to_string(&rendered).unwrap()).unwrap();
        assert_eq!(
            stored.render.and_then(|r| r.chromium),
            Some(installed),
            "kept with the audit's configuration"
        );
        // The form's notice says the same as the check.
        let installed = crawl::RenderConfig::default().settings().chromium.is_file();
        assert_eq!(render_unavailable().is_none(), installed);
    }

    #[test]
    fn the_policy_is_kept_with_the_configuration() {
        let options = CrawlOptions {
            url: Some("https://example.test/".into()),
            policy: Some(AnalysisPolicy::preset(crate::types::PresetName::Aggressive)),
            ..CrawlOptions::default()
        };
        let (config, _) = options.crawl(CrawlConfig::default()).unwrap();
        assert_eq!(config.policy.name, "aggressive");
        assert_eq!(config.policy.policy, canon::Policy::aggressive());
    }
}
