//! Google Search Console inputs: a page-indexing report's drill-down export (the
//! `Table.csv` of one reason, with the columns `URL` and `Last crawled`, named by its
//! reason) and URL Inspection API responses saved as JSON (one response, a JSON array of
//! them, or JSON lines), each with the URL it inspected.
//!
//! An inspection response holds `inspectionResult.indexStatusResult` with
//! `googleCanonical`, `userCanonical`, `coverageState`, `verdict`, `lastCrawlTime`, ...
//! (the API's `IndexStatusInspectionResult`). The response itself does not name the
//! inspected URL: it is read from an `inspectionUrl` (or `url`) member next to
//! `inspectionResult`, as the request names it, or else from the `id` parameter of the
//! response's `inspectionResult.inspectionResultLink`. Google's canonical is listed
//! too (once, without Search Console facts of its own), so that the audit fetches it.

use std::io::Read;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Collector, Options, RejectKind, to_url};

/// Most bytes of a JSON input read: past it the rest is not read.
pub const MAX_JSON_BYTES: u64 = 256 << 20;
/// Longest text kept from one Search Console field (a reason, a state, a date, a URL).
pub const MAX_FIELD_CHARS: usize = 2048;

/// What Google Search Console says about one URL: the page-indexing reasons whose
/// exports list it and what a URL inspection answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConsole {
    /// The page-indexing reasons whose exports list the URL ("Duplicate, Google chose
    /// different canonical than user", ...), each once, in the order read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The export's "Last crawled" cell, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_crawled: Option<String>,
    /// Whether a URL inspection result was read for it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inspected: bool,
    /// `googleCanonical`: the URL Google selected as canonical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub google_canonical: Option<String>,
    /// `userCanonical`: the URL the page declares canonical, as Google read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_canonical: Option<String>,
    /// `coverageState` ("Duplicate, Google chose different canonical than user", ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage_state: Option<String>,
    /// `verdict` (`PASS`, `NEUTRAL`, `FAIL`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// `lastCrawlTime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_crawl_time: Option<String>,
}

impl SearchConsole {
    /// Adds what `other` says (reasons once each; inspection fields `other` has win).
    pub fn merge(&mut self, other: &SearchConsole) {
        for r in &other.reasons {
            if !self.reasons.contains(r) {
                self.reasons.push(r.clone());
            }
        }
        let take = |mine: &mut Option<String>, theirs: &Option<String>| {
            if theirs.is_some() {
                mine.clone_from(theirs);
            }
        };
        take(&mut self.last_crawled, &other.last_crawled);
        take(&mut self.google_canonical, &other.google_canonical);
        take(&mut self.user_canonical, &other.user_canonical);
        take(&mut self.coverage_state, &other.coverage_state);
        take(&mut self.verdict, &other.verdict);
        take(&mut self.last_crawl_time, &other.last_crawl_time);
        self.inspected |= other.inspected;
    }
}

/// A field's text, trimmed and cut at [`MAX_FIELD_CHARS`]; `None` when empty.
pub(crate) fn field(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.chars().take(MAX_FIELD_CHARS).collect())
}

/// The reason a page-indexing export lists, from its file name: the name without its
/// folders and its extension (`Table.csv`, the name Search Console gives every export,
/// names no reason).
pub fn reason_from_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let base = base.strip_suffix(".gz").unwrap_or(base);
    let stem = match base.rfind('.') {
        Some(i) if i > 0 => &base[..i],
        _ => base,
    };
    field(stem).filter(|s| !s.eq_ignore_ascii_case("table") && s != "-")
}

