//! XML sitemaps (`<urlset>`, `<sitemapindex>`) and RSS / Atom feeds, streamed with
//! quick-xml's namespace-aware pull reader.
//!
//! Entities: quick-xml reports `&name;` references as events and never expands them.
//! Only the five predefined XML entities and character references are decoded here;
//! any other reference is kept literally and recorded, and a DOCTYPE that declares
//! entities is recorded. Nothing is ever expanded, so a billion-laughs document costs
//! its own size and no more.

use std::io::Read;
use std::ops::ControlFlow;

use quick_xml::NsReader;
use quick_xml::XmlVersion;
use quick_xml::errors::SyntaxError;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::ResolveResult;

use crate::input::Source;
use crate::validate::trim_xml;
use crate::{Alternate, IssueKind, Item, Position, RawEntry, Sink, SitemapKind};

/// The sitemap protocol's XML namespace.
pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";
const IMAGE_NS: &str = "http://www.google.com/schemas/sitemap-image/1.1";
const VIDEO_NS: &str = "http://www.google.com/schemas/sitemap-video/1.1";
const NEWS_NS: &str = "http://www.google.com/schemas/sitemap-news/0.9";

/// Most bytes kept for one text field (`<loc>`, `<lastmod>`, ...); more is dropped and
/// the entry is recorded as too long.
pub(crate) const MAX_FIELD_BYTES: usize = 64 * 1024;

/// Event buffers larger than this are released after use, so one huge event does not
/// pin its memory for the rest of the parse.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// An element's namespace relative to the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    /// The root element's namespace (the sitemap namespace in a correct document).
    Root,
    Xhtml,
    Image,
    Video,
    News,
    Other,
}

/// A text field being captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
    Changefreq,
    Priority,
    /// A duplicate: read and thrown away.
    Ignore,
}

/// Parser state; the quick-xml reader lives beside it, so that the namespace
/// resolution borrowed from the reader and this state can be used together.
struct State {
    kind: SitemapKind,
    /// Root namespace: `None` before the root, `Some(None)` when unbound.
    root_ns: Option<Option<String>>,
    /// Depth of the innermost open element (root = 1).
    depth: u32,
    /// Depth of the entry elements (`url`, `sitemap`, RSS `item`, Atom `entry`).
    item_depth: u32,
    item: Option<RawEntry>,
    field: Option<(Field, u32)>,
    text: String,
    text_truncated: bool,
    root_closed: bool,
}

impl State {
    fn classify(&self, res: &ResolveResult<'_>) -> Ns {
        let root = match &self.root_ns {
            Some(root) => root.as_deref(),
            None => return Ns::Other,
        };
        match res {
            ResolveResult::Unbound if root.is_none() => Ns::Root,
            ResolveResult::Bound(ns) => {
                let ns = ns.into_inner();
                if Some(ns) == root {
                    Ns::Root
                } else {
                    match ns {
                        XHTML_NS => Ns::Xhtml,
                        IMAGE_NS => Ns::Image,
                        VIDEO_NS => Ns::Video,
                        NEWS_NS => Ns::News,
                        _ => Ns::Other,
                    }
                }
            }
            _ => Ns::Other,
        }
    }

    fn item_name(&self) -> &'static str {
        match self.kind {
            SitemapKind::Index => "sitemap",
            SitemapKind::Rss => "item",
            SitemapKind::Atom => "entry",
            _ => "url",
        }
    }

    fn append(&mut self, text: &str) {
        let room = MAX_FIELD_BYTES.saturating_sub(self.text.len());
        if text.len() > room {
            self.text_truncated = true;
            self.text.push_str(&text[..text.floor_char_boundary(room)]);
        } else {
            self.text.push_str(text);
        }
    }
}

