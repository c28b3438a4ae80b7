//! Smoothing that does not depend on the frame rate.
//!
//! Every filter here is the exact solution of a continuous first-order low-pass
//! `y' = (x − y) / τ` over one step, with the input taken as the straight line between
//! the previous and the current sample (first-order hold). Sampling the same signal at
//! 30, 60 or 144 fps therefore gives the same curve up to the signal's curvature, not up
//! to `dt` as a per-frame `lerp(y, x, k)` would.

use glam::Quat;
use serde::{Deserialize, Serialize};

use crate::sanitize::finite_or_zero;

/// One exact step of the low-pass with time constant `tau` for an input moving linearly
/// from `x0` to `x1` over `dt`, starting from output `y0`.
#[inline]
pub fn low_pass_step(y0: f32, x0: f32, x1: f32, dt: f32, tau: f32) -> f32 {
    if tau <= 0.0 {
        return x1;
    }
    let a = (-dt / tau).exp();
    let k_tau = (x1 - x0) * (tau / dt);
    x1 - k_tau + a * (y0 - x0 + k_tau)
}

/// [`low_pass_step`] with its two coefficients computed once, for applying the same
/// half-life to many channels in one frame (one `exp` per frame, not per channel).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LowPassStep {
    a: f32,
    c: f32,
}

impl LowPassStep {
    /// Coefficients for `half_life` seconds over a step of `dt`; `None` when either is
    /// not positive (pass the input through).
    pub fn new(half_life: f32, dt: f32) -> Option<Self> {
        (half_life > 0.0 && dt > 0.0).then(|| {
            let tau = half_life / std::f32::consts::LN_2;
            Self {
                a: (-dt / tau).exp(),
                c: tau / dt,
            }
        })
    }

    /// One step from output `y0`, for an input moving linearly from `x0` to `x1`.
    #[inline]
    pub fn apply(self, y0: f32, x0: f32, x1: f32) -> f32 {
        let k = (x1 - x0) * self.c;
        x1 - k + self.a * (y0 - x0 + k)
    }
}

/// Exponential smoothing by half-life: after `half_life` seconds a step is half done.
///
/// ```
/// use omote_core::smoothing::ExpSmoother;
/// let mut s = ExpSmoother::new(0.1);
/// s.reset(0.0);
/// let y = s.update(1.0, 0.1);
/// assert!(y > 0.25 && y < 0.35); // a step input counts as a ramp over its frame
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpSmoother {
    half_life: f32,
    state: Option<(f32, f32)>,
}

impl ExpSmoother {
    /// A smoother with `half_life` seconds (0 passes input through).
    pub fn new(half_life: f32) -> Self {
        Self {
            half_life: half_life.max(0.0),
            state: None,
        }
    }

    /// Forget history; the next output is `value`.
    pub fn reset(&mut self, value: f32) {
        self.state = Some((value, value));
    }

    /// Feed the sample `x` taken `dt` seconds after the previous one.
    pub fn update(&mut self, x: f32, dt: f32) -> f32 {
        let Some((y0, x0)) = self.state else {
            if x.is_finite() {
                self.state = Some((x, x));
            }
            return finite_or_zero(x);
        };
        if !(x.is_finite() && dt > 0.0 && dt.is_finite()) {
            return y0;
        }
        let tau = self.half_life / std::f32::consts::LN_2;
        let y = low_pass_step(y0, x0, x, dt, tau);
        self.state = Some((y, x));
        y
    }

    /// The last output.
    pub fn value(&self) -> f32 {
        self.state.map_or(0.0, |s| s.0)
    }
}

/// One Euro filter settings (Casiez, Roussel, Vogel, CHI 2012): a low-pass whose cutoff
/// rises with speed, so slow motion is steady and fast motion has little lag.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OneEuroConfig {
    /// Cutoff (Hz) at rest; lower is smoother.
    pub min_cutoff: f32,
    /// How fast the cutoff rises with speed (per unit/s).
    pub beta: f32,
    /// Cutoff (Hz) for the speed estimate.
    pub derivative_cutoff: f32,
}

impl Default for OneEuroConfig {
    fn default() -> Self {
        Self {
            min_cutoff: 1.5,
            beta: 0.02,
            derivative_cutoff: 1.0,
        }
    }
}

impl OneEuroConfig {
    fn tau(hz: f32) -> f32 {
        if hz > 0.0 {
            1.0 / (std::f32::consts::TAU * hz)
        } else {
            f32::INFINITY
        }
    }

    /// Time constant for the main filter at a given (smoothed) speed.
    fn main_tau(&self, speed: f32) -> f32 {
        Self::tau(self.min_cutoff + self.beta * speed.abs())
    }
}

/// The One Euro filter for one scalar.
///
/// ```
/// use omote_core::{smoothing::{OneEuroConfig, OneEuroFilter}};
/// let mut f = OneEuroFilter::new(OneEuroConfig::default());
/// assert_eq!(f.update(1.0, 1.0 / 60.0), 1.0); // the first sample passes through
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneEuroFilter {
    config: OneEuroConfig,
    /// (output, previous input, smoothed speed)
    state: Option<(f32, f32, f32)>,
}

