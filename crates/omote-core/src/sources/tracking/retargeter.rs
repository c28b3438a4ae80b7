//! Tracking → avatar: turns a tracked face (MediaPipe landmarks, ARKit-52 scores, head
//! transform) into rig weights, a head rotation and a gaze, with calibration, limits,
//! frame-rate-independent smoothing and a smooth fallback when the face is lost.
//!
//! The method follows seed 000 and goes further where VTuber apps set the bar:
//! - **Head**: from the transformation matrix when the tracker gives one (a metric
//!   Procrustes fit of all landmarks: steadier than any four points), otherwise seed
//!   000's construction from landmarks (left−right and bottom−top face vectors, facing by
//!   their cross product, roll from the vertical vector) done as one orthonormal frame.
//!   Calibrated to the user's neutral pose (`R_neutral⁻¹ · R`), optionally mirrored,
//!   limited per axis, One Euro smoothed.
//! - **Eyes**: eyeBlink through open/closed thresholds and a response curve; both eyes
//!   linked into `blink` unless they differ a lot (a real wink drives `blinkLeft`/`Right`);
//!   closing is instant, opening speed is limited.
//! - **Mouth**: jawOpen → openness through a curve (seed 000), and the five vowels from
//!   the mouth's openness, roundness and width (soft nearest-prototype, so every vowel
//!   is reachable).
//! - **Emotions**: rules like smile → happy with thresholds; **perfect sync** passes all
//!   52 ARKit shapes through when the rig has channels with those names.
//! - **Gaze**: seed 000: each direction averages the two eyes' matching look shapes, the
//!   dominant side wins, a curve, then scaled to the rig's lookAt input range.
//! - **Loss**: after `loss.grace` seconds without a face the tracked layer's weight
//!   eases to 0 over `loss.blendTime` (the head to neutral, gaze to centre, so procedural
//!   blinks and saccades take over); when the face returns it eases back.

use glam::{EulerRot, Mat3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::curve::{Keyframe, ResponseCurve};
use crate::mix::layer::Layer;
use crate::rig::arkit::ARKIT_52;
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};
use crate::smoothing::{
    LowPassStep, OneEuroConfig, OneEuroFilter, OneEuroQuatFilter, normalize_quat,
};
use crate::sources::tracking::input::{Blendshapes, TrackedFace, TrackingFrame};

/// Where the head rotation comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HeadSource {
    /// The transform matrix when present, else landmarks.
    #[default]
    Auto,
    /// Only the transform matrix.
    Transform,
    /// Only landmarks (seed 000's method).
    Landmarks,
}

/// Per-axis head limits in degrees (YXZ Euler: yaw about +Y, pitch about +X, roll about +Z).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HeadLimits {
    /// Max |yaw|.
    pub yaw_deg: f32,
    /// Max |pitch|.
    pub pitch_deg: f32,
    /// Max |roll|.
    pub roll_deg: f32,
}

impl Default for HeadLimits {
    fn default() -> Self {
        Self {
            yaw_deg: 70.0,
            pitch_deg: 50.0,
            roll_deg: 45.0,
        }
    }
}

/// Eye blink mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct EyeMapping {
    /// Scores at or below this count as fully open (MediaPipe reads ~0.3 on a smile).
    pub open_below: f32,
    /// Scores at or above this count as fully closed.
    pub closed_above: f32,
    /// Applied after the thresholds.
    pub curve: ResponseCurve,
    /// Eyes closer than this (after mapping) are linked into one `blink`; beyond it each
    /// eye drives its own channel (a wink).
    pub wink_difference: f32,
    /// Fastest opening, in full opens per second (closing is never slowed).
    pub max_open_speed: f32,
}

impl Default for EyeMapping {
    fn default() -> Self {
        Self {
            open_below: 0.35,
            closed_above: 0.7,
            curve: ResponseCurve::preset("smoothstep").expect("preset"),
            wink_difference: 0.45,
            max_open_speed: 7.0,
        }
    }
}

/// Mouth mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct MouthMapping {
    /// jawOpen → openness.
    pub jaw_curve: ResponseCurve,
    /// Split the mouth into the five vowels; `false` drives only `aa` from the jaw
    /// (seed 000's behaviour).
    pub vowels: bool,
    /// Overall gain on the mouth's activity before clamping.
    pub gain: f32,
}

impl Default for MouthMapping {
    fn default() -> Self {
        Self {
            jaw_curve: ResponseCurve::new(vec![
                Keyframe::linear(0.0, 0.0),
                Keyframe::new(0.05, 0.0, 1.6),
                Keyframe::new(0.6, 1.0, 0.0),
            ])
            .expect("valid keys"),
            vowels: true,
            gain: 1.3,
        }
    }
}

