//! The per-frame classifier in its fast form: a [`Profile`]'s Gaussians rearranged so a
//! frame costs one quadratic form plus a dot product per Gaussian — and, when the profile
//! has a [`ContextNet`], its logits over the frame's neighbours added.

use crate::ContextNet;
use crate::features::N_CEPS;
use crate::profile::{MAX_SUBCLASSES, Profile, log_sum_exp, quadratic_form};

/// Scores normalised cepstra against a [`Profile`] — the numbers of
/// [`Profile::log_scores`], computed as
/// `−½ s xᵀPx + s (Pμ)·x + (−½ s μᵀPμ + log w)` with the terms that do not depend on the
/// frame computed once here. Build it again after changing the profile.
///
/// A profile's [`ContextNet`] reads a frame with its neighbours, so it counts only where
/// they are given: [`ClassScorer::log_scores_at`] (a clip's frames) and
/// [`ClassScorer::log_scores_in_window`] (a stream's last frames) add its logits times
/// its weight; [`ClassScorer::log_scores`] is the Gaussians alone.
///
/// ```
/// use omote_lipsync::{ClassScorer, Profile};
/// let profile = Profile::builtin();
/// let scorer = ClassScorer::new(&profile);
/// let x = [0.5f32; 12];
/// let (fast, slow) = (scorer.log_scores(&x), profile.log_scores(&x));
/// assert!(fast.iter().zip(&slow).all(|(a, b)| (a - b).abs() < 1e-2));
/// ```
#[derive(Clone, Debug)]
pub struct ClassScorer {
    /// `−½ · sharpness · P`.
    half_precision: [[f32; N_CEPS]; N_CEPS],
    /// Per coefficient j, `sharpness · (P μ)[j]` of every Gaussian (grouped by class):
    /// laid out so the per-frame loop runs along the Gaussians, which vectorises.
    linear: [Vec<f32>; N_CEPS],
    /// Per Gaussian, `−½ · sharpness · μᵀ P μ + log w`.
    constant: Vec<f32>,
    /// Gaussians `range[k].0..range[k].1` are class k's.
    range: [(usize, usize); 6],
    bias: [f32; 6],
    net: Option<ContextNet>,
}

impl ClassScorer {
    /// The scorer of `profile` (one Gaussian per class, or its subclasses).
    pub fn new(profile: &Profile) -> Self {
        let s = profile.sharpness;
        // The formula only sees P's symmetric part (tᵀPt); the expansion below assumes
        // P = Pᵀ, so a hand-edited, slightly asymmetric matrix is symmetrised first.
        let p: [[f32; N_CEPS]; N_CEPS] = std::array::from_fn(|a| {
            std::array::from_fn(|b| 0.5 * (profile.precision[a][b] + profile.precision[b][a]))
        });
        let mut linear: [Vec<f32>; N_CEPS] = Default::default();
        let mut constant = Vec::new();
        let mut range = [(0, 0); 6];
        for (k, r) in range.iter_mut().enumerate() {
            let start = constant.len();
            for (mu, log_weight) in profile.class_gaussians(k) {
                let mut quad = 0f64;
                for (a, lin) in linear.iter_mut().enumerate() {
                    let pmu: f64 = (0..N_CEPS)
                        .map(|b| f64::from(p[a][b]) * f64::from(mu[b]))
                        .sum();
                    lin.push((f64::from(s) * pmu) as f32);
                    quad += f64::from(mu[a]) * pmu;
                }
                constant.push((-0.5 * f64::from(s) * quad) as f32 + log_weight);
            }
            *r = (start, constant.len());
        }
        let half_precision = p.map(|row| row.map(|v| -0.5 * s * v));
        Self {
            half_precision,
            linear,
            constant,
            range,
            bias: profile.bias,
            net: profile.context_net.clone(),
        }
    }

    /// The profile's context net, if it has one.
    pub fn context_net(&self) -> Option<&ContextNet> {
        self.net.as_ref()
    }

