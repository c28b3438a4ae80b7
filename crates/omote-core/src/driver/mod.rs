//! `FaceDriver`: one character's face and the sources that drive it, advanced in one
//! fixed order every frame. Whoever drives a face — a tracker, a live voice, voice
//! lines, a camera, a scene timeline, an engine — goes through this type, so the order
//! and the filter policy live in exactly one place.
//!
//! The frame, in order ([`FaceDriver::update`]):
//! 1. **tracking** — the retargeter maps the tracked face into the face's
//!    [`Face::TRACKING`] layer (masked to the channels it writes) and sets that layer's
//!    weight to the tracking weight; a lost face fades tracking out and the acting on
//!    [`Face::BASE`] shows again;
//! 2. **mouth** — a playing voice line ([`FaceDriver::say`]) owns the [`Face::MOUTH`]
//!    layer and its afterglow layer; otherwise the live voice frame is written there by
//!    the [`MouthPolicy`];
//! 3. **eye mode** — talking while a line speaks or the live voice is voiced, else the
//!    mode set with [`FaceDriver::set_eye_mode`];
//! 4. **head and gaze** — the acted head and gaze, replaced by the tracked ones by the
//!    tracking weight; the automatic blink and saccades show by `1 − tracking weight`;
//! 5. **camera** — the camera position, seen from that head, picks the blend of
//!    correction motions written into the camera layer (additive);
//! 6. **face** — layers → mixer → blink and saccades → VRM override rules → clamp
//!    ([`Face::update`]).
//!
//! Filter policy: the retargeter filters the tracked head and gaze itself, so a driver
//! with tracking turns the face's own head and gaze filters off (acted inputs are
//! authored curves and need none); without tracking the face's filters stay as
//! configured.

pub(crate) mod inputs;

use std::sync::Arc;

use glam::Vec3;

use crate::driver::inputs::{DriverInputs, DriverReport};
use crate::error::NoSpeech;
use crate::eyes::eye_mode::EyeMode;
use crate::face::{Face, FaceConfig, FaceInputs, FaceState};
use crate::mix::layer::{BlendMode, LayerId};
use crate::rig::{ChannelId, Rig};
use crate::sanitize::positive_or_zero;
use crate::sources::camera::camera_angle::CameraAngle;
use crate::sources::camera::camera_correction::CameraCorrection;
use crate::sources::speech::{SpeechConfig, SpeechPlayer, SpeechTrack};
use crate::sources::tracking::config::{RetargetConfig, RetargetError};
use crate::sources::tracking::retargeter::Retargeter;
use crate::sources::voice_mouth::{MouthPolicy, VoiceMouth};

/// Voice lines and the additive layer their afterglow goes into.
#[derive(Clone, Debug)]
struct Speech {
    player: SpeechPlayer,
    afterglow: LayerId,
}

/// A camera map and the additive layer its corrections go into.
#[derive(Clone, Debug)]
struct Camera {
    correction: CameraCorrection,
    layer: LayerId,
}

/// One character: a [`Face`] and its optional sources, updated in one fixed order (see
/// the module docs). Build it once; `update` allocates nothing.
///
/// ```
/// use std::sync::Arc;
/// use omote_core::{DriverInputs, FaceConfig, FaceDriver, RetargetConfig, Rig, TrackedFace};
/// let rig = Arc::new(Rig::standard());
/// let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 7)
///     .with_tracking(RetargetConfig::default())
///     .unwrap();
/// let relaxed = rig.channel("relaxed").unwrap();
/// driver.acting_mut().set(relaxed, 0.5); // the acting layer: tracking never writes it
/// let mut smile = TrackedFace::default();
/// smile.blendshapes.set("mouthSmileLeft", 0.9);
/// smile.blendshapes.set("mouthSmileRight", 0.9);
/// let seen = DriverInputs { tracking: Some(&smile), ..Default::default() };
/// for _ in 0..60 {
///     driver.update(1.0 / 60.0, &seen);
/// }
/// assert!(driver.state().weight(rig.channel("happy").unwrap()) > 0.9);
/// // The face is lost: tracking fades out, the acting stays.
/// for _ in 0..120 {
///     driver.update(1.0 / 60.0, &DriverInputs::default());
/// }
/// assert_eq!(driver.report().tracking_weight, 0.0);
/// assert_eq!(driver.state().weight(relaxed), 0.5);
/// ```
#[derive(Clone, Debug)]
pub struct FaceDriver {
    face: Face,
    tracking: Option<Retargeter>,
    speech: Option<Speech>,
    voice: Option<VoiceMouth>,
    camera: Option<Camera>,
    rest_mode: EyeMode,
    report: DriverReport,
}

impl FaceDriver {
    /// A driver for a new face on `rig` (see [`Face::new`]) with no sources yet.
    pub fn new(rig: Arc<Rig>, config: FaceConfig, seed: u64) -> Self {
        Self::from_face(Face::new(rig, config, seed))
    }

