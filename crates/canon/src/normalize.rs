//! The normalization pipeline: one WHATWG parse, then one pass per enabled rule
//! over the parsed components, serialized once at the end.

use crate::error::{CanonError, SchemeKind};
use crate::pct;
use crate::policy::{Policy, PreferScheme, TrailingSlash, Www};
use crate::raw;
use crate::rule::Rule;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use url::{Host, Url};

/// One rule that changed the URL: the whole URL before and after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The rule that fired.
    pub rule: Rule,
    /// The URL before the rule.
    pub before: String,
    /// The URL after the rule.
    pub after: String,
}

/// A URL in its canonical form, with the trail of rules that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normalized {
    /// The canonical URL.
    pub url: String,
    /// Every rule that changed the URL, in order; empty when the input was canonical.
    pub trail: Vec<Step>,
}

impl Normalized {
    /// The ids of the rules that fired, in order.
    pub fn rule_ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.trail.iter().map(|s| s.rule.id())
    }
}

/// Normalizes one absolute http(s) URL under `policy`, explaining every change.
///
/// ```
/// let n = canon::normalize("HTTP://www.Example.com:80/a/./index.html?utm_source=x#top", &canon::Policy::aggressive()).unwrap();
/// assert_eq!(n.url, "https://example.com/a/");
/// assert_eq!(n.rule_ids().collect::<Vec<_>>(),
///     ["scheme_case", "host_case", "default_port", "dot_segments", "directory_index",
///      "www", "scheme_unify", "tracking_params", "fragment"]);
/// ```
pub fn normalize(input: &str, policy: &Policy) -> Result<Normalized, CanonError> {
    run(input, policy, true)
}

/// The equivalence key of a URL under `policy`: its canonical form, computed without
/// the trail. Two URLs with the same key are the same page as far as the policy's
/// rules can tell.
pub fn equivalence_key(input: &str, policy: &Policy) -> Result<String, CanonError> {
    run(input, policy, false).map(|n| n.url)
}

/// The scheme of `input` if it starts with one (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
pub(crate) fn scheme_of(input: &str) -> Option<&str> {
    let colon = input.find(':')?;
    let scheme = &input[..colon];
    let mut bytes = scheme.bytes();
    let first = bytes.next()?;
    (first.is_ascii_alphabetic()
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
    .then_some(scheme)
}

pub(crate) fn check_scheme(input: &str) -> Result<(), CanonError> {
    match scheme_of(input) {
        None => Err(CanonError::NotAbsolute {
            input: shorten(input),
        }),
        Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => Ok(()),
        Some(s) => {
            let scheme = s.to_ascii_lowercase();
            let kind = SchemeKind::of(&scheme);
            Err(CanonError::UnsupportedScheme { scheme, kind })
        }
    }
}

fn shorten(input: &str) -> String {
    match input.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &input[..i]),
        None => input.to_owned(),
    }
}

pub(crate) fn map_parse_error(e: url::ParseError, input: &str) -> CanonError {
    use url::ParseError as P;
    match e {
        P::EmptyHost
        | P::IdnaError
        | P::InvalidIpv4Address
        | P::InvalidIpv6Address
        | P::InvalidDomainCharacter => CanonError::InvalidHost {
            reason: e.to_string(),
        },
        P::RelativeUrlWithoutBase | P::RelativeUrlWithCannotBeABaseBase => {
            CanonError::NotAbsolute {
                input: shorten(input),
            }
        }
        other => CanonError::Invalid {
            reason: other.to_string(),
        },
    }
}

fn is_c0_space(c: char) -> bool {
    c <= ' '
}

