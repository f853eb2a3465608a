//! The `dustpan` command-line program: a thin front door onto the libraries.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Dustpan: find the URLs of a site that are really the same page, and how to fix them.
#[derive(Parser)]
#[command(name = "dustpan", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Normalize(cmd::normalize::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Normalize(args) => cmd::normalize::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dustpan: {err:#}");
            ExitCode::from(2)
        }
    }
}
