//! Saccades: random eye jumps under the constraints of docs/design.md § Saccades.
//!
//! The eyes hold still for a while (per [`EyeMode`]: long holds while listening, short
//! jittery ones when idle), then jump. Each jump's amplitude is drawn from an
//! exponential distribution and clamped; its duration follows the main sequence
//! (`durationBase + durationPerDeg × amplitude`, ≈ 25 ms + 2.4 ms/°) and its path a
//! minimum-jerk profile (bell-shaped velocity, no overshoot). Seed 002's constraints:
//!
//! - horizontal jumps are more frequent than vertical ones (`horizontalShare`, with
//!   `diagonalShare` for the four diagonals; the rest are vertical);
//! - never the same direction (of eight) twice in a row;
//! - jumps in quick succession get smaller: a jump that follows the previous one after
//!   less than `runResetHold` seconds is at most `shrink` × the previous amplitude; a
//!   longer hold starts a fresh run.
//!
//! The output is a gaze offset (yaw, pitch in degrees, yaw > 0 left, pitch > 0 down)
//! that the face adds to its gaze target before the lookAt range maps. Offsets stay
//! within `maxYawDeg` / `maxPitchDeg`: a jump away from the target (or off it) uses at
//! most half the room left towards them, and directions pointing back to the target are
//! preferred the further out the eyes are. The eyes rest on what they look at: a glance
//! aside holds for a share of the mode's hold, and a fresh run that heads back returns
//! to the target (a large-eyed character held 10–15° off the person it listens to looks
//! past them; seed 002 notes that real human eye motion looks wrong on such eyes).
//!
//! ```
//! use omote_core::{Pcg32, eyes::{SaccadeConfig, SaccadeGenerator}};
//! let mut s = SaccadeGenerator::new(&SaccadeConfig::default());
//! let mut rng = Pcg32::new(3);
//! let mut jumps = 0;
//! for _ in 0..60 * 60 {
//!     let out = s.update(1.0 / 60.0, &mut rng);
//!     jumps += usize::from(out.started.is_some());
//!     assert!(out.yaw_deg.abs() <= 15.0 && out.pitch_deg.abs() <= 10.0);
//! }
//! assert!(jumps > 20, "{jumps} saccades in an idle minute");
//! ```

use serde::{Deserialize, Serialize};

use crate::bounds::{Bound, Limit, check_all, sanitize_all, slot};
use crate::error::EyesConfigError;
use crate::eyes::Gaze;
use crate::eyes::eye_mode::{EyeMode, PerMode};
use crate::rng::Pcg32;
use crate::sanitize::{finite_or_zero, positive_or_zero};
use crate::span::Span;

/// Settings of the saccade generator. Defaults follow docs/design.md § Saccades (amplitude mean 7°,
/// clamp 15°; holds about 3 s talking, 8 s listening, 0.4–2 s idle). Times in seconds,
/// angles in degrees.
///
/// ```
/// use omote_core::eyes::SaccadeConfig;
/// let c: SaccadeConfig = serde_json::from_str(r#"{"horizontalShare": 0.8, "diagonalShare": 0.1}"#).unwrap();
/// c.check().unwrap();
/// assert_eq!(c.amplitude_max_deg, 15.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SaccadeConfig {
    /// Hold between the end of one jump and the start of the next, per mode: in full
    /// where a jump lands on the target, 40 % of it where it leaves the eyes off it (a
    /// glance), a follow-up hold inside a run.
    pub hold: PerMode<Span>,
    /// Probability that a jump is followed quickly by a smaller one (a run).
    pub follow_up_probability: f32,
    /// Hold before such a follow-up jump (keep it below `runResetHold`).
    pub follow_up_hold: Span,
    /// A hold at least this long ends a run: the next jump is not shrunk.
    pub run_reset_hold: f32,
    /// Within a run each jump is at most this times the previous one (< 1).
    pub shrink: f32,
    /// Mean of the exponential amplitude draw.
    pub amplitude_mean_deg: f32,
    /// Smallest amplitude of a run's first jump; runs end before jumps get smaller.
    pub amplitude_min_deg: f32,
    /// Largest amplitude.
    pub amplitude_max_deg: f32,
    /// Share of jumps that go left or right.
    pub horizontal_share: f32,
    /// Share of jumps that go diagonally; the rest go up or down.
    pub diagonal_share: f32,
    /// Random turn of a jump away from its compass direction (at most 20°).
    pub angle_jitter_deg: f32,
    /// The offset stays within ± this yaw.
    pub max_yaw_deg: f32,
    /// The offset stays within ± this pitch.
    pub max_pitch_deg: f32,
    /// Duration of a jump of 0° (main sequence intercept).
    pub duration_base: f32,
    /// Extra duration per degree of amplitude (main sequence slope).
    pub duration_per_deg: f32,
}

