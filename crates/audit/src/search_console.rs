//! Google Search Console's verdicts explained: for each URL a page-indexing export or a
//! URL inspection names, its cluster, the signals the site gives about it and the URLs
//! around it, Google's choice and the user's, and the one signal that contradicts the
//! user's choice, with the fix.
//!
//! The predicted Google canonical of a URL is its cluster's preferred URL (the ranking
//! in the crate docs: answers 2xx, indexable, declared canonical, preferred scheme and
//! host, listed in a sitemap, more internal links, shorter URL); a URL in no cluster
//! predicts its redirect's final target, or itself. Where an inspection gives
//! `googleCanonical`, the two are compared ([`Explanation::agreement`]).
//!
//! Signals are weighed in the order Google documents for choosing a canonical:
//! redirects, then rel=canonical, then sitemap listing, then internal links (and
//! hreflang alternates), then HTTPS over HTTP, then the shorter URL. The first signal
//! that prefers Google's choice over the user's is the contradicting one.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use urllist::SearchConsole;

use crate::{Analysis, AuditInput, UrlId};

/// Search Console's reason for a canonical Google chose against the page's own.
pub const REASON_GOOGLE_CHOSE_OTHER: &str = "Duplicate, Google chose different canonical than user";
/// Search Console's reason for a duplicate that declares no canonical.
pub const REASON_NO_USER_CANONICAL: &str = "Duplicate without user-selected canonical";

/// One URL's signals, as a row of the signal table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UrlSignals {
    /// The URL.
    pub url: String,
    /// Its HTTP status, if fetched.
    pub status: Option<u16>,
    /// Where its redirects end, if it redirects.
    pub redirects_to: Option<String>,
    /// The canonical its served HTML (element or header) declares, as written.
    pub canonical: Option<String>,
    /// The canonical of the rendered page, where the page was rendered.
    pub rendered_canonical: Option<String>,
    /// Other crawled URLs that redirect to it.
    pub redirects_in: u32,
    /// Other pages whose canonical names it.
    pub canonicals_in: u32,
    /// Internal links to it from other pages.
    pub links_in: u32,
    /// Sitemaps listing it.
    pub sitemaps: u32,
    /// hreflang alternates of other pages naming it.
    pub hreflang_in: u32,
    /// It is an https URL.
    pub https: bool,
    /// It is marked noindex.
    pub noindex: bool,
}

/// The signal that sides with Google's choice against the user's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContradictionKind {
    /// The page declares no canonical: Google chose on the other signals.
    NoCanonical,
    /// The user's canonical target is not an indexable 2xx page that is its own
    /// canonical (an error, a redirect, noindex, a canonical chain), so Google ignores it.
    TargetNotIndexable,
    /// Redirects end at Google's choice.
    Redirect,
    /// Other pages' canonicals name Google's choice.
    Canonical,
    /// The sitemaps list Google's choice and not the user's.
    Sitemap,
    /// More internal links point to Google's choice.
    InternalLinks,
    /// hreflang alternates name Google's choice.
    Hreflang,
    /// Google's choice is https, the user's http.
    Https,
    /// Google's choice is the shorter URL.
    ShorterUrl,
    /// No signal the audit sees prefers Google's choice (links from other sites,
    /// content differences, or an outdated crawl).
    NoneSeen,
}

impl ContradictionKind {
    /// A stable name (`redirect`, `internal_links`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ContradictionKind::NoCanonical => "no_canonical",
            ContradictionKind::TargetNotIndexable => "target_not_indexable",
            ContradictionKind::Redirect => "redirect",
            ContradictionKind::Canonical => "canonical",
            ContradictionKind::Sitemap => "sitemap",
            ContradictionKind::InternalLinks => "internal_links",
            ContradictionKind::Hreflang => "hreflang",
            ContradictionKind::Https => "https",
            ContradictionKind::ShorterUrl => "shorter_url",
            ContradictionKind::NoneSeen => "none_seen",
        }
    }
}

/// The contradicting signal and its fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Contradiction {
    /// Which signal.
    pub kind: ContradictionKind,
    /// What it is, in a sentence ("Google chose X; your canonical says Y, but ...").
    pub detail: String,
    /// What to change.
    pub fix: String,
    /// Weaker signals that side with Google's choice too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<ContradictionKind>,
}

