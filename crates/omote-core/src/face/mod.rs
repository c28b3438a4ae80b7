//! `Face`: one character's runtime. Layers → mixer → gaze → VRM overrides → output.

pub(crate) mod event;

use std::sync::Arc;

use glam::Quat;
use serde::{Deserialize, Serialize};

use crate::error::EyeRequestError;
use crate::eyes::Eyes;
use crate::eyes::blink::BlinkConfig;
use crate::eyes::eye_mode::EyeMode;
use crate::eyes::saccade::SaccadeConfig;
use crate::face::event::FaceEvents;
use crate::look_at::{EyeAngles, LookAtType};
use crate::mix::layer::{BlendMode, Layer, LayerId, Mixer};
use crate::mix::overrides::{OverrideMultipliers, apply_overrides_clamped, clamp_weights};
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};
use crate::rng::Pcg32;
use crate::sanitize::{finite_or_zero, positive_or_zero};
use crate::smoothing::{LowPassStep, OneEuroConfig, OneEuroFilter, OneEuroQuatFilter};

/// Per-character settings. Defaults are sensible for a 30–144 fps game or avatar app.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct FaceConfig {
    /// One Euro filter on the head rotation input; `None` passes it through.
    pub head_filter: Option<OneEuroConfig>,
    /// One Euro filter on the gaze yaw/pitch input (degrees); `None` passes it through.
    pub gaze_filter: Option<OneEuroConfig>,
    /// Half-life (s) of smoothing on the mixed expression weights; 0 disables it.
    pub expression_half_life: f32,
    /// Automatic blink (see [`crate::eyes::blink`]); `None` turns it off.
    pub blink: Option<BlinkConfig>,
    /// Automatic saccades (see [`crate::eyes::saccade`]); `None` turns them off.
    pub saccade: Option<SaccadeConfig>,
}

impl Default for FaceConfig {
    fn default() -> Self {
        Self {
            head_filter: Some(OneEuroConfig {
                min_cutoff: 2.0,
                beta: 0.01,
                derivative_cutoff: 1.0,
            }),
            gaze_filter: Some(OneEuroConfig {
                min_cutoff: 3.0,
                beta: 0.05,
                derivative_cutoff: 1.0,
            }),
            expression_half_life: 0.0,
            blink: Some(BlinkConfig::default()),
            saccade: Some(SaccadeConfig::default()),
        }
    }
}

impl FaceConfig {
    /// No smoothing anywhere and no automatic blink or saccades: output follows input
    /// exactly.
    pub const fn raw() -> Self {
        Self {
            head_filter: None,
            gaze_filter: None,
            expression_half_life: 0.0,
            blink: None,
            saccade: None,
        }
    }
}

/// What drives a face this frame besides its layers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceInputs {
    /// Head orientation relative to the body (VRM frame: +Y up, +Z forward).
    pub head: Quat,
    /// Gaze target yaw in degrees (> 0: toward the avatar's left).
    pub gaze_yaw_deg: f32,
    /// Gaze target pitch in degrees (> 0: down).
    pub gaze_pitch_deg: f32,
}

impl Default for FaceInputs {
    fn default() -> Self {
        Self {
            head: Quat::IDENTITY,
            gaze_yaw_deg: 0.0,
            gaze_pitch_deg: 0.0,
        }
    }
}

