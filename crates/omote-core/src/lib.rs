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
//! Eyes come alive on their own: each face blinks and makes saccades (see [`eyes::Eyes`],
//! [`eyes::BlinkGenerator`], [`eyes::SaccadeGenerator`]; turned off by [`FaceConfig::raw`]), and reports what started
//! each frame in [`FaceState::events`].
//!
//! The public face: the types an embedder needs are at the root ([`Rig`], [`Face`],
//! [`FaceDriver`], [`Scene`], [`TrackedFace`], [`SpeechTrack`] …); everything else is
//! grouped by concept — [`rig`] (channels, presets, lookAt), [`mix`] (layers),
//! [`eyes`] (blink, saccades, eye modes), [`tracking`] (retargeting), [`speech`] (voice
//! lines, live voice), [`camera`] (camera-angle correction), [`scene`] (dialogue
//! scenes), [`anim`] (the anim format), [`curve`], [`clip`], [`smoothing`].
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

mod bounds;
mod driver;
mod error;
mod face;
mod look_at;
mod rng;
mod sanitize;
mod sources;
mod span;

pub mod anim;
pub mod clip;
pub mod curve;
pub mod eyes;
pub mod mix;
pub mod rig;
pub mod scene;
pub mod smoothing;

/// Tracking: a tracked face (ARKit-52 blendshapes and a head) retargeted onto a rig.
pub mod tracking {
    pub use crate::rig::arkit::{ARKIT_52, arkit_index, arkit_index_any_spelling, is_arkit_name};
    pub use crate::sources::tracking::config::{
        Combine, EmotionRule, EyeMapping, GazeMapping, HeadLimits, LossConfig, MAX_EMOTION_SOURCES,
        MouthMapping, RetargetConfig, RetargetError, ShapeSmoothing,
    };
    pub use crate::sources::tracking::head::{NECK_SHARE, mirror_rotation, split_neck_head};
    pub use crate::sources::tracking::input::{Blendshapes, TrackedFace};
    pub use crate::sources::tracking::retargeter::{RetargetOutput, Retargeter};
}

/// Camera-angle face correction: where the camera sees the face from, the motion map of
/// correction motions over those angles, and its layer.
pub mod camera {
    pub use crate::sources::camera::camera_angle::CameraAngle;
    pub use crate::sources::camera::camera_correction::CameraCorrection;
    pub use crate::sources::camera::motion_map::{
        FadeDesc, MapCenter, MapRegion, MotionBlend, MotionMap, MotionMapDesc, MotionMapError,
        MotionMapErrorKind, MotionPointDesc,
    };
}

/// The mouth's sources: voice lines (start with the voice, hand over before the end,
/// afterglow) and a live voice by a mouth policy.
pub mod speech {
    pub use crate::error::NoSpeech;
    pub use crate::sources::speech::{SpeechConfig, SpeechError, SpeechPlayer, SpeechTrack};
    pub use crate::sources::voice_mouth::{MouthPolicy, VoiceFrame, VoiceMouth};
}

// The root: the types an embedder needs (29 names with `glam`); the rest is grouped in
// the concept modules above (`rig`, `mix`, `eyes`, `tracking`, `speech`, `camera`,
// `scene`, `anim`, `curve`, `clip`, `smoothing`).
pub use anim::Anim;
pub use camera::{CameraCorrection, MotionMap};
pub use driver::FaceDriver;
pub use driver::inputs::{DriverInputs, DriverReport};
pub use eyes::EyeMode;
pub use face::event::{FaceEvent, FaceEvents};
pub use face::{Face, FaceConfig, FaceInputs, FaceState};
pub use glam::{self, Quat, Vec3};
pub use mix::LayerId;
pub use rig::{ChannelId, ExpressionPreset, Rig, RigDesc};
pub use rng::Pcg32;
pub use scene::Scene;
pub use span::Span;
pub use speech::{MouthPolicy, SpeechTrack, VoiceFrame};
pub use tracking::{RetargetConfig, TrackedFace};
