//! One module per subcommand.

pub mod analyse;
pub mod audit;
pub mod audits;
pub mod db;
pub mod delete;
#[cfg(feature = "demo")]
pub mod demo;
pub mod diff;
pub mod explain;
pub mod export;
pub mod learn;
pub mod mcp;
pub mod migrate;
pub mod normalize;
pub mod output;
pub mod parquet;
pub mod report;
pub mod simulate;
pub mod url;
pub mod verify;
