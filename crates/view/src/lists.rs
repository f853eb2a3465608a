//! List audits from the app: URL lists, sitemaps, CSV exports and access logs read
//! through `urllist` into a [`crawl::ListMode`], as `dustpan audit --list` reads them;
//! the bot requests of access logs split by a DNS check of their addresses
//! ([`verify_listed`], shared with the command-line program).

use crate::error::ViewError;
use crate::types::{ListAuditRequest, StartAuditRequest};
use crawl::{BotCheckSummary, CrawlConfig, ListInput, ListMode, ListedUrl, RejectedLine};
use std::net::SocketAddr;
use std::path::Path;

/// How the addresses of an access log's bot requests are checked (reverse DNS, then
/// forward DNS, see the `botcheck` crate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotCheck {
    /// No lookups: every bot request stays unverified.
    Off,
    /// The system's name servers.
    System,
    /// This name server only.
    Server(SocketAddr),
}

/// The list audit `list` asks for, with the limits and options of `req` (its URL is not
/// used: a list audit starts at the origins of the listed URLs), the bot requests of
/// access logs checked as `bots` says. Reads files and waits for DNS: call it where
/// blocking is allowed (the app calls it on a blocking thread of its runtime).
pub fn list_crawl_config(
    req: &StartAuditRequest,
    list: &ListAuditRequest,
    ca_pems: &[String],
    bots: BotCheck,
) -> Result<CrawlConfig, ViewError> {
    list_config(req, ca_pems, |config| read_lists(config, list, bots))
}

/// As [`list_crawl_config`], the list given as `text` (named `name` in the audit's list
/// inputs) instead of files: `list.files` is not read. For front ends that receive the
/// list itself (the MCP server), never a path to read.
pub fn text_list_crawl_config(
    req: &StartAuditRequest,
    name: &str,
    text: &str,
    list: &ListAuditRequest,
    ca_pems: &[String],
    bots: BotCheck,
) -> Result<CrawlConfig, ViewError> {
    list_config(req, ca_pems, |config| {
        let source: Box<dyn std::io::Read + '_> = Box::new(text.as_bytes());
        read_sources(config, vec![(name.to_owned(), source)], list, bots)
    })
}

/// A list audit's configuration: `req`'s settings, the list `read` puts in, validated.
fn list_config(
    req: &StartAuditRequest,
    ca_pems: &[String],
    read: impl FnOnce(&mut CrawlConfig) -> Result<(), ViewError>,
) -> Result<CrawlConfig, ViewError> {
    let mut config = CrawlConfig::default();
    crate::runs::apply_settings(&mut config, req, ca_pems)?;
    read(&mut config)?;
    config.validate()?;
    Ok(config)
}

/// Reads every file of `list` into `config` as a list audit (at most its `max_urls` URLs
/// over all files; a URL listed twice is audited once, its requests summed), the bot
/// requests of access logs checked as `bots` says.
pub fn read_lists(
    config: &mut CrawlConfig,
    list: &ListAuditRequest,
    bots: BotCheck,
) -> Result<(), ViewError> {
    let files: Vec<&str> = list
        .files
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
        .collect();
    if files.is_empty() {
        return Err(ViewError::Invalid(
            "choose a URL list, sitemap, CSV file or access log".into(),
        ));
    }
    let mut sources = Vec::new();
    for name in files {
        let file = std::fs::File::open(name).map_err(|e| ViewError::io(Path::new(name), e))?;
        let reader: Box<dyn std::io::Read> = Box::new(file);
        sources.push((name.to_owned(), reader));
    }
    read_sources(config, sources, list, bots)
}

