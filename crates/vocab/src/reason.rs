//! Why a URL was skipped, blocked or failed, with its detail.

use serde::{Deserialize, Serialize};

use crate::ReasonKind;

/// Why a URL was skipped, blocked or failed: the kind, and a detail for people (a trap's
/// pattern, a panic's message) where the kind alone does not say it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UrlReason {
    /// What kind of reason.
    pub kind: ReasonKind,
    /// The detail, if the kind has one.
    #[serde(default)]
    pub detail: Option<String>,
}

impl UrlReason {
    /// A reason without detail.
    pub fn new(kind: ReasonKind) -> Self {
        Self { kind, detail: None }
    }

    /// A reason with a detail.
    pub fn with_detail(kind: ReasonKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: Some(detail.into()),
        }
    }
}

impl From<ReasonKind> for UrlReason {
    fn from(kind: ReasonKind) -> Self {
        Self::new(kind)
    }
}

impl std::fmt::Display for UrlReason {
    /// `kind` or `kind: detail`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.detail {
            Some(d) => write!(f, "{}: {d}", self.kind),
            None => f.write_str(self.kind.as_str()),
        }
    }
}

/// A text that is not `kind` or `kind: detail` with a known kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown skip reason {0:?}")]
pub struct UnknownReason(pub String);

impl std::str::FromStr for UrlReason {
    type Err = UnknownReason;

    /// Reads the [`Display`](std::fmt::Display) form back, and the text crawls stored
    /// before reasons had kinds (`trap: over N URLs like P`, `trap: path repeats
    /// segment "s"`).
    fn from_str(text: &str) -> Result<UrlReason, UnknownReason> {
        if let Some(detail) = text.strip_prefix("trap: ") {
            let kind = if detail.starts_with("over ") {
                ReasonKind::TrapPattern
            } else if detail.starts_with("path repeats segment") {
                ReasonKind::TrapRepeatedSegment
            } else {
                return Err(UnknownReason(text.to_owned()));
            };
            return Ok(UrlReason {
                kind,
                detail: Some(detail.to_owned()),
            });
        }
        let (word, detail) = match text.split_once(": ") {
            Some((w, d)) => (w, Some(d.to_owned())),
            None => (text, None),
        };
        let kind = ReasonKind::parse(word).ok_or_else(|| UnknownReason(text.to_owned()))?;
        Ok(UrlReason { kind, detail })
    }
}
