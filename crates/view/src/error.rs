//! What can go wrong when the app reads or runs an audit.

use std::path::Path;

/// An error the app shows as text.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The database failed or has no such audit.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A stored audit cannot be read as the analysis input.
    #[error(transparent)]
    Load(#[from] load::LoadError),
    /// A policy file cannot be read.
    #[error(transparent)]
    Policy(#[from] canon::PolicyError),
    /// The crawl cannot start or resume.
    #[error(transparent)]
    Crawl(#[from] crawl::CrawlError),
    /// A table query names something that does not exist.
    #[error(transparent)]
    Query(#[from] crate::table::QueryError),
    /// No cluster with this id.
    #[error("the audit has no cluster {0}")]
    NoSuchCluster(u32),
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
    /// A background task failed.
    #[error("background task failed: {0}")]
    Task(String),
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