impl Default for SaccadeConfig {
    fn default() -> Self {
        Self {
            hold: PerMode::new(
                Span::new(0.4, 2.0),
                Span::new(1.5, 4.5),
                Span::new(5.0, 11.0),
                Span::new(2.0, 6.0),
            ),
            follow_up_probability: 0.25,
            follow_up_hold: Span::new(0.12, 0.35),
            run_reset_hold: 0.6,
            shrink: 0.6,
            amplitude_mean_deg: 7.0,
            amplitude_min_deg: 0.5,
            amplitude_max_deg: 15.0,
            horizontal_share: 0.7,
            diagonal_share: 0.15,
            angle_jitter_deg: 10.0,
            max_yaw_deg: 15.0,
            max_pitch_deg: 10.0,
            duration_base: 0.025,
            duration_per_deg: 0.0024,
        }
    }
}

impl SaccadeConfig {
    /// Check every number against its allowed range (one table in `saccade.rs`,
    /// `SACCADE_BOUNDS`, gives them). The error names the first field out of range. The
    /// generator also runs on unchecked settings, sanitising them, so loaders should call
    /// this to report mistakes.
    pub fn check(&self) -> Result<(), EyesConfigError> {
        check_all(SACCADE_BOUNDS, self)
    }

    /// The same settings with every number forced into its allowed range, by the same
    /// table as [`check`](Self::check): NaN and ±∞ take the field's default, finite
    /// numbers out of range are clamped to the nearest end; a range's `max` is then
    /// raised to its `min`. A config that passes `check` comes back unchanged.
    pub fn sanitized(&self) -> Self {
        sanitize_all(SACCADE_BOUNDS, self)
    }

    /// The main-sequence duration of a jump of `amplitude_deg`.
    pub fn duration(&self, amplitude_deg: f32) -> f32 {
        self.duration_base + self.duration_per_deg * amplitude_deg
    }
}

/// How strongly jumps prefer to go back towards the gaze target (see `pick`).
const CENTRE_PULL: f32 = 3.0;
/// The largest share of the room towards the offset limits that a jump away from the
/// target may use.
const ROOM_SHARE: f32 = 0.5;
/// An offset this small (degrees) is on the target (a return lands on it exactly, up to
/// rounding).
const ON_TARGET_DEG: f32 = 1e-3;
/// The share of the mode's hold that the eyes hold where a jump leaves them off the
/// target (towards it or away: a run that ends a few degrees off is still a glance).
const AWAY_HOLD_SHARE: f32 = 0.4;

