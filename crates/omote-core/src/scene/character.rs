//! One character of a scene: what it is given to play ([`CharacterSetup`]) and its
//! runtime state.

use std::sync::Arc;

use glam::{EulerRot, Quat, Vec3};

use crate::driver::FaceDriver;
use crate::eyes::eye_mode::EyeMode;
use crate::eyes::{EYES_LIMIT_DEG, Gaze};
use crate::rig::expression::{ExpressionCategory, ExpressionPreset};
use crate::rig::{ChannelId, Rig};
use crate::scene::keys::{ExpressionKey, KeyTrack};
use crate::sources::speech::SpeechTrack;

/// Where a character looks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum GazeTarget {
    /// At whoever is speaking now or spoke last (other than itself); before anyone else
    /// spoke, at the nearest other character (ahead when alone). The default.
    #[default]
    Auto,
    /// Straight ahead.
    Forward,
    /// At the scene camera (ahead when the scene has none).
    Camera,
    /// At another character's head (its index).
    Character(usize),
    /// A direction relative to the body: yaw > 0 to the character's left, pitch > 0 down.
    Direction {
        /// Degrees.
        yaw_deg: f32,
        /// Degrees.
        pitch_deg: f32,
    },
    /// A point in the scene's frame (metres, the frame of the characters' positions):
    /// a prop, a door, the player's avatar.
    Point(Vec3),
}

impl GazeTarget {
    /// The target a scene file's `at` names: `auto`, `camera`, `forward`, or a
    /// character's id (`index_of` finds it). `None` when it is none of these.
    pub fn from_name(at: &str, index_of: impl FnOnce(&str) -> Option<usize>) -> Option<Self> {
        match at {
            "auto" => Some(Self::Auto),
            "camera" => Some(Self::Camera),
            "forward" => Some(Self::Forward),
            id => index_of(id).map(Self::Character),
        }
    }
}

/// A character's eye mode as a host sets it over the scene's `eyes` keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EyeModeChoice {
    /// The scene's automatic rule: listening while another character speaks, idle
    /// otherwise.
    Auto,
    /// This mode while the character is not speaking.
    Mode(EyeMode),
}

impl EyeModeChoice {
    /// The choice a scene file's `mode` names: `auto` or a mode's name (`idle`,
    /// `talking`, `listening`, `focused`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            m => EyeMode::from_name(m).map(Self::Mode),
        }
    }

    /// As an eye-mode key holds it: `None` for automatic.
    pub fn keyed(self) -> Option<EyeMode> {
        match self {
            Self::Auto => None,
            Self::Mode(m) => Some(m),
        }
    }
}

/// From time `t` on, look at `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GazeKey {
    /// Scene time in seconds.
    pub t: f32,
    /// The target.
    pub target: GazeTarget,
}

/// From time `t` on, the eyes behave as `mode` when the character is not speaking
/// (`None`: automatic — listening while another character speaks, idle otherwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EyeModeKey {
    /// Scene time in seconds.
    pub t: f32,
    /// The mode, or `None` for automatic.
    pub mode: Option<EyeMode>,
}

/// A voice line of a character.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceLine {
    /// Scene time the clip starts, in seconds.
    pub t: f32,
    /// Its lip sync.
    pub track: Arc<SpeechTrack>,
    /// The additive afterglow mouth that ramps in as it ends (channel, value).
    pub afterglow: Vec<(ChannelId, f32)>,
    /// How long the afterglow takes to ramp in (s).
    pub afterglow_ramp_s: f32,
    /// How long it stays at full once the line has ended (s; `f32::INFINITY`: until the
    /// character's next line).
    pub afterglow_hold_s: f32,
    /// Then how long it takes to release to 0 (s).
    pub afterglow_release_s: f32,
    /// The expression the acting moves to at the line's hand-over (channel, weight);
    /// the scene turns these into acting keys.
    pub then: Vec<(ChannelId, f32)>,
}

