//! `Eyes`: the automatic blink and the saccades wired into one [`Face`](crate::Face).
//!
//! Every frame, after the layers are mixed (and smoothed) and before the VRM override
//! pass, the face hands its weights to its `Eyes`, which
//!
//! 1. advances the [`SaccadeGenerator`] and returns its gaze offset, which the face adds
//!    to the (filtered) gaze target before the lookAt override and range maps;
//! 2. measures how closed the mixed expressions leave the eyes (each channel's
//!    `eyeClosure` × its weight, plus what the blink channels already hold), and
//!    advances the [`BlinkGenerator`] with it, the last frame's blink override
//!    multiplier, and any large gaze shift (of the input gaze or of a saccade);
//! 3. adds the blink to the `blink` channel (or to `blinkLeft` and `blinkRight` when the
//!    rig has no `blink`) and plays the blink motion of the dominant expression.
//!
//! The override pass then runs over the result, so blocking, blending and binary
//! expressions treat the automatic blink like any other blink.
//!
//! Randomness: when the face is built, two numbers drawn from the face's RNG seed one
//! PCG stream for the blink and one for the saccades. Each generator draws from its own
//! stream only when something happens, so the eyes do the same at 30 or 144 fps, and
//! other procedural behaviours drawing from the face's RNG do not change them.

pub(crate) mod blink;
pub(crate) mod blink_motion;
pub(crate) mod eye_mode;
pub(crate) mod saccade;
pub(crate) mod time_queue;

pub use crate::error::{EyeRequestError, EyesConfigError};
pub use blink::{BlinkCause, BlinkConfig, BlinkEvent, BlinkGenerator, BlinkInput, BlinkOutput};
pub use blink_motion::{BlinkMotion, BlinkMotionDesc, preset_blink_motions};
pub use eye_mode::{EyeMode, PerMode, UnknownEyeMode};
pub use saccade::{SaccadeConfig, SaccadeDirection, SaccadeEvent, SaccadeGenerator, SaccadeOutput};

use crate::eyes::blink_motion::{dominant, resolve_motions};
use crate::face::event::{FaceEvent, FaceEvents};
use crate::rig::expression::{ExpressionCategory, ExpressionPreset};
use crate::rig::{ChannelId, Rig};
use crate::rng::Pcg32;
use crate::sanitize::clamp01;
use glam::Vec3;

/// A gaze direction in degrees: yaw > 0 looks toward the avatar's left, pitch > 0
/// down (the VRM frame).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gaze {
    /// Left/right, degrees.
    pub yaw_deg: f32,
    /// Down/up, degrees.
    pub pitch_deg: f32,
}

impl Gaze {
    /// Straight ahead.
    pub const FORWARD: Self = Self {
        yaw_deg: 0.0,
        pitch_deg: 0.0,
    };

    /// A gaze of `yaw_deg` and `pitch_deg`.
    pub const fn new(yaw_deg: f32, pitch_deg: f32) -> Self {
        Self { yaw_deg, pitch_deg }
    }

    /// The gaze along `direction` (VRM frame: +Z ahead, +X the avatar's left, +Y up);
    /// straight ahead for a zero or non-finite direction.
    ///
    /// ```
    /// use omote_core::eyes::Gaze;
    /// let g = Gaze::toward(omote_core::Vec3::new(1.0, 0.0, 1.0));
    /// assert!((g.yaw_deg - 45.0).abs() < 1e-4 && g.pitch_deg == 0.0);
    /// ```
    pub fn toward(direction: glam::Vec3) -> Self {
        let mut d = direction;
        if !d.is_finite() || d.length_squared() < 1e-12 {
            return Self::FORWARD;
        }
        // A very distant point: scaled down first, so its squares stay finite (the angles
        // do not depend on the length).
        let largest = d.abs().max_element();
        if largest > 1e18 {
            d /= largest;
        }
        let yaw = d.x.atan2(d.z).to_degrees();
        let pitch = (-d.y).atan2((d.x * d.x + d.z * d.z).sqrt()).to_degrees();
        Self::new(yaw, pitch)
    }
}

/// The eyes turn at most this far in the head (degrees, each axis): a scene's gaze
/// gives the head the rest of a larger shift, and saccades add nothing beyond it (nor
/// beyond a gaze input already further out).
pub const EYES_LIMIT_DEG: f32 = 25.0;

/// Gaze input moving at least this fast (degrees per second) counts as a gaze shift.
pub const GAZE_SHIFT_SPEED_DEG_S: f32 = 100.0;

