//! Per-class feature profiles, the classifier that scores a frame against them, and the
//! builder that makes a profile from labelled frames (the built-in default and
//! per-speaker calibration are made by the same code).

use serde::{Deserialize, Serialize};

use crate::LipsyncError;
use crate::features::N_CEPS;

/// Format tag written into every profile JSON.
pub const PROFILE_FORMAT: &str = "omote-lipsync-profile/1";

const DEFAULT_JSON: &str = include_str!("../assets/default_profile.json");

/// Largest |value| of a class mean or the global mean (the built-in profile's are under
/// 10; cepstra of real audio stay within tens).
pub const MAX_MEAN: f32 = 1e3;
/// Largest |value| of a precision entry (the built-in profile's are under 1).
pub const MAX_PRECISION: f32 = 1e4;
/// Sharpness range (the built-in profile: 1).
pub const SHARPNESS_RANGE: (f32, f32) = (1e-3, 100.0);
/// Largest |bias| (a log-prior; the built-in profile's N bias is −0.5).
pub const MAX_BIAS: f32 = 100.0;

/// Class profiles for the six visemes: a mean cepstrum per class and the inverse of the
/// pooled within-class covariance (a shared-covariance Gaussian classifier, i.e. linear
/// discriminant analysis). A frame's log-score for class *k* is
/// `sharpness · (−½ (x − μₖ)ᵀ P (x − μₖ)) + bias[k]`; a softmax over the six gives weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always [`PROFILE_FORMAT`].
    pub format: String,
    /// How it was made (free text).
    pub description: String,
    /// Whether features are cepstral-mean normalised over the clip's voiced frames
    /// (running mean when streaming) before scoring.
    pub cmn: bool,
    /// Mean c1..c12 per class, in A I U E O N order.
    pub means: [[f32; N_CEPS]; 6],
    /// Inverse of the pooled within-class covariance (symmetric, positive definite).
    pub precision: [[f32; N_CEPS]; N_CEPS],
    /// Mean of all voiced training frames before normalisation: the starting estimate of
    /// a stream's cepstral mean.
    pub global_mean: [f32; N_CEPS],
    /// Multiplies the distance term (softmax temperature⁻¹).
    pub sharpness: f32,
    /// Additive log-prior per class.
    pub bias: [f32; 6],
    /// Training frames per class.
    pub frames: [u64; 6],
}

impl Profile {
    /// The built-in speaker-independent profile (`assets/default_profile.json`, made by
    /// `tools/lipsync/build-default-profile.sh`).
    pub fn builtin() -> Profile {
        // The asset is checked by a unit test; a broken one is a build defect.
        Profile::from_json(DEFAULT_JSON, "built-in").expect("built-in profile is valid")
    }

