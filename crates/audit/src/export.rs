//! The report's tables as typed data ([`table_data`]) and as CSV ([`write_table`]): RFC
//! 4180, UTF-8, headers named as SEO tools name them, and safe to open in a spreadsheet (a
//! text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
//! leading `'`, so crawled text cannot run as a formula). The desktop app pages through
//! the same data.

use crate::cluster::{Action, Role};
use crate::input::{AuditInput, FetchRow, UrlId};
use crate::{Analysis, FixFiles, Tier};
use std::collections::HashMap;
use std::io::Write;

pub use crate::table::{Cell, ColumnType, Header, TableData, csv_cell, spreadsheet_safe};
use crate::table::{Words, number, text, url};

/// One exportable table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Every URL with the SEO Spider's Internal columns ([`PAGES_HEADERS`]: status,
    /// indexability, title, description, robots, canonicals, size, inlinks, text hash,
    /// response time), its main-content hash and its cluster.
    Pages,
    /// One row per cluster member: the preferred URL, why the member is in, its fix.
    Clusters,
    /// Every finding with its URLs and fixes.
    Findings,
    /// One row per redirecting URL: its chain hop by hop.
    Redirects,
    /// Every rel=canonical declaration.
    Canonicals,
    /// Every sitemap entry with what the crawl found at its URL.
    SitemapEntries,
    /// Internal links that point at a URL that is not its cluster's preferred URL.
    LinksToNonPreferred,
    /// How the server answers URL variants no page links to, one row per rule (the
    /// crawler's probes, see [`crate::probes`]), with the fix for nginx and Apache.
    UrlVariants,
    /// Titles, first headings and meta descriptions that different pages share, one row
    /// per value and page ([`crate::Analysis::duplicate_values`]).
    DuplicateMetadata,
}

impl Table {
    /// Every table, in export order.
    pub const ALL: [Table; 9] = [
        Table::Pages,
        Table::Clusters,
        Table::Findings,
        Table::Redirects,
        Table::Canonicals,
        Table::SitemapEntries,
        Table::LinksToNonPreferred,
        Table::UrlVariants,
        Table::DuplicateMetadata,
    ];

    /// The file name the table is exported under.
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Pages => "pages.csv",
            Table::Clusters => "clusters.csv",
            Table::Findings => "findings.csv",
            Table::Redirects => "redirects.csv",
            Table::Canonicals => "canonicals.csv",
            Table::SitemapEntries => "sitemap_entries.csv",
            Table::LinksToNonPreferred => "links_to_non_preferred.csv",
            Table::UrlVariants => "url_variants.csv",
            Table::DuplicateMetadata => "duplicate_metadata.csv",
        }
    }
}

/// Lookups shared by the tables.
struct Index<'a> {
    url: HashMap<UrlId, &'a str>,
    fetch: HashMap<UrlId, &'a FetchRow>,
    preferred: HashMap<UrlId, &'a str>,
    /// The clusters' preferred URLs, by id (their found spelling may differ from the
    /// cluster's form of it: `%c3%a9` for `%C3%A9`).
    preferred_ids: std::collections::HashSet<UrlId>,
    cluster: HashMap<UrlId, u32>,
    main_words: HashMap<UrlId, u32>,
    blocked: std::collections::HashSet<UrlId>,
    /// The URLs Dustpan made up ([`AuditInput::made_up_urls`]).
    made_up: rustc_hash::FxHashSet<UrlId>,
}

impl<'a> Index<'a> {
    fn new(input: &'a AuditInput, analysis: &'a Analysis) -> Index<'a> {
        let mut preferred = HashMap::new();
        let mut cluster = HashMap::new();
        let mut preferred_ids = std::collections::HashSet::new();
        for c in &analysis.clusters {
            for m in &c.members {
                preferred.insert(m.url_id, c.preferred_url.as_str());
                cluster.insert(m.url_id, c.id);
                if m.role == Role::Preferred {
                    preferred_ids.insert(m.url_id);
                }
            }
        }
        Index {
            url: input.urls.iter().map(|u| (u.id, u.found_url())).collect(),
            fetch: input.fetches.iter().map(|f| (f.url_id, f)).collect(),
            preferred,
            preferred_ids,
            cluster,
            main_words: analysis.main_words.iter().copied().collect(),
            blocked: input.robots_blocks.iter().copied().collect(),
            made_up: input.made_up_urls(),
        }
    }

    fn url(&self, id: UrlId) -> &'a str {
        self.url.get(&id).copied().unwrap_or("")
    }

    /// The URL's HTTP status, empty when it was not fetched or got no answer.
    fn status(&self, id: UrlId) -> Cell {
        self.fetch.get(&id).and_then(|f| f.status).into()
    }

    /// (Indexability, Indexability Status) as crawlers report them.
    fn indexability(&self, id: UrlId, canonical: Option<UrlId>) -> (&'static str, &'static str) {
        if self.blocked.contains(&id) {
            return ("Non-Indexable", "Blocked by robots.txt");
        }
        let Some(f) = self.fetch.get(&id) else {
            return ("", "Not crawled");
        };
        match f.status {
            None => ("Non-Indexable", "No Response"),
            Some(s) if (300..400).contains(&s) => ("Non-Indexable", "Redirected"),
            Some(s) if s >= 400 => ("Non-Indexable", "Client or Server Error"),
            Some(_) if f.noindex => ("Non-Indexable", "noindex"),
            Some(_) if canonical.is_some_and(|c| c != id) => ("Non-Indexable", "Canonicalised"),
            Some(_) => ("Indexable", ""),
        }
    }
}

/// The columns of `pages.csv`: Screaming Frog SEO Spider's names, in the order of its
/// Internal tab export (`internal_all.csv`), then Dustpan's own columns.
pub const PAGES_HEADERS: [Header; 26] = [
    url("Address"),
    text("Content Type"),
    number("Status Code"),
    text("Indexability"),
    text("Indexability Status"),
    text("Title 1"),
    number("Title 1 Length"),
    text("Meta Description 1"),
    text("H1-1"),
    text("Meta Robots 1"),
    text("X-Robots-Tag 1"),
    url("Canonical Link Element 1"),
    url("HTTP Canonical 1"),
    number("Size (bytes)"),
    number("Word Count"),
    number("Crawl Depth"),
    number("Inlinks"),
    number("Unique Inlinks"),
    text("Hash"),
    text("Response Time"),
    url("Redirect URL"),
    text("Main Content Hash"),
    number("Main Content Word Count"),
    number("Cluster"),
    url("Preferred URL"),
    text("Found Via"),
];

