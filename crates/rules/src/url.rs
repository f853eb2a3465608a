//! Zero-copy views of absolute URLs already in canonical (rfc3986) form.

/// The components of an absolute URL, as slices of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// `http`, `https`.
    pub scheme: &'a str,
    /// The host, without user info and port.
    pub host: &'a str,
    /// The port with its colon (`:8080`), or empty.
    pub port: &'a str,
    /// The path (starts with `/` for http URLs).
    pub path: &'a str,
    /// The query, without `?`.
    pub query: Option<&'a str>,
    /// Byte offset where the path starts (end of scheme + authority).
    pub origin_end: usize,
}

/// Splits an absolute URL. Lenient: a string without `://` is all path.
pub fn split(url: &str) -> Parts<'_> {
    let (scheme, rest_start) = match url.find("://") {
        Some(i) => (&url[..i], i + 3),
        None => ("", 0),
    };
    let rest = &url[rest_start..];
    let auth_len = if rest_start == 0 {
        0
    } else {
        rest.find(['/', '?', '#']).unwrap_or(rest.len())
    };
    let authority = &rest[..auth_len];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if hostport.starts_with('[') {
        match hostport.find(']') {
            Some(i) => (&hostport[..=i], &hostport[i + 1..]),
            None => (hostport, ""),
        }
    } else {
        match hostport.rfind(':') {
            Some(i) => (&hostport[..i], &hostport[i..]),
            None => (hostport, ""),
        }
    };
    let origin_end = rest_start + auth_len;
    let tail = &url[origin_end..];
    let tail = tail.split_once('#').map_or(tail, |(t, _)| t);
    let (path, query) = match tail.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (tail, None),
    };
    Parts {
        scheme,
        host,
        port,
        path,
        query,
        origin_end,
    }
}

/// The query parameters of a query string: `(name, whole "name=value" component)`.
pub fn params(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .filter(|c| !c.is_empty())
        .map(|c| (c.split_once('=').map_or(c, |(n, _)| n), c))
}

/// `url` with its query replaced by the given components (and no `?` if none).
pub fn with_query(url: &str, parts: &Parts<'_>, components: &[&str]) -> String {
    let q_start = parts.origin_end + parts.path.len();
    let mut out = String::with_capacity(url.len());
    out.push_str(&url[..q_start]);
    if !components.is_empty() {
        out.push('?');
        out.push_str(&components.join("&"));
    }
    let after_query = q_start + parts.query.map_or(0, |q| q.len() + 1);
    out.push_str(&url[after_query..]);
    out
}
