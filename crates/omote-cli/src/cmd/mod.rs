//! One module per subcommand.

pub mod demo;
pub mod motion_map;
pub mod retarget;