/// One URL Search Console names, explained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Explained {
    /// The URL.
    pub url: String,
    /// What Search Console says about it.
    pub search_console: SearchConsole,
    /// Its cluster's id ([`Analysis::clusters`]), if it is in one.
    pub cluster: Option<u32>,
    /// The user's choice: the canonical the crawled page declares (the rendered page's
    /// where it was rendered), or where it redirects, else the inspection's
    /// `userCanonical`.
    pub user_canonical: Option<String>,
    /// Google's canonical: the inspection's `googleCanonical`.
    pub google_canonical: Option<String>,
    /// The predicted Google canonical.
    pub predicted: String,
    /// Whether the prediction is Google's canonical (only where an inspection gave one).
    pub agrees: Option<bool>,
    /// The signal table: this URL, the user's and Google's choices and the cluster's
    /// other members, each once.
    pub signals: Vec<UrlSignals>,
    /// The signal that contradicts the user's choice, when Google (or the prediction)
    /// differs from it or the page declares none.
    pub contradiction: Option<Contradiction>,
}

/// Every URL Search Console names, explained, with the prediction's agreement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Explanation {
    /// One per listed URL with Search Console facts, in list order.
    pub urls: Vec<Explained>,
    /// URLs whose inspection gave a Google canonical.
    pub compared: u32,
    /// Of those, URLs whose predicted canonical is Google's.
    pub agreed: u32,
}

impl Explanation {
    /// The share of compared URLs where the prediction is Google's canonical.
    pub fn agreement(&self) -> Option<f64> {
        (self.compared > 0).then(|| f64::from(self.agreed) / f64::from(self.compared))
    }
}

/// A URL in its comparable form (the `url` crate's serialization, no fragment).
fn comparable(url: &str) -> String {
    match urllist::Url::parse(url.trim()) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.as_str().to_owned()
        }
        Err(_) => url.trim().to_owned(),
    }
}

/// Per-URL counts read once from the audit's rows.
struct Index<'a> {
    input: &'a AuditInput,
    analysis: &'a Analysis,
    id_of: HashMap<String, UrlId>,
    url_of: HashMap<UrlId, &'a str>,
    redirects_in: HashMap<UrlId, u32>,
    canonicals_in: HashMap<UrlId, u32>,
    links_in: HashMap<UrlId, u32>,
    sitemaps: HashMap<UrlId, u32>,
    hreflang_in: HashMap<UrlId, u32>,
    /// Row positions by URL: its fetch, its redirect chain, its render, its first
    /// canonical declaration.
    fetch: HashMap<UrlId, usize>,
    chain: HashMap<UrlId, usize>,
    render: HashMap<UrlId, usize>,
    canonical: HashMap<UrlId, usize>,
    /// The cluster of each member.
    cluster: HashMap<UrlId, usize>,
}