/// How the source scores of a rule combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Combine {
    /// Mean of the sources.
    #[default]
    Average,
    /// Largest source.
    Max,
}

/// One emotion rule: `target = smoothstep((combine(sources) − from) / (to − from))`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmotionRule {
    /// Rig channel to drive (skipped when the rig lacks it).
    pub target: String,
    /// ARKit names.
    pub sources: Vec<String>,
    /// How to combine the sources.
    #[serde(default)]
    pub combine: Combine,
    /// Score where the target starts to rise.
    pub from: f32,
    /// Score where the target is full.
    pub to: f32,
}

/// Gaze mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct GazeMapping {
    /// Averaged eyeLook score → 0..1 of the lookAt input range (dead zone at rest).
    pub curve: ResponseCurve,
}

impl Default for GazeMapping {
    fn default() -> Self {
        Self {
            curve: ResponseCurve::new(vec![
                Keyframe::linear(0.12, 0.0),
                Keyframe::linear(0.75, 1.0),
            ])
            .expect("valid keys"),
        }
    }
}

/// Smoothing half-lives (seconds) per channel group.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ShapeSmoothing {
    /// blink, blinkLeft, blinkRight.
    pub eyes: f32,
    /// The vowels.
    pub mouth: f32,
    /// Emotion rules.
    pub emotions: f32,
    /// Perfect-sync ARKit channels.
    pub perfect_sync: f32,
}

impl Default for ShapeSmoothing {
    fn default() -> Self {
        Self {
            eyes: 0.012,
            mouth: 0.03,
            emotions: 0.1,
            perfect_sync: 0.025,
        }
    }
}

/// Tracking-loss behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct LossConfig {
    /// Seconds without a face before the fallback starts (short dropouts hold the pose).
    pub grace: f32,
    /// Seconds to ease between tracked and procedural/neutral, both ways.
    pub blend_time: f32,
}

impl Default for LossConfig {
    fn default() -> Self {
        Self {
            grace: 0.25,
            blend_time: 0.6,
        }
    }
}

/// Everything about the mapping. Defaults suit MediaPipe FaceLandmarker on a webcam.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetargetConfig {
    /// Head rotation source.
    pub head_source: HeadSource,
    /// Mirror the user (their left drives the avatar's right).
    pub mirror: bool,
    /// Head limits after calibration.
    pub limits: HeadLimits,
    /// Share of the head rotation given to the neck when bones are driven
    /// ([`split_neck_head`]); the `head` output stays the full orientation.
    pub neck_share: f32,
    /// Eyes.
    pub eyes: EyeMapping,
    /// Mouth.
    pub mouth: MouthMapping,
    /// Emotion rules, applied in order.
    pub emotions: Vec<EmotionRule>,
    /// Emotions compete: the strongest keeps its value, the others are scaled by
    /// `1 − strongest` (a broad smile lowers the brows, which must not read as anger).
    pub exclusive_emotions: bool,
    /// Pass the 52 ARKit shapes to same-named rig channels.
    pub perfect_sync: bool,
    /// Gaze.
    pub gaze: GazeMapping,
    /// One Euro on the head (speed in degrees per second).
    pub head_filter: OneEuroConfig,
    /// One Euro on gaze yaw and pitch (degrees).
    pub gaze_filter: OneEuroConfig,
    /// Per-group shape smoothing.
    pub smoothing: ShapeSmoothing,
    /// Tracking loss.
    pub loss: LossConfig,
}

impl Default for RetargetConfig {
    fn default() -> Self {
        let rule = |target: &str, sources: &[&str], from, to| EmotionRule {
            target: target.into(),
            sources: sources.iter().map(|s| s.to_string()).collect(),
            combine: Combine::Average,
            from,
            to,
        };
        Self {
            head_source: HeadSource::Auto,
            mirror: false,
            limits: HeadLimits::default(),
            neck_share: 0.4,
            eyes: EyeMapping::default(),
            mouth: MouthMapping::default(),
            emotions: vec![
                rule("happy", &["mouthSmileLeft", "mouthSmileRight"], 0.3, 0.75),
                rule("angry", &["browDownLeft", "browDownRight"], 0.35, 0.8),
                rule("sad", &["mouthFrownLeft", "mouthFrownRight"], 0.25, 0.65),
                rule(
                    "surprised",
                    &["eyeWideLeft", "eyeWideRight", "browInnerUp"],
                    0.3,
                    0.7,
                ),
            ],
            exclusive_emotions: true,
            perfect_sync: true,
            gaze: GazeMapping::default(),
            head_filter: OneEuroConfig {
                min_cutoff: 1.5,
                beta: 0.05,
                derivative_cutoff: 1.0,
            },
            gaze_filter: OneEuroConfig {
                min_cutoff: 2.0,
                beta: 0.05,
                derivative_cutoff: 1.0,
            },
            smoothing: ShapeSmoothing::default(),
            loss: LossConfig::default(),
        }
    }
}