/// Reads URL Inspection API results (a response, an array of them, or JSON lines) into
/// `out`.
pub(crate) fn read_json(reader: impl Read, options: &Options, out: &mut Collector) {
    let mut bytes = Vec::new();
    let mut limited = reader.take(MAX_JSON_BYTES + 1);
    if let Err(e) = limited.read_to_end(&mut bytes) {
        out.list.lines = lines_in(&bytes);
        out.stopped(out.list.lines.max(1), &e);
        return;
    }
    if bytes.len() as u64 > MAX_JSON_BYTES {
        bytes.truncate(MAX_JSON_BYTES as usize);
        out.list.lines = lines_in(&bytes);
        out.stopped(
            out.list.lines,
            &std::io::Error::other(format!("longer than {MAX_JSON_BYTES} bytes")),
        );
        return;
    }
    out.list.lines = lines_in(&bytes);
    let line_at = |offset: usize| {
        bytes[..offset.min(bytes.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1
    };
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    if bytes.get(start) == Some(&b'[') {
        let items: Vec<&serde_json::value::RawValue> = match serde_json::from_slice(&bytes) {
            Ok(items) => items,
            Err(e) => {
                out.reject(
                    (e.line() as u64).clamp(1, out.list.lines.max(1)),
                    RejectKind::NotJson,
                    format!("not a JSON array of inspection results ({e})"),
                    b"",
                );
                return;
            }
        };
        for raw in items {
            let offset = raw.get().as_ptr() as usize - bytes.as_ptr() as usize;
            let line = line_at(offset) + leading_newlines(raw.get());
            match serde_json::from_str::<Value>(raw.get()) {
                Ok(value) => inspection(&value, line, raw.get(), options, out),
                Err(e) => out.reject(line, RejectKind::NotJson, e.to_string(), b""),
            }
        }
        return;
    }
    // JSON lines: the first line is a whole value and more follow. Each line is then
    // read alone, so that one broken line never swallows the next.
    let first_end = bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| start + i);
    if let Some(end) = first_end
        && bytes[end..].iter().any(|b| !b.is_ascii_whitespace())
        && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes[start..end]).is_ok()
    {
        read_rest(&bytes, 0, options, out);
        return;
    }
    let mut stream = serde_json::Deserializer::from_slice(&bytes).into_iter::<Value>();
    loop {
        let from = stream.byte_offset();
        let skipped = bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let line = line_at(from + skipped);
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                let text = &bytes[from + skipped..stream.byte_offset()];
                inspection(&value, line, &String::from_utf8_lossy(text), options, out);
            }
            Some(Err(e)) => {
                let at = from + skipped;
                let first = line_at(at);
                let end = bytes[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| at + i);
                // An unexpected end is reported after the last newline: on the last line.
                let lines = out.list.lines;
                out.reject(
                    (e.line() as u64).clamp(1, lines.max(1)),
                    RejectKind::NotJson,
                    format!("not JSON ({e})"),
                    &bytes[at..end],
                );
                // JSON lines: the line that does not parse is left out, the next ones
                // are read. A document broken across lines stops here.
                if e.line() as u64 == first && end < bytes.len() {
                    read_rest(&bytes, end + 1, options, out);
                }
                break;
            }
        }
    }
}

/// Reads JSON lines from `bytes[start..]`, rejecting the lines that do not parse.
fn read_rest(bytes: &[u8], start: usize, options: &Options, out: &mut Collector) {
    let mut offset = start;
    for chunk in bytes[start..].split_inclusive(|&b| b == b'\n') {
        let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        offset += chunk.len();
        let text = String::from_utf8_lossy(chunk);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(value) => inspection(&value, line, text, options, out),
            Err(e) => out.reject(
                line,
                RejectKind::NotJson,
                format!("not JSON ({e})"),
                text.as_bytes(),
            ),
        }
    }
}

/// Newlines before a value's first non-blank byte.
fn leading_newlines(text: &str) -> u64 {
    text.bytes()
        .take_while(u8::is_ascii_whitespace)
        .filter(|&b| b == b'\n')
        .count() as u64
}