    /// Parses and validates a profile; `name` is used in errors.
    pub fn from_json(json: &str, name: &str) -> Result<Profile, LipsyncError> {
        let p: Profile = serde_json::from_str(json).map_err(|e| LipsyncError::Profile {
            name: name.to_string(),
            reason: e.to_string(),
        })?;
        p.validate(name)?;
        Ok(p)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks every number against its range (see [`MAX_MEAN`] and the other limits);
    /// `name` is used in errors. [`Profile::from_json`] and [`ProfileBuilder::build`] call it.
    pub fn validate(&self, name: &str) -> Result<(), LipsyncError> {
        let bad = |reason: &str| LipsyncError::Profile {
            name: name.into(),
            reason: reason.into(),
        };
        if self.format != PROFILE_FORMAT {
            return Err(bad(&format!(
                "format is {:?}, expected {PROFILE_FORMAT:?}",
                self.format
            )));
        }
        // Bounded so that a frame's score, −½·sharpness·(x − μ)ᵀP(x − μ) + bias, stays
        // finite for any real cepstrum: a profile of finite but huge numbers would
        // otherwise score inf − inf = NaN.
        let groups: [(&str, Vec<f32>, f32); 4] = [
            (
                "means",
                self.means.iter().flatten().copied().collect(),
                MAX_MEAN,
            ),
            ("globalMean", self.global_mean.to_vec(), MAX_MEAN),
            (
                "precision",
                self.precision.iter().flatten().copied().collect(),
                MAX_PRECISION,
            ),
            ("bias", self.bias.to_vec(), MAX_BIAS),
        ];
        for (field, values, max) in groups {
            if let Some(v) = values.iter().find(|v| !(v.is_finite() && v.abs() <= max)) {
                return Err(bad(&format!(
                    "{field}: {v} is not a finite number within ±{max}"
                )));
            }
        }
        if (0..N_CEPS).any(|j| self.precision[j][j] <= 0.0) {
            return Err(bad("precision diagonal must be > 0"));
        }
        let (lo, hi) = SHARPNESS_RANGE;
        if !(self.sharpness.is_finite() && (lo..=hi).contains(&self.sharpness)) {
            return Err(bad(&format!(
                "sharpness: {} is not between {lo} and {hi}",
                self.sharpness
            )));
        }
        Ok(())
    }

    /// Log-scores of a (normalised) cepstrum for the six classes.
    #[inline]
    pub fn log_scores(&self, x: &[f32; N_CEPS]) -> [f32; 6] {
        let mut out = [0f32; 6];
        for (k, o) in out.iter_mut().enumerate() {
            let mu = &self.means[k];
            let mut t = [0f32; N_CEPS];
            for j in 0..N_CEPS {
                t[j] = x[j] - mu[j];
            }
            let mut d = 0f32;
            for (a, row) in self.precision.iter().enumerate() {
                let mut r = 0f32;
                for b in 0..N_CEPS {
                    r += row[b] * t[b];
                }
                d += t[a] * r;
            }
            *o = -0.5 * self.sharpness * d + self.bias[k];
        }
        out
    }

    /// This profile adapted to one speaker: each class with at least `min_frames` frames
    /// in `speaker` gets the speaker's mean (shrunk toward this profile's mean by a prior
    /// of 10 frames); variance, sharpness and biases are kept.
    pub fn calibrated(
        &self,
        speaker: &ProfileBuilder,
        min_frames: u64,
    ) -> Result<Profile, LipsyncError> {
        let mut p = self.clone();
        let mut any = false;
        for k in 0..6 {
            let n = speaker.count[k];
            if n < min_frames {
                continue;
            }
            any = true;
            let prior = 10.0;
            for j in 0..N_CEPS {
                let m = speaker.sum[k][j] / n as f64;
                p.means[k][j] = ((m * n as f64 + f64::from(self.means[k][j]) * prior)
                    / (n as f64 + prior)) as f32;
            }
            p.frames[k] = n;
        }
        if !any {
            let best = (0..6).max_by_key(|k| speaker.count[*k]).unwrap_or(0);
            return Err(LipsyncError::TooFewFrames {
                class: crate::Viseme::ALL[best].letter(),
                frames: speaker.count[best] as usize,
                need: min_frames as usize,
            });
        }
        if speaker.voiced_count > 0 {
            for j in 0..N_CEPS {
                p.global_mean[j] = (speaker.voiced_sum[j] / speaker.voiced_count as f64) as f32;
            }
        }
        p.description = format!(
            "{} + calibrated on {} frames",
            self.description,
            speaker.count.iter().sum::<u64>()
        );
        Ok(p)
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::builtin()
    }
}

/// Accumulates labelled feature frames (already normalised as the profile will see them)
/// and builds a [`Profile`] from them.
#[derive(Clone, Debug, Default)]
pub struct ProfileBuilder {
    sum: [[f64; N_CEPS]; 6],
    sum_xx: [[[f64; N_CEPS]; N_CEPS]; 6],
    count: [u64; 6],
    voiced_sum: [f64; N_CEPS],
    voiced_count: u64,
}

impl ProfileBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one frame of class `class` (A..N index).
    pub fn add(&mut self, class: crate::Viseme, x: &[f32; N_CEPS]) {
        let k = class.index();
        for j in 0..N_CEPS {
            let v = f64::from(x[j]);
            self.sum[k][j] += v;
            for m in 0..N_CEPS {
                self.sum_xx[k][j][m] += v * f64::from(x[m]);
            }
        }
        self.count[k] += 1;
    }

    /// Adds an un-normalised voiced frame to the global mean (the streaming CMN start).
    pub fn add_raw_voiced(&mut self, x: &[f32; N_CEPS]) {
        for j in 0..N_CEPS {
            self.voiced_sum[j] += f64::from(x[j]);
        }
        self.voiced_count += 1;
    }

    /// Frames per class so far.
    pub fn counts(&self) -> [u64; 6] {
        self.count
    }

    /// Merges another builder's frames into this one.
    pub fn merge(&mut self, other: &ProfileBuilder) {
        for k in 0..6 {
            for j in 0..N_CEPS {
                self.sum[k][j] += other.sum[k][j];
                for m in 0..N_CEPS {
                    self.sum_xx[k][j][m] += other.sum_xx[k][j][m];
                }
            }
            self.count[k] += other.count[k];
        }
        for j in 0..N_CEPS {
            self.voiced_sum[j] += other.voiced_sum[j];
        }
        self.voiced_count += other.voiced_count;
    }

