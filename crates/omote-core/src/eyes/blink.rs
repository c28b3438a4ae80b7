//! Automatic blinking: when to blink, how deep, and the shape of one blink.
//!
//! **When.** Spontaneous blinks come at random intervals drawn from a log-normal
//! distribution with a mean per [`EyeMode`] and a coefficient of variation, never closer
//! than a minimum gap. As in docs/design.md § Blink, a due blink may be skipped with a probability, and
//! a spontaneous blink may be followed by a second one (a double blink). The generator
//! spaces its draws so that the blinks you see, doubles included and skips left out,
//! come on average every `interval` seconds. Large gaze shifts trigger extra blinks with
//! a probability that rises with the shift's amplitude, and blinks can be requested.
//!
//! **Never before acting changes** (docs/design.md § Blink). The timeline announces when the eye
//! area's acting will change ([`BlinkGenerator::schedule_eye_change`]); no spontaneous,
//! double or gaze blink starts within `suppressWindow` seconds (or one blink's longest
//! duration, if that is longer) before such a change. A due blink waits until the change
//! has passed. A blink in progress is never cut: it always plays to its end.
//!
//! **Shape.** A blink closes, holds and opens; each moving phase is eased by a curve and
//! closing is always faster than opening. Seed 001's keys (half-closed, closed,
//! half-open, open) are the midpoints and ends of these phases. A configured share of
//! blinks are partial.
//!
//! **Depth follows the expression** (the modulation of docs/design.md § Blink). The caller says how closed
//! the face already leaves the eyes ([`BlinkInput::closure`]); the blink adds only what
//! is left, so an eyes-closed expression gets no blink at all and a squint a shallow one.
//! The output is added to the blink channel *before* the VRM override pass, so that
//! overriding and binary expressions act on it exactly as the rules say.
//!
//! ```
//! use omote_core::{Pcg32, eyes::{BlinkConfig, BlinkGenerator, BlinkInput}};
//! let mut blink = BlinkGenerator::new(&BlinkConfig::default());
//! let mut rng = Pcg32::new(1);
//! let mut starts = 0;
//! for _ in 0..60 * 60 {
//!     let out = blink.update(1.0 / 60.0, &mut rng, &BlinkInput::default());
//!     starts += usize::from(out.started.is_some());
//!     assert!((0.0..=1.0).contains(&out.weight));
//! }
//! assert!((8..=30).contains(&starts), "{starts} blinks in a minute");
//! ```

use serde::{Deserialize, Serialize};

use crate::bounds::{Bound, Limit, check_all, sanitize_all, slot};
use crate::curve::ResponseCurve;
use crate::error::EyeRequestError;
use crate::error::EyesConfigError;
use crate::eyes::blink_motion::BlinkMotionDesc;
use crate::eyes::eye_mode::{EyeMode, PerMode};
use crate::eyes::time_queue::TimeQueue;
use crate::rng::Pcg32;
use crate::sanitize::{clamp01, positive_or_zero};
use crate::span::Span;

/// Settings of the automatic blink. Defaults follow the human data of docs/design.md § Blink
/// (Bentivoglio 1997, Doughty 2001, Evinger 1994). Durations are in seconds.
///
/// ```
/// use omote_core::eyes::BlinkConfig;
/// let c: BlinkConfig = serde_json::from_str(r#"{"intervalCv": 0.4, "doubleProbability": 0}"#).unwrap();
/// assert_eq!(c.interval_cv, 0.4);
/// assert_eq!(c.interval.talking, 2.3);
/// c.check().unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct BlinkConfig {
    /// Mean time between visible blinks, per eye mode (doubles count as blinks; skipped
    /// ones do not).
    pub interval: PerMode<f32>,
    /// Coefficient of variation (std / mean) of the log-normal interval draws.
    pub interval_cv: f32,
    /// No interval draw is shorter than this.
    pub min_gap: f32,
    /// Probability that a due spontaneous blink is skipped (docs/design.md § Blink's
    /// `randomThreshold`); the draws are spaced closer to keep `interval`.
    pub skip_probability: f32,
    /// Time from open to closed.
    pub close_duration: Span,
    /// Time the eyes stay closed.
    pub hold_duration: Span,
    /// Time from closed to open (at least 1.25 × the blink's closing time).
    pub open_duration: Span,
    /// Easing of the closing phase on [0, 1] → [0, 1] (0 open, 1 closed).
    pub close_easing: ResponseCurve,
    /// Easing of the opening phase on [0, 1] → [0, 1] (0 closed, 1 open).
    pub open_easing: ResponseCurve,
    /// Share of blinks that do not close fully.
    pub partial_share: f32,
    /// Depth of a partial blink.
    pub partial_depth: Span,
    /// Probability that a spontaneous blink is followed by a second one.
    pub double_probability: f32,
    /// Time from the end of the first blink of a double to the start of the second.
    pub double_gap: Span,
    /// Gaze shifts smaller than this (degrees) never trigger a blink.
    pub gaze_blink_min_deg: f32,
    /// Gaze shifts at least this large (degrees) trigger a blink with
    /// `gazeBlinkProbability`; in between, the probability rises linearly.
    pub gaze_blink_full_deg: f32,
    /// Probability of a blink for a gaze shift of `gazeBlinkFullDeg` or more.
    pub gaze_blink_probability: f32,
    /// No blink starts this long before a scheduled eye-area expression change; 0
    /// turns the suppression off.
    pub suppress_window: f32,
    /// A blink that would close the eyes less than this much (after the expression's
    /// closure and the override rules) is not started at all.
    pub min_visible_depth: f32,
    /// Use the built-in blink motions for the emotion presets
    /// ([`preset_blink_motions`](crate::eyes::preset_blink_motions)).
    pub preset_motions: bool,
    /// Custom blink motions; they take precedence over built-in ones for the same
    /// expression.
    pub motions: Vec<BlinkMotionDesc>,
}

