//! Tracking → avatar: turns a tracked face (ARKit-52 scores and an optional head
//! rotation, [`TrackedFace`]) into rig weights, a head rotation and a gaze, with
//! calibration, limits, frame-rate-independent smoothing and a smooth fallback when the
//! face is lost.
//!
//! The method follows docs/design.md § Tracking and goes further where VTuber apps set the bar:
//! - **Head**: the tracker's head rotation (where it comes from — MediaPipe's matrix or
//!   four landmarks — is the file reader's business, `omote-config`), calibrated to the
//!   user's neutral pose (`R_neutral⁻¹ · R`), optionally mirrored, limited per axis, One
//!   Euro smoothed.
//! - **Eyes**: eyeBlink through open/closed thresholds and a response curve; both eyes
//!   linked into `blink` unless they differ a lot (a real wink drives `blinkLeft`/`Right`);
//!   closing is instant, opening speed is limited.
//! - **Mouth**: jawOpen → openness through a curve (docs/design.md § Tracking), and the five vowels from
//!   the mouth's openness, roundness and width (soft nearest-prototype, so every vowel
//!   is reachable).
//! - **Emotions**: rules like smile → happy with thresholds; **perfect sync** passes all
//!   52 ARKit shapes through when the rig has channels with those names (any spelling,
//!   [`arkit_index_any_spelling`]), and a preset mapping whose sources the rig shows
//!   that way (blink, vowels, an emotion rule) is left off (`perfect_sync_replaces`).
//! - **Gaze**: docs/design.md § Tracking: each direction averages the two eyes' matching look shapes, the
//!   dominant side wins, a curve, then scaled to the rig's lookAt input range.
//! - **Loss**: after `loss.grace` seconds without a face the tracking layer's weight
//!   eases to 0 over `loss.blendTime`; the caller (the driver) blends head and gaze back
//!   to the acting by the same weight and lets the procedural blinks and saccades take
//!   over. When the face returns it eases back.

use glam::Quat;

use crate::mix::layer::Layer;
use crate::rig::arkit::{ARKIT_52, arkit_const, arkit_index, arkit_index_any_spelling};
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};
use crate::sanitize::{clamp_or, positive_or_zero};
use crate::smoothing::{LowPassStep, OneEuroFilter, OneEuroQuatFilter, normalize_quat};
use crate::sources::tracking::config::{
    Combine, MAX_EMOTION_SOURCES, RetargetConfig, RetargetError,
};
use crate::sources::tracking::gaze::tracked_gaze;
use crate::sources::tracking::head::mirror_rotation;
use crate::sources::tracking::input::{Blendshapes, TrackedFace};
use crate::sources::tracking::mouth::{VOWEL_SOURCES, tracked_vowels};

/// One frame of retargeting output besides the layer values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetOutput {
    /// The tracked head orientation (calibrated, limited, smoothed); held at its last
    /// value while the face is lost — blend it with the acted head by `tracking_weight`.
    pub head: Quat,
    /// Tracked gaze yaw in degrees (VRM: > 0 left), held while lost like `head`.
    pub gaze_yaw_deg: f32,
    /// Gaze pitch in degrees (VRM: > 0 down).
    pub gaze_pitch_deg: f32,
    /// 1 while tracked, 0 when fully fallen back; procedural eyes should get `1 − this`.
    pub tracking_weight: f32,
    /// Whether this frame had a face.
    pub face_present: bool,
}

#[derive(Clone, Debug)]
struct ResolvedRule {
    channel: ChannelId,
    sources: [u8; MAX_EMOTION_SOURCES],
    count: u8,
    combine: Combine,
    from: f32,
    to: f32,
}

/// A [`Retargeter::calibrate_over`] under way: the seconds of faces still to hear and
/// the sum of their head rotations, each on the first one's side of the sphere.
#[derive(Clone, Copy, Debug)]
struct PendingCalibration {
    left_s: f32,
    sum: glam::Vec4,
    first: Option<Quat>,
}