/// Per URL: the links to it (`Inlinks`) and the pages they are on (`Unique Inlinks`).
/// Hyperlinks only (`<a>`, `<area>`), where the audit recorded which links are; never
/// the URLs pages declare (shortlink, og:url, ...).
/// Links on the pages of URLs Dustpan made up (`made_up`) are no links of the site.
fn inlinks(
    input: &AuditInput,
    made_up: &rustc_hash::FxHashSet<UrlId>,
) -> HashMap<UrlId, (u32, u32)> {
    let hyperlinks_known = input.links.iter().any(|l| l.region.is_some());
    let counted = |l: &crate::input::LinkRow| {
        !l.kind.is_declared()
            && (!hyperlinks_known || l.region.is_some())
            && !made_up.contains(&l.from)
    };
    // (links, pages, the last page counted): a page's links are contiguous in the
    // stored order, so one pass counts each page once.
    let mut n: ByUrl<(u32, u32, UrlId)> = ByUrl::new(input);
    let mut count = |from: UrlId, to: UrlId| {
        let e = n.entry(to);
        if e.0 == 0 || e.2 != from {
            e.1 += 1;
            e.2 = from;
        }
        e.0 += 1;
    };
    if input.links.is_sorted_by_from() {
        for l in input.links.iter().filter(|l| counted(l)) {
            if let Some(to) = l.to {
                count(l.from, to);
            }
        }
    } else {
        let mut pairs: Vec<(UrlId, UrlId)> = input
            .links
            .iter()
            .filter(|l| counted(l))
            .filter_map(|l| Some((l.from, l.to?)))
            .collect();
        pairs.sort_unstable();
        for (from, to) in pairs {
            count(from, to);
        }
    }
    input
        .urls
        .iter()
        .filter_map(|u| {
            let (links, pages, _) = n.get(u.id)?;
            (links > 0).then_some((u.id, (links, pages)))
        })
        .collect()
}

/// A value per URL id, counted once per link: a vector over the ids' range where they
/// are dense (one audit's URLs, numbered in turn), a hash map where they are not. A
/// million pages' 74 million links hashed into a map took thirty seconds.
enum ByUrl<T> {
    /// `spare` takes the counts of an id outside the range (a link row naming no URL
    /// of the audit), which no URL reads.
    Dense {
        first: UrlId,
        slots: Vec<T>,
        spare: T,
    },
    Sparse(rustc_hash::FxHashMap<UrlId, T>),
}

impl<T: Default + Copy> ByUrl<T> {
    fn new(input: &AuditInput) -> Self {
        let ids = || input.urls.iter().map(|u| u.id);
        match (ids().min(), ids().max()) {
            (Some(first), Some(last)) if ((last - first) as usize) < 2 * input.urls.len() => {
                ByUrl::Dense {
                    first,
                    slots: vec![T::default(); (last - first) as usize + 1],
                    spare: T::default(),
                }
            }
            _ => ByUrl::Sparse(Default::default()),
        }
    }

    /// The value of `id`, added as the default when new.
    fn entry(&mut self, id: UrlId) -> &mut T {
        match self {
            ByUrl::Dense {
                first,
                slots,
                spare,
            } => match id
                .checked_sub(*first)
                .and_then(|at| slots.get_mut(at as usize))
            {
                Some(slot) => slot,
                None => spare,
            },
            ByUrl::Sparse(map) => map.entry(id).or_default(),
        }
    }

    fn get(&self, id: UrlId) -> Option<T> {
        match self {
            ByUrl::Dense { first, slots, .. } => id
                .checked_sub(*first)
                .and_then(|at| slots.get(at as usize))
                .copied(),
            ByUrl::Sparse(map) => map.get(&id).copied(),
        }
    }
}

/// How each URL was first found, in words (`Found Via`): `start`, `start variant`,
/// `sitemap`, `redirect`, `meta refresh`, `canonical`, `hreflang`, or for a URL found in
/// a page what the first link from that page to it is: `link`, `nofollow link` (rel
/// nofollow, or on a page whose robots say nofollow), `rel=next`, `rel=prev`,
/// `shortlink`, `alternate`, `amphtml`, `og:url`, `structured data`, `link header`.
pub fn found_via(input: &AuditInput) -> HashMap<UrlId, &'static str> {
    use crate::input::FoundVia as F;
    let mut out: HashMap<UrlId, &'static str> = HashMap::with_capacity(input.urls.len());
    // (page, URL) of every URL a page found, sorted by page: a page's links are read
    // together, so the pairs of the page being read stay at hand.
    let mut wanted: Vec<(UrlId, UrlId)> = Vec::new();
    for u in &input.urls {
        let words = match u.found_via {
            F::Start => "start",
            F::Variant => "start variant",
            F::Sitemap => "sitemap",
            F::Redirect => "redirect",
            F::MetaRefresh => "meta refresh",
            F::Canonical => "canonical",
            F::Hreflang => "hreflang",
            F::Link => {
                if let Some(from) = u.found_from {
                    wanted.push((from, u.id));
                }
                "link"
            }
        };
        out.insert(u.id, words);
    }
    if wanted.is_empty() {
        return out;
    }
    wanted.sort_unstable();
    // The words of each pair's first link, once seen.
    let mut words: Vec<Option<&'static str>> = vec![None; wanted.len()];
    // The pairs of the page whose links are being read.
    let mut page: (UrlId, std::ops::Range<usize>) = (0, 0..0);
    let nofollow_pages: std::collections::HashSet<UrlId> = input
        .fetches
        .iter()
        .filter(|f| f.nofollow)
        .map(|f| f.url_id)
        .collect();
    for (n, l) in input.links.iter().enumerate() {
        let Some(to) = l.to else { continue };
        if n == 0 || page.0 != l.from {
            let a = wanted.partition_point(|&(f, _)| f < l.from);
            let b = a + wanted[a..].partition_point(|&(f, _)| f == l.from);
            page = (l.from, a..b);
        }
        for k in page.1.clone() {
            if wanted[k].1 == to && words[k].is_none() {
                let nofollow = l.nofollow || nofollow_pages.contains(&l.from);
                words[k] = Some(l.kind.found_via_words(nofollow));
            }
        }
    }
    for (&(_, to), w) in wanted.iter().zip(words) {
        if let Some(w) = w {
            out.insert(to, w);
        }
    }
    out
}

