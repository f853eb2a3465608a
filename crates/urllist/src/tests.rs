#![allow(clippy::unwrap_used)]

use std::io::Write;

use super::*;

fn site() -> Url {
    Url::parse("https://example.test/").unwrap()
}

fn read_str(text: &str) -> UrlList {
    read(text.as_bytes(), &Options::default()).unwrap()
}

fn with_site(bytes: &[u8]) -> UrlList {
    let options = Options {
        site: Some(site()),
        ..Options::default()
    };
    read(bytes, &options).unwrap()
}

fn urls(list: &UrlList) -> Vec<&str> {
    list.urls.iter().map(|u| u.url.as_str()).collect()
}

fn rejected_lines(list: &UrlList) -> Vec<(u64, RejectKind)> {
    list.samples.iter().map(|s| (s.line, s.kind)).collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn a_plain_list_skips_blanks_and_comments_and_samples_what_is_not_a_url() {
    let text = "\u{feff}https://example.test/a\r\n\r\n# a comment\r\nhttps://example.test/b#frag\r\nftp://example.test/c\r\nnot a url\r\n/path\r\nhttps://example.test/a\r\nexample.test/d\r\n  https://example.test/e  ";
    let list = read_str(text);
    assert_eq!(list.format, Format::Plain);
    assert!(!list.compressed);
    assert_eq!(
        urls(&list),
        [
            "https://example.test/a",
            "https://example.test/b",
            "https://example.test/e"
        ]
    );
    assert_eq!(list.urls[1].line, 4);
    assert_eq!(list.lines, 10);
    assert_eq!(list.repeated, 1);
    assert_eq!(list.rejected, 4);
    assert_eq!(
        rejected_lines(&list),
        [
            (5, RejectKind::NotHttp),
            (6, RejectKind::NotUrl),
            (7, RejectKind::PathWithoutSite),
            (9, RejectKind::NotUrl),
        ]
    );
    assert_eq!(list.samples[1].text, "not a url");
}

#[test]
fn paths_resolve_against_the_site_and_never_leave_its_host() {
    let list = with_site(b"/a?x=1\n//evil.test/b\nhttps://other.test/c\n");
    assert_eq!(
        urls(&list),
        ["https://example.test/a?x=1", "https://other.test/c"]
    );
    assert_eq!(rejected_lines(&list), [(2, RejectKind::NotUrl)]);
}

#[test]
fn the_limit_keeps_the_first_urls_and_counts_the_rest() {
    let text: String = (0..30)
        .map(|i| format!("https://example.test/{i}\n"))
        .collect();
    let options = Options {
        max_urls: 10,
        ..Options::default()
    };
    let list = read(text.as_bytes(), &options).unwrap();
    assert_eq!(list.urls.len(), 10);
    assert_eq!(list.urls[9].url, "https://example.test/9");
    assert_eq!(list.over_limit, 20);
    assert_eq!(list.lines, 30);
}

#[test]
fn only_the_first_rejections_are_kept_and_long_or_binary_lines_are_rejected() {
    let mut text = Vec::new();
    for i in 0..25 {
        writeln!(text, "junk {i}").unwrap();
    }
    text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 3));
    text.extend(b"\n\xff\xfe\n");
    text.extend(b"https://example.test/ok\n");
    let list = read(text.as_slice(), &Options::default()).unwrap();
    assert_eq!(list.rejected, 27);
    assert_eq!(list.samples.len(), MAX_SAMPLES);
    assert_eq!(list.samples[9].line, 10);
    assert_eq!(urls(&list), ["https://example.test/ok"]);
    assert_eq!(list.lines, 28);
    // A line three times over the cap is rejected without being held whole.
    let mut long = vec![b'h'; MAX_LINE_BYTES + 10];
    long.extend(b"\nhttps://example.test/ok\n");
    let list = read(long.as_slice(), &Options::default()).unwrap();
    assert_eq!(rejected_lines(&list), [(1, RejectKind::TooLong)]);
    assert_eq!(list.samples[0].text.chars().count(), SAMPLE_CHARS);
    let list = read(
        &b"\xff\xfe\xfd\nhttps://example.test/ok"[..],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(rejected_lines(&list), [(1, RejectKind::NotUtf8)]);
}

