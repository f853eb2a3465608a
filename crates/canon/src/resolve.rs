//! Resolving the hrefs found in a page, as a browser does.

use crate::error::CanonError;
use crate::normalize::{check_scheme, map_parse_error, scheme_of};
use url::Url;

/// Resolves `href` (as written in a page) against `base`, following the WHATWG URL
/// standard like a browser: surrounding whitespace is trimmed, tabs and newlines
/// inside are dropped, `href=""` names the page itself.
///
/// Links that are not http(s) (`mailto:`, `javascript:`, `tel:`, `data:`, ...) are
/// [`CanonError::UnsupportedScheme`] with their [`SchemeKind`](crate::SchemeKind),
/// so the caller can classify them instead of treating them as broken.
///
/// ```
/// let base = url::Url::parse("https://example.com/a/b.html").unwrap();
/// assert_eq!(canon::resolve(&base, "../c?x=1").unwrap().as_str(), "https://example.com/c?x=1");
/// assert_eq!(canon::resolve(&base, " mailto:x@example.com").unwrap_err().kind(), "unsupported_scheme");
/// ```
pub fn resolve(base: &Url, href: &str) -> Result<Url, CanonError> {
    let href = href.trim_matches(|c: char| c <= ' ');
    let cleaned: String;
    let href = if href.contains(['\t', '\n', '\r']) {
        cleaned = href
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        &cleaned
    } else {
        href
    };
    if scheme_of(href).is_some() {
        check_scheme(href)?;
    }
    let url = base.join(href).map_err(|e| map_parse_error(e, href))?;
    check_scheme(url.as_str())?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(CanonError::InvalidHost {
            reason: "no host".to_owned(),
        });
    }
    Ok(url)
}

/// The base URL for a page's relative links: its `<base href>` when that resolves
/// to an http(s) URL, the page's own URL otherwise.
pub fn document_base(page_url: &Url, base_href: Option<&str>) -> Url {
    base_href
        .and_then(|href| resolve(page_url, href).ok())
        .unwrap_or_else(|| page_url.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/dir/page.html?q=1#f").unwrap()
    }

    #[test]
    fn relative_forms() {
        let b = base();
        assert_eq!(
            resolve(&b, "other.html").unwrap().as_str(),
            "https://example.com/dir/other.html"
        );
        assert_eq!(
            resolve(&b, "/root").unwrap().as_str(),
            "https://example.com/root"
        );
        assert_eq!(
            resolve(&b, "//cdn.example.com/x").unwrap().as_str(),
            "https://cdn.example.com/x"
        );
        assert_eq!(
            resolve(&b, "?p=2").unwrap().as_str(),
            "https://example.com/dir/page.html?p=2"
        );
        assert_eq!(
            resolve(&b, "#top").unwrap().as_str(),
            "https://example.com/dir/page.html?q=1#top"
        );
        assert_eq!(
            resolve(&b, "").unwrap().as_str(),
            "https://example.com/dir/page.html?q=1"
        );
        assert_eq!(
            resolve(&b, "\n  /a\tb \n").unwrap().as_str(),
            "https://example.com/ab"
        );
    }

    #[test]
    fn non_web_links_are_classified() {
        let b = base();
        for (href, kind) in [
            ("mailto:a@b.c", crate::SchemeKind::Mail),
            ("tel:+100", crate::SchemeKind::Phone),
            ("JavaScript:void(0)", crate::SchemeKind::Script),
            ("data:text/plain,x", crate::SchemeKind::Inline),
            ("ftp://x/", crate::SchemeKind::OtherNetwork),
        ] {
            match resolve(&b, href) {
                Err(CanonError::UnsupportedScheme { kind: k, .. }) => assert_eq!(k, kind, "{href}"),
                other => panic!("{href}: {other:?}"),
            }
        }
        assert_eq!(
            resolve(&b, "http://[::1").unwrap_err().kind(),
            "invalid_host"
        );
    }

    #[test]
    fn base_href() {
        let page = Url::parse("https://example.com/a/b").unwrap();
        assert_eq!(
            document_base(&page, Some("/x/")).as_str(),
            "https://example.com/x/"
        );
        assert_eq!(
            document_base(&page, Some("javascript:0")).as_str(),
            "https://example.com/a/b"
        );
        assert_eq!(
            document_base(&page, None).as_str(),
            "https://example.com/a/b"
        );
    }
}