/// The non-preferred members of clusters that the crawl reached only through nofollow
/// links, sorted: found in a page (not a start URL, a sitemap entry, a redirect,
/// a canonical or an hreflang alternate, and no redirect, canonical or hreflang of another
/// page points at it), and every link to it from another page is nofollow (rel=nofollow,
/// or on a page whose robots say nofollow). A declared URL (shortlink, og:url, ...) is
/// no nofollow link. Search engines that follow nofollow links as hints find these
/// duplicates too; a crawl that does not follow them does not see them.
pub fn reached_only_via_nofollow(input: &AuditInput, analysis: &Analysis) -> Vec<UrlId> {
    let found_in_page: std::collections::HashSet<UrlId> = input
        .urls
        .iter()
        .filter(|u| u.found_via == crate::input::FoundVia::Link)
        .map(|u| u.id)
        .collect();
    // URL -> (a nofollow link reaches it, a followed one does).
    let mut candidates: HashMap<UrlId, (bool, bool)> = analysis
        .clusters
        .iter()
        .flat_map(|c| c.members.iter())
        .filter(|m| m.role != Role::Preferred && found_in_page.contains(&m.url_id))
        .map(|m| (m.url_id, (false, false)))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let mut reached_otherwise = |id: UrlId| {
        if let Some(c) = candidates.get_mut(&id) {
            c.1 = true;
        }
    };
    input
        .sitemap_entries
        .iter()
        .filter_map(|e| e.url_id)
        .for_each(&mut reached_otherwise);
    input
        .redirects
        .iter()
        .filter_map(|r| r.to)
        .for_each(&mut reached_otherwise);
    input
        .fetches
        .iter()
        .filter_map(|f| f.redirect_to)
        .for_each(&mut reached_otherwise);
    input
        .canonicals
        .iter()
        .filter_map(|c| c.target.filter(|&t| t != c.page))
        .for_each(&mut reached_otherwise);
    input
        .hreflang
        .iter()
        .filter_map(|h| h.target.filter(|&t| t != h.page))
        .for_each(&mut reached_otherwise);
    let nofollow_pages: std::collections::HashSet<UrlId> = input
        .fetches
        .iter()
        .filter(|f| f.nofollow)
        .map(|f| f.url_id)
        .collect();
    for l in &input.links {
        let Some(to) = l.to.filter(|&t| t != l.from) else {
            continue;
        };
        if let Some(c) = candidates.get_mut(&to) {
            if !l.kind.is_declared() && (l.nofollow || nofollow_pages.contains(&l.from)) {
                c.0 = true;
            } else {
                c.1 = true;
            }
        }
    }
    let mut out: Vec<UrlId> = candidates
        .into_iter()
        .filter(|&(_, (nofollow, followed))| nofollow && !followed)
        .map(|(id, _)| id)
        .collect();
    out.sort_unstable();
    out
}

/// The first robots meta of a stored list (`name: content`, `; `-separated): its
/// content for `robots`, the whole entry for a named crawler (`googlebot: noindex`).
fn first_meta_robots(stored: &str) -> &str {
    const NAMES: [&str; 4] = ["robots: ", "googlebot: ", "googlebot-news: ", "bingbot: "];
    let end = stored
        .match_indices("; ")
        .map(|(i, _)| i)
        .find(|&i| NAMES.iter().any(|n| stored[i + 2..].starts_with(n)))
        .unwrap_or(stored.len());
    let first = &stored[..end];
    first.strip_prefix("robots: ").unwrap_or(first)
}

/// Characters of the title; 0 for an HTML page without one.
fn title_length(f: Option<&FetchRow>) -> Cell {
    match f {
        Some(FetchRow { title: Some(t), .. }) => int(t.chars().count() as i64),
        Some(f) if f.text_hash.is_some() => int(0),
        _ => Cell::Empty,
    }
}

/// A 64-bit hash as 16 hex digits.
fn hex(hash: Option<u64>) -> Cell {
    hash.map_or(Cell::Empty, |h| Cell::Text(format!("{h:016x}").into()))
}

/// Milliseconds as seconds with three decimals, as Screaming Frog's `Response Time`.
fn seconds(ms: u32) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

fn int(n: impl Into<i64>) -> Cell {
    Cell::Int(n.into())
}

fn opt_text(s: Option<&str>) -> Cell {
    Cell::Text(s.unwrap_or("").into())
}

/// A cluster member's role as the exports name it.
pub fn role_name(role: Role) -> &'static str {
    role.as_str()
}

/// A cluster member's fix as the exports word it (empty when there is nothing to do).
pub fn fix_text(action: Action, preferred_url: &str) -> String {
    match action {
        Action::None => String::new(),
        Action::Redirect301 => format!("301 redirect to {preferred_url}"),
        Action::Canonical => {
            format!("add <link rel=\"canonical\" href=\"{preferred_url}\">")
        }
    }
}

/// Writes `table` as CSV; returns the number of data rows.
pub fn write_table<W: Write>(
    table: Table,
    input: &AuditInput,
    analysis: &Analysis,
    out: W,
) -> csv::Result<usize> {
    table_data(table, input, analysis).write_csv(out)
}

/// Builds `table` as typed data.
pub fn table_data(table: Table, input: &AuditInput, analysis: &Analysis) -> TableData {
    let ix = Index::new(input, analysis);
    match table {
        Table::Pages => pages_table(input, analysis, &ix),
        Table::Clusters => clusters_table(input, analysis, &ix),
        Table::Findings => findings_table(analysis),
        Table::Redirects => redirects_table(input, &ix),
        Table::Canonicals => canonicals_table(input, &ix),
        Table::SitemapEntries => sitemap_entries_table(input, &ix),
        Table::LinksToNonPreferred => links_to_non_preferred_table(input, analysis, &ix),
        Table::UrlVariants => url_variants_table(analysis),
        Table::DuplicateMetadata => duplicate_metadata_table(analysis),
    }
}

