//! Per-class feature profiles, the classifier that scores a frame against them, and the
//! builder that makes a profile from labelled frames (the built-in default and
//! per-speaker calibration are made by the same code).

use serde::{Deserialize, Serialize};

use crate::LipsyncError;
use crate::features::N_CEPS;

/// Format tag written into every profile JSON.
pub const PROFILE_FORMAT: &str = "omote-lipsync-profile/1";

const DEFAULT_JSON: &str = include_str!("../assets/default_profile.json");

/// Class profiles for the six visemes: a mean cepstrum per class and a pooled
/// within-class variance. A frame's log-score for class *k* is
/// `sharpness · (−½ Σ (x − μₖ)² / σ²) + bias[k]`; a softmax over the six gives weights.
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
    /// Pooled within-class variance per coefficient.
    pub variance: [f32; N_CEPS],
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

    fn validate(&self, name: &str) -> Result<(), LipsyncError> {
        let bad = |reason: &str| LipsyncError::Profile { name: name.into(), reason: reason.into() };
        if self.format != PROFILE_FORMAT {
            return Err(bad(&format!("format is {:?}, expected {PROFILE_FORMAT:?}", self.format)));
        }
        let finite = self.means.iter().flatten().chain(&self.variance).chain(&self.global_mean).chain(&self.bias);
        if !finite.into_iter().all(|v| v.is_finite()) || !self.sharpness.is_finite() {
            return Err(bad("non-finite number"));
        }
        if self.variance.iter().any(|v| *v <= 0.0) {
            return Err(bad("variance must be > 0"));
        }
        if self.sharpness <= 0.0 {
            return Err(bad("sharpness must be > 0"));
        }
        Ok(())
    }

    /// Log-scores of a (normalised) cepstrum for the six classes.
    #[inline]
    pub fn log_scores(&self, x: &[f32; N_CEPS]) -> [f32; 6] {
        let mut out = [0f32; 6];
        for (k, o) in out.iter_mut().enumerate() {
            let mu = &self.means[k];
            let mut d = 0f32;
            for j in 0..N_CEPS {
                let t = x[j] - mu[j];
                d += t * t / self.variance[j];
            }
            *o = -0.5 * self.sharpness * d + self.bias[k];
        }
        out
    }

    /// This profile adapted to one speaker: each class with at least `min_frames` frames
    /// in `speaker` gets the speaker's mean (shrunk toward this profile's mean by a prior
    /// of 10 frames); variance, sharpness and biases are kept.
    pub fn calibrated(&self, speaker: &ProfileBuilder, min_frames: u64) -> Result<Profile, LipsyncError> {
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
                p.means[k][j] = ((m * n as f64 + f64::from(self.means[k][j]) * prior) / (n as f64 + prior)) as f32;
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
        p.description = format!("{} + calibrated on {} frames", self.description, speaker.count.iter().sum::<u64>());
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
    sum_sq: [[f64; N_CEPS]; 6],
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
            self.sum_sq[k][j] += v * v;
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
                self.sum_sq[k][j] += other.sum_sq[k][j];
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
    pub fn build(&self, description: &str, cmn: bool, sharpness: f32) -> Result<Profile, LipsyncError> {
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
        let mut within = [0f64; N_CEPS];
        let total: u64 = self.count.iter().sum();
        for k in 0..6 {
            let n = self.count[k] as f64;
            for j in 0..N_CEPS {
                let m = self.sum[k][j] / n;
                means[k][j] = m as f32;
                within[j] += self.sum_sq[k][j] - n * m * m;
            }
        }
        let mut variance = [0f32; N_CEPS];
        for j in 0..N_CEPS {
            variance[j] = ((within[j] / total as f64) as f32).max(1e-4);
        }
        let mut global_mean = [0f32; N_CEPS];
        if self.voiced_count > 0 {
            for j in 0..N_CEPS {
                global_mean[j] = (self.voiced_sum[j] / self.voiced_count as f64) as f32;
            }
        }
        Ok(Profile {
            format: PROFILE_FORMAT.into(),
            description: description.into(),
            cmn,
            means,
            variance,
            global_mean,
            sharpness,
            bias: [0.0; 6],
            frames: self.count,
        })
    }
}

impl ProfileBuilder {
    /// Adds the labelled frames of one clip: every voiced frame at least 15 ms inside a
    /// segment labelled A I U E O or N (the scorer's margin), with the features the
    /// classifier would see.
    pub fn add_labelled_clip(&mut self, feats: &crate::ClipFeatures, labels: &[crate::labels::LabelSegment]) {
        for (i, class) in crate::labels::training_frames(labels, feats.frames.len(), 0.015) {
            let (Some(v), true) = (class, feats.voicing.voiced[i]) else { continue };
            self.add(v, &feats.normalised[i]);
            self.add_raw_voiced(&feats.frames[i].ceps);
        }
    }

    /// Adds every voiced frame of a recording of one sustained class (calibration from
    /// `A.wav`, `I.wav`, ...), skipping the first and last 10 % of the voiced span
    /// (onset and release).
    pub fn add_sustained(&mut self, feats: &crate::ClipFeatures, class: crate::Viseme) {
        let idx: Vec<usize> = (0..feats.frames.len()).filter(|i| feats.voicing.voiced[*i]).collect();
        let skip = idx.len() / 10;
        for &i in idx.iter().skip(skip).take(idx.len().saturating_sub(2 * skip)) {
            self.add(class, &feats.normalised[i]);
            self.add_raw_voiced(&feats.frames[i].ceps);
        }
    }
}
