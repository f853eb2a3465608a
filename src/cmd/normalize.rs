//! `dustpan normalize`: canonical forms of a URL list, one line out per line in.

use super::output::{Format, print_json};
use anyhow::{Context, Result};
use canon::{Policy, Preset};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use view::output::{NormalizeDocument, NormalizeLine};

/// Print the canonical form of each URL (one per line, stdin by default).
///
/// Every input line gives exactly one output line, in order. A line that is not an
/// http(s) URL prints `ERROR<TAB>kind<TAB>message`, so the output stays aligned
/// with the input.
#[derive(clap::Args)]
pub struct Args {
    /// Normalization preset: rfc3986 (safe rules only), seo (the default, as for an
    /// audit) or aggressive (every rule).
    #[arg(long, value_name = "PRESET", conflicts_with = "policy")]
    preset: Option<String>,
    /// A policy file (TOML, or JSON when it ends in .json); `extends = "seo"` starts
    /// from a preset.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// Print TSV: input, output, and the rules that fired (comma-separated).
    #[arg(long, conflicts_with = "group")]
    explain: bool,
    /// Print the equivalence groups the list holds (URLs sharing a canonical form),
    /// largest first: a `COUNT<TAB>CANONICAL` line, then one `<TAB>URL` line per
    /// distinct member. Groups of one URL are left out unless --all is given.
    #[arg(long)]
    group: bool,
    /// With --group, also print groups of a single URL.
    #[arg(long, requires = "group")]
    all: bool,
    /// text, json (one document: every line's canonical form and the rules that
    /// changed it, or why it was rejected) or jsonl (the same, one line out per line
    /// in); see docs/json.md.
    #[arg(long, value_enum, default_value_t, conflicts_with_all = ["group", "explain"])]
    format: Format,
    /// The URL list; standard input when absent or `-`.
    file: Option<PathBuf>,
}

/// Runs the subcommand; exit code 1 when some line was rejected.
pub fn run(args: Args) -> Result<ExitCode> {
    let policy = match &args.policy {
        Some(path) => Policy::from_path(path)?,
        None => match &args.preset {
            Some(name) => name.parse::<Preset>()?.policy(),
            None => Preset::default().policy(),
        },
    };
    let input: Box<dyn BufRead> = match args.file.as_deref() {
        None => Box::new(BufReader::with_capacity(1 << 16, io::stdin().lock())),
        Some(p) if p.as_os_str() == "-" => {
            Box::new(BufReader::with_capacity(1 << 16, io::stdin().lock()))
        }
        Some(p) => Box::new(BufReader::with_capacity(
            1 << 16,
            File::open(p).with_context(|| format!("cannot open {}", p.display()))?,
        )),
    };
    if args.format != Format::Text {
        let rejected = structured(input, &policy, args.format)?;
        return Ok(if rejected > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let rejected = if args.group {
        group(input, &policy, &mut out, args.all)?
    } else {
        stream(input, &policy, &mut out, args.explain)?
    };
    match out.flush() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        other => other.context("cannot write output")?,
    }
    Ok(if rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads lines as bytes so that invalid UTF-8 is one rejected line, not a failure.
fn for_each_line(
    mut input: impl BufRead,
    mut each: impl FnMut(&str) -> io::Result<()>,
) -> Result<()> {
    let mut buf = Vec::with_capacity(256);
    loop {
        buf.clear();
        if input
            .read_until(b'\n', &mut buf)
            .context("cannot read input")?
            == 0
        {
            return Ok(());
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        let line = String::from_utf8_lossy(&buf);
        match each(&line) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            other => other.context("cannot write output")?,
        }
    }
}

fn stream(
    input: impl BufRead,
    policy: &Policy,
    out: &mut impl Write,
    explain: bool,
) -> Result<u64> {
    let mut rejected = 0;
    for_each_line(input, |line| {
        let result = if explain {
            canon::normalize(line, policy).map(|n| {
                let rules: Vec<_> = n.rule_ids().collect();
                (n.url, rules.join(","))
            })
        } else {
            canon::equivalence_key(line, policy).map(|url| (url, String::new()))
        };
        match result {
            Ok((url, rules)) if explain => writeln!(out, "{}\t{url}\t{rules}", tsv_field(line)),
            Ok((url, _)) => writeln!(out, "{url}"),
            Err(e) => {
                rejected += 1;
                if explain {
                    write!(out, "{}\t", tsv_field(line))?;
                }
                writeln!(out, "ERROR\t{}\t{}", e.kind(), tsv_field(&e.to_string()))
            }
        }
    })?;
    Ok(rejected)
}

/// `--format json` / `jsonl`: every line normalized with its trail, or rejected.
fn structured(input: impl BufRead, policy: &Policy, format: Format) -> Result<u64> {
    let mut rejected = 0;
    let mut lines = Vec::new();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    for_each_line(input, |line| {
        let entry = match view::normalize_url(line, policy) {
            Ok(n) => NormalizeLine::Url(n),
            Err(e) => {
                rejected += 1;
                let (error, message) = match &e {
                    view::ViewError::Url(c) => (c.kind().to_owned(), c.to_string()),
                    e => ("invalid".to_owned(), e.to_string()),
                };
                NormalizeLine::Rejected {
                    input: line.to_owned(),
                    error,
                    message,
                }
            }
        };
        if format == Format::Jsonl {
            serde_json::to_writer(&mut out, &entry)?;
            out.write_all(b"\n")
        } else {
            lines.push(entry);
            Ok(())
        }
    })?;
    match out.flush() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(rejected),
        other => other.context("cannot write output")?,
    }
    drop(out);
    if format == Format::Json {
        print_json(&NormalizeDocument {
            schema_version: view::output::SCHEMA_VERSION,
            lines,
        })?;
    }
    Ok(rejected)
}

/// Tabs and line breaks inside a field would break the TSV's columns.
fn tsv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\t', '\n', '\r']) {
        s.replace(['\t', '\n', '\r'], " ").into()
    } else {
        s.into()
    }
}

fn group(input: impl BufRead, policy: &Policy, out: &mut impl Write, all: bool) -> Result<u64> {
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    let mut rejected = 0;
    let mut lines = 0u64;
    for_each_line(input, |line| {
        lines += 1;
        match canon::equivalence_key(line, policy) {
            Ok(key) => {
                let members = groups.entry(key).or_default();
                let trimmed = line.trim();
                if !members.iter().any(|m| m == trimmed) {
                    members.push(trimmed.to_owned());
                }
            }
            Err(_) => rejected += 1,
        }
        Ok(())
    })?;
    let mut sorted: Vec<_> = groups
        .into_iter()
        .filter(|(_, m)| all || m.len() > 1)
        .collect();
    sorted.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    let shown = sorted.len();
    for (key, members) in sorted {
        writeln!(out, "{}\t{key}", members.len())?;
        for m in members {
            writeln!(out, "\t{}", tsv_field(&m))?;
        }
    }
    out.flush()?;
    eprintln!("{lines} lines, {shown} groups shown, {rejected} rejected");
    Ok(rejected)
}