impl Default for BlinkConfig {
    fn default() -> Self {
        Self {
            interval: PerMode::new(3.5, 2.3, 4.0, 6.0),
            interval_cv: 0.6,
            min_gap: 0.8,
            skip_probability: 0.0,
            close_duration: Span::new(0.06, 0.08),
            hold_duration: Span::new(0.01, 0.04),
            open_duration: Span::new(0.12, 0.2),
            close_easing: ResponseCurve::preset("ease-in").expect("preset exists"),
            open_easing: ResponseCurve::preset("ease-out").expect("preset exists"),
            partial_share: 0.15,
            partial_depth: Span::new(0.6, 0.85),
            double_probability: 0.15,
            double_gap: Span::new(0.04, 0.12),
            gaze_blink_min_deg: 15.0,
            gaze_blink_full_deg: 35.0,
            gaze_blink_probability: 1.0,
            suppress_window: 0.4,
            min_visible_depth: 0.05,
            preset_motions: true,
            motions: Vec::new(),
        }
    }
}

impl BlinkConfig {
    /// Check every number against its allowed range (one table in `blink.rs`,
    /// `BLINK_BOUNDS`, gives them; the rig-dependent parts are checked by
    /// [`check_rig`](Self::check_rig)). The error names the first field out of range.
    /// The generator also runs on unchecked settings, sanitising them, so loaders should
    /// call this to report mistakes.
    pub fn check(&self) -> Result<(), EyesConfigError> {
        check_all(BLINK_BOUNDS, self)
    }

    /// The same settings with every number forced into its allowed range, by the same
    /// table as [`check`](Self::check): NaN and ±∞ take the field's default, finite
    /// numbers out of range are clamped to the nearest end; a range's `max` is then
    /// raised to its `min`. A config that passes `check` comes back unchanged.
    pub fn sanitized(&self) -> Self {
        sanitize_all(BLINK_BOUNDS, self)
    }

    /// The longest a single blink can take with these settings.
    pub fn longest_blink(&self) -> f32 {
        let c = self.close_duration.max;
        c + self.hold_duration.max + self.open_duration.max.max(c * OPEN_OVER_CLOSE)
    }

    /// Probability that a gaze shift of `amplitude_deg` triggers a blink.
    pub fn gaze_blink_chance(&self, amplitude_deg: f32) -> f32 {
        let (lo, hi) = (self.gaze_blink_min_deg, self.gaze_blink_full_deg);
        if amplitude_deg.is_nan() || amplitude_deg < lo || amplitude_deg <= 0.0 {
            return 0.0;
        }
        let ramp = if hi > lo {
            ((amplitude_deg - lo) / (hi - lo)).min(1.0)
        } else {
            1.0
        };
        ramp * self.gaze_blink_probability
    }

    /// Mean of the spontaneous draws in `mode`: shorter than `interval` by the share of
    /// skipped draws and longer by the doubles, so that visible blinks average `interval`.
    fn draw_mean(&self, mode: EyeMode) -> f64 {
        f64::from(self.interval.get(mode))
            * f64::from(1.0 - self.skip_probability)
            * f64::from(1.0 + self.double_probability)
    }
}

