//! Plain-text sitemaps: one URL per line, UTF-8.

use std::io::{self, BufRead, Read};
use std::ops::ControlFlow;

use crate::input::Source;
use crate::{IssueKind, Item, RawEntry, Sink, SitemapKind};

/// Longest line kept in memory; longer lines are skipped and recorded.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

/// Characters of a body that is not a sitemap kept in its `not_a_sitemap` issue.
pub(crate) const EXCERPT_CHARS: usize = 60;

/// Whether a line reads as an absolute http(s) URL (valid or not): a text sitemap is a
/// list of them.
fn looks_like_url(line: &str) -> bool {
    let lower = line.get(..8).unwrap_or(line).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The first [`EXCERPT_CHARS`] characters of `line`, control characters replaced.
fn excerpt(line: &str) -> String {
    line.chars()
        .take(EXCERPT_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Reads one line (without its `\n`) into `line`, keeping at most `max` bytes.
/// Returns `(bytes consumed, too_long)`; 0 bytes consumed means end of input.
fn read_line_bounded<B: BufRead>(
    r: &mut B,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    line.clear();
    let mut consumed = 0;
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((consumed, too_long));
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1),
            None => (buf, 0),
        };
        let room = max.saturating_sub(line.len());
        if chunk.len() > room {
            too_long = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = if done > 0 { done } else { chunk.len() };
        r.consume(used);
        consumed += used;
        if done > 0 {
            return Ok((consumed, too_long));
        }
    }
}

/// Parses a text sitemap. Returns whether the whole content was read.
pub(crate) fn parse<R: Read, F: FnMut(Item) -> ControlFlow<()>>(
    source: &mut Source<R>,
    sink: &mut Sink<'_, F>,
) -> bool {
    run(source, sink).is_continue()
}

fn run<R: Read, F: FnMut(Item) -> ControlFlow<()>>(
    source: &mut Source<R>,
    sink: &mut Sink<'_, F>,
) -> ControlFlow<()> {
    sink.kind(SitemapKind::Text)?;
    let mut line = Vec::new();
    loop {
        let position = source.position();
        let (consumed, too_long) = match read_line_bounded(source, &mut line, MAX_LINE_BYTES) {
            Ok(r) => r,
            Err(e) => {
                let failure = source.classify(&e);
                return sink.read_failure(failure, source.position());
            }
        };
        if consumed == 0 {
            return ControlFlow::Continue(());
        }
        if too_long {
            sink.urls += 1;
            sink.issue(
                IssueKind::LocTooLong,
                format!("line is longer than {MAX_LINE_BYTES} bytes; skipped"),
                Some(position),
                None,
            )?;
            continue;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => text,
            Err(e) => {
                sink.urls += 1;
                let lossy = String::from_utf8_lossy(&line);
                sink.issue(
                    IssueKind::InvalidUtf8,
                    format!(
                        "line is not valid UTF-8 (at byte {} of the line); skipped",
                        e.valid_up_to()
                    ),
                    Some(position),
                    Some(lossy.trim()),
                )?;
                continue;
            }
        };
        let url = text.trim();
        if url.is_empty() {
            continue;
        }
        // A body whose first line is no URL is not a text sitemap (a robots.txt, an error
        // page, another service's answer): one issue with a short excerpt, not a line of
        // it stored per issue.
        if sink.urls == 0 && !looks_like_url(url) {
            return sink.fatal(
                IssueKind::NotASitemap,
                format!(
                    "not a sitemap: neither XML nor a list of URLs (it starts {:?})",
                    excerpt(url)
                ),
                Some(position),
                None,
            );
        }
        sink.url(
            RawEntry {
                position,
                loc: Some(url.to_owned()),
                ..RawEntry::default()
            },
            "line",
            true,
        )?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines() {
        let mut r = &b"abc\nlonger line\n\nend"[..];
        let mut line = Vec::new();
        assert_eq!(
            read_line_bounded(&mut r, &mut line, 5).ok(),
            Some((4, false))
        );
        assert_eq!(line, b"abc");
        assert_eq!(
            read_line_bounded(&mut r, &mut line, 5).ok(),
            Some((12, true))
        );
        assert_eq!(line, b"longe");
        assert_eq!(
            read_line_bounded(&mut r, &mut line, 5).ok(),
            Some((1, false))
        );
        assert_eq!(line, b"");
        assert_eq!(
            read_line_bounded(&mut r, &mut line, 5).ok(),
            Some((3, false))
        );
        assert_eq!(line, b"end");
        assert_eq!(
            read_line_bounded(&mut r, &mut line, 5).ok(),
            Some((0, false))
        );
    }
}