/// A face's output for one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FaceState {
    /// Final expression weights in [0, 1], one per rig channel (index by [`ChannelId`]),
    /// after the VRM 1.0 override rules: what the face shows. For consumers that apply
    /// no override rules of their own: plots, readouts, a VRM 0.x receiver (0.x has no
    /// overrides), an engine that sets blend shapes directly.
    pub expressions: Box<[f32]>,
    /// The same channels *before* the override rules: the mixed weights after layers,
    /// smoothing, automatic blink and look* expression gaze, clamped to [0, 1] (NaN → 0).
    /// What a VRM 1.0 player takes as input, since it applies the override rules itself:
    /// a VRMA file, a VRM 1.0 VMC receiver. Feeding it [`expressions`](Self::expressions)
    /// instead would apply `blend` overrides twice.
    pub input_expressions: Box<[f32]>,
    /// Head orientation (smoothed).
    pub head: Quat,
    /// Left eye bone rotation relative to its rest pose (identity for expression gaze).
    pub left_eye: Quat,
    /// Right eye bone rotation relative to its rest pose.
    pub right_eye: Quat,
    /// Gaze yaw in degrees after smoothing and the lookAt override multiplier.
    pub look_at_yaw_deg: f32,
    /// Gaze pitch in degrees after smoothing and the lookAt override multiplier.
    pub look_at_pitch_deg: f32,
    /// Gaze yaw in degrees *before* the lookAt override multiplier: what a VRM 1.0 player
    /// takes as input (a VRMA's lookAt node), since it applies the override itself.
    pub input_look_at_yaw_deg: f32,
    /// Gaze pitch in degrees before the lookAt override multiplier.
    pub input_look_at_pitch_deg: f32,
    /// The override multipliers of this frame.
    pub multipliers: OverrideMultipliers,
    /// Seconds since the face was created (sum of `dt`).
    pub time: f64,
    /// What started during this frame (blinks, saccades).
    pub events: FaceEvents,
}

impl FaceState {
    /// The weight of one channel (after the override rules: what the face shows).
    pub fn weight(&self, channel: ChannelId) -> f32 {
        self.expressions[channel.index()]
    }

    /// The weight of one channel before the override rules (a VRM player's input).
    pub fn input_weight(&self, channel: ChannelId) -> f32 {
        self.input_expressions[channel.index()]
    }

    /// What started during this frame (blinks, saccades), in order.
    pub fn events(&self) -> &FaceEvents {
        &self.events
    }
}

/// One character's face runtime.
///
/// ```
/// use std::sync::Arc;
/// use omote_core::{Face, FaceConfig, FaceInputs, Rig};
/// let rig = Arc::new(Rig::standard());
/// let mut face = Face::new(rig.clone(), FaceConfig::raw(), 42);
/// let happy = rig.channel("happy").unwrap();
/// face.layer_mut(Face::BASE).set(happy, 0.8);
/// let state = face.update(1.0 / 60.0, &FaceInputs::default());
/// assert_eq!(state.weight(happy), 0.8);
/// ```
#[derive(Clone, Debug)]
pub struct Face {
    rig: Arc<Rig>,
    config: FaceConfig,
    mixer: Mixer,
    raw: Box<[f32]>,
    prev_raw: Box<[f32]>,
    smoothed: Box<[f32]>,
    head_filter: OneEuroQuatFilter,
    yaw_filter: OneEuroFilter,
    pitch_filter: OneEuroFilter,
    look: [Option<ChannelId>; 4],
    frames: u64,
    state: FaceState,
    eyes: Eyes,
    body_gaze: BodyGaze,
}

impl Face {
    /// The base acting layer (override, all channels): timelines, scene keys, an
    /// engine's animation. Nothing automatic writes here.
    pub const BASE: LayerId = LayerId(0);
    /// The tracking layer (override): a face tracker's mapped channels, weighted by the
    /// tracking weight, so a lost face fades out to the acting below
    /// ([`FaceDriver`](crate::FaceDriver) masks it to the channels its retargeter writes).
    pub const TRACKING: LayerId = LayerId(1);
    /// The mouth layer (override, masked to aa ih ou ee oh): lip sync writes here.
    pub const MOUTH: LayerId = LayerId(2);
    /// The eyes layer (override, masked to blink blinkLeft blinkRight).
    pub const EYES: LayerId = LayerId(3);
    /// The additive picture-making layer (all channels).
    pub const ADDITIVE: LayerId = LayerId(4);

