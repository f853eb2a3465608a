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

/// Whether the URL is a page of a paginated list or of paginated comments (`?page=2`,
/// `/page/3/`, `/comment-page-2/`, `?paged=2`, `?pg=`, `?cpage=`): listing pages are for crawlers to find
/// pages through, not for the sitemaps, whatever the sitemaps list.
pub fn paginated(url: &str) -> bool {
    page_number(url).is_some()
}

/// The page number of a page of a paginated list or of paginated comments (see
/// [`paginated`]): `?page=3` is 3, `/comment-page-2/` is 2.
pub fn page_number(url: &str) -> Option<u64> {
    page_part(url).map(|(n, _)| n)
}

/// The URL of the list a numbered page belongs to: `url` without its page number (see
/// [`page_number`]), which is the list's first page as sites write it:
/// `/blog/page/2/` is `/blog/`, `/list?sort=a&page=3` is `/list?sort=a`,
/// `/post/comment-page-2/` is `/post/`. `None` for a URL without a page number.
pub fn without_page_number(url: &str) -> Option<String> {
    let (_, bytes) = page_part(url)?;
    let mut out = String::with_capacity(url.len());
    out.push_str(&url[..bytes.start]);
    out.push_str(&url[bytes.end..]);
    Some(out)
}

/// Whether the URL is a page of paginated comments (`/comment-page-2/`, `?cpage=2`), not
/// of a list.
pub fn comment_page(url: &str) -> bool {
    page_part(url).is_some_and(|(_, bytes)| {
        let part = url[bytes].to_ascii_lowercase();
        part.contains("comment-page-") || part.contains("cpage=")
    })
}

/// The page number of `url` and the bytes that carry it, with one separator (`&page=2`,
/// `/page/2`, `/comment-page-2`).
fn page_part(url: &str) -> Option<(u64, std::ops::Range<usize>)> {
    let p = split(url);
    let number = |v: &str| {
        (!v.is_empty() && v.len() < 19 && v.bytes().all(|b| b.is_ascii_digit()))
            .then(|| v.parse::<u64>().ok())
            .flatten()
    };
    if let Some(q) = p.query {
        let q_start = p.origin_end + p.path.len() + 1;
        let q_end = q_start + q.len();
        let mut at = q_start;
        for kv in q.split('&') {
            let here = at;
            at += kv.len() + 1;
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            if !matches!(
                k.to_ascii_lowercase().as_str(),
                "page" | "paged" | "pg" | "cpage"
            ) {
                continue;
            }
            if let Some(n) = number(v) {
                let end = here + kv.len();
                // The `&` after it, else the `&` or `?` before it.
                let bytes = if end < q_end {
                    here..end + 1
                } else {
                    here - 1..end
                };
                return Some((n, bytes));
            }
        }
    }
    // Non-empty path segments with their offsets in `url`.
    let segments = || {
        let mut at = p.origin_end;
        p.path.split('/').filter_map(move |s| {
            let here = at;
            at += s.len() + 1;
            (!s.is_empty()).then_some((here, s))
        })
    };
    // From the `/` before the segment, when there is one.
    let from = |offset: usize| {
        if url.as_bytes().get(offset.wrapping_sub(1)) == Some(&b'/') {
            offset - 1
        } else {
            offset
        }
    };
    let mut previous: Option<(usize, &str)> = None;
    for (offset, s) in segments() {
        if let Some((at, before)) = previous
            && before.eq_ignore_ascii_case("page")
            && let Some(n) = number(s)
        {
            return Some((n, from(at)..offset + s.len()));
        }
        previous = Some((offset, s));
    }
    segments().find_map(|(offset, s)| {
        let rest = s
            .get(..13)?
            .eq_ignore_ascii_case("comment-page-")
            .then(|| &s[13..])?;
        Some((number(rest)?, from(offset)..offset + s.len()))
    })
}