/// Parses an XML sitemap or feed. Returns whether the whole document was read.
pub(crate) fn parse<R: Read, F: FnMut(Item) -> ControlFlow<()>>(
    source: &mut Source<R>,
    sink: &mut Sink<'_, F>,
) -> bool {
    let base = source.position();
    let mut reader = NsReader::from_reader(source);
    {
        let config = reader.config_mut();
        // A bare '&' (common in hand-made sitemaps) is recorded, not fatal.
        config.allow_dangling_amp = true;
        config.check_end_names = true;
        config.expand_empty_elements = false;
        config.trim_text(false);
    }
    let mut state = State {
        kind: SitemapKind::Unknown,
        root_ns: None,
        depth: 0,
        item_depth: 2,
        item: None,
        field: None,
        text: String::new(),
        text_truncated: false,
        root_closed: false,
    };
    let mut buf = Vec::new();
    let flow = run(&mut reader, &mut state, sink, &mut buf, base);
    if flow.is_continue() && state.root_ns.is_none() {
        let _ = sink.kind(SitemapKind::Unknown);
        let _ = sink.fatal(
            IssueKind::NotASitemap,
            "the document has no root element".to_owned(),
            Some(reader.get_mut().position()),
            None,
        );
        return false;
    }
    flow.is_continue()
}

fn run<R: Read, F: FnMut(Item) -> ControlFlow<()>>(
    reader: &mut NsReader<&mut Source<R>>,
    state: &mut State,
    sink: &mut Sink<'_, F>,
    buf: &mut Vec<u8>,
    base: Position,
) -> ControlFlow<()> {
    loop {
        buf.clear();
        if buf.capacity() > KEEP_BUFFER_BYTES {
            *buf = Vec::new();
        }
        let position = reader.get_mut().position();
        let (ns, event) = match reader.read_resolved_event_into(buf) {
            Ok((res, event)) => {
                let ns = match &event {
                    Event::Start(_) | Event::Empty(_) if state.root_ns.is_none() => {
                        // The root: remember its namespace.
                        state.root_ns = Some(match &res {
                            ResolveResult::Bound(ns) => Some(ns.into_inner().to_owned()),
                            _ => None,
                        });
                        Ns::Root
                    }
                    Event::Start(_) | Event::Empty(_) => state.classify(&res),
                    _ => Ns::Other,
                };
                (ns, event)
            }
            Err(err) => return xml_error(reader, sink, &err, base),
        };
        match event {
            Event::Start(e) => {
                state.depth += 1;
                start(state, sink, &e, ns, position)?;
            }
            Event::Empty(e) => {
                state.depth += 1;
                start(state, sink, &e, ns, position)?;
                end(state, sink)?;
            }
            Event::End(_) => end(state, sink)?,
            Event::Text(e) => {
                if state.root_closed || state.depth == 0 {
                    if !trim_xml(&e).is_empty() {
                        return malformed(sink, "text outside the root element", position);
                    }
                } else {
                    if e.contains('&') {
                        // Only a dangling '&' reaches a text event (see `allow_dangling_amp`).
                        sink.issue(
                            IssueKind::UnescapedAmpersand,
                            "a bare '&' must be written &amp; in XML".to_owned(),
                            Some(position),
                            None,
                        )?;
                    }
                    if state.field.is_some() {
                        state.append(&e);
                    }
                }
            }
            Event::CData(e) => {
                if state.field.is_some() {
                    state.append(&e);
                }
            }
            Event::GeneralRef(r) => general_ref(state, sink, &r, position)?,
            Event::DocType(e) => {
                if e.contains("<!ENTITY") {
                    let external = e.contains("SYSTEM") || e.contains("PUBLIC");
                    sink.issue(
                        IssueKind::EntityDeclaration,
                        format!(
                            "the DOCTYPE declares entities{}; they are not expanded",
                            if external {
                                " (some external: an XXE attempt)"
                            } else {
                                ""
                            }
                        ),
                        Some(position),
                        None,
                    )?;
                }
            }
            Event::Decl(d) => {
                if let Some(Ok(encoding)) = d.encoding() {
                    let enc = encoding.trim();
                    if !enc.eq_ignore_ascii_case("utf-8") && !enc.eq_ignore_ascii_case("utf8") {
                        sink.issue(
                            IssueKind::UnsupportedEncoding,
                            format!(
                                "the XML declaration says encoding={enc:?}; sitemaps must be UTF-8 (read as UTF-8)"
                            ),
                            Some(position),
                            None,
                        )?;
                    }
                }
            }
            Event::Comment(_) | Event::PI(_) => {}
            Event::Eof => {
                if state.depth > 0 {
                    return malformed(
                        sink,
                        "the document ends before its root element is closed (truncated?)",
                        position,
                    );
                }
                return ControlFlow::Continue(());
            }
        }
    }
}