/// Reads `sources` (each a name and its content: a URL list, sitemap, CSV or access
/// log) into `config` as a list audit, with `list`'s site, log agent and follow (its
/// files are not read).
fn read_sources<'a>(
    config: &mut CrawlConfig,
    sources: Vec<(String, Box<dyn std::io::Read + 'a>)>,
    list: &ListAuditRequest,
    bots: BotCheck,
) -> Result<(), ViewError> {
    let site = match list
        .site
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(s) => Some(
            urllist::Url::parse(&crawl::start_url(s))
                .map_err(|_| ViewError::Invalid(format!("the site {s:?} is not a URL")))?,
        ),
        None => None,
    };
    let agent = list
        .log_agent
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    let cap = usize::try_from(config.max_urls).unwrap_or(usize::MAX);
    let mut merged = urllist::Merged::new(cap);
    let mut inputs = Vec::new();
    for (name, reader) in sources {
        let options = urllist::Options {
            max_urls: merged.room(),
            site: site.clone(),
            agent: agent.clone(),
            reason: urllist::reason_from_name(&name),
            ..urllist::Options::default()
        };
        let read = urllist::read(reader, &options)
            .map_err(|e| ViewError::Invalid(format!("cannot read the list {name}: {e}")))?;
        config.sitemaps.extend(read.sitemaps.iter().cloned());
        inputs.push(merge_input(&mut merged, &name, read));
    }
    if merged.urls().is_empty() && config.sitemaps.is_empty() {
        return Err(ViewError::Invalid(
            "the list holds no http(s) URL to audit".into(),
        ));
    }
    let verify = verify_listed(merged, bots);
    let (urls, bot_check) = match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.block_on(verify),
        Err(_) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ViewError::Invalid(format!("cannot check bots by DNS: {e}")))?
            .block_on(verify),
    };
    config.set_list(ListMode {
        urls,
        follow: list.follow,
        inputs,
        bot_check,
        site: site.map(|s| format!("{}/", s.origin().ascii_serialization())),
    });
    Ok(())
}

/// Merges `read`, the list input `name`, into `merged` (its URLs new to the audit kept
/// while there is room, its requests added), and says what it held.
pub fn merge_input(merged: &mut urllist::Merged, name: &str, read: urllist::UrlList) -> ListInput {
    let mut input = ListInput {
        name: name.to_owned(),
        format: read.format.as_str().to_owned(),
        compressed: read.compressed,
        lines: read.lines,
        urls: 0,
        sitemaps: read.sitemaps.len() as u64,
        rejected: read.rejected,
        samples: read
            .samples
            .iter()
            .map(|s| RejectedLine {
                line: s.line,
                reason: s.reason.clone(),
                text: s.text.clone(),
            })
            .collect(),
        repeated: read.repeated,
        over_limit: read.over_limit,
        skipped: read.skipped,
        requests: 0,
        bot_requests: 0,
    };
    let added = merged.add(read);
    input.urls = added.kept;
    input.over_limit += added.left_out;
    input.requests = added.requests;
    input.bot_requests = added.bot_requests;
    input
}