/// The eye behaviours of one face: blink and saccade generators (either may be off),
/// the eye mode, and what they need to know about the rig.
#[derive(Clone, Debug)]
pub struct Eyes {
    mode: EyeMode,
    blink: Option<BlinkGenerator>,
    saccade: Option<SaccadeGenerator>,
    blink_channel: Option<ChannelId>,
    blink_sides: [Option<ChannelId>; 2],
    closure: Box<[(ChannelId, f32)]>,
    motions: Box<[BlinkMotion]>,
    motion: Option<usize>,
    gaze: GazeShift,
    blink_rng: Pcg32,
    saccade_rng: Pcg32,
    /// How much of the procedural eyes shows (1 normally; `1 − tracking weight` while a
    /// tracker drives the eyes).
    visibility: f32,
}

/// PCG stream of the blink generator.
const BLINK_STREAM: u64 = 0x0062_6c69_6e6b;
/// PCG stream of the saccade generator.
const SACCADE_STREAM: u64 = 0x7361_6363_6164;

impl Eyes {
    /// Eyes for `rig`; `None` turns a behaviour off. The blink is off, too, on a rig
    /// with none of `blink`, `blinkLeft`, `blinkRight`. Draws the two generators' seeds
    /// from `rng` (always two draws, whatever is on).
    pub fn new(
        rig: &Rig,
        blink: Option<&BlinkConfig>,
        saccade: Option<&SaccadeConfig>,
        rng: &mut Pcg32,
    ) -> Self {
        let mut seed = || (u64::from(rng.next_u32()) << 32) | u64::from(rng.next_u32());
        let blink_rng = Pcg32::with_stream(seed(), BLINK_STREAM);
        let saccade_rng = Pcg32::with_stream(seed(), SACCADE_STREAM);
        let blink_channel = rig.preset(ExpressionPreset::Blink);
        let blink_sides = [
            rig.preset(ExpressionPreset::BlinkLeft),
            rig.preset(ExpressionPreset::BlinkRight),
        ];
        let has_blink = blink_channel.is_some() || blink_sides.iter().any(Option::is_some);
        let blink = blink.filter(|_| has_blink);
        let closure = rig
            .channels()
            .filter(|(_, c)| {
                c.desc.eye_closure > 0.0 && c.category() != Some(ExpressionCategory::Blink)
            })
            .map(|(id, c)| (id, c.desc.eye_closure))
            .collect();
        Self {
            mode: EyeMode::Idle,
            motions: blink
                .map(|c| resolve_motions(c, rig))
                .unwrap_or_default()
                .into_boxed_slice(),
            blink: blink.map(BlinkGenerator::new),
            saccade: saccade.map(SaccadeGenerator::new),
            blink_channel,
            blink_sides,
            closure,
            motion: None,
            gaze: GazeShift::default(),
            blink_rng,
            saccade_rng,
            visibility: 1.0,
        }
    }

    /// How much of the automatic blink and saccades shows, in [0, 1]. At 0 the
    /// generators pause (no events); in between their output is scaled, so a tracker
    /// can hand the eyes over smoothly.
    pub fn set_visibility(&mut self, visibility: f32) {
        self.visibility = clamp01(visibility);
    }

    /// The current visibility.
    pub fn visibility(&self) -> f32 {
        self.visibility
    }

    /// The current eye mode.
    pub fn mode(&self) -> EyeMode {
        self.mode
    }

    /// Switch the eye mode of both generators.
    pub fn set_mode(&mut self, mode: EyeMode) {
        self.mode = mode;
        if let Some(b) = &mut self.blink {
            b.set_mode(mode);
        }
        if let Some(s) = &mut self.saccade {
            s.set_mode(mode);
        }
    }

    /// The blink generator, if the blink is on.
    pub fn blink(&self) -> Option<&BlinkGenerator> {
        self.blink.as_ref()
    }

    /// The blink generator, to request blinks or announce eye-area changes.
    pub fn blink_mut(&mut self) -> Option<&mut BlinkGenerator> {
        self.blink.as_mut()
    }

    /// The saccade generator, if saccades are on.
    pub fn saccade(&self) -> Option<&SaccadeGenerator> {
        self.saccade.as_ref()
    }

    /// The blink motions in use (resolved against the rig).
    pub fn motions(&self) -> &[BlinkMotion] {
        &self.motions
    }

