//! One module per subcommand.

pub mod avatar;
pub mod bake;
pub mod convert;
pub mod demo;
pub mod inspect;
pub mod lipsync;
pub mod live;
pub mod motion_map;
pub mod retarget;
pub mod simulate;
pub mod speak;
pub mod track;
pub mod view;
pub mod vmc;
