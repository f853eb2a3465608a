//! One module per subcommand.

pub mod audit;
pub mod audits;
pub mod db;
pub mod demo;
pub mod export;
pub mod normalize;
pub mod report;