#[test]
fn gzip_is_detected_by_content() {
    let list = read(
        gzip(b"https://example.test/a\nhttps://example.test/b\n").as_slice(),
        &Options::default(),
    )
    .unwrap();
    assert!(list.compressed);
    assert_eq!(list.format, Format::Plain);
    assert_eq!(list.urls.len(), 2);
    // Gzip that does not decompress is an error; one cut short keeps what it read.
    // A gzip header, then a deflate block of the reserved type.
    let broken = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(
        read(&broken[..], &Options::default()),
        Err(UrlListError::Decompress(_))
    ));
    let long: String = (0..5000)
        .map(|i| format!("https://example.test/{i}\n"))
        .collect();
    let mut cut = gzip(long.as_bytes());
    cut.truncate(cut.len() - 20);
    let list = read(cut.as_slice(), &Options::default()).unwrap();
    assert!(list.urls.len() > 4000, "{}", list.urls.len());
    assert_eq!(list.samples.last().unwrap().kind, RejectKind::Unreadable);
}

#[test]
fn an_empty_input_is_an_empty_list() {
    let list = read_str("");
    assert_eq!(
        (list.format, list.lines, list.urls.len()),
        (Format::Plain, 0, 0)
    );
    let list = read_str("\n\n# nothing\n");
    assert_eq!((list.lines, list.urls.len(), list.rejected), (3, 0, 0));
}

const URLSET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.test/a</loc></url>
  <url><loc>not a url</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc>https://example.test/b</loc></url>
  <url><loc>https://example.test/a</loc></url>
</urlset>
"#;

#[test]
fn an_xml_sitemap_lists_its_locs_and_rejects_broken_entries() {
    for bytes in [URLSET.as_bytes().to_vec(), gzip(URLSET.as_bytes())] {
        let list = read(bytes.as_slice(), &Options::default()).unwrap();
        assert_eq!(list.format, Format::Sitemap);
        assert_eq!(
            urls(&list),
            ["https://example.test/a", "https://example.test/b"]
        );
        assert_eq!(list.urls[1].line, 6);
        assert_eq!(list.repeated, 1);
        assert_eq!(list.rejected, 2);
        assert_eq!(list.samples[0].line, 4);
        assert!(
            list.samples[0].reason.starts_with("invalid_loc"),
            "{:?}",
            list.samples
        );
        assert_eq!(list.samples[1].line, 5);
        assert_eq!(list.lines, 8);
    }
}

#[test]
fn a_sitemap_index_gives_its_children_to_fetch() {
    let index = "\u{feff}<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\r\n<sitemap><loc>https://example.test/s1.xml</loc></sitemap>\r\n<sitemap><loc>https://example.test/s2.xml.gz</loc></sitemap>\r\n<sitemap><loc>https://example.test/s1.xml</loc></sitemap>\r\n</sitemapindex>";
    let list = read_str(index);
    assert_eq!(list.format, Format::SitemapIndex);
    assert!(list.urls.is_empty());
    assert_eq!(
        list.sitemaps,
        [
            "https://example.test/s1.xml",
            "https://example.test/s2.xml.gz"
        ]
    );
}

#[test]
fn an_html_page_or_broken_xml_is_a_rejection_not_an_error() {
    let list = read_str("<!doctype html><html><body>hi</body></html>");
    assert!(list.urls.is_empty());
    assert_eq!(list.rejected, 1);
    assert_eq!(list.samples[0].kind, RejectKind::Sitemap);
    let list = read_str(
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>https://example.test/a</loc></url><url>",
    );
    assert_eq!(urls(&list), ["https://example.test/a"]);
    assert_eq!(list.rejected, 1);
}