    /// A face for `rig` with its own RNG seeded by `seed`.
    pub fn new(rig: Arc<Rig>, config: FaceConfig, seed: u64) -> Self {
        let n = rig.len();
        let present =
            |ps: &[Option<ChannelId>]| -> Vec<ChannelId> { ps.iter().flatten().copied().collect() };
        let mut mixer = Mixer::new();
        mixer.push(Layer::new("base", BlendMode::Override, n));
        mixer.push(Layer::new("tracking", BlendMode::Override, n));
        mixer.push(
            Layer::new("mouth", BlendMode::Override, n)
                .masked_to(&present(&rig.presets(ExpressionPreset::VOWELS))),
        );
        mixer.push(
            Layer::new("eyes", BlendMode::Override, n)
                .masked_to(&present(&rig.presets(ExpressionPreset::BLINKS))),
        );
        mixer.push(Layer::new("additive", BlendMode::Additive, n));
        // Start silent: only the base layer is on until someone writes elsewhere.
        for id in [Self::TRACKING, Self::MOUTH, Self::EYES] {
            mixer.layer_mut(id).set_weight(0.0);
        }
        let look = rig.presets(ExpressionPreset::LOOKS);
        let one_euro = |c: Option<OneEuroConfig>| OneEuroFilter::new(c.unwrap_or(PASS_THROUGH));
        // The eyes' generators draw their own streams from the seed's, once.
        let eyes = Eyes::new(
            &rig,
            config.blink.as_ref(),
            config.saccade.as_ref(),
            &mut Pcg32::new(seed),
        );
        Self {
            raw: vec![0.0; n].into_boxed_slice(),
            prev_raw: vec![0.0; n].into_boxed_slice(),
            smoothed: vec![0.0; n].into_boxed_slice(),
            head_filter: OneEuroQuatFilter::new(config.head_filter.unwrap_or(PASS_THROUGH)),
            yaw_filter: one_euro(config.gaze_filter),
            pitch_filter: one_euro(config.gaze_filter),
            look,
            frames: 0,
            state: FaceState {
                expressions: vec![0.0; n].into_boxed_slice(),
                input_expressions: vec![0.0; n].into_boxed_slice(),
                head: Quat::IDENTITY,
                left_eye: Quat::IDENTITY,
                right_eye: Quat::IDENTITY,
                look_at_yaw_deg: 0.0,
                look_at_pitch_deg: 0.0,
                input_look_at_yaw_deg: 0.0,
                input_look_at_pitch_deg: 0.0,
                multipliers: OverrideMultipliers::default(),
                time: 0.0,
                events: FaceEvents::new(),
            },
            mixer,
            rig,
            config,
            eyes,
            body_gaze: BodyGaze::default(),
        }
    }

    /// Replaces the One Euro filters on the head and gaze inputs (`None` passes the
    /// input through); [`FaceDriver`](crate::FaceDriver) turns them off when a
    /// retargeter already filters the tracked signals.
    pub fn set_input_filters(&mut self, head: Option<OneEuroConfig>, gaze: Option<OneEuroConfig>) {
        self.config.head_filter = head;
        self.config.gaze_filter = gaze;
        self.head_filter = OneEuroQuatFilter::new(head.unwrap_or(PASS_THROUGH));
        self.yaw_filter = OneEuroFilter::new(gaze.unwrap_or(PASS_THROUGH));
        self.pitch_filter = OneEuroFilter::new(gaze.unwrap_or(PASS_THROUGH));
    }

    /// The rig.
    pub fn rig(&self) -> &Arc<Rig> {
        &self.rig
    }

    /// The settings.
    pub fn config(&self) -> &FaceConfig {
        &self.config
    }

    /// Add a layer on top of the stack (setup time, allocates).
    pub fn add_layer(&mut self, name: impl Into<String>, mode: BlendMode) -> LayerId {
        self.mixer.push(Layer::new(name, mode, self.rig.len()))
    }

    /// A layer to write into.
    pub fn layer_mut(&mut self, id: LayerId) -> &mut Layer {
        self.mixer.layer_mut(id)
    }

    /// A layer.
    pub fn layer(&self, id: LayerId) -> &Layer {
        self.mixer.layer(id)
    }

