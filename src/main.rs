//! The `dustpan` command-line program.
fn main() {}