/// Opening always takes at least this many times the closing time.
const OPEN_OVER_CLOSE: f32 = 1.25;

/// Every number of [`BlinkConfig`] with its allowed range, in file terms; drives both
/// [`BlinkConfig::check`] and [`BlinkConfig::sanitized`]. Ends are closed; a row whose end
/// reads other fields comes after their rows (see `eyes/bounds.rs`). One row per line, so
/// it reads as a table.
#[rustfmt::skip]
const BLINK_BOUNDS: &[Bound<BlinkConfig>] = {
    use Limit::{At, Of};
    type C = BlinkConfig;
    const P: &str = "a probability";
    const S60: &str = "0 to 60 s";
    const DEG: &str = "0 to 180 degrees";
    &[
        Bound::num_per_mode("interval", slot!(C, interval), At(0.05), At(3600.0), "0.05 to 3600 s"),
        Bound::num("intervalCv", slot!(C, interval_cv), At(0.0), At(3.0), "0 to 3"),
        Bound::num("minGap", slot!(C, min_gap), At(0.0), At(60.0), S60),
        Bound::num("skipProbability", slot!(C, skip_probability), At(0.0), At(0.99), "a probability below 1"),
        Bound::span("closeDuration", slot!(C, close_duration), At(0.001), At(5.0)),
        Bound::span("holdDuration", slot!(C, hold_duration), At(0.0), At(5.0)),
        Bound::span("openDuration", slot!(C, open_duration), At(0.001), At(5.0)),
        Bound::num("partialShare", slot!(C, partial_share), At(0.0), At(1.0), P),
        Bound::span("partialDepth", slot!(C, partial_depth), At(0.0), At(1.0)),
        Bound::num("doubleProbability", slot!(C, double_probability), At(0.0), At(1.0), P),
        Bound::span("doubleGap", slot!(C, double_gap), At(0.0), At(5.0)),
        Bound::num("gazeBlinkMinDeg", slot!(C, gaze_blink_min_deg), At(0.0), At(180.0), DEG),
        Bound::num("gazeBlinkFullDeg", slot!(C, gaze_blink_full_deg),
            Of(|c| c.gaze_blink_min_deg), At(180.0), "gazeBlinkMinDeg to 180 degrees"),
        Bound::num("gazeBlinkProbability", slot!(C, gaze_blink_probability), At(0.0), At(1.0), P),
        Bound::num("suppressWindow", slot!(C, suppress_window), At(0.0), At(60.0), S60),
        Bound::num("minVisibleDepth", slot!(C, min_visible_depth), At(0.0), At(1.0), "0 to 1"),
    ]
};

/// Why a blink happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BlinkCause {
    /// A random blink of the blink generator.
    Spontaneous,
    /// The second blink of a double blink.
    Double,
    /// Triggered by a large gaze shift.
    Gaze,
    /// Asked for through [`BlinkGenerator::request`] (an API call or a timeline event).
    Requested,
}

impl BlinkCause {
    /// The name used in anim files (`"spontaneous"`, `"double"`, `"gaze"`, `"requested"`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Spontaneous => "spontaneous",
            Self::Double => "double",
            Self::Gaze => "gaze",
            Self::Requested => "requested",
        }
    }
}

/// One blink, as reported when it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlinkEvent {
    /// Start time in seconds since the generator (the face) was created.
    pub t: f64,
    /// Time from open to closed (s).
    pub close_duration: f32,
    /// Time closed (s).
    pub hold_duration: f32,
    /// Time from closed to open (s); always longer than `close_duration`.
    pub open_duration: f32,
    /// How far the blink closes the eyes on top of the expression at its start, after
    /// the expression's closure and the override rules (0–1).
    pub depth: f32,
    /// Why it happened.
    pub cause: BlinkCause,
}

impl BlinkEvent {
    /// Close + hold + open.
    pub fn duration(&self) -> f32 {
        self.close_duration + self.hold_duration + self.open_duration
    }

    /// End time.
    pub fn end(&self) -> f64 {
        self.t + f64::from(self.duration())
    }

    /// Phase time at time `t`: 0–1 while closing, 1–2 while closed, 2–3 while opening
    /// (clamped to [0, 3]). Blink motion clips are keyed on this axis.
    pub fn phase_time(&self, t: f64) -> f32 {
        let e = (t - self.t).max(0.0) as f32;
        let (c, h, o) = (self.close_duration, self.hold_duration, self.open_duration);
        if e < c {
            e / c
        } else if e < c + h {
            1.0 + (e - c) / h
        } else if e < c + h + o {
            2.0 + (e - c - h) / o
        } else {
            3.0
        }
    }
}

