//! Findings about a sitemap: what is wrong, where, and for which `<loc>`.

use std::fmt;

/// Where something was found in the (uncompressed) sitemap content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Position {
    /// 1-based line number.
    pub line: u64,
    /// 0-based byte offset in the uncompressed content (a UTF-8 byte order mark counts).
    pub byte: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, byte {}", self.line, self.byte)
    }
}

/// The kind of a sitemap finding. Each kind has a stable [`code`](IssueKind::code).
///
/// Kinds marked *fatal* end parsing (the entries found before are kept); all
/// others are recorded and parsing goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IssueKind {
    /// More `<url>` entries (or text lines) than the protocol's 50,000 in one file.
    TooManyUrls,
    /// More `<sitemap>` entries than the protocol's 50,000 in one index.
    TooManySitemaps,
    /// *Fatal.* The uncompressed content is larger than the limit (protocol: 50 MB).
    Oversized,
    /// *Fatal.* The hard cap on returned entries ([`Limits::max_entries`](crate::Limits::max_entries)) was reached.
    EntryCapReached,
    /// *Fatal.* The XML is not well-formed (syntax error, mismatched or missing end tag,
    /// truncated document, content after the root element).
    MalformedXml,
    /// *Fatal in XML* (the XML parser cannot go on); in a text sitemap only the line is skipped.
    /// The content is not valid UTF-8.
    InvalidUtf8,
    /// The content declares or uses an encoding other than UTF-8 (sitemaps must be UTF-8).
    /// *Fatal* for a UTF-16 byte order mark; otherwise the content is still read as UTF-8.
    UnsupportedEncoding,
    /// *Fatal.* The gzip stream is corrupt or truncated.
    Decompression,
    /// *Fatal.* Reading the input failed.
    Io,
    /// A DOCTYPE declares entities (a billion-laughs or external-entity attempt).
    /// Entities are never expanded.
    EntityDeclaration,
    /// A reference to an entity that is not one of XML's five predefined ones (kept literally,
    /// never expanded).
    UnresolvedEntity,
    /// A bare `&` in text (it must be written `&amp;`); the text is kept as written.
    UnescapedAmpersand,
    /// The root element is not in the sitemap namespace
    /// (`http://www.sitemaps.org/schemas/sitemap/0.9`); the file is still parsed.
    WrongNamespace,
    /// *Fatal.* The root element is not a sitemap (`urlset`, `sitemapindex`, RSS or Atom),
    /// e.g. an HTML page served at the sitemap's URL; or a text body whose first line is
    /// not a URL (only a short excerpt of it is kept).
    NotASitemap,
    /// A `<sitemapindex>` nested inside a sitemap index (indexes cannot nest); ignored.
    NestedIndex,
    /// An element in the wrong place, e.g. `<url>` inside a `<sitemapindex>`; ignored.
    UnexpectedElement,
    /// An entry has no `<loc>` element; the entry is dropped.
    MissingLoc,
    /// An entry's `<loc>` (or a text line's URL) is empty; the entry is dropped.
    EmptyLoc,
    /// An entry has the same child element (`loc`, `lastmod`, ...) twice; the first is kept.
    DuplicateElement,
    /// A `<loc>` is longer than 2,048 characters; the entry is kept (dropped only when it is
    /// too long to be read at all).
    LocTooLong,
    /// A `<loc>` is not an absolute `http`/`https` URL; the entry is dropped.
    InvalidLoc,
    /// A `<loc>` is on another host (or port) than the sitemap. Allowed only when the
    /// sitemap was submitted through the other host's robots.txt: the caller decides.
    CrossHost,
    /// A `<loc>` uses another scheme (`http` vs `https`) than the sitemap.
    CrossScheme,
    /// A `<loc>` is outside the sitemap's directory (the protocol's path rule; lifted by
    /// robots.txt submission, so the caller decides).
    OutsidePath,
    /// A `<lastmod>` is not a W3C datetime; the value is dropped.
    InvalidLastmod,
    /// A `<changefreq>` is not one of the protocol's values; the value is dropped.
    InvalidChangefreq,
    /// A `<priority>` is not a number from 0.0 to 1.0; the value is dropped.
    InvalidPriority,
    /// An `xhtml:link rel="alternate"` lacks `hreflang` or has no absolute `href`; it is dropped.
    InvalidAlternate,
    /// The sitemap has no entries at all.
    NoEntries,
}