fn run(input: &str, policy: &Policy, explain: bool) -> Result<Normalized, CanonError> {
    let trimmed = input.trim_matches(is_c0_space);
    if trimmed.is_empty() {
        return Err(CanonError::Empty);
    }
    if trimmed.len() > policy.max_length {
        return Err(CanonError::TooLong {
            len: trimmed.len(),
            max: policy.max_length,
        });
    }
    if let Some(position) = trimmed.bytes().position(|b| b < 0x20 || b == 0x7F) {
        return Err(CanonError::ControlCharacter {
            position,
            byte: trimmed.as_bytes()[position],
        });
    }
    check_scheme(trimmed)?;
    let parsed = Url::parse(trimmed).map_err(|e| map_parse_error(e, trimmed))?;
    let domain = match parsed.host() {
        Some(Host::Domain(d)) if !d.is_empty() => true,
        Some(Host::Ipv4(_) | Host::Ipv6(_)) => false,
        _ => {
            return Err(CanonError::InvalidHost {
                reason: "no host".to_owned(),
            });
        }
    };

    let mut trail = Vec::new();
    if explain && parsed.as_str() != trimmed {
        raw::parser_trail(trimmed, &parsed, &mut trail);
    }
    let mut parts = Parts::new(&parsed, domain);
    let mut run = Runner {
        explain,
        trail,
        current: None,
        changed: false,
        parsed: &parsed,
    };
    parts.apply_rules(policy, &mut run);
    let (changed, trail) = (run.changed, run.trail);
    let url = if changed {
        parts.serialize()
    } else {
        drop(parts);
        String::from(parsed)
    };
    Ok(Normalized { url, trail })
}

/// Records the trail and remembers whether anything changed.
struct Runner<'u> {
    explain: bool,
    trail: Vec<Step>,
    /// The serialization before the next step, when explaining.
    current: Option<String>,
    changed: bool,
    parsed: &'u Url,
}

impl Runner<'_> {
    /// Runs one rule; `f` returns whether it changed anything.
    fn step<'a>(
        &mut self,
        parts: &mut Parts<'a>,
        rule: Rule,
        f: impl FnOnce(&mut Parts<'a>) -> bool,
    ) {
        if !f(parts) {
            return;
        }
        self.changed = true;
        if self.explain {
            let before = self
                .current
                .take()
                .unwrap_or_else(|| self.parsed.as_str().to_owned());
            let after = parts.serialize();
            self.current = Some(after.clone());
            if before != after {
                self.trail.push(Step {
                    rule,
                    before,
                    after,
                });
            }
        }
    }
}

/// One query component, split at the first `=`.
#[derive(Clone)]
struct Param<'a> {
    key: Cow<'a, str>,
    value: Option<Cow<'a, str>>,
}

/// The components of a parsed URL, borrowed until a rule changes them.
struct Parts<'a> {
    https: bool,
    userinfo: Cow<'a, str>,
    host: Cow<'a, str>,
    domain: bool,
    port: Option<u16>,
    path: Cow<'a, str>,
    query: Option<Vec<Param<'a>>>,
    raw_query: Option<&'a str>,
    fragment: Option<Cow<'a, str>>,
}

