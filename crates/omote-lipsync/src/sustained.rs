//! Calibration from sustained single-class recordings ("aaaa", "iiii", … and a hum).
//!
//! Labelled speech can be mean-normalised clip by clip, but a recording of one held vowel
//! cannot: its own cepstral mean *is* the vowel, so subtracting it leaves nothing. Instead
//! the speaker's offset is estimated against the profile: with raw class means `r_k` and
//! the profile's normalised means `m_k`, the offset `c` that best explains
//! `r_k − c ≈ m_k` over the recorded classes is `c = mean_k (r_k − m_k)`. The calibrated
//! class means are `r_k − c` (what this speaker's vowels look like after the same CMN the
//! analyser applies), and `c` becomes the profile's global mean (the starting point of
//! streaming CMN).

use crate::analyser::ClipFeatures;
use crate::error::LipsyncError;
use crate::features::N_CEPS;
use crate::frame::Viseme;
use crate::profile::Profile;

/// Raw cepstral sums per class from sustained recordings of one speaker.
///
/// ```
/// use omote_lipsync::{Analyser, Profile, SustainedRecordings, Viseme};
/// let base = Profile::builtin();
/// let mut rec = SustainedRecordings::new();
/// // Two seconds of a buzzy "vowel" (a real one comes from a microphone).
/// let buzz: Vec<f32> = (0..32000)
///     .map(|i| 0.3 * ((i as f32 * 0.0785).sin() + 0.5 * (i as f32 * 0.157).sin()))
///     .collect();
/// let feats = Analyser::new(base.clone()).features(&buzz);
/// rec.add(Viseme::A, &feats);
/// assert!(rec.counts()[Viseme::A.index()] > 100);
/// let speaker = base.calibrated_from_sustained(&rec, 20).unwrap();
/// assert!(speaker.description.contains("sustained"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SustainedRecordings {
    sum: [[f64; N_CEPS]; 6],
    count: [u64; 6],
}

impl SustainedRecordings {
    /// How far below the recording's loud level a frame still counts as the held sound.
    pub const HELD_RANGE_DB: f32 = 15.0;
    /// Frames quieter than this (dBFS) are never the held sound.
    pub const MIN_LEVEL_DB: f32 = -60.0;

    /// No recordings yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the held part of one recording of `class`: frames within
    /// [`SustainedRecordings::HELD_RANGE_DB`] of the recording's loud level (its 97th
    /// percentile) and above [`SustainedRecordings::MIN_LEVEL_DB`], minus the first and
    /// last 10 % of them (onset and release are not the held shape). The clip-adaptive
    /// silence detector is not used: a recording that is all vowel has no noise floor to
    /// adapt to. Uses the raw cepstra, so the profile's CMN setting does not matter here.
    pub fn add(&mut self, class: Viseme, feats: &ClipFeatures) {
        let mut levels: Vec<f32> = feats
            .frames
            .iter()
            .map(|f| f.level_db)
            .filter(|l| l.is_finite())
            .collect();
        if levels.is_empty() {
            return;
        }
        levels.sort_by(f32::total_cmp);
        let loud = levels[((levels.len() - 1) as f32 * 0.97) as usize];
        let threshold = (loud - Self::HELD_RANGE_DB).max(Self::MIN_LEVEL_DB);
        let held: Vec<usize> = (0..feats.frames.len())
            .filter(|&i| feats.frames[i].level_db >= threshold)
            .collect();
        let skip = held.len() / 10;
        let k = class.index();
        for &i in held
            .iter()
            .skip(skip)
            .take(held.len().saturating_sub(2 * skip))
        {
            for j in 0..N_CEPS {
                self.sum[k][j] += f64::from(feats.frames[i].ceps[j]);
            }
            self.count[k] += 1;
        }
    }

    /// Frames per class (A I U E O N) so far.
    pub fn counts(&self) -> [u64; 6] {
        self.count
    }
}

impl Profile {
    /// This profile adapted to the speaker of `recordings`: every class with at least
    /// `min_frames` frames gets the speaker's mean (see the module comment for how the
    /// offset is found); other classes, the covariance, sharpness and biases are kept.
    /// With a single class recorded only the offset is learnt.
    ///
    /// Fails when no class has `min_frames` frames.
    pub fn calibrated_from_sustained(
        &self,
        recordings: &SustainedRecordings,
        min_frames: u64,
    ) -> Result<Profile, LipsyncError> {
        let used: Vec<usize> = (0..6)
            .filter(|&k| recordings.count[k] >= min_frames)
            .collect();
        if used.is_empty() {
            let best = (0..6).max_by_key(|&k| recordings.count[k]).unwrap_or(0);
            return Err(LipsyncError::TooFewFrames {
                class: Viseme::ALL[best].letter(),
                frames: recordings.count[best] as usize,
                need: min_frames as usize,
            });
        }
        let raw_mean = |k: usize, j: usize| recordings.sum[k][j] / recordings.count[k] as f64;
        let mut offset = [0f64; N_CEPS];
        for j in 0..N_CEPS {
            offset[j] = used
                .iter()
                .map(|&k| raw_mean(k, j) - f64::from(self.means[k][j]))
                .sum::<f64>()
                / used.len() as f64;
        }
        let mut p = self.clone();
        for &k in &used {
            let mean = std::array::from_fn(|j| {
                (raw_mean(k, j) - if self.cmn { offset[j] } else { 0.0 }) as f32
            });
            p.move_class_mean(k, mean);
            p.frames[k] = recordings.count[k];
        }
        if self.cmn {
            for j in 0..N_CEPS {
                p.global_mean[j] = offset[j] as f32;
            }
        }
        let letters: String = used.iter().map(|&k| Viseme::ALL[k].letter()).collect();
        p.description = format!(
            "{} + calibrated on sustained {letters} ({} frames)",
            self.description,
            used.iter().map(|&k| recordings.count[k]).sum::<u64>()
        );
        Ok(p)
    }
}
