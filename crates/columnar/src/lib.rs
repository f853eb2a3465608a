//! An audit's tables as Apache Arrow record batches written to Apache Parquet files, one
//! file per table, streamed from the store in bounded memory.
//!
//! [`export_audit`] reads each table with the store's chunked scans and writes it in
//! batches of [`BATCH_ROWS`] rows into row groups of at most [`ROW_GROUP_ROWS`] rows, so
//! memory holds one chunk of the store's read, one batch and one row group's encoded
//! columns whatever the audit's size. The files open in any Parquet reader (DuckDB,
//! Polars, pandas, Spark, BigQuery, Apache DataFusion); `docs/scale.md` documents the
//! schema, which [`TABLES`] lists column by column.
//!
//! [`export_content`] adds the per-page facts only the analysis computes (main content
//! with the site's template removed): it takes a finished [`audit::Analysis`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), columnar::ColumnarError> {
//! let store = store::Store::open(std::path::Path::new("audits.sqlite")).await?;
//! let policy = canon::Preset::default().policy();
//! let written =
//!     columnar::export_audit(&store, store::AuditId(1), &policy, std::path::Path::new("out")).await?;
//! for w in written {
//!     println!("{} rows in {}", w.rows, w.path.display());
//! }
//! # Ok(())
//! # }
//! ```

mod tables;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

pub use tables::{TABLES, Table};

/// Rows per Arrow record batch.
pub const BATCH_ROWS: usize = 8_192;
/// Rows per Parquet row group: the writer holds one row group's encoded columns.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ColumnarError {
    /// Reading the audit from the store failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A file or folder could not be created or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Arrow refused a batch (a column of the wrong type or length).
    #[error("cannot build a batch of {table}: {source}")]
    Arrow {
        /// The table.
        table: &'static str,
        /// The cause.
        source: arrow_schema::ArrowError,
    },
    /// The Parquet writer failed.
    #[error("cannot write {table} as Parquet: {source}")]
    Parquet {
        /// The table.
        table: &'static str,
        /// The cause.
        source: parquet::errors::ParquetError,
    },
}

/// One file written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The table's name (the file is `NAME.parquet`).
    pub table: &'static str,
    /// The file.
    pub path: PathBuf,
    /// Rows written.
    pub rows: u64,
}

/// Writes every table of `audit` into `dir` (created if missing) as `TABLE.parquet`,
/// computing each URL's equivalence key under `policy` (the audit's own policy, or a
/// what-if). Memory stays bounded: each table streams from the store in chunks.
pub async fn export_audit(
    store: &store::Store,
    audit: store::AuditId,
    policy: &canon::Policy,
    dir: &Path,
) -> Result<Vec<Written>, ColumnarError> {
    std::fs::create_dir_all(dir).map_err(|source| ColumnarError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    written.push(tables::urls(store, audit, policy, dir).await?);
    written.push(tables::fetches(store, audit, dir).await?);
    written.push(tables::links(store, audit, dir).await?);
    written.push(tables::canonicals(store, audit, dir).await?);
    written.push(tables::redirects(store, audit, dir).await?);
    written.push(tables::sitemap_entries(store, audit, dir).await?);
    written.push(tables::robots_blocks(store, audit, dir).await?);
    written.push(tables::probes(store, audit, dir).await?);
    written.push(tables::log_hits(store, audit, dir).await?);
    written.push(tables::renders(store, audit, dir).await?);
    Ok(written)
}

/// Writes `content.parquet` into `dir`: per page with stored text blocks, the hash and
/// word count of its main content (the site's template removed), as `analysis`
/// computed them.
pub fn export_content(analysis: &audit::Analysis, dir: &Path) -> Result<Written, ColumnarError> {
    tables::content(analysis, dir)
}

/// A Parquet file written batch by batch: rows are gathered into a buffer of at most
/// [`BATCH_ROWS`] and turned into one record batch by the table's `build` function.
pub(crate) struct TableFile<T> {
    table: &'static str,
    path: PathBuf,
    schema: SchemaRef,
    writer: Option<ArrowWriter<File>>,
    rows: Vec<T>,
    build: fn(&[T]) -> Vec<ArrayRef>,
    count: u64,
    failed: Option<ColumnarError>,
}

impl<T> TableFile<T> {
    pub(crate) fn create(
        dir: &Path,
        table: &'static str,
        fields: Vec<Field>,
        build: fn(&[T]) -> Vec<ArrayRef>,
    ) -> Result<TableFile<T>, ColumnarError> {
        let path = dir.join(format!("{table}.parquet"));
        let file = File::create(&path).map_err(|source| ColumnarError::Io {
            path: path.clone(),
            source,
        })?;
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|source| ColumnarError::Parquet { table, source })?;
        Ok(TableFile {
            table,
            path,
            schema,
            writer: Some(writer),
            rows: Vec::with_capacity(BATCH_ROWS),
            build,
            count: 0,
            failed: None,
        })
    }

    /// Adds one row; a full buffer is written out. An error is kept for
    /// [`TableFile::finish`], so this can run inside the store's row callbacks.
    pub(crate) fn push(&mut self, row: T) {
        if self.failed.is_some() {
            return;
        }
        self.rows.push(row);
        if self.rows.len() >= BATCH_ROWS
            && let Err(e) = self.flush()
        {
            self.failed = Some(e);
        }
    }

    fn flush(&mut self) -> Result<(), ColumnarError> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let columns = (self.build)(&self.rows);
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(|source| {
            ColumnarError::Arrow {
                table: self.table,
                source,
            }
        })?;
        if let Some(w) = self.writer.as_mut() {
            w.write(&batch).map_err(|source| ColumnarError::Parquet {
                table: self.table,
                source,
            })?;
        }
        self.count += self.rows.len() as u64;
        self.rows.clear();
        Ok(())
    }

    /// Writes the last rows and the file's footer.
    pub(crate) fn finish(mut self) -> Result<Written, ColumnarError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.flush()?;
        if let Some(w) = self.writer.take() {
            w.close().map_err(|source| ColumnarError::Parquet {
                table: self.table,
                source,
            })?;
        }
        Ok(Written {
            table: self.table,
            path: self.path,
            rows: self.count,
        })
    }
}