/// Maps tracked faces onto one rig. Build once per character; `update` allocates
/// nothing. Most callers use it through [`FaceDriver`](crate::FaceDriver), which owns
/// the tracking layer and blends head and gaze with the acting by the tracking weight.
///
/// ```
/// use omote_core::{RetargetConfig, Rig, TrackedFace, mix::{BlendMode, Layer}, tracking::Retargeter};
/// let rig = Rig::standard();
/// let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
/// let mut layer = Layer::new("tracking", BlendMode::Override, rig.len());
/// let mut smile = TrackedFace::default();
/// smile.blendshapes.set("mouthSmileLeft", 0.9);
/// smile.blendshapes.set("mouthSmileRight", 0.9);
/// for _ in 0..30 {
///     rt.update(1.0 / 30.0, Some(&smile), &mut layer);
/// }
/// assert!(layer.get(rig.channel("happy").unwrap()) > 0.9);
/// assert_eq!(layer.weight(), 1.0); // fully tracked
/// ```
#[derive(Clone, Debug)]
pub struct Retargeter {
    config: RetargetConfig,
    blink: [Option<ChannelId>; 3],
    vowels: [Option<ChannelId>; 5],
    rules: Vec<ResolvedRule>,
    perfect_sync: Vec<(ChannelId, u8)>,
    /// The rig's eyeBlink clips show the blink (`perfect_sync_replaces`): they take the
    /// mapped lids.
    blink_replaced: bool,
    gaze_range: [f32; 3],
    neutral_inv: Quat,
    calibration: Option<PendingCalibration>,
    head_filter: OneEuroQuatFilter,
    yaw_filter: OneEuroFilter,
    pitch_filter: OneEuroFilter,
    targets: Box<[f32]>,
    prev_targets: Box<[f32]>,
    values: Box<[f32]>,
    /// Per channel: its smoothing group, or `None` for channels the retargeter does not
    /// write.
    group: Box<[Option<SmoothingGroup>]>,
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
        config.check()?;
        let n = rig.len();
        let mut group: Vec<Option<SmoothingGroup>> = vec![None; n];
        let mark = |c: Option<ChannelId>, g: SmoothingGroup, groups: &mut Vec<Option<_>>| {
            if let Some(c) = c {
                groups[c.index()] = Some(g);
            }
        };
        // Perfect sync first: where the rig shows every ARKit shape a preset mapping
        // reads, that mapping stays off (`perfect_sync_replaces`) — the shapes already
        // show it, and both at once would open the mouth twice (`aa` and `jawOpen`).
        let mut perfect_sync = Vec::new();
        let mut shown = [false; ARKIT_52.len()];
        if config.perfect_sync {
            for c in (0..n).map(|i| ChannelId(i as u16)) {
                if let Some(i) = arkit_index_any_spelling(rig.channel_name(c)) {
                    mark(Some(c), SmoothingGroup::PerfectSync, &mut group);
                    perfect_sync.push((c, i as u8));
                    shown[i] = true;
                }
            }
        }
        let replaces = config.perfect_sync_replaces;
        let shows_all = |sources: &[usize]| replaces && sources.iter().all(|&i| shown[i]);
        let blink_replaced = shows_all(&[ARKIT_BLINK_LEFT, ARKIT_BLINK_RIGHT]);
        let blink = if blink_replaced {
            // The eyeBlink clips then take the eye mapping's lids (thresholds, curve,
            // instant close, limited opening) and its smoothing, not the raw scores.
            for &(c, i) in &perfect_sync {
                if matches!(usize::from(i), ARKIT_BLINK_LEFT | ARKIT_BLINK_RIGHT) {
                    mark(Some(c), SmoothingGroup::Eyes, &mut group);
                }
            }
            [None; 3]
        } else {
            rig.presets(ExpressionPreset::BLINKS)
        };
        for c in blink {
            mark(c, SmoothingGroup::Eyes, &mut group);
        }
        let vowels = if shows_all(&VOWEL_SOURCES) {
            [None; 5]
        } else {
            rig.presets(ExpressionPreset::VOWELS)
        };
        for c in vowels {
            mark(c, SmoothingGroup::Mouth, &mut group);
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
            // `check` refused a rule of no sources, too many, or one not ARKit's.
            let mut sources = [0u8; MAX_EMOTION_SOURCES];
            let mut count = 0;
            for s in &r.sources {
                let idx = arkit_index(s).ok_or_else(|| RetargetError::UnknownSource {
                    rule: i,
                    name: s.clone(),
                })?;
                sources[count] = idx as u8;
                count += 1;
            }
            let sources_shown = shows_all(&sources.map(usize::from)[..count]);
            if let Some(channel) = rig.channel(&r.target)
                && count > 0
                && !sources_shown
            {
                mark(Some(channel), SmoothingGroup::Emotions, &mut group);
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
            blink_replaced,
            gaze_range,
            neutral_inv: Quat::IDENTITY,
            calibration: None,
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

    /// The channels this retargeter writes (the tracking layer's mask).
    pub fn channels(&self) -> impl Iterator<Item = ChannelId> + '_ {
        self.group
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_some())
            .map(|(i, _)| ChannelId(i as u16))
    }

