//! End-to-end tests of the `dustpan` program: one integration binary, one module
//! per subcommand, a small harness in `util`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit;
mod cli;
mod consistency;
mod diff;
mod discovery;
mod golden;
mod hostile;
mod json_output;
mod layers;
mod learn;
mod lease;
mod list;
mod mcp;
mod migrate;
mod normalize;
mod one_pipeline;
mod policy;
mod probes;
mod render;
mod report;
mod resume;
mod scale;
mod search_console;
mod sf_columns;
mod shop;
mod simulate;
mod truth;
mod url_detail;
mod url_headers;
mod util;
mod verify;