/// Each page's first canonical declaration's target (`None`: its target is no URL).
fn first_canonicals(input: &AuditInput) -> HashMap<UrlId, Option<UrlId>> {
    let mut m = HashMap::new();
    for c in &input.canonicals {
        m.entry(c.page).or_insert(c.target);
    }
    m
}

/// `pages.csv`: one row per URL, with [`PAGES_HEADERS`].
fn pages_table(input: &AuditInput, analysis: &Analysis, ix: &Index<'_>) -> TableData {
    let first_canonical = first_canonicals(input);
    let mut t = TableData::new(&PAGES_HEADERS);
    let inlinks = inlinks(input, &ix.made_up);
    let found_via = found_via(input);
    let main_hash: HashMap<UrlId, u64> = analysis.main_hashes.iter().copied().collect();
    // The first declaration of each source (headers come first in `canonicals`).
    let mut declared: HashMap<(UrlId, bool), &str> = HashMap::new();
    for c in &input.canonicals {
        let header = c.source == crate::input::DeclarationSource::HttpHeader;
        declared
            .entry((c.page, header))
            .or_insert_with(|| c.target.map_or(c.href_raw.as_str(), |t| ix.url(t)));
    }
    t.rows.reserve(input.urls.len());
    // The columns whose texts repeat, each text held once.
    let mut words = Words::default();
    for u in &input.urls {
        let canonical = first_canonical.get(&u.id).copied().flatten();
        let (indexable, why) = ix.indexability(u.id, canonical);
        let f = ix.fetch.get(&u.id);
        let answered = f.is_some_and(|f| f.status.is_some());
        let (links_in, sources) = inlinks.get(&u.id).copied().unwrap_or_default();
        t.rows.push(vec![
            u.found_url().into(),
            words.cell(f.and_then(|f| f.content_type.as_deref()).unwrap_or("")),
            ix.status(u.id),
            words.cell(indexable),
            words.cell(why),
            opt_text(f.and_then(|f| f.title.as_deref())),
            title_length(f.copied()),
            opt_text(f.and_then(|f| f.meta_description.as_deref())),
            opt_text(f.and_then(|f| f.h1.as_deref())),
            words.cell(
                f.and_then(|f| f.meta_robots.as_deref())
                    .map_or("", first_meta_robots),
            ),
            words.cell(f.and_then(|f| f.x_robots_tag.as_deref()).unwrap_or("")),
            declared.get(&(u.id, false)).copied().unwrap_or("").into(),
            declared.get(&(u.id, true)).copied().unwrap_or("").into(),
            answered
                .then(|| f.map_or(0, |f| f.body_bytes))
                .map(|n| i64::try_from(n).unwrap_or(i64::MAX))
                .into(),
            f.and_then(|f| f.word_count).into(),
            int(u.depth),
            int(links_in),
            int(sources),
            hex(f.and_then(|f| f.text_hash)),
            f.and_then(|f| f.response_ms)
                .map_or(Cell::Empty, |ms| words.cell(&seconds(ms))),
            f.and_then(|f| f.redirect_to)
                .map(|t| ix.url(t))
                .unwrap_or("")
                .into(),
            hex(main_hash.get(&u.id).copied()),
            ix.main_words.get(&u.id).copied().into(),
            ix.cluster.get(&u.id).copied().into(),
            ix.preferred.get(&u.id).copied().unwrap_or("").into(),
            words.cell(found_via.get(&u.id).copied().unwrap_or("")),
        ]);
    }
    t
}

/// `clusters.csv`: one row per cluster member, with why it is in the cluster and its fix.
fn clusters_table(input: &AuditInput, analysis: &Analysis, ix: &Index<'_>) -> TableData {
    let mut t = TableData::new(&[
        number("Cluster"),
        url("Preferred URL"),
        url("Address"),
        text("Role"),
        number("Status Code"),
        text("Why In Cluster"),
        text("Evidence Tier"),
        text("Rules Fired"),
        text("Fix"),
        text("Reached Only Via Nofollow"),
    ]);
    let nofollow_only = reached_only_via_nofollow(input, analysis);
    for c in &analysis.clusters {
        for m in &c.members {
            let why: Vec<String> = m
                .evidence
                .iter()
                .map(|e| format!("{} -> {}: {}", ix.url(e.from), ix.url(e.to), e.kind))
                .collect();
            let rules: Vec<&str> = m.rules.iter().map(|r| r.id()).collect();
            t.rows.push(vec![
                int(c.id),
                c.preferred_url.as_str().into(),
                m.url.as_str().into(),
                role_name(m.role).into(),
                m.status.into(),
                why.join("\n").into(),
                if m.role == Role::Preferred {
                    ""
                } else {
                    Tier::Strong.as_str()
                }
                .into(),
                rules.join(", ").into(),
                fix_text(m.action, &c.preferred_url).into(),
                if nofollow_only.binary_search(&m.url_id).is_ok() {
                    "yes"
                } else {
                    ""
                }
                .into(),
            ]);
        }
    }
    t
}

/// `findings.csv`: one row per finding, with its fixes.
fn findings_table(analysis: &Analysis) -> TableData {
    let mut t = TableData::new(&[
        text("Finding"),
        text("Severity"),
        text("Evidence Tier"),
        text("Title"),
        text("Summary"),
        url("Addresses"),
        text("Fix"),
        text("Why It Matters"),
        text("Evidence"),
        text("Key"),
    ]);
    for f in &analysis.findings {
        let fixes: Vec<String> = f.fixes.iter().map(|x| x.to_string()).collect();
        t.rows.push(vec![
            f.id.code().into(),
            f.severity.as_str().into(),
            f.id.tier().as_str().into(),
            (&*f.title).into(),
            f.summary.as_str().into(),
            f.urls.join("\n").into(),
            fixes.join("\n").into(),
            (&*f.why).into(),
            f.evidence.join("\n").into(),
            f.key.as_str().into(),
        ]);
    }
    t
}

