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
//!   from VRM files or bytes, rig files and the built-in ones.
//!
//! ## Contracts
//!
//! - **Time**: [`Character::update`] takes any `dt`. Finite and positive: a step of
//!   exactly `dt`, however long (the core's smoothing is exact for any step, and a line
//!   that played on while the host was away is where its audio is). Zero, negative or
//!   NaN: no time passes and the frame is recomputed from the inputs.
//! - **Numbers in**: weights are clamped to 0–1, gaze to ±90°; a NaN or infinite input
//!   that would be silently wrong (a weight, a sample, a rotation) is refused with an
//!   [`EmbedError`] that says what was given; nothing is half-applied.
//! - **Numbers out**: always finite; weights in 0–1; rotations unit quaternions.
//! - **Composing with the host's animation**: the character outputs every channel of its
//!   rig, every frame. Expressions the host wants go *in* — as acting
//!   ([`Character::set_expression`], the base layer) or as picture adjustments
//!   ([`Character::set_picture`], added on top) — so the override rules see them and
//!   blinks respect them. Head and eye rotations are relative to the rest pose: multiply
//!   them onto the host's animated local rotations to put them on top of its animation.
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
mod speaker;
mod voice_stream;

pub use analysis::{ANALYSIS_RATE, VoiceAnalysis, analyse_voice, load_voice};
pub use character::{Character, LineEvents, rig_from_json};
pub use error::EmbedError;
#[cfg(feature = "avatar")]
pub use omote_avatar::{Avatar, AvatarError, AvatarSource};
pub use omote_core::eyes::Gaze;
pub use omote_lipsync::VOICE_SEED_LEN;
pub use speaker::Speaker;
pub use voice_stream::{VOICE_FRAME_STRIDE, VoiceStream};

#[cfg(feature = "avatar")]
impl From<omote_avatar::AvatarError> for EmbedError {
    fn from(e: omote_avatar::AvatarError) -> Self {
        EmbedError::Avatar(e.to_string())
    }
}