/// Why a retargeter could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RetargetError {
    /// A rule names a source that is not an ARKit name.
    #[error("emotions[{rule}].sources: `{name}` is not one of the 52 ARKit names")]
    UnknownSource {
        /// Rule index.
        rule: usize,
        /// The name.
        name: String,
    },
    /// A rule's `from`/`to` are not increasing finite numbers.
    #[error("emotions[{rule}]: `from` ({from}) must be below `to` ({to})")]
    BadRange {
        /// Rule index.
        rule: usize,
        /// Given from.
        from: f32,
        /// Given to.
        to: f32,
    },
    /// Eye thresholds are not increasing finite numbers.
    #[error("eyes: `openBelow` ({0}) must be below `closedAbove` ({1})")]
    BadEyeThresholds(f32, f32),
}

/// One frame of retargeting output besides the layer values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetOutput {
    /// Head orientation (calibrated, limited, smoothed, eased to neutral on loss).
    pub head: Quat,
    /// Gaze yaw in degrees (VRM: > 0 left).
    pub gaze_yaw_deg: f32,
    /// Gaze pitch in degrees (VRM: > 0 down).
    pub gaze_pitch_deg: f32,
    /// 1 while tracked, 0 when fully fallen back; procedural eyes should get `1 − this`.
    pub tracking_weight: f32,
    /// Whether this frame had a face.
    pub face_present: bool,
}

/// Soft vowel prototypes in (openness, roundness, width).
const VOWEL_PROTOTYPES: [[f32; 3]; 5] = [
    [0.75, 0.0, 0.1],  // A
    [0.15, 0.0, 0.65], // I
    [0.1, 0.6, 0.0],   // U
    [0.4, 0.0, 0.45],  // E
    [0.45, 0.55, 0.0], // O
];
const VOWEL_PRESETS: [ExpressionPreset; 5] = [
    ExpressionPreset::Aa,
    ExpressionPreset::Ih,
    ExpressionPreset::Ou,
    ExpressionPreset::Ee,
    ExpressionPreset::Oh,
];

#[derive(Clone, Debug)]
struct ResolvedRule {
    channel: ChannelId,
    sources: [u8; 4],
    count: u8,
    combine: Combine,
    from: f32,
    to: f32,
}

/// Maps tracking frames onto one rig. Build once per character; `update` allocates nothing.
///
/// ```
/// use omote_core::{Face, FaceConfig, Retargeter, RetargetConfig, Rig, TrackedFace, TrackingFrame};
/// use std::sync::Arc;
/// let rig = Arc::new(Rig::standard());
/// let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
/// let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
/// let mut tracked = TrackedFace::default();
/// tracked.blendshapes.set("mouthSmileLeft", 0.9);
/// tracked.blendshapes.set("mouthSmileRight", 0.9);
/// let frame = TrackingFrame { width: 640, height: 480, faces: vec![tracked], ..Default::default() };
/// for _ in 0..30 {
///     rt.update(1.0 / 30.0, &frame, face.layer_mut(Face::BASE));
/// }
/// let happy = rig.channel("happy").unwrap();
/// assert!(face.update(1.0 / 30.0, &Default::default()).weight(happy) > 0.9);
/// ```
#[derive(Clone, Debug)]
pub struct Retargeter {
    config: RetargetConfig,
    blink: [Option<ChannelId>; 3],
    vowels: [Option<ChannelId>; 5],
    rules: Vec<ResolvedRule>,
    perfect_sync: Vec<(ChannelId, u8)>,
    gaze_range: [f32; 3],
    neutral_inv: Quat,
    head_filter: OneEuroQuatFilter,
    yaw_filter: OneEuroFilter,
    pitch_filter: OneEuroFilter,
    targets: Box<[f32]>,
    prev_targets: Box<[f32]>,
    values: Box<[f32]>,
    /// Per channel: the smoothing group (0 eyes, 1 mouth, 2 emotions, 3 perfect sync), or
    /// `None` for channels the retargeter does not write.
    group: Box<[Option<u8>]>,
    eye_state: [f32; 2],
    head: Quat,
    gaze: (f32, f32),
    since_seen: f32,
    weight: f32,
    started: bool,
}