/// `redirects.csv`: one row per redirecting URL, with its chain followed to the end.
fn redirects_table(input: &AuditInput, ix: &Index<'_>) -> TableData {
    let mut t = TableData::new(&[
        url("Address"),
        number("Hops"),
        url("Final Address"),
        number("Final Status Code"),
        text("Chain"),
        text("Problem"),
    ]);
    let hop: HashMap<UrlId, &crate::input::RedirectRow> =
        input.redirects.iter().map(|r| (r.from, r)).collect();
    let problem: HashMap<UrlId, &'static str> = input
        .redirect_chains
        .iter()
        .map(|c| {
            let p = match c.problem {
                crate::input::ChainProblem::Loop => "loop",
                crate::input::ChainProblem::TooLong => "too long",
            };
            (c.start, p)
        })
        .collect();
    for r in &input.redirects {
        let mut chain = vec![ix.url(r.from).to_owned()];
        let mut seen = std::collections::HashSet::from([r.from]);
        let mut at = r.from;
        let mut hops = 0u32;
        while let Some(h) = hop.get(&at) {
            hops += 1;
            let Some(to) = h.to else { break };
            chain.push(format!("({}) {}", h.status, ix.url(to)));
            if !seen.insert(to) || hops > 50 {
                break;
            }
            at = to;
        }
        t.rows.push(vec![
            ix.url(r.from).into(),
            int(hops),
            ix.url(at).into(),
            ix.status(at),
            chain.join(" -> ").into(),
            problem.get(&r.from).copied().unwrap_or("").into(),
        ]);
    }
    t
}

/// `canonicals.csv`: one row per canonical declaration.
fn canonicals_table(input: &AuditInput, ix: &Index<'_>) -> TableData {
    let mut t = TableData::new(&[
        url("Address"),
        url("Canonical Link Element"),
        text("Source"),
        text("In Head"),
        number("Canonical Status Code"),
        text("Self-Referencing"),
    ]);
    for c in &input.canonicals {
        let source = match c.source {
            crate::input::DeclarationSource::LinkElement => "link element",
            crate::input::DeclarationSource::HttpHeader => "HTTP header",
        };
        let target = c.target.map(|t| ix.url(t)).unwrap_or(&c.href_raw);
        t.rows.push(vec![
            ix.url(c.page).into(),
            target.into(),
            source.into(),
            c.in_head.into(),
            c.target.map_or(Cell::Empty, |t| ix.status(t)),
            (c.target == Some(c.page)).into(),
        ]);
    }
    t
}

/// `sitemap_entries.csv`: one row per sitemap entry, with what the URL answers.
fn sitemap_entries_table(input: &AuditInput, ix: &Index<'_>) -> TableData {
    let first_canonical = first_canonicals(input);
    let mut t = TableData::new(&[
        url("Sitemap"),
        url("Address"),
        number("Status Code"),
        text("Indexability"),
        url("Preferred URL"),
    ]);
    let sitemap: HashMap<u32, &str> = input
        .sitemaps
        .iter()
        .map(|s| (s.id, s.url.as_str()))
        .collect();
    for e in &input.sitemap_entries {
        let (address, code, indexable, preferred) = match e.url_id {
            Some(id) => {
                let canonical = first_canonical.get(&id).copied().flatten();
                (
                    ix.url(id),
                    ix.status(id),
                    ix.indexability(id, canonical).0,
                    ix.preferred.get(&id).copied().unwrap_or(""),
                )
            }
            None => (e.loc_raw.as_str(), Cell::Empty, "", ""),
        };
        t.rows.push(vec![
            sitemap.get(&e.sitemap_id).copied().unwrap_or("").into(),
            address.into(),
            code,
            indexable.into(),
            preferred.into(),
        ]);
    }
    t
}

/// `links_to_non_preferred.csv`: one row per link to change, to a URL that is not its
/// cluster's preferred URL.
fn links_to_non_preferred_table(
    input: &AuditInput,
    analysis: &Analysis,
    ix: &Index<'_>,
) -> TableData {
    let mut t = TableData::new(&[
        url("Source"),
        url("Destination"),
        url("Preferred URL"),
        text("Anchor Text"),
        text("Link Position"),
        text("Nofollow"),
    ]);
    let anchors: HashMap<(UrlId, UrlId), &str> = input
        .anchors
        .iter()
        .map(|a| ((a.from, a.to), a.text.as_str()))
        .collect();
    // Links that stay as they are (`Analysis::kept_links`: a control, a URL
    // the page declares canonical) are no links to change.
    let kept: std::collections::HashSet<UrlId> =
        analysis.kept_links.iter().map(|&(id, _)| id).collect();
    // A URL a page declares (shortlink, og:url, ...) is no link to change; a
    // page Dustpan made up (a URL-variant probe) is none of the site's.
    for l in input
        .links
        .iter()
        .filter(|l| !l.kind.is_declared() && !ix.made_up.contains(&l.from))
    {
        // A link to the page itself (a fragment, a skip link) is no link to fix.
        let Some(to) = l.to.filter(|&to| to != l.from && !kept.contains(&to)) else {
            continue;
        };
        let Some(preferred) = ix.preferred.get(&to) else {
            continue;
        };
        if *preferred == ix.url(to) || ix.preferred_ids.contains(&to) {
            continue;
        }
        t.rows.push(vec![
            ix.url(l.from).into(),
            ix.url(to).into(),
            (*preferred).into(),
            anchors.get(&(l.from, to)).copied().unwrap_or("").into(),
            l.region.map_or("", |r| r.as_str()).into(),
            l.nofollow.into(),
        ]);
    }
    t
}