/// Every number of [`SaccadeConfig`] with its allowed range, in file terms; drives both
/// [`SaccadeConfig::check`] and [`SaccadeConfig::sanitized`]. Ends are closed; a row whose
/// end reads other fields comes after their rows (see `eyes/bounds.rs`). One row per line,
/// so it reads as a table.
#[rustfmt::skip]
const SACCADE_BOUNDS: &[Bound<SaccadeConfig>] = {
    use Limit::{At, Of};
    type C = SaccadeConfig;
    const P: &str = "a probability";
    const D90: &str = "0 to 90";
    &[
        Bound::span_per_mode("hold", slot!(C, hold), At(0.0), At(3600.0)),
        Bound::num("followUpProbability", slot!(C, follow_up_probability), At(0.0), At(1.0), P),
        Bound::span("followUpHold", slot!(C, follow_up_hold), At(0.0), At(60.0)),
        Bound::num("runResetHold", slot!(C, run_reset_hold), At(0.0), At(60.0), "0 to 60 s"),
        Bound::num("shrink", slot!(C, shrink), At(0.0), At(0.99), "0 to 0.99"),
        Bound::num("amplitudeMeanDeg", slot!(C, amplitude_mean_deg), At(0.01), At(90.0), "0.01 to 90"),
        Bound::num("amplitudeMinDeg", slot!(C, amplitude_min_deg), At(0.0), At(90.0), D90),
        Bound::num("amplitudeMaxDeg", slot!(C, amplitude_max_deg),
            Of(|c| c.amplitude_min_deg.max(0.01)), At(90.0), "amplitudeMinDeg to 90"),
        Bound::num("horizontalShare", slot!(C, horizontal_share), At(0.0), At(1.0), P),
        Bound::num("diagonalShare", slot!(C, diagonal_share),
            At(0.0), Of(|c| 1.0 - c.horizontal_share), "0 to 1 - horizontalShare"),
        Bound::num("angleJitterDeg", slot!(C, angle_jitter_deg), At(0.0), At(20.0), "0 to 20"),
        Bound::num("maxYawDeg", slot!(C, max_yaw_deg), At(0.0), At(90.0), D90),
        Bound::num("maxPitchDeg", slot!(C, max_pitch_deg), At(0.0), At(90.0), D90),
        Bound::num("durationBase", slot!(C, duration_base), At(0.001), At(1.0), "0.001 to 1 s"),
        Bound::num("durationPerDeg", slot!(C, duration_per_deg), At(0.0), At(0.1), "0 to 0.1 s"),
    ]
};

/// One of eight compass directions of a jump, as seen by the character (left = the
/// avatar's left, yaw > 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum SaccadeDirection {
    Left,
    UpLeft,
    Up,
    UpRight,
    Right,
    DownRight,
    Down,
    DownLeft,
}

impl SaccadeDirection {
    /// All eight, counter-clockwise from left (as seen from behind the character).
    pub const ALL: [Self; 8] = [
        Self::Left,
        Self::UpLeft,
        Self::Up,
        Self::UpRight,
        Self::Right,
        Self::DownRight,
        Self::Down,
        Self::DownLeft,
    ];

    /// The name used in anim files (`"left"`, `"up-left"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Left => "left",
            Self::UpLeft => "up-left",
            Self::Up => "up",
            Self::UpRight => "up-right",
            Self::Right => "right",
            Self::DownRight => "down-right",
            Self::Down => "down",
            Self::DownLeft => "down-left",
        }
    }

    /// Angle in degrees in the (left, up) plane: left 0°, up 90°, right 180°, down 270°.
    pub const fn angle_deg(self) -> f32 {
        45.0 * self as u8 as f32
    }

    /// The direction whose 45° sector contains the move (Δyaw, Δpitch) in degrees.
    pub fn of(d_yaw: f32, d_pitch: f32) -> Self {
        let a = (-d_pitch).atan2(d_yaw).to_degrees().rem_euclid(360.0);
        Self::ALL[(((a + 22.5) / 45.0) as usize) % 8]
    }

    /// Left or right.
    pub const fn is_horizontal(self) -> bool {
        matches!(self, Self::Left | Self::Right)
    }

    /// Up or down.
    pub const fn is_vertical(self) -> bool {
        matches!(self, Self::Up | Self::Down)
    }

    /// One of the four diagonals.
    pub const fn is_diagonal(self) -> bool {
        !self.is_horizontal() && !self.is_vertical()
    }

    /// Unit move (Δyaw, Δpitch) for this direction turned by `turn_deg`.
    fn unit(self, turn_deg: f32) -> (f32, f32) {
        let (s, c) = (self.angle_deg() + turn_deg).to_radians().sin_cos();
        (c, -s)
    }
}