impl<'a> Index<'a> {
    fn new(input: &'a AuditInput, analysis: &'a Analysis) -> Self {
        let mut id_of = HashMap::new();
        let mut url_of = HashMap::new();
        for u in &input.urls {
            url_of.insert(u.id, u.found_url());
            for form in [u.found_url(), u.url_rfc3986.as_str()] {
                if !form.is_empty() {
                    id_of.entry(comparable(form)).or_insert(u.id);
                }
            }
        }
        let mut redirects_in: HashMap<UrlId, u32> = HashMap::new();
        for c in &input.redirect_chains {
            if let Some(to) = c.final_url
                && to != c.start
            {
                *redirects_in.entry(to).or_default() += 1;
            }
        }
        let mut canonicals_in: HashMap<UrlId, u32> = HashMap::new();
        let mut seen = std::collections::HashSet::new();
        for c in &input.canonicals {
            if let Some(to) = c.target
                && to != c.page
                && seen.insert((c.page, to))
            {
                *canonicals_in.entry(to).or_default() += 1;
            }
        }
        let mut links_in: HashMap<UrlId, u32> = HashMap::new();
        for l in &input.links {
            if let Some(to) = l.to
                && to != l.from
            {
                *links_in.entry(to).or_default() += 1;
            }
        }
        let mut sitemaps: HashMap<UrlId, u32> = HashMap::new();
        let mut listed = std::collections::HashSet::new();
        for e in &input.sitemap_entries {
            if let Some(id) = e.url_id
                && listed.insert((e.sitemap_id, id))
            {
                *sitemaps.entry(id).or_default() += 1;
            }
        }
        let mut hreflang_in: HashMap<UrlId, u32> = HashMap::new();
        for h in &input.hreflang {
            if let Some(to) = h.target
                && to != h.page
            {
                *hreflang_in.entry(to).or_default() += 1;
            }
        }
        let position = |ids: &mut dyn Iterator<Item = UrlId>| {
            let mut out = HashMap::new();
            for (i, id) in ids.enumerate() {
                out.entry(id).or_insert(i);
            }
            out
        };
        let mut canonical: HashMap<UrlId, usize> = HashMap::new();
        for (i, c) in input.canonicals.iter().enumerate() {
            let best = canonical.entry(c.page).or_insert(i);
            if c.position < input.canonicals[*best].position {
                *best = i;
            }
        }
        let mut cluster = HashMap::new();
        for (i, c) in analysis.clusters.iter().enumerate() {
            for m in &c.members {
                cluster.insert(m.url_id, i);
            }
        }
        Index {
            fetch: position(&mut input.fetches.iter().map(|f| f.url_id)),
            chain: position(&mut input.redirect_chains.iter().map(|c| c.start)),
            render: position(&mut input.renders.iter().map(|r| r.url_id)),
            canonical,
            cluster,
            input,
            analysis,
            id_of,
            url_of,
            redirects_in,
            canonicals_in,
            links_in,
            sitemaps,
            hreflang_in,
        }
    }

    fn id(&self, url: &str) -> Option<UrlId> {
        self.id_of.get(&comparable(url)).copied()
    }

    fn url(&self, id: UrlId) -> String {
        self.url_of
            .get(&id)
            .map_or_else(String::new, |u| comparable(u))
    }

    /// Where `id`'s redirects end.
    fn final_target(&self, id: UrlId) -> Option<UrlId> {
        self.chain
            .get(&id)
            .and_then(|&i| self.input.redirect_chains[i].final_url)
            .or_else(|| self.fetch_of(id).and_then(|f| f.redirect_to))
            .filter(|&to| to != id)
    }

    fn fetch_of(&self, id: UrlId) -> Option<&crate::FetchRow> {
        self.fetch.get(&id).map(|&i| &self.input.fetches[i])
    }

    fn render_of(&self, id: UrlId) -> Option<&crate::RenderedPage> {
        self.render.get(&id).map(|&i| &self.input.renders[i])
    }

    fn cluster_of(&self, id: UrlId) -> Option<&crate::Cluster> {
        self.cluster.get(&id).map(|&i| &self.analysis.clusters[i])
    }

    /// The canonical `id` declares: the served one, and the rendered one.
    fn canonicals(&self, id: UrlId) -> (Option<String>, Option<String>) {
        let served = self
            .canonical
            .get(&id)
            .map(|&i| &self.input.canonicals[i])
            .map(|c| match c.target {
                Some(t) => self.url(t),
                None => c.href_raw.clone(),
            });
        let rendered = self.render_of(id).and_then(|r| match r.canonical {
            Some(t) => Some(self.url(t)),
            None => r.canonical_href.clone(),
        });
        (served, rendered)
    }

    fn signals(&self, url: &str) -> UrlSignals {
        let https = url.starts_with("https:");
        let Some(id) = self.id(url) else {
            return UrlSignals {
                url: comparable(url),
                https,
                ..UrlSignals::default()
            };
        };
        let fetch = self.fetch_of(id);
        let (canonical, rendered_canonical) = self.canonicals(id);
        let count = |m: &HashMap<UrlId, u32>| m.get(&id).copied().unwrap_or(0);
        UrlSignals {
            url: self.url(id),
            status: fetch.and_then(|f| f.status),
            redirects_to: self.final_target(id).map(|t| self.url(t)),
            canonical,
            rendered_canonical,
            redirects_in: count(&self.redirects_in),
            canonicals_in: count(&self.canonicals_in),
            links_in: count(&self.links_in),
            sitemaps: count(&self.sitemaps),
            hreflang_in: count(&self.hreflang_in),
            https,
            noindex: fetch.is_some_and(|f| f.noindex)
                || self.render_of(id).is_some_and(|r| r.noindex),
        }
    }

