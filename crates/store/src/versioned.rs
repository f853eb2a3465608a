//! JSON columns with a format version.
//!
//! Three columns hold JSON whose shape belongs to another crate: `audits.config` (the
//! crawl configuration), `analysis_summary.overview` (the desktop app's overview) and
//! `sitemaps.issues` (a sitemap's parser issues). The store writes each as
//! `{"version": N, "data": ...}` and hands back `data`. Text without that envelope was
//! written before versions existed and is read as version 1. A version newer than this
//! build reads is a [`StoreError::UnsupportedVersion`] naming the audit, never a guess.
//! A change to one of these shapes raises its version here, and its reader learns the
//! older shapes it must still accept.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::{AuditId, StoreError};

/// The format version `audits.config` is written in.
pub const AUDIT_CONFIG_VERSION: u32 = 1;
/// The format version `analysis_summary.overview` is written in.
pub const OVERVIEW_VERSION: u32 = 1;
/// The format version `sitemaps.issues` is written in.
pub const SITEMAP_ISSUES_VERSION: u32 = 1;

/// One versioned JSON column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Format {
    /// The column, for errors.
    pub field: &'static str,
    /// The version written, and the newest read.
    pub current: u32,
}

/// `audits.config`.
pub(crate) const AUDIT_CONFIG: Format = Format {
    field: "audits.config",
    current: AUDIT_CONFIG_VERSION,
};
/// `analysis_summary.overview`.
pub(crate) const OVERVIEW: Format = Format {
    field: "analysis_summary.overview",
    current: OVERVIEW_VERSION,
};
/// `sitemaps.issues`.
pub(crate) const SITEMAP_ISSUES: Format = Format {
    field: "sitemaps.issues",
    current: SITEMAP_ISSUES_VERSION,
};

/// The envelope's version, read without the rest.
#[derive(Deserialize)]
struct Head {
    version: Option<u64>,
}

/// The envelope.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    data: &'a RawValue,
}

/// `json` in its envelope, as stored.
pub(crate) fn wrap(format: Format, json: &str) -> String {
    let json = match json.trim() {
        "" => "null",
        json => json,
    };
    format!(r#"{{"version":{},"data":{json}}}"#, format.current)
}

/// The JSON held in stored `text` and its format version: the envelope's `data`, or
/// the whole text (version 1) when it has no envelope.
pub(crate) fn unwrap(
    format: Format,
    audit: AuditId,
    text: &str,
) -> Result<(u32, String), StoreError> {
    let legacy = || Ok((1, text.to_owned()));
    if !text.trim_start().starts_with('{') {
        return legacy();
    }
    let Ok(Head {
        version: Some(version),
    }) = serde_json::from_str::<Head>(text)
    else {
        // Not JSON, or an object without a version: what was stored before versions.
        return legacy();
    };
    let version = match u32::try_from(version) {
        Ok(v) if (1..=format.current).contains(&v) => v,
        _ => {
            return Err(StoreError::UnsupportedVersion {
                audit,
                field: format.field,
                version,
                supported: format.current,
            });
        }
    };
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        audit,
        field: format.field,
        detail: e.to_string(),
    })?;
    Ok((version, envelope.data.get().to_owned()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const A: AuditId = AuditId(7);

    #[test]
    fn written_text_reads_back_with_its_version() {
        for json in [r#"{"max_urls":10}"#, "[]", r#"[{"kind":"x","detail":"y"}]"#] {
            let stored = wrap(SITEMAP_ISSUES, json);
            assert_eq!(
                unwrap(SITEMAP_ISSUES, A, &stored).unwrap(),
                (1, json.to_owned())
            );
        }
    }

    #[test]
    fn text_without_an_envelope_is_version_1() {
        for text in [
            r#"{"max_urls":10}"#,
            "[]",
            " [ ] ",
            "not json",
            r#"{"version":"x"}"#,
        ] {
            assert_eq!(
                unwrap(AUDIT_CONFIG, A, text).unwrap(),
                (1, text.to_owned()),
                "{text}"
            );
        }
    }

    #[test]
    fn an_unknown_version_is_an_error_naming_the_audit_and_the_column() {
        for stored in [
            r#"{"version":2,"data":{}}"#,
            r#"{"version":0,"data":{}}"#,
            r#"{"version":99999999999,"data":{}}"#,
        ] {
            let error = unwrap(OVERVIEW, A, stored).unwrap_err();
            assert!(
                matches!(
                    error,
                    StoreError::UnsupportedVersion {
                        audit: A,
                        field: "analysis_summary.overview",
                        supported: 1,
                        ..
                    }
                ),
                "{error:?}"
            );
            let text = error.to_string();
            assert!(
                text.contains("audit 7") && text.contains("analysis_summary.overview"),
                "{text}"
            );
        }
        // A known version without its data is corrupt.
        assert!(matches!(
            unwrap(OVERVIEW, A, r#"{"version":1}"#),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
