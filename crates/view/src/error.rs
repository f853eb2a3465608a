//! What can go wrong when the app reads or runs an audit, and how it crosses to the
//! window: an [`IpcError`], a stable [`ErrorCode`] and a message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;
use ts_rs::TS;

/// An error the app shows as text.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The database failed or has no such audit.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A stored audit cannot be read as the analysis input.
    #[error(transparent)]
    Load(#[from] load::LoadError),
    /// A policy file cannot be read or is not a valid policy.
    #[error("policy file {path}: {}", policy_reason(.source))]
    Policy {
        /// The file.
        path: String,
        /// Why.
        source: canon::PolicyError,
    },
    /// The crawl cannot start or resume.
    #[error(transparent)]
    Crawl(#[from] crawl::CrawlError),
    /// A table query names something that does not exist.
    #[error(transparent)]
    Query(#[from] crate::table::QueryError),
    /// No cluster with this id.
    #[error("the audit has no cluster {0}")]
    NoSuchCluster(u32),
    /// No URL of the audit is this one.
    #[error("the audit has no URL {0}")]
    NoSuchUrl(String),
    /// A request the app cannot carry out as given.
    #[error("{0}")]
    Invalid(String),
    /// A file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A CSV file cannot be written.
    #[error("{0}: {1}")]
    Csv(String, csv::Error),
    /// An Excel workbook cannot be written.
    #[error("{0}: {1}")]
    Workbook(String, rust_xlsxwriter::XlsxError),
    /// A background task failed.
    #[error("background task failed: {0}")]
    Task(String),
    /// The audit is running, and the request needs it stopped.
    #[error("audit {0} is running: cancel it first")]
    Busy(i64),
    /// A path the user did not choose in the app's dialog for this purpose
    /// ([`crate::chosen::ChosenPaths`]).
    #[error("{path} was not chosen in a dialog as {what}: choose it with the app's button")]
    NotChosen {
        /// The path asked for.
        path: String,
        /// What it was to be.
        what: &'static str,
    },
    /// A string that is not an absolute http(s) URL.
    #[error(transparent)]
    Url(#[from] canon::CanonError),
}

/// Why a policy file failed, without repeating its path.
fn policy_reason(e: &canon::PolicyError) -> String {
    match e {
        canon::PolicyError::Io { source, .. } => source.to_string(),
        e => e.to_string(),
    }
}

impl ViewError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> ViewError {
        ViewError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

impl ViewError {
    /// The error's kind, for the window to act on.
    pub fn code(&self) -> ErrorCode {
        match self {
            ViewError::Store(e) => store_code(e),
            ViewError::Load(load::LoadError::Store(e)) => store_code(e),
            ViewError::Load(_) => ErrorCode::Unreadable,
            ViewError::Policy { .. }
            | ViewError::Query(_)
            | ViewError::Invalid(_)
            | ViewError::NotChosen { .. }
            | ViewError::Url(_) => ErrorCode::InvalidInput,
            ViewError::Crawl(e) => match e {
                crawl::CrawlError::Store(e) => store_code(e),
                crawl::CrawlError::StoredConfig { .. } => ErrorCode::Unreadable,
                _ => ErrorCode::InvalidInput,
            },
            ViewError::NoSuchCluster(_) | ViewError::NoSuchUrl(_) => ErrorCode::NotFound,
            ViewError::Io { .. } | ViewError::Csv(..) | ViewError::Workbook(..) => ErrorCode::Io,
            ViewError::Task(_) => ErrorCode::Internal,
            ViewError::Busy(_) => ErrorCode::Busy,
        }
    }
}

fn store_code(e: &store::StoreError) -> ErrorCode {
    match e {
        store::StoreError::AuditNotFound(_) => ErrorCode::NotFound,
        store::StoreError::Corrupt { .. } => ErrorCode::Unreadable,
        // Another process crawls the audit.
        store::StoreError::AuditBusy(_) => ErrorCode::Busy,
        _ => ErrorCode::Database,
    }
}

/// What kind of error a command answered, for the window to branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No such audit or cluster.
    NotFound,
    /// The request cannot be carried out as given (a bad URL, policy or query).
    InvalidInput,
    /// The audit is running and must be stopped first.
    Busy,
    /// The database failed.
    Database,
    /// Stored data cannot be read by this version (the message names the audit).
    Unreadable,
    /// A file cannot be read or written.
    Io,
    /// Anything else: a failed background task, a bug.
    Internal,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 7] = [
        ErrorCode::NotFound,
        ErrorCode::InvalidInput,
        ErrorCode::Busy,
        ErrorCode::Database,
        ErrorCode::Unreadable,
        ErrorCode::Io,
        ErrorCode::Internal,
    ];
}

/// An error as a command answers it: a code to branch on and a message to show (as
/// text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS, JsonSchema, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct IpcError {
    /// What kind of error.
    pub code: ErrorCode,
    /// What went wrong, in a sentence.
    pub message: String,
}

impl IpcError {
    /// An error of kind `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> IpcError {
        IpcError {
            code,
            message: message.into(),
        }
    }

    /// An [`ErrorCode::Internal`] error.
    pub fn internal(message: impl std::fmt::Display) -> IpcError {
        IpcError::new(ErrorCode::Internal, message.to_string())
    }
}

