//! The streaming analyser's mouth-class smoother: a six-state hidden Markov model over
//! A I U E O N, filtered frame by frame, with an optional one-frame look-ahead. How
//! readily the class moves, and how much one frame's scores count, follow the spectrum
//! ([`crate::SpectralChange`]).
//!
//! It replaced an exponential average of log-scores, which lags: at the same change rate
//! the filter is right more often on every evaluation group (`examples/stream_gap.rs`
//! measures it), because evidence adds up in the log domain — a clear new vowel takes
//! over at once, while a doubtful frame cannot pull the mouth away.

use crate::AnalyserConfig;

/// A six-state HMM in which the class stays with a probability per 10 ms frame and
/// otherwise moves to any other class with equal chance. The stay depends on the
/// frame's spectral change `c` (its cepstral distance from the frame before, relative to
/// the voice's typical one): `stay_at_change + (stay − stay_at_change) · exp(−(c / width)²)`,
/// so the class holds inside a steady vowel and moves freely at a phone boundary
/// ([`ClassFilter::stay`], computed once per frame and passed to [`ClassFilter::step`] and
/// to the previous frame's [`ClassFilter::look_ahead`]).
///
/// A frame in the middle of a move is a poor witness of either phone: its scores often
/// favour a third class the mouth only passes (A → O → U read as A, then O for two
/// frames, then U). So where the spectrum moves, its log-scores are also divided by
/// `1 + softening · (1 − exp(−(c / 2)²))` on top of the temperature
/// ([`ClassFilter::with_softening`], [`ClassFilter::evidence`]): the class may move
/// there, but only a clear frame moves it. Works on probabilities; a frame costs six
/// exponentials, and one more each for its stay and its softening when they follow the
/// spectrum.
///
/// ```
/// use omote_lipsync::ClassFilter;
/// let filter = ClassFilter::new(0.6, 1.0);
/// // Log-scores of an A frame, then of doubtful I frames, the spectrum steady (change 0).
/// let a = filter.evidence(&[0.0, -8.0, -8.0, -8.0, -8.0, -8.0], 0.0);
/// let i = filter.evidence(&[-1.0, 0.0, -3.0, -3.0, -3.0, -3.0], 0.0);
/// let steady = filter.stay(0.0);
/// let after_a = filter.step(None, &a, steady);
/// let after_i = filter.step(Some(&after_a), &i, steady);
/// // One doubtful frame does not move the mouth …
/// assert!(after_i[0] > after_i[1]);
/// // … a second one does.
/// let again = filter.step(Some(&after_i), &i, steady);
/// assert!(again[1] > again[0]);
///
/// // Where the spectrum moves (change 2, twice the typical), one frame is enough.
/// let moving = ClassFilter::with_change(0.9, 0.3, 0.6, 1.0);
/// let after_a = moving.step(None, &a, moving.stay(0.0));
/// assert!(moving.step(Some(&after_a), &i, moving.stay(0.0))[0] > 0.5);
/// assert!(moving.step(Some(&after_a), &i, moving.stay(2.0))[1] > 0.5);
///
/// // Softened there, a doubtful frame counts for less: I no longer wins at once.
/// let softened = moving.with_softening(4.0);
/// let doubtful = softened.evidence(&[-1.0, 0.0, -3.0, -3.0, -3.0, -3.0], 2.0);
/// let clear_a = softened.evidence(&[0.0, -8.0, -8.0, -8.0, -8.0, -8.0], 0.0);
/// let after_a = softened.step(None, &clear_a, 0.9);
/// let p = softened.step(Some(&after_a), &doubtful, softened.stay(2.0));
/// assert!(p[0] > p[1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassFilter {
    /// The stay where the spectrum is steady …
    stay: f32,
    /// … where it moves …
    stay_at_change: f32,
    /// … and the relative change at which it is `1/e` of the way between them.
    change_width: f32,
    temperature: f32,
    /// How much more the temperature grows where the spectrum moves (0: not at all).
    softening: f32,
}

/// The relative spectral change at which [`ClassFilter::with_softening`]'s softening has
/// grown `1 − 1/e` of the way to its full value: twice the voice's typical change, so
/// inside a vowel (changes about 1) it is a fifth of the way, at a phone boundary
/// (changes of 2–4) most of it.
pub const SOFTENING_WIDTH: f32 = 2.0;

impl ClassFilter {
    /// A filter whose class stays with `stay` per frame whatever the spectrum does
    /// (clamped to 1/6 — no smoothing — … 0.999) and whose log-scores are divided by
    /// `temperature` (at least 0.01). Non-finite values take [`AnalyserConfig::default`]'s.
    pub fn new(stay: f32, temperature: f32) -> Self {
        Self::with_change(stay, stay, 1.0, temperature)
    }