    /// A driver around an existing face.
    pub fn from_face(face: Face) -> Self {
        let rest_mode = face.eye_mode();
        Self {
            face,
            tracking: None,
            speech: None,
            voice: None,
            camera: None,
            rest_mode,
            report: DriverReport::default(),
        }
    }

    /// Adds tracking: a retargeter writing the tracking layer. Turns the face's own head
    /// and gaze filters off (the retargeter filters the tracked signals).
    pub fn with_tracking(mut self, config: RetargetConfig) -> Result<Self, RetargetError> {
        let retargeter = Retargeter::new(self.face.rig(), config)?;
        let rig = self.face.rig().clone();
        let layer = self.face.layer_mut(Face::TRACKING);
        for (c, _) in rig.channels() {
            layer.set_mask(c, 0.0);
        }
        for c in retargeter.channels() {
            layer.set_mask(c, 1.0);
        }
        self.face.set_input_filters(None, None);
        self.tracking = Some(retargeter);
        Ok(self)
    }

    /// Adds a live voice on the mouth layer, shown by `policy`.
    pub fn with_voice(mut self, policy: MouthPolicy) -> Self {
        self.voice = Some(VoiceMouth::new(self.face.rig(), policy));
        self
    }

    /// Adds voice lines ([`FaceDriver::say`]) with their timing, and an additive
    /// afterglow layer.
    pub fn with_speech(mut self, config: SpeechConfig) -> Self {
        let player = SpeechPlayer::new(self.face.rig(), config);
        let afterglow = self.face.add_layer("afterglow", BlendMode::Additive);
        self.speech = Some(Speech { player, afterglow });
        self
    }

    /// Takes the camera-angle correction off the face until the next camera position:
    /// without one the last correction stays (a camera that holds still sends none), so
    /// a host whose camera is gone for good says so here.
    pub fn clear_camera_correction(&mut self) {
        if let Some(cam) = self.camera.as_ref() {
            self.face.layer_mut(cam.layer).clear();
            self.report.camera = None;
        }
    }

    /// Adds camera-angle face correction, in an additive layer of its own.
    pub fn with_camera(mut self, correction: CameraCorrection) -> Self {
        let layer = self
            .face
            .add_layer("camera correction", BlendMode::Additive);
        self.camera = Some(Camera { correction, layer });
        self
    }

    /// The rig.
    pub fn rig(&self) -> &Arc<Rig> {
        self.face.rig()
    }

    /// The face (layers, eyes, last state).
    pub fn face(&self) -> &Face {
        &self.face
    }

    /// The face, to write layers, request blinks or announce eye-area changes. Writing
    /// the layers the driver's sources own (tracking, mouth while a source drives it,
    /// afterglow, camera) is overwritten on the next update.
    pub fn face_mut(&mut self) -> &mut Face {
        &mut self.face
    }

    /// The acting layer ([`Face::BASE`]): what the character is asked to do. No source
    /// of the driver writes it.
    pub fn acting_mut(&mut self) -> &mut crate::mix::layer::Layer {
        self.face.layer_mut(Face::BASE)
    }

    /// The picture-making layer ([`Face::ADDITIVE`]), added on top of everything.
    pub fn picture_mut(&mut self) -> &mut crate::mix::layer::Layer {
        self.face.layer_mut(Face::ADDITIVE)
    }

    /// Whether tracking is on ([`FaceDriver::with_tracking`]).
    pub fn has_tracking(&self) -> bool {
        self.tracking.is_some()
    }

    /// The retargeter, if tracking is on (its settings).
    pub fn retargeter(&self) -> Option<&Retargeter> {
        self.tracking.as_ref()
    }

    /// The retargeter, if tracking is on (to calibrate the neutral pose).
    pub fn retargeter_mut(&mut self) -> Option<&mut Retargeter> {
        self.tracking.as_mut()
    }

    /// The speech player, if voice lines are on.
    pub fn speech(&self) -> Option<&SpeechPlayer> {
        self.speech.as_ref().map(|s| &s.player)
    }

    /// Starts a voice line now (see [`SpeechPlayer::say`]); `afterglow` is the additive
    /// mouth that ramps in as it ends. [`NoSpeech`] if the driver has no speech.
    pub fn say(
        &mut self,
        track: Arc<SpeechTrack>,
        afterglow: &[(ChannelId, f32)],
    ) -> Result<(), NoSpeech> {
        let s = self.speech.as_mut().ok_or(NoSpeech)?;
        s.player.say(track, afterglow);
        Ok(())
    }

    /// Starts a voice line with its own afterglow ramp, `elapsed` seconds into it (see
    /// [`SpeechPlayer::say_at`]). [`NoSpeech`] if the driver has no speech.
    pub fn say_at(
        &mut self,
        track: Arc<SpeechTrack>,
        afterglow: &[(ChannelId, f32)],
        afterglow_ramp_s: f32,
        elapsed: f32,
    ) -> Result<(), NoSpeech> {
        let s = self.speech.as_mut().ok_or(NoSpeech)?;
        s.player.say_at(track, afterglow, afterglow_ramp_s, elapsed);
        Ok(())
    }

