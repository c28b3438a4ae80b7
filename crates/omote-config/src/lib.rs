//! # omote-config
//!
//! Reads omote's data files — rigs, curves, clips, anims — from TOML or JSON. Every
//! error names the file and, for content errors, the field (`expressions[2].isBinary`).
//! The core's types are plain serde data; this crate is where files meet them.
//!
//! ```no_run
//! let rig = omote_config::load_rig(std::path::Path::new("my-rig.toml"))?;
//! println!("{} channels", rig.len());
//! # Ok::<(), omote_config::ConfigError>(())
//! ```

mod error;
mod mediapipe;
mod motion_map;
mod read;
mod tracking;

pub use error::ConfigError;
pub use mediapipe::{
    ArkitFrame, HeadSource, MediaPipeFace, MediaPipeFrame, SequenceFrame, landmark_head,
};
pub use motion_map::{load_camera_correction, load_motion_map, motion_map_error, read_motion_map};
pub use read::{Format, load, parse};
pub use tracking::{load_arkit_sequence, load_tracking_frame, load_tracking_sequence};

use std::path::Path;

use omote_core::clip::{Clip, ClipDesc};
use omote_core::curve::ResponseCurve;
use omote_core::anim::AnimError;
use omote_core::{Anim, RetargetConfig, Rig, RigDesc};

/// Read a rig file (TOML or JSON, see [`RigDesc`]) and build the rig.
pub fn load_rig(path: &Path) -> Result<Rig, ConfigError> {
    let desc: RigDesc = load(path)?;
    Rig::from_desc(&desc).map_err(|e| ConfigError::invalid(path, e.to_string()))
}

/// Read a retarget settings file (TOML or JSON, fields of [`RetargetConfig`]) and check
/// every number against its range ([`RetargetConfig::check`]): `[limits] yawDeg = -10`
/// is an error naming the file and the field, not a frozen head.
pub fn load_retarget_config(path: &Path) -> Result<RetargetConfig, ConfigError> {
    let config: RetargetConfig = load(path)?;
    check_retarget_config(config, path)
}

/// [`load_retarget_config`] on text already read (`path` names it in errors; the fuzz
/// target's entry).
pub fn parse_retarget_config(
    text: &str,
    format: Format,
    path: &Path,
) -> Result<RetargetConfig, ConfigError> {
    check_retarget_config(parse(text, format, path)?, path)
}

fn check_retarget_config(
    config: RetargetConfig,
    path: &Path,
) -> Result<RetargetConfig, ConfigError> {
    config
        .check()
        .map_err(|e| ConfigError::invalid(path, e.to_string()))?;
    Ok(config)
}

/// Read a response curve file: a preset name or `{keys = [...]}`.
pub fn load_curve(path: &Path) -> Result<ResponseCurve, ConfigError> {
    load(path)
}

/// Read a clip file and resolve its tracks against `rig`.
pub fn load_clip(path: &Path, rig: &Rig) -> Result<Clip, ConfigError> {
    let desc: ClipDesc = load(path)?;
    Clip::new(&desc, rig).map_err(|e| ConfigError::invalid(path, format!("tracks.{}: {e}", e.name)))
}

/// Read an anim JSON file and check its invariants.
pub fn load_anim(path: &Path) -> Result<Anim, ConfigError> {
    let anim: Anim = load(path)?;
    anim.validate()
        .map_err(|e| ConfigError::invalid(path, e.to_string()))?;
    Ok(anim)
}

/// Why an anim was not turned into its JSON.
#[derive(Debug, thiserror::Error)]
pub enum AnimWriteError {
    /// The anim breaks its invariants (see [`Anim::validate`]).
    #[error("refusing to write an invalid anim: {0}")]
    Invalid(#[from] AnimError),
    /// serde_json could not serialise it.
    #[error("serialising the anim: {0}")]
    Json(#[from] serde_json::Error),
}

/// The anim file's bytes (compact JSON, the format [`load_anim`] reads), after checking
/// the anim: what `omote bake`, `simulate` and every binding write.
pub fn anim_json(anim: &Anim) -> Result<Vec<u8>, AnimWriteError> {
    anim.validate()?;
    Ok(serde_json::to_vec(anim)?)
}