/// Records a quick-xml error as the matching fatal issue.
fn xml_error<R: Read, F: FnMut(Item) -> ControlFlow<()>>(
    reader: &mut NsReader<&mut Source<R>>,
    sink: &mut Sink<'_, F>,
    err: &quick_xml::Error,
    base: Position,
) -> ControlFlow<()> {
    let error_byte = base.byte + reader.error_position();
    let source = reader.get_mut();
    let now = source.position();
    match err {
        quick_xml::Error::Io(io) => {
            let failure = source.classify(io);
            sink.read_failure(failure, now)
        }
        quick_xml::Error::Encoding(e) => sink.fatal(
            IssueKind::InvalidUtf8,
            format!("the content is not valid UTF-8 ({e}); parsing stopped"),
            Some(Position {
                line: now.line,
                byte: error_byte.min(now.byte),
            }),
            None,
        ),
        other => sink.fatal(
            IssueKind::MalformedXml,
            match other {
                // Every syntax error but one means the input ended inside markup.
                quick_xml::Error::Syntax(SyntaxError::InvalidBangMarkup)
                | quick_xml::Error::IllFormed(_) => {
                    format!("malformed XML: {other}")
                }
                quick_xml::Error::Syntax(_) => {
                    format!("malformed XML: {other} (the document is truncated?)")
                }
                _ => format!("malformed XML: {other}"),
            },
            Some(Position {
                line: now.line,
                byte: error_byte.min(now.byte),
            }),
            None,
        ),
    }
}

fn malformed<F: FnMut(Item) -> ControlFlow<()>>(
    sink: &mut Sink<'_, F>,
    what: &str,
    position: Position,
) -> ControlFlow<()> {
    sink.fatal(
        IssueKind::MalformedXml,
        format!("malformed XML: {what}"),
        Some(position),
        None,
    )
}

/// Decodes `&...;` in a captured field: predefined entities and character references
/// only. Anything else is kept literally and recorded; nothing is ever expanded.
fn general_ref<F: FnMut(Item) -> ControlFlow<()>>(
    state: &mut State,
    sink: &mut Sink<'_, F>,
    r: &BytesRef<'_>,
    position: Position,
) -> ControlFlow<()> {
    let name: &str = r;
    let resolved = if r.is_char_ref() {
        r.resolve_char_ref().ok().flatten().map(String::from)
    } else {
        resolve_predefined_entity(name).map(str::to_owned)
    };
    match resolved {
        Some(text) => {
            if state.field.is_some() {
                state.append(&text);
            }
            ControlFlow::Continue(())
        }
        None => {
            if state.field.is_some() {
                state.append(&format!("&{name};"));
            }
            let shown = &name[..name.floor_char_boundary(64)];
            sink.issue(
                IssueKind::UnresolvedEntity,
                format!("reference &{shown}; is not a predefined XML entity; kept as written, not expanded"),
                Some(position),
                None,
            )
        }
    }
}

