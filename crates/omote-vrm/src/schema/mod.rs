//! Serde structs mirroring the JSON of the VRM extensions, field for field (only the
//! fields omote reads; unknown fields are ignored, as glTF requires). Nothing here
//! interprets values: the concept modules (`expressions`, `look_at`, `humanoid`, `meta`)
//! turn these into the crate's model types and check them.
//!
//! - [`vrmc_vrm`]: `extensions.VRMC_vrm` (VRM 1.0).
//! - [`vrm0`]: `extensions.VRM` (VRM 0.x).
//! - [`vrmc_vrm_animation`]: `extensions.VRMC_vrm_animation` (VRMA 1.0, written).

pub mod ordered_map;
pub mod vrm0;
pub mod vrmc_vrm;
pub mod vrmc_vrm_animation;

pub use ordered_map::OrderedMap;