/// One jump, as reported when it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SaccadeEvent {
    /// Start time in seconds since the generator (the face) was created.
    pub t: f64,
    /// How long the jump takes (s), on the main sequence.
    pub duration: f32,
    /// Change of gaze yaw in degrees (> 0: to the left).
    pub yaw_deg: f32,
    /// Change of gaze pitch in degrees (> 0: down).
    pub pitch_deg: f32,
    /// Length of the move in degrees.
    pub amplitude_deg: f32,
    /// Compass direction.
    pub direction: SaccadeDirection,
}

impl SaccadeEvent {
    /// End time.
    pub fn end(&self) -> f64 {
        self.t + f64::from(self.duration)
    }
}

/// The saccade generator's output for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SaccadeOutput {
    /// Gaze yaw offset in degrees at the end of the frame.
    pub yaw_deg: f32,
    /// Gaze pitch offset in degrees at the end of the frame.
    pub pitch_deg: f32,
    /// A jump that started during this frame.
    pub started: Option<SaccadeEvent>,
}

/// Makes the eyes jump. Plain data; draws randomness only from the [`Pcg32`] it is
/// given, and only when a jump starts; allocates nothing. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct SaccadeGenerator {
    config: SaccadeConfig,
    mode: EyeMode,
    time: f64,
    next_jump: Option<f64>,
    offset: (f32, f32),
    jump: Option<Jump>,
    last: Option<SaccadeEvent>,
    /// Where the gaze sits in the head before the offset ([`Self::set_gaze_in_head`]).
    gaze: (f32, f32),
}

#[derive(Clone, Copy, Debug)]
struct Jump {
    event: SaccadeEvent,
    from: (f32, f32),
}

impl SaccadeGenerator {
    /// A generator in [`EyeMode::Idle`] at time 0 with the eyes centred (settings are
    /// sanitized first).
    pub fn new(config: &SaccadeConfig) -> Self {
        Self {
            config: config.sanitized(),
            mode: EyeMode::Idle,
            time: 0.0,
            next_jump: None,
            offset: (0.0, 0.0),
            jump: None,
            last: None,
            gaze: (0.0, 0.0),
        }
    }

    /// Where the gaze sits in the head (degrees) before the offset: a jump's room ends
    /// at ±[`EYES_LIMIT_DEG`](crate::eyes::EYES_LIMIT_DEG) in the head as well as at the
    /// offset limits, so a gaze 20° to the side leaves 5° for glances further out.
    pub fn set_gaze_in_head(&mut self, gaze: (f32, f32)) {
        self.gaze = (finite_or_zero(gaze.0), finite_or_zero(gaze.1));
    }

    /// The (sanitized) settings.
    pub fn config(&self) -> &SaccadeConfig {
        &self.config
    }

    /// The current mode.
    pub fn mode(&self) -> EyeMode {
        self.mode
    }

    /// Switch mode. The current hold is stretched or shrunk by the ratio of the two
    /// modes' mean holds (no random draw).
    pub fn set_mode(&mut self, mode: EyeMode) {
        if mode == self.mode {
            return;
        }
        if let Some(next) = self.next_jump {
            let rest_from = self
                .jump
                .map_or(self.time, |j| j.event.end())
                .max(self.time);
            let old = f64::from(self.config.hold.get(self.mode).mean()).max(1e-3);
            let new = f64::from(self.config.hold.get(mode).mean());
            if next > rest_from {
                self.next_jump = Some(rest_from + (next - rest_from) * new / old);
            }
        }
        self.mode = mode;
    }

    /// Seconds since creation (the sum of `dt`).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The current offset from the acted gaze.
    pub fn offset(&self) -> Gaze {
        let (yaw_deg, pitch_deg) = self
            .jump
            .map_or(self.offset, |j| self.position(&j, self.time));
        Gaze::new(yaw_deg, pitch_deg)
    }

    /// The last jump started, if any.
    pub fn last(&self) -> Option<&SaccadeEvent> {
        self.last.as_ref()
    }