/// Handles an opening (or empty) element at `state.depth`.
fn start<F: FnMut(Item) -> ControlFlow<()>>(
    state: &mut State,
    sink: &mut Sink<'_, F>,
    e: &BytesStart<'_>,
    ns: Ns,
    position: Position,
) -> ControlFlow<()> {
    let depth = state.depth;
    let local = e.local_name();
    let local: &str = local.as_ref();
    if state.root_closed {
        return malformed(sink, "a second root element", position);
    }
    if depth == 1 {
        return root(state, sink, local, position);
    }
    if state.field.is_some() {
        // Markup inside a text field: its text still counts; nothing else to do.
        return ControlFlow::Continue(());
    }
    if depth == state.item_depth {
        let is_item = match state.kind {
            SitemapKind::Rss | SitemapKind::Atom => local == state.item_name(),
            _ => ns == Ns::Root && local == state.item_name(),
        };
        if is_item {
            state.item = Some(RawEntry {
                position,
                ..RawEntry::default()
            });
            return ControlFlow::Continue(());
        }
        if ns == Ns::Root && matches!(state.kind, SitemapKind::UrlSet | SitemapKind::Index) {
            if state.kind == SitemapKind::Index && local == "sitemapindex" {
                return sink.issue(
                    IssueKind::NestedIndex,
                    "a <sitemapindex> inside a sitemap index; indexes cannot be nested, ignored"
                        .to_owned(),
                    Some(position),
                    None,
                );
            }
            return unexpected(sink, local, state.kind, position);
        }
        return ControlFlow::Continue(());
    }
    if depth != state.item_depth + 1 {
        return ControlFlow::Continue(());
    }
    let Some(item) = state.item.as_mut() else {
        return ControlFlow::Continue(());
    };
    let field = match (state.kind, ns, local) {
        (SitemapKind::UrlSet | SitemapKind::Index, Ns::Root, "loc") => {
            Some((Field::Loc, item.loc.is_some()))
        }
        (SitemapKind::UrlSet | SitemapKind::Index, Ns::Root, "lastmod") => {
            Some((Field::Lastmod, item.lastmod.is_some()))
        }
        (SitemapKind::UrlSet, Ns::Root, "changefreq") => {
            Some((Field::Changefreq, item.changefreq.is_some()))
        }
        (SitemapKind::UrlSet, Ns::Root, "priority") => {
            Some((Field::Priority, item.priority.is_some()))
        }
        (SitemapKind::UrlSet | SitemapKind::Index, Ns::Root, _) => {
            return unexpected(sink, local, state.kind, position);
        }
        (SitemapKind::UrlSet, Ns::Xhtml, "link") => {
            return alternate(item, sink, e, position);
        }
        (SitemapKind::UrlSet, Ns::Image, "image") => {
            item.images = item.images.saturating_add(1);
            None
        }
        (SitemapKind::UrlSet, Ns::Video, "video") => {
            item.videos = item.videos.saturating_add(1);
            None
        }
        (SitemapKind::UrlSet, Ns::News, "news") => {
            item.news = true;
            None
        }
        (SitemapKind::Rss, _, "link") if item.loc.is_none() => Some((Field::Loc, false)),
        (SitemapKind::Atom, _, "updated") if item.lastmod.is_none() => {
            Some((Field::Lastmod, false))
        }
        (SitemapKind::Atom, _, "link") if item.loc.is_none() => {
            let mut rel = None;
            let mut href = None;
            for attr in e.attributes().flatten() {
                let value = attr.normalized_value(XmlVersion::Implicit1_0).ok();
                match attr.key.local_name().as_ref() {
                    "rel" => rel = value.map(|v| v.trim().to_owned()),
                    "href" => href = value.map(|v| v.into_owned()),
                    _ => {}
                }
            }
            if matches!(rel.as_deref(), None | Some("alternate")) {
                item.loc = Some(href.unwrap_or_default());
            }
            None
        }
        _ => None,
    };
    if let Some((field, duplicate)) = field {
        let field = if duplicate {
            sink.issue(
                IssueKind::DuplicateElement,
                format!(
                    "<{}> has more than one <{local}>; the first is kept",
                    state.item_name()
                ),
                Some(position),
                None,
            )?;
            Field::Ignore
        } else {
            field
        };
        state.field = Some((field, depth));
        state.text.clear();
        state.text_truncated = false;
    }
    ControlFlow::Continue(())
}

fn unexpected<F: FnMut(Item) -> ControlFlow<()>>(
    sink: &mut Sink<'_, F>,
    local: &str,
    kind: SitemapKind,
    position: Position,
) -> ControlFlow<()> {
    let shown = &local[..local.floor_char_boundary(64)];
    sink.issue(
        IssueKind::UnexpectedElement,
        format!(
            "<{shown}> is not allowed here in a <{}>; ignored",
            kind.as_str()
        ),
        Some(position),
        None,
    )
}

