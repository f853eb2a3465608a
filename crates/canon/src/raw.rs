//! The trail of what the URL parser itself normalized.
//!
//! The WHATWG parser applies several safe rules at once. To explain them one by
//! one, this module replays them on the raw input's RFC 3986 components
//! (Appendix B split) and ends with a `url_syntax` step for whatever else the
//! parser changed, so the trail always ends exactly at the parser's output.

use crate::Step;
use crate::rule::Rule;

struct RawParts {
    scheme: String,
    authority: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
}

impl RawParts {
    fn split(input: &str) -> Option<RawParts> {
        let colon = input.find(':')?;
        let scheme = input[..colon].to_owned();
        let mut rest = &input[colon + 1..];
        let (rest_no_frag, fragment) = match rest.find('#') {
            Some(i) => (&rest[..i], Some(rest[i + 1..].to_owned())),
            None => (rest, None),
        };
        rest = rest_no_frag;
        let (rest_no_query, query) = match rest.find('?') {
            Some(i) => (&rest[..i], Some(rest[i + 1..].to_owned())),
            None => (rest, None),
        };
        rest = rest_no_query;
        let (authority, path) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find(['/', '\\']).unwrap_or(after.len());
                (Some(after[..end].to_owned()), after[end..].to_owned())
            }
            None => (None, rest.to_owned()),
        };
        Some(RawParts {
            scheme,
            authority,
            path,
            query,
            fragment,
        })
    }

    fn serialize(&self) -> String {
        let mut s = String::with_capacity(64);
        s.push_str(&self.scheme);
        s.push(':');
        if let Some(a) = &self.authority {
            s.push_str("//");
            s.push_str(a);
        }
        s.push_str(&self.path);
        if let Some(q) = &self.query {
            s.push('?');
            s.push_str(q);
        }
        if let Some(f) = &self.fragment {
            s.push('#');
            s.push_str(f);
        }
        s
    }

    /// (userinfo with '@', host, port with ':') of the authority.
    fn authority_parts(&self) -> Option<(&str, &str, &str)> {
        let a = self.authority.as_deref()?;
        let host_start = a.rfind('@').map_or(0, |i| i + 1);
        let hostport = &a[host_start..];
        let port_start = if hostport.starts_with('[') {
            hostport
                .find(']')
                .map(|i| i + 1)
                .filter(|&i| hostport[i..].starts_with(':'))
        } else {
            hostport.rfind(':')
        };
        let (host, port) = match port_start {
            Some(i) => (&hostport[..i], &hostport[i..]),
            None => (hostport, ""),
        };
        Some((&a[..host_start], host, port))
    }

    fn set_authority(&mut self, userinfo: &str, host: &str, port: &str) {
        self.authority = Some(format!("{userinfo}{host}{port}"));
    }
}

fn is_dot(seg: &str) -> bool {
    seg == "." || seg.eq_ignore_ascii_case("%2e")
}

fn is_dot_dot(seg: &str) -> bool {
    matches!(
        seg.to_ascii_lowercase().as_str(),
        ".." | ".%2e" | "%2e." | "%2e%2e"
    )
}

/// RFC 3986 section 5.2.4 on a path split into segments.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        if is_dot(seg) {
            if i == last {
                out.push("");
            }
        } else if is_dot_dot(seg) {
            out.pop();
            if i == last {
                out.push("");
            }
        } else {
            out.push(seg);
        }
    }
    let mut s = String::with_capacity(path.len());
    for seg in out {
        s.push('/');
        s.push_str(seg);
    }
    if s.is_empty() {
        s.push('/');
    }
    s
}

/// Steps from the raw `input` to the parser's serialization `parsed`.
pub(crate) fn parser_trail(input: &str, parsed: &url::Url, trail: &mut Vec<Step>) {
    let target = parsed.as_str();
    let Some(mut parts) = RawParts::split(input) else {
        return;
    };
    let mut current = input.to_owned();
    let step = |rule: Rule, parts: &RawParts, current: &mut String, trail: &mut Vec<Step>| {
        let next = parts.serialize();
        if next != *current {
            trail.push(Step {
                rule,
                before: std::mem::replace(current, next.clone()),
                after: next,
            });
        }
    };

    parts.scheme.make_ascii_lowercase();
    step(Rule::SchemeCase, &parts, &mut current, trail);

    if let Some((userinfo, host, port)) = parts.authority_parts() {
        let (userinfo, host, port) = (userinfo.to_owned(), host.to_owned(), port.to_owned());
        let lower = host.to_ascii_lowercase();
        parts.set_authority(&userinfo, &lower, &port);
        step(Rule::HostCase, &parts, &mut current, trail);

        if !lower.is_ascii()
            && let Some(ascii) = parsed.host_str()
        {
            parts.set_authority(&userinfo, ascii, &port);
            step(Rule::IdnHost, &parts, &mut current, trail);
        }
        let host_now = parts
            .authority_parts()
            .map(|(_, h, _)| h.to_owned())
            .unwrap_or_default();
        let default_port: Option<u32> = match parts.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        };
        let port_number = port.strip_prefix(':').and_then(|p| p.parse::<u32>().ok());
        if port == ":" || (default_port.is_some() && port_number == default_port) {
            parts.set_authority(&userinfo, &host_now, "");
            step(Rule::DefaultPort, &parts, &mut current, trail);
        }
        if parts.path.is_empty() {
            parts.path.push('/');
            step(Rule::EmptyPath, &parts, &mut current, trail);
        }
    }

    if parts.path.split('/').any(|s| is_dot(s) || is_dot_dot(s)) && parts.path.starts_with('/') {
        parts.path = remove_dot_segments(&parts.path);
        step(Rule::DotSegments, &parts, &mut current, trail);
    }

    if current != target {
        trail.push(Step {
            rule: Rule::UrlSyntax,
            before: current,
            after: target.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments() {
        assert_eq!(remove_dot_segments("/foo/./bar/baz/../qux"), "/foo/bar/qux");
        assert_eq!(remove_dot_segments("/../a/b/../c/./d.html"), "/a/c/d.html");
        assert_eq!(remove_dot_segments("/a/.."), "/");
        assert_eq!(remove_dot_segments("/a/%2E%2e/b"), "/b");
    }

    fn rules(input: &str) -> Vec<&'static str> {
        let parsed = url::Url::parse(input).unwrap();
        let mut trail = Vec::new();
        parser_trail(input, &parsed, &mut trail);
        for pair in trail.windows(2) {
            assert_eq!(pair[0].after, pair[1].before);
        }
        if let Some(last) = trail.last() {
            assert_eq!(last.after, parsed.as_str());
        }
        trail.iter().map(|s| s.rule.id()).collect()
    }

    #[test]
    fn each_parser_rule_is_named() {
        assert_eq!(
            rules("HTTP://User@Example.COM/Foo"),
            ["scheme_case", "host_case"]
        );
        assert_eq!(rules("http://example.com:80/"), ["default_port"]);
        assert_eq!(rules("http://example.com"), ["empty_path"]);
        assert_eq!(
            rules("http://example.com/foo/./bar/baz/../qux"),
            ["dot_segments"]
        );
        assert_eq!(rules("http://bücher.example/"), ["idn_host"]);
        assert_eq!(rules("http://example.com/a b"), ["url_syntax"]);
        assert!(rules("http://example.com/").is_empty());
    }
}