    /// Cuts the current voice line without a snap (a skipped line): the mouth hands over
    /// to the acting's mouth from now, over the hand-over time (see [`SpeechPlayer::cut`]).
    pub fn cut_speech(&mut self) {
        if let Some(s) = self.speech.as_mut() {
            s.player.cut();
        }
    }

    /// How long a line's afterglow stays at full after the line ends, and its release
    /// (see [`SpeechPlayer::set_afterglow_timing`]). Nothing without speech.
    pub fn set_afterglow_timing(&mut self, hold_s: f32, release_s: f32) {
        if let Some(s) = self.speech.as_mut() {
            s.player.set_afterglow_timing(hold_s, release_s);
        }
    }

    /// Releases the afterglow showing now over `release_s` seconds (see
    /// [`SpeechPlayer::clear_afterglow`]). Nothing without speech.
    pub fn clear_afterglow(&mut self, release_s: f32) {
        if let Some(s) = self.speech.as_mut() {
            s.player.clear_afterglow(release_s);
        }
    }

    /// Stops the current voice line at once: the mouth layer lets go this frame and
    /// the acting's mouth shows (a hard stop; [`cut_speech`](Self::cut_speech) settles).
    pub fn stop_speech(&mut self) {
        if let Some(s) = self.speech.as_mut() {
            s.player.stop(self.face.layer_mut(Face::MOUTH));
        }
    }

    /// The eye mode when nobody is speaking (talking eyes are automatic while a line
    /// speaks or the live voice is voiced).
    pub fn set_eye_mode(&mut self, mode: EyeMode) {
        self.rest_mode = mode;
    }

    /// What the sources did in the last frame.
    pub fn report(&self) -> DriverReport {
        self.report
    }

    /// The last output.
    pub fn state(&self) -> &FaceState {
        self.face.state()
    }

    /// Advances everything by `dt` seconds in the fixed order and returns the frame.
    /// Allocates nothing.
    pub fn update(&mut self, dt: f32, inputs: &DriverInputs) -> &FaceState {
        let dt = positive_or_zero(dt);
        // 1. Tracking → the tracking layer.
        let (w, tracked) = match self.tracking.as_mut() {
            Some(rt) => {
                let out = rt.update(dt, inputs.tracking, self.face.layer_mut(Face::TRACKING));
                self.report.face_present = out.face_present;
                (out.tracking_weight, Some(out))
            }
            None => {
                self.report.face_present = false;
                (0.0, None)
            }
        };
        self.report.tracking_weight = w;
        // 2. Mouth: a voice line while one plays, else the live voice.
        let mut line_playing = false;
        let mut speaking = false;
        if let Some(s) = self.speech.as_mut() {
            line_playing = s.player.time().is_some();
            // Without a line this leaves the mouth alone and moves a held afterglow.
            s.player.advance(dt, self.face.layer_mut(Face::MOUTH));
            s.player.apply_afterglow(self.face.layer_mut(s.afterglow));
            speaking = s.player.is_speaking();
        }
        if let Some(v) = self.voice.as_mut()
            && !line_playing
        {
            if let Some(frame) = inputs.voice {
                v.apply(&frame, self.face.layer_mut(Face::MOUTH));
            }
            speaking |= v.is_voiced() && v.policy() != MouthPolicy::Tracking;
        }
        self.report.speaking = speaking;
        // 3. Eye mode.
        let mode = if speaking {
            EyeMode::Talking
        } else {
            self.rest_mode
        };
        if self.face.eye_mode() != mode {
            self.face.set_eye_mode(mode);
        }
        // 4. Head and gaze: acting, replaced by tracking by its weight.
        let (head, yaw, pitch) = match tracked {
            Some(t) => (
                inputs.head.slerp(t.head, w),
                lerp(inputs.gaze_yaw_deg, t.gaze_yaw_deg, w),
                lerp(inputs.gaze_pitch_deg, t.gaze_pitch_deg, w),
            ),
            None => (inputs.head, inputs.gaze_yaw_deg, inputs.gaze_pitch_deg),
        };
        self.face.set_procedural_eyes(1.0 - w);
        // 5. Camera correction, seen from this frame's head.
        if let Some(cam) = self.camera.as_mut() {
            cam.correction.update(dt);
            if let Some(pos) = inputs.camera.filter(|p| p.is_finite()) {
                let angle = CameraAngle::from_head(pos, Vec3::ZERO, head);
                let fade = cam
                    .correction
                    .apply_into(angle, self.face.layer_mut(cam.layer));
                // Without a new position the last correction (and its report) stays.
                self.report.camera = Some((angle, fade as f32));
            }
        }
        // 6. The face.
        let face_inputs = FaceInputs {
            head,
            gaze_yaw_deg: yaw,
            gaze_pitch_deg: pitch,
        };
        self.face.update(dt, &face_inputs)
    }
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}