    /// Advance by `dt` seconds: maybe start a jump, and give the offset at the end of
    /// the frame.
    pub fn update(&mut self, dt: f32, rng: &mut Pcg32) -> SaccadeOutput {
        let dt = positive_or_zero(dt);
        let t0 = self.time;
        let t1 = t0 + f64::from(dt);
        self.time = t1;
        if self.jump.is_none() && self.next_jump.is_some_and(|n| n > t1) {
            // Holding still (most frames).
            return SaccadeOutput {
                yaw_deg: self.offset.0,
                pitch_deg: self.offset.1,
                started: None,
            };
        }
        let next = match self.next_jump {
            Some(n) => n,
            None => {
                let n = t0 + f64::from(self.config.hold.get(self.mode).draw(rng));
                self.next_jump = Some(n);
                n
            }
        };
        if let Some(j) = self.jump
            && j.event.end() <= t1
        {
            self.offset = (j.from.0 + j.event.yaw_deg, j.from.1 + j.event.pitch_deg);
            self.jump = None;
        }
        let mut started = None;
        if self.jump.is_none() && next <= t1 {
            let start = self.last.map_or(next, |l| next.max(l.end()));
            match self.choose(start, rng) {
                Some(event) => {
                    self.jump = Some(Jump {
                        event,
                        from: self.offset,
                    });
                    self.last = Some(event);
                    started = Some(event);
                    let to = (self.offset.0 + event.yaw_deg).hypot(self.offset.1 + event.pitch_deg);
                    let hold = self.draw_hold(event.amplitude_deg, to > ON_TARGET_DEG, rng);
                    self.next_jump = Some(event.end() + f64::from(hold));
                }
                None => {
                    let hold = self.config.hold.get(self.mode).draw(rng);
                    self.next_jump = Some(start + f64::from(hold.max(self.config.run_reset_hold)));
                }
            }
        }
        let Gaze { yaw_deg, pitch_deg } = self.offset();
        SaccadeOutput {
            yaw_deg,
            pitch_deg,
            started,
        }
    }

    /// The hold after a jump of `amplitude`: a short follow-up hold now and then (the
    /// next jump continues the run), else the mode's hold — a share of it when the jump
    /// left the eyes `away` from the target (a glance aside is brief; the eyes hold on
    /// what they look at); a run that cannot shrink further gets at least `runResetHold`.
    fn draw_hold(&self, amplitude: f32, away: bool, rng: &mut Pcg32) -> f32 {
        let c = &self.config;
        let can_follow = amplitude * c.shrink >= c.amplitude_min_deg;
        if can_follow && c.follow_up_probability > 0.0 && rng.chance(c.follow_up_probability) {
            return c.follow_up_hold.draw(rng);
        }
        let share = if away { AWAY_HOLD_SHARE } else { 1.0 };
        let hold = share * c.hold.get(self.mode).draw(rng);
        if can_follow {
            hold
        } else {
            hold.max(c.run_reset_hold)
        }
    }

