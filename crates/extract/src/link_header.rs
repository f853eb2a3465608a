//! HTTP `Link:` header values (RFC 8288), parsed tolerantly.

use serde::{Deserialize, Serialize};

/// One link of a `Link:` header value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkHeaderEntry {
    /// The target between `<` and `>`, trimmed, unresolved.
    pub url: String,
    /// The `rel` tokens, lowercased (first `rel` parameter only, as RFC 8288 says).
    pub rels: Vec<String>,
    /// The `hreflang` parameter, as written.
    pub hreflang: Option<String>,
    /// Every parameter in order: name lowercased, value unquoted (empty for a bare name).
    pub params: Vec<(String, String)>,
}

impl LinkHeaderEntry {
    /// Whether `rel` holds this token (ASCII case-insensitive).
    pub fn has_rel(&self, rel: &str) -> bool {
        self.rels.iter().any(|r| r.eq_ignore_ascii_case(rel))
    }

    /// Whether the entry declares a URL for discovery: rel `shortlink`, `alternate`
    /// without `hreflang` (and not `stylesheet`), `amphtml`, `next` or `prev`
    /// (`previous`).
    pub fn declares_url(&self) -> bool {
        self.has_rel("shortlink")
            || (self.has_rel("alternate") && self.hreflang.is_none() && !self.has_rel("stylesheet"))
            || self.has_rel("amphtml")
            || self.has_rel("next")
            || self.has_rel("prev")
            || self.has_rel("previous")
    }

    /// The first value of a parameter (name ASCII case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// At most this many entries are returned from one header value.
pub const MAX_LINK_HEADER_ENTRIES: usize = 1_000;

/// Parses an HTTP `Link:` header value such as
/// `<https://x/>; rel="canonical", </de/>; rel=alternate; hreflang=de`.
///
/// Tolerant of spacing, quoting (`rel=canonical`, `rel="canonical"`, `rel='canonical'`),
/// case, empty list members and several entries; values of several `Link:` header lines
/// can be joined with `,`. An entry that is malformed (no `<...>` target, junk where a
/// parameter should be) is skipped and parsing resumes at the next entry; this never
/// panics. At most [`MAX_LINK_HEADER_ENTRIES`] entries are returned.
pub fn parse_link_header(value: &str) -> Vec<LinkHeaderEntry> {
    let mut out = Vec::new();
    let mut p = Parser {
        s: value.as_bytes(),
        src: value,
        pos: 0,
    };
    while p.pos < p.s.len() && out.len() < MAX_LINK_HEADER_ENTRIES {
        p.skip(|b| b == b',' || is_ows(b));
        if p.pos >= p.s.len() {
            break;
        }
        match p.entry() {
            Some(e) => out.push(e),
            None => p.skip_to_next_entry(),
        }
    }
    out
}

fn is_ows(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip(&mut self, f: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
    }

    /// Moves past the next ',' that is outside quotes and angle brackets (or to the end).
    fn skip_to_next_entry(&mut self) {
        let mut quote: Option<u8> = None;
        let mut angle = false;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match (quote, b) {
                (Some(_), b'\\') => self.pos += 1,
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"') if !angle => quote = Some(b),
                (None, b'<') => angle = true,
                (None, b'>') => angle = false,
                (None, b',') if !angle => return,
                _ => {}
            }
        }
        self.pos = self.pos.min(self.s.len());
    }

    /// Slices the source at byte positions that are always ASCII delimiters or the ends.
    fn slice(&self, from: usize, to: usize) -> &str {
        self.src.get(from..to).unwrap_or("")
    }