    /// The predicted Google canonical of `url`: its cluster's preferred URL, else its
    /// redirect's final target, else itself.
    fn predicted(&self, url: &str) -> (Option<u32>, String) {
        let Some(id) = self.id(url) else {
            return (None, comparable(url));
        };
        if let Some(c) = self.cluster_of(id) {
            return (Some(c.id), comparable(&c.preferred_url));
        }
        match self.final_target(id) {
            Some(to) => match self.cluster_of(to) {
                Some(c) => (Some(c.id), comparable(&c.preferred_url)),
                None => (None, self.url(to)),
            },
            None => (None, self.url(id)),
        }
    }
}

/// Explains every URL of `listed` (a URL and what Search Console says about it) against
/// the audit's rows and analysis.
pub fn explain<'a>(
    input: &AuditInput,
    analysis: &Analysis,
    listed: impl IntoIterator<Item = (&'a str, &'a SearchConsole)>,
) -> Explanation {
    let index = Index::new(input, analysis);
    let mut out = Explanation::default();
    for (url, facts) in listed {
        let explained = explain_one(&index, url, facts);
        if let Some(agrees) = explained.agrees {
            out.compared += 1;
            out.agreed += u32::from(agrees);
        }
        out.urls.push(explained);
    }
    out
}

fn explain_one(index: &Index<'_>, url: &str, facts: &SearchConsole) -> Explained {
    let url = comparable(url);
    let (cluster, predicted) = index.predicted(&url);
    let own = index.signals(&url);
    let user_canonical = own
        .rendered_canonical
        .clone()
        .or_else(|| own.canonical.clone())
        .or_else(|| own.redirects_to.clone())
        .or_else(|| facts.user_canonical.as_deref().map(comparable));
    let google_canonical = facts.google_canonical.as_deref().map(comparable);
    let agrees = google_canonical.as_ref().map(|g| *g == predicted);
    // The signal table: the URL, the user's and Google's choices, the prediction, then
    // the cluster's other members.
    let mut urls: Vec<String> = vec![url.clone()];
    let mut push = |u: &str| {
        let u = comparable(u);
        if !urls.contains(&u) {
            urls.push(u);
        }
    };
    for u in [&user_canonical, &google_canonical].into_iter().flatten() {
        push(u);
    }
    push(&predicted);
    if let Some(c) = cluster.and_then(|c| index.analysis.clusters.get(c as usize)) {
        for m in &c.members {
            push(&index.url(m.url_id));
        }
    }
    let signals: Vec<UrlSignals> = urls.iter().map(|u| index.signals(u)).collect();
    let contradiction = contradiction(
        &url,
        user_canonical.as_deref(),
        google_canonical.as_deref(),
        &predicted,
        &signals,
        cluster,
        index,
    );
    Explained {
        url,
        search_console: facts.clone(),
        cluster,
        user_canonical,
        google_canonical,
        predicted,
        agrees,
        signals,
        contradiction,
    }
}

