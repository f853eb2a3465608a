//! Character encoding sniffing: BOM, the Content-Type header's `charset`, the HTML
//! Standard's `<meta>` prescan of the first 1024 bytes, then windows-1252.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252, X_USER_DEFINED};
use serde::{Deserialize, Serialize};

/// Where the encoding used to decode a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CharsetSource {
    /// A byte order mark at the start of the body (UTF-8, UTF-16LE or UTF-16BE).
    Bom,
    /// The `charset` parameter of the Content-Type header.
    Header,
    /// A `<meta charset>` or `<meta http-equiv="content-type">` in the first 1024 bytes.
    Meta,
    /// Nothing declared one: windows-1252, the HTML Standard's default for unknown locales.
    Default,
}

/// How many bytes the `<meta>` prescan looks at (HTML Standard, "prescan a byte stream").
pub const PRESCAN_BYTES: usize = 1024;

/// Picks the encoding for `body`; returns it, its source and the length of a BOM to skip.
pub(crate) fn sniff(
    body: &[u8],
    content_type: Option<&str>,
) -> (&'static Encoding, CharsetSource, usize) {
    if let Some((enc, len)) = Encoding::for_bom(body) {
        return (enc, CharsetSource::Bom, len);
    }
    if let Some(enc) = content_type.and_then(charset_from_content_type) {
        return (enc, CharsetSource::Header, 0);
    }
    let window = &body[..body.len().min(PRESCAN_BYTES)];
    if let Some(enc) = prescan(window) {
        return (enc, CharsetSource::Meta, 0);
    }
    (WINDOWS_1252, CharsetSource::Default, 0)
}

/// The encoding named by the `charset` parameter of a Content-Type value, if it names
/// one that the Encoding Standard knows.
///
/// Parameters are `;`-separated, names are case-insensitive, values may be quoted.
pub fn charset_from_content_type(content_type: &str) -> Option<&'static Encoding> {
    let mut rest = content_type.split_once(';')?.1;
    loop {
        let (name, after_name) = rest.split_once('=')?;
        // A parameter without '=' before this one: drop everything up to its ';'.
        let name = name.rsplit(';').next().unwrap_or(name).trim();
        let after_name = after_name.trim_start();
        let (value, next) = if let Some(quoted) = after_name.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    _ => value.push(c),
                }
            }
            let tail = &quoted[end.min(quoted.len())..];
            (value, tail.split_once(';').map(|(_, t)| t))
        } else {
            match after_name.split_once(';') {
                Some((v, t)) => (v.trim().to_owned(), Some(t)),
                None => (after_name.trim().to_owned(), None),
            }
        };
        if name.eq_ignore_ascii_case("charset") {
            return Encoding::for_label(value.as_bytes());
        }
        rest = next?;
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The HTML Standard's "prescan a byte stream to determine its encoding", over `bytes`
/// (the caller passes at most the first 1024 bytes).
pub(crate) fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        if rest.starts_with(b"<!--") {
            // The first '>' preceded by "--", which may overlap the opening "<!--".
            match find(&rest[2..], b"-->") {
                Some(i) => pos += 2 + i + 3,
                None => return None,
            }
        } else if rest.len() >= 6
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            pos += 6;
            if let Some(enc) = meta_attributes(bytes, &mut pos) {
                return Some(enc);
            }
        } else if rest[0] == b'<'
            && (rest.get(1).is_some_and(u8::is_ascii_alphabetic)
                || (rest.get(1) == Some(&b'/') && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            // Skip the tag name, then its attributes.
            while pos < bytes.len() && !is_space(bytes[pos]) && bytes[pos] != b'>' {
                pos += 1;
            }
            while get_attribute(bytes, &mut pos).is_some() {}
            pos += 1;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            match rest.iter().position(|&b| b == b'>') {
                Some(i) => pos += i + 1,
                None => return None,
            }
        } else {
            pos += 1;
        }
    }
    None
}

/// The attribute loop of the prescan for one `<meta>`; `pos` is just after "<meta".
fn meta_attributes(bytes: &[u8], pos: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    while let Some((name, value)) = get_attribute(bytes, pos) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" => {
                if charset.is_none()
                    && let Some(enc) = charset_from_meta_content(&value)
                {
                    charset = Some(enc);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    match need_pragma {
        None => return None,
        Some(true) if !got_pragma => return None,
        _ => {}
    }
    let enc = charset?;
    Some(
        if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE {
            UTF_8
        } else if enc == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            enc
        },
    )
}

