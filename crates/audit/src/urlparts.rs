//! Zero-copy views of absolute URLs already in canonical (rfc3986) form, and the
//! URL-only comparison of two variants of one page.

pub(crate) use rules::url::{comment_page, page_number, paginated, split, without_page_number};

/// The host without a leading `www.` label.
pub(crate) fn strip_www(host: &str) -> &str {
    match host.get(..4) {
        Some(w) if w.eq_ignore_ascii_case("www.") && host.len() > 4 => &host[4..],
        _ => host,
    }
}

/// Whether the host is an IP literal.
pub(crate) fn is_ip(host: &str) -> bool {
    host.starts_with('[')
        || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Whether a raw href is an absolute http(s) URL (not relative, not scheme-relative).
pub(crate) fn is_absolute_http(href: &str) -> bool {
    let h = href.trim_start();
    let lower = |n: usize| h.get(..n).map(str::to_ascii_lowercase);
    lower(7).as_deref() == Some("http://") || lower(8).as_deref() == Some("https://")
}

/// How one URL is a variant of another, judged on the URLs alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Variant {
    /// Another host name (www, IP address, alias).
    Host,
    /// http vs https.
    Scheme,
    /// Letter case of the path.
    Case,
    /// Trailing (or doubled) slash.
    Slash,
    /// A directory index file name.
    Index,
    /// Same path, other query.
    Param,
}

/// Directory index names recognised when comparing two paths.
fn is_index_name(name: &str, extra: &[String]) -> bool {
    canon::DEFAULT_DIRECTORY_INDEXES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(name))
        || extra.iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// How `a` is a variant of `b`, if it is one of the known kinds: the paths must be
/// equal or differ only by case, slashes or a directory index; then the first
/// difference of host, scheme, path, query names the variant.
pub(crate) fn variant(a: &str, b: &str, indexes: &[String]) -> Option<Variant> {
    let (pa, pb) = (split(a), split(b));
    let index_of = |long: &str, short: &str| {
        short.ends_with('/')
            && long
                .strip_prefix(short)
                .is_some_and(|n| is_index_name(n, indexes))
    };
    let path = if pa.path == pb.path {
        None
    } else if pa.path.eq_ignore_ascii_case(pb.path) {
        Some(Variant::Case)
    } else if pa.path.trim_end_matches('/') == pb.path.trim_end_matches('/')
        || collapse(pa.path) == collapse(pb.path)
    {
        Some(Variant::Slash)
    } else if index_of(pa.path, pb.path) || index_of(pb.path, pa.path) {
        Some(Variant::Index)
    } else {
        return None;
    };
    if !pa.host.eq_ignore_ascii_case(pb.host) || pa.port != pb.port {
        return Some(Variant::Host);
    }
    if !pa.scheme.eq_ignore_ascii_case(pb.scheme) {
        return Some(Variant::Scheme);
    }
    path.or((pa.query != pb.query).then_some(Variant::Param))
}

fn collapse(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

pub(crate) use rules::url::params;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_of_lists_and_comments() {
        let n = |u: &str| page_number(&format!("https://e.com{u}"));
        assert_eq!(n("/news/post/comment-page-2/"), Some(2));
        assert_eq!(n("/blog/page/3/"), Some(3));
        assert_eq!(n("/list?sort=a&page=1"), Some(1));
        assert_eq!(n("/?paged=4"), Some(4));
        assert_eq!(n("/?p=31"), None, "WordPress post ids are not pages");
        assert_eq!(n("/page/about/"), None);
        assert_eq!(n("/2022/06/"), None);
        assert!(!paginated("https://e.com/shop/?color=red"));
    }

    #[test]
    fn comment_pages_are_told_from_list_pages() {
        let c = |u: &str| comment_page(&format!("https://e.com{u}"));
        assert!(c("/2024/01/post/comment-page-1/"));
        assert!(c("/?p=7&cpage=2"));
        assert!(!c("/blog/page/2/"));
        assert!(!c("/list?page=2"));
        assert!(!c("/2024/01/post/"));
    }

    #[test]
    fn the_list_of_a_numbered_page() {
        let first = |u: &str| {
            without_page_number(&format!("https://e.com{u}"))
                .map(|f| f.trim_start_matches("https://e.com").to_owned())
        };
        assert_eq!(first("/blog/page/2/").as_deref(), Some("/blog/"));
        assert_eq!(first("/blog/page/2").as_deref(), Some("/blog"));
        assert_eq!(first("/page/3/").as_deref(), Some("/"));
        assert_eq!(
            first("/news/post/comment-page-2/").as_deref(),
            Some("/news/post/")
        );
        assert_eq!(first("/list?page=2").as_deref(), Some("/list"));
        assert_eq!(
            first("/list?sort=a&page=2").as_deref(),
            Some("/list?sort=a")
        );
        assert_eq!(
            first("/list?page=2&sort=a").as_deref(),
            Some("/list?sort=a")
        );
        assert_eq!(first("/list?x&paged=2#top").as_deref(), Some("/list?x#top"));
        assert_eq!(first("/page/about/"), None);
        assert_eq!(first("/?p=31"), None);
    }

    #[test]
    fn splits() {
        let p = split("https://user@Example.com:8443/a/b?x=1&y#frag");
        assert_eq!(
            (p.scheme, p.host, p.port, p.path, p.query),
            ("https", "Example.com", ":8443", "/a/b", Some("x=1&y"))
        );
        let p = split("http://[::1]/");
        assert_eq!((p.host, p.port, p.path), ("[::1]", "", "/"));
        assert_eq!(split("http://h").path, "");
    }

    #[test]
    fn variants() {
        let v = |a, b| variant(a, b, &[]);
        assert_eq!(v("http://www.x.com/", "http://x.com/"), Some(Variant::Host));
        assert_eq!(v("http://x.com/", "https://x.com/"), Some(Variant::Scheme));
        assert_eq!(v("http://x.com/A", "http://x.com/a"), Some(Variant::Case));
        assert_eq!(v("http://x.com/a/", "http://x.com/a"), Some(Variant::Slash));
        assert_eq!(
            v("http://x.com/a//b", "http://x.com/a/b"),
            Some(Variant::Slash)
        );
        assert_eq!(
            v("http://x.com/a/index.html", "http://x.com/a/"),
            Some(Variant::Index)
        );
        assert_eq!(
            v("http://x.com/a?b=1", "http://x.com/a"),
            Some(Variant::Param)
        );
        assert_eq!(v("http://x.com/a", "http://x.com/b"), None);
        assert_eq!(v("http://a.x.com/", "http://x.com/a/"), None);
        assert_eq!(v("http://x.com/a", "http://x.com/a"), None);
        assert_eq!(v("http://x.com/myindex.html", "http://x.com/"), None);
    }

    #[test]
    fn hrefs() {
        assert!(is_absolute_http("HTTPS://x/"));
        assert!(!is_absolute_http("//x/"));
        assert!(!is_absolute_http("/a"));
        assert!(is_ip("10.0.0.1") && !is_ip("a1.com"));
        assert_eq!(strip_www("WWW.x.com"), "x.com");
    }
}