impl Retargeter {
    /// A retargeter for `rig`. Rules whose target the rig lacks are skipped.
    pub fn new(rig: &Rig, config: RetargetConfig) -> Result<Self, RetargetError> {
        let e = &config.eyes;
        if !(e.open_below.is_finite()
            && e.closed_above.is_finite()
            && e.open_below < e.closed_above)
        {
            return Err(RetargetError::BadEyeThresholds(
                e.open_below,
                e.closed_above,
            ));
        }
        let n = rig.len();
        let mut group: Vec<Option<u8>> = vec![None; n];
        let mark = |c: Option<ChannelId>, g: u8, groups: &mut Vec<Option<u8>>| {
            if let Some(c) = c {
                groups[c.index()] = Some(g);
            }
        };
        let blink = [
            ExpressionPreset::Blink,
            ExpressionPreset::BlinkLeft,
            ExpressionPreset::BlinkRight,
        ]
        .map(|p| rig.preset(p));
        for c in blink {
            mark(c, 0, &mut group);
        }
        let vowels = VOWEL_PRESETS.map(|p| rig.preset(p));
        for c in vowels {
            mark(c, 1, &mut group);
        }
        let mut rules = Vec::new();
        for (i, r) in config.emotions.iter().enumerate() {
            if !(r.from.is_finite() && r.to.is_finite() && r.from < r.to) {
                return Err(RetargetError::BadRange {
                    rule: i,
                    from: r.from,
                    to: r.to,
                });
            }
            let mut sources = [0u8; 4];
            let mut count = 0;
            for s in &r.sources {
                let idx = ARKIT_52.iter().position(|n| n == s).ok_or_else(|| {
                    RetargetError::UnknownSource {
                        rule: i,
                        name: s.clone(),
                    }
                })?;
                if count < 4 {
                    sources[count] = idx as u8;
                    count += 1;
                }
            }
            if let Some(channel) = rig.channel(&r.target)
                && count > 0
            {
                mark(Some(channel), 2, &mut group);
                rules.push(ResolvedRule {
                    channel,
                    sources,
                    count: count as u8,
                    combine: r.combine,
                    from: r.from,
                    to: r.to,
                });
            }
        }
        let mut perfect_sync = Vec::new();
        if config.perfect_sync {
            for (i, name) in ARKIT_52.iter().enumerate() {
                if let Some(c) = rig.channel(name) {
                    mark(Some(c), 3, &mut group);
                    perfect_sync.push((c, i as u8));
                }
            }
        }
        let la = rig.look_at();
        let gaze_range = [
            0.5 * (la.range_map_horizontal_inner.input_max_value
                + la.range_map_horizontal_outer.input_max_value),
            la.range_map_vertical_up.input_max_value,
            la.range_map_vertical_down.input_max_value,
        ];
        Ok(Self {
            head_filter: OneEuroQuatFilter::new(config.head_filter),
            yaw_filter: OneEuroFilter::new(config.gaze_filter),
            pitch_filter: OneEuroFilter::new(config.gaze_filter),
            config,
            blink,
            vowels,
            rules,
            perfect_sync,
            gaze_range,
            neutral_inv: Quat::IDENTITY,
            targets: vec![0.0; n].into_boxed_slice(),
            prev_targets: vec![0.0; n].into_boxed_slice(),
            values: vec![0.0; n].into_boxed_slice(),
            group: group.into_boxed_slice(),
            eye_state: [0.0; 2],
            head: Quat::IDENTITY,
            gaze: (0.0, 0.0),
            since_seen: f32::INFINITY,
            weight: 0.0,
            started: false,
        })
    }

    /// The settings.
    pub fn config(&self) -> &RetargetConfig {
        &self.config
    }

    /// The rotation this face's data gives for the head (mirrored if configured), before
    /// calibration, limits and smoothing. `aspect` is image width / height.
    pub fn raw_head(&self, face: &TrackedFace, aspect: f32) -> Option<Quat> {
        let q = match self.config.head_source {
            HeadSource::Transform => face.transform_rotation(),
            HeadSource::Landmarks => landmark_head(&face.landmarks, aspect),
            HeadSource::Auto => face
                .transform_rotation()
                .or_else(|| landmark_head(&face.landmarks, aspect)),
        }?;
        Some(if self.config.mirror {
            mirror_rotation(q)
        } else {
            q
        })
    }

    /// The head rotation for this face after calibration and limits, before smoothing.
    pub fn head_pose(&self, face: &TrackedFace, aspect: f32) -> Option<Quat> {
        self.raw_head(face, aspect)
            .map(|raw| self.limit(self.neutral_inv * raw))
    }

    /// Take the average head rotation of `faces` as the user's neutral pose. Returns how
    /// many faces contributed (0 leaves the calibration unchanged).
    pub fn calibrate<'a>(
        &mut self,
        faces: impl IntoIterator<Item = (&'a TrackedFace, f32)>,
    ) -> usize {
        let mut sum = glam::Vec4::ZERO;
        let mut first: Option<Quat> = None;
        let mut count = 0;
        for (face, aspect) in faces {
            if let Some(q) = self.raw_head(face, aspect) {
                let reference = *first.get_or_insert(q);
                let q = if q.dot(reference) < 0.0 { -q } else { q };
                sum += glam::Vec4::from(q);
                count += 1;
            }
        }
        if let Some(mean) = normalize_quat(Quat::from_vec4(sum)).filter(|_| count > 0) {
            self.neutral_inv = mean.inverse();
        }
        count
    }

