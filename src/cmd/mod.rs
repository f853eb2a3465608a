//! One module per subcommand.

pub mod audit;
pub mod audits;
pub mod db;
pub mod delete;
pub mod demo;
pub mod diff;
pub mod export;
pub mod normalize;
pub mod report;