    /// How closed the expressions in `weights` leave the eyes (0 open, 1 shut).
    pub fn closure(&self, weights: &[f32]) -> f32 {
        closure(
            &self.closure,
            self.blink_channel,
            &self.blink_sides,
            weights,
        )
    }

    /// One frame: advance both generators, add the blink (and its motion) into
    /// `weights`, report what started into `events`, and return the gaze offset
    /// (yaw, pitch in degrees). `gaze_input` is this frame's raw gaze direction (unit)
    /// in the body's frame (the head's turn included: a gaze shift is both), `eyes_in_head`
    /// where the eyes look in the head before saccades (they keep within
    /// [`EYES_LIMIT_DEG`] of it);
    /// `blink_visibility` the last frame's blink override multiplier.
    pub(crate) fn update(
        &mut self,
        dt: f32,
        gaze_input: Vec3,
        eyes_in_head: (f32, f32),
        weights: &mut [f32],
        blink_visibility: f32,
        events: &mut FaceEvents,
    ) -> (f32, f32) {
        let mut shift = self.gaze.update(dt, gaze_input);
        let mut offset = (0.0, 0.0);
        let visibility = self.visibility;
        if visibility <= 0.0 {
            return offset;
        }
        if let Some(s) = &mut self.saccade {
            s.set_gaze_in_head(eyes_in_head);
            let out = s.update(dt, &mut self.saccade_rng);
            // What the generator drew stays within the eyes' range; a gaze that moved
            // since is held there too (the next jumps lead back).
            let (y, p) = (
                within_eyes(eyes_in_head.0, out.yaw_deg),
                within_eyes(eyes_in_head.1, out.pitch_deg),
            );
            offset = (y * visibility, p * visibility);
            if let Some(e) = out.started {
                events.push(FaceEvent::Saccade(e));
                shift = shift.max(e.amplitude_deg);
            }
        }
        if let Some(b) = &mut self.blink {
            let quiet = b.is_quiet(dt, shift);
            // The motion a blink starting now would play: the dominant expression's.
            // One with its own lids is that expression's blink, which its override of
            // the blink preset does not hide (a smile still blinks).
            let (closure, pending, blink_visibility) = if quiet {
                (0.0, None, blink_visibility)
            } else {
                let pending = if b.active().is_none() {
                    dominant(&self.motions, weights)
                } else {
                    self.motion
                };
                let own_lids = pending.is_some_and(|i| !self.motions[i].lids().is_empty());
                let c = closure(
                    &self.closure,
                    self.blink_channel,
                    &self.blink_sides,
                    weights,
                );
                (c, pending, if own_lids { 1.0 } else { blink_visibility })
            };
            let input = BlinkInput {
                closure,
                visibility: blink_visibility,
                gaze_shift_deg: shift,
            };
            let out = b.update(dt, &mut self.blink_rng, &input);
            if let Some(e) = out.started {
                events.push(FaceEvent::Blink(e));
                self.motion = pending;
            }
            match out.phase {
                Some(phase) => {
                    let motion = self.motion.map(|i| &self.motions[i]);
                    let weight = match motion.and_then(|m| m.blink_shape(phase)) {
                        Some(shape) => clamp01(shape) * out.depth,
                        None => out.weight,
                    };
                    match motion.filter(|m| !m.lids().is_empty()) {
                        Some(m) => add_to(m.lids(), weight * visibility, weights),
                        None => self.add_blink(weight * visibility, weights),
                    }
                    if let Some(m) = motion {
                        m.add_into(phase, out.motion_scale * visibility, weights);
                    }
                }
                None => self.motion = None,
            }
        }
        offset
    }

    fn add_blink(&self, weight: f32, weights: &mut [f32]) {
        if weight <= 0.0 {
            return;
        }
        match self.blink_channel {
            Some(b) => weights[b.index()] += weight,
            None => {
                for s in self.blink_sides.iter().flatten() {
                    weights[s.index()] += weight;
                }
            }
        }
    }
}

/// The part of a saccade `offset` that keeps a gaze at `base` within
/// ±[`EYES_LIMIT_DEG`] (or within `base` itself, if it is already further out).
pub(crate) fn within_eyes(base: f32, offset: f32) -> f32 {
    let limit = EYES_LIMIT_DEG.max(base.abs());
    (base + offset).clamp(-limit, limit) - base
}

/// Adds `weight` to each of `channels`.
fn add_to(channels: &[ChannelId], weight: f32, weights: &mut [f32]) {
    if weight > 0.0 {
        for c in channels {
            weights[c.index()] += weight;
        }
    }
}