    /// Draw the jump starting at `t`: amplitude, class (horizontal, diagonal, vertical),
    /// direction, turn. `None` if no direction has room (tiny offset limits).
    fn choose(&self, t: f64, rng: &mut Pcg32) -> Option<SaccadeEvent> {
        let c = &self.config;
        let mut amplitude = (rng.exponential(f64::from(c.amplitude_mean_deg)) as f32)
            .clamp(c.amplitude_min_deg, c.amplitude_max_deg);
        // The jump this one follows within a run, if it does.
        let run_last = self
            .last
            .filter(|last| ((t - last.end()) as f32) < c.run_reset_hold);
        if let Some(last) = run_last {
            amplitude = amplitude.min(last.amplitude_deg * c.shrink);
        }
        let class = rng.next_f32();
        use SaccadeDirection as D;
        let candidates: &[D] = if class < c.horizontal_share {
            &[D::Left, D::Right]
        } else if class < c.horizontal_share + c.diagonal_share {
            &[D::UpLeft, D::UpRight, D::DownRight, D::DownLeft]
        } else {
            &[D::Up, D::Down]
        };
        let need = amplitude.min(c.amplitude_min_deg).max(1e-3);
        let pick = rng.next_f32();
        let dir = self
            .pick(candidates, need, pick)
            .or_else(|| self.pick(&D::ALL, need, pick))?;
        let turn = rng.range_f32(-c.angle_jitter_deg, c.angle_jitter_deg);
        let mut unit = dir.unit(turn);
        let straight = dir.unit(0.0);
        if self.usable_room(unit) < amplitude && self.usable_room(straight) > self.usable_room(unit)
        {
            // Turned, the move would run into the limits (at an edge): go straight.
            unit = straight;
        }
        // A fresh run that heads back towards the target returns to it: the eyes come
        // back to what they look at rather than creeping back in small steps (a run's
        // later jumps only shrink).
        let back = -(self.offset.0 * unit.0 + self.offset.1 * unit.1);
        let distance = self.offset.0.hypot(self.offset.1);
        if run_last.is_none() && back > 0.0 && distance <= c.amplitude_max_deg {
            let home = (-self.offset.0 / distance, -self.offset.1 / distance);
            let home_dir = SaccadeDirection::of(home.0, home.1);
            if Some(home_dir) != self.last.map(|l| l.direction) {
                return Some(SaccadeEvent {
                    t,
                    duration: c.duration(distance),
                    yaw_deg: -self.offset.0,
                    pitch_deg: -self.offset.1,
                    amplitude_deg: distance,
                    direction: home_dir,
                });
            }
            amplitude = amplitude.max(back.min(c.amplitude_max_deg));
        }
        let amplitude = amplitude.min(self.usable_room(unit));
        let duration = c.duration(amplitude);
        Some(SaccadeEvent {
            t,
            duration,
            yaw_deg: unit.0 * amplitude,
            pitch_deg: unit.1 * amplitude,
            amplitude_deg: amplitude,
            direction: dir,
        })
    }

    /// Choose among `candidates` with `u` in [0, 1): never the last direction, only
    /// directions with at least `need` degrees of room, favouring those that point back
    /// towards the centre (weight `exp(-CENTRE_PULL · offset·direction)` with the offset
    /// normalised by the limits: at half the limit, 95 % of horizontal jumps go back).
    fn pick(&self, candidates: &[SaccadeDirection], need: f32, u: f32) -> Option<SaccadeDirection> {
        let c = &self.config;
        let (oy, op) = self.offset;
        let norm = (oy / c.max_yaw_deg.max(1e-3), op / c.max_pitch_deg.max(1e-3));
        let last = self.last.map(|l| l.direction);
        let weight = |d: SaccadeDirection| {
            if Some(d) == last || self.usable_room(d.unit(0.0)) < need {
                return 0.0;
            }
            let (uy, up) = d.unit(0.0);
            (-CENTRE_PULL * (norm.0 * uy + norm.1 * up)).exp()
        };
        let total: f32 = candidates.iter().map(|&d| weight(d)).sum();
        if total <= 0.0 {
            return None;
        }
        let mut x = u * total;
        let mut chosen = None;
        for &d in candidates {
            let w = weight(d);
            if w > 0.0 {
                chosen = Some(d);
                if x < w {
                    break;
                }
                x -= w;
            }
        }
        chosen
    }

    /// How far (degrees) one jump may go along `unit`: the room to the limits, or only
    /// a share of it when the jump leads further away from the target, so that the eyes
    /// approach the limits gradually and spend most of their time near the target.
    fn usable_room(&self, unit: (f32, f32)) -> f32 {
        let room = self.room(unit);
        if self.offset.0 * unit.0 + self.offset.1 * unit.1 >= 0.0 {
            room * ROOM_SHARE
        } else {
            room
        }
    }