/// `duplicate_metadata.csv`: one row per shared title, first heading or meta
/// description and page (a cluster's preferred URL), with the cluster (its id in
/// `clusters.csv`) and the pages counted with it (a list's later pages, hreflang
/// alternates).
fn duplicate_metadata_table(analysis: &Analysis) -> TableData {
    let mut t = TableData::new(&[
        text("Element"),
        text("Value"),
        number("Pages"),
        url("Address"),
        number("Cluster"),
        number("Cluster URLs"),
        url("Counted With"),
    ]);
    for v in &analysis.duplicate_values {
        for p in &v.pages {
            let with: Vec<&str> = p
                .later_pages
                .iter()
                .chain(&p.views)
                .chain(&p.alternates)
                .map(String::as_str)
                .collect();
            t.rows.push(vec![
                v.element.as_str().into(),
                v.value.as_str().into(),
                int(v.pages.len() as i64),
                p.url.as_str().into(),
                p.cluster.into(),
                int(p.cluster_urls),
                with.join("\n").into(),
            ]);
        }
    }
    t
}

/// `url_variants.csv`: one row per rule of URL variants (see [`crate::probes`]).
fn url_variants_table(analysis: &Analysis) -> TableData {
    use crate::probes::ProbeVerdict;
    let mut head = vec![text("Rule"), number("Samples"), text("Verdict")];
    for v in ProbeVerdict::ALL {
        head.push(number(match v {
            ProbeVerdict::Duplicate => "Duplicate",
            ProbeVerdict::RedirectTemporary => "Redirect Temporary",
            ProbeVerdict::RedirectElsewhere => "Redirect Elsewhere",
            ProbeVerdict::Different => "Different",
            ProbeVerdict::Canonical => "Canonical",
            ProbeVerdict::Gone => "Gone",
            ProbeVerdict::RedirectPermanent => "Redirect Permanent",
            ProbeVerdict::Error => "Error",
            ProbeVerdict::NotFetched => "Not Fetched",
            ProbeVerdict::Unrendered => "Unrendered",
        }));
    }
    head.extend([
        url("Example Variant"),
        url("Example Page"),
        text("Example Answer"),
        text("Nginx Rule"),
        text("Apache Rule"),
        text("Apache .htaccess Rule"),
    ]);
    let mut t = TableData::new(&head);
    for r in &analysis.url_variants {
        let mut row: Vec<Cell> = vec![
            r.rule.as_str().into(),
            int(r.samples()),
            r.verdict_word().into(),
        ];
        for &v in ProbeVerdict::ALL {
            row.push(int(r.count(v)));
        }
        let example = r.example();
        row.push(example.map_or("", |p| p.url.as_str()).into());
        row.push(example.map_or("", |p| p.base.as_str()).into());
        row.push(example.map_or("", |p| p.answer.as_str()).into());
        // A rule whose samples show nothing to fix needs no server rule.
        let fix = r.count(ProbeVerdict::Duplicate) + r.count(ProbeVerdict::RedirectTemporary) > 0;
        row.push(if fix { r.nginx.as_str() } else { "" }.into());
        row.push(if fix { r.apache.as_str() } else { "" }.into());
        row.push(if fix { r.htaccess.as_str() } else { "" }.into());
        t.rows.push(row);
    }
    t
}

