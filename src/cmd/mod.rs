//! One module per subcommand.

pub mod normalize;
