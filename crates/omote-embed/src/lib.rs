//! # omote-embed
//!
//! omote's embedding API: the plain Rust types a host program — a game engine through
//! the C ABI, a web app through the npm package, a Python pipeline — drives faces with.
//! Every binding wraps these types and only translates (names, arrays, errors); none
//! writes a rule again.
//!
//! - [`Character`]: one character's face — rig, [`omote_core::FaceDriver`], voice lines
//!   with hand-over and afterglow, a live voice, optionally a tracked face and a camera.
//! - [`Speaker`]: one character's voice lines at any sample rate, each read against the
//!   others; [`analyse_voice`] for a clip alone.
//! - [`VoiceStream`]: live lip sync at any sample rate and chunk size.
//! - With the `avatar` feature (on by default): [`Avatar`] and [`AvatarSource`], avatars
//!   from VRM files or bytes, rig files and the built-in ones; [`anim_json`] and
//!   [`vrma`], an anim (a bake, a [`Character::record`]ing) as its files.
//! - With the `scene` feature (on by default): [`ScenePlayer`], a dialogue scene (the
//!   TOML of `docs/scene-format.md`) played frame by frame — every character's frame,
//!   the scene's events as plain numbers ([`SceneEventInfo`]), advance and skip — with
//!   its files from the filesystem or any [`SceneFiles`] (an engine's assets, memory:
//!   [`MemoryFiles`]); baked or recorded into anims.
//!
//! ## Contracts
//!
//! - **Time**: [`Character::update`] takes any `dt`, and never fails on one — every
//!   binding passes it through, so this is the contract in all of them:
//!   - finite, positive, at most [`MAX_STEP_S`] (0.25 s): a step of exactly `dt`;
//!   - longer (a tab back from the background after 5 s, a breakpoint, a clock's first
//!     delta): a gap in which nothing was shown, so the face resumes where it was — the
//!     step is one normal frame (the last step taken; 1/60 s before any) and the face
//!     changes no more than in any other frame. A voice line resumes where it stopped
//!     too; a host whose audio played on through the gap cuts the line or starts the
//!     next one (the npm package's `say(line, { context })` follows the audio clock);
//!   - zero, negative, NaN or infinite: no time passes and the frame is recomputed from
//!     the inputs.
//!
//!   A scene player's `update` takes any `dt` too and ignores the same bad ones, but a
//!   long finite one is a step of exactly that length: a scene is a timeline whose
//!   voices the host schedules from its events, so its clock is the audio's; with no
//!   step it changes nothing at all (its inputs are the scene's, which only time
//!   moves).
//! - **Numbers in**: weights are clamped to 0–1, gaze to ±90°; a NaN or infinite input
//!   that would be silently wrong (a weight, a sample, a rotation) is refused with an
//!   [`EmbedError`] that says what was given; nothing is half-applied.
//! - **Numbers out**: always finite; weights in 0–1; rotations unit quaternions.
//! - **Composing with the host's animation**: the character outputs every channel of its
//!   rig, every frame, but drives only some of them by itself: the mouth (`aa ih ou ee
//!   oh`), the blinks (`blink blinkLeft blinkRight`) and, when it moves the eyes of a
//!   model that looks with expressions, `lookUp lookDown lookLeft lookRight`. A host
//!   writes those and the ones it gave as acting or afterglow, and may leave every other
//!   expression to its own animation (an emotion controller): then it gives its own
//!   values *in* as acting ([`Character::set_expression`], the base layer) each frame
//!   without writing them back, so the override rules see them (a blink under the
//!   host's `happy` is damped as the VRM says) and its values stay its own. Picture
//!   adjustments ([`Character::set_picture`]) are added on top. Head and eye rotations
//!   are relative to the rest pose: *additive* — multiply them onto the host's animated
//!   local rotations (a turn from a clip stays, the face's motion rides on it); *replace*
//!   — onto the rest pose; or not applied at all. A host that keeps its own look-at (at
//!   a camera) adds [`Character::gaze`] (the acted gaze, 0 unless set, plus the
//!   saccades, in degrees) to the yaw and pitch it applies, instead of the eye
//!   rotations. The npm package's `attach(vrm, { head, lookAt, expressions })` is this
//!   contract for three-vrm.
//!   Weights come twice: after the VRM override rules ([`Character::weights`], for
//!   players that apply none) and before them ([`Character::input_weights`], for players
//!   that apply them: UniVRM 1.0, three-vrm with its rules on, VRMA).
//! - **Determinism**: the same rig, seed and calls give the same frames, to the bit.
//!
//! ```
//! use omote_embed::{Character, Speaker};
//! let line: Vec<f32> = (0..48_000)
//!     .map(|i| if (12_000..36_000).contains(&i) { (i as f32 * 0.06).sin() * 0.3 } else { 0.0 })
//!     .collect();
//! let mut speaker = Speaker::new();
//! speaker.add_line(&line, 48_000.0).unwrap();
//! let analysis = speaker.analyse(&line, 48_000.0).unwrap();
//! let mut face = Character::from_rig_json(r#"{"presets": true}"#, 7).unwrap();
//! face.say_analysis(&analysis, &[]).unwrap();
//! for _ in 0..30 {
//!     face.update(1.0 / 60.0);
//! }
//! assert!(face.weights().iter().all(|w| (0.0..=1.0).contains(w)));
//! ```