impl OneEuroFilter {
    /// A filter with no history.
    pub fn new(config: OneEuroConfig) -> Self {
        Self {
            config,
            state: None,
        }
    }

    /// Forget history.
    pub fn reset(&mut self) {
        self.state = None;
    }

    /// Feed the sample `x` taken `dt` seconds after the previous one. Non-finite input
    /// or a non-positive `dt` returns the previous output unchanged.
    pub fn update(&mut self, x: f32, dt: f32) -> f32 {
        let Some((y0, x0, s0)) = self.state else {
            if !x.is_finite() {
                return 0.0;
            }
            self.state = Some((x, x, 0.0));
            return x;
        };
        if !(x.is_finite() && dt > 0.0 && dt.is_finite()) {
            return y0;
        }
        if self.config.min_cutoff == f32::INFINITY {
            self.state = Some((x, x, 0.0));
            return x;
        }
        let slope = (x - x0) / dt;
        // Over the step the slope is constant, so the speed filter's exact step is the
        // zero-order one.
        let a = (-dt / OneEuroConfig::tau(self.config.derivative_cutoff)).exp();
        let speed = slope + a * (s0 - slope);
        let y = low_pass_step(y0, x0, x, dt, self.config.main_tau(speed));
        self.state = Some((y, x, speed));
        y
    }

    /// The last output.
    pub fn value(&self) -> f32 {
        self.state.map_or(0.0, |s| s.0)
    }
}

/// The One Euro filter for rotations. Speed is the angular speed in degrees per second;
/// the low-pass runs in the tangent space around the newest sample, so it is exact in
/// the same sense as the scalar filter and never leaves the unit sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneEuroQuatFilter {
    config: OneEuroConfig,
    /// (output, previous input, smoothed speed in deg/s)
    state: Option<(Quat, Quat, f32)>,
}

impl OneEuroQuatFilter {
    /// A filter with no history.
    pub fn new(config: OneEuroConfig) -> Self {
        Self {
            config,
            state: None,
        }
    }

    /// Forget history.
    pub fn reset(&mut self) {
        self.state = None;
    }

    /// Feed the rotation `q` taken `dt` seconds after the previous one.
    pub fn update(&mut self, q: Quat, dt: f32) -> Quat {
        let Some(mut x) = normalize_quat(q) else {
            return self.state.map_or(Quat::IDENTITY, |s| s.0);
        };
        let Some((y0, x0, s0)) = self.state else {
            self.state = Some((x, x, 0.0));
            return x;
        };
        if !(dt > 0.0 && dt.is_finite()) {
            return y0;
        }
        if self.config.min_cutoff == f32::INFINITY {
            self.state = Some((x, x, 0.0));
            return x;
        }
        // Stay in x0's hemisphere so the difference is the short way round.
        if x.dot(x0) < 0.0 {
            x = -x;
        }
        let inv = x.inverse();
        let e_x0 = (inv * x0).to_scaled_axis();
        let mut rel_y = inv * y0;
        if rel_y.w < 0.0 {
            rel_y = -rel_y;
        }
        let e_y0 = rel_y.to_scaled_axis();
        let slope_deg = e_x0.length().to_degrees() / dt;
        let a_d = (-dt / OneEuroConfig::tau(self.config.derivative_cutoff)).exp();
        let speed = slope_deg + a_d * (s0 - slope_deg);
        let tau = self.config.main_tau(speed);
        // The scalar step with x1 = 0 (we are at x) applied per axis.
        let e_y = if tau <= 0.0 {
            glam::Vec3::ZERO
        } else {
            let a = (-dt / tau).exp();
            let k_tau = -e_x0 * (tau / dt);
            -k_tau + a * (e_y0 - e_x0 + k_tau)
        };
        let y = (x * Quat::from_scaled_axis(e_y)).normalize();
        self.state = Some((y, x, speed));
        y
    }

    /// The last output.
    pub fn value(&self) -> Quat {
        self.state.map_or(Quat::IDENTITY, |s| s.0)
    }
}