/// What the blink generator needs to know about the face each frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlinkInput {
    /// How closed the current expression already leaves the eyes, 0 (open) to 1 (shut).
    pub closure: f32,
    /// How much of a blink the override rules let through (the last frame's blink
    /// multiplier, 1 when nothing overrides blink).
    pub visibility: f32,
    /// Amplitude in degrees of a gaze shift seen this frame, 0 for none.
    pub gaze_shift_deg: f32,
}

impl Default for BlinkInput {
    fn default() -> Self {
        Self {
            closure: 0.0,
            visibility: 1.0,
            gaze_shift_deg: 0.0,
        }
    }
}

/// The blink generator's output for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlinkOutput {
    /// Weight to add to the blink channel: the blink's shape × its depth × what the
    /// expression leaves open. 0 between blinks.
    pub weight: f32,
    /// Phase time of the blink in progress at the end of the frame (see
    /// [`BlinkEvent::phase_time`]); `None` between blinks.
    pub phase: Option<f32>,
    /// Depth of the blink in progress on top of the expression: its own depth × what
    /// the expression leaves open (`weight` is the blink's shape × this).
    pub depth: f32,
    /// Scale for a blink motion's extra channels: the blink's depth × the visibility.
    pub motion_scale: f32,
    /// A blink that started during this frame.
    pub started: Option<BlinkEvent>,
}

/// The most explicit blink requests waiting at once.
pub const MAX_BLINK_REQUESTS: usize = 4;
/// The most announced eye-area expression changes waiting at once.
pub const MAX_EYE_CHANGES: usize = 16;

/// Decides when the eyes blink and how each blink moves. Plain data; draws randomness
/// only from the [`Pcg32`] it is given, and only when something happens; allocates
/// nothing after construction. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct BlinkGenerator {
    config: BlinkConfig,
    mode: EyeMode,
    time: f64,
    next_spontaneous: Option<f64>,
    active: Option<Active>,
    double_at: Option<f64>,
    requests: TimeQueue<MAX_BLINK_REQUESTS>,
    eye_changes: TimeQueue<MAX_EYE_CHANGES>,
    window: f64,
}

#[derive(Clone, Copy, Debug)]
struct Active {
    event: BlinkEvent,
    /// Depth before the expression's closure and the override rules.
    nominal: f32,
}

impl BlinkGenerator {
    /// A generator in [`EyeMode::Idle`] at time 0 (settings are sanitized first).
    pub fn new(config: &BlinkConfig) -> Self {
        let config = config.sanitized();
        let window = if config.suppress_window > 0.0 {
            f64::from(config.suppress_window.max(config.longest_blink()))
        } else {
            -1.0
        };
        Self {
            config,
            mode: EyeMode::Idle,
            time: 0.0,
            next_spontaneous: None,
            active: None,
            double_at: None,
            requests: TimeQueue::new(),
            eye_changes: TimeQueue::new(),
            window,
        }
    }

    /// The (sanitized) settings.
    pub fn config(&self) -> &BlinkConfig {
        &self.config
    }

    /// The current mode.
    pub fn mode(&self) -> EyeMode {
        self.mode
    }

    /// Switch mode. The wait for the next spontaneous blink is stretched or shrunk by
    /// the ratio of the two modes' mean intervals (no random draw).
    pub fn set_mode(&mut self, mode: EyeMode) {
        if mode == self.mode {
            return;
        }
        if let Some(next) = self.next_spontaneous
            && next > self.time
        {
            let ratio = self.config.draw_mean(mode) / self.config.draw_mean(self.mode);
            self.next_spontaneous = Some(self.time + (next - self.time) * ratio);
        }
        self.mode = mode;
    }

    /// Seconds since creation (the sum of `dt`).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The blink in progress, if any.
    pub fn active(&self) -> Option<&BlinkEvent> {
        self.active.as_ref().map(|a| &a.event)
    }

    /// When the next spontaneous blink is due (before skipping and suppression), once
    /// the first update has drawn it.
    pub fn next_spontaneous(&self) -> Option<f64> {
        self.next_spontaneous
    }

    /// Ask for a blink `delay` seconds from now (0 = as soon as the eyes are free). A
    /// requested blink ignores the minimum gap and the suppression windows, but waits
    /// for a blink in progress to end and still follows the expression's depth.
    /// `false` if [`MAX_BLINK_REQUESTS`] are already waiting.
    pub fn request(&mut self, delay: f32) -> Result<(), EyeRequestError> {
        let delay = positive_or_zero(delay);
        queued(self.requests.push(self.time + f64::from(delay)))
    }