    /// How far (degrees) the offset can move along `unit` before leaving its limits.
    fn room(&self, unit: (f32, f32)) -> f32 {
        let c = &self.config;
        // The offset limits, narrowed to what keeps the eyes in their range (and never
        // closed around the target itself).
        let bound = |max: f32, gaze: f32| {
            let eyes = crate::eyes::EYES_LIMIT_DEG;
            (
                (-max).max(-eyes - gaze).min(0.0),
                max.min(eyes - gaze).max(0.0),
            )
        };
        let edge = |pos: f32, u: f32, (lo, hi): (f32, f32)| {
            if u > 1e-6 {
                (hi - pos) / u
            } else if u < -1e-6 {
                (pos - lo) / -u
            } else {
                f32::INFINITY
            }
        };
        let (oy, op) = self.offset;
        let (by, bp) = (
            bound(c.max_yaw_deg, self.gaze.0),
            bound(c.max_pitch_deg, self.gaze.1),
        );
        // A hair less than the exact room, so that rounding never leaves the limits.
        (edge(oy, unit.0, by).min(edge(op, unit.1, bp)) - 1e-3).max(0.0)
    }

    /// The offset at time `t` during `jump` (minimum-jerk path).
    fn position(&self, jump: &Jump, t: f64) -> (f32, f32) {
        let s = (((t - jump.event.t) / f64::from(jump.event.duration)) as f32).clamp(0.0, 1.0);
        let p = s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
        (
            jump.from.0 + jump.event.yaw_deg * p,
            jump.from.1 + jump.event.pitch_deg * p,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::testing;

    #[test]
    fn directions_name_their_sectors() {
        use SaccadeDirection as D;
        assert_eq!(D::of(1.0, 0.0), D::Left);
        assert_eq!(D::of(-1.0, 0.0), D::Right);
        assert_eq!(D::of(0.0, -1.0), D::Up);
        assert_eq!(D::of(0.0, 1.0), D::Down);
        assert_eq!(D::of(1.0, -1.0), D::UpLeft);
        assert_eq!(D::of(-1.0, 1.0), D::DownRight);
        for d in D::ALL {
            for turn in [-20.0, 0.0, 20.0] {
                let (y, p) = d.unit(turn);
                assert_eq!(D::of(y, p), d, "{d:?} turned {turn}");
            }
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.name()));
        }
    }

    #[test]
    fn jumps_follow_a_smooth_path_to_their_target() {
        let mut g = SaccadeGenerator::new(&SaccadeConfig::default());
        let mut rng = Pcg32::new(11);
        let mut prev = (0.0f32, 0.0f32);
        let dt = 1.0 / 1000.0;
        let mut seen = 0;
        for _ in 0..20_000 {
            let o = g.update(dt, &mut rng);
            // At most the peak speed of a minimum-jerk move of 15° in its duration.
            let step = ((o.yaw_deg - prev.0).powi(2) + (o.pitch_deg - prev.1).powi(2)).sqrt();
            let c = g.config();
            let peak = 1.875 * 15.0 / c.duration(15.0);
            assert!(step <= peak * dt * 1.05 + 1e-4, "{step}");
            prev = (o.yaw_deg, o.pitch_deg);
            seen += usize::from(o.started.is_some());
        }
        assert!(seen > 5);
    }

    #[test]
    fn check_names_bad_fields() {
        let c = SaccadeConfig {
            diagonal_share: 0.5,
            ..SaccadeConfig::default()
        };
        assert!(c.check().unwrap_err().to_string().contains("diagonalShare"));
        let s = c.sanitized();
        assert!((s.diagonal_share - 0.3).abs() < 1e-6);
        assert!(SaccadeConfig::default().check().is_ok());
    }

    /// A config with every number drawn from `n` (23 of them).
    fn config_from(mut n: testing::Numbers) -> SaccadeConfig {
        let d = SaccadeConfig::default();
        let c = SaccadeConfig {
            hold: n.span_modes(d.hold),
            follow_up_probability: n.num(d.follow_up_probability),
            follow_up_hold: n.span(d.follow_up_hold),
            run_reset_hold: n.num(d.run_reset_hold),
            shrink: n.num(d.shrink),
            amplitude_mean_deg: n.num(d.amplitude_mean_deg),
            amplitude_min_deg: n.num(d.amplitude_min_deg),
            amplitude_max_deg: n.num(d.amplitude_max_deg),
            horizontal_share: n.num(d.horizontal_share),
            diagonal_share: n.num(d.diagonal_share),
            angle_jitter_deg: n.num(d.angle_jitter_deg),
            max_yaw_deg: n.num(d.max_yaw_deg),
            max_pitch_deg: n.num(d.max_pitch_deg),
            duration_base: n.num(d.duration_base),
            duration_per_deg: n.num(d.duration_per_deg),
        };
        n.finish();
        c
    }