    /// The face's head rotation (mirrored if configured), before calibration, limits and
    /// smoothing.
    pub fn raw_head(&self, face: &TrackedFace) -> Option<Quat> {
        let q = normalize_quat(face.head?)?;
        Some(if self.config.mirror {
            mirror_rotation(q)
        } else {
            q
        })
    }

    /// The head rotation for this face after calibration and limits, before smoothing.
    pub fn head_pose(&self, face: &TrackedFace) -> Option<Quat> {
        self.raw_head(face)
            .map(|raw| self.config.limits.apply(self.neutral_inv * raw))
    }

    /// Take the average head rotation of `faces` as the user's neutral pose. Returns how
    /// many faces contributed (0 leaves the calibration unchanged).
    pub fn calibrate<'a>(&mut self, faces: impl IntoIterator<Item = &'a TrackedFace>) -> usize {
        let mut sum = glam::Vec4::ZERO;
        let mut first: Option<Quat> = None;
        let mut count = 0;
        for face in faces {
            if let Some(q) = self.raw_head(face) {
                let reference = *first.get_or_insert(q);
                let q = if q.dot(reference) < 0.0 { -q } else { q };
                sum += glam::Vec4::from(q);
                count += 1;
            }
        }
        if let Some(mean) = normalize_quat(Quat::from_vec4(sum)).filter(|_| count > 0) {
            self.neutral_inv = mean.inverse();
            // This calibration is the newer: one under way must not replace it later.
            self.calibration = None;
        }
        count
    }

    /// Forget the calibration (and any under way).
    pub fn reset_calibration(&mut self) {
        self.neutral_inv = Quat::IDENTITY;
        self.calibration = None;
    }

    /// Take the user's neutral pose from the faces of the next `seconds` of tracking
    /// (time with a face; the user looks at the screen as they mean "straight ahead"):
    /// their average head rotation becomes the pose the avatar shows as straight, once
    /// those seconds have passed. `0` takes the next face with a head alone; a newer call
    /// starts over. What a live app's "calibrate" button does, without a list of faces.
    pub fn calibrate_over(&mut self, seconds: f32) {
        self.calibration = Some(PendingCalibration {
            left_s: positive_or_zero(seconds),
            sum: glam::Vec4::ZERO,
            first: None,
        });
    }

    /// Whether a [`Retargeter::calibrate_over`] is still gathering faces.
    pub fn is_calibrating(&self) -> bool {
        self.calibration.is_some()
    }

    /// One face's part in a calibration under way; ends it when its time is up.
    fn gather_calibration(&mut self, face: &TrackedFace, dt: f32) {
        let raw = self.raw_head(face);
        let Some(c) = self.calibration.as_mut() else {
            return;
        };
        if let Some(q) = raw {
            let reference = *c.first.get_or_insert(q);
            c.sum += glam::Vec4::from(if q.dot(reference) < 0.0 { -q } else { q });
        }
        c.left_s -= dt;
        if c.left_s <= 0.0
            && let Some(mean) = normalize_quat(Quat::from_vec4(c.sum))
        {
            self.neutral_inv = mean.inverse();
            self.calibration = None;
        }
    }

    /// Map one frame (`None`: no face this frame): write the mapped channels into
    /// `layer` (and set its weight to the tracking weight) and return head, gaze and the
    /// tracking weight.
    pub fn update(
        &mut self,
        dt: f32,
        face: Option<&TrackedFace>,
        layer: &mut Layer,
    ) -> RetargetOutput {
        let dt = positive_or_zero(dt);
        if let Some(face) = face {
            self.map_face(face, dt);
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
            head: self.head,
            gaze_yaw_deg: self.gaze.0,
            gaze_pitch_deg: self.gaze.1,
            tracking_weight: w,
            face_present: face.is_some(),
        }
    }

    fn map_face(&mut self, face: &TrackedFace, dt: f32) {
        let b = if self.config.mirror {
            face.blendshapes.mirrored()
        } else {
            face.blendshapes
        };
        let b = sanitize(b);
        if self.calibration.is_some() {
            self.gather_calibration(face, dt);
        }
        if let Some(q) = self.head_pose(face) {
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
            self.targets[c.index()] = match usize::from(i) {
                ARKIT_BLINK_LEFT if self.blink_replaced => self.eye_state[0],
                ARKIT_BLINK_RIGHT if self.blink_replaced => self.eye_state[1],
                i => b.0[i],
            };
        }
        let (yaw, pitch) = tracked_gaze(&b, &self.config.gaze.curve, self.gaze_range);
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
        for (c, v) in self
            .vowels
            .iter()
            .zip(tracked_vowels(b, &self.config.mouth))
        {
            if let Some(c) = c {
                self.targets[c.index()] = v;
            }
        }
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
            self.values[i] = match steps[group.index()] {
                Some(step) => step.apply(self.values[i], x0, x1),
                None => x1,
            };
        }
        self.prev_targets.copy_from_slice(&self.targets);
    }
}