    /// All layers.
    pub fn mixer(&self) -> &Mixer {
        &self.mixer
    }

    /// The last output.
    pub fn state(&self) -> &FaceState {
        &self.state
    }

    /// The last output weight of a channel by name.
    pub fn weight(&self, name: &str) -> Option<f32> {
        self.rig.channel(name).map(|c| self.state.weight(c))
    }

    /// Advance by `dt` seconds and compute the frame. Allocates nothing.
    pub fn update(&mut self, dt: f32, inputs: &FaceInputs) -> &FaceState {
        let dt = positive_or_zero(dt);
        self.state.events.clear();
        self.mixer.advance(dt);
        let yaw = self
            .yaw_filter
            .update(finite_or_zero(inputs.gaze_yaw_deg), dt);
        let pitch = self
            .pitch_filter
            .update(finite_or_zero(inputs.gaze_pitch_deg), dt);
        let look_at = *self.rig.look_at();
        let smoothing = self.config.expression_half_life > 0.0;
        if smoothing {
            self.mixer.mix_into(&mut self.raw);
            self.smooth_expressions(dt);
            self.state.expressions.copy_from_slice(&self.smoothed);
        } else {
            // No smoothing: mix straight into the output, no copies.
            self.mixer.mix_into(&mut self.state.expressions);
        }
        let out = &mut self.state.expressions;
        // Automatic blink into `out` (before the override pass) and saccade gaze offset.
        // A gaze shift is the eyes' and the head's together: a glance the head turns
        // most of is as large a shift as one of the eyes alone.
        let gaze = self
            .body_gaze
            .of(inputs.head, inputs.gaze_yaw_deg, inputs.gaze_pitch_deg);
        let (saccade_yaw, saccade_pitch) = self.eyes.update(
            dt,
            gaze,
            (yaw, pitch),
            out,
            self.state.multipliers.blink,
            &mut self.state.events,
        );
        let (yaw, pitch) = (yaw + saccade_yaw, pitch + saccade_pitch);
        if look_at.kind == LookAtType::Expression {
            let w = look_at.expression_weights(yaw, pitch);
            for (slot, v) in self.look.iter().zip([w.left, w.right, w.up, w.down]) {
                if let Some(c) = slot {
                    out[c.index()] += v;
                }
            }
        }
        // The player input is the clamped frame the override rules start from.
        clamp_weights(out);
        self.state.input_expressions.copy_from_slice(out);
        let mult = apply_overrides_clamped(self.rig.plan(), out);

        self.state.input_look_at_yaw_deg = yaw;
        self.state.input_look_at_pitch_deg = pitch;
        let (yaw, pitch) = (yaw * mult.look_at, pitch * mult.look_at);
        let (left_eye, right_eye) = if look_at.kind == LookAtType::Bone {
            look_at.eye_angles(yaw, pitch).rotations()
        } else {
            EyeAngles::default().rotations()
        };
        self.state.head = self.head_filter.update(inputs.head, dt);
        self.state.left_eye = left_eye;
        self.state.right_eye = right_eye;
        self.state.look_at_yaw_deg = yaw;
        self.state.look_at_pitch_deg = pitch;
        self.state.multipliers = mult;
        self.state.time += f64::from(dt);
        self.frames += 1;
        &self.state
    }

    fn smooth_expressions(&mut self, dt: f32) {
        let half_life = self.config.expression_half_life;
        if self.frames == 0 {
            self.smoothed.copy_from_slice(&self.raw);
        } else if let Some(step) = LowPassStep::new(half_life, dt) {
            for ((y, &x0), &x1) in self
                .smoothed
                .iter_mut()
                .zip(&*self.prev_raw)
                .zip(&*self.raw)
            {
                *y = step.apply(*y, x0, x1);
            }
        }
        self.prev_raw.copy_from_slice(&self.raw);
    }
}

