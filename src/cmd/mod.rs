//! One module per subcommand.

pub mod audit;
pub mod audits;
pub mod db;
pub mod demo;
pub mod normalize;