impl<'a> Parts<'a> {
    fn new(url: &'a Url, domain: bool) -> Parts<'a> {
        let userinfo = if url.username().is_empty() && url.password().is_none() {
            Cow::Borrowed("")
        } else {
            let mut s = url.username().to_owned();
            if let Some(p) = url.password() {
                s.push(':');
                s.push_str(p);
            }
            s.push('@');
            Cow::Owned(s)
        };
        Parts {
            https: url.scheme() == "https",
            userinfo,
            host: Cow::Borrowed(url.host_str().unwrap_or_default()),
            domain,
            port: url.port(),
            path: Cow::Borrowed(url.path()),
            query: None,
            raw_query: url.query(),
            fragment: url.fragment().map(Cow::Borrowed),
        }
    }

    fn serialize(&self) -> String {
        let mut s = String::with_capacity(
            16 + self.host.len() + self.path.len() + self.raw_query.map_or(0, str::len) + 8,
        );
        s.push_str(if self.https { "https://" } else { "http://" });
        s.push_str(&self.userinfo);
        s.push_str(&self.host);
        if let Some(port) = self.port {
            s.push(':');
            s.push_str(&port.to_string());
        }
        s.push_str(&self.path);
        match &self.query {
            Some(params) => {
                if !params.is_empty() {
                    s.push('?');
                    for (i, p) in params.iter().enumerate() {
                        if i > 0 {
                            s.push('&');
                        }
                        s.push_str(&p.key);
                        if let Some(v) = &p.value {
                            s.push('=');
                            s.push_str(v);
                        }
                    }
                }
            }
            None => {
                if let Some(q) = self.raw_query {
                    s.push('?');
                    s.push_str(q);
                }
            }
        }
        if let Some(f) = &self.fragment {
            s.push('#');
            s.push_str(f);
        }
        s
    }

    /// Splits the raw query into parameters, once, when a query rule needs them.
    fn params(&mut self) -> &mut Vec<Param<'a>> {
        let raw = self.raw_query;
        self.query.get_or_insert_with(|| {
            raw.map(|q| {
                q.split('&')
                    .map(|pair| match pair.split_once('=') {
                        Some((k, v)) => Param {
                            key: Cow::Borrowed(k),
                            value: Some(Cow::Borrowed(v)),
                        },
                        None => Param {
                            key: Cow::Borrowed(pair),
                            value: None,
                        },
                    })
                    .collect()
            })
            .unwrap_or_default()
        })
    }

    /// Whether any text component holds a `%` (most URLs have none).
    fn has_escapes(&self) -> bool {
        self.userinfo.contains('%')
            || self.path.contains('%')
            || self.raw_query.is_some_and(|q| q.contains('%'))
            || self.fragment.as_deref().is_some_and(|f| f.contains('%'))
    }