/// Everything one character is given to play.
#[derive(Clone, Debug)]
pub struct CharacterSetup {
    /// Its id (in errors and reports).
    pub id: String,
    /// Its face and sources. The scene adds voice lines (default timing) if it has none.
    pub driver: FaceDriver,
    /// Head position in scene space (metres, +Y up).
    pub position: Vec3,
    /// Which way the body faces: degrees about +Y from +Z (the VRM front).
    pub facing_deg: f32,
    /// The acting keys (base layer).
    pub acting: Vec<ExpressionKey>,
    /// The picture-making keys (additive layer).
    pub picture: Vec<ExpressionKey>,
    /// Voice lines, in any order; they must not overlap.
    pub lines: Vec<VoiceLine>,
    /// Gaze keys.
    pub gaze: Vec<GazeKey>,
    /// Eye mode keys.
    pub eye_modes: Vec<EyeModeKey>,
    /// The share of a gaze turn the head takes (0: eyes only, 1: head only).
    pub head_share: f32,
}

impl CharacterSetup {
    /// A character with nothing to play yet, at `position`, facing +Z, the head taking
    /// 30 % of gaze turns.
    pub fn new(id: impl Into<String>, driver: FaceDriver, position: Vec3) -> Self {
        Self {
            id: id.into(),
            driver,
            position,
            facing_deg: 0.0,
            acting: Vec::new(),
            picture: Vec::new(),
            lines: Vec::new(),
            gaze: Vec::new(),
            eye_modes: Vec::new(),
            head_share: 0.3,
        }
    }
}

/// Whether changing `channel` changes the eye area (so blinks keep clear of it): the
/// blink and emotion presets, anything that closes the eyes or overrides the blink, and
/// the ARKit eye (not eyeLook), brow and cheek-squint shapes.
///
/// ```
/// use omote_core::{Rig, scene::is_eye_area};
/// let rig = Rig::standard();
/// assert!(is_eye_area(&rig, rig.channel("surprised").unwrap()));
/// assert!(is_eye_area(&rig, rig.channel("browInnerUp").unwrap()));
/// assert!(!is_eye_area(&rig, rig.channel("aa").unwrap()));
/// assert!(!is_eye_area(&rig, rig.channel("eyeLookInLeft").unwrap()));
/// ```
pub fn is_eye_area(rig: &Rig, channel: ChannelId) -> bool {
    let info = rig.info(channel);
    let name = info.desc.name.as_str();
    let emotion = info
        .preset
        .is_some_and(|p| ExpressionPreset::EMOTIONS.contains(&p) || p == ExpressionPreset::Neutral);
    info.category() == Some(ExpressionCategory::Blink)
        || emotion
        || info.desc.eye_closure > 0.0
        || info.desc.override_blink != crate::rig::expression::OverrideMode::None
        || (name.starts_with("eye") && !name.starts_with("eyeLook"))
        || name.starts_with("brow")
        || name.starts_with("cheekSquint")
}

/// A character at run time.
#[derive(Clone, Debug)]
pub(crate) struct Character {
    pub id: String,
    pub driver: FaceDriver,
    pub position: Vec3,
    /// Body rotation (scene ← body) …
    pub facing: Quat,
    /// … as degrees about +Y.
    pub facing_deg: f32,
    pub acting: KeyTrack,
    pub picture: KeyTrack,
    pub lines: Box<[VoiceLine]>,
    /// The next line to start.
    pub next_line: usize,
    /// The last line started.
    pub current: Option<usize>,
    pub gaze: Box<[GazeKey]>,
    pub eye_modes: Box<[EyeModeKey]>,
    /// Eye-area changes (start, end) in scene time, sorted by start.
    pub eye_spans: Box<[(f32, f32)]>,
    /// The next eye-area change not yet announced.
    pub next_announce: usize,
    pub head_share: f32,
    /// The gaze the scene moves: head turn and eyes-in-head, see [`GazeMotion`].
    pub gaze_motion: GazeMotion,
    /// The other character who spoke last (automatic gaze looks there).
    pub partner: Option<usize>,
    /// The host's gaze target, over the gaze keys while set.
    pub host_gaze: Option<GazeTarget>,
    /// The host's eye mode (`Some(None)`: automatic), over the eye-mode keys while set.
    pub host_eye_mode: Option<Option<EyeMode>>,
    /// The gaze's yaw the last frame aimed at (degrees, clamped): the side a target
    /// behind is looked at over.
    pub gaze_yaw_deg: f32,
    /// How long a mouth cut by a skip takes to settle into the acting (the hand-over
    /// blend).
    pub cut_settle_s: f32,
}