    /// Builds a profile: class means, pooled variance, equal biases. Every class needs at
    /// least `min_frames` frames.
    pub fn build(
        &self,
        description: &str,
        cmn: bool,
        sharpness: f32,
    ) -> Result<Profile, LipsyncError> {
        for k in 0..6 {
            if self.count[k] < 20 {
                return Err(LipsyncError::TooFewFrames {
                    class: crate::Viseme::ALL[k].letter(),
                    frames: self.count[k] as usize,
                    need: 20,
                });
            }
        }
        let mut means = [[0f32; N_CEPS]; 6];
        let mut within = [[0f64; N_CEPS]; N_CEPS];
        let total: u64 = self.count.iter().sum();
        for k in 0..6 {
            let n = self.count[k] as f64;
            let mu: Vec<f64> = (0..N_CEPS).map(|j| self.sum[k][j] / n).collect();
            for j in 0..N_CEPS {
                means[k][j] = mu[j] as f32;
                for m in 0..N_CEPS {
                    within[j][m] += self.sum_xx[k][j][m] - n * mu[j] * mu[m];
                }
            }
        }
        for row in &mut within {
            for v in row.iter_mut() {
                *v /= total as f64;
            }
        }
        // A small ridge keeps the inverse well conditioned.
        let ridge = 1e-3 * (0..N_CEPS).map(|j| within[j][j]).sum::<f64>() / N_CEPS as f64;
        for (j, row) in within.iter_mut().enumerate() {
            row[j] += ridge.max(1e-9);
        }
        let precision = invert_spd(&within).ok_or_else(|| LipsyncError::Profile {
            name: description.into(),
            reason: "within-class covariance is singular".into(),
        })?;
        let mut global_mean = [0f32; N_CEPS];
        if self.voiced_count > 0 {
            for j in 0..N_CEPS {
                global_mean[j] = (self.voiced_sum[j] / self.voiced_count as f64) as f32;
            }
        }
        let profile = Profile {
            format: PROFILE_FORMAT.into(),
            description: description.into(),
            cmn,
            means,
            precision,
            global_mean,
            sharpness,
            bias: [0.0; 6],
            frames: self.count,
        };
        // What `from_json` would refuse is never built (a sharpness of 0, NaN).
        profile.validate(description)?;
        Ok(profile)
    }
}

impl ProfileBuilder {
    /// Adds the labelled frames of one clip: every voiced frame at least 15 ms inside a
    /// segment labelled A I U E O or N (the scorer's margin), with the features the
    /// classifier would see.
    pub fn add_labelled_clip(
        &mut self,
        feats: &crate::ClipFeatures,
        labels: &[crate::labels::LabelSegment],
    ) {
        for (i, class) in crate::labels::training_frames(labels, feats.frames.len(), 0.015) {
            let (Some(v), true) = (class, feats.voicing.voiced[i]) else {
                continue;
            };
            self.add(v, &feats.normalised[i]);
            self.add_raw_voiced(&feats.frames[i].ceps);
        }
    }
}

/// Inverse of a symmetric positive definite matrix (Gauss–Jordan with partial pivoting);
/// `None` when singular.
fn invert_spd(a: &[[f64; N_CEPS]; N_CEPS]) -> Option<[[f32; N_CEPS]; N_CEPS]> {
    let n = N_CEPS;
    let mut m = [[0f64; 2 * N_CEPS]; N_CEPS];
    for i in 0..n {
        m[i][..n].copy_from_slice(&a[i]);
        m[i][n + i] = 1.0;
    }
    for c in 0..n {
        let p = (c..n).max_by(|x, y| m[*x][c].abs().total_cmp(&m[*y][c].abs()))?;
        if m[p][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, p);
        let d = m[c][c];
        for v in m[c].iter_mut() {
            *v /= d;
        }
        for r in 0..n {
            if r != c {
                let f = m[r][c];
                if f != 0.0 {
                    for k in 0..2 * n {
                        m[r][k] -= f * m[c][k];
                    }
                }
            }
        }
    }
    let mut out = [[0f32; N_CEPS]; N_CEPS];
    for i in 0..n {
        for j in 0..n {
            // Symmetrise against rounding.
            out[i][j] = (0.5 * (m[i][n + j] + m[j][n + i])) as f32;
        }
    }
    Some(out)
}