    /// Forget the calibration.
    pub fn reset_calibration(&mut self) {
        self.neutral_inv = Quat::IDENTITY;
    }

    /// Map one frame: write the mapped channels into `layer` (and set its weight to the
    /// tracking weight) and return head, gaze and the tracking weight.
    pub fn update(&mut self, dt: f32, frame: &TrackingFrame, layer: &mut Layer) -> RetargetOutput {
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        let aspect = if frame.height > 0 {
            frame.width as f32 / frame.height as f32
        } else {
            1.0
        };
        let face = frame.faces.first();
        if let Some(face) = face {
            self.map_face(face, aspect, dt);
            self.since_seen = 0.0;
        } else {
            self.since_seen += dt;
        }
        // Ease the tracking weight: up while seen, down after the grace period.
        let rate = if self.config.loss.blend_time > 0.0 {
            dt / self.config.loss.blend_time
        } else {
            1.0
        };
        if self.since_seen <= self.config.loss.grace {
            self.weight = (self.weight + rate).min(1.0);
        } else {
            self.weight = (self.weight - rate).max(0.0);
        }
        let w = smoothstep(self.weight);
        self.smooth_shapes(dt);
        for (i, v) in self.values.iter().enumerate() {
            if self.group[i].is_some() {
                layer.set(ChannelId(i as u16), *v);
            }
        }
        layer.set_weight(w);
        RetargetOutput {
            head: Quat::IDENTITY.slerp(self.head, w),
            gaze_yaw_deg: self.gaze.0 * w,
            gaze_pitch_deg: self.gaze.1 * w,
            tracking_weight: w,
            face_present: face.is_some(),
        }
    }

    fn map_face(&mut self, face: &TrackedFace, aspect: f32, dt: f32) {
        let b = if self.config.mirror {
            face.blendshapes.mirrored()
        } else {
            face.blendshapes
        };
        let b = sanitize(b);
        if let Some(q) = self.head_pose(face, aspect) {
            self.head = self.head_filter.update(q, dt);
        }
        self.targets.fill(0.0);
        self.map_eyes(&b, dt);
        self.map_mouth(&b);
        for r in &self.rules {
            let src = &r.sources[..r.count as usize];
            let x = match r.combine {
                Combine::Average => {
                    src.iter().map(|&i| b.0[i as usize]).sum::<f32>() / src.len() as f32
                }
                Combine::Max => src.iter().map(|&i| b.0[i as usize]).fold(0.0, f32::max),
            };
            self.targets[r.channel.index()] = smoothstep((x - r.from) / (r.to - r.from));
        }
        if self.config.exclusive_emotions {
            // Ties go to the earlier rule (happy comes first in the defaults).
            let mut strongest: Option<ChannelId> = None;
            for r in &self.rules {
                if strongest
                    .is_none_or(|s| self.targets[r.channel.index()] > self.targets[s.index()])
                {
                    strongest = Some(r.channel);
                }
            }
            if let Some(top) = strongest {
                let keep = 1.0 - self.targets[top.index()];
                for r in &self.rules {
                    if r.channel != top {
                        self.targets[r.channel.index()] *= keep;
                    }
                }
            }
        }
        for &(c, i) in &self.perfect_sync {
            self.targets[c.index()] = b.0[i as usize];
        }
        let (yaw, pitch) = self.map_gaze(&b);
        self.gaze = (
            self.yaw_filter.update(yaw, dt),
            self.pitch_filter.update(pitch, dt),
        );
        self.started = true;
    }

    fn map_eyes(&mut self, b: &Blendshapes, dt: f32) {
        let e = &self.config.eyes;
        let map = |v: f32| {
            e.curve
                .eval(((v - e.open_below) / (e.closed_above - e.open_below)).clamp(0.0, 1.0))
        };
        let raw = [map(b.0[ARKIT_BLINK_LEFT]), map(b.0[ARKIT_BLINK_RIGHT])];
        for (state, target) in self.eye_state.iter_mut().zip(raw) {
            // Close at once, open no faster than `max_open_speed`.
            *state = if target >= *state {
                target
            } else {
                target.max(*state - e.max_open_speed * dt)
            };
        }
        let [l, r] = self.eye_state;
        let [both, left, right] = self.blink;
        let linked = (l - r).abs() < e.wink_difference || left.is_none() || right.is_none();
        if let (true, Some(both)) = (linked, both) {
            self.targets[both.index()] = l.max(r);
        } else {
            if let Some(c) = left {
                self.targets[c.index()] = l;
            }
            if let Some(c) = right {
                self.targets[c.index()] = r;
            }
        }
    }

