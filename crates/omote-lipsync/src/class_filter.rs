//! The streaming analyser's mouth-class smoother: a six-state hidden Markov model over
//! A I U E O N, filtered frame by frame, with an optional one-frame look-ahead.
//!
//! It replaced an exponential average of log-scores, which lags: at the same change rate
//! the filter is right more often on every evaluation group (`examples/stream_gap.rs`
//! measures it), because evidence adds up in the log domain — a clear new vowel takes
//! over at once, while a doubtful frame cannot pull the mouth away.

use crate::AnalyserConfig;

/// A six-state HMM in which the class stays with probability `stay` per 10 ms frame and
/// otherwise moves to any other class with equal chance. Works on probabilities; a frame
/// costs six exponentials.
///
/// ```
/// use omote_lipsync::ClassFilter;
/// let filter = ClassFilter::new(0.6, 1.0);
/// // Log-scores of an A frame, then of doubtful I frames.
/// let a = filter.evidence(&[0.0, -8.0, -8.0, -8.0, -8.0, -8.0]);
/// let i = filter.evidence(&[-1.0, 0.0, -3.0, -3.0, -3.0, -3.0]);
/// let after_a = filter.step(None, &a);
/// let after_i = filter.step(Some(&after_a), &i);
/// // One doubtful frame does not move the mouth …
/// assert!(after_i[0] > after_i[1]);
/// // … a second one does.
/// let again = filter.step(Some(&after_i), &i);
/// assert!(again[1] > again[0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassFilter {
    stay: f32,
    move_to: f32,
    temperature: f32,
}

impl ClassFilter {
    /// A filter whose class stays with `stay` per frame (clamped to 1/6 — no smoothing —
    /// … 0.999) and whose log-scores are divided by `temperature` (at least 0.01).
    /// Non-finite values take [`AnalyserConfig::default`]'s.
    pub fn new(stay: f32, temperature: f32) -> Self {
        let d = AnalyserConfig::default();
        let stay = if stay.is_finite() {
            stay
        } else {
            d.stream_stay
        }
        .clamp(1.0 / 6.0, 0.999);
        let temperature = if temperature.is_finite() {
            temperature
        } else {
            d.stream_temperature
        }
        .max(0.01);
        Self {
            stay,
            move_to: (1.0 - stay) / 5.0,
            temperature,
        }
    }

    /// The filter of a config's `stream_stay` and `stream_temperature`.
    pub fn from_config(config: &AnalyserConfig) -> Self {
        Self::new(config.stream_stay, config.stream_temperature)
    }

    /// A frame's evidence from its class log-scores: `exp(score / temperature)`, scaled
    /// so the largest is 1 (a constant factor changes no posterior).
    pub fn evidence(&self, log_scores: &[f32; 6]) -> [f32; 6] {
        let top = log_scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if !top.is_finite() {
            return [1.0; 6];
        }
        log_scores.map(|v| ((v - top) / self.temperature).exp())
    }

    /// One forward step: the class probabilities after a frame with `evidence`, from those
    /// after the frame before (`None`: the first frame of a voiced run).
    pub fn step(&self, before: Option<&[f32; 6]>, evidence: &[f32; 6]) -> [f32; 6] {
        let mut a = *evidence;
        if let Some(p) = before {
            // Σ_j P(j) · P(k | j) = move + (stay − move) · P(k), as P sums to 1.
            for (v, pk) in a.iter_mut().zip(p) {
                *v *= self.move_to + (self.stay - self.move_to) * pk;
            }
        }
        normalised(a)
    }

    /// The class probabilities of a frame given the frames up to it (`filtered`, from
    /// [`ClassFilter::step`]) and the next frame's evidence.
    pub fn look_ahead(&self, filtered: &[f32; 6], next_evidence: &[f32; 6]) -> [f32; 6] {
        // Σ_l P(l | k) · e(l) = move · Σe + (stay − move) · e(k).
        let total: f32 = next_evidence.iter().sum();
        normalised(std::array::from_fn(|k| {
            filtered[k] * (self.move_to * total + (self.stay - self.move_to) * next_evidence[k])
        }))
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

    fn transition(f: &ClassFilter, j: usize, k: usize) -> f32 {
        if j == k { f.stay } else { f.move_to }
    }

    /// Posteriors by brute force: forward over `frames` with the full transition matrix,
    /// then (optionally) one step of look-ahead.
    fn brute(f: &ClassFilter, frames: &[[f32; 6]], next: Option<&[f32; 6]>) -> [f32; 6] {
        let lik = |s: &[f32; 6]| s.map(|v| (v / f.temperature).exp());
        let mut p = lik(&frames[0]);
        for s in &frames[1..] {
            let l = lik(s);
            p = std::array::from_fn(|k| {
                l[k] * (0..6).map(|j| p[j] * transition(f, j, k)).sum::<f32>()
            });
        }
        if let Some(n) = next {
            let l = lik(n);
            p = std::array::from_fn(|k| {
                p[k] * (0..6).map(|m| transition(f, k, m) * l[m]).sum::<f32>()
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

    #[test]
    fn the_closed_forms_are_the_hmm() {
        for (stay, t) in [(0.6, 2.0), (0.5, 1.0), (0.9, 0.7)] {
            let f = ClassFilter::new(stay, t);
            let mut post: Option<[f32; 6]> = None;
            for n in 0..FRAMES.len() {
                let step = f.step(post.as_ref(), &f.evidence(&FRAMES[n]));
                let want = brute(&f, &FRAMES[..=n], None);
                for (a, b) in step.iter().zip(&want) {
                    assert!((a - b).abs() < 1e-5, "filter {stay} {t} frame {n}");
                }
                if let Some(next) = FRAMES.get(n + 1) {
                    let ahead = f.look_ahead(&step, &f.evidence(next));
                    let want = brute(&f, &FRAMES[..=n], Some(next));
                    for (a, b) in ahead.iter().zip(&want) {
                        assert!((a - b).abs() < 1e-5, "look-ahead {stay} {t} frame {n}");
                    }
                }
                post = Some(step);
            }
        }
    }

    #[test]
    fn a_sixth_does_not_smooth_and_bad_input_gives_no_nan() {
        let f = ClassFilter::new(1.0 / 6.0, 1.0);
        let first = f.step(None, &f.evidence(&FRAMES[0]));
        let second = f.step(Some(&first), &f.evidence(&FRAMES[1]));
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
            let f = ClassFilter::new(stay, t);
            let mut post = f.step(None, &f.evidence(&FRAMES[0]));
            for s in FRAMES.iter().chain(&wild) {
                let e = f.evidence(s);
                post = f.look_ahead(&f.step(Some(&post), &e), &e);
                assert!(
                    post.iter().all(|v| v.is_finite() && *v >= 0.0),
                    "{stay} {t}: {post:?}"
                );
                assert!((post.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            }
        }
    }
}
