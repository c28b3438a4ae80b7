//! # omote-core
//!
//! The pure facial animation runtime of omote. It turns what a character should be
//! doing (acting layers, gaze, head pose) into the expression weights and eye rotations a
//! VRM face needs, every frame.
//!
//! Invariants: no I/O, no clocks, no threads, no global state; time enters as `dt`,
//! randomness from a seeded [`Pcg32`] owned by each [`Face`]; [`Face::update`] allocates
//! nothing. Names are interned to [`ChannelId`]s once, in the [`Rig`]; frames are flat
//! `f32` arrays.
//!
//! Eyes come alive on their own: each face blinks and makes saccades (see [`Eyes`],
//! [`BlinkGenerator`], [`SaccadeGenerator`]; turned off by [`FaceConfig::raw`]), and reports what started
//! each frame in [`FaceState::events`].
//!
//! Conventions: the VRM frame (+Y up, +Z forward, +X the avatar's left); gaze yaw > 0
//! looks left, pitch > 0 looks down; angles in degrees at the API edge (`*_deg`).
//!
//! ```
//! use std::sync::Arc;
//! use omote_core::{Face, FaceConfig, FaceInputs, Rig};
//!
//! let rig = Arc::new(Rig::standard());
//! let mut face = Face::new(rig.clone(), FaceConfig::default(), 7);
//! let happy = rig.channel("happy").unwrap();
//! let blink = rig.channel("blink").unwrap();
//! face.layer_mut(Face::BASE).set(happy, 1.0);
//! face.layer_mut(Face::BASE).set(blink, 1.0);
//! let state = face.update(1.0 / 60.0, &FaceInputs::default());
//! // `happy` blends out blink in the standard rig (VRM overrideBlink = blend).
//! assert_eq!(state.weight(blink), 0.0);
//! ```

mod anim;
mod clip;
mod curve;
mod driver;
mod error;
mod eyes;
mod face;
mod look_at;
mod mix;
mod rig;
mod rng;
mod sanitize;
mod scene;
mod smoothing;
mod sources;
mod span;

pub use anim::{
    ANIM_FORMAT, ANIM_MAX_FPS, ANIM_MIN_FPS, ANIM_VERSION, Anim, AnimError, AnimEvent,
    AnimRecorder, ExpressionTracks,
};
pub use clip::{Clip, ClipDesc, UnknownChannel};
pub use curve::{CurveSpec, Interp, Keyframe, ResponseCurve};
pub use driver::FaceDriver;
pub use driver::inputs::{DriverInputs, DriverReport};
pub use error::{CurveError, EyesConfigError, RigError};
pub use eyes::Eyes;
pub use eyes::blink::{
    BlinkCause, BlinkConfig, BlinkEvent, BlinkGenerator, BlinkInput, BlinkOutput,
};
pub use eyes::blink_motion::{BlinkMotion, BlinkMotionDesc, preset_blink_motions};
pub use eyes::eye_mode::{EyeMode, PerMode, UnknownEyeMode};
pub use eyes::saccade::{
    SaccadeConfig, SaccadeDirection, SaccadeEvent, SaccadeGenerator, SaccadeOutput,
};
pub use face::event::{FaceEvent, FaceEvents};
pub use face::{Face, FaceConfig, FaceInputs, FaceState};
pub use glam::{self, Quat, Vec3};
pub use look_at::{EyeAngles, LookAtDesc, LookAtRangeMap, LookAtType, LookWeights, eye_rotation};
pub use mix::layer::{BlendMode, Layer, LayerId, Mixer};
pub use mix::overrides::OverrideMultipliers;
pub use rig::arkit::{ARKIT_52, arkit_index, is_arkit_name};
pub use rig::expression::{ExpressionCategory, ExpressionDesc, ExpressionPreset, OverrideMode};
pub use rig::{ChannelId, ChannelInfo, MAX_CHANNELS, Rig, RigDesc};
pub use rng::Pcg32;
pub use scene::camera_track::{CameraKey, CameraTrack};
pub use scene::character::{
    CharacterSetup, EyeModeKey, GazeKey, GazeTarget, VoiceLine, is_eye_area,
};
pub use scene::clock::Wait;
pub use scene::event::{KeyLayer, SceneEvent, SceneEvents};
pub use scene::keys::{ExpressionKey, JUMP_BLEND_S, KeyCurve, KeyTrack};
pub use scene::{EYE_CHANGE_LOOKAHEAD_S, Scene, SceneError, SceneSetup};
pub use smoothing::{
    ExpSmoother, LowPassStep, OneEuroConfig, OneEuroFilter, OneEuroQuatFilter, low_pass_step,
    normalize_quat,
};
pub use sources::camera::camera_angle::CameraAngle;
pub use sources::camera::camera_correction::CameraCorrection;
pub use sources::camera::motion_map::{
    FadeDesc, MapCenter, MapRegion, MotionBlend, MotionMap, MotionMapDesc, MotionMapError,
    MotionMapErrorKind, MotionPointDesc,
};
pub use sources::speech::{SpeechConfig, SpeechError, SpeechPlayer, SpeechTrack};
pub use sources::tracking::config::{
    Combine, EmotionRule, EyeMapping, GazeMapping, HeadLimits, LossConfig, MouthMapping,
    RetargetConfig, RetargetError, ShapeSmoothing,
};
pub use sources::tracking::head::{mirror_rotation, split_neck_head};
pub use sources::tracking::input::{Blendshapes, TrackedFace};
pub use sources::tracking::retargeter::{RetargetOutput, Retargeter};
pub use sources::voice_mouth::{MouthPolicy, VoiceFrame, VoiceMouth};
pub use span::Span;
