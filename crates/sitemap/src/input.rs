//! The reader stack under the parsers: gzip sniffing, streamed decompression, the
//! uncompressed-size limit, and byte/line tracking.
//!
//! ```text
//! caller's Read -> (MultiGzDecoder if the gzip magic is present) -> Limited -> BufReader -> Tracked
//! ```

use std::io::{self, BufRead, BufReader, Chain, Cursor, Read};

use flate2::read::MultiGzDecoder;

use crate::issue::Position;

/// The gzip magic bytes (RFC 1952, ID1 and ID2).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Buffer size of the `BufReader` the parsers read from.
const BUF_CAPACITY: usize = 64 * 1024;

/// The caller's reader with the bytes read for sniffing put back in front.
pub(crate) type Rewound<R> = Chain<Cursor<Vec<u8>>, R>;

/// The decoded, size-limited content.
pub(crate) type Content<R> = Limited<Decoded<Rewound<R>>>;

/// The full stack the parsers read from (the content's first bytes, read to look for a
/// byte order mark, put back in front).
pub(crate) type Source<R> = Tracked<BufReader<Chain<Cursor<Vec<u8>>, Content<R>>>>;

/// Plain or gzip-decompressed bytes.
pub(crate) enum Decoded<R: Read> {
    /// Not compressed.
    Plain(R),
    /// gzip (all members, like `zcat`).
    Gzip(Box<MultiGzDecoder<R>>),
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoded::Plain(r) => r.read(buf),
            Decoded::Gzip(r) => r.read(buf),
        }
    }
}

/// Marker error returned once the uncompressed limit is exceeded.
#[derive(Debug)]
struct LimitExceeded;

impl std::fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("uncompressed size limit exceeded")
    }
}

impl std::error::Error for LimitExceeded {}

/// Passes at most `limit` bytes through; reads at most `limit + 1` bytes from the inner
/// reader (the extra byte proves the content is larger), then fails every read.
pub(crate) struct Limited<R> {
    inner: R,
    limit: u64,
    total: u64,
    exceeded: bool,
    failed: bool,
}

impl<R> Limited<R> {
    fn new(inner: R, limit: u64) -> Self {
        Limited {
            inner,
            limit,
            total: 0,
            exceeded: false,
            failed: false,
        }
    }
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.exceeded {
            return Err(io::Error::other(LimitExceeded));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        // total <= limit here, so the allowance is at least 1.
        let allowance = self.limit.saturating_add(1) - self.total;
        let max = usize::try_from(allowance).map_or(buf.len(), |a| a.min(buf.len()));
        let n = match self.inner.read(&mut buf[..max]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                self.failed = true;
                return Err(e);
            }
        };
        self.total += n as u64;
        if self.total > self.limit {
            self.exceeded = true;
            // Hand over the bytes up to the limit; the next read reports the error.
            let keep = n - 1;
            if keep == 0 {
                return Err(io::Error::other(LimitExceeded));
            }
            return Ok(keep);
        }
        Ok(n)
    }
}

/// Counts consumed bytes and newlines of a `BufRead`, so events get positions.
pub(crate) struct Tracked<B> {
    inner: B,
    consumed: u64,
    newlines: u64,
}

impl<B> Tracked<B> {
    /// The position of the next unconsumed byte.
    pub(crate) fn position(&self) -> Position {
        Position {
            line: self.newlines + 1,
            byte: self.consumed,
        }
    }
}

impl<R: Read> Source<R> {
    fn limited(&self) -> &Content<R> {
        self.inner.get_ref().get_ref().1
    }

    /// Bytes of uncompressed content read so far (at most the limit + 1).
    pub(crate) fn uncompressed_bytes(&self) -> u64 {
        self.limited().total
    }

    /// Classifies a read error from anywhere in the stack.
    pub(crate) fn classify(&self, err: &io::Error) -> ReadFailure {
        let limited = self.limited();
        if limited.exceeded {
            ReadFailure::Oversized {
                limit: limited.limit,
            }
        } else if limited.failed && matches!(limited.inner, Decoded::Gzip(_)) {
            ReadFailure::Decompression(err.to_string())
        } else {
            ReadFailure::Io(err.to_string())
        }
    }
}

impl<T: Read> Read for Tracked<BufReader<T>> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<T: Read> BufRead for Tracked<BufReader<T>> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        let buffered = self.inner.buffer();
        let amt = amt.min(buffered.len());
        self.newlines += buffered[..amt].iter().filter(|&&b| b == b'\n').count() as u64;
        self.consumed += amt as u64;
        self.inner.consume(amt);
    }
}

