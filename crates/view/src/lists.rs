//! List audits from the app: URL lists, sitemaps, CSV exports and access logs read
//! through `urllist` into a [`crawl::ListMode`], as `dustpan audit --list` reads them.

use crate::error::ViewError;
use crate::types::{ListAuditRequest, StartAuditRequest};
use crawl::{CrawlConfig, ListInput, ListMode, ListedUrl, RejectedLine};
use std::collections::HashMap;
use std::path::Path;

/// The list audit `list` asks for, with the limits and options of `req` (its URL is not
/// used: a list audit starts at the origins of the listed URLs).
pub fn list_crawl_config(
    req: &StartAuditRequest,
    list: &ListAuditRequest,
    ca_pems: &[String],
) -> Result<CrawlConfig, ViewError> {
    let mut config = CrawlConfig::default();
    crate::runs::apply_settings(&mut config, req, ca_pems)?;
    read_lists(&mut config, list)?;
    config.validate()?;
    Ok(config)
}

/// Reads every file of `list` into `config` as a list audit (at most its `max_urls` URLs
/// over all files; a URL listed twice is audited once, its requests summed).
pub fn read_lists(config: &mut CrawlConfig, list: &ListAuditRequest) -> Result<(), ViewError> {
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
    let mut urls: Vec<ListedUrl> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut inputs = Vec::new();
    for name in files {
        let options = urllist::Options {
            max_urls: cap.saturating_sub(urls.len()),
            site: site.clone(),
            agent: agent.clone(),
            ..urllist::Options::default()
        };
        let file = std::fs::File::open(name).map_err(|e| ViewError::io(Path::new(name), e))?;
        let read = urllist::read(file, &options)
            .map_err(|e| ViewError::Invalid(format!("cannot read the list {name}: {e}")))?;
        let (mut kept, mut requests, mut bot_requests) = (0u64, 0u64, 0u64);
        for listed in &read.urls {
            let (bot, other) = (listed.hits.bot_requests(), listed.hits.other_requests());
            match index.get(&listed.url) {
                Some(&i) => {
                    urls[i].bot_requests += bot;
                    urls[i].other_requests += other;
                }
                None if urls.len() < cap => {
                    index.insert(listed.url.clone(), urls.len());
                    urls.push(ListedUrl {
                        url: listed.url.clone(),
                        bot_requests: bot,
                        other_requests: other,
                    });
                    kept += 1;
                }
                None => continue,
            }
            requests += listed.hits.requests;
            bot_requests += bot;
        }
        config.sitemaps.extend(read.sitemaps.iter().cloned());
        inputs.push(ListInput {
            name: name.to_owned(),
            format: read.format.as_str().to_owned(),
            compressed: read.compressed,
            lines: read.lines,
            urls: kept,
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
            over_limit: read.over_limit + (read.urls.len() as u64).saturating_sub(kept),
            skipped: read.skipped,
            requests,
            bot_requests,
        });
    }
    if urls.is_empty() && config.sitemaps.is_empty() {
        return Err(ViewError::Invalid(
            "the list holds no http(s) URL to audit".into(),
        ));
    }
    config.set_list(ListMode {
        urls,
        follow: list.follow,
        inputs,
    });
    Ok(())
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
        let config =
            list_crawl_config(&request(), &list(vec![name.clone()], None, true), &[]).unwrap();
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
        let error =
            list_crawl_config(&request(), &list(files.clone(), None, false), &[]).unwrap_err();
        assert!(
            error.to_string().contains("cannot read the list"),
            "{error}"
        );
        let config = list_crawl_config(
            &request(),
            &list(files, Some("https://example.test"), false),
            &[],
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
        assert_eq!((shoes.bot_requests, shoes.other_requests), (1, 1));
        assert_eq!(mode.inputs[0].requests, 3);
    }

    #[test]
    fn no_file_a_missing_file_or_an_empty_list_is_an_error() {
        let none = list_crawl_config(&request(), &list(vec![" ".into()], None, false), &[]);
        assert!(matches!(none, Err(ViewError::Invalid(_))));
        let missing = list_crawl_config(
            &request(),
            &list(vec!["/nonexistent/dustpan-list.txt".into()], None, false),
            &[],
        );
        assert!(matches!(missing, Err(ViewError::Io { .. })), "{missing:?}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.txt");
        std::fs::write(&path, "nothing here\n").unwrap();
        let empty = list_crawl_config(
            &request(),
            &list(vec![path.display().to_string()], None, false),
            &[],
        )
        .unwrap_err();
        assert!(empty.to_string().contains("no http(s) URL"), "{empty}");
    }
}