/// `q` scaled to unit length, or `None` when it has no direction (zero, NaN, infinite).
/// Scales by the largest component first so huge finite inputs do not overflow.
pub fn normalize_quat(q: Quat) -> Option<Quat> {
    let v = glam::Vec4::from(q);
    let m = v.abs().max_element();
    if !(m.is_finite() && m > 0.0) {
        return None;
    }
    let u = (v / m).normalize();
    u.is_finite().then(|| Quat::from_vec4(u))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signal(t: f32) -> f32 {
        // A slow wave with a faster burst: exercises the adaptive cutoff.
        (t * 1.3).sin() * 20.0 + (t * 7.0).sin() * 5.0 * (t - 2.0).clamp(0.0, 1.0)
    }

    /// Run a filter over `seconds` at `fps` and return its output every 1/6 s.
    fn sample_every_sixth(fps: u32, seconds: u32, mut f: impl FnMut(f32, f32) -> f32) -> Vec<f32> {
        let dt = 1.0 / fps as f32;
        let per = fps / 6;
        let mut out = Vec::new();
        for i in 0..=(fps * seconds) {
            let y = f(signal(i as f32 * dt), dt);
            if i % per == 0 {
                out.push(y);
            }
        }
        out
    }

    fn max_diff(a: &[f32], b: &[f32]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn one_euro_is_frame_rate_independent() {
        let cfg = OneEuroConfig {
            min_cutoff: 1.0,
            beta: 0.05,
            derivative_cutoff: 1.0,
        };
        let run = |fps| {
            let mut f = OneEuroFilter::new(cfg);
            sample_every_sixth(fps, 5, |x, dt| f.update(x, dt))
        };
        let (a, b, c) = (run(30), run(60), run(144));
        // Signal amplitude is ~25; the filter lags by whole units, so these are tight.
        assert!(max_diff(&a, &c) < 0.15, "30 vs 144: {}", max_diff(&a, &c));
        assert!(max_diff(&b, &c) < 0.05, "60 vs 144: {}", max_diff(&b, &c));
        // And the filter does filter: it lags the raw signal.
        let raw: Vec<f32> = (0..a.len()).map(|i| signal(i as f32 / 6.0)).collect();
        assert!(max_diff(&c, &raw) > 1.0);
    }

    #[test]
    fn naive_lerp_is_not_rate_independent() {
        // The control: what the seed's per-frame lerp would do.
        let run = |fps| {
            let mut y = signal(0.0);
            sample_every_sixth(fps, 5, |x, _| {
                y += (x - y) * 0.2;
                y
            })
        };
        assert!(max_diff(&run(30), &run(144)) > 1.0);
    }

    #[test]
    fn exp_smoother_is_frame_rate_independent_and_halves() {
        let run = |fps| {
            let mut s = ExpSmoother::new(0.15);
            sample_every_sixth(fps, 5, |x, dt| s.update(x, dt))
        };
        assert!(max_diff(&run(30), &run(144)) < 0.1);
        // A held step is half done after one half-life (once the ramp frame is over).
        let mut s = ExpSmoother::new(0.5);
        s.reset(0.0);
        let dt = 0.001;
        let mut y = 0.0;
        let steps = 500;
        for _ in 0..steps {
            y = s.update(1.0, dt);
        }
        assert!((y - 0.5).abs() < 0.01, "{y}");
    }

    #[test]
    fn quaternion_filter_is_frame_rate_independent() {
        let cfg = OneEuroConfig {
            min_cutoff: 1.0,
            beta: 0.02,
            derivative_cutoff: 1.0,
        };
        let rot = |t: f32| {
            Quat::from_euler(
                glam::EulerRot::YXZ,
                signal(t).to_radians() * 1.5,
                (t * 0.7).sin() * 0.3,
                (t * 1.1).cos() * 0.2,
            )
        };
        let run = |fps: u32| {
            let mut f = OneEuroQuatFilter::new(cfg);
            let dt = 1.0 / fps as f32;
            let per = fps / 6;
            (0..=(fps * 5))
                .filter_map(|i| {
                    let q = f.update(rot(i as f32 * dt), dt);
                    (i % per == 0).then_some(q)
                })
                .collect::<Vec<_>>()
        };
        let (a, c) = (run(30), run(144));
        let worst = a
            .iter()
            .zip(&c)
            .map(|(x, y)| x.angle_between(*y).to_degrees())
            .fold(0.0, f32::max);
        assert!(worst < 0.2, "30 vs 144 fps differ by {worst}°");
        let lag = c
            .iter()
            .enumerate()
            .map(|(i, q)| q.angle_between(rot(i as f32 / 6.0)).to_degrees())
            .fold(0.0, f32::max);
        assert!(lag > 1.0, "filter must smooth: {lag}");
    }

    #[test]
    fn bad_samples_do_not_poison_state() {
        let mut f = OneEuroFilter::new(OneEuroConfig::default());
        f.update(1.0, 0.016);
        assert_eq!(f.update(f32::NAN, 0.016), 1.0);
        assert_eq!(f.update(2.0, 0.0), 1.0);
        assert!(f.update(2.0, 0.016).is_finite());
        let mut q = OneEuroQuatFilter::new(OneEuroConfig::default());
        assert_eq!(
            q.update(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), 0.016),
            Quat::IDENTITY
        );
        let r = q.update(Quat::from_rotation_y(0.5), 0.016);
        assert!(r.is_finite() && r.is_normalized());
        let r = q.update(-Quat::from_rotation_y(0.5), 0.016);
        assert!(r.angle_between(Quat::from_rotation_y(0.5)) < 1e-3);
    }
}
