//! The store's error type.

use std::path::PathBuf;

use crate::AuditId;

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database file could not be opened or created.
    #[error("cannot open database {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: sqlx::Error,
    },
    /// The schema migrations could not be applied (for example, the file was written by a
    /// newer Dustpan).
    #[error("cannot migrate database {path}: {source}")]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// What the migrator said.
        source: sqlx::migrate::MigrateError,
    },
    /// A statement failed.
    #[error("database error while {context}: {source}")]
    Sql {
        /// What the store was doing.
        context: &'static str,
        /// What SQLite said.
        source: sqlx::Error,
    },
    /// No audit has this id in this file.
    #[error("audit {0} not found")]
    AuditNotFound(AuditId),
    /// A stored value could not be read back (for example, hand-edited JSON).
    #[error("audit {audit}: stored {field} is unreadable: {detail}")]
    Corrupt {
        /// The audit concerned.
        audit: AuditId,
        /// The column concerned.
        field: &'static str,
        /// What was wrong with it.
        detail: String,
    },
    /// A stored JSON value is in a format version this build does not read (written by
    /// a newer Dustpan).
    #[error(
        "audit {audit}: stored {field} is in format version {version}; this version of Dustpan reads versions 1 to {supported}"
    )]
    UnsupportedVersion {
        /// The audit concerned.
        audit: AuditId,
        /// The column concerned.
        field: &'static str,
        /// The version found.
        version: u64,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The batched writer task stopped: after an error (its text is the cause), a
    /// panic, or [`Writer::close`](crate::Writer::close).
    #[error("the store writer has stopped: {cause}")]
    WriterClosed {
        /// Why it stopped.
        cause: String,
    },
    /// Another process holds the audit's lease: it is being crawled.
    #[error(
        "audit {} is being crawled by another process (pid {} on host {}) since {} UTC; wait for it or stop it",
        .0.audit, .0.pid, .0.host, crate::lease::utc(.0.since)
    )]
    AuditBusy(Box<crate::LeaseHolder>),
}

/// Adds the "while doing what" context to a `sqlx::Error`.
pub(crate) trait SqlContext<T> {
    /// Maps the error to [`StoreError::Sql`] with `context`.
    fn ctx(self, context: &'static str) -> Result<T, StoreError>;
}

impl<T> SqlContext<T> for Result<T, sqlx::Error> {
    fn ctx(self, context: &'static str) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Sql { context, source })
    }
}
