//! `--format`: the terminal's text, or the JSON documents of `view::output` for scripts
//! and pipelines (their schemas are in `docs/json/`).

use anyhow::{Context, Result};
use serde::Serialize;
use std::io::{self, BufWriter, Write};

/// How a command prints what it found.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Text for a person at a terminal.
    #[default]
    Text,
    /// One JSON document (pretty-printed), with a `schemaVersion`.
    Json,
    /// One JSON value a line: the document's rows, without its envelope.
    Jsonl,
}

/// Prints `doc` as one pretty-printed JSON document; a reader that closed the pipe
/// early ends the output quietly.
pub fn print_json(doc: &impl Serialize) -> Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, doc)
        .map_err(io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    quiet_on_closed_pipe(written)
}

/// Prints each of `rows` as one line of JSON.
pub fn print_jsonl<T: Serialize>(rows: impl IntoIterator<Item = T>) -> Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    let written = rows
        .into_iter()
        .try_for_each(|row| {
            serde_json::to_writer(&mut out, &row)
                .map_err(io::Error::from)
                .and_then(|()| out.write_all(b"\n"))
        })
        .and_then(|()| out.flush());
    quiet_on_closed_pipe(written)
}

fn quiet_on_closed_pipe(written: io::Result<()>) -> Result<()> {
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write output"),
    }
}
