//! The reader stack: gzip sniffing, a UTF-8 byte order mark dropped, the first bytes
//! read to detect the format (then put back in front), and bounded line reading.

use std::io::{self, BufRead, Cursor, Read};

use flate2::read::MultiGzDecoder;

use crate::{MAX_LINE_BYTES, UrlListError};

/// The gzip magic bytes (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Bytes read ahead to detect the format.
const PREFIX_BYTES: usize = 64 * 1024;
/// Lines of the prefix looked at for a CSV header.
pub(crate) const HEADER_LINES: usize = 3;
/// The names of a CSV file's URL column, in order of preference (any case).
pub(crate) const URL_COLUMNS: &[&str] = &["address", "url", "loc"];

/// An input opened for reading: its first bytes (byte order mark removed) and the rest.
pub(crate) struct Opened<'a> {
    /// The first bytes of the (decompressed) content.
    pub prefix: Vec<u8>,
    /// Whether it is gzip.
    pub compressed: bool,
    rest: Box<dyn Read + 'a>,
}

impl<'a> Opened<'a> {
    /// The whole content: the prefix, then the rest.
    pub(crate) fn into_reader(self) -> impl Read + 'a {
        Cursor::new(self.prefix).chain(self.rest)
    }
}

/// Reads into `buf` until it is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Opens `raw`: gzip is decompressed (all members), the first bytes are read.
pub(crate) fn open<'a, R: Read + 'a>(mut raw: R) -> Result<Opened<'a>, UrlListError> {
    let mut magic = [0u8; 2];
    let n = read_full(&mut raw, &mut magic).map_err(UrlListError::Io)?;
    let head = Cursor::new(magic[..n].to_vec()).chain(raw);
    let compressed = n == 2 && magic == GZIP_MAGIC;
    let mut rest: Box<dyn Read + 'a> = if compressed {
        Box::new(MultiGzDecoder::new(head))
    } else {
        Box::new(head)
    };
    let mut prefix = vec![0u8; PREFIX_BYTES];
    let mut n = 0;
    while n < prefix.len() {
        match rest.read(&mut prefix[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Nothing read: the input is unreadable.
            Err(e) if n == 0 && compressed => return Err(UrlListError::Decompress(e)),
            Err(e) if n == 0 => return Err(UrlListError::Io(e)),
            // Content first, then a failure (a gzip stream cut short): the content is
            // read, then the failure is met again where it happened.
            Err(e) => {
                rest = Box::new(Failing(Some(e)));
                break;
            }
        }
    }
    prefix.truncate(n);
    if prefix.starts_with(b"\xEF\xBB\xBF") {
        prefix.drain(..3);
    }
    Ok(Opened {
        prefix,
        compressed,
        rest,
    })
}

/// A reader that fails once with the error it holds, then ends.
struct Failing(Option<io::Error>);

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// What the first bytes say the content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detected {
    /// Starts with `<`: an XML sitemap (or something the sitemap parser will name).
    Xml,
    /// The first line is a common or combined log line.
    AccessLog,
    /// One of the first lines is a CSV header with a URL column.
    Csv {
        /// The field delimiter.
        delimiter: u8,
    },
    /// A Search Console page-indexing export: a CSV header with `URL` and `Last
    /// crawled` columns.
    ConsoleTable {
        /// The field delimiter.
        delimiter: u8,
    },
    /// Starts with `{` or `[`: URL Inspection API results.
    Json,
    /// Anything else: one URL per line.
    Plain,
}

/// Detects the format from the content's first bytes.
pub(crate) fn detect(prefix: &[u8]) -> Detected {
    let start = prefix
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(prefix.len());
    if prefix.get(start) == Some(&b'<') {
        return Detected::Xml;
    }
    if matches!(prefix.get(start), Some(b'{' | b'[')) {
        return Detected::Json;
    }
    let lines: Vec<&[u8]> = prefix
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(HEADER_LINES)
        .collect();
    if let Some(first) = lines.first()
        && let Ok(text) = std::str::from_utf8(first)
        && crate::log::parse_line(text).is_some()
    {
        return Detected::AccessLog;
    }
    for line in &lines {
        if let Some(delimiter) = csv_header(line) {
            let cells = header_cells(line, delimiter);
            if last_crawled_column(&cells).is_some() {
                return Detected::ConsoleTable { delimiter };
            }
            return Detected::Csv { delimiter };
        }
    }
    Detected::Plain
}

/// The delimiter of `line` if it is a CSV header naming a URL column (a header of that
/// column alone, `URL`, is read with commas).
fn csv_header(line: &[u8]) -> Option<u8> {
    [b',', b';', b'\t'].into_iter().find(|&delimiter| {
        let cells = header_cells(line, delimiter);
        url_column(&cells).is_some() && (cells.len() > 1 || delimiter == b',')
    })
}

/// The cells of one CSV line.
fn header_cells(line: &[u8], delimiter: u8) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(line);
    let mut record = csv::ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(true) => record
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect(),
        _ => Vec::new(),
    }
}

/// The index of the URL column among header cells (see [`URL_COLUMNS`]).
pub(crate) fn url_column(cells: &[String]) -> Option<usize> {
    URL_COLUMNS.iter().find_map(|name| {
        cells.iter().position(|c| {
            c.trim()
                .trim_start_matches('\u{feff}')
                .eq_ignore_ascii_case(name)
        })
    })
}

/// The index of a Search Console export's `Last crawled` column among header cells.
pub(crate) fn last_crawled_column(cells: &[String]) -> Option<usize> {
    cells.iter().position(|c| {
        c.trim()
            .trim_start_matches('\u{feff}')
            .eq_ignore_ascii_case("last crawled")
    })
}