    /// Announce an eye-area expression change `t_from_now` seconds ahead (the scene
    /// timeline's look-ahead): no blink will start shortly before it. Refused when
    /// [`MAX_EYE_CHANGES`] changes are already waiting or the time is not finite.
    pub fn schedule_eye_change(&mut self, t_from_now: f32) -> Result<(), EyeRequestError> {
        if !t_from_now.is_finite() {
            return Err(EyeRequestError::NotFinite);
        }
        self.eye_changes.drop_before(self.time);
        queued(
            self.eye_changes
                .push(self.time + f64::from(t_from_now.max(0.0))),
        )
    }

    /// Forget every announced eye-area change (e.g. the scene was skipped).
    pub fn clear_eye_changes(&mut self) {
        self.eye_changes.clear();
    }

    /// The announced eye-area changes still ahead, as absolute times, earliest first.
    pub fn eye_changes(&self) -> &[f64] {
        self.eye_changes.as_slice()
    }

    /// How long before an announced eye-area change no blink starts (s; negative when
    /// suppression is off): the configured window, at least the longest blink.
    pub fn suppress_window(&self) -> f64 {
        self.window
    }

    /// Whether a blink starting at `t` would come too close before an announced change.
    pub fn is_suppressed(&self, t: f64) -> bool {
        self.window >= 0.0 && self.eye_changes.any_in(t, t + self.window)
    }

    /// Whether advancing by `dt` with a gaze shift of `gaze_shift_deg` can neither
    /// continue nor start a blink: [`update`](Self::update) would then give zero
    /// whatever the face, so callers may skip measuring it. (Most frames are quiet.)
    pub fn is_quiet(&self, dt: f32, gaze_shift_deg: f32) -> bool {
        let t1 = self.time + f64::from(dt);
        self.active.is_none()
            && self.next_spontaneous.is_some_and(|n| n > t1)
            && self.double_at.is_none_or(|d| d > t1)
            && self.requests.peek().is_none_or(|r| r > t1)
            && !(gaze_shift_deg > 0.0 && gaze_shift_deg >= self.config.gaze_blink_min_deg)
    }

    /// Advance by `dt` seconds: maybe start a blink, and give this frame's blink weight.
    pub fn update(&mut self, dt: f32, rng: &mut Pcg32, input: &BlinkInput) -> BlinkOutput {
        let dt = positive_or_zero(dt);
        if self.is_quiet(dt, input.gaze_shift_deg) {
            self.time += f64::from(dt);
            return BlinkOutput::default();
        }
        let t0 = self.time;
        let t1 = t0 + f64::from(dt);
        self.time = t1;
        let closure = clamp01(input.closure);
        let visibility = clamp01(input.visibility);
        if self.next_spontaneous.is_none() {
            let first = self.draw_interval(rng);
            self.next_spontaneous = Some(t0 + first);
        }
        self.eye_changes.drop_before(t0);

        let free_at = match self.active {
            Some(a) if a.event.end() > t1 => None,
            Some(a) => Some(a.event.end().max(t0)),
            None => Some(t0),
        };
        let mut started = None;
        if let Some(free) = free_at {
            self.active = None;
            let gaze = input.gaze_shift_deg;
            started = self.try_start(free, t1, rng, closure, visibility, gaze);
        }

        match self.active {
            Some(a) if a.event.end() > t1 => {
                let shape = self.shape(&a.event, t1);
                let depth = a.nominal * (1.0 - closure);
                BlinkOutput {
                    weight: clamp01(shape * depth),
                    phase: Some(a.event.phase_time(t1)),
                    depth,
                    motion_scale: a.nominal * visibility,
                    started,
                }
            }
            _ => {
                self.active = None;
                BlinkOutput {
                    started,
                    ..BlinkOutput::default()
                }
            }
        }
    }

