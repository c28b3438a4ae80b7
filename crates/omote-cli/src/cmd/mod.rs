//! One module per subcommand.

pub mod demo;
pub mod lipsync;
pub mod motion_map;
pub mod retarget;
pub mod simulate;