/// Reads an `xhtml:link` of a URL entry.
fn alternate<F: FnMut(Item) -> ControlFlow<()>>(
    item: &mut RawEntry,
    sink: &mut Sink<'_, F>,
    e: &BytesStart<'_>,
    position: Position,
) -> ControlFlow<()> {
    let mut rel = None;
    let mut hreflang = None;
    let mut href = None;
    let mut bad_attr = false;
    for attr in e.attributes() {
        let Ok(attr) = attr else {
            bad_attr = true;
            continue;
        };
        let value = match attr.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => v.trim().to_owned(),
            Err(_) => {
                bad_attr = true;
                continue;
            }
        };
        match attr.key.as_ref() {
            "rel" => rel = Some(value),
            "hreflang" => hreflang = Some(value),
            "href" => href = Some(value),
            _ => {}
        }
    }
    if !rel
        .as_deref()
        .is_some_and(|r| r.eq_ignore_ascii_case("alternate"))
    {
        // Other relations carry no hreflang information.
        return ControlFlow::Continue(());
    }
    let href_ok = href.as_deref().is_some_and(|h| {
        let lower = h.get(..8).unwrap_or(h).to_ascii_lowercase();
        (lower.starts_with("http://") || lower.starts_with("https://"))
            && url::Url::parse(h).is_ok_and(|u| u.host_str().is_some_and(|s| !s.is_empty()))
    });
    let hreflang = hreflang.filter(|h| !h.is_empty());
    match (hreflang, href) {
        (Some(hreflang), Some(href)) if href_ok && !bad_attr => {
            item.alternates.push(Alternate { hreflang, href });
            ControlFlow::Continue(())
        }
        (hreflang, href) => {
            let why = if bad_attr {
                "an unreadable attribute".to_owned()
            } else if hreflang.is_none() {
                "no hreflang".to_owned()
            } else {
                format!(
                    "href {:?} is not an absolute http(s) URL",
                    href.as_deref().unwrap_or_default()
                )
            };
            sink.issue(
                IssueKind::InvalidAlternate,
                format!("xhtml:link rel=\"alternate\" has {why}; ignored"),
                Some(position),
                None,
            )
        }
    }
}

/// Handles the root element.
fn root<F: FnMut(Item) -> ControlFlow<()>>(
    state: &mut State,
    sink: &mut Sink<'_, F>,
    local: &str,
    position: Position,
) -> ControlFlow<()> {
    let ns = state.root_ns.clone().flatten();
    let (kind, item_depth) = match local {
        "urlset" => (SitemapKind::UrlSet, 2),
        "sitemapindex" => (SitemapKind::Index, 2),
        "rss" => (SitemapKind::Rss, 3),
        "feed" => (SitemapKind::Atom, 2),
        other => {
            sink.kind(SitemapKind::Unknown)?;
            let shown = &other[..other.floor_char_boundary(64)];
            let what = if other.eq_ignore_ascii_case("html") {
                " (an HTML page)".to_owned()
            } else {
                String::new()
            };
            return sink.fatal(
                IssueKind::NotASitemap,
                format!(
                    "the root element is <{shown}>{what}, not <urlset>, <sitemapindex>, <rss> or <feed>"
                ),
                Some(position),
                None,
            );
        }
    };
    state.kind = kind;
    state.item_depth = item_depth;
    sink.kind(kind)?;
    if matches!(kind, SitemapKind::UrlSet | SitemapKind::Index) && ns.as_deref() != Some(SITEMAP_NS)
    {
        let found = match ns.as_deref() {
            Some(ns) => format!("namespace {:?}", &ns[..ns.floor_char_boundary(200)]),
            None => "no namespace".to_owned(),
        };
        sink.issue(
            IssueKind::WrongNamespace,
            format!("<{local}> has {found}; expected {SITEMAP_NS:?} (parsed anyway)"),
            Some(position),
            None,
        )?;
    }
    ControlFlow::Continue(())
}

/// Handles the closing of the element at `state.depth`.
fn end<F: FnMut(Item) -> ControlFlow<()>>(
    state: &mut State,
    sink: &mut Sink<'_, F>,
) -> ControlFlow<()> {
    let depth = state.depth;
    state.depth = depth.saturating_sub(1);
    if let Some((field, field_depth)) = state.field {
        if field_depth != depth {
            return ControlFlow::Continue(());
        }
        state.field = None;
        let value = std::mem::take(&mut state.text);
        if let Some(item) = state.item.as_mut() {
            match field {
                Field::Loc => {
                    item.loc = Some(value);
                    item.loc_truncated = state.text_truncated;
                }
                Field::Lastmod => item.lastmod = Some(value),
                Field::Changefreq => item.changefreq = Some(value),
                Field::Priority => item.priority = Some(value),
                Field::Ignore => {}
            }
        }
        return ControlFlow::Continue(());
    }
    if depth == state.item_depth
        && let Some(item) = state.item.take()
    {
        return match state.kind {
            SitemapKind::Index => sink.sitemap(item),
            SitemapKind::Rss | SitemapKind::Atom => sink.url(item, state.item_name(), false),
            _ => sink.url(item, "url", true),
        };
    }
    if depth == 1 {
        state.root_closed = true;
    }
    ControlFlow::Continue(())
}
