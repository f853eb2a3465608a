//! Pages rendered in Chromium (audits started with `--render`): what the rendered DOM
//! says beside the raw HTML, and the one choice of which of the two the analysis
//! follows. Google indexes the rendered page: where a page's rendered canonical differs
//! from its raw one, the clusters follow the rendered one
//! ([`Site::rendered_canonical`](crate::site::Site), called where the site model loads
//! each page's canonical); a noindex in either version holds
//! ([`Site::noindex`](crate::site::Site)), since Google may not render a page whose raw
//! HTML says noindex, and a script that adds one is obeyed once it renders.

use serde::{Deserialize, Serialize};

use crate::input::{DeclarationSource, UrlId};
use crate::site::{NONE, Site};

/// How a page's rendering ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderOutcome {
    /// Loaded and settled within its budget.
    #[default]
    Rendered,
    /// Still loading or making requests at the deadline; the DOM was read then.
    Unsettled,
    /// Its script never yielded within the budget: no DOM.
    Timeout,
    /// The renderer failed (a crash): no DOM.
    Failed,
}

impl RenderOutcome {
    /// The outcome of its stored word (`render::Outcome::as_str`); an unknown word is a
    /// failure.
    pub fn parse(word: &str) -> RenderOutcome {
        match word {
            "rendered" => RenderOutcome::Rendered,
            "unsettled" => RenderOutcome::Unsettled,
            "timeout" => RenderOutcome::Timeout,
            _ => RenderOutcome::Failed,
        }
    }

    /// Whether a DOM was read.
    pub fn has_dom(self) -> bool {
        matches!(self, RenderOutcome::Rendered | RenderOutcome::Unsettled)
    }
}

/// One page rendered in Chromium (`renders`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderedPage {
    /// The page.
    pub url_id: UrlId,
    /// How its rendering ended.
    pub outcome: RenderOutcome,
    /// Why it did not settle or failed.
    pub message: Option<String>,
    /// The rendered title.
    pub title: Option<String>,
    /// The rendered first heading.
    pub h1: Option<String>,
    /// The rendered meta robots say noindex.
    pub noindex: bool,
    /// The rendered canonical's target, when it resolved.
    pub canonical: Option<UrlId>,
    /// The rendered canonical as written (`None`: the rendered head names none).
    pub canonical_href: Option<String>,
    /// Words of the rendered visible text.
    pub word_count: Option<u32>,
}

/// A link found only in a rendered page (`rendered_links` with `js_only`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsLinkRow {
    /// The page.
    pub from: UrlId,
    /// The linked URL.
    pub to: UrlId,
}

/// Which version of a page the analysis followed for its canonical.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageVersion {
    /// The HTML as served.
    Raw,
    /// The DOM after JavaScript ran.
    Rendered,
}

/// Where a cluster member's canonical was read, in a rendered audit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanonicalFrom {
    /// The version the clusters followed.
    pub version: PageVersion,
    /// The other version names another canonical (or none).
    pub disagrees: bool,
}

/// The rendered side of the site model, by URL index.
#[derive(Debug, Default)]
pub(crate) struct Rendering {
    /// Row in `AuditInput::renders`, or [`NONE`].
    row: Vec<u32>,
    /// For pages whose rendered canonical differs from the raw one: the raw effective
    /// canonical (or [`NONE`]); [`NONE`] elsewhere.
    raw_canon: Vec<u32>,
    /// The rendered canonical differs from the raw one (the analysis follows it).
    pub differs: Vec<bool>,
    /// Distinct pages linking to the URL only in their rendered DOM.
    pub js_in: Vec<u32>,
}

impl Rendering {
    /// The rendered rows of `site`'s input, by index.
    pub(crate) fn new(site: &Site<'_>) -> Rendering {
        let input = site.input;
        if input.renders.is_empty() {
            return Rendering::default();
        }
        let mut row = vec![NONE; site.n];
        for (r, p) in input.renders.iter().enumerate() {
            if let Some(i) = site.idx(p.url_id) {
                row[i as usize] = r as u32;
            }
        }
        let mut pairs: Vec<(u32, u32)> = input
            .js_links
            .iter()
            .filter_map(|l| Some((site.idx(l.to)?, site.idx(l.from)?)))
            .filter(|(to, from)| to != from)
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut js_in = vec![0; site.n];
        for (to, _) in pairs {
            js_in[to as usize] += 1;
        }
        Rendering {
            row,
            raw_canon: vec![NONE; site.n],
            differs: vec![false; site.n],
            js_in,
        }
    }
}

impl<'a> Site<'a> {
    /// The rendered page of URL `i`, if it was rendered.
    pub(crate) fn rendered(&self, i: u32) -> Option<&'a RenderedPage> {
        match self.rendering.row.get(i as usize) {
            Some(&r) if r != NONE => self.input.renders.get(r as usize),
            _ => None,
        }
    }

    /// The rendered page of URL `i` when its DOM was read.
    pub(crate) fn rendered_dom(&self, i: u32) -> Option<&'a RenderedPage> {
        self.rendered(i).filter(|r| r.outcome.has_dom())
    }

    /// The rendered DOM of `i` says noindex.
    pub(crate) fn rendered_noindex(&self, i: u32) -> bool {
        self.rendered_dom(i).is_some_and(|r| r.noindex)
    }

    /// The canonical the analysis follows for page `i`, given its raw effective one
    /// (`raw`, or [`NONE`]): the rendered one where the page was rendered (what Google
    /// indexes), else the raw one. A canonical sent in the `Link:` header holds when
    /// the rendered head names none (a header is not in the DOM).
    pub(crate) fn rendered_canonical(&mut self, i: u32, raw: u32) -> u32 {
        let Some(page) = self.rendered_dom(i) else {
            return raw;
        };
        let rendered = match (&page.canonical_href, page.canonical) {
            (None, _) => {
                let from_header = self
                    .canonicals(i)
                    .any(|c| c.source == DeclarationSource::HttpHeader);
                if from_header { raw } else { NONE }
            }
            (Some(_), Some(id)) => self.idx(id).unwrap_or(NONE),
            (Some(_), None) => NONE,
        };
        if rendered != raw {
            self.rendering.differs[i as usize] = true;
            self.rendering.raw_canon[i as usize] = raw;
        }
        rendered
    }

    /// Which version of page `i` the analysis took its canonical from, and whether the
    /// raw one says otherwise.
    pub(crate) fn canonical_version(&self, i: u32) -> (PageVersion, bool) {
        match self.rendered_dom(i) {
            Some(_) => (
                PageVersion::Rendered,
                self.rendering
                    .differs
                    .get(i as usize)
                    .copied()
                    .unwrap_or(false),
            ),
            None => (PageVersion::Raw, false),
        }
    }

    /// [`CanonicalFrom`] of page `i`, when it was rendered.
    pub(crate) fn canonical_from(&self, i: u32) -> Option<CanonicalFrom> {
        self.rendered(i)?;
        let (version, disagrees) = self.canonical_version(i);
        Some(CanonicalFrom { version, disagrees })
    }

    /// The raw effective canonical of a page whose rendered one differs ([`NONE`]
    /// when the raw page names none, or when they agree).
    pub(crate) fn raw_canonical(&self, i: u32) -> u32 {
        self.rendering
            .raw_canon
            .get(i as usize)
            .copied()
            .unwrap_or(NONE)
    }
}
