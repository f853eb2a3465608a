//! Response headers: every fetch's headers (redirect hops included) kept bounded, as one
//! text per response (`response_headers`), written with the page's record and read back
//! for the URL detail.
//!
//! The bounds: at most [`MAX_HEADERS`] headers and [`MAX_HEADERS_BYTES`] of text a
//! response; a value longer than [`MAX_VALUE_BYTES`] is cut and ends with
//! [`CUT_MARKER`] and its full length. Names are lower case. Values are what the server
//! sent, decoded as UTF-8 (invalid bytes replaced), with line breaks and other control
//! characters replaced by spaces: they are the crawled site's words, to be escaped by
//! whoever shows them.

use sqlx::Row;

use crate::error::SqlContext;
use crate::{AuditId, Store, StoreError, UrlId};

/// Headers kept a response; the rest are counted in [`ResponseHeaders::omitted`].
pub const MAX_HEADERS: usize = 32;
/// Bytes of `name: value` lines kept a response; headers past it are counted in
/// [`ResponseHeaders::omitted`].
pub const MAX_HEADERS_BYTES: usize = 8 * 1024;
/// Bytes of one value kept; a longer value is cut and marked.
pub const MAX_VALUE_BYTES: usize = 1024;
/// What ends a cut value, followed by its full length in bytes.
pub const CUT_MARKER: &str = " […cut, bytes in all: ";

/// One response's headers, bounded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseHeaders {
    /// `name: value` lines, in the order the server sent them.
    pub text: String,
    /// Headers not kept: past [`MAX_HEADERS`] or [`MAX_HEADERS_BYTES`].
    pub omitted: u32,
}

impl ResponseHeaders {
    /// The headers of one response (name, raw value bytes), in the order sent, bounded.
    pub fn bounded<'a>(headers: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Self {
        let mut kept = 0usize;
        let mut out = ResponseHeaders::default();
        for (name, value) in headers {
            let line = line(name, value);
            if kept >= MAX_HEADERS || out.text.len() + line.len() > MAX_HEADERS_BYTES {
                out.omitted = out.omitted.saturating_add(1);
                continue;
            }
            out.text.push_str(&line);
            kept += 1;
        }
        out
    }

    /// The kept headers as (name, value), in the order sent.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.text
            .lines()
            .filter_map(|l| l.split_once(": ").or_else(|| l.split_once(':')))
            .collect()
    }
}

/// `name: value\n`, the name lower case, the value text without control characters,
/// cut at [`MAX_VALUE_BYTES`] with the marker.
fn line(name: &str, value: &[u8]) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_control() || c == ':' {
                ' '
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let full = String::from_utf8_lossy(value);
    let mut value: String = full
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if value.len() > MAX_VALUE_BYTES {
        let mut end = MAX_VALUE_BYTES;
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        value.truncate(end);
        value.push_str(CUT_MARKER);
        value.push_str(&full.len().to_string());
        value.push(']');
    }
    format!("{name}: {value}\n")
}

impl Store {
    /// The headers of `url_id`'s response, if it was fetched by a build that stores them.
    pub async fn response_headers(
        &self,
        audit: AuditId,
        url_id: UrlId,
    ) -> Result<Option<ResponseHeaders>, StoreError> {
        let row = sqlx::query(
            "SELECT headers, omitted FROM response_headers WHERE audit_id = ? AND url_id = ?",
        )
        .bind(audit.0)
        .bind(url_id)
        .fetch_optional(self.pool())
        .await
        .ctx("reading response headers")?;
        Ok(row.map(|r| ResponseHeaders {
            text: r.get(0),
            omitted: u32::try_from(r.get::<i64, _>(1)).unwrap_or(0),
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_lower_case_values_kept_in_order() {
        let h = ResponseHeaders::bounded([
            ("Content-Type", b"text/html".as_slice()),
            ("link", b"</a>; rel=\"canonical\"".as_slice()),
        ]);
        assert_eq!(
            h.pairs(),
            [
                ("content-type", "text/html"),
                ("link", "</a>; rel=\"canonical\"")
            ]
        );
        assert_eq!(h.omitted, 0);
    }

    #[test]
    fn long_values_are_cut_with_a_marker() {
        let long = vec![b'x'; 5000];
        let h = ResponseHeaders::bounded([("x-long", long.as_slice())]);
        let (_, v) = h.pairs()[0];
        assert!(v.starts_with(&"x".repeat(MAX_VALUE_BYTES)));
        assert!(v.ends_with(&format!("{CUT_MARKER}5000]")), "{v}");
        assert!(v.len() < MAX_VALUE_BYTES + 40);
    }

    #[test]
    fn cut_respects_characters() {
        let long = "é".repeat(1000);
        let h = ResponseHeaders::bounded([("x-accents", long.as_bytes())]);
        let (_, v) = h.pairs()[0];
        assert!(v.starts_with(&"é".repeat(MAX_VALUE_BYTES / 2)));
    }

    #[test]
    fn count_and_size_are_bounded() {
        let names: Vec<String> = (0..50).map(|i| format!("x-h{i}")).collect();
        let h = ResponseHeaders::bounded(names.iter().map(|n| (n.as_str(), b"1".as_slice())));
        assert_eq!(h.pairs().len(), MAX_HEADERS);
        assert_eq!(h.omitted, 18);

        let big = vec![b'y'; 2000];
        let h = ResponseHeaders::bounded(names.iter().map(|n| (n.as_str(), big.as_slice())));
        assert!(h.text.len() <= MAX_HEADERS_BYTES, "{}", h.text.len());
        assert_eq!(h.pairs().len() as u32 + h.omitted, 50);
        assert!(h.pairs().len() >= 7, "{}", h.pairs().len());
    }

    #[test]
    fn control_characters_never_reach_the_text() {
        let h =
            ResponseHeaders::bounded([("x-evil", b"a\r\nset-cookie: b\x1b[31m\xff".as_slice())]);
        assert_eq!(h.pairs().len(), 1);
        assert!(!h.text.trim_end().contains(['\n', '\r', '\x1b']));
        assert_eq!(h.pairs()[0].1, "a  set-cookie: b [31m\u{fffd}");
    }
}
