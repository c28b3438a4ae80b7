//! One module per subcommand.

pub mod avatar;
pub mod convert;
pub mod demo;
pub mod inspect;
pub mod lipsync;
pub mod motion_map;
pub mod retarget;
pub mod simulate;
pub mod track;
pub mod view;
pub mod vmc;