    proptest::proptest! {
        #[test]
        fn sanitized_passes_check_and_checked_configs_are_kept(n in testing::numbers(23)) {
            let x = config_from(n);
            let s = x.sanitized();
            proptest::prop_assert_eq!(s.check(), Ok(()), "{:?}", x);
            proptest::prop_assert_eq!(&s.sanitized(), &s);
            if x.check().is_ok() {
                proptest::prop_assert_eq!(&s, &x);
            }
        }
    }

    #[test]
    fn the_bounds_table_covers_every_number_and_non_finite_takes_the_default() {
        testing::covers_every_number(SACCADE_BOUNDS, &[]);
        testing::non_finite_takes_the_default(
            SACCADE_BOUNDS,
            SaccadeConfig::check,
            SaccadeConfig::sanitized,
        );
    }

    #[test]
    fn every_nan_sanitises_to_the_documented_default() {
        let nan = f32::NAN;
        let s = Span::new(nan, nan);
        let all_nan = SaccadeConfig {
            hold: PerMode::new(s, s, s, s),
            follow_up_probability: nan,
            follow_up_hold: s,
            run_reset_hold: nan,
            shrink: nan,
            amplitude_mean_deg: nan,
            amplitude_min_deg: nan,
            amplitude_max_deg: nan,
            horizontal_share: nan,
            diagonal_share: nan,
            angle_jitter_deg: nan,
            max_yaw_deg: nan,
            max_pitch_deg: nan,
            duration_base: nan,
            duration_per_deg: nan,
        };
        assert_eq!(all_nan.sanitized(), SaccadeConfig::default());
        // The four that used to fall back elsewhere (0, 90°, 0, 0).
        let one = |f: fn(&mut SaccadeConfig)| {
            let mut c = SaccadeConfig::default();
            f(&mut c);
            c.sanitized()
        };
        let c = one(|c| c.follow_up_probability = f32::NAN);
        assert_eq!(c.follow_up_probability, 0.25);
        assert_eq!(
            one(|c| c.amplitude_max_deg = f32::NAN).amplitude_max_deg,
            15.0
        );
        assert_eq!(one(|c| c.diagonal_share = f32::NAN).diagonal_share, 0.15);
        assert_eq!(
            one(|c| c.angle_jitter_deg = f32::NAN).angle_jitter_deg,
            10.0
        );
    }

    #[test]
    fn cross_field_ends_follow_the_sanitised_fields() {
        let c = SaccadeConfig {
            hold: PerMode::new(
                Span::new(f32::INFINITY, 1.0),
                Span::new(-1.0, 1e6),
                Span::new(5.0, 11.0),
                Span::new(2.0, 6.0),
            ),
            amplitude_min_deg: 200.0,
            amplitude_max_deg: f32::NAN,
            horizontal_share: 0.95,
            diagonal_share: f32::NAN,
            ..SaccadeConfig::default()
        };
        let e = c.check().unwrap_err().to_string();
        assert!(e.starts_with("hold.idle.min = inf"), "{e}");
        let s = c.sanitized();
        assert_eq!(s.hold.idle, Span::new(0.4, 1.0));
        assert_eq!(s.hold.talking, Span::new(0.0, 3600.0));
        // The default 15° is below the (clamped) minimum of 90°.
        assert_eq!((s.amplitude_min_deg, s.amplitude_max_deg), (90.0, 90.0));
        // The default 0.15 is above 1 − 0.95.
        assert!((s.diagonal_share - 0.05).abs() < 1e-6);
        assert_eq!(s.check(), Ok(()));
    }
}