/// The URLs of `merged` as a list audit lists them, with their access-log requests split
/// by a DNS check of the bot clients' addresses (`bots`), and what the check found
/// (`None` when the lists hold no bot request). Never fails: addresses the resolver
/// does not answer for, or every address when no resolver is configured, stay
/// unverified.
pub async fn verify_listed(
    merged: urllist::Merged,
    bots: BotCheck,
) -> (Vec<ListedUrl>, Option<BotCheckSummary>) {
    let clients: Vec<botcheck::Client<'_>> = merged
        .clients()
        .iter()
        .map(|c| botcheck::Client {
            ip: c.ip,
            bot: c.bot,
            requests: c.requests,
        })
        .collect();
    let (report, looked_up, note) = if clients.is_empty() {
        (botcheck::Report::default(), false, String::new())
    } else {
        let options = botcheck::Options::default();
        let verifier = match bots {
            BotCheck::Off => Err("turned off".to_owned()),
            BotCheck::System => botcheck::Verifier::system(options).map_err(|e| e.to_string()),
            BotCheck::Server(addr) => {
                botcheck::Verifier::with_server(addr, options).map_err(|e| e.to_string())
            }
        };
        match verifier {
            Ok(verifier) => (verifier.check(&clients).await, true, String::new()),
            Err(note) => (
                botcheck::Report::unchecked(&clients, botcheck::Check::NotChecked),
                false,
                note,
            ),
        }
    };
    let verdicts: Vec<urllist::Verdict> = report
        .checks
        .iter()
        .map(|c| match c.outcome() {
            botcheck::Outcome::Verified => urllist::Verdict::Verified,
            botcheck::Outcome::Fake => urllist::Verdict::Fake,
            botcheck::Outcome::Unverified => urllist::Verdict::Unverified,
        })
        .collect();
    let summary = (!clients.is_empty()).then(|| {
        let s = report.summary;
        BotCheckSummary {
            looked_up,
            note,
            verified: s.verified,
            fake: s.fake,
            no_answer: s.no_answer,
            no_check: s.no_check,
            over_limit: s.over_limit,
            not_checked: s.not_checked,
        }
    });
    let urls = merged
        .urls()
        .iter()
        .map(|u| {
            let r = u.hits.split(&verdicts);
            ListedUrl {
                url: u.url.clone(),
                verified_bot_requests: r.verified_bots,
                unverified_bot_requests: r.unverified_bots,
                fake_bot_requests: r.fake_bots,
                other_requests: r.others,
                search_console: u.search_console.as_deref().cloned(),
            }
        })
        .collect();
    (urls, summary)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn request() -> StartAuditRequest {
        StartAuditRequest {
            url: String::new(),
            max_urls: Some(3),
            max_depth: None,
            concurrency: None,
            respect_robots: true,
            user_agent: None,
            preset: None,
            policy_file: None,
            allow_internal: false,
            includes: Vec::new(),
            excludes: Vec::new(),
            follow_nofollow: None,
            probe_variants: None,
            requests_per_second: None,
            render: false,
            resolve: vec!["example.test:443:127.0.0.1".into()],
        }
    }

    fn list(files: Vec<String>, site: Option<&str>, follow: bool) -> ListAuditRequest {
        ListAuditRequest {
            files,
            site: site.map(str::to_owned),
            log_agent: None,
            follow,
        }
    }

    #[test]
    fn a_plain_list_becomes_a_list_audit_capped_at_max_urls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("urls.txt");
        std::fs::write(
            &path,
            "https://example.test/a\nhttps://example.test/b\nnot a url\nhttps://example.test/a\nhttps://other.test/c\nhttps://example.test/d\n",
        )
        .unwrap();
        let name = path.display().to_string();
        let config = list_crawl_config(
            &request(),
            &list(vec![name.clone()], None, true),
            &[],
            BotCheck::Off,
        )
        .unwrap();
        let mode = config.list.as_ref().unwrap();
        let urls: Vec<&str> = mode.urls.iter().map(|u| u.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://example.test/a",
                "https://example.test/b",
                "https://other.test/c"
            ]
        );
        assert!(mode.follow);
        assert_eq!(mode.inputs.len(), 1);
        assert_eq!(mode.inputs[0].name, name);
        assert_eq!(mode.inputs[0].rejected, 1);
        assert_eq!(
            config.start_urls,
            ["https://example.test/", "https://other.test/"]
        );
        assert_eq!(config.resolve, ["example.test:443:127.0.0.1"]);
    }

    #[test]
    fn an_access_log_needs_the_site_and_counts_requests() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.log");
        let line = |p: &str, ua: &str| {
            format!(
                "127.0.0.1 - - [10/Oct/2026:13:55:36 +0000] \"GET {p} HTTP/1.1\" 200 12 \"-\" \"{ua}\"\n"
            )
        };
        let log = [
            line("/shoes", "Mozilla/5.0 (compatible; Googlebot/2.1)"),
            line("/shoes", "Mozilla/5.0"),
            line("/shoes/", "Mozilla/5.0 (compatible; bingbot/2.0)"),
        ]
        .concat();
        std::fs::write(&path, log).unwrap();
        let files = vec![path.display().to_string()];
        let error = list_crawl_config(
            &request(),
            &list(files.clone(), None, false),
            &[],
            BotCheck::Off,
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("cannot read the list"),
            "{error}"
        );
        let config = list_crawl_config(
            &request(),
            &list(files, Some("https://example.test"), false),
            &[],
            BotCheck::Off,
        )
        .unwrap();
        let mode = config.list.as_ref().unwrap();
        assert!(!mode.follow);
        assert_eq!(mode.inputs[0].format, "access_log");
        let shoes = mode
            .urls
            .iter()
            .find(|u| u.url == "https://example.test/shoes")
            .unwrap();
        assert_eq!(
            (shoes.unverified_bot_requests, shoes.other_requests),
            (1, 1)
        );
        assert_eq!(mode.inputs[0].requests, 3);
        let check = mode.bot_check.as_ref().unwrap();
        assert_eq!((check.looked_up, check.not_checked), (false, 2));
        assert_eq!(check.note, "turned off");
    }

    #[test]
    fn an_access_log_s_bots_are_checked_by_dns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("access.log");
        let line = |ip: &str, p: &str| {
            format!(
                "{ip} - - [10/Oct/2026:13:55:36 +0000] \"GET {p} HTTP/1.1\" 200 12 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1)\"\n"
            )
        };
        let log = [
            line("127.0.0.2", "/shoes"),
            line("127.0.0.2", "/shoes"),
            line("127.0.0.3", "/shoes"),
            line("127.0.0.4", "/shoes/"),
        ]
        .concat();
        std::fs::write(&path, log).unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let zone = fixture::DnsZone::new()
            .ptr([127, 0, 0, 2].into(), "crawl-127-0-0-2.googlebot.com")
            .address("crawl-127-0-0-2.googlebot.com", [127, 0, 0, 2].into())
            .ptr([127, 0, 0, 3].into(), "evil.example");
        let dns = rt.block_on(fixture::DnsServer::start(zone)).unwrap();
        let config = list_crawl_config(
            &request(),
            &list(
                vec![path.display().to_string()],
                Some("https://example.test"),
                false,
            ),
            &[],
            BotCheck::Server(dns.addr()),
        )
        .unwrap();
        let mode = config.list.as_ref().unwrap();
        let counts: Vec<(u64, u64, u64, u64)> = mode
            .urls
            .iter()
            .map(|u| {
                (
                    u.verified_bot_requests,
                    u.unverified_bot_requests,
                    u.fake_bot_requests,
                    u.other_requests,
                )
            })
            .collect();
        // /shoes: two verified, one fake; /shoes/: no name for 127.0.0.4, fake.
        assert_eq!(counts, [(2, 0, 1, 0), (0, 0, 1, 0)]);
        let check = mode.bot_check.as_ref().unwrap();
        assert!(check.looked_up);
        assert_eq!((check.verified, check.fake, check.unverified()), (1, 2, 0));
        drop(dns);
    }

    #[test]
    fn no_file_a_missing_file_or_an_empty_list_is_an_error() {
        let none = list_crawl_config(
            &request(),
            &list(vec![" ".into()], None, false),
            &[],
            BotCheck::Off,
        );
        assert!(matches!(none, Err(ViewError::Invalid(_))));
        let missing = list_crawl_config(
            &request(),
            &list(vec!["/nonexistent/dustpan-list.txt".into()], None, false),
            &[],
            BotCheck::Off,
        );
        assert!(matches!(missing, Err(ViewError::Io { .. })), "{missing:?}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.txt");
        std::fs::write(&path, "nothing here\n").unwrap();
        let empty = list_crawl_config(
            &request(),
            &list(vec![path.display().to_string()], None, false),
            &[],
            BotCheck::Off,
        )
        .unwrap_err();
        assert!(empty.to_string().contains("no http(s) URL"), "{empty}");
    }
}