impl IssueKind {
    /// Every kind, in declaration order.
    pub const ALL: &'static [IssueKind] = &[
        IssueKind::TooManyUrls,
        IssueKind::TooManySitemaps,
        IssueKind::Oversized,
        IssueKind::EntryCapReached,
        IssueKind::MalformedXml,
        IssueKind::InvalidUtf8,
        IssueKind::UnsupportedEncoding,
        IssueKind::Decompression,
        IssueKind::Io,
        IssueKind::EntityDeclaration,
        IssueKind::UnresolvedEntity,
        IssueKind::UnescapedAmpersand,
        IssueKind::WrongNamespace,
        IssueKind::NotASitemap,
        IssueKind::NestedIndex,
        IssueKind::UnexpectedElement,
        IssueKind::MissingLoc,
        IssueKind::EmptyLoc,
        IssueKind::DuplicateElement,
        IssueKind::LocTooLong,
        IssueKind::InvalidLoc,
        IssueKind::CrossHost,
        IssueKind::CrossScheme,
        IssueKind::OutsidePath,
        IssueKind::InvalidLastmod,
        IssueKind::InvalidChangefreq,
        IssueKind::InvalidPriority,
        IssueKind::InvalidAlternate,
        IssueKind::NoEntries,
    ];

    /// A stable snake_case identifier, suitable for storage and CSV exports.
    pub const fn code(self) -> &'static str {
        match self {
            IssueKind::TooManyUrls => "too_many_urls",
            IssueKind::TooManySitemaps => "too_many_sitemaps",
            IssueKind::Oversized => "oversized",
            IssueKind::EntryCapReached => "entry_cap_reached",
            IssueKind::MalformedXml => "malformed_xml",
            IssueKind::InvalidUtf8 => "invalid_utf8",
            IssueKind::UnsupportedEncoding => "unsupported_encoding",
            IssueKind::Decompression => "decompression_error",
            IssueKind::Io => "io_error",
            IssueKind::EntityDeclaration => "entity_declaration",
            IssueKind::UnresolvedEntity => "unresolved_entity",
            IssueKind::UnescapedAmpersand => "unescaped_ampersand",
            IssueKind::WrongNamespace => "wrong_namespace",
            IssueKind::NotASitemap => "not_a_sitemap",
            IssueKind::NestedIndex => "nested_sitemapindex",
            IssueKind::UnexpectedElement => "unexpected_element",
            IssueKind::MissingLoc => "missing_loc",
            IssueKind::EmptyLoc => "empty_loc",
            IssueKind::DuplicateElement => "duplicate_element",
            IssueKind::LocTooLong => "loc_too_long",
            IssueKind::InvalidLoc => "invalid_loc",
            IssueKind::CrossHost => "cross_host",
            IssueKind::CrossScheme => "cross_scheme",
            IssueKind::OutsidePath => "outside_sitemap_path",
            IssueKind::InvalidLastmod => "invalid_lastmod",
            IssueKind::InvalidChangefreq => "invalid_changefreq",
            IssueKind::InvalidPriority => "invalid_priority",
            IssueKind::InvalidAlternate => "invalid_alternate",
            IssueKind::NoEntries => "no_entries",
        }
    }

    /// The kind with this [`code`](IssueKind::code), if any.
    pub fn from_code(code: &str) -> Option<IssueKind> {
        IssueKind::ALL.iter().copied().find(|k| k.code() == code)
    }
}

impl fmt::Display for IssueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One finding about a sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// What is wrong.
    pub kind: IssueKind,
    /// A human-readable sentence with the details (offending value, limit, ...).
    pub message: String,
    /// Where in the uncompressed content, when known.
    pub position: Option<Position>,
    /// The entry's `<loc>` (trimmed, as written), when the issue concerns one entry.
    pub loc: Option<String>,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)?;
        if let Some(pos) = self.position {
            write!(f, " ({pos})")?;
        }
        Ok(())
    }
}
