//! The `dustpan` command-line program: a thin front door onto the libraries.

mod cmd;
mod terminal;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// jemalloc returns freed memory to the system as the audit goes (the system allocator
/// keeps the holes the crawl's short-lived buffers leave, and the analysis grows on top).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Dustpan: find the URLs of a site that are really the same page, and how to fix them.
#[derive(Parser)]
#[command(name = "dustpan", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Analyse(Box<cmd::analyse::Args>),
    Audit(Box<cmd::audit::Args>),
    Audits(cmd::audits::Args),
    Delete(cmd::delete::Args),
    #[cfg(feature = "demo")]
    Demo(cmd::demo::Args),
    Diff(cmd::diff::Args),
    Explain(cmd::explain::Args),
    Export(cmd::export::Args),
    Learn(cmd::learn::Args),
    Mcp(cmd::mcp::Args),
    Normalize(cmd::normalize::Args),
    Report(cmd::report::Args),
    Migrate(cmd::migrate::Args),
    Simulate(cmd::simulate::Args),
    Url(cmd::url::Args),
    Verify(cmd::verify::Args),
}

/// A reader that closes the pipe early (`dustpan report | head`) ends the output, not
/// the program with a panic: printing to a closed stdout exits quietly with 0, as Unix
/// tools do. Every other panic is reported as usual.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// An error and its causes on one line, each said once: a cause whose text the line
/// already holds (a library's message that repeats its own source) is left out.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// The libraries' log on standard error, written around the progress bar: warnings and
/// errors unless `RUST_LOG` asks for more (`RUST_LOG=debug`, `RUST_LOG=crawl=trace`).
fn install_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| cmd::audit::LogWriter)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .init();
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    install_logging();
    let result = match cli.command {
        Command::Analyse(args) => cmd::analyse::run(*args),
        Command::Audit(args) => cmd::audit::run(*args),
        Command::Audits(args) => cmd::audits::run(args),
        Command::Delete(args) => cmd::delete::run(args),
        #[cfg(feature = "demo")]
        Command::Demo(args) => cmd::demo::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Learn(args) => cmd::learn::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::Normalize(args) => cmd::normalize::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Migrate(args) => cmd::migrate::run(args),
        Command::Simulate(args) => cmd::simulate::run(args),
        Command::Url(args) => cmd::url::run(args),
        Command::Verify(args) => cmd::verify::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dustpan: {}", one_line(&err));
            ExitCode::from(2)
        }
    }
}
