//! Writes the TypeScript declarations of the desktop app's types into
//! `ui/src/bindings/` (or the folder given as the first argument).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(view::bindings::default_dir);
    match view::bindings::export(&dir) {
        Ok(files) => {
            println!("{} files written to {}", files.len(), dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot write the bindings to {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}