    /// Applies `f` to userinfo, path, query and fragment text.
    fn map_text(&mut self, f: impl Fn(&str) -> Cow<'_, str>) -> bool {
        fn one<'a>(c: &mut Cow<'a, str>, f: &impl Fn(&str) -> Cow<'_, str>) -> bool {
            let new = match f(c) {
                Cow::Borrowed(_) => return false,
                Cow::Owned(s) => s,
            };
            *c = Cow::Owned(new);
            true
        }
        let mut changed = one(&mut self.userinfo, &f);
        changed |= one(&mut self.path, &f);
        if let Some(fr) = &mut self.fragment {
            changed |= one(fr, &f);
        }
        match &mut self.query {
            Some(params) => {
                for p in params {
                    changed |= one(&mut p.key, &f);
                    if let Some(v) = &mut p.value {
                        changed |= one(v, &f);
                    }
                }
            }
            None => {
                if let Some(q) = self.raw_query
                    && let Cow::Owned(new) = f(q)
                {
                    // Re-split the rewritten query; its `&` and `=` are unchanged.
                    let params = new
                        .split('&')
                        .map(|pair| match pair.split_once('=') {
                            Some((k, v)) => Param {
                                key: Cow::Owned(k.to_owned()),
                                value: Some(Cow::Owned(v.to_owned())),
                            },
                            None => Param {
                                key: Cow::Owned(pair.to_owned()),
                                value: None,
                            },
                        })
                        .collect();
                    self.query = Some(params);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Removes the parameters `drop` selects; returns whether any went.
    fn drop_params(&mut self, drop: impl Fn(&str, Option<&str>) -> bool) -> bool {
        if self.raw_query.is_none() && self.query.is_none() {
            return false;
        }
        let params = self.params();
        let before = params.len();
        params.retain(|p| !drop(&pct::decode_query_name(&p.key), p.value.as_deref()));
        params.len() != before
    }

    fn apply_rules(&mut self, policy: &Policy, run: &mut Runner<'_>) {
        if self.has_escapes() {
            run.step(self, Rule::PercentHexCase, |p| {
                p.map_text(pct::uppercase_hex)
            });
            run.step(self, Rule::PercentDecodeUnreserved, |p| {
                p.map_text(pct::decode_unreserved)
            });
        }

        if policy.strip_host_trailing_dot && self.domain {
            run.step(self, Rule::HostTrailingDot, |p| {
                let trimmed = p.host.trim_end_matches('.');
                if trimmed.len() == p.host.len() || !is_plain_domain(trimmed) {
                    return false;
                }
                p.host = Cow::Owned(trimmed.to_owned());
                true
            });
        }
        self.apply_path_rules(policy, run);
        if self.domain {
            match policy.www {
                Www::Keep => {}
                Www::Strip => run.step(self, Rule::Www, |p| {
                    let mut host: &str = &p.host;
                    while let Some(rest) = host.strip_prefix("www.") {
                        if !has_registrable_domain(rest) || !is_plain_domain(rest) {
                            break;
                        }
                        host = rest;
                    }
                    if host.len() == p.host.len() {
                        return false;
                    }
                    p.host = Cow::Owned(host.to_owned());
                    true
                }),
                Www::Add => run.step(self, Rule::Www, |p| {
                    let host = p.host.trim_end_matches('.');
                    if host.starts_with("www.") || psl::domain_str(host) != Some(host) {
                        return false;
                    }
                    p.host = Cow::Owned(format!("www.{}", p.host));
                    true
                }),
            }
        }
        if self.port.is_none() {
            let want_https = match policy.prefer_scheme {
                PreferScheme::Keep => self.https,
                PreferScheme::Https => true,
                PreferScheme::Http => false,
            };
            run.step(self, Rule::SchemeUnify, |p| {
                let changed = p.https != want_https;
                p.https = want_https;
                changed
            });
        }
        if policy.touches_query()
            && (self.query.is_some()
                || self
                    .raw_query
                    .is_some_and(|q| !query_is_canonical(q, policy)))
        {
            self.apply_query_rules(policy, run);
        }
        if policy.remove_fragment {
            run.step(self, Rule::Fragment, |p| p.fragment.take().is_some());
        }
    }

    /// The path's rules, in order: case, session parameters in segments, duplicate
    /// slashes, directory index, trailing slash.
    fn apply_path_rules(&mut self, policy: &Policy, run: &mut Runner<'_>) {
        if policy.case_insensitive_paths {
            run.step(
                self,
                Rule::PathCase,
                |p| match pct::lowercase_outside_escapes(&p.path) {
                    Cow::Borrowed(_) => false,
                    Cow::Owned(s) => {
                        p.path = Cow::Owned(s);
                        true
                    }
                },
            );
        }
        if policy.remove_session_path_params && self.path.contains(';') {
            run.step(self, Rule::SessionPathParam, |p| {
                let mut out = String::with_capacity(p.path.len());
                let mut changed = false;
                for (i, segment) in p.path.split('/').enumerate() {
                    if i > 0 {
                        out.push('/');
                    }
                    let mut pieces = segment.split(';');
                    out.push_str(pieces.next().unwrap_or_default());
                    for param in pieces {
                        let name = param.split_once('=').map_or(param, |(n, _)| n);
                        if policy.is_session(name) {
                            changed = true;
                        } else {
                            out.push(';');
                            out.push_str(param);
                        }
                    }
                }
                if changed {
                    p.path = Cow::Owned(out);
                }
                changed
            });
        }
        if policy.collapse_slashes && self.path.contains("//") {
            run.step(self, Rule::DuplicateSlashes, |p| {
                let mut out = String::with_capacity(p.path.len());
                for c in p.path.chars() {
                    if !(c == '/' && out.ends_with('/')) {
                        out.push(c);
                    }
                }
                p.path = Cow::Owned(out);
                true
            });
        }
        if !policy.directory_indexes.is_empty() {
            run.step(self, Rule::DirectoryIndex, |p| {
                let Some(slash) = p.path.rfind('/') else {
                    return false;
                };
                let last = &p.path[slash + 1..];
                // Every index name has an extension: most segments fail on that alone.
                let is_index = last.contains('.')
                    && policy.directory_indexes.iter().any(|name| {
                        if policy.case_insensitive_paths {
                            name.eq_ignore_ascii_case(last)
                        } else {
                            name == last
                        }
                    });
                if is_index {
                    p.path = Cow::Owned(p.path[..=slash].to_owned());
                }
                is_index
            });
        }
        match policy.trailing_slash {
            TrailingSlash::Keep => {}
            TrailingSlash::Add => run.step(self, Rule::TrailingSlash, |p| {
                let last = p.path.rsplit('/').next().unwrap_or_default();
                if last.is_empty() || last.contains('.') {
                    return false;
                }
                p.path.to_mut().push('/');
                true
            }),
            TrailingSlash::Remove => run.step(self, Rule::TrailingSlash, |p| {
                let trimmed = p.path.trim_end_matches('/');
                if trimmed.len() == p.path.len() || trimmed.is_empty() {
                    return false;
                }
                p.path = Cow::Owned(trimmed.to_owned());
                true
            }),
        }
    }

    fn apply_query_rules(&mut self, policy: &Policy, run: &mut Runner<'_>) {
        if policy.remove_empty_query {
            run.step(self, Rule::EmptyQuery, |p| {
                let params = p.params();
                let before = params.len();
                params.retain(|q| {
                    !q.key.is_empty() || q.value.as_deref().is_some_and(|v| !v.is_empty())
                });
                params.len() != before || (before == 0 && p.raw_query.is_some())
            });
        }
        if policy.normalize_query_encoding {
            run.step(self, Rule::QueryEncoding, |p| {
                let mut changed = false;
                for q in p.params() {
                    if let Cow::Owned(k) = pct::standard_query_component(&q.key) {
                        q.key = Cow::Owned(k);
                        changed = true;
                    }
                    if let Some(v) = &mut q.value
                        && let Cow::Owned(new) = pct::standard_query_component(v)
                    {
                        *v = Cow::Owned(new);
                        changed = true;
                    }
                }
                changed
            });
        }
        if policy.remove_tracking_params {
            run.step(self, Rule::TrackingParams, |p| {
                p.drop_params(|name, _| policy.is_tracking(name))
            });
        }
        if policy.remove_session_params {
            run.step(self, Rule::SessionParams, |p| {
                p.drop_params(|name, _| policy.is_session(name))
            });
        }
        let path_rules: Vec<_> = policy
            .params
            .iter()
            .filter(|r| r.matches(&self.path))
            .collect();
        if !policy.drop_params.is_empty() || !path_rules.is_empty() || policy.drop_empty_values {
            run.step(self, Rule::SiteParams, |p| {
                p.drop_params(|name, value| {
                    let decoded_value = value.map(pct::decode_query_name);
                    crate::policy::name_matches(&policy.drop_params, name)
                        || (policy.drop_empty_values && value == Some(""))
                        || path_rules.iter().any(|r| {
                            r.keep_only
                                .as_ref()
                                .is_some_and(|keep| !keep.iter().any(|k| k == name))
                                || r.drop.iter().any(|d| d.eq_ignore_ascii_case(name))
                                || r.defaults
                                    .get(name)
                                    .is_some_and(|d| decoded_value.as_deref() == Some(d.as_str()))
                        })
                })
            });
        }
        if policy.sort_query {
            run.step(self, Rule::QuerySort, |p| {
                let params = p.params();
                if params.windows(2).all(|w| w[0].key <= w[1].key) {
                    return false;
                }
                params.sort_by(|a, b| a.key.cmp(&b.key));
                true
            });
        }
    }
}

/// A conservative fast check that no query rule would change `query` (most crawled
/// queries are already canonical): `false` only means "run the rules".
fn query_is_canonical(query: &str, policy: &Policy) -> bool {
    if query.is_empty() || !policy.params.is_empty() {
        return false;
    }
    let mut previous: &str = "";
    for pair in query.split('&') {
        let (key, value) = match pair.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (pair, None),
        };
        if key.is_empty() && value.is_none_or(str::is_empty) {
            return false;
        }
        if policy.normalize_query_encoding
            && !(is_standard_component(key) && value.is_none_or(is_standard_component))
        {
            return false;
        }
        if key.contains(['%', '+'])
            || policy.is_tracking(key)
            || (policy.remove_session_params && policy.is_session(key))
            || crate::policy::name_matches(&policy.drop_params, key)
            || (policy.drop_empty_values && value == Some(""))
            || (policy.sort_query && key < previous)
        {
            return false;
        }
        previous = key;
    }
    true
}

/// Only unreserved bytes and uppercase escapes of reserved ones: what
/// `query_encoding` produces.
fn is_standard_component(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            let (Some(&h), Some(&l)) = (b.get(i + 1), b.get(i + 2)) else {
                return false;
            };
            let hex = |x: u8| x.is_ascii_digit() || (b'A'..=b'F').contains(&x);
            if !hex(h) || !hex(l) {
                return false;
            }
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            if crate::pct::is_unreserved(v) {
                return false;
            }
            i += 3;
        } else if crate::pct::is_unreserved(c) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// Whether `host` parses back as the same domain name: a rule must not turn a name
/// into something the URL parser reads as an IPv4 address (`x.4.` without its dot
/// is `x.4`, whose numeric last label makes it an IPv4 address).
fn is_plain_domain(host: &str) -> bool {
    // WHATWG reads a host as IPv4 only when its last label (one trailing empty
    // label aside) is a number: decimal, or hex with `0x`. Anything else stays a name.
    let trimmed = host.strip_suffix('.').unwrap_or(host);
    let last = trimmed.rsplit('.').next().unwrap_or(trimmed);
    let numeric = !last.is_empty()
        && (last.bytes().all(|b| b.is_ascii_digit())
            || last.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("0x")));
    !numeric || matches!(Host::parse(host), Ok(Host::Domain(d)) if d == host)
}

/// Whether `host` is more than a bare public suffix (so `www.` may be stripped to it).
fn has_registrable_domain(host: &str) -> bool {
    host.contains('.') && psl::domain_str(host.trim_end_matches('.')).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seo(input: &str) -> String {
        equivalence_key(input, &Policy::seo()).unwrap()
    }

    #[test]
    fn must_stay_distinct() {
        assert_eq!(
            seo("https://example.com/a%2Fb"),
            "https://example.com/a%2Fb"
        );
        assert_eq!(
            seo("https://example.com/a%3Fb"),
            "https://example.com/a%3Fb"
        );
        assert_eq!(
            equivalence_key("http://example.com:8080/", &Policy::aggressive()).unwrap(),
            "http://example.com:8080/"
        );
        assert_eq!(
            equivalence_key("http://example.com/", &Policy::aggressive()).unwrap(),
            "https://example.com/"
        );
        assert_eq!(
            seo("https://www2.example.com/"),
            "https://www2.example.com/"
        );
        assert_eq!(
            seo("https://wwww.example.com/"),
            "https://wwww.example.com/"
        );
        assert_eq!(
            seo("https://example.com/Path?Q=A"),
            "https://example.com/Path?Q=A"
        );
        assert_eq!(
            seo("https://example.com/?tag=red&tag=blue"),
            "https://example.com/?tag=red&tag=blue"
        );
        assert_eq!(seo("https://example.com/a+b"), "https://example.com/a+b");
        assert_eq!(
            seo("https://example.com/myindex.html"),
            "https://example.com/myindex.html"
        );
        assert_eq!(seo("https://example.com/%25"), "https://example.com/%25");
        assert_eq!(seo("https://www.co.uk/"), "https://www.co.uk/");
    }

    #[test]
    fn stable_sort_keeps_repeated_values_in_order() {
        assert_eq!(
            seo("https://example.com/?z=1&tag=red&a=2&tag=blue"),
            "https://example.com/?a=2&tag=red&tag=blue&z=1"
        );
    }

    #[test]
    fn tracking_and_sessions() {
        assert_eq!(
            seo("https://example.com/p?utm_source=x&UTM_Medium=y&id=1&gclid=2"),
            "https://example.com/p?id=1"
        );
        assert_eq!(
            seo("https://example.com/p?utm%5Fsource=x"),
            "https://example.com/p"
        );
        assert_eq!(
            seo("https://example.com/cart;jsessionid=ABC?PHPSESSID=1"),
            "https://example.com/cart"
        );
        assert_eq!(
            seo("https://example.com/a;v=1/b"),
            "https://example.com/a;v=1/b"
        );
    }

    #[test]
    fn www_repeated_and_add() {
        assert_eq!(seo("https://www.www.example.com/"), "https://example.com/");
        let mut add = Policy::seo();
        add.www = Www::Add;
        assert_eq!(
            equivalence_key("http://example.com/", &add).unwrap(),
            "http://www.example.com/"
        );
        assert_eq!(
            equivalence_key("http://blog.example.com/", &add).unwrap(),
            "http://blog.example.com/"
        );
        assert_eq!(
            equivalence_key("http://127.0.0.1/", &add).unwrap(),
            "http://127.0.0.1/"
        );
    }

    #[test]
    fn errors_are_classified() {
        let p = Policy::seo();
        assert_eq!(normalize("", &p).unwrap_err().kind(), "empty");
        assert_eq!(
            normalize("/relative", &p).unwrap_err().kind(),
            "not_absolute"
        );
        assert!(matches!(
            normalize("mailto:a@b.c", &p).unwrap_err(),
            CanonError::UnsupportedScheme {
                kind: SchemeKind::Mail,
                ..
            }
        ));
        assert_eq!(
            normalize("javascript:void(0)", &p).unwrap_err().kind(),
            "unsupported_scheme"
        );
        assert_eq!(
            normalize("http://exa mple.com/", &p).unwrap_err().kind(),
            "invalid_host"
        );
        assert_eq!(
            normalize("http:///", &p).unwrap_err().kind(),
            "invalid_host"
        );
        assert_eq!(
            normalize("http://a.com/\u{1}x", &p).unwrap_err().kind(),
            "control_character"
        );
        let long = format!("http://a.com/{}", "x".repeat(10_000));
        assert_eq!(normalize(&long, &p).unwrap_err().kind(), "too_long");
        assert_eq!(
            normalize("http://a.com:99999/", &p).unwrap_err().kind(),
            "invalid"
        );
    }

    #[test]
    fn trail_is_a_chain_ending_at_the_output() {
        let n = normalize(
            "HTTP://WWW.Example.COM:80/a//b/../index.html?b=2&a=1&utm_source=z#x",
            &Policy::seo(),
        )
        .unwrap();
        for w in n.trail.windows(2) {
            assert_eq!(w[0].after, w[1].before);
        }
        assert_eq!(n.trail.last().unwrap().after, n.url);
        assert_eq!(n.url, "http://example.com/a/?a=1&b=2");
    }

    #[test]
    fn host_rules_never_make_an_ipv4_address() {
        // Found by fuzzing: stripping the dots of `...h.4..` left a numeric last label.
        let input = "http:s.h.4...E.h.4....#6s:";
        for p in [Policy::rfc3986(), Policy::seo(), Policy::aggressive()] {
            let once = equivalence_key(input, &p).unwrap();
            assert_eq!(equivalence_key(&once, &p).unwrap(), once);
        }
    }

    #[test]
    fn invalid_escapes_are_kept() {
        assert_eq!(
            seo("https://example.com/100%zz?q=%zz"),
            "https://example.com/100%zz?q=%zz"
        );
    }
}