#[test]
fn a_screaming_frog_export_is_read_by_its_address_column() {
    let csv = "\u{feff}\"Internal - All\"\r\n\"Address\",\"Content Type\",\"Status Code\",\"Title 1\"\r\n\"https://example.test/a\",\"text/html; charset=utf-8\",\"200\",\"Shoes, boots and \"\"more\"\"\"\r\n\"https://example.test/b\",\"text/html\",\"301\",\"Multi\r\nline title\"\r\n\"\",\"text/html\",\"200\",\"\"\r\n\"mailto:x@example.test\",\"\",\"\",\"\"\r\n\"https://example.test/a\",\"text/html\",\"200\",\"again\"\r\n";
    let list = read_str(csv);
    assert_eq!(list.format, Format::Csv);
    assert_eq!(
        urls(&list),
        ["https://example.test/a", "https://example.test/b"]
    );
    assert_eq!(list.urls[1].line, 4);
    assert_eq!(list.repeated, 1);
    assert_eq!(
        rejected_lines(&list),
        [(6, RejectKind::NoUrlCell), (7, RejectKind::NotHttp)]
    );
    assert_eq!(list.lines, 8);
}

#[test]
fn csv_url_and_loc_columns_in_any_case_and_other_delimiters() {
    let list = read_str("id,url\n1,https://example.test/a\n2,https://example.test/b\n");
    assert_eq!((list.format, list.urls.len()), (Format::Csv, 2));
    let list = read_str("Title;LOC;x\n\"a;b\";https://example.test/a;1\n");
    assert_eq!(urls(&list), ["https://example.test/a"]);
    let list = with_site(b"URL\tHits\n/a\t3\n/b\t4\n");
    assert_eq!(
        urls(&list),
        ["https://example.test/a", "https://example.test/b"]
    );
    // A one-column list whose first line is `URL` is a CSV file too.
    let list = read_str("URL\nhttps://example.test/a\n");
    assert_eq!(
        (list.format, list.urls.len(), list.rejected),
        (Format::Csv, 1, 0)
    );
}