    /// Log-scores of frame `f` of a clip's normalised cepstra `frames`: the Gaussians'
    /// of the frame plus the context net's over its neighbours (a clip's edge repeating
    /// its end frame, as the net was trained). A frame outside the clip scores 0.
    #[inline]
    pub fn log_scores_at(&self, frames: &[[f32; N_CEPS]], f: usize) -> [f32; 6] {
        let Some(x) = frames.get(f) else {
            return [0.0; 6];
        };
        let mut s = self.log_scores(x);
        if let Some(net) = &self.net {
            add_scaled(&mut s, &net.logits_at(frames, f), net.weight);
        }
        s
    }

    /// Log-scores of a stream's frame `window[past]` (`past` being the net's): the
    /// Gaussians' of that frame plus the net's over `window`, which holds the net's
    /// [`ContextNet::window`] frames, oldest first. Without a net, or with a window of
    /// another length, the Gaussians' of the window's last frame.
    #[inline]
    pub fn log_scores_in_window(&self, window: &[[f32; N_CEPS]]) -> [f32; 6] {
        match &self.net {
            Some(net) if window.len() == net.window() => {
                let mut s = self.log_scores(&window[net.past]);
                add_scaled(&mut s, &net.logits(window), net.weight);
                s
            }
            _ => window.last().map_or([0.0; 6], |x| self.log_scores(x)),
        }
    }

    /// Log-scores of a (normalised) cepstrum for the six classes.
    #[inline]
    pub fn log_scores(&self, x: &[f32; N_CEPS]) -> [f32; 6] {
        let quad = quadratic_form(&self.half_precision, x);
        // Every Gaussian's frame-dependent term at once (a validated profile has at most
        // MAX_SUBCLASSES; the stack buffer keeps the per-frame path allocation-free).
        let n = self.constant.len();
        if n > MAX_SUBCLASSES {
            // Only an unvalidated profile gets here ([`Profile::validate`] refuses it).
            return self.log_scores_unbuffered(x, quad);
        }
        let mut t = [0f32; MAX_SUBCLASSES];
        let t = &mut t[..n];
        t.copy_from_slice(&self.constant);
        for (lin, xj) in self.linear.iter().zip(x) {
            for (v, l) in t.iter_mut().zip(lin) {
                *v += l * xj;
            }
        }
        std::array::from_fn(|k| {
            let (a, b) = self.range[k];
            log_sum_exp(t[a..b].iter().copied()) + quad + self.bias[k]
        })
    }

    /// [`ClassScorer::log_scores`] one Gaussian at a time (no buffer, any count).
    fn log_scores_unbuffered(&self, x: &[f32; N_CEPS], quad: f32) -> [f32; 6] {
        let term = |g: usize| {
            let mut v = self.constant[g];
            for (lin, xj) in self.linear.iter().zip(x) {
                v += lin[g] * xj;
            }
            v
        };
        std::array::from_fn(|k| {
            let (a, b) = self.range[k];
            log_sum_exp((a..b).map(term)) + quad + self.bias[k]
        })
    }
}