    fn map_mouth(&mut self, b: &Blendshapes) {
        let m = &self.config.mouth;
        let open = m.jaw_curve.eval(b.0[ARKIT_JAW_OPEN]);
        if !m.vowels {
            if let Some(c) = self.vowels[0] {
                self.targets[c.index()] = open;
            }
            return;
        }
        let round = b.0[ARKIT_FUNNEL].max(b.0[ARKIT_PUCKER]);
        let wide = 0.5 * (b.0[ARKIT_STRETCH_L] + b.0[ARKIT_STRETCH_R])
            + 0.25 * (b.0[ARKIT_SMILE_L] + b.0[ARKIT_SMILE_R]) * open.min(1.0);
        let activity = (m.gain * open.max(0.8 * round).max(0.7 * wide)).clamp(0.0, 1.0);
        if activity <= 0.0 {
            return;
        }
        let feature = [open, round, wide];
        let mut scores = [0.0f32; 5];
        let mut total = 0.0;
        for (s, p) in scores.iter_mut().zip(VOWEL_PROTOTYPES) {
            let d2: f32 = feature.iter().zip(p).map(|(f, q)| (f - q) * (f - q)).sum();
            *s = (-d2 / 0.02).exp();
            total += *s;
        }
        if total <= 0.0 {
            return;
        }
        for (c, s) in self.vowels.iter().zip(scores) {
            if let Some(c) = c {
                self.targets[c.index()] = activity * s / total;
            }
        }
    }

    fn map_gaze(&self, b: &Blendshapes) -> (f32, f32) {
        let g = |name: usize| b.0[name];
        let left = 0.5 * (g(ARKIT_LOOK_IN_R) + g(ARKIT_LOOK_OUT_L));
        let right = 0.5 * (g(ARKIT_LOOK_IN_L) + g(ARKIT_LOOK_OUT_R));
        let up = 0.5 * (g(ARKIT_LOOK_UP_L) + g(ARKIT_LOOK_UP_R));
        let down = 0.5 * (g(ARKIT_LOOK_DOWN_L) + g(ARKIT_LOOK_DOWN_R));
        let curve = &self.config.gaze.curve;
        let [h, u, d] = self.gaze_range;
        // VRM signs: yaw > 0 toward the avatar's left, pitch > 0 down.
        let yaw = if left > right {
            curve.eval(left) * h
        } else {
            -curve.eval(right) * h
        };
        let pitch = if up > down {
            -curve.eval(up) * u
        } else {
            curve.eval(down) * d
        };
        (yaw, pitch)
    }

    fn limit(&self, q: Quat) -> Quat {
        let l = &self.config.limits;
        let (y, x, z) = q.to_euler(EulerRot::YXZ);
        let c = |v: f32, max_deg: f32| v.clamp(-max_deg.to_radians(), max_deg.to_radians());
        Quat::from_euler(
            EulerRot::YXZ,
            c(y, l.yaw_deg),
            c(x, l.pitch_deg),
            c(z, l.roll_deg),
        )
    }

    fn smooth_shapes(&mut self, dt: f32) {
        if !self.started {
            return;
        }
        // One exponential per group per frame, not one per channel.
        let sm = &self.config.smoothing;
        let steps =
            [sm.eyes, sm.mouth, sm.emotions, sm.perfect_sync].map(|hl| LowPassStep::new(hl, dt));
        for i in 0..self.values.len() {
            let Some(group) = self.group[i] else { continue };
            let (x0, x1) = (self.prev_targets[i], self.targets[i]);
            self.values[i] = match steps[group as usize] {
                Some(step) => step.apply(self.values[i], x0, x1),
                None => x1,
            };
        }
        self.prev_targets.copy_from_slice(&self.targets);
    }
}

/// Split a full head orientation into a neck rotation (`share` of it) and the head's
/// rotation relative to the neck, so `neck * head == full`.
pub fn split_neck_head(full: Quat, share: f32) -> (Quat, Quat) {
    let neck = Quat::IDENTITY.slerp(full, share.clamp(0.0, 1.0));
    (neck, (neck.inverse() * full).normalize())
}

/// The same rotation seen in a mirror across the avatar's YZ plane: yaw and roll flip.
pub fn mirror_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// MediaPipe landmark indices used for the head frame.
const LM_FACE_LEFT: usize = 454; // subject's left cheek edge
const LM_FACE_RIGHT: usize = 234; // subject's right cheek edge
const LM_FACE_TOP: usize = 10; // forehead
const LM_FACE_BOTTOM: usize = 152; // chin

