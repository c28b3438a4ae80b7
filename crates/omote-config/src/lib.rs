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
    ArkitFrame, HeadSource, LANDMARK_COUNTS, MAX_REPLAY_STEP_S, MediaPipeFace, MediaPipeFrame,
    SequenceFrame, landmark_head, replay_sequence,
};
pub use motion_map::{
    load_camera_correction, load_camera_correction_with, load_motion_map, motion_map_error,
    read_motion_map,
};
pub use read::{
    Format, ReadFile, config_file, data_file, load, load_with, parse, parse_json, read_text,
};
pub use tracking::{Sequence, load_arkit_sequence, load_tracking_frame, load_tracking_sequence};

use std::path::Path;

use omote_core::clip::{Clip, ClipDesc};
use omote_core::curve::ResponseCurve;
use omote_core::{Anim, RetargetConfig, Rig, RigDesc};

/// Read a rig file (TOML or JSON, see [`RigDesc`]) and build the rig.
pub fn load_rig(path: &Path) -> Result<Rig, ConfigError> {
    load_rig_with(path, &config_file)
}

/// [`load_rig`] with the file's bytes from `read`.
pub fn load_rig_with(path: &Path, read: ReadFile<'_>) -> Result<Rig, ConfigError> {
    let desc: RigDesc = load_with(path, read)?;
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

/// Read an anim JSON file and check its invariants. A file that is not an anim — a lip
/// sync track, a Rhubarb export, a scene, an empty file — is named for what it is.
pub fn load_anim(path: &Path) -> Result<Anim, ConfigError> {
    // Hours of frames: a data file's limit, not a config file's. An anim is JSON whatever
    // its name says (one saved as `take.vrma` by mistake still reads); a TOML file is
    // parsed as TOML, so that a scene is named as one.
    let io = |error| ConfigError::Io {
        path: path.to_path_buf(),
        error,
    };
    let bytes = data_file(path).map_err(io)?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(ConfigError::invalid(
            path,
            format!("not text (an audio file, a model?), not an anim: {ANIM_HINT}"),
        ));
    };
    let format = match Format::from_path(path) {
        Some(Format::Toml) => Format::Toml,
        _ => Format::Json,
    };
    let anim: Anim = read::parse(text, format, path).map_err(|e| not_an_anim(path, text, e))?;
    anim.validate()
        .map_err(|e| ConfigError::invalid(path, e.to_string()))?;
    Ok(anim)
}

/// How an anim is made, for errors about files that are not one.
const ANIM_HINT: &str = "an anim (`NAME.anim.json`) is what `omote bake`, `omote simulate` or `omote live --record` writes";

/// `error` of reading `path` as an anim, said better where the file is plainly something
/// else (looked at only when the anim did not parse).
fn not_an_anim(path: &Path, text: &str, error: ConfigError) -> ConfigError {
    /// The fields that tell omote's other files apart.
    #[derive(serde::Deserialize)]
    struct Kind {
        format: Option<String>,
        #[serde(rename = "mouthCues")]
        mouth_cues: Option<serde::de::IgnoredAny>,
    }
    let kind = match &error {
        ConfigError::Parse { .. } => {
            if text.trim().is_empty() {
                Some(format!("the file is empty; {ANIM_HINT}"))
            } else if Format::from_path(path) == Some(Format::Toml) {
                Some(format!("a TOML file, not an anim: {ANIM_HINT}"))
            } else {
                match serde_json::from_str::<Kind>(text) {
                    Ok(Kind {
                        format: Some(f), ..
                    }) if f != omote_core::anim::ANIM_FORMAT => {
                        Some(format!("a `{f}` file, not an anim: {ANIM_HINT}"))
                    }
                    Ok(Kind {
                        mouth_cues: Some(_),
                        ..
                    }) => Some(format!(
                        "a Rhubarb lip sync export, not an anim: {ANIM_HINT}"
                    )),
                    // Not JSON at all under another name (`line.wav` that is text): not
                    // an anim. A `.json` keeps the parser's words: where it broke.
                    Err(_) if Format::from_path(path) != Some(Format::Json) => {
                        Some(format!("not an anim: {ANIM_HINT}"))
                    }
                    _ => None,
                }
            }
        }
        _ => None,
    };
    match kind {
        Some(message) => ConfigError::invalid(path, message),
        None => error,
    }
}

/// An anim as its file: checked ([`Anim::validate`]), then compact JSON — what
/// [`load_anim`] reads back. The one writer of the anim file (the CLI, the embedding API).
pub fn anim_json(anim: &Anim) -> Result<String, omote_core::anim::AnimError> {
    anim.validate()?;
    Ok(serde_json::to_string(anim)
        .expect("an anim that validates serialises (string keys, finite numbers)"))
}
