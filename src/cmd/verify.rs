//! `dustpan verify`: a fix plan checked on the live site after deployment.

use anyhow::{Context, Result};
use std::path::Path;

/// The plan in `path`: a folder written by `dustpan export` (its redirect_map.csv,
/// canonicals_to_set.csv and sitemap_changes.csv, each optional), or one
/// redirect_map.csv.
pub fn read_plan(path: &Path) -> Result<audit::FixFiles> {
    let read = |p: &Path| -> Result<Option<String>> {
        match std::fs::read_to_string(p) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
        }
    };
    let (redirects, canonicals, sitemap) = if path.is_dir() {
        let files = [
            "redirect_map.csv",
            "canonicals_to_set.csv",
            "sitemap_changes.csv",
        ]
        .map(|f| read(&path.join(f)));
        let [r, c, s] = files;
        let (r, c, s) = (r?, c?, s?);
        if r.is_none() && c.is_none() && s.is_none() {
            anyhow::bail!(
                "{} holds no redirect_map.csv, canonicals_to_set.csv or sitemap_changes.csv",
                path.display()
            );
        }
        (r, c, s)
    } else {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        (Some(text), None, None)
    };
    audit::simulate::read_fix_files(
        redirects.as_deref(),
        canonicals.as_deref(),
        sitemap.as_deref(),
    )
    .with_context(|| format!("cannot read the plan in {}", path.display()))
}