/// The HTML Standard's "get an attribute" for the prescan: lowercased name and value,
/// or `None` at '>' or at the end of the input.
fn get_attribute(bytes: &[u8], pos: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while *pos < bytes.len() && (is_space(bytes[*pos]) || bytes[*pos] == b'/') {
        *pos += 1;
    }
    if *pos >= bytes.len() || bytes[*pos] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    // The name.
    loop {
        let b = *bytes.get(*pos)?;
        if b == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_space(b) {
            while *pos < bytes.len() && is_space(bytes[*pos]) {
                *pos += 1;
            }
            if *bytes.get(*pos)? != b'=' {
                return Some((name, value));
            }
            *pos += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Some((name, value));
        }
        name.push(b.to_ascii_lowercase());
        *pos += 1;
    }
    // The value.
    while *pos < bytes.len() && is_space(bytes[*pos]) {
        *pos += 1;
    }
    let b = *bytes.get(*pos)?;
    if b == b'"' || b == b'\'' {
        *pos += 1;
        loop {
            let c = *bytes.get(*pos)?;
            *pos += 1;
            if c == b {
                return Some((name, value));
            }
            value.push(c.to_ascii_lowercase());
        }
    }
    if b == b'>' {
        return Some((name, value));
    }
    loop {
        let c = *bytes.get(*pos)?;
        if is_space(c) || c == b'>' {
            return Some((name, value));
        }
        value.push(c.to_ascii_lowercase());
        *pos += 1;
    }
}

/// The HTML Standard's "extract a character encoding from a meta element" (the
/// `content` of `<meta http-equiv=content-type>`).
fn charset_from_meta_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    loop {
        let i = find_ignore_case(&content[pos..], b"charset")?;
        pos += i + b"charset".len();
        while pos < content.len() && is_space(content[pos]) {
            pos += 1;
        }
        if content.get(pos) == Some(&b'=') {
            pos += 1;
            break;
        }
    }
    while pos < content.len() && is_space(content[pos]) {
        pos += 1;
    }
    let rest = &content[pos..];
    match rest.first() {
        None => None,
        Some(&q) if q == b'"' || q == b'\'' => {
            let end = rest[1..].iter().position(|&b| b == q)?;
            Encoding::for_label(&rest[1..1 + end])
        }
        Some(_) => {
            let end = rest
                .iter()
                .position(|&b| is_space(b) || b == b';')
                .unwrap_or(rest.len());
            Encoding::for_label(&rest[..end])
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(enc: Option<&'static Encoding>) -> Option<&'static str> {
        enc.map(Encoding::name)
    }

    #[test]
    fn content_type_charset_forms() {
        let cases = [
            ("text/html; charset=utf-8", Some("UTF-8")),
            ("text/html;charset=Windows-1251", Some("windows-1251")),
            ("text/html; CHARSET=\"shift_jis\"", Some("Shift_JIS")),
            ("text/html; foo=bar; charset = 'x' ", None),
            ("text/html; foo=\"a;b\"; charset=koi8-r", Some("KOI8-R")),
            ("text/html; charset=\"utf\\-8\"", Some("UTF-8")),
            ("text/html; charset=nonsense", None),
            ("text/html", None),
            ("text/html; charset=", None),
            ("text/html; junk; charset=latin1", Some("windows-1252")),
        ];
        for (ct, want) in cases {
            assert_eq!(label(charset_from_content_type(ct)), want, "{ct}");
        }
    }

    #[test]
    fn prescan_forms() {
        let cases: [(&[u8], Option<&str>); 10] = [
            (b"<meta charset=utf-8>", Some("UTF-8")),
            (b"<META CHARSET='windows-1251'>", Some("windows-1251")),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">",
                Some("Shift_JIS"),
            ),
            // content without the pragma is ignored
            (b"<meta content=\"text/html; charset=koi8-r\">", None),
            // pragma after content still counts
            (
                b"<meta content='text/html;charset=koi8-r' http-equiv=content-type>",
                Some("KOI8-R"),
            ),
            // inside a comment: ignored
            (
                b"<!-- <meta charset=koi8-r> --><meta charset=iso-8859-2>",
                Some("ISO-8859-2"),
            ),
            // UTF-16 from meta means UTF-8
            (b"<meta charset=utf-16le>", Some("UTF-8")),
            // attribute values in other tags are skipped
            (
                b"<div title='<meta charset=koi8-r>'><meta charset=gbk>",
                Some("GBK"),
            ),
            (b"<meta name=x><meta charset=euc-kr>", Some("EUC-KR")),
            (b"<meta charset", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                label(prescan(bytes)),
                want,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn sniff_order() {
        let body = b"\xEF\xBB\xBF<meta charset=koi8-r>";
        let (enc, src, bom) = sniff(body, Some("text/html; charset=windows-1251"));
        assert_eq!((enc.name(), src, bom), ("UTF-8", CharsetSource::Bom, 3));
        let body = b"<meta charset=koi8-r>";
        let (enc, src, _) = sniff(body, Some("text/html; charset=windows-1251"));
        assert_eq!((enc.name(), src), ("windows-1251", CharsetSource::Header));
        let (enc, src, _) = sniff(body, Some("text/html"));
        assert_eq!((enc.name(), src), ("KOI8-R", CharsetSource::Meta));
        let (enc, src, _) = sniff(b"<p>hi", None);
        assert_eq!((enc.name(), src), ("windows-1252", CharsetSource::Default));
    }

    #[test]
    fn prescan_window_is_bounded() {
        let mut body = vec![b' '; PRESCAN_BYTES];
        body.extend_from_slice(b"<meta charset=koi8-r>");
        let (_, src, _) = sniff(&body, None);
        assert_eq!(src, CharsetSource::Default);
    }
}