/// The signal that prefers Google's choice (or the prediction) over the user's.
fn contradiction(
    url: &str,
    user: Option<&str>,
    google: Option<&str>,
    predicted: &str,
    signals: &[UrlSignals],
    cluster: Option<u32>,
    index: &Index<'_>,
) -> Option<Contradiction> {
    let row = |u: &str| signals.iter().find(|s| s.url == u);
    let chosen = google.unwrap_or(predicted);
    let Some(user) = user else {
        // No canonical declared: Google picked on the other signals.
        let detail = match google {
            Some(g) => {
                format!("{url} declares no canonical, so Google chose {g} on the other signals")
            }
            None => format!(
                "{url} declares no canonical, so Google chooses on the other signals, which point to {predicted}"
            ),
        };
        return Some(Contradiction {
            kind: ContradictionKind::NoCanonical,
            detail,
            fix: format!(
                "declare <link rel=\"canonical\" href=\"{chosen}\"> on {url} and on every page of its cluster"
            ),
            also: Vec::new(),
        });
    };
    if user == chosen {
        return None;
    }
    let target = row(user)?;
    let google_said = match google {
        Some(g) => format!("Google chose {g}"),
        None => format!("the signals point to {predicted}"),
    };
    let head = format!("{google_said}; your canonical says {user}");
    // The user's target itself: not a page Google can index.
    let broken = match (target.status, &target.redirects_to) {
        (_, Some(to)) => Some(format!("it redirects to {to}")),
        (Some(s), None) if !(200..300).contains(&s) => Some(format!("it answers {s}")),
        (None, None) if index.id(user).is_some() => Some("it did not answer".to_owned()),
        _ if target.noindex => Some("it is noindex".to_owned()),
        _ => match target
            .rendered_canonical
            .as_ref()
            .or(target.canonical.as_ref())
        {
            Some(next) if next != user => Some(format!("it declares {next} canonical itself")),
            _ => None,
        },
    };
    if let Some(why) = broken {
        return Some(Contradiction {
            kind: ContradictionKind::TargetNotIndexable,
            detail: format!("{head}, but {why}"),
            fix: format!(
                "point the canonical of {url} at an indexable page that answers 200 and is its own canonical (such as {chosen}), or make {user} one"
            ),
            also: Vec::new(),
        });
    }
    let Some(theirs) = row(chosen) else {
        return Some(none_seen(&head, user));
    };
    // Each signal that sides with Google's choice, in the documented order.
    let cluster_redirects = cluster
        .and_then(|c| index.analysis.clusters.get(c as usize))
        .map_or(0, |_| theirs.redirects_in);
    let mut found: Vec<(ContradictionKind, String, String)> = Vec::new();
    if cluster_redirects > target.redirects_in {
        found.push((
            ContradictionKind::Redirect,
            format!(
                "{} URL{} redirect to {chosen} and {} to {user}",
                theirs.redirects_in,
                plural(theirs.redirects_in),
                target.redirects_in
            ),
            format!("redirect them to {user}, or make {chosen} your canonical"),
        ));
    }
    if theirs.canonicals_in > target.canonicals_in {
        found.push((
            ContradictionKind::Canonical,
            format!(
                "{} page{} declare {chosen} canonical",
                theirs.canonicals_in,
                plural(theirs.canonicals_in)
            ),
            format!("make every page of the cluster declare {user}"),
        ));
    }
    if theirs.sitemaps > 0 && target.sitemaps == 0 {
        found.push((
            ContradictionKind::Sitemap,
            format!("the sitemap lists {chosen} and not {user}"),
            format!("list {user} in the sitemap instead of {chosen}"),
        ));
    }
    if theirs.links_in > target.links_in {
        found.push((
            ContradictionKind::InternalLinks,
            format!(
                "{} internal link{} point to {chosen} and {} to {user}",
                theirs.links_in,
                plural(theirs.links_in),
                target.links_in
            ),
            format!("link to {user} instead of {chosen}"),
        ));
    }
    if theirs.hreflang_in > target.hreflang_in {
        found.push((
            ContradictionKind::Hreflang,
            format!("hreflang alternates name {chosen}, not {user}"),
            format!("name {user} in the hreflang alternates"),
        ));
    }
    if theirs.https && !target.https {
        found.push((
            ContradictionKind::Https,
            format!("{chosen} is https and {user} is http"),
            format!("declare the https URL canonical and redirect {user} to it"),
        ));
    }
    if found.is_empty() && chosen.len() < user.len() {
        found.push((
            ContradictionKind::ShorterUrl,
            format!("no stronger signal decides, and {chosen} is the shorter URL"),
            format!("link to {user} and list it in the sitemap, so the signals agree with it"),
        ));
    }
    if found.is_empty() {
        return Some(none_seen(&head, user));
    }
    let also: Vec<ContradictionKind> = found.iter().skip(1).map(|f| f.0).collect();
    let details: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    let fixes: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
    Some(Contradiction {
        kind: found[0].0,
        detail: format!("{head}, but {}", details.join(", and ")),
        fix: fixes.join("; "),
        also,
    })
}