/// Lines in `bytes`: newlines, plus a last line without one.
fn lines_in(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// One inspection result (`value`, read at `line`) into `out`.
fn inspection(value: &Value, line: u64, text: &str, options: &Options, out: &mut Collector) {
    let sample = text.as_bytes();
    let Some(object) = value.as_object() else {
        out.reject(
            line,
            RejectKind::NotInspection,
            "not a URL inspection result (a JSON object)".into(),
            sample,
        );
        return;
    };
    let result = object.get("inspectionResult").and_then(Value::as_object);
    let Some(status) = result
        .and_then(|r| r.get("indexStatusResult"))
        .and_then(Value::as_object)
    else {
        out.reject(
            line,
            RejectKind::NotInspection,
            "no inspectionResult.indexStatusResult".into(),
            sample,
        );
        return;
    };
    let named = ["inspectionUrl", "url"]
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| {
            result
                .and_then(|r| r.get("inspectionResultLink"))
                .and_then(Value::as_str)
                .and_then(|link| url::Url::parse(link).ok())
                .and_then(|link| {
                    link.query_pairs()
                        .find(|(k, _)| k == "id")
                        .map(|(_, v)| v.into_owned())
                })
        });
    let Some(named) = named else {
        out.reject(
            line,
            RejectKind::NotInspection,
            "the inspected URL is not named (inspectionUrl, or the id of inspectionResultLink)"
                .into(),
            sample,
        );
        return;
    };
    let url = match to_url(named.trim(), options.site.as_ref()) {
        Ok(url) => url,
        Err((kind, reason)) => {
            out.reject(line, kind, reason, named.as_bytes());
            return;
        }
    };
    let text_of = |k: &str| status.get(k).and_then(Value::as_str).and_then(field);
    let facts = SearchConsole {
        inspected: true,
        google_canonical: text_of("googleCanonical"),
        user_canonical: text_of("userCanonical"),
        coverage_state: text_of("coverageState"),
        verdict: text_of("verdict"),
        last_crawl_time: text_of("lastCrawlTime"),
        ..SearchConsole::default()
    };
    let google = facts
        .google_canonical
        .as_deref()
        .and_then(|g| to_url(g, options.site.as_ref()).ok());
    out.console(&url, line, facts);
    // Google's canonical is audited too: its signals are compared with the page's.
    if let Some(google) = google {
        out.also(&google, line);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::{Format, Options, RejectKind, read, reason_from_name};

    fn options(reason: Option<&str>) -> Options {
        Options {
            reason: reason.map(str::to_owned),
            ..Options::default()
        }
    }

    fn inspected(url: &str, google: &str, user: &str) -> String {
        format!(
            r#"{{"inspectionUrl":"{url}","inspectionResult":{{"indexStatusResult":{{"verdict":"NEUTRAL","coverageState":"Duplicate, Google chose different canonical than user","googleCanonical":"{google}","userCanonical":"{user}","lastCrawlTime":"2026-11-20T10:00:00Z"}}}}}}"#
        )
    }

    #[test]
    fn a_page_indexing_export_is_read_with_its_reason_and_crawl_dates() {
        let csv = "URL,Last crawled\nhttps://example.test/a,2026-11-20\n\"=HYPERLINK(\"\"http://evil.test\"\")\",2026-11-19\nhttps://example.test/b,\"=cmd|' /C calc'!A0\"\n,2026-11-18\n";
        let reason = reason_from_name("exports/Duplicate without user-selected canonical.csv");
        let list = read(csv.as_bytes(), &options(reason.as_deref())).unwrap();
        assert_eq!(list.format, Format::SearchConsoleTable);
        assert_eq!(list.urls.len(), 2);
        let a = list.urls[0].search_console.as_ref().unwrap();
        assert_eq!(a.reasons, ["Duplicate without user-selected canonical"]);
        assert_eq!(a.last_crawled.as_deref(), Some("2026-11-20"));
        // A formula in a date cell is kept as text; in the URL cell it is no URL.
        let b = list.urls[1].search_console.as_ref().unwrap();
        assert_eq!(b.last_crawled.as_deref(), Some("=cmd|' /C calc'!A0"));
        let lines: Vec<(u64, RejectKind)> = list.samples.iter().map(|s| (s.line, s.kind)).collect();
        assert_eq!(lines, [(3, RejectKind::NotUrl), (5, RejectKind::NoUrlCell)]);
        // A plain CSV export stays a CSV file without Search Console facts.
        let plain = read(
            "Address,Status\nhttps://example.test/a,200\n".as_bytes(),
            &options(None),
        )
        .unwrap();
        assert_eq!(plain.format, Format::Csv);
        assert!(plain.urls[0].search_console.is_none());
        assert_eq!(reason_from_name("Table.csv"), None);
        assert_eq!(
            reason_from_name("C:\\gsc\\Page with redirect.csv").as_deref(),
            Some("Page with redirect")
        );
    }

    #[test]
    fn inspection_results_are_read_as_one_response_an_array_or_json_lines() {
        let one = "{\n  \"inspectionResult\": {\n    \"inspectionResultLink\": \"https://search.google.com/search-console/inspect?resource_id=https://example.test/&id=https%3A%2F%2Fexample.test%2Fa%3Fx%3D1\",\n    \"indexStatusResult\": { \"googleCanonical\": \"https://example.test/a\", \"verdict\": \"NEUTRAL\" }\n  }\n}\n";
        let list = read(one.as_bytes(), &options(None)).unwrap();
        assert_eq!(list.format, Format::UrlInspection);
        assert_eq!(list.urls[0].url, "https://example.test/a?x=1");
        let facts = list.urls[0].search_console.as_ref().unwrap();
        assert!(facts.inspected);
        assert_eq!(
            facts.google_canonical.as_deref(),
            Some("https://example.test/a")
        );

        let array = format!(
            "[\n{},\n{}\n]\n",
            inspected(
                "https://example.test/a",
                "https://example.test/b",
                "https://example.test/a"
            ),
            inspected(
                "https://example.test/c",
                "https://example.test/c",
                "https://example.test/c"
            )
        );
        let list = read(array.as_bytes(), &options(None)).unwrap();
        let urls: Vec<(&str, u64)> = list.urls.iter().map(|u| (u.url.as_str(), u.line)).collect();
        // Google's canonical is listed too, without facts of its own.
        assert_eq!(
            urls,
            [
                ("https://example.test/a", 2),
                ("https://example.test/b", 2),
                ("https://example.test/c", 3)
            ]
        );
        assert!(list.urls[1].search_console.is_none());
        assert_eq!(list.repeated, 0);
        assert_eq!(
            list.urls[0]
                .search_console
                .as_ref()
                .unwrap()
                .user_canonical
                .as_deref(),
            Some("https://example.test/a")
        );

        let lines = format!(
            "{}\n{{\"inspectionUrl\": \"https://example.test/x\", oops\n[1,2]\n{{\"inspectionResult\":{{\"indexStatusResult\":{{}}}}}}\n{}\n",
            inspected(
                "https://example.test/a",
                "https://example.test/b",
                "https://example.test/a"
            ),
            inspected("https://example.test/d", "https://example.test/d", "")
        );
        let list = read(lines.as_bytes(), &options(None)).unwrap();
        let urls: Vec<(&str, u64)> = list.urls.iter().map(|u| (u.url.as_str(), u.line)).collect();
        assert_eq!(
            urls,
            [
                ("https://example.test/a", 1),
                ("https://example.test/b", 1),
                ("https://example.test/d", 5)
            ]
        );
        let bad: Vec<(u64, RejectKind)> = list.samples.iter().map(|s| (s.line, s.kind)).collect();
        assert_eq!(
            bad,
            [
                (2, RejectKind::NotJson),
                (3, RejectKind::NotInspection),
                (4, RejectKind::NotInspection)
            ]
        );
        assert_eq!(
            list.urls[2].search_console.as_ref().unwrap().user_canonical,
            None
        );
    }

    #[test]
    fn broken_or_huge_json_is_a_rejected_line_never_a_panic() {
        let broken = "{\n  \"inspectionResult\": {\n    \"indexStatusResult\": \n";
        let list = read(broken.as_bytes(), &options(None)).unwrap();
        assert!(list.urls.is_empty());
        assert_eq!(list.samples[0].kind, RejectKind::NotJson);
        assert_eq!(list.samples[0].line, 3);
        let array = "[{\"a\": 1}, nope]";
        let list = read(array.as_bytes(), &options(None)).unwrap();
        assert_eq!(
            (list.rejected, list.samples[0].kind),
            (1, RejectKind::NotJson)
        );
        let deep = format!("[{}{}]", "[".repeat(10_000), "]".repeat(10_000));
        let list = read(deep.as_bytes(), &options(None)).unwrap();
        assert!(list.urls.is_empty());
        let long = format!(
            "{{\"inspectionUrl\":\"https://example.test/a\",\"inspectionResult\":{{\"indexStatusResult\":{{\"coverageState\":\"{}\"}}}}}}",
            "x".repeat(1 << 20)
        );
        let list = read(long.as_bytes(), &options(None)).unwrap();
        let state = list.urls[0]
            .search_console
            .as_ref()
            .unwrap()
            .coverage_state
            .clone();
        assert_eq!(state.unwrap().chars().count(), crate::MAX_FIELD_CHARS);
    }
}
