//! Where the audit database lives.

use anyhow::{Context, Result};
use std::path::PathBuf;

/// The `--db` option shared by every subcommand that reads or writes audits.
#[derive(clap::Args, Clone)]
pub struct DbArgs {
    /// The SQLite database holding the audits (created if missing). Defaults to
    /// `dustpan.sqlite` in the platform's data directory (on Linux
    /// `~/.local/share/dustpan/`).
    #[arg(long, value_name = "FILE", env = "DUSTPAN_DB", global = true)]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    /// The database path: `--db`, `$DUSTPAN_DB`, or the platform default.
    pub fn path(&self) -> Result<PathBuf> {
        if let Some(p) = &self.db {
            return Ok(p.clone());
        }
        let dirs = directories::ProjectDirs::from("", "", "dustpan")
            .context("cannot find a home directory for the default database; pass --db FILE")?;
        let dir = dirs.data_dir();
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir.join("dustpan.sqlite"))
    }

    /// Opens (creating and migrating if needed) the database.
    pub async fn open(&self) -> Result<store::Store> {
        let path = self.path()?;
        // The store's error names the file and what SQLite said.
        Ok(store::Store::open(&path).await?)
    }
}