/// The fix files a developer applies: `(file name, contents)`. The redirect map comes as
/// CSV and as configuration for nginx, Apache, Netlify (`_redirects`), Vercel
/// (`vercel.json`), Cloudflare Bulk Redirects and the WordPress Redirection plugin.
/// The server files hold only the redirects that are new or change what the site
/// answers; `include_existing` writes those it already answers too.
pub fn fix_files(analysis: &Analysis, include_existing: bool) -> Vec<(&'static str, String)> {
    let mut f: FixFiles = analysis.fix_files();
    f.include_existing = include_existing;
    let mut files = f.redirect_files();
    files.push(("canonicals_to_set.csv", f.canonicals_csv()));
    files.push(("sitemap_changes.csv", f.sitemap_csv()));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_defused() {
        assert_eq!(spreadsheet_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(spreadsheet_safe("+1"), "'+1");
        assert_eq!(spreadsheet_safe("-2"), "'-2");
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("\tx"), "'\tx");
        assert_eq!(
            spreadsheet_safe("https://example.com/"),
            "https://example.com/"
        );
    }

    #[test]
    fn every_cell_of_a_semicolon_reading_is_defused_and_urls_stay_exact() {
        assert_eq!(spreadsheet_safe("a;=1+1"), "a;'=1+1");
        assert_eq!(spreadsheet_safe("a;\"=1+1"), "a;\"'=1+1");
        assert_eq!(spreadsheet_safe("a\t\"@x"), "a\t\"'@x");
        assert_eq!(
            spreadsheet_safe("a\"=1"),
            "a\"=1",
            "no separator before the quote"
        );
        // Control characters from crawled text never reach the file.
        assert_eq!(
            spreadsheet_safe("Title\u{1b}]0;x\u{7}\u{9b}2J end"),
            "Title\u{FFFD}]0;x\u{FFFD}\u{FFFD}2J end"
        );
        assert_eq!(spreadsheet_safe("two\nlines"), "two\nlines");
        let url = "https://example.com/a;\"=1+1?b=;-2";
        assert_eq!(csv_cell(url, ColumnType::Url), url);
        assert_eq!(csv_cell("x;=1", ColumnType::Text), "x;'=1");
    }

    #[test]
    fn pages_table_is_rfc4180_and_safe() {
        let input: AuditInput = serde_json::from_value(serde_json::json!({
            "urls": [{"id": 1, "url": "https://example.com/", "host": "example.com"}],
            "fetches": [{"url_id": 1, "status": 200, "title": "=cmd|' /C calc'!A0, \"quoted\"", "word_count": 30}]
        }))
        .unwrap();
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let mut out = Vec::new();
        let n = write_table(Table::Pages, &input, &analysis, &mut out).unwrap();
        assert_eq!(n, 1);
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert!(
            lines
                .next()
                .unwrap()
                .starts_with("Address,Content Type,Status Code,")
        );
        assert_eq!(
            lines.next().unwrap(),
            "https://example.com/,,200,Indexable,,\"'=cmd|' /C calc'!A0, \"\"quoted\"\"\",28,,,,,,,0,30,0,0,0,,,,,,,,link"
        );
    }

    /// The pages table's row for `address`, by header title.
    fn page_row(data: &TableData, address: &str) -> HashMap<&'static str, String> {
        let row = data
            .rows
            .iter()
            .find(|r| r[0] == Cell::Text(address.into()))
            .unwrap();
        data.headers
            .iter()
            .map(|h| h.title)
            .zip(row.iter().map(|c| c.as_text().into_owned()))
            .collect()
    }

    #[test]
    fn pages_carry_the_seo_spider_columns() {
        let input: AuditInput = serde_json::from_value(serde_json::json!({
            "urls": [
                {"id": 1, "url": "https://example.com/"},
                {"id": 2, "url": "https://example.com/a"},
                {"id": 3, "url": "https://example.com/b"},
                {"id": 4, "url": "https://example.com/gone"}
            ],
            "fetches": [
                {"url_id": 1, "status": 200, "title": "Héllo", "text_hash": 255,
                 "h1": "Welcome", "meta_description": "All about us",
                 "meta_robots": "robots: noindex, follow; googlebot: noarchive",
                 "x_robots_tag": "noimageindex", "response_ms": 1234, "body_bytes": 5120},
                {"url_id": 2, "status": 200, "text_hash": 1,
                 "meta_robots": "googlebot: nosnippet", "response_ms": 7, "body_bytes": 10},
                {"url_id": 3, "status": 200},
                {"url_id": 4, "error_kind": "timeout", "response_ms": 30000}
            ],
            "canonicals": [
                {"page": 2, "position": 0, "target": 1, "source": "http_header"},
                {"page": 2, "position": 1, "href_raw": "/x y", "source": "link_element"}
            ],
            "links": [
                {"from": 1, "to": 2, "region": "main"},
                {"from": 1, "to": 2, "region": "navigation"},
                {"from": 1, "to": 3, "region": "main"},
                {"from": 1, "to": 3},
                {"from": 3, "to": 2, "region": "footer"}
            ]
        }))
        .unwrap();
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let data = table_data(Table::Pages, &input, &analysis);
        let home = page_row(&data, "https://example.com/");
        assert_eq!(home["Title 1"], "Héllo");
        assert_eq!(home["Title 1 Length"], "5");
        assert_eq!(home["Meta Description 1"], "All about us");
        assert_eq!(home["H1-1"], "Welcome");
        assert_eq!(home["Meta Robots 1"], "noindex, follow");
        assert_eq!(home["X-Robots-Tag 1"], "noimageindex");
        assert_eq!(home["Size (bytes)"], "5120");
        assert_eq!(home["Response Time"], "1.234");
        assert_eq!(home["Hash"], "00000000000000ff");
        assert_eq!((&*home["Inlinks"], &*home["Unique Inlinks"]), ("0", "0"));

        let a = page_row(&data, "https://example.com/a");
        // Two links from the home page and one from /b: three links, two pages.
        assert_eq!((&*a["Inlinks"], &*a["Unique Inlinks"]), ("3", "2"));
        assert_eq!(a["Title 1 Length"], "0");
        assert_eq!(a["Meta Robots 1"], "googlebot: nosnippet");
        assert_eq!(a["HTTP Canonical 1"], "https://example.com/");
        assert_eq!(a["Canonical Link Element 1"], "/x y");
        assert_eq!(a["Response Time"], "0.007");
        // The `<link>` element (no region) is not a hyperlink.
        let b = page_row(&data, "https://example.com/b");
        assert_eq!((&*b["Inlinks"], &*b["Unique Inlinks"]), ("1", "1"));
        assert_eq!(b["Title 1 Length"], "");

        // No response: no size, the time it waited.
        let gone = page_row(&data, "https://example.com/gone");
        assert_eq!(gone["Size (bytes)"], "");
        assert_eq!(gone["Response Time"], "30.000");
        assert_eq!(gone["Status Code"], "");

        // Links in any order count the same.
        let mut shuffled = input.clone();
        let mut reversed: Vec<_> = input.links.iter().collect();
        reversed.reverse();
        shuffled.links = reversed.into();
        let again = table_data(Table::Pages, &shuffled, &analysis);
        assert_eq!(again, data);
    }

    /// The home page links /a and /b; /a?print=1 is linked only with nofollow (from
    /// /a, and from /noflw whose robots say nofollow); /b declares /b?share=1 (og:url)
    /// and /?p=2 (shortlink, 301 to /b); /b?print=1 is linked both ways.
    fn nofollow_site() -> serde_json::Value {
        serde_json::json!({
            "urls": [
                {"id": 1, "url": "https://example.com/", "found_via": "start"},
                {"id": 2, "url": "https://example.com/a", "found_from": 1},
                {"id": 3, "url": "https://example.com/b", "found_from": 1},
                {"id": 4, "url": "https://example.com/a?print=1", "found_from": 2},
                {"id": 5, "url": "https://example.com/b?share=1", "found_from": 3},
                {"id": 6, "url": "https://example.com/?p=2", "found_from": 3},
                {"id": 7, "url": "https://example.com/b?print=1", "found_from": 3},
                {"id": 8, "url": "https://example.com/noflw", "found_via": "sitemap"}
            ],
            "fetches": [
                {"url_id": 1, "status": 200, "text_hash": 1, "word_count": 300},
                {"url_id": 2, "status": 200, "text_hash": 2, "word_count": 300},
                {"url_id": 3, "status": 200, "text_hash": 3, "word_count": 300},
                {"url_id": 4, "status": 200, "text_hash": 2, "word_count": 300},
                {"url_id": 5, "status": 200, "text_hash": 3, "word_count": 300},
                {"url_id": 6, "status": 301, "redirect_to": 3},
                {"url_id": 7, "status": 200, "text_hash": 3, "word_count": 300},
                {"url_id": 8, "status": 200, "text_hash": 8, "word_count": 300, "nofollow": true}
            ],
            "redirects": [{"from": 6, "to": 3, "status": 301}],
            "canonicals": [{"page": 5, "target": 3}],
            "links": [
                {"from": 1, "to": 2, "region": "main"},
                {"from": 1, "to": 3, "region": "main"},
                {"from": 3, "to": 2, "region": "main"},
                {"from": 8, "to": 2, "region": "main"},
                {"from": 2, "to": 4, "nofollow": true, "region": "main"},
                {"from": 4, "to": 4, "region": "main"},
                {"from": 8, "to": 4, "region": "main"},
                {"from": 3, "to": 5, "kind": "og_url"},
                {"from": 3, "to": 6, "kind": "shortlink"},
                {"from": 3, "to": 7, "nofollow": true, "region": "main"},
                {"from": 1, "to": 7, "region": "main"}
            ]
        })
    }

    /// The Pages table's link columns are counted over the URL ids' range where the ids
    /// are dense, in a map where they are not: both give the same table.
    #[test]
    fn link_counts_do_not_depend_on_how_url_ids_are_spread() {
        fn spread(v: &mut serde_json::Value) {
            match v {
                serde_json::Value::Object(m) => {
                    for (k, x) in m.iter_mut() {
                        let id_field = [
                            "id",
                            "url_id",
                            "found_from",
                            "from",
                            "to",
                            "page",
                            "target",
                            "redirect_to",
                        ]
                        .contains(&k.as_str());
                        match x.as_u64() {
                            Some(n) if id_field => *x = (n * 100_000).into(),
                            _ => spread(x),
                        }
                    }
                }
                serde_json::Value::Array(a) => a.iter_mut().for_each(spread),
                _ => {}
            }
        }
        let dense: AuditInput = serde_json::from_value(nofollow_site()).unwrap();
        let mut json = nofollow_site();
        spread(&mut json);
        let sparse: AuditInput = serde_json::from_value(json).unwrap();
        assert!(matches!(ByUrl::<u32>::new(&dense), ByUrl::Dense { .. }));
        assert!(matches!(ByUrl::<u32>::new(&sparse), ByUrl::Sparse(_)));
        let columns = |input: &AuditInput| {
            let analysis = crate::analyse(input, &crate::AnalysisConfig::default());
            let t = table_data(Table::Pages, input, &analysis);
            let at = |title: &str| t.headers.iter().position(|h| h.title == title).unwrap();
            let picked = [
                at("Address"),
                at("Inlinks"),
                at("Unique Inlinks"),
                at("Found Via"),
            ];
            t.rows
                .iter()
                .map(|r| picked.map(|c| r[c].as_text().into_owned()))
                .collect::<Vec<_>>()
        };
        let expected = columns(&dense);
        assert!(expected.iter().any(|r| r[1] != "0"), "{expected:?}");
        assert_eq!(columns(&sparse), expected);
    }

    #[test]
    fn found_via_and_nofollow_only_duplicates() {
        let input: AuditInput = serde_json::from_value(nofollow_site()).unwrap();
        let via = found_via(&input);
        let words: Vec<&str> = (1..=8).map(|id| via[&id]).collect();
        assert_eq!(
            words,
            [
                "start",
                "link",
                "link",
                "nofollow link",
                "og:url",
                "shortlink",
                "nofollow link",
                "sitemap"
            ]
        );
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let clustered = |id: UrlId| analysis.cluster_of(id).is_some();
        assert!((4..=7).all(clustered), "{:#?}", analysis.clusters);
        // Only /a?print=1: /a is preferred, /b?print=1 has a followed link too, /b?share=1
        // and /?p=2 were declared.
        assert_eq!(reached_only_via_nofollow(&input, &analysis), [4]);
        let t = table_data(Table::Clusters, &input, &analysis);
        let column = t
            .headers
            .iter()
            .position(|h| h.title == "Reached Only Via Nofollow")
            .unwrap();
        let yes: Vec<&Cell> = t
            .rows
            .iter()
            .filter(|r| r[column] == Cell::Text("yes".into()))
            .map(|r| &r[2])
            .collect();
        assert_eq!(yes, [&Cell::Text("https://example.com/a?print=1".into())]);
        // Declared URLs are no inlinks.
        let pages = table_data(Table::Pages, &input, &analysis);
        let share = page_row(&pages, "https://example.com/b?share=1");
        assert_eq!(share["Inlinks"], "0");
        assert_eq!(share["Found Via"], "og:url");
    }

    #[test]
    fn the_first_robots_meta_is_read_from_the_stored_list() {
        assert_eq!(
            first_meta_robots("robots: noindex, follow"),
            "noindex, follow"
        );
        assert_eq!(
            first_meta_robots("robots: max-snippet:5; noindex; bingbot: nofollow"),
            "max-snippet:5; noindex"
        );
        assert_eq!(
            first_meta_robots("bingbot: nofollow; robots: noindex"),
            "bingbot: nofollow"
        );
        assert_eq!(first_meta_robots(""), "");
    }

    #[test]
    fn cells_stay_whole_where_a_spreadsheet_splits_on_semicolons() {
        let input: AuditInput = serde_json::from_value(serde_json::json!({
            "urls": [{"id": 1, "url": "https://example.com/a;=1+1;b"}],
            "fetches": [{"url_id": 1, "status": 200, "title": "x;=HYPERLINK(\"y\");@SUM(A1)\t-2", "word_count": 30}]
        }))
        .unwrap();
        let analysis = crate::analyse(&input, &crate::AnalysisConfig::default());
        let mut out = Vec::new();
        write_table(Table::Pages, &input, &analysis, &mut out).unwrap();
        // The URL column holds the URL exactly as crawled.
        let mut r = csv::Reader::from_reader(out.as_slice());
        let first = r.records().next().unwrap().unwrap();
        assert_eq!(&first[0], "https://example.com/a;=1+1;b");
        // Read back as a spreadsheet in a `;` (or tab) locale would: quoted fields stay
        // whole, so no field of a text cell starts a formula (the URL's own pieces are
        // what the documentation warns about: open the files as comma-separated).
        let url_pieces = ["https://example.com/a", "=1+1", "b"];
        for delimiter in [b';', b'\t', b','] {
            let mut r = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .has_headers(false)
                .flexible(true)
                .from_reader(out.as_slice());
            for record in r.records() {
                for field in record.unwrap().iter() {
                    let from_url =
                        delimiter == b';' && url_pieces.iter().any(|p| field.starts_with(p));
                    assert!(
                        from_url || !field.starts_with(['=', '+', '-', '@']),
                        "{:?}: {field:?}",
                        delimiter as char
                    );
                }
            }
        }
    }
}
