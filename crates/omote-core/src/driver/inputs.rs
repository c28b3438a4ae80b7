//! What drives a face each frame besides its layers, and what the driver reports back.

use glam::{Quat, Vec3};

use crate::sources::camera::camera_angle::CameraAngle;
use crate::sources::tracking::input::TrackedFace;
use crate::sources::voice_mouth::VoiceFrame;

/// One frame's inputs to a [`FaceDriver`](crate::FaceDriver). Everything is optional;
/// `Default` is "nothing new": no tracked face, no voice frame, no camera, head and gaze
/// straight ahead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriverInputs<'a> {
    /// The tracker's face this frame; `None` when the tracker found none (the tracking
    /// layer then fades out after the retargeter's grace period). Ignored by a driver
    /// without tracking.
    pub tracking: Option<&'a TrackedFace>,
    /// This frame's live lip-sync frame; `None` keeps the mouth as the last one left it.
    /// Ignored by a driver without a voice.
    pub voice: Option<VoiceFrame>,
    /// The camera's position relative to the head's centre, in the body frame (VRM: +Y
    /// up, +Z the avatar's front); the driver turns it into the camera angle with this
    /// frame's head. `None` keeps the last correction. Ignored without a camera map.
    pub camera: Option<Vec3>,
    /// The acted head orientation (the tracked head replaces it by the tracking weight).
    pub head: Quat,
    /// The acted gaze yaw in degrees (> 0: toward the avatar's left).
    pub gaze_yaw_deg: f32,
    /// The acted gaze pitch in degrees (> 0: down).
    pub gaze_pitch_deg: f32,
}

impl Default for DriverInputs<'_> {
    fn default() -> Self {
        Self {
            tracking: None,
            voice: None,
            camera: None,
            head: Quat::IDENTITY,
            gaze_yaw_deg: 0.0,
            gaze_pitch_deg: 0.0,
        }
    }
}

/// What the driver's sources did in the last frame (for plots, status lines and logs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DriverReport {
    /// The tracking weight after easing: 1 tracked, 0 fully fallen back (0 without
    /// tracking).
    pub tracking_weight: f32,
    /// Whether this frame had a tracked face.
    pub face_present: bool,
    /// Whether a voice line is speaking (from its voice start to its hand-over) or the
    /// live voice is voiced.
    pub speaking: bool,
    /// The camera angle and the correction's fade factor, when a camera map is on and a
    /// camera position was given at least once.
    pub camera: Option<(CameraAngle, f32)>,
}