#[test]
fn a_csv_record_over_the_size_limit_stops_the_reading() {
    let mut csv = b"Address,Notes\nhttps://example.test/a,ok\nhttps://example.test/b,\"".to_vec();
    csv.extend(std::iter::repeat_n(b'x', 3 << 20));
    csv.extend(b"\"\nhttps://example.test/c,ok\n");
    let list = read(csv.as_slice(), &Options::default()).unwrap();
    assert_eq!(urls(&list), ["https://example.test/a"]);
    assert_eq!(list.samples.last().unwrap().kind, RejectKind::Unreadable);
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0";

fn log_line(method: &str, target: &str, agent: &str) -> String {
    format!(
        "203.0.113.9 - - [12/Mar/2025:10:00:00 +0000] \"{method} {target} HTTP/1.1\" 200 512 \"-\" \"{agent}\"\n"
    )
}

#[test]
fn an_access_log_counts_requests_per_url_split_by_bots() {
    let mut log = String::new();
    log += &log_line("GET", "/shoes", GOOGLEBOT);
    log += &log_line("GET", "/shoes/", GOOGLEBOT);
    log += &log_line("GET", "/shoes/", BROWSER);
    log += "garbage line\n";
    log += &log_line("POST", "/cart", BROWSER);
    log += &log_line("HEAD", "/shoes", "Mozilla/5.0 (compatible; bingbot/2.0)");
    log += "203.0.113.9 - - [12/Mar/2025:10:00:00 +0000] \"GET /about HTTP/1.0\" 200 12\n";
    log += &log_line("GET", "*", BROWSER);
    log += &log_line("GET", "/shoes", GOOGLEBOT);
    let list = with_site(log.as_bytes());
    assert_eq!(list.format, Format::AccessLog);
    assert_eq!(
        urls(&list),
        [
            "https://example.test/shoes",
            "https://example.test/shoes/",
            "https://example.test/about"
        ]
    );
    let shoes = &list.urls[0].hits;
    assert_eq!(shoes.requests, 3);
    // One address, two bots: two clients.
    let ip = Some(std::net::IpAddr::from([203, 0, 113, 9]));
    assert_eq!(
        list.clients,
        [
            BotClient {
                ip,
                bot: "Googlebot",
                requests: 3
            },
            BotClient {
                ip,
                bot: "Bingbot",
                requests: 1
            }
        ]
    );
    assert_eq!(
        shoes.bots,
        [
            ClientHits {
                client: 0,
                requests: 2
            },
            ClientHits {
                client: 1,
                requests: 1
            }
        ]
    );
    assert_eq!((shoes.bot_requests(), shoes.other_requests()), (3, 0));
    let slash = &list.urls[1].hits;
    assert_eq!((slash.bot_requests(), slash.other_requests()), (1, 1));
    assert_eq!(list.urls[2].hits.other_requests(), 1);
    assert_eq!(list.requests, 6);
    assert_eq!(list.skipped, 1);
    assert_eq!(list.repeated, 0);
    assert_eq!(
        rejected_lines(&list),
        [(4, RejectKind::NotLogLine), (8, RejectKind::NotUrl)]
    );
    assert_eq!(list.bot_requests(), 4);
    assert_eq!(list.lines, 9);
}

#[test]
fn the_agent_pattern_keeps_matching_requests_only() {
    let mut log = String::new();
    log += &log_line("GET", "/a", GOOGLEBOT);
    log += &log_line("GET", "/b", BROWSER);
    log += "203.0.113.9 - - [12/Mar/2025:10:00:00 +0000] \"GET /c HTTP/1.0\" 200 12\n";
    let options = Options {
        site: Some(site()),
        agent: Some("(?i)googlebot".into()),
        ..Options::default()
    };
    let list = read(gzip(log.as_bytes()).as_slice(), &options).unwrap();
    assert!(list.compressed);
    assert_eq!(urls(&list), ["https://example.test/a"]);
    assert_eq!(list.skipped, 2);
    let bad = Options {
        agent: Some("(".into()),
        ..options
    };
    assert!(matches!(
        read(&b""[..], &bad),
        Err(UrlListError::AgentPattern(_))
    ));
}

#[test]
fn an_access_log_needs_a_site() {
    let log = log_line("GET", "/a", BROWSER);
    assert!(matches!(
        read(log.as_bytes(), &Options::default()),
        Err(UrlListError::SiteRequired)
    ));
    let options = Options {
        site: Some(Url::parse("ftp://example.test/").unwrap()),
        ..Options::default()
    };
    assert!(matches!(
        read(log.as_bytes(), &options),
        Err(UrlListError::BadSite(_))
    ));
}

/// A combined log line from `ip`.
fn line_from(ip: &str, target: &str, agent: &str) -> String {
    format!(
        "{ip} - - [12/Mar/2025:10:00:00 +0000] \"GET {target} HTTP/1.1\" 200 512 \"-\" \"{agent}\"\n"
    )
}

#[test]
fn bot_requests_are_kept_per_client_address_and_split_by_verdict() {
    let mut log = String::new();
    for (ip, target, agent) in [
        ("127.0.0.2", "/a", GOOGLEBOT),
        ("127.0.0.2", "/a", GOOGLEBOT),
        ("127.0.0.3", "/a", GOOGLEBOT),
        ("127.0.0.4", "/a", GOOGLEBOT),
        ("crawl.example", "/a", GOOGLEBOT),
        ("127.0.0.3", "/a", BROWSER),
        ("127.0.0.2", "/b", GOOGLEBOT),
    ] {
        log += &line_from(ip, target, agent);
    }
    let list = with_site(log.as_bytes());
    let ips: Vec<Option<String>> = list
        .clients
        .iter()
        .map(|c| c.ip.map(|ip| ip.to_string()))
        .collect();
    assert_eq!(
        ips,
        [
            Some("127.0.0.2".into()),
            Some("127.0.0.3".into()),
            Some("127.0.0.4".into()),
            None
        ]
    );
    assert_eq!(list.clients[0].requests, 3);
    let verdicts = [
        Verdict::Verified,
        Verdict::Fake,
        Verdict::Unverified,
        Verdict::Unverified,
    ];
    assert_eq!(
        list.urls[0].hits.split(&verdicts),
        Requests {
            verified_bots: 2,
            unverified_bots: 2,
            fake_bots: 1,
            others: 1
        }
    );
    assert_eq!(
        list.urls[1].hits.split(&verdicts),
        Requests {
            verified_bots: 1,
            ..Requests::default()
        }
    );
    // Without verdicts, every bot request is unverified.
    assert_eq!(list.urls[0].hits.split(&[]).unverified_bots, 5);
}

#[test]
fn past_the_client_limit_bot_requests_keep_no_address() {
    let mut log = String::with_capacity((MAX_BOT_CLIENTS + 2) * 90);
    for i in 0..=MAX_BOT_CLIENTS {
        let ip = std::net::Ipv4Addr::from(0x0a00_0000_u32 + u32::try_from(i).unwrap());
        log += &line_from(&ip.to_string(), "/a", GOOGLEBOT);
    }
    // An address already kept stays itself.
    log += &line_from("10.0.0.0", "/a", GOOGLEBOT);
    let list = with_site(log.as_bytes());
    assert_eq!(list.clients.len(), MAX_BOT_CLIENTS + 1);
    assert_eq!(list.clients[0].requests, 2);
    let last = list.clients.last().unwrap();
    assert_eq!((last.ip, last.requests), (None, 1));
    assert_eq!(list.urls[0].hits.bot_requests(), MAX_BOT_CLIENTS as u64 + 2);
}

#[test]
fn merged_lists_sum_requests_and_share_their_clients() {
    let mut first = String::new();
    first += &line_from("127.0.0.2", "/a", GOOGLEBOT);
    first += &line_from("127.0.0.3", "/b", GOOGLEBOT);
    first += &line_from("127.0.0.9", "/a", BROWSER);
    let mut second = String::new();
    second += &line_from("127.0.0.3", "/a", GOOGLEBOT);
    second += &line_from("127.0.0.2", "/a", GOOGLEBOT);
    second += &line_from("127.0.0.2", "/c", GOOGLEBOT);
    let mut merged = Merged::new(2);
    let added = merged.add(with_site(first.as_bytes()));
    assert_eq!(
        added,
        Added {
            kept: 2,
            left_out: 0,
            requests: 3,
            bot_requests: 2
        }
    );
    assert_eq!(merged.room(), 0);
    let added = merged.add(with_site(second.as_bytes()));
    // /c does not fit.
    assert_eq!(
        added,
        Added {
            kept: 0,
            left_out: 1,
            requests: 2,
            bot_requests: 2
        }
    );
    let clients: Vec<(String, u64)> = merged
        .clients()
        .iter()
        .map(|c| (c.ip.unwrap().to_string(), c.requests))
        .collect();
    assert_eq!(clients, [("127.0.0.2".into(), 2), ("127.0.0.3".into(), 2)]);
    let a = &merged.urls()[0];
    assert_eq!(a.url, "https://example.test/a");
    assert_eq!(
        a.hits.split(&[Verdict::Verified, Verdict::Fake]),
        Requests {
            verified_bots: 2,
            unverified_bots: 0,
            fake_bots: 1,
            others: 1
        }
    );
}

#[test]
fn proxy_requests_for_other_hosts_are_rejected_lines() {
    let mut log = String::new();
    log += &log_line("GET", "http://127.0.0.2:18400/latest/meta-data/", BROWSER);
    log += &log_line("GET", "http://169.254.169.254/latest/meta-data/", GOOGLEBOT);
    log += &log_line("GET", "https://user@127.0.0.2./x", BROWSER);
    log += &log_line("GET", "https://example.test:8443/other-port", BROWSER);
    // The site's own origin in absolute form is a request to the site.
    log += &log_line("GET", "https://example.test/a", BROWSER);
    log += &log_line("GET", "/b", BROWSER);
    let list = with_site(log.as_bytes());
    assert_eq!(
        urls(&list),
        ["https://example.test/a", "https://example.test/b"]
    );
    assert_eq!(
        rejected_lines(&list),
        [
            (1, RejectKind::ProxyRequest),
            (2, RejectKind::ProxyRequest),
            (3, RejectKind::ProxyRequest),
            (4, RejectKind::ProxyRequest)
        ]
    );
    assert_eq!(
        list.samples[0].reason,
        "proxy request for another host (http://127.0.0.2:18400)"
    );
    assert_eq!(list.requests, 2);
    assert!(list.clients.is_empty(), "{:?}", list.clients);
}