/// Eyes lead, the head follows: the scene moves a character's gaze itself (the face's
/// own input filters are off). The eyes reach a new target in about 0.1 s (a saccade
/// takes 25 ms + 2.4 ms/°); the head turns its share critically damped, settling in about
/// 0.4 s, while the eyes counter-rotate to stay on target. Exact for any frame rate.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GazeMotion {
    started: bool,
    head: [f32; 2],
    head_velocity: [f32; 2],
    eyes: [f32; 2],
    quat: Quat,
    quat_for: [f32; 2],
}

/// The head's spring rate (1/s): settles in about 0.4 s.
pub(crate) const HEAD_OMEGA: f32 = 12.0;
/// The eyes' time constant (s).
pub(crate) const EYES_TAU: f32 = 0.03;

/// Per-frame factors shared by every character (one `exp` each per frame).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GazeStep {
    dt: f32,
    head_decay: f32,
    eyes_decay: f32,
}

impl GazeStep {
    pub fn new(dt: f32) -> Self {
        Self {
            dt,
            head_decay: (-HEAD_OMEGA * dt).exp(),
            eyes_decay: (-dt / EYES_TAU).exp(),
        }
    }
}

impl GazeMotion {
    /// Moves toward a total gaze of (yaw, pitch) degrees, the head taking `share`;
    /// returns the head rotation and the eyes-in-head (yaw, pitch).
    pub fn update(&mut self, target: [f32; 2], share: f32, step: &GazeStep) -> (Quat, f32, f32) {
        let head_part = |total: f32| {
            let by_share = total * share;
            let needed = total.abs() - EYES_LIMIT_DEG;
            if needed > by_share.abs() {
                needed.copysign(total)
            } else {
                by_share
            }
        };
        let head_target = [head_part(target[0]), head_part(target[1])];
        if !self.started {
            self.started = true;
            self.head = head_target;
            self.eyes = [
                (target[0] - head_target[0]).clamp(-EYES_LIMIT_DEG, EYES_LIMIT_DEG),
                (target[1] - head_target[1]).clamp(-EYES_LIMIT_DEG, EYES_LIMIT_DEG),
            ];
        } else if step.dt > 0.0 {
            let (w, dt) = (HEAD_OMEGA, step.dt);
            for k in 0..2 {
                let x = self.head[k] - head_target[k];
                let v = self.head_velocity[k];
                let c = (v + w * x) * dt;
                self.head[k] = head_target[k] + (x + c) * step.head_decay;
                self.head_velocity[k] = (v - w * c) * step.head_decay;
                // The eyes jump as far as they can; the head carries the rest.
                let eye_target = (target[k] - self.head[k]).clamp(-EYES_LIMIT_DEG, EYES_LIMIT_DEG);
                self.eyes[k] = eye_target + (self.eyes[k] - eye_target) * step.eyes_decay;
            }
        }
        // The default quaternion is the identity, the turn of the default (0, 0) head.
        if self.quat_for != self.head {
            self.quat = Quat::from_euler(
                EulerRot::YXZ,
                self.head[0].to_radians(),
                self.head[1].to_radians(),
                0.0,
            );
            self.quat_for = self.head;
        }
        (self.quat, self.eyes[0], self.eyes[1])
    }
}

impl Character {
    /// Whether the last line started is still within its clip at scene time `t`.
    pub fn playing_until(&self, t: f32) -> Option<f32> {
        let line = &self.lines[self.current?];
        let end = line.t + line.track.duration();
        (t < end).then_some(end)
    }

    /// The gaze key in force at scene time `t`.
    pub fn gaze_at(&self, t: f32) -> GazeTarget {
        let i = self.gaze.partition_point(|k| k.t <= t);
        if i == 0 {
            GazeTarget::Auto
        } else {
            self.gaze[i - 1].target
        }
    }

    /// The eye mode key in force at scene time `t` (`None`: automatic).
    pub fn eye_mode_at(&self, t: f32) -> Option<EyeMode> {
        let i = self.eye_modes.partition_point(|k| k.t <= t);
        if i == 0 {
            None
        } else {
            self.eye_modes[i - 1].mode
        }
    }

    /// Yaw and pitch (degrees, body frame) from this character's head toward `target`.
    pub fn angles_toward(&self, target: Vec3) -> Gaze {
        Gaze::toward(self.facing.inverse() * (target - self.position))
    }
}
