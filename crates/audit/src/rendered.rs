//! Pages rendered in Chromium (audits started with `--render`): which version of a
//! rendered page the analysis follows. Google indexes the rendered page: where a page's
//! rendered canonical differs from its raw one, the clusters follow the rendered one
//! ([`Rendering::choose`], called once, where the site model loads each page's
//! canonical); a noindex in either version holds (the site model's `noindex`), since
//! Google may not render a page whose raw HTML says noindex, and a script that adds one
//! is obeyed once it renders.

use serde::{Deserialize, Serialize};

use crate::input::{JsLinkRow, RenderedPage, UrlId};

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
    /// Row in `AuditInput::renders`, by URL index.
    row: Vec<Option<u32>>,
    /// For pages whose rendered canonical differs from the raw one: the raw effective
    /// canonical (`None` when the raw page names none).
    raw_canon: Vec<Option<u32>>,
    /// The rendered canonical differs from the raw one (the analysis follows it).
    differs: Vec<bool>,
    /// Distinct pages linking to the URL only in their rendered DOM.
    js_in: Vec<u32>,
}

impl Rendering {
    /// The rendered rows and script-only links of an audit of `n` URLs; `idx` gives a
    /// URL id's index.
    pub(crate) fn new(
        n: usize,
        renders: &[RenderedPage],
        js_links: &[JsLinkRow],
        idx: impl Fn(UrlId) -> Option<u32>,
    ) -> Rendering {
        if renders.is_empty() {
            return Rendering::default();
        }
        let mut row = vec![None; n];
        for (r, p) in renders.iter().enumerate() {
            if let Some(i) = idx(p.url_id) {
                row[i as usize] = Some(r as u32);
            }
        }
        let mut pairs: Vec<(u32, u32)> = js_links
            .iter()
            .filter_map(|l| Some((idx(l.to)?, idx(l.from)?)))
            .filter(|(to, from)| to != from)
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut js_in = vec![0; n];
        for (to, _) in pairs {
            js_in[to as usize] += 1;
        }
        Rendering {
            row,
            raw_canon: vec![None; n],
            differs: vec![false; n],
            js_in,
        }
    }

    /// The rendered row of URL `i` in `renders`, if it was rendered.
    pub(crate) fn page<'r>(&self, renders: &'r [RenderedPage], i: u32) -> Option<&'r RenderedPage> {
        let r = (*self.row.get(i as usize)?)?;
        renders.get(r as usize)
    }

    /// The canonical the analysis follows for page `i`: given its raw effective one
    /// (`raw`), and for a page whose DOM was read (`dom`) whether the rendered head
    /// names a canonical and the index of its target, the rendered one (what Google
    /// indexes), else the raw one. A canonical sent in the `Link:` header
    /// (`from_header`) holds when the rendered head names none (a header is not in the
    /// DOM).
    pub(crate) fn choose(
        &mut self,
        i: u32,
        raw: Option<u32>,
        dom: Option<(bool, Option<u32>)>,
        from_header: bool,
    ) -> Option<u32> {
        let Some((named, target)) = dom else {
            return raw;
        };
        let rendered = match (named, target) {
            (false, _) if from_header => raw,
            (false, _) => None,
            (true, target) => target,
        };
        if rendered != raw {
            self.differs[i as usize] = true;
            self.raw_canon[i as usize] = raw;
        }
        rendered
    }

    /// Where page `i`'s canonical was read, when it was rendered (`dom`: its DOM was
    /// read).
    pub(crate) fn canonical_from(&self, i: u32, dom: bool) -> CanonicalFrom {
        CanonicalFrom {
            version: if dom {
                PageVersion::Rendered
            } else {
                PageVersion::Raw
            },
            disagrees: self.differs(i),
        }
    }

    /// The rendered canonical of page `i` differs from its raw one.
    pub(crate) fn differs(&self, i: u32) -> bool {
        self.differs.get(i as usize).copied().unwrap_or(false)
    }

    /// The raw effective canonical of a page whose rendered one differs.
    pub(crate) fn raw_canonical(&self, i: u32) -> Option<u32> {
        self.raw_canon.get(i as usize).copied().flatten()
    }

    /// Distinct pages linking to URL `i` only in their rendered DOM.
    pub(crate) fn js_in(&self, i: u32) -> u32 {
        self.js_in.get(i as usize).copied().unwrap_or(0)
    }
}