    fn entry(&mut self) -> Option<LinkHeaderEntry> {
        if self.peek()? != b'<' {
            return None;
        }
        self.pos += 1;
        let start = self.pos;
        let end = start + self.s[start..].iter().position(|&b| b == b'>')?;
        let url = self.slice(start, end).trim().to_owned();
        self.pos = end + 1;
        let mut params: Vec<(String, String)> = Vec::new();
        loop {
            self.skip(is_ows);
            match self.peek() {
                None => break,
                Some(b',') => {
                    self.pos += 1;
                    break;
                }
                Some(b';') => {
                    self.pos += 1;
                    self.skip(is_ows);
                    if let Some(param) = self.param()? {
                        params.push(param);
                    }
                }
                Some(_) => return None,
            }
        }
        let rels = params
            .iter()
            .find(|(n, _)| n == "rel")
            .map(|(_, v)| {
                v.split_ascii_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        let hreflang = params
            .iter()
            .find(|(n, _)| n == "hreflang")
            .map(|(_, v)| v.clone());
        Some(LinkHeaderEntry {
            url,
            rels,
            hreflang,
            params,
        })
    }

    /// One parameter after ';': `Some(None)` for an empty one, `None` when malformed.
    #[allow(clippy::option_option)]
    fn param(&mut self) -> Option<Option<(String, String)>> {
        let start = self.pos;
        self.skip(|b| !matches!(b, b'=' | b';' | b',') && !is_ows(b) && b != b'"');
        let name = self.slice(start, self.pos).to_ascii_lowercase();
        self.skip(is_ows);
        if self.peek() != Some(b'=') {
            if name.is_empty() {
                return match self.peek() {
                    None | Some(b';' | b',') => Some(None),
                    _ => None,
                };
            }
            return Some(Some((name, String::new())));
        }
        if name.is_empty() {
            return None;
        }
        self.pos += 1;
        self.skip(is_ows);
        let value = match self.peek() {
            Some(q @ (b'"' | b'\'')) => {
                self.pos += 1;
                let mut v = Vec::new();
                loop {
                    let b = self.peek()?;
                    self.pos += 1;
                    if b == q {
                        break;
                    }
                    if b == b'\\' && q == b'"' {
                        v.push(self.peek()?);
                        self.pos += 1;
                    } else {
                        v.push(b);
                    }
                }
                String::from_utf8_lossy(&v).into_owned()
            }
            _ => {
                let start = self.pos;
                self.skip(|b| !matches!(b, b';' | b','));
                self.slice(start, self.pos).trim().to_owned()
            }
        };
        Some(Some((name, value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_and_hreflang() {
        let v = parse_link_header(
            "<https://x/>; rel=\"canonical\", <https://x/de/>; rel=alternate; hreflang=de",
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].url, "https://x/");
        assert!(v[0].has_rel("canonical"));
        assert_eq!(v[1].rels, ["alternate"]);
        assert_eq!(v[1].hreflang.as_deref(), Some("de"));
        assert_eq!(v[1].param("HrefLang"), Some("de"));
    }

    #[test]
    fn spacing_quoting_case() {
        let v = parse_link_header(
            "  < https://a/b >;REL = 'Canonical' ;title=\"a, \\\"b\\\"; c\" ,,\t<https://a/c>;rel=\"next prev\"",
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].url, "https://a/b");
        assert_eq!(v[0].rels, ["canonical"]);
        assert_eq!(v[0].param("title"), Some("a, \"b\"; c"));
        assert_eq!(v[1].rels, ["next", "prev"]);
    }

    #[test]
    fn comma_inside_url() {
        let v = parse_link_header("<https://a/x,y>; rel=canonical");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].url, "https://a/x,y");
    }

    #[test]
    fn malformed_entries_are_skipped() {
        let v = parse_link_header(
            "https://bad/; rel=canonical, <https://ok/>; rel=canonical, <https://junk/> junk; rel=x, <https://ok2/>",
        );
        let urls: Vec<&str> = v.iter().map(|e| e.url.as_str()).collect();
        assert_eq!(urls, ["https://ok/", "https://ok2/"]);
        assert!(v[1].rels.is_empty());
        assert!(parse_link_header("<unterminated; rel=canonical").is_empty());
        assert!(parse_link_header("").is_empty());
        assert!(parse_link_header(",,, ;").is_empty());
        let v = parse_link_header("<https://a/>; rel=\"unterminated, <https://b/>; rel=canonical");
        assert!(v.is_empty(), "{v:?}");
    }

    #[test]
    fn first_rel_wins_and_bare_params() {
        let v = parse_link_header("<u>; rel=canonical; rel=alternate; crossorigin;;");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].rels, ["canonical"]);
        assert_eq!(v[0].param("crossorigin"), Some(""));
    }

    #[test]
    fn non_ascii_does_not_panic() {
        let v = parse_link_header("<https://ü/é>; rel=canonical; title=ñ€, <x>; t=\"€\"");
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].url, "https://ü/é");
        assert_eq!(v[0].param("title"), Some("ñ€"));
        assert_eq!(v[1].param("t"), Some("€"));
    }
}