impl From<String> for IpcError {
    /// A message with no kind attached ([`ErrorCode::Internal`]).
    fn from(message: String) -> IpcError {
        IpcError::new(ErrorCode::Internal, message)
    }
}

/// The new-audit form's box that allows a host at a non-public address
/// ([`crate::StartAuditRequest::allow_internal`]).
pub const ALLOW_INTERNAL_LABEL: &str = "Allow internal addresses";

impl ViewError {
    /// The message the app shows: as the error reads, but naming the app's controls
    /// where the command line's names a flag.
    pub fn app_message(&self) -> String {
        match self {
            ViewError::Crawl(crawl::CrawlError::InternalAddress {
                host,
                address,
                known,
            }) => crawl::CrawlError::internal_address_message(
                host,
                *address,
                known,
                &format!(
                    "tick \"{ALLOW_INTERNAL_LABEL}\" in the new-audit form (or add the resolve override {host}:PORT:{address})"
                ),
            ),
            e => e.to_string(),
        }
    }
}

impl From<ViewError> for IpcError {
    fn from(e: ViewError) -> IpcError {
        IpcError::new(e.code(), e.app_message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_at_an_internal_address_names_the_apps_control_not_a_flag() {
        let e = IpcError::from(ViewError::Crawl(crawl::CrawlError::InternalAddress {
            host: "staging.example".into(),
            address: [10, 0, 0, 5].into(),
            known: vec![],
        }));
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(
            e.message,
            "staging.example resolves to 10.0.0.5, which is not a public address (loopback, private, link-local or a cloud metadata service): not audited without an opt-in; to audit it there on purpose, tick \"Allow internal addresses\" in the new-audit form (or add the resolve override staging.example:PORT:10.0.0.5)"
        );
        assert!(!e.message.contains("--"), "{}", e.message);
    }

    #[test]
    fn errors_carry_their_kind_and_message() {
        let e = IpcError::from(ViewError::NoSuchCluster(7));
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(e.message, "the audit has no cluster 7");
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "code": "not_found", "message": "the audit has no cluster 7" })
        );
        let missing = ViewError::Store(store::StoreError::AuditNotFound(store::AuditId(3)));
        assert_eq!(missing.code(), ErrorCode::NotFound);
        assert_eq!(ViewError::Busy(3).code(), ErrorCode::Busy);
        assert_eq!(
            ViewError::Invalid("enter the URL".into()).code(),
            ErrorCode::InvalidInput
        );
    }
}