/// Finds fast shifts of the gaze: consecutive frames turning faster than
/// [`GAZE_SHIFT_SPEED_DEG_S`] make one shift, reported (the angle between where it
/// started and where it ended, degrees) on the first slower frame. Directions, not
/// yaw and pitch: a glance near straight up or down is no larger than anywhere else.
#[derive(Clone, Copy, Debug, Default)]
struct GazeShift {
    last: Option<Vec3>,
    start: Option<Vec3>,
}

impl GazeShift {
    fn update(&mut self, dt: f32, gaze: Vec3) -> f32 {
        let gaze = if gaze.is_finite() { gaze } else { Vec3::Z };
        let Some(last) = self.last.replace(gaze) else {
            return 0.0;
        };
        if dt <= 0.0 {
            return 0.0;
        }
        // Turned at least this far (radians) this frame: by the chord between the two
        // unit directions, |a − b|² = 4 sin²(θ/2) ≈ θ² (no arccos on most frames).
        let fast = (GAZE_SHIFT_SPEED_DEG_S * dt).to_radians();
        if last.distance_squared(gaze) >= fast * fast {
            self.start.get_or_insert(last);
            0.0
        } else {
            self.start
                .take()
                .map_or(0.0, |start| angle_deg(start, last))
        }
    }
}

/// The angle between two unit directions, degrees.
fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.dot(b).clamp(-1.0, 1.0).acos().to_degrees()
}

/// Closure of the eyes from `weights`: each listed channel's weight × its closure, plus
/// the blink channel's weight, plus half of each side's.
fn closure(
    list: &[(ChannelId, f32)],
    blink: Option<ChannelId>,
    sides: &[Option<ChannelId>; 2],
    weights: &[f32],
) -> f32 {
    let mut c = 0.0;
    for &(id, k) in list {
        c += clamp01(weights[id.index()]) * k;
    }
    if let Some(b) = blink {
        c += clamp01(weights[b.index()]);
    }
    for s in sides.iter().flatten() {
        c += 0.5 * clamp01(weights[s.index()]);
    }
    clamp01(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direction at `yaw` left and `pitch` down (degrees), +Z ahead.
    fn dir(yaw: f32, pitch: f32) -> Vec3 {
        let (y, p) = (yaw.to_radians(), pitch.to_radians());
        Vec3::new(y.sin() * p.cos(), -p.sin(), y.cos() * p.cos())
    }

    #[test]
    fn gaze_shifts_add_up_while_fast_and_report_once() {
        let mut g = GazeShift::default();
        let dt = 1.0 / 60.0;
        assert_eq!(g.update(dt, dir(0.0, 0.0)), 0.0);
        // Slow drift: never a shift.
        for i in 1..30 {
            assert_eq!(g.update(dt, dir(i as f32 * 0.5, 0.0)), 0.0);
        }
        let base = 14.5;
        assert_eq!(g.update(dt, dir(base + 20.0, 0.0)), 0.0);
        assert_eq!(g.update(dt, dir(base + 30.0, 0.0)), 0.0);
        assert!((g.update(dt, dir(base + 30.0, 0.0)) - 30.0).abs() < 1e-3);
        assert_eq!(g.update(dt, dir(base + 30.0, 0.0)), 0.0);
        // Looking down 85°, a step of 20° in yaw is a turn of the gaze of under 2°.
        let mut g = GazeShift::default();
        g.update(dt, dir(0.0, 85.0));
        g.update(dt, dir(20.0, 85.0));
        let shift = g.update(dt, dir(20.0, 85.0));
        assert!(shift < 2.0, "{shift}");
    }

    #[test]
    fn closure_counts_expressions_and_blink_channels() {
        let rig = Rig::standard();
        let eyes = Eyes::new(
            &rig,
            Some(&BlinkConfig::default()),
            None,
            &mut Pcg32::new(1),
        );
        let mut w = vec![0.0; rig.len()];
        w[rig.channel("happy").unwrap().index()] = 1.0;
        assert!((eyes.closure(&w) - 0.3).abs() < 1e-6);
        w[rig.channel("relaxed").unwrap().index()] = 0.5;
        assert!((eyes.closure(&w) - 0.55).abs() < 1e-6);
        w[rig.channel("blink").unwrap().index()] = 0.9;
        assert_eq!(eyes.closure(&w), 1.0);
    }
}