    /// A filter whose stay goes from `stay` where the spectrum is steady to
    /// `stay_at_change` where it moves (both clamped as in [`ClassFilter::new`]), over
    /// relative changes of about `change_width` (at least 0.01).
    pub fn with_change(
        stay: f32,
        stay_at_change: f32,
        change_width: f32,
        temperature: f32,
    ) -> Self {
        let d = AnalyserConfig::default();
        let or = |v: f32, default: f32| if v.is_finite() { v } else { default };
        Self {
            stay: or(stay, d.stream_stay).clamp(1.0 / 6.0, 0.999),
            stay_at_change: or(stay_at_change, d.stream_stay_at_change).clamp(1.0 / 6.0, 0.999),
            change_width: or(change_width, d.stream_change_width).max(0.01),
            temperature: or(temperature, d.stream_temperature).max(0.01),
            softening: 0.0,
        }
    }

    /// This filter with its frames' log-scores divided, where the spectrum moves, by up to
    /// `1 + softening` more (see the type's documentation; clamped to 0..=100, not
    /// finite: [`AnalyserConfig::default`]'s).
    pub fn with_softening(self, softening: f32) -> Self {
        let softening = if softening.is_finite() {
            softening
        } else {
            AnalyserConfig::default().stream_change_softening
        };
        Self {
            softening: softening.clamp(0.0, 100.0),
            ..self
        }
    }

    /// The filter of a config's `stream_stay`, `stream_stay_at_change`,
    /// `stream_change_width`, `stream_temperature` and `stream_change_softening`.
    pub fn from_config(config: &AnalyserConfig) -> Self {
        Self::with_change(
            config.stream_stay,
            config.stream_stay_at_change,
            config.stream_change_width,
            config.stream_temperature,
        )
        .with_softening(config.stream_change_softening)
    }

    /// The probability that the class stays over a frame whose relative spectral change
    /// is `change` (not finite: steady).
    pub fn stay(&self, change: f32) -> f32 {
        if self.stay == self.stay_at_change {
            return self.stay;
        }
        let steady = (-(finite_change(change) / self.change_width).powi(2)).exp();
        self.stay_at_change + (self.stay - self.stay_at_change) * steady
    }

    /// The temperature of a frame whose relative spectral change is `change`: the
    /// filter's own, times `1 + softening · (1 − exp(−(change / 2)²))`.
    pub fn temperature(&self, change: f32) -> f32 {
        if self.softening == 0.0 {
            return self.temperature;
        }
        let moving = 1.0 - (-(finite_change(change) / SOFTENING_WIDTH).powi(2)).exp();
        self.temperature * (1.0 + self.softening * moving)
    }

    /// A stay (clamped as in [`ClassFilter::new`]; not finite: the steady one) and the
    /// probability of moving to one given other class.
    fn stay_and_move(&self, stay: f32) -> (f32, f32) {
        let stay = if stay.is_finite() {
            stay.clamp(1.0 / 6.0, 0.999)
        } else {
            self.stay
        };
        (stay, (1.0 - stay) / 5.0)
    }

    /// A frame's evidence from its class log-scores and relative spectral change:
    /// `exp(score / temperature)` at [`ClassFilter::temperature`]`(change)`, scaled so the
    /// largest is 1 (a constant factor changes no posterior).
    pub fn evidence(&self, log_scores: &[f32; 6], change: f32) -> [f32; 6] {
        let top = log_scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if !top.is_finite() {
            return [1.0; 6];
        }
        let t = self.temperature(change);
        log_scores.map(|v| ((v - top) / t).exp())
    }

    /// One forward step: the class probabilities after a frame with `evidence` and `stay`
    /// ([`ClassFilter::stay`] of its spectral change), from those after the frame before
    /// (`None`: the first frame of a voiced run, whose stay is not used).
    pub fn step(&self, before: Option<&[f32; 6]>, evidence: &[f32; 6], stay: f32) -> [f32; 6] {
        let mut a = *evidence;
        if let Some(p) = before {
            let (stay, move_to) = self.stay_and_move(stay);
            // Σ_j P(j) · P(k | j) = move + (stay − move) · P(k), as P sums to 1.
            for (v, pk) in a.iter_mut().zip(p) {
                *v *= move_to + (stay - move_to) * pk;
            }
        }
        normalised(a)
    }