#![deny(missing_docs)]

mod analysis;
mod character;
mod error;
mod expression_fades;
// The browser's settings errors (natively, omote-config's reader names the field).
#[cfg_attr(feature = "avatar", allow(dead_code))]
mod json_path;
#[cfg(feature = "scene")]
mod scene_player;
mod speaker;
mod voice_file;
mod voice_profile;
mod voice_stream;

pub use analysis::{
    ANALYSIS_RATE, VoiceAnalysis, analyse_voice, analyse_voice_with_profile, load_voice,
    load_voice_with_warning,
};
#[cfg(feature = "scene")]
pub use character::camera_correction;
pub use character::{
    Character, LIVE_VOICE_STALE_S, LineEvents, MAX_STEP_S, rig_from_json, tracking_settings,
};
pub use error::EmbedError;
#[cfg(feature = "avatar")]
pub use omote_avatar::{Avatar, AvatarError, AvatarSource};
pub use omote_core::Anim;
pub use omote_core::eyes::Gaze;
pub use omote_lipsync::VOICE_SEED_LEN;
#[cfg(feature = "scene")]
pub use omote_scene::{BakeOptions, BakedCharacter, FsFiles, MemoryFiles, SceneFiles};
#[cfg(feature = "avatar")]
pub use omote_vrm::VrmModel;
#[cfg(feature = "scene")]
pub use scene_player::{SceneEventInfo, SceneEventKind, ScenePlayer};
pub use speaker::Speaker;
pub use voice_file::{
    LONG_VOICE_S, StreamedVoiceFile, UNKNOWN_LONG_BYTES, VoiceFileAnalysis, analyse_voice_file,
    is_long_voice_file, stream_voice_file,
};
pub use voice_profile::{VOICE_CARD, builtin_voice_profile, calibrate_voice_from_card};
pub use voice_stream::{VOICE_FRAME_STRIDE, VoiceStream};

#[cfg(feature = "avatar")]
impl From<omote_avatar::AvatarError> for EmbedError {
    fn from(e: omote_avatar::AvatarError) -> Self {
        match e.missing_file() {
            Some(file) => EmbedError::file_not_found(file),
            None => EmbedError::Avatar(e.to_string()),
        }
    }
}

/// A VRM's report as `omote inspect --json` prints it (version, meta, expressions,
/// lookAt, face bones, warnings; fields in `crates/omote-vrm/README.md`). `lenient` also
/// reads a VRM 1.0 without the required head bone (listed under warnings).
#[cfg(feature = "avatar")]
pub fn inspect_vrm(path: &std::path::Path, lenient: bool) -> Result<String, EmbedError> {
    if !path.exists() {
        return Err(EmbedError::file_not_found(path));
    }
    let options = omote_vrm::VrmReadOptions {
        allow_missing_head: lenient,
    };
    omote_vrm::VrmModel::read_with(path, options)
        .map(|m| omote_vrm::InspectReport::new(&m).to_json())
        .map_err(|e| EmbedError::Avatar(e.to_string()))
}

/// An anim as its file (`.anim.json`): checked, then compact JSON — what `omote bake`
/// writes, byte for byte.
#[cfg(feature = "avatar")]
pub fn anim_json(anim: &Anim) -> Result<String, EmbedError> {
    omote_config::anim_json(anim).map_err(|e| EmbedError::Anim(e.to_string()))
}

/// An anim as a VRM Animation (`.vrma`) for `model` (an [`Avatar`]'s, a scene
/// character's): its expressions before the override rules, its head and eyes.
#[cfg(feature = "avatar")]
pub fn vrma(anim: &Anim, model: &VrmModel) -> Result<Vec<u8>, EmbedError> {
    vrma_with_warning(anim, model).map(|(bytes, _)| bytes)
}

/// [`vrma`], with the warning for the anim's expressions `model` does not have (an anim
/// recorded on another avatar: they are left out; a binding passes the warning on).
#[cfg(feature = "avatar")]
pub fn vrma_with_warning(
    anim: &Anim,
    model: &VrmModel,
) -> Result<(Vec<u8>, Option<String>), EmbedError> {
    vrma_with_neck_share(anim, model, omote_core::tracking::NECK_SHARE)
}

/// [`vrma_with_warning`] with the neck taking `neck_share` (0–1) of the head's turn where
/// the model has a neck: a tracked recording's own `neckShare`
/// ([`Character::neck_share`]).
#[cfg(feature = "avatar")]
pub fn vrma_with_neck_share(
    anim: &Anim,
    model: &VrmModel,
    neck_share: f32,
) -> Result<(Vec<u8>, Option<String>), EmbedError> {
    if !(0.0..=1.0).contains(&neck_share) {
        return Err(EmbedError::Argument(format!(
            "the neck's share {neck_share} is not a share, 0–1"
        )));
    }
    let bytes = omote_vrm::write_vrma_with_neck_share(anim, model, neck_share)
        .map_err(|e| EmbedError::Anim(e.to_string()))?;
    Ok((bytes, omote_vrm::expressions_not_on_note(anim, model)))
}
