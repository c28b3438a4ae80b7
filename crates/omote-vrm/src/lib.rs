//! # omote-vrm
//!
//! VRM formats for omote: read `.vrm` avatars (VRM 1.0 `VRMC_vrm` and VRM 0.x `VRM`)
//! into one model in VRM 1.0 terms, turn it into the core's [`Rig`](omote_core::Rig),
//! write animations as `.vrma` (`VRMC_vrm_animation` 1.0), and generate a small test
//! avatar.
//!
//! ```no_run
//! use omote_vrm::VrmModel;
//! let model = VrmModel::read("avatar.vrm")?;
//! println!("VRM {} with {} expressions", model.version.name(), model.expressions.len());
//! let rig = model.to_rig()?;
//! assert_eq!(rig.len(), model.expressions.len());
//! # Ok::<(), omote_vrm::VrmError>(())
//! ```
//!
//! Invariants: readers never panic on bad input (every problem is a [`VrmError`] naming
//! the file and the JSON field); the binary chunk of a file is borrowed, never copied.
//! Module map, one VRM concept per module: [`expressions`], [`look_at`], [`humanoid`],
//! [`meta`], the JSON mirror in [`schema`], the container in [`glb`].

pub mod avatar;
pub mod error;
pub mod expressions;
pub mod glb;
pub mod humanoid;
pub mod look_at;
pub mod meta;
pub mod model;
pub mod report;
pub mod schema;
pub mod skeleton;
pub mod vrma;

mod document;
mod eye_closure;
mod gltf_writer;

pub use error::VrmError;
pub use expressions::{
    Expression, MaterialColorBind, MaterialColorType, MorphTargetBind, TextureTransformBind,
};
pub use humanoid::{FaceBones, HumanBone, Humanoid};
pub use meta::{License, License0, License1, Meta};
pub use model::{VrmModel, VrmReadOptions, VrmVersion};
pub use report::InspectReport;
pub use vrma::{
    expressions_not_on, expressions_not_on_note, write_vrma, write_vrma_with_neck_share,
};