/// Rejects a line that is not text (see [`Line`]); `None` for a text line.
pub(crate) fn reject_bytes(out: &mut crate::Collector, n: u64, line: &Line<'_>) -> Option<()> {
    match line {
        Line::Text(_) => return None,
        Line::NotUtf8(bytes) => out.reject(
            n,
            crate::RejectKind::NotUtf8,
            "not UTF-8 text".into(),
            bytes,
        ),
        Line::TooLong(bytes) => out.reject(
            n,
            crate::RejectKind::TooLong,
            format!("longer than {MAX_LINE_BYTES} bytes"),
            &bytes[..bytes.len().min(4 * crate::SAMPLE_CHARS)],
        ),
    }
    Some(())
}

/// One line as [`Lines`] reads it.
pub(crate) enum Line<'a> {
    /// The line's text, without its `\n` or `\r\n`.
    Text(&'a str),
    /// Not UTF-8 (its bytes, up to the cap).
    NotUtf8(&'a [u8]),
    /// Longer than [`MAX_LINE_BYTES`] (its first bytes).
    TooLong(&'a [u8]),
}

/// Reads lines of at most [`MAX_LINE_BYTES`] from a stream, numbering them.
pub(crate) struct Lines<R> {
    reader: io::BufReader<R>,
    buf: Vec<u8>,
    /// The number of the last line returned (1-based).
    pub number: u64,
}

impl<R: Read> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines {
            reader: io::BufReader::with_capacity(64 * 1024, reader),
            buf: Vec::new(),
            number: 0,
        }
    }

    /// The next line and its number, `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.buf.clear();
        let mut consumed = 0usize;
        let mut too_long = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            too_long |= part.len() > room;
            self.buf.extend_from_slice(&part[..part.len().min(room)]);
            self.reader.consume(used);
            consumed += used;
            if done {
                break;
            }
        }
        if consumed == 0 {
            return Ok(None);
        }
        self.number += 1;
        let n = self.number;
        if too_long {
            return Ok(Some((n, Line::TooLong(&self.buf))));
        }
        let bytes = self.buf.strip_suffix(b"\r").unwrap_or(&self.buf);
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(text) => (n, Line::Text(text)),
            Err(_) => (n, Line::NotUtf8(bytes)),
        }))
    }
}

/// What a [`Counted`] reader has passed through.
#[derive(Debug, Default)]
pub(crate) struct Count {
    bytes: std::cell::Cell<u64>,
    newlines: std::cell::Cell<u64>,
    last: std::cell::Cell<u8>,
    /// Bytes since the last [`Count::reset_record`].
    record: std::cell::Cell<u64>,
    /// Offsets of the newlines read but not yet passed by [`Count::line_at`] (those of
    /// the read-ahead and the current record: bounded by the record cap).
    pending: std::cell::RefCell<std::collections::VecDeque<u64>>,
    /// Newlines passed by [`Count::line_at`].
    passed: std::cell::Cell<u64>,
}

impl Count {
    /// Lines passed through: newlines, plus a last line without one.
    pub(crate) fn lines(&self) -> u64 {
        let open = self.bytes.get() > 0 && self.last.get() != b'\n';
        self.newlines.get() + u64::from(open)
    }

    /// The 1-based line of a record starting at byte offset `byte`; offsets must come
    /// in increasing order. After a CRLF line end the CSV reader gives the offset of the
    /// `\n`, which therefore counts as before the record.
    pub(crate) fn line_at(&self, byte: u64) -> u64 {
        let mut pending = self.pending.borrow_mut();
        while pending.front().is_some_and(|&at| at <= byte) {
            pending.pop_front();
            self.passed.set(self.passed.get() + 1);
        }
        self.passed.get() + 1
    }

    /// Starts counting a new record's bytes.
    pub(crate) fn reset_record(&self) {
        self.record.set(0);
    }
}

/// A reader that counts bytes and lines, and fails once more than `record_cap` bytes
/// pass without a [`Count::reset_record`] (so a parser that reads whole records, such as
/// the CSV reader, never holds one larger than that).
pub(crate) struct Counted<R> {
    inner: R,
    count: std::rc::Rc<Count>,
    record_cap: u64,
    track_lines: bool,
}

impl<R> Counted<R> {
    /// Counts `inner`; `track_lines` keeps newline offsets for [`Count::line_at`].
    pub(crate) fn new(inner: R, record_cap: u64, track_lines: bool) -> (Self, std::rc::Rc<Count>) {
        let count = std::rc::Rc::new(Count::default());
        (
            Counted {
                inner,
                count: std::rc::Rc::clone(&count),
                record_cap,
                track_lines,
            },
            count,
        )
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.count.record.get() > self.record_cap {
            return Err(io::Error::other(format!(
                "a record longer than {} bytes",
                self.record_cap
            )));
        }
        let n = self.inner.read(buf)?;
        let c = &self.count;
        let start = c.bytes.get();
        let mut pending = c.pending.borrow_mut();
        for (i, _) in buf[..n].iter().enumerate().filter(|&(_, &b)| b == b'\n') {
            c.newlines.set(c.newlines.get() + 1);
            if self.track_lines {
                pending.push_back(start + i as u64);
            }
        }
        c.bytes.set(start + n as u64);
        c.record.set(c.record.get() + n as u64);
        if let Some(&last) = buf[..n].last() {
            c.last.set(last);
        }
        Ok(n)
    }
}
