//! Helpers shared by the integration tests (each test file uses a subset).
#![allow(dead_code)]

use std::io::{self, Read, Write};

use flate2::write::GzEncoder;
use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use sitemap::{IssueKind, Limits, Parsed, Url};

pub const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

pub fn url(s: &str) -> Url {
    Url::parse(s).expect("test URL")
}

pub fn sm_url() -> Url {
    url("https://example.com/sitemap.xml")
}

pub fn parse(body: &[u8]) -> Parsed {
    sitemap::parse(body, &sm_url(), &Limits::default()).expect("parses")
}

pub fn parse_limits(body: &[u8], limits: &Limits) -> Parsed {
    sitemap::parse(body, &sm_url(), limits).expect("parses")
}

pub fn codes(p: &Parsed) -> Vec<&'static str> {
    p.issues.iter().map(|i| i.kind.code()).collect()
}

pub fn kinds(p: &Parsed) -> Vec<IssueKind> {
    p.issues.iter().map(|i| i.kind).collect()
}

pub fn locs(p: &Parsed) -> Vec<&str> {
    p.entries.iter().map(|e| e.loc.as_str()).collect()
}

/// A `<urlset>` with the given inner XML.
pub fn urlset(inner: &str) -> String {
    format!(r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{NS}">{inner}</urlset>"#)
}

/// A generated `<urlset>` with `n` entries.
pub fn big_urlset(n: usize) -> String {
    let mut s = String::with_capacity(n * 120 + 200);
    s.push_str(r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    s.push('\n');
    s.push_str(&format!(r#"<urlset xmlns="{NS}">"#));
    s.push('\n');
    for i in 0..n {
        s.push_str(&format!(
            "  <url><loc>https://example.com/products/item-{i}?ref=sitemap</loc><lastmod>2024-05-{:02}</lastmod><changefreq>weekly</changefreq><priority>0.{}</priority></url>\n",
            i % 28 + 1,
            i % 10
        ));
    }
    s.push_str("</urlset>\n");
    s
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).expect("gzip in memory");
    enc.finish().expect("gzip in memory")
}

/// Raw-deflates `data` and completes `flush` (a full flush or the final block).
fn deflate_full_flush(c: &mut Compress, data: &[u8], flush: FlushCompress) -> Vec<u8> {
    let mut out = Vec::new();
    let start_in = c.total_in();
    loop {
        if out.capacity() - out.len() < 64 * 1024 {
            out.reserve(64 * 1024);
        }
        let consumed = (c.total_in() - start_in) as usize;
        let status = c
            .compress_vec(&data[consumed..], &mut out, flush)
            .expect("deflate in memory");
        let consumed = (c.total_in() - start_in) as usize;
        let done = match flush {
            FlushCompress::Finish => status == Status::StreamEnd,
            _ => consumed == data.len() && out.len() < out.capacity(),
        };
        if done {
            return out;
        }
    }
}

/// A gzip stream of `prefix` followed by `chunk` repeated `repeats` times, produced
/// lazily: only `prefix` and one `chunk` are ever compressed, and the compressed chunk
/// is replayed (full flushes make each chunk's deflate output identical). The result is
/// a valid gzip file (correct CRC and size) that a test streams without building it.
pub struct GzipBomb {
    parts: Vec<Vec<u8>>,
    block: Vec<u8>,
    repeats: u64,
    trailer: Vec<u8>,
    /// Which piece is being served: 0 = header+prefix, 1 = blocks, 2 = trailer, 3 = done.
    stage: u8,
    offset: usize,
    blocks_served: u64,
    /// Compressed bytes handed out so far.
    pub served: u64,
    /// Total compressed size.
    pub total: u64,
    /// Total uncompressed size.
    pub inflated: u64,
}

impl GzipBomb {
    pub fn new(prefix: &[u8], chunk: &[u8], repeats: u64) -> GzipBomb {
        let mut c = Compress::new(Compression::fast(), false);
        let mut head = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        if !prefix.is_empty() {
            head.extend(deflate_full_flush(&mut c, prefix, FlushCompress::Full));
        }
        let block = deflate_full_flush(&mut c, chunk, FlushCompress::Full);
        let again = deflate_full_flush(&mut c, chunk, FlushCompress::Full);
        assert_eq!(block, again, "full-flushed blocks must replay identically");
        let mut trailer = deflate_full_flush(&mut c, &[], FlushCompress::Finish);

        let mut crc = Crc::new();
        crc.update(prefix);
        let mut chunk_crc = Crc::new();
        chunk_crc.update(chunk);
        for _ in 0..repeats {
            crc.combine(&chunk_crc);
        }
        let inflated = prefix.len() as u64 + chunk.len() as u64 * repeats;
        trailer.extend(crc.sum().to_le_bytes());
        trailer.extend((inflated as u32).to_le_bytes());
        let total = head.len() as u64 + block.len() as u64 * repeats + trailer.len() as u64;
        GzipBomb {
            parts: vec![head],
            block,
            repeats,
            trailer,
            stage: 0,
            offset: 0,
            blocks_served: 0,
            served: 0,
            total,
            inflated,
        }
    }

    /// 1 GiB of zeros (about 1 MB compressed).
    pub fn zeros_1gib() -> GzipBomb {
        GzipBomb::new(&[], &vec![0u8; 1 << 20], 1024)
    }
}

impl Read for GzipBomb {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let piece: &[u8] = match self.stage {
                0 => &self.parts[0],
                1 if self.blocks_served < self.repeats => &self.block,
                1 => {
                    self.stage = 2;
                    self.offset = 0;
                    continue;
                }
                2 => &self.trailer,
                _ => return Ok(0),
            };
            if self.offset < piece.len() {
                let n = (piece.len() - self.offset).min(buf.len());
                buf[..n].copy_from_slice(&piece[self.offset..self.offset + n]);
                self.offset += n;
                self.served += n as u64;
                return Ok(n);
            }
            self.offset = 0;
            match self.stage {
                1 => self.blocks_served += 1,
                s => self.stage = s + 1,
            }
        }
    }
}