/// `s += weight · t`, class by class.
fn add_scaled(s: &mut [f32; 6], t: &[f32; 6], weight: f32) {
    for (a, b) in s.iter_mut().zip(t) {
        *a += weight * b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Subclass;

    /// Deterministic cepstra spread like real ones (|c1| up to ~10, higher ones smaller).
    fn frames() -> impl Iterator<Item = [f32; N_CEPS]> {
        let mut state = 7u64;
        (0..500).map(move |_| {
            std::array::from_fn(|j| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let u = (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                u * 20.0 / (1.0 + j as f32)
            })
        })
    }

    fn assert_same(profile: &Profile) {
        let scorer = ClassScorer::new(profile);
        for x in frames() {
            let (fast, slow) = (scorer.log_scores(&x), profile.log_scores(&x));
            for k in 0..6 {
                // Relative to the score's size: the fast form cancels large terms.
                let tol = 1e-3 * (1.0 + slow[k].abs());
                assert!(
                    (fast[k] - slow[k]).abs() <= tol,
                    "{k}: {fast:?} vs {slow:?}"
                );
            }
        }
    }

    #[test]
    fn the_fast_scores_are_the_formula() {
        let builtin = Profile::builtin();
        assert!(
            builtin.subclasses.len() > 6,
            "the built-in profile has subclasses"
        );
        assert_same(&builtin);
        // One Gaussian per class, and a sharper profile with biases.
        let mut plain = builtin.clone();
        plain.subclasses.clear();
        plain.sharpness = 2.5;
        plain.bias = [0.3, 0.0, -0.2, 0.0, 0.1, -1.0];
        assert_same(&plain);
    }

    #[test]
    fn an_asymmetric_precision_scores_as_the_formula_does() {
        let mut p = Profile::builtin();
        p.precision[0][3] += 0.05;
        p.precision[5][1] -= 0.02;
        assert_same(&p);
    }

    #[test]
    fn more_gaussians_than_the_buffer_still_score_right() {
        // Profile::validate refuses this many; the scorer must not panic on it anyway.
        let mut p = Profile::builtin();
        let copies = p.subclasses.clone();
        while p.subclasses.len() <= MAX_SUBCLASSES {
            p.subclasses.extend(copies.iter().cloned());
        }
        assert_same(&p);
    }

    #[test]
    fn a_class_of_one_subclass_scores_like_its_gaussian_plus_its_weight() {
        let mut p = Profile::builtin();
        p.subclasses = crate::Viseme::ALL
            .iter()
            .map(|&v| Subclass {
                class: v,
                phone: "x".into(),
                mean: p.means[v.index()],
                log_weight: -0.25,
            })
            .collect();
        let mut plain = p.clone();
        plain.subclasses.clear();
        let x = frames().next().unwrap();
        let (a, b) = (ClassScorer::new(&p).log_scores(&x), plain.log_scores(&x));
        for k in 0..6 {
            assert!((a[k] - (b[k] - 0.25)).abs() < 1e-2 * (1.0 + b[k].abs()));
        }
    }

    #[test]
    fn a_context_net_adds_its_weighted_logits_where_the_neighbours_are_given() {
        let mut p = Profile::builtin();
        p.context_net = None;
        let plain = ClassScorer::new(&p);
        let clip: Vec<[f32; N_CEPS]> = frames().take(12).collect();
        // Without a net every reading is the Gaussians'.
        for f in 0..clip.len() {
            assert_eq!(plain.log_scores_at(&clip, f), plain.log_scores(&clip[f]));
        }
        assert_eq!(
            plain.log_scores_in_window(&clip[..3]),
            plain.log_scores(&clip[2])
        );
        // A net that reads 2 frames back and 1 ahead.
        let inputs = 4 * N_CEPS;
        let net = ContextNet {
            past: 2,
            future: 1,
            weight: 0.5,
            input_mean: vec![0.0; inputs],
            input_scale: vec![0.1; inputs],
            hidden_weights: (0..inputs * 3)
                .map(|i| ((i % 7) as f32 - 3.0) * 0.1)
                .collect(),
            hidden_bias: vec![0.1; 3],
            output_weights: (0..18).map(|i| ((i % 5) as f32 - 2.0) * 0.3).collect(),
            output_bias: [0.0, 0.1, 0.2, 0.0, -0.1, -1.0],
        };
        net.validate("t").unwrap();
        p.context_net = Some(net.clone());
        let hybrid = ClassScorer::new(&p);
        for f in [0, 5, 11] {
            let (g, z) = (plain.log_scores(&clip[f]), net.logits_at(&clip, f));
            let h = hybrid.log_scores_at(&clip, f);
            for k in 0..6 {
                assert!((h[k] - (g[k] + 0.5 * z[k])).abs() < 1e-3 * (1.0 + g[k].abs()));
            }
            assert!(z.iter().any(|v| v.abs() > 0.01), "the net says something");
        }
        // A stream's window around frame 5 reads as the clip does.
        assert_eq!(
            hybrid.log_scores_in_window(&clip[3..7]),
            hybrid.log_scores_at(&clip, 5)
        );
        // Outside the clip: no score, no panic.
        assert_eq!(hybrid.log_scores_at(&clip, 99), [0.0; 6]);
    }
}