/// Why reading stopped early.
pub(crate) enum ReadFailure {
    /// More than `limit` uncompressed bytes.
    Oversized {
        /// The configured limit.
        limit: u64,
    },
    /// The gzip stream is corrupt.
    Decompression(String),
    /// The caller's reader failed.
    Io(String),
}

/// Outcome of opening the input.
pub(crate) enum Opened<R: Read> {
    /// Ready to parse; `first` is the first byte that is neither whitespace nor a UTF-8 BOM.
    Ready {
        source: Box<Source<R>>,
        compressed: bool,
        first: u8,
    },
    /// Nothing but whitespace (or nothing at all).
    Empty,
    /// Reading failed before any content was seen.
    Failed {
        source: Box<Source<R>>,
        compressed: bool,
        error: io::Error,
    },
}

/// Reads up to `n` bytes, stopping early at end of input or at an error (returned
/// beside the bytes read before it).
fn read_prefix<R: Read>(r: &mut R, n: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut prefix = vec![0u8; n];
    let mut filled = 0;
    let mut error = None;
    while filled < n {
        match r.read(&mut prefix[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    prefix.truncate(filled);
    (prefix, error)
}

/// The UTF-8 byte order mark.
const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// Sniffs gzip by its magic bytes, builds the reader stack, and skips a UTF-8 BOM and
/// leading whitespace (both counted in positions).
///
/// Errors from the caller's reader while sniffing the gzip magic are returned as `Err`.
pub(crate) fn open<R: Read>(mut reader: R, limit: u64) -> io::Result<Opened<R>> {
    let (prefix, error) = read_prefix(&mut reader, GZIP_MAGIC.len());
    if let Some(error) = error {
        return Err(error);
    }
    let compressed = prefix == GZIP_MAGIC;
    let rewound = Cursor::new(prefix).chain(reader);
    let decoded = if compressed {
        Decoded::Gzip(Box::new(MultiGzDecoder::new(rewound)))
    } else {
        Decoded::Plain(rewound)
    };
    let mut content = Limited::new(decoded, limit);
    let (head, head_error) = read_prefix(&mut content, UTF8_BOM.len());
    let bom = head.starts_with(&UTF8_BOM);
    let mut head = Cursor::new(head);
    if bom {
        head.set_position(UTF8_BOM.len() as u64);
    }
    let mut source = Tracked {
        inner: BufReader::with_capacity(BUF_CAPACITY, head.chain(content)),
        consumed: if bom { UTF8_BOM.len() as u64 } else { 0 },
        newlines: 0,
    };
    if let Some(error) = head_error {
        return Ok(Opened::Failed {
            source: Box::new(source),
            compressed,
            error,
        });
    }
    loop {
        let buf = match source.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Ok(Opened::Failed {
                    source: Box::new(source),
                    compressed,
                    error,
                });
            }
        };
        if buf.is_empty() {
            return Ok(Opened::Empty);
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let first = buf[i];
                source.consume(i);
                return Ok(Opened::Ready {
                    source: Box::new(source),
                    compressed,
                    first,
                });
            }
            None => {
                let len = buf.len();
                source.consume(len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limited_passes_exactly_the_limit_then_fails() {
        let data = [b'a'; 100];
        let mut l = Limited::new(&data[..], 10);
        let mut out = Vec::new();
        let err = l.read_to_end(&mut out).expect_err("over the limit");
        assert_eq!(out.len(), 10);
        assert_eq!(l.total, 11);
        assert!(l.exceeded);
        assert!(err.get_ref().is_some());
    }

    #[test]
    fn limited_at_exact_size_is_fine() {
        let data = [b'a'; 10];
        let mut l = Limited::new(&data[..], 10);
        let mut out = Vec::new();
        l.read_to_end(&mut out)
            .expect("exactly the limit is allowed");
        assert_eq!(out.len(), 10);
        assert!(!l.exceeded);
    }

    #[test]
    fn tracked_counts_lines() {
        let data = b"a\nb\r\nc";
        let mut t = Tracked {
            inner: BufReader::new(&data[..]),
            consumed: 0,
            newlines: 0,
        };
        let mut s = String::new();
        t.read_line(&mut s).expect("read");
        assert_eq!(t.position(), Position { line: 2, byte: 2 });
        t.read_to_string(&mut s).expect("read");
        assert_eq!(t.position(), Position { line: 3, byte: 6 });
    }
}
