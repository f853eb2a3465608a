//! The files and folders the user chose in one of the app's dialogs: the only paths the
//! app's commands read or write.
//!
//! The window runs crawled text (titles, URLs, anchors) through its views; whatever a
//! bug there could make it ask, a command that writes a CSV file, reads a URL list or
//! a policy file accepts only a path the shell's own dialog answered for that purpose
//! ([`ChosenPaths::check`]). The dialog opens in the shell, not in the window, so the
//! window cannot name a path of its own.

use crate::ViewError;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use ts_rs::TS;

/// What a path is chosen for: the kind of dialog, and what the command may do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum PathPurpose {
    /// A CSV file to write (a save dialog).
    SaveCsv,
    /// An Excel workbook to write (a save dialog).
    SaveWorkbook,
    /// An HTML report to write (a save dialog).
    SaveHtml,
    /// A folder to write the full report into.
    ReportFolder,
    /// A URL list, sitemap, CSV file or access log to read.
    ListFile,
    /// A TOML or JSON policy file to read.
    PolicyFile,
    /// A fix plan's folder to read (written by `dustpan export`, perhaps edited).
    PlanFolder,
    /// A folder to write a migration's `migration.csv` and redirect map into.
    MigrationFolder,
}

impl PathPurpose {
    /// The dialog's title.
    pub fn title(self) -> &'static str {
        match self {
            PathPurpose::SaveCsv => "Export CSV",
            PathPurpose::SaveWorkbook => "Export an Excel workbook",
            PathPurpose::SaveHtml => "Export an HTML report",
            PathPurpose::ReportFolder => "Choose a folder for the report",
            PathPurpose::ListFile => "Audit a URL list, sitemap, CSV file or access log",
            PathPurpose::PolicyFile => "Choose a normalization policy file",
            PathPurpose::PlanFolder => "Choose the folder of the fix plan to verify",
            PathPurpose::MigrationFolder => "Choose a folder for the migration's files",
        }
    }

    /// What the path is for, in a few words (in error messages).
    fn what(self) -> &'static str {
        match self {
            PathPurpose::SaveCsv => "a CSV file to write",
            PathPurpose::SaveWorkbook => "a workbook to write",
            PathPurpose::SaveHtml => "an HTML report to write",
            PathPurpose::ReportFolder => "a folder for the report",
            PathPurpose::ListFile => "a list to audit",
            PathPurpose::PolicyFile => "a policy file",
            PathPurpose::PlanFolder => "a fix plan's folder",
            PathPurpose::MigrationFolder => "a folder for the migration's files",
        }
    }
}

/// A dialog the window asks the shell to open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PathChoice {
    /// What the path is for.
    pub purpose: PathPurpose,
    /// The file name a save dialog suggests.
    #[serde(default)]
    pub suggested_name: Option<String>,
    /// The folder the dialog starts in (the last one used, or the documents folder).
    #[serde(default)]
    pub start_folder: Option<String>,
    /// The answer an automated test gives instead of a person: honoured only when the
    /// app was started for automation (`DUSTPAN_AUTOMATION=1`), refused otherwise.
    #[serde(default)]
    pub automation_answer: Option<String>,
}

/// The paths chosen so far in this run of the app, each with its purpose.
#[derive(Debug, Default)]
pub struct ChosenPaths {
    chosen: Mutex<HashSet<(PathBuf, PathPurpose)>>,
}

impl ChosenPaths {
    /// None chosen yet.
    pub fn new() -> ChosenPaths {
        ChosenPaths::default()
    }

    /// Records that the user chose `path` for `purpose`.
    pub fn grant(&self, path: &Path, purpose: PathPurpose) {
        self.lock().insert((path.to_path_buf(), purpose));
    }

    /// `Ok` when the user chose exactly `path` for `purpose` in a dialog of this run.
    pub fn check(&self, path: &Path, purpose: PathPurpose) -> Result<(), ViewError> {
        if self.lock().contains(&(path.to_path_buf(), purpose)) {
            Ok(())
        } else {
            Err(ViewError::NotChosen {
                path: path.display().to_string(),
                what: purpose.what(),
            })
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(PathBuf, PathPurpose)>> {
        // A panic while holding the set cannot leave it half-changed: insert is atomic.
        self.chosen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_path_chosen_for_that_purpose_passes() {
        let chosen = ChosenPaths::new();
        let csv = Path::new("/home/a/pages.csv");
        assert!(chosen.check(csv, PathPurpose::SaveCsv).is_err());
        chosen.grant(csv, PathPurpose::SaveCsv);
        assert!(chosen.check(csv, PathPurpose::SaveCsv).is_ok());
        // Chosen to be written is not chosen to be read.
        let err = chosen.check(csv, PathPurpose::ListFile).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidInput);
        assert!(err.to_string().contains("/home/a/pages.csv"), "{err}");
        // Another spelling of a path is another path.
        assert!(
            chosen
                .check(Path::new("/home/a/../a/pages.csv"), PathPurpose::SaveCsv)
                .is_err()
        );
        assert!(
            chosen
                .check(Path::new("/home/a/other.csv"), PathPurpose::SaveCsv)
                .is_err()
        );
    }
}