/// A One Euro filter that passes input through (infinite cutoff).
const PASS_THROUGH: OneEuroConfig = OneEuroConfig {
    min_cutoff: f32::INFINITY,
    beta: 0.0,
    derivative_cutoff: 1.0,
};

/// Eye behaviours: automatic blink and saccades (see [`crate::eyes`]).
impl Face {
    /// The eye behaviours (blink and saccade generators, eye mode).
    pub fn eyes(&self) -> &Eyes {
        &self.eyes
    }

    /// The current eye mode.
    pub fn eye_mode(&self) -> EyeMode {
        self.eyes.mode()
    }

    /// Set what the eyes are doing (idle, talking, listening, focused): blink rates and
    /// saccade holds follow.
    pub fn set_eye_mode(&mut self, mode: EyeMode) {
        self.eyes.set_mode(mode);
    }

    /// Blink as soon as the eyes are free (an API call or a timeline event). Refused when
    /// the automatic blink is off or too many requests are waiting.
    pub fn request_blink(&mut self) -> Result<(), EyeRequestError> {
        self.request_blink_in(0.0)
    }

    /// Blink `seconds` from now. Refused when the automatic blink is off or too many
    /// requests are waiting.
    pub fn request_blink_in(&mut self, seconds: f32) -> Result<(), EyeRequestError> {
        match self.eyes.blink_mut() {
            Some(b) => b.request(seconds),
            None => Err(EyeRequestError::BlinkOff),
        }
    }

    /// Announce an eye-area expression change `t_from_now` seconds ahead (the scene
    /// timeline's look-ahead): no automatic blink starts shortly before it (docs/design.md § Blink).
    /// Refused when the automatic blink is off or the queue
    /// ([`MAX_EYE_CHANGES`](crate::eyes::blink::MAX_EYE_CHANGES)) is full.
    pub fn schedule_eye_change(&mut self, t_from_now: f32) -> Result<(), EyeRequestError> {
        match self.eyes.blink_mut() {
            Some(b) => b.schedule_eye_change(t_from_now),
            None => Err(EyeRequestError::BlinkOff),
        }
    }

    /// How much of the automatic blink and saccades shows, in [0, 1]: give it
    /// `1 − tracking weight` while a tracker drives the eyes, so they take over smoothly
    /// when the face is lost.
    pub fn set_procedural_eyes(&mut self, visibility: f32) {
        self.eyes.set_visibility(visibility);
    }

    /// Forget all announced eye-area changes.
    pub fn clear_eye_changes(&mut self) {
        if let Some(b) = self.eyes.blink_mut() {
            b.clear_eye_changes();
        }
    }
}

/// [`body_gaze`] of the last inputs, kept: a scene's inputs hold still between keys,
/// so most frames need no trigonometry.
#[derive(Clone, Copy, Debug, Default)]
struct BodyGaze {
    inputs: Option<(Quat, f32, f32)>,
    dir: glam::Vec3,
}

impl BodyGaze {
    fn of(&mut self, head: Quat, yaw_deg: f32, pitch_deg: f32) -> glam::Vec3 {
        let inputs = (head, yaw_deg, pitch_deg);
        if self.inputs != Some(inputs) {
            self.inputs = Some(inputs);
            self.dir = body_gaze(head, yaw_deg, pitch_deg);
        }
        self.dir
    }
}

/// The gaze direction in the body's frame (+Z ahead, +X left, +Y up): the gaze
/// `yaw`/`pitch` (degrees; > 0 left, down) in the head's frame turned by `head`.
/// Non-finite parts count as 0.
fn body_gaze(head: Quat, yaw_deg: f32, pitch_deg: f32) -> glam::Vec3 {
    let head = crate::smoothing::normalize_quat(head).unwrap_or(Quat::IDENTITY);
    let (yaw, pitch) = (
        finite_or_zero(yaw_deg).to_radians(),
        finite_or_zero(pitch_deg).to_radians(),
    );
    head * glam::Vec3::new(
        yaw.sin() * pitch.cos(),
        -pitch.sin(),
        yaw.cos() * pitch.cos(),
    )
}