fn none_seen(head: &str, user: &str) -> Contradiction {
    Contradiction {
        kind: ContradictionKind::NoneSeen,
        detail: format!(
            "{head}, and no signal on the site prefers Google's choice (links from other sites, a content difference or an older crawl may)"
        ),
        fix: format!(
            "link to {user}, list it in the sitemap and request a recrawl in Search Console"
        ),
        also: Vec::new(),
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::tests::B;

    const A: &str = "https://example.com/shoes?ref=menu";
    const CANON: &str = "https://example.com/shoes";

    /// `/shoes?ref=menu` declares `/shoes` canonical, but the site links to it 40 times
    /// (and `/shoes` once) and its sitemap lists it.
    fn site() -> B {
        let mut b = B::new();
        b.page(A, 7)
            .page(CANON, 7)
            .canonical(A, CANON)
            .canonical(CANON, CANON);
        for i in 0..40 {
            let from = format!("https://example.com/p{i}");
            b.page(&from, 100 + i).link(&from, A);
        }
        b.link("https://example.com/p0", CANON);
        b.listed("https://example.com/sitemap.xml", A);
        b
    }

    fn facts(google: Option<&str>, user: Option<&str>) -> SearchConsole {
        SearchConsole {
            reasons: vec![REASON_GOOGLE_CHOSE_OTHER.to_owned()],
            inspected: google.is_some(),
            google_canonical: google.map(str::to_owned),
            user_canonical: user.map(str::to_owned),
            ..SearchConsole::default()
        }
    }

    #[test]
    fn links_and_the_sitemap_against_the_canonical_are_the_contradiction() {
        let b = site();
        let analysis = b.analyse();
        let f = facts(Some(A), Some(CANON));
        let e = explain(&b.input, &analysis, [(A, &f)]);
        let x = &e.urls[0];
        assert_eq!(x.user_canonical.as_deref(), Some(CANON));
        assert_eq!(x.predicted, CANON);
        assert_eq!(x.agrees, Some(false));
        assert_eq!((e.compared, e.agreed), (1, 0));
        let c = x.contradiction.as_ref().unwrap();
        assert_eq!(c.kind, ContradictionKind::Sitemap);
        assert_eq!(c.also, [ContradictionKind::InternalLinks]);
        assert_eq!(
            c.detail,
            format!(
                "Google chose {A}; your canonical says {CANON}, but the sitemap lists {A} and not {CANON}, and 40 internal links point to {A} and 1 to {CANON}"
            )
        );
        assert_eq!(
            c.fix,
            format!("list {CANON} in the sitemap instead of {A}; link to {CANON} instead of {A}")
        );
        let row = x.signals.iter().find(|s| s.url == A).unwrap();
        assert_eq!((row.links_in, row.sitemaps, row.https), (40, 1, true));
        assert_eq!(row.canonical.as_deref(), Some(CANON));
    }

    #[test]
    fn google_following_the_canonical_is_no_contradiction_and_agrees() {
        let b = site();
        let analysis = b.analyse();
        let f = facts(Some(CANON), Some(CANON));
        let e = explain(&b.input, &analysis, [(A, &f)]);
        assert_eq!(e.urls[0].contradiction, None);
        assert_eq!(e.agreement(), Some(1.0));
        // Without an inspection nothing is compared.
        let f = facts(None, None);
        let e = explain(&b.input, &analysis, [(A, &f)]);
        assert_eq!((e.compared, e.agreement()), (0, None));
        // A URL the audit never saw keeps its own facts and predicts itself.
        let f = facts(Some(CANON), None);
        let e = explain(&b.input, &analysis, [("https://example.com/unknown", &f)]);
        assert_eq!(e.urls[0].predicted, "https://example.com/unknown");
        assert_eq!(
            e.urls[0].contradiction.as_ref().unwrap().kind,
            ContradictionKind::NoCanonical
        );
    }

    #[test]
    fn an_http_canonical_loses_to_https() {
        let mut b = B::new();
        let http = "http://example.com/a";
        let https = "https://example.com/a";
        b.page(http, 9)
            .page(https, 9)
            .canonical(https, http)
            .canonical(http, http);
        let analysis = b.analyse();
        let f = facts(Some(https), Some(http));
        let e = explain(&b.input, &analysis, [(https, &f)]);
        let c = e.urls[0].contradiction.as_ref().unwrap();
        assert_eq!(c.kind, ContradictionKind::Https, "{c:?}");
    }
}