    /// The class probabilities of a frame given the frames up to it (`filtered`, from
    /// [`ClassFilter::step`]) and the next frame's evidence and stay.
    pub fn look_ahead(
        &self,
        filtered: &[f32; 6],
        next_evidence: &[f32; 6],
        next_stay: f32,
    ) -> [f32; 6] {
        let (stay, move_to) = self.stay_and_move(next_stay);
        // Σ_l P(l | k) · e(l) = move · Σe + (stay − move) · e(k).
        let total: f32 = next_evidence.iter().sum();
        normalised(std::array::from_fn(|k| {
            filtered[k] * (move_to * total + (stay - move_to) * next_evidence[k])
        }))
    }
}

/// A relative spectral change as the filter reads it: its size, and steady (0) when it
/// is not finite.
fn finite_change(change: f32) -> f32 {
    if change.is_finite() {
        change.abs()
    } else {
        0.0
    }
}

/// `v` scaled to sum to 1 (uniform when it sums to nothing: never NaN).
fn normalised(v: [f32; 6]) -> [f32; 6] {
    let t: f32 = v.iter().sum();
    if t > 0.0 && t.is_finite() {
        v.map(|x| x / t)
    } else {
        [1.0 / 6.0; 6]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full transition matrix's entry at relative spectral change `c`, written out
    /// from the formula in [`ClassFilter`]'s documentation.
    fn transition(f: &ClassFilter, c: f32, j: usize, k: usize) -> f32 {
        let stay =
            f.stay_at_change + (f.stay - f.stay_at_change) * (-(c / f.change_width).powi(2)).exp();
        if j == k { stay } else { (1.0 - stay) / 5.0 }
    }

    /// Posteriors by brute force: forward over `frames` (log-scores, relative change) with
    /// the full transition matrix, then (optionally) one step of look-ahead.
    fn brute(
        f: &ClassFilter,
        frames: &[([f32; 6], f32)],
        next: Option<&([f32; 6], f32)>,
    ) -> [f32; 6] {
        // Each frame at its own temperature, written out from the formula.
        let lik = |s: &[f32; 6], c: f32| {
            let moving = 1.0 - (-(c / SOFTENING_WIDTH).powi(2)).exp();
            let t = f.temperature * (1.0 + f.softening * moving);
            s.map(|v| (v / t).exp())
        };
        let mut p = lik(&frames[0].0, frames[0].1);
        for (s, c) in &frames[1..] {
            let l = lik(s, *c);
            p = std::array::from_fn(|k| {
                l[k] * (0..6).map(|j| p[j] * transition(f, *c, j, k)).sum::<f32>()
            });
        }
        if let Some((n, c)) = next {
            let l = lik(n, *c);
            p = std::array::from_fn(|k| {
                p[k] * (0..6).map(|m| transition(f, *c, k, m) * l[m]).sum::<f32>()
            });
        }
        normalised(p)
    }

    const FRAMES: [[f32; 6]; 4] = [
        [0.0, -2.0, -4.0, -1.0, -3.0, -2.5],
        [-1.5, 0.0, -2.0, -0.5, -3.0, -1.0],
        [-2.0, -0.3, 0.0, -1.0, -0.7, -4.0],
        [-0.2, -1.0, -0.1, -3.0, 0.0, -2.0],
    ];
    /// Relative spectral changes of those frames (the first one's only softens it).
    const CHANGES: [f32; 4] = [0.3, 0.2, 1.5, 0.6];

    #[test]
    fn the_closed_forms_are_the_hmm() {
        let frames: Vec<_> = FRAMES.into_iter().zip(CHANGES).collect();
        for f in [
            ClassFilter::new(0.6, 2.0),
            ClassFilter::new(0.5, 1.0),
            ClassFilter::with_change(0.9, 0.3, 0.6, 0.7),
            ClassFilter::with_change(0.93, 0.4, 0.58, 2.5),
            ClassFilter::with_change(0.93, 0.3, 0.58, 2.5).with_softening(4.0),
            ClassFilter::new(0.6, 1.0).with_softening(10.0),
        ] {
            let mut post: Option<[f32; 6]> = None;
            for n in 0..frames.len() {
                let evidence = f.evidence(&FRAMES[n], CHANGES[n]);
                let step = f.step(post.as_ref(), &evidence, f.stay(CHANGES[n]));
                let want = brute(&f, &frames[..=n], None);
                for (a, b) in step.iter().zip(&want) {
                    assert!((a - b).abs() < 1e-5, "filter {f:?} frame {n}");
                }
                if let Some(next) = frames.get(n + 1) {
                    let ahead = f.look_ahead(&step, &f.evidence(&next.0, next.1), f.stay(next.1));
                    let want = brute(&f, &frames[..=n], Some(next));
                    for (a, b) in ahead.iter().zip(&want) {
                        assert!((a - b).abs() < 1e-5, "look-ahead {f:?} frame {n}");
                    }
                }
                post = Some(step);
            }
        }
    }

    #[test]
    fn the_stay_follows_the_spectral_change() {
        let f = ClassFilter::with_change(0.93, 0.4, 0.58, 2.5);
        let stay = |c: f32| f.stay(c);
        assert!((stay(0.0) - 0.93).abs() < 1e-6);
        assert!(stay(0.3) > stay(0.6) && stay(0.6) > stay(1.2));
        assert!((stay(10.0) - 0.4).abs() < 1e-4);
        // Not finite reads as steady; the stay and the five moves always sum to 1, whatever
        // stay a caller passes.
        assert_eq!(stay(f32::NAN), stay(0.0));
        for c in [0.0, 0.5, 2.0, f32::INFINITY] {
            for given in [stay(c), c, -c, f32::NAN] {
                let (s, m) = f.stay_and_move(given);
                assert!((s + 5.0 * m - 1.0).abs() < 1e-6 && s.is_finite());
            }
        }
        // A constant filter ignores the change.
        let constant = ClassFilter::new(0.6, 2.0);
        assert_eq!(constant.stay(0.0), constant.stay(3.0));
    }

    #[test]
    fn the_softening_follows_the_spectral_change() {
        let f = ClassFilter::with_change(0.93, 0.3, 0.58, 2.5).with_softening(4.0);
        let t = |c: f32| f.temperature(c);
        // Steady: the filter's own temperature; at the softening width (2) 1 − 1/e of the
        // way to five times it; never more.
        assert!((t(0.0) - 2.5).abs() < 1e-6);
        assert!(t(0.5) < t(1.0) && t(1.0) < t(2.0) && t(2.0) < t(4.0));
        assert!((t(2.0) - 2.5 * (1.0 + 4.0 * (1.0 - (-1f32).exp()))).abs() < 1e-5);
        assert!(t(1e6) <= 2.5 * 5.0 + 1e-4 && t(1e6) > 12.4);
        assert_eq!(t(f32::NAN), t(0.0));
        assert_eq!(t(-1.0), t(1.0));
        // A softer frame's evidence is flatter: its loser keeps more.
        let scores = [0.0, -4.0, -4.0, -4.0, -4.0, -4.0];
        assert!(f.evidence(&scores, 3.0)[1] > f.evidence(&scores, 0.0)[1]);
        // No softening (the default of `new` and `with_change`) ignores the change; bad
        // softenings are clamped or replaced.
        let plain = ClassFilter::with_change(0.93, 0.3, 0.58, 2.5);
        assert_eq!(plain.temperature(5.0), plain.temperature(0.0));
        assert_eq!(plain.with_softening(-3.0).temperature(5.0), 2.5);
        assert!(plain.with_softening(1e9).temperature(1e6) <= 2.5 * 101.0 + 1e-2);
        let default = AnalyserConfig::default().stream_change_softening;
        assert_eq!(
            plain.with_softening(f32::NAN),
            plain.with_softening(default)
        );
    }

    #[test]
    fn a_sixth_does_not_smooth_and_bad_input_gives_no_nan() {
        let f = ClassFilter::new(1.0 / 6.0, 1.0);
        let first = f.step(None, &f.evidence(&FRAMES[0], 0.0), f.stay(0.0));
        let second = f.step(Some(&first), &f.evidence(&FRAMES[1], 0.0), f.stay(0.0));
        for (a, b) in second.iter().zip(normalised(FRAMES[1].map(f32::exp))) {
            assert!((a - b).abs() < 1e-5);
        }
        // Settings out of range are clamped; scores far apart or not finite stay finite.
        let wild = [
            [0.0, -1e30, -200.0, f32::NEG_INFINITY, -5.0, -1.0],
            [f32::NEG_INFINITY; 6],
            [1e30, 0.0, -1e30, 3.0, 2.0, 1.0],
        ];
        for (stay, t) in [
            (2.0, 0.0),
            (f32::NAN, f32::INFINITY),
            (-1.0, -5.0),
            (0.6, 2.0),
        ] {
            let f = ClassFilter::with_change(stay, 0.3, 0.5, t).with_softening(t);
            let mut post = f.step(None, &f.evidence(&FRAMES[0], 0.0), f.stay(0.0));
            for (n, s) in FRAMES.iter().chain(&wild).enumerate() {
                // Wild changes through `stay` and `evidence`, and wild stays given straight.
                let wild = [0.0, 1.0, f32::NAN, f32::INFINITY, -2.0][n % 5];
                let e = f.evidence(s, wild);
                post = f.look_ahead(&f.step(Some(&post), &e, f.stay(wild)), &e, wild);
                assert!(
                    post.iter().all(|v| v.is_finite() && *v >= 0.0),
                    "{stay} {t}: {post:?}"
                );
                assert!((post.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            }
        }
    }
}
