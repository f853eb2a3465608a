//! Access logs in the common and combined formats (Apache's `%h %l %u %t "%r" %>s %b`,
//! plus `"%{Referer}i" "%{User-agent}i"`; nginx's default `combined` is the same).

use std::io::Read;
use std::net::IpAddr;

use regex::Regex;
use url::Url;

use crate::bots::bot_id;
use crate::input::{Line, Lines, reject_bytes};
use crate::{Collector, RejectKind, to_url};

/// The fields of one log line that list mode uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LogLine<'a> {
    /// The client (`%h`): an address, or a host name when the server looked it up.
    pub client: &'a str,
    /// The request method (`GET`), or the whole request line when it has no target.
    pub method: &'a str,
    /// The request target (`/path?query`), empty when the request line has none.
    pub target: &'a str,
    /// The response status.
    pub status: u16,
    /// The user agent (combined format), as logged (escapes kept).
    pub agent: Option<&'a str>,
}

/// A quoted field's content (escapes kept) and what follows its closing quote; `s`
/// starts right after the opening quote.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some((&s[..i], &s[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The next space-separated token and the rest.
fn token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    Some(s.split_once(' ').unwrap_or((s, "")))
}

/// Parses a common or combined log line; `None` when it is neither.
pub(crate) fn parse_line(line: &str) -> Option<LogLine<'_>> {
    let line = line.trim_end();
    // `host ident authuser [date] "request" status bytes`
    let open = line.find(" [")?;
    let mut head = line[..open].split_whitespace();
    let client = head.next()?;
    if head.count() < 2 {
        return None;
    }
    let rest = &line[open + 2..];
    let close = rest.find(']')?;
    let date = &rest[..close];
    if !date.contains(':') || !date.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest[close + 1..].strip_prefix(" \"")?;
    let (request, rest) = quoted(rest)?;
    let (status, rest) = token(rest)?;
    if status.len() != 3 || !status.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let status: u16 = status.parse().ok()?;
    let (bytes, rest) = token(rest)?;
    if bytes != "-" && !bytes.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Combined: `"referer" "user agent"`; anything after them is ignored.
    let agent = rest
        .trim_start()
        .strip_prefix('"')
        .and_then(quoted)
        .and_then(|(_, r)| r.trim_start().strip_prefix('"'))
        .and_then(quoted)
        .map(|(agent, _)| agent);
    let mut parts = request.split(' ').filter(|p| !p.is_empty());
    let (method, target) = match (parts.next(), parts.next()) {
        (Some(method), Some(target)) => (method, target),
        _ => (request, ""),
    };
    Some(LogLine {
        client,
        method,
        target,
        status,
        agent,
    })
}

/// The client address of a log line (`66.249.66.1`, `2001:db8::1`, `[2001:db8::1]`;
/// an IPv4-mapped IPv6 address as IPv4), `None` for a host name.
pub(crate) fn client_ip(client: &str) -> Option<IpAddr> {
    let bare = client
        .strip_prefix('[')
        .and_then(|c| c.strip_suffix(']'))
        .unwrap_or(client);
    bare.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

/// Reads an access log into `out`: each `GET` and `HEAD` request (of a matching user
/// agent, if `agent` is given) is a hit on its URL, resolved against `site`; a request
/// whose absolute-form target names another origin than `site`'s is rejected
/// ([`RejectKind::ProxyRequest`]).
pub(crate) fn read(reader: impl Read, site: &Url, agent: Option<&Regex>, out: &mut Collector) {
    let mut lines = Lines::new(reader);
    loop {
        let (n, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                out.stopped(lines.number + 1, &e);
                break;
            }
        };
        out.list.lines = n;
        if reject_bytes(out, n, &line).is_some() {
            continue;
        }
        let Line::Text(text) = line else { continue };
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let Some(entry) = parse_line(text) else {
            out.reject(
                n,
                RejectKind::NotLogLine,
                "not a common or combined log line".into(),
                text.as_bytes(),
            );
            continue;
        };
        if !matches!(entry.method, "GET" | "HEAD") {
            out.list.skipped += 1;
            continue;
        }
        if let Some(pattern) = agent
            && !entry.agent.is_some_and(|a| pattern.is_match(a))
        {
            out.list.skipped += 1;
            continue;
        }
        match to_url(entry.target, Some(site)) {
            // An absolute-form target (`GET http://host/path`) is a request to use the
            // server as a proxy, which scanners send and servers log verbatim: a request
            // for another host is no request the site answered for itself.
            Ok(url) if url.origin() != site.origin() => out.reject(
                n,
                RejectKind::ProxyRequest,
                format!(
                    "proxy request for another host ({})",
                    url.origin().ascii_serialization()
                ),
                text.as_bytes(),
            ),
            Ok(url) => {
                let bot = entry
                    .agent
                    .and_then(bot_id)
                    .map(|id| (id, client_ip(entry.client)));
                out.hit(&url, n, bot);
            }
            Err((kind, reason)) => out.reject(
                n,
                kind,
                format!("request target: {reason}"),
                text.as_bytes(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_and_combined_lines_parse() {
        let common = r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#;
        assert_eq!(
            parse_line(common),
            Some(LogLine {
                client: "127.0.0.1",
                method: "GET",
                target: "/apache_pb.gif",
                status: 200,
                agent: None
            })
        );
        let combined = r#"66.249.66.1 - - [10/Oct/2000:13:55:36 -0700] "HEAD /a?b=1 HTTP/1.1" 301 - "http://ref.test/x \"q\"" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#;
        let line = parse_line(combined).unwrap();
        assert_eq!(
            (line.client, line.method, line.target, line.status),
            ("66.249.66.1", "HEAD", "/a?b=1", 301)
        );
        assert_eq!(
            line.agent,
            Some("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
        );
        // A request line without a target is a line (of no GET).
        let garbage = r#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01" 400 157 "-" "-""#;
        assert_eq!(parse_line(garbage).unwrap().target, "");
        for bad in [
            "",
            "https://example.test/",
            "1.2.3.4 - - [date] \"GET / HTTP/1.1\" 200 1",
            "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" OK 1",
            "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1 200 1",
            "- [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1",
        ] {
            assert_eq!(parse_line(bad), None, "{bad}");
        }
    }

    #[test]
    fn client_addresses_parse_and_host_names_do_not() {
        assert_eq!(
            client_ip("66.249.66.1"),
            Some(IpAddr::from([66, 249, 66, 1]))
        );
        assert_eq!(
            client_ip("2001:4860:4801:10::1"),
            "2001:4860:4801:10::1".parse().ok()
        );
        assert_eq!(client_ip("[2001:db8::1]"), "2001:db8::1".parse().ok());
        assert_eq!(
            client_ip("::ffff:66.249.66.1"),
            Some(IpAddr::from([66, 249, 66, 1]))
        );
        assert_eq!(client_ip("crawl-66-249-66-1.googlebot.com"), None);
        assert_eq!(client_ip("-"), None);
    }
}