    /// Start at most one blink in `[free, t1]`; the first of: the second blink of a
    /// double, a request, a gaze blink, a spontaneous blink.
    fn try_start(
        &mut self,
        free: f64,
        t1: f64,
        rng: &mut Pcg32,
        closure: f32,
        visibility: f32,
        gaze_shift_deg: f32,
    ) -> Option<BlinkEvent> {
        if let Some(d) = self.double_at {
            let s = d.max(free);
            if s <= t1 {
                self.double_at = None;
                if !self.is_suppressed(s)
                    && let Some(e) = self.start(s, BlinkCause::Double, rng, closure, visibility)
                {
                    return Some(e);
                }
            }
        }
        if let Some(r) = self.requests.peek() {
            let s = r.max(free);
            if s <= t1 {
                self.requests.pop();
                let e = self.start(s, BlinkCause::Requested, rng, closure, visibility);
                if let Some(e) = e {
                    self.push_back_spontaneous(e.t);
                    return Some(e);
                }
            }
        }
        let p = self.config.gaze_blink_chance(gaze_shift_deg);
        if p > 0.0 && rng.chance(p) && !self.is_suppressed(free) {
            let e = self.start(free, BlinkCause::Gaze, rng, closure, visibility);
            if let Some(e) = e {
                self.push_back_spontaneous(e.t);
                return Some(e);
            }
        }
        let due = self.next_spontaneous?;
        let s = due.max(free);
        if s > t1 || self.is_suppressed(s) {
            return None;
        }
        let next = s + self.draw_interval(rng);
        self.next_spontaneous = Some(next);
        if self.config.skip_probability > 0.0 && rng.chance(self.config.skip_probability) {
            return None;
        }
        let e = self.start(s, BlinkCause::Spontaneous, rng, closure, visibility)?;
        if self.config.double_probability > 0.0 && rng.chance(self.config.double_probability) {
            self.double_at = Some(e.end() + f64::from(self.config.double_gap.draw(rng)));
        }
        Some(e)
    }

    /// Draw a blink's depth and timing and start it at `t`, unless it would not show.
    fn start(
        &mut self,
        t: f64,
        cause: BlinkCause,
        rng: &mut Pcg32,
        closure: f32,
        visibility: f32,
    ) -> Option<BlinkEvent> {
        let c = &self.config;
        let nominal = if c.partial_share > 0.0 && rng.chance(c.partial_share) {
            c.partial_depth.draw(rng)
        } else {
            1.0
        };
        let close = c.close_duration.draw(rng);
        let hold = c.hold_duration.draw(rng);
        let open = c.open_duration.draw(rng).max(close * OPEN_OVER_CLOSE);
        let depth = nominal * (1.0 - closure) * visibility;
        if depth < c.min_visible_depth || depth <= 0.0 {
            return None;
        }
        let event = BlinkEvent {
            t,
            close_duration: close,
            hold_duration: hold,
            open_duration: open,
            depth,
            cause,
        };
        self.active = Some(Active { event, nominal });
        Some(event)
    }

    /// After a blink that was not planned, keep the next spontaneous one at least the
    /// minimum gap away.
    fn push_back_spontaneous(&mut self, t: f64) {
        let earliest = t + f64::from(self.config.min_gap);
        if let Some(n) = &mut self.next_spontaneous {
            *n = n.max(earliest);
        }
    }

    fn draw_interval(&self, rng: &mut Pcg32) -> f64 {
        let mean = self.config.draw_mean(self.mode);
        let cv = f64::from(self.config.interval_cv);
        let x = if cv > 0.0 {
            rng.log_normal(mean, cv)
        } else {
            mean
        };
        x.max(f64::from(self.config.min_gap))
    }

    /// The blink's closure (0–1, before depth) at time `t`.
    fn shape(&self, b: &BlinkEvent, t: f64) -> f32 {
        let e = (t - b.t).max(0.0) as f32;
        let (c, h, o) = (b.close_duration, b.hold_duration, b.open_duration);
        let v = if e < c {
            self.config.close_easing.eval(e / c)
        } else if e < c + h {
            1.0
        } else if e < c + h + o {
            1.0 - self.config.open_easing.eval((e - c - h) / o)
        } else {
            0.0
        };
        clamp01(v)
    }
}