/// Which of [`ShapeSmoothing`](crate::tracking::ShapeSmoothing)'s half-lives smooths a
/// channel the retargeter writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SmoothingGroup {
    Eyes,
    Mouth,
    Emotions,
    PerfectSync,
}

impl SmoothingGroup {
    /// Its place in `[eyes, mouth, emotions, perfect_sync]`.
    const fn index(self) -> usize {
        self as usize
    }
}

fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// Scores in [0, 1]; NaN and infinities count as 0 (a broken tracker value).
fn sanitize(mut b: Blendshapes) -> Blendshapes {
    for v in &mut b.0 {
        *v = clamp_or(*v, 0.0, 1.0, 0.0);
    }
    b
}

const ARKIT_BLINK_LEFT: usize = arkit_const("eyeBlinkLeft");
const ARKIT_BLINK_RIGHT: usize = arkit_const("eyeBlinkRight");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::tracking::config::ShapeSmoothing;
    use std::sync::Arc;

    fn frame_with(shapes: &[(&str, f32)]) -> TrackedFace {
        let mut f = TrackedFace::default();
        for (n, v) in shapes {
            assert!(f.blendshapes.set(n, *v), "{n}");
        }
        f
    }

    fn settle(shapes: &[(&str, f32)]) -> Vec<f32> {
        settle_on(&Rig::standard(), RetargetConfig::default(), shapes)
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

    /// A model made for perfect sync: the VRM presets and the 52 ARKit clips, named as
    /// VRM 0.x avatars often name them (`JawOpen`) or with Apple's keys (`eyeBlink_L`).
    fn perfect_sync_model(arkit: &[&str]) -> Rig {
        let mut list: Vec<crate::rig::ExpressionDesc> = ExpressionPreset::ALL
            .iter()
            .map(|p| crate::rig::ExpressionDesc::new(p.name()))
            .collect();
        list.extend(arkit.iter().map(|n| crate::rig::ExpressionDesc::new(*n)));
        Rig::new("model", list, crate::rig::LookAtDesc::default_bone()).unwrap()
    }

    fn settle_on(rig: &Rig, config: RetargetConfig, shapes: &[(&str, f32)]) -> Vec<f32> {
        let mut rt = Retargeter::new(rig, config).unwrap();
        let mut layer = Layer::new("t", crate::mix::layer::BlendMode::Override, rig.len());
        let frame = frame_with(shapes);
        for _ in 0..120 {
            rt.update(1.0 / 60.0, Some(&frame), &mut layer);
        }
        layer.values().to_vec()
    }

    #[test]
    fn perfect_sync_finds_every_spelling_and_replaces_what_it_shows() {
        let pascal: Vec<String> = ARKIT_52
            .iter()
            .map(|n| {
                let n = n.replace("Left", "_L").replace("Right", "_R");
                format!("{}{}", n[..1].to_ascii_uppercase(), &n[1..])
            })
            .collect();
        let names: Vec<&str> = pascal.iter().map(String::as_str).collect();
        let rig = perfect_sync_model(&names);
        let face = [
            ("jawOpen", 0.6),
            ("mouthSmileLeft", 0.9),
            ("mouthSmileRight", 0.9),
            ("eyeBlinkLeft", 0.95),
            ("eyeBlinkRight", 0.95),
        ];
        let replacing = RetargetConfig {
            perfect_sync_replaces: true,
            ..RetargetConfig::default()
        };
        let v = settle_on(&rig, replacing.clone(), &face);
        let at = |n: &str| v[rig.channel(n).unwrap().index()];
        // Every ARKit clip is driven, whatever its spelling.
        assert!((at("JawOpen") - 0.6).abs() < 0.01, "{}", at("JawOpen"));
        assert!(at("MouthSmile_L") > 0.85 && at("EyeBlink_R") > 0.9);
        // The model shows the mouth, the smile and the blink itself: the presets that
        // would show them again stay shut.
        for preset in ["aa", "ih", "ou", "ee", "oh", "happy", "blink"] {
            assert_eq!(at(preset), 0.0, "{preset}");
        }
        // By default both move (VMC receivers with other models need the presets).
        let v = settle_on(&rig, RetargetConfig::default(), &face);
        let at = |n: &str| v[rig.channel(n).unwrap().index()];
        assert!(at("JawOpen") > 0.55 && at("happy") > 0.9 && at("blink") > 0.9);
        assert!(at("aa") + at("ee") + at("ih") > 0.3);
        // A model with only some ARKit clips keeps the presets those do not cover.
        let partial = perfect_sync_model(&["jawOpen", "eyeBlinkLeft", "eyeBlinkRight"]);
        let v = settle_on(&partial, replacing, &face);
        let at = |n: &str| v[partial.channel(n).unwrap().index()];
        assert!(at("jawOpen") > 0.55 && at("happy") > 0.9);
        assert!(
            at("aa") + at("ee") + at("ih") > 0.3,
            "the vowels need seven shapes"
        );
        assert_eq!(at("blink"), 0.0, "both eyeBlink clips show the blink");
        // Replacing the blink, the clips take the eye mapping's lids: a resting lid
        // (MediaPipe's 0.3) is open, a closing one (0.75) shut.
        let replacing = RetargetConfig {
            perfect_sync_replaces: true,
            ..RetargetConfig::default()
        };
        for (score, want) in [(0.3, 0.0), (0.75, 1.0)] {
            let v = settle_on(
                &rig,
                replacing.clone(),
                &[("eyeBlinkLeft", score), ("eyeBlinkRight", score)],
            );
            let lid = v[rig.channel("EyeBlink_L").unwrap().index()];
            assert!((lid - want).abs() < 0.01, "{score}: {lid}");
        }
    }

    #[test]
    fn calibrating_over_time_makes_the_held_pose_straight_ahead() {
        let rig = Rig::standard();
        let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
        let mut layer = Layer::new("t", crate::mix::layer::BlendMode::Override, rig.len());
        let turned = |deg: f32| TrackedFace {
            head: Some(Quat::from_rotation_y(deg.to_radians())),
            ..TrackedFace::default()
        };
        let yaw = |q: Quat| q.to_euler(glam::EulerRot::YXZ).0.to_degrees();
        let dt = 1.0 / 30.0;
        let mut out = None;
        for _ in 0..30 {
            out = Some(rt.update(dt, Some(&turned(20.0)), &mut layer));
        }
        assert!((yaw(out.unwrap().head) - 20.0).abs() < 0.5);
        // The user sits turned 20°, then 22° and 18°: a second of it is their straight.
        rt.calibrate_over(1.0);
        assert!(rt.is_calibrating());
        for i in 0..29 {
            let deg = [20.0, 22.0, 18.0][i % 3];
            rt.update(dt, Some(&turned(deg)), &mut layer);
            // Nothing moves until the second is up.
            assert!(rt.is_calibrating());
        }
        // A lost face is no part of it and no time of it.
        rt.update(dt, None, &mut layer);
        assert!(rt.is_calibrating());
        rt.update(dt, Some(&turned(20.0)), &mut layer);
        assert!(!rt.is_calibrating());
        for _ in 0..60 {
            out = Some(rt.update(dt, Some(&turned(20.0)), &mut layer));
        }
        assert!(
            yaw(out.unwrap().head).abs() < 0.5,
            "{}",
            yaw(out.unwrap().head)
        );
        for _ in 0..60 {
            out = Some(rt.update(dt, Some(&turned(35.0)), &mut layer));
        }
        assert!((yaw(out.unwrap().head) - 15.0).abs() < 0.5);
        // Faces without a head wait for one with a head.
        rt.calibrate_over(0.0);
        rt.update(dt, Some(&TrackedFace::default()), &mut layer);
        assert!(rt.is_calibrating());
        rt.update(dt, Some(&turned(35.0)), &mut layer);
        assert!(!rt.is_calibrating());
        rt.reset_calibration();
        for _ in 0..60 {
            out = Some(rt.update(dt, Some(&turned(35.0)), &mut layer));
        }
        assert!((yaw(out.unwrap().head) - 35.0).abs() < 1.0);
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
        let mut layer = Layer::new("t", crate::mix::layer::BlendMode::Override, rig.len());
        let blink = rig.channel("blink").unwrap();
        let closed = frame_with(&[("eyeBlinkLeft", 0.9), ("eyeBlinkRight", 0.9)]);
        let open = frame_with(&[]);
        rt.update(1.0 / 60.0, Some(&open), &mut layer);
        rt.update(1.0 / 60.0, Some(&closed), &mut layer);
        assert_eq!(layer.get(blink), 1.0, "closing is immediate");
        rt.update(1.0 / 60.0, Some(&open), &mut layer);
        let after_one = layer.get(blink);
        assert!((after_one - (1.0 - 7.0 / 60.0)).abs() < 1e-4, "{after_one}");
    }

    #[test]
    fn gaze_follows_the_dominant_side_with_vrm_signs() {
        let rig = Arc::new(Rig::standard());
        let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
        let mut layer = Layer::new("t", crate::mix::layer::BlendMode::Override, rig.len());
        // The subject looks to their left and up.
        let f = frame_with(&[
            ("eyeLookOutLeft", 0.7),
            ("eyeLookInRight", 0.7),
            ("eyeLookUpLeft", 0.5),
            ("eyeLookUpRight", 0.5),
        ]);
        let mut out = None;
        for _ in 0..120 {
            out = Some(rt.update(1.0 / 60.0, Some(&f), &mut layer));
        }
        let out = out.unwrap();
        assert!(out.gaze_yaw_deg > 60.0, "{}", out.gaze_yaw_deg);
        assert!(out.gaze_pitch_deg < -20.0, "{}", out.gaze_pitch_deg);
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

    #[test]
    fn a_rule_with_more_sources_than_it_combines_is_refused() {
        let rig = Rig::standard();
        let mut config = RetargetConfig::default();
        config.emotions[0].sources = ["mouthSmileLeft", "mouthSmileRight", "cheekSquintLeft"]
            .iter()
            .chain(&["cheekSquintRight", "mouthDimpleLeft"])
            .map(|s| s.to_string())
            .collect();
        let e = Retargeter::new(&rig, config.clone()).err().unwrap();
        assert_eq!(e, RetargetError::SourceCount { rule: 0, count: 5 });
        assert!(e.to_string().contains("1 to 4 ARKit names"), "{e}");
        config.emotions[0].sources.clear();
        let e = Retargeter::new(&rig, config.clone()).err().unwrap();
        assert_eq!(e, RetargetError::SourceCount { rule: 0, count: 0 });
        config.emotions[0].sources = ["mouthSmileLeft"; MAX_EMOTION_SOURCES]
            .map(String::from)
            .to_vec();
        assert!(Retargeter::new(&rig, config.clone()).is_ok());
        // `check` alone says so too: the settings' one validity rule.
        config.emotions[0].sources.push("mouthSmileRight".into());
        assert!(config.check().is_err());
    }
}