/// Seed 000's head rotation from landmarks, as one orthonormal frame: X along the face's
/// right→left vector, Y along chin→forehead, Z their cross product (facing). Landmarks
/// are converted to a y-up, z-toward-camera frame with pixels as units.
pub fn landmark_head(landmarks: &[[f32; 3]], aspect: f32) -> Option<Quat> {
    let get = |i: usize| {
        landmarks
            .get(i)
            .map(|p| Vec3::new(p[0] * aspect, -p[1], -p[2] * aspect))
    };
    let left = get(LM_FACE_LEFT)? - get(LM_FACE_RIGHT)?;
    let up = get(LM_FACE_TOP)? - get(LM_FACE_BOTTOM)?;
    if !(left.is_finite() && up.is_finite()) {
        return None;
    }
    let x = left.try_normalize()?;
    let z = x.cross(up).try_normalize()?;
    let y = z.cross(x);
    normalize_quat(Quat::from_mat3(&Mat3::from_cols(x, y, z)))
}

fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

fn sanitize(mut b: Blendshapes) -> Blendshapes {
    for v in &mut b.0 {
        *v = if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    b
}

const fn arkit_index(name: &str) -> usize {
    let mut i = 0;
    while i < ARKIT_52.len() {
        if const_eq(ARKIT_52[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("not an ARKit name");
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const ARKIT_BLINK_LEFT: usize = arkit_index("eyeBlinkLeft");
const ARKIT_BLINK_RIGHT: usize = arkit_index("eyeBlinkRight");
const ARKIT_JAW_OPEN: usize = arkit_index("jawOpen");
const ARKIT_FUNNEL: usize = arkit_index("mouthFunnel");
const ARKIT_PUCKER: usize = arkit_index("mouthPucker");
const ARKIT_STRETCH_L: usize = arkit_index("mouthStretchLeft");
const ARKIT_STRETCH_R: usize = arkit_index("mouthStretchRight");
const ARKIT_SMILE_L: usize = arkit_index("mouthSmileLeft");
const ARKIT_SMILE_R: usize = arkit_index("mouthSmileRight");
const ARKIT_LOOK_IN_L: usize = arkit_index("eyeLookInLeft");
const ARKIT_LOOK_IN_R: usize = arkit_index("eyeLookInRight");
const ARKIT_LOOK_OUT_L: usize = arkit_index("eyeLookOutLeft");
const ARKIT_LOOK_OUT_R: usize = arkit_index("eyeLookOutRight");
const ARKIT_LOOK_UP_L: usize = arkit_index("eyeLookUpLeft");
const ARKIT_LOOK_UP_R: usize = arkit_index("eyeLookUpRight");
const ARKIT_LOOK_DOWN_L: usize = arkit_index("eyeLookDownLeft");
const ARKIT_LOOK_DOWN_R: usize = arkit_index("eyeLookDownRight");

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn frame_with(shapes: &[(&str, f32)]) -> TrackingFrame {
        let mut f = TrackedFace::default();
        for (n, v) in shapes {
            assert!(f.blendshapes.set(n, *v), "{n}");
        }
        TrackingFrame {
            width: 640,
            height: 480,
            faces: vec![f],
            ..TrackingFrame::default()
        }
    }

    fn settle(shapes: &[(&str, f32)]) -> Vec<f32> {
        let rig = Arc::new(Rig::standard());
        let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
        let mut layer = Layer::new("t", crate::BlendMode::Override, rig.len());
        let frame = frame_with(shapes);
        for _ in 0..120 {
            rt.update(1.0 / 60.0, &frame, &mut layer);
        }
        layer.values().to_vec()
    }

    #[test]
    fn every_vowel_is_reachable() {
        let rig = Rig::standard();
        let poses: [(&str, &[(&str, f32)]); 5] = [
            ("aa", &[("jawOpen", 0.55)]),
            (
                "ih",
                &[
                    ("jawOpen", 0.1),
                    ("mouthStretchLeft", 0.7),
                    ("mouthStretchRight", 0.7),
                ],
            ),
            ("ou", &[("jawOpen", 0.08), ("mouthPucker", 0.7)]),
            (
                "ee",
                &[
                    ("jawOpen", 0.25),
                    ("mouthStretchLeft", 0.5),
                    ("mouthStretchRight", 0.5),
                ],
            ),
            ("oh", &[("jawOpen", 0.3), ("mouthFunnel", 0.6)]),
        ];
        for (want, shapes) in poses {
            let v = settle(shapes);
            let best = ["aa", "ih", "ou", "ee", "oh"]
                .into_iter()
                .max_by(|a, b| {
                    v[rig.channel(a).unwrap().index()]
                        .total_cmp(&v[rig.channel(b).unwrap().index()])
                })
                .unwrap();
            assert_eq!(best, want, "pose for {want}");
            assert!(
                v[rig.channel(want).unwrap().index()] > 0.4,
                "{want} too weak"
            );
            let sum: f32 = ["aa", "ih", "ou", "ee", "oh"]
                .iter()
                .map(|n| v[rig.channel(n).unwrap().index()])
                .sum();
            assert!(sum <= 1.0 + 1e-5);
        }
        // A closed, relaxed mouth says nothing.
        let v = settle(&[("jawOpen", 0.02)]);
        for n in ["aa", "ih", "ou", "ee", "oh"] {
            assert!(v[rig.channel(n).unwrap().index()] < 0.02, "{n}");
        }
    }

    #[test]
    fn blinks_link_and_winks_split() {
        let rig = Rig::standard();
        let (blink, l, r) = (
            rig.channel("blink").unwrap().index(),
            rig.channel("blinkLeft").unwrap().index(),
            rig.channel("blinkRight").unwrap().index(),
        );
        let v = settle(&[("eyeBlinkLeft", 0.8), ("eyeBlinkRight", 0.75)]);
        assert!(v[blink] > 0.99 && v[l] < 0.01 && v[r] < 0.01);
        let v = settle(&[("eyeBlinkLeft", 0.85), ("eyeBlinkRight", 0.1)]);
        assert!(v[blink] < 0.01 && v[l] > 0.99 && v[r] < 0.01);
        let v = settle(&[("eyeBlinkLeft", 0.3), ("eyeBlinkRight", 0.3)]);
        assert!(v[blink] < 0.01, "a smile's squint is not a blink");
    }

    #[test]
    fn eyes_close_fast_and_open_no_faster_than_configured() {
        let rig = Arc::new(Rig::standard());
        let config = RetargetConfig {
            smoothing: ShapeSmoothing {
                eyes: 0.0,
                ..ShapeSmoothing::default()
            },
            ..RetargetConfig::default()
        };
        let mut rt = Retargeter::new(&rig, config).unwrap();
        let mut layer = Layer::new("t", crate::BlendMode::Override, rig.len());
        let blink = rig.channel("blink").unwrap();
        let closed = frame_with(&[("eyeBlinkLeft", 0.9), ("eyeBlinkRight", 0.9)]);
        let open = frame_with(&[]);
        rt.update(1.0 / 60.0, &open, &mut layer);
        rt.update(1.0 / 60.0, &closed, &mut layer);
        assert_eq!(layer.get(blink), 1.0, "closing is immediate");
        rt.update(1.0 / 60.0, &open, &mut layer);
        let after_one = layer.get(blink);
        assert!((after_one - (1.0 - 7.0 / 60.0)).abs() < 1e-4, "{after_one}");
    }

    #[test]
    fn gaze_follows_the_dominant_side_with_vrm_signs() {
        let rig = Arc::new(Rig::standard());
        let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
        let mut layer = Layer::new("t", crate::BlendMode::Override, rig.len());
        // The subject looks to their left and up.
        let f = frame_with(&[
            ("eyeLookOutLeft", 0.7),
            ("eyeLookInRight", 0.7),
            ("eyeLookUpLeft", 0.5),
            ("eyeLookUpRight", 0.5),
        ]);
        let mut out = None;
        for _ in 0..120 {
            out = Some(rt.update(1.0 / 60.0, &f, &mut layer));
        }
        let out = out.unwrap();
        assert!(out.gaze_yaw_deg > 60.0, "{}", out.gaze_yaw_deg);
        assert!(out.gaze_pitch_deg < -20.0, "{}", out.gaze_pitch_deg);
    }

    #[test]
    fn mirror_flips_yaw_and_roll_only() {
        let q = Quat::from_euler(EulerRot::YXZ, 0.3, 0.2, -0.1);
        let (y, x, z) = mirror_rotation(q).to_euler(EulerRot::YXZ);
        assert!((y + 0.3).abs() < 1e-5 && (x - 0.2).abs() < 1e-5 && (z - 0.1).abs() < 1e-5);
    }

    #[test]
    fn neck_split_recomposes() {
        let q = Quat::from_euler(EulerRot::YXZ, 0.5, 0.2, 0.1);
        let (neck, head) = split_neck_head(q, 0.4);
        assert!((neck * head).angle_between(q) < 1e-5);
        assert!(
            (neck.angle_between(Quat::IDENTITY) - 0.4 * q.angle_between(Quat::IDENTITY)).abs()
                < 1e-4
        );
    }

    #[test]
    fn bad_config_is_rejected() {
        let rig = Rig::standard();
        let mut c = RetargetConfig::default();
        c.emotions[0].sources.push("smile".into());
        assert!(matches!(
            Retargeter::new(&rig, c),
            Err(RetargetError::UnknownSource { rule: 0, .. })
        ));
        let mut c = RetargetConfig::default();
        c.emotions[1].from = 0.9;
        assert!(Retargeter::new(&rig, c).is_err());
    }
}