/// A fixed-capacity queue's push as a result.
fn queued(pushed: bool) -> Result<(), EyeRequestError> {
    if pushed {
        Ok(())
    } else {
        Err(EyeRequestError::QueueFull)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::testing;

    const DT: f32 = 1.0 / 60.0;

    fn run(
        g: &mut BlinkGenerator,
        rng: &mut Pcg32,
        seconds: f32,
        input: &BlinkInput,
    ) -> Vec<(BlinkEvent, f32)> {
        let mut out = Vec::new();
        let mut peak = 0.0f32;
        for _ in 0..(seconds / DT) as usize {
            let o = g.update(DT, rng, input);
            if let Some(e) = o.started {
                out.push((e, 0.0));
            }
            peak = peak.max(o.weight);
            if o.phase.is_none()
                && let Some(last) = out.last_mut()
                && last.1 == 0.0
            {
                last.1 = peak;
                peak = 0.0;
            }
        }
        out
    }

    #[test]
    fn shape_closes_holds_and_opens_with_seed_001_midpoints() {
        let g = BlinkGenerator::new(&BlinkConfig::default());
        let b = BlinkEvent {
            t: 1.0,
            close_duration: 0.1,
            hold_duration: 0.05,
            open_duration: 0.2,
            depth: 1.0,
            cause: BlinkCause::Requested,
        };
        assert_eq!(g.shape(&b, 1.0), 0.0);
        // Half-way through closing, ease-in: a quarter closed (docs/design.md § Blink: ~0.3).
        assert!((g.shape(&b, 1.05) - 0.25).abs() < 1e-3);
        assert_eq!(g.shape(&b, 1.12), 1.0);
        // Half-way through opening, ease-out: a quarter closed still.
        assert!((g.shape(&b, 1.25) - 0.25).abs() < 1e-3);
        assert_eq!(g.shape(&b, 1.36), 0.0);
        assert_eq!(b.phase_time(1.05), 0.5);
        assert!((b.phase_time(1.125) - 1.5).abs() < 1e-4);
        assert_eq!(b.phase_time(9.0), 3.0);
    }

    #[test]
    fn depth_adds_only_what_the_expression_leaves_open() {
        let config = BlinkConfig {
            partial_share: 0.0,
            double_probability: 0.0,
            ..BlinkConfig::default()
        };
        let mut rng = Pcg32::new(5);
        let mut g = BlinkGenerator::new(&config);
        let squint = BlinkInput {
            closure: 0.4,
            ..BlinkInput::default()
        };
        let blinks = run(&mut g, &mut rng, 60.0, &squint);
        assert!(blinks.len() > 5);
        for (e, peak) in &blinks {
            assert!((e.depth - 0.6).abs() < 1e-6);
            assert!(*peak <= 0.6 + 1e-6 && *peak > 0.3, "{peak}");
        }
        let shut = BlinkInput {
            closure: 1.0,
            ..BlinkInput::default()
        };
        assert!(run(&mut g, &mut rng, 60.0, &shut).is_empty());
        let blocked = BlinkInput {
            visibility: 0.0,
            ..BlinkInput::default()
        };
        assert!(run(&mut g, &mut rng, 60.0, &blocked).is_empty());
    }

    #[test]
    fn requests_wait_for_the_blink_in_progress_and_ignore_suppression() {
        let mut g = BlinkGenerator::new(&BlinkConfig::default());
        let mut rng = Pcg32::new(1);
        assert!(g.schedule_eye_change(0.2).is_ok());
        assert!(g.request(0.0).is_ok() && g.request(0.0).is_ok());
        let blinks = run(&mut g, &mut rng, 1.0, &BlinkInput::default());
        assert_eq!(blinks.len(), 2);
        assert!(blinks.iter().all(|(e, _)| e.cause == BlinkCause::Requested));
        assert!(blinks[1].0.t >= blinks[0].0.end() - 1e-9);
        for _ in 0..MAX_BLINK_REQUESTS {
            assert!(g.request(10.0).is_ok());
        }
        assert_eq!(g.request(10.0), Err(EyeRequestError::QueueFull));
    }

    #[test]
    fn gaze_shift_probability_ramps_with_amplitude() {
        let c = BlinkConfig::default();
        assert_eq!(c.gaze_blink_chance(10.0), 0.0);
        assert_eq!(c.gaze_blink_chance(f32::NAN), 0.0);
        assert!((c.gaze_blink_chance(25.0) - 0.5).abs() < 1e-6);
        assert_eq!(c.gaze_blink_chance(50.0), 1.0);
    }

    #[test]
    fn mode_change_rescales_the_wait() {
        let mut g = BlinkGenerator::new(&BlinkConfig::default());
        let mut rng = Pcg32::new(9);
        g.update(DT, &mut rng, &BlinkInput::default());
        let now = g.time();
        let wait = g.next_spontaneous().unwrap() - now;
        g.set_mode(EyeMode::Focused);
        let stretched = g.next_spontaneous().unwrap() - now;
        assert!((stretched / wait - 6.0 / 3.5).abs() < 1e-9);
    }

    #[test]
    fn check_names_bad_fields_and_sanitize_fixes_them() {
        let mut c = BlinkConfig::default();
        c.interval.talking = -1.0;
        assert!(
            c.check()
                .unwrap_err()
                .to_string()
                .contains("interval.talking")
        );
        c.interval.talking = 2.3;
        c.open_duration = Span::new(0.2, 0.1);
        assert!(c.check().unwrap_err().to_string().contains("openDuration"));
        c.skip_probability = f32::NAN;
        let s = c.sanitized();
        assert_eq!(s.skip_probability, 0.0);
        assert!(s.open_duration.min <= s.open_duration.max);
        assert!(BlinkConfig::default().check().is_ok());
    }

    /// A config with every number drawn from `n` (24 of them), the rest default.
    fn config_from(mut n: testing::Numbers) -> BlinkConfig {
        let d = BlinkConfig::default();
        let c = BlinkConfig {
            interval: n.num_modes(d.interval),
            interval_cv: n.num(d.interval_cv),
            min_gap: n.num(d.min_gap),
            skip_probability: n.num(d.skip_probability),
            close_duration: n.span(d.close_duration),
            hold_duration: n.span(d.hold_duration),
            open_duration: n.span(d.open_duration),
            close_easing: d.close_easing,
            open_easing: d.open_easing,
            partial_share: n.num(d.partial_share),
            partial_depth: n.span(d.partial_depth),
            double_probability: n.num(d.double_probability),
            double_gap: n.span(d.double_gap),
            gaze_blink_min_deg: n.num(d.gaze_blink_min_deg),
            gaze_blink_full_deg: n.num(d.gaze_blink_full_deg),
            gaze_blink_probability: n.num(d.gaze_blink_probability),
            suppress_window: n.num(d.suppress_window),
            min_visible_depth: n.num(d.min_visible_depth),
            preset_motions: d.preset_motions,
            motions: d.motions,
        };
        n.finish();
        c
    }

    proptest::proptest! {
        #[test]
        fn sanitized_passes_check_and_checked_configs_are_kept(n in testing::numbers(24)) {
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
        // The easing curves are checked as curves; the motions by `check_rig`.
        testing::covers_every_number(BLINK_BOUNDS, &["closeEasing", "openEasing", "motions"]);
        testing::non_finite_takes_the_default(
            BLINK_BOUNDS,
            BlinkConfig::check,
            BlinkConfig::sanitized,
        );
    }

    #[test]
    fn every_nan_sanitises_to_the_documented_default() {
        let nan = f32::NAN;
        let spans = Span::new(nan, nan);
        let d = BlinkConfig::default();
        let all_nan = BlinkConfig {
            interval: PerMode::new(nan, nan, nan, nan),
            interval_cv: nan,
            min_gap: nan,
            skip_probability: nan,
            close_duration: spans,
            hold_duration: spans,
            open_duration: spans,
            close_easing: d.close_easing.clone(),
            open_easing: d.open_easing.clone(),
            partial_share: nan,
            partial_depth: spans,
            double_probability: nan,
            double_gap: spans,
            gaze_blink_min_deg: nan,
            gaze_blink_full_deg: nan,
            gaze_blink_probability: nan,
            suppress_window: nan,
            min_visible_depth: nan,
            preset_motions: d.preset_motions,
            motions: Vec::new(),
        };
        assert_eq!(all_nan.sanitized(), d);
        // The two that used to fall back elsewhere (180° and 0).
        let one = |f: fn(&mut BlinkConfig)| {
            let mut c = BlinkConfig::default();
            f(&mut c);
            c.sanitized()
        };
        assert_eq!(
            one(|c| c.gaze_blink_full_deg = f32::NAN).gaze_blink_full_deg,
            35.0
        );
        assert_eq!(
            one(|c| c.gaze_blink_probability = f32::NAN).gaze_blink_probability,
            1.0
        );
    }

    #[test]
    fn finite_numbers_out_of_range_are_clamped_to_the_nearest_end() {
        let c = BlinkConfig {
            interval: PerMode::new(-1.0, 1e9, 0.0, 6.0),
            skip_probability: 5.0,
            close_duration: Span::new(-3.0, 9.0),
            partial_depth: Span::new(0.9, 0.2),
            gaze_blink_min_deg: 50.0,
            gaze_blink_full_deg: 20.0,
            ..BlinkConfig::default()
        };
        let s = c.sanitized();
        assert_eq!(s.interval, PerMode::new(0.05, 3600.0, 0.05, 6.0));
        assert_eq!(s.skip_probability, 0.99);
        assert_eq!(s.close_duration, Span::new(0.001, 5.0));
        assert_eq!(s.partial_depth, Span::new(0.9, 0.9));
        assert_eq!((s.gaze_blink_min_deg, s.gaze_blink_full_deg), (50.0, 50.0));
        let e = c.check().unwrap_err().to_string();
        assert!(e.starts_with("interval.idle = -1"), "{e}");
    }
}
