//! Plain lists: one URL (or, with a site, one path) per line; blank lines and `#`
//! comments skipped.

use std::io::Read;

use crate::input::{Line, Lines, reject_bytes};
use crate::{Collector, Options, to_url};

/// Reads a plain list into `out`.
pub(crate) fn read(reader: impl Read, options: &Options, out: &mut Collector) {
    let mut lines = Lines::new(reader);
    loop {
        let (n, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                out.stopped(lines.number + 1, &e);
                break;
            }
        };
        out.list.lines = n;
        if reject_bytes(out, n, &line).is_some() {
            continue;
        }
        let Line::Text(text) = line else { continue };
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        match to_url(text, options.site.as_ref()) {
            Ok(url) => out.url(&url, n),
            Err((kind, reason)) => out.reject(n, kind, reason, text.as_bytes()),
        }
    }
}
