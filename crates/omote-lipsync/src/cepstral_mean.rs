//! The average cepstrum of one speaker's voiced frames, over as many clips as are known.
//!
//! Cepstral mean normalisation (CMN) subtracts the speaker's and microphone's average
//! cepstrum so that the classes are compared as offsets from it. Over one short line the
//! clip's own mean is mostly its words: a one-word prompt such as "new" is mostly /u/, so
//! subtracting the clip's mean removes the very vowel to be found. Summed over all of a
//! character's lines the words average out and what remains is the voice and the
//! microphone. [`Analyser::features_with_speaker`](crate::Analyser::features_with_speaker)
//! normalises a clip with such a mean.

use crate::analyser::{ClipFeatures, SPEAKER_PRIOR_FRAMES};
use crate::features::{FrameFeatures, N_CEPS};

/// Running sum of raw cepstra (c1–c12) over voiced frames: add a speaker's clips, then
/// normalise each with the others ([`CepstralMean::without_clip`],
/// [`Analyser::renormalise`](crate::Analyser::renormalise)).
///
/// ```
/// use omote_lipsync::{Analyser, CepstralMean, Profile, SAMPLE_RATE};
/// // Two "lines": a buzz between pauses, at two pitches.
/// let line = |hz: f32| -> Vec<f32> {
///     (0..SAMPLE_RATE)
///         .map(|i| {
///             let t = i as f32 / SAMPLE_RATE as f32;
///             let on = (0.3..0.7).contains(&t) as u8 as f32;
///             on * 0.3 * ((t * hz * std::f32::consts::TAU).sin() > 0.0) as u8 as f32
///         })
///         .collect()
/// };
/// let lines = [line(140.0), line(180.0)];
/// let mut analyser = Analyser::new(Profile::builtin());
/// let mut speaker = CepstralMean::default();
/// for l in &lines {
///     speaker.add_clip(&analyser.features(l));
/// }
/// assert!(speaker.frames() > 0);
/// // The first line, read against the other one.
/// let others = speaker.without_clip(&analyser.features(&lines[0]));
/// let track = analyser.analyse_with_speaker(&lines[0], &others);
/// assert_eq!(track.frames.len(), 100);
/// assert!(!track.frames[50].silent && track.frames[10].silent);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CepstralMean {
    sum: [f64; N_CEPS],
    frames: u64,
    /// Frames' worth of prior means added ([`CepstralMean::add_weighted_mean`]).
    weight: f64,
}

/// Why numbers are not a [`CepstralMean`] ([`CepstralMean::from_numbers`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum NotASum {
    /// Not [`CepstralMean::NUMBERS`] of them.
    #[error("{0} numbers, not {n}", n = CepstralMean::NUMBERS)]
    Count(usize),
    /// A number that is NaN or infinite.
    #[error("its number {index} is {value}")]
    NotFinite {
        /// Where it is.
        index: usize,
        /// What it is.
        value: f64,
    },
    /// The frame count (the second to last number) is not a whole number ≥ 0.
    #[error("its frame count (number {n}) is {0}, not a whole number ≥ 0", n = N_CEPS)]
    Frames(f64),
    /// The weight (the last number) is negative.
    #[error("its weight (number {n}) is {0}, below 0", n = N_CEPS + 1)]
    Weight(f64),
}

impl CepstralMean {
    /// A clip's own sum (its voiced frames).
    pub fn of_clip(features: &ClipFeatures) -> Self {
        let mut m = Self::default();
        m.add_clip(features);
        m
    }

    /// The sum of `frames` frames whose mean is `mean` (a mean kept elsewhere, e.g. a
    /// stream's voice or a seed passed as numbers); non-finite values count as 0.
    ///
    /// ```
    /// use omote_lipsync::CepstralMean;
    /// let m = CepstralMean::from_mean(&[1.5; 12], 200);
    /// assert_eq!(m.frames(), 200);
    /// assert_eq!(m.mean(), Some([1.5; 12]));
    /// ```
    pub fn from_mean(mean: &[f32; N_CEPS], frames: u64) -> Self {
        let finite = |v: f32| if v.is_finite() { f64::from(v) } else { 0.0 };
        Self {
            sum: std::array::from_fn(|j| finite(mean[j]) * frames as f64),
            frames,
            weight: 0.0,
        }
    }

    /// Adds a clip's voiced frames (its raw cepstra, before normalisation).
    pub fn add_clip(&mut self, features: &ClipFeatures) {
        self.add_frames(&features.frames, &features.voicing.voiced);
    }

    /// Adds the frames marked voiced.
    pub fn add_frames(&mut self, frames: &[FrameFeatures], voiced: &[bool]) {
        for (f, &voiced) in frames.iter().zip(voiced) {
            if voiced && f.ceps.iter().all(|c| c.is_finite()) {
                for j in 0..N_CEPS {
                    self.sum[j] += f64::from(f.ceps[j]);
                }
                self.frames += 1;
            }
        }
    }

    /// Adds another sum (clips analysed elsewhere, e.g. on another thread).
    pub fn merge(&mut self, other: &CepstralMean) {
        for j in 0..N_CEPS {
            self.sum[j] += other.sum[j];
        }
        self.frames += other.frames;
        self.weight += other.weight;
    }

    /// Numbers per sum in [`CepstralMean::to_numbers`]: the sums, the frame count, the
    /// prior weight.
    pub const NUMBERS: usize = N_CEPS + 2;

    /// The sum as numbers, exactly ([`CepstralMean::from_numbers`] gives it back to the
    /// bit): to send a speaker's lines to another process.
    pub fn to_numbers(&self) -> [f64; Self::NUMBERS] {
        let mut out = [0.0; Self::NUMBERS];
        out[..N_CEPS].copy_from_slice(&self.sum);
        out[N_CEPS] = self.frames as f64;
        out[N_CEPS + 1] = self.weight;
        out
    }

    /// A sum from [`CepstralMean::to_numbers`], or why they are not one (a wrong count, a
    /// number that is not finite, a frame count that is not a whole number ≥ 0, a
    /// negative weight).
    ///
    /// ```
    /// use omote_lipsync::{CepstralMean, NotASum};
    /// let m = CepstralMean::from_mean(&[0.1; 12], 7);
    /// assert_eq!(CepstralMean::from_numbers(&m.to_numbers()), Ok(m));
    /// assert_eq!(CepstralMean::from_numbers(&[0.0; 3]), Err(NotASum::Count(3)));
    /// ```
    pub fn from_numbers(numbers: &[f64]) -> Result<Self, NotASum> {
        if numbers.len() != Self::NUMBERS {
            return Err(NotASum::Count(numbers.len()));
        }
        if let Some((index, &value)) = numbers.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(NotASum::NotFinite { index, value });
        }
        let (frames, weight) = (numbers[N_CEPS], numbers[N_CEPS + 1]);
        if frames < 0.0 || frames.fract() != 0.0 || frames > 2f64.powi(53) {
            return Err(NotASum::Frames(frames));
        }
        if weight < 0.0 {
            return Err(NotASum::Weight(weight));
        }
        let mut sum = [0.0; N_CEPS];
        sum.copy_from_slice(&numbers[..N_CEPS]);
        Ok(Self {
            sum,
            frames: frames as u64,
            weight,
        })
    }

    /// Voiced frames summed (not counting prior weight).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// This sum without `part`'s frames (a speaker's lines other than one of them);
    /// empty if `part` holds as many frames or more.
    pub fn without(&self, part: &CepstralMean) -> CepstralMean {
        if part.frames >= self.frames {
            return CepstralMean::default();
        }
        let mut out = *self;
        for j in 0..N_CEPS {
            out.sum[j] -= part.sum[j];
        }
        out.frames -= part.frames;
        out.weight = (out.weight - part.weight).max(0.0);
        out
    }

    /// This sum without `clip`'s frames: a speaker's lines other than `clip`, when this
    /// sum is over all of them, `clip` included.
    pub fn without_clip(&self, clip: &ClipFeatures) -> CepstralMean {
        self.without(&Self::of_clip(clip))
    }

    /// Adds `weight` frames' worth of `mean` (a prior), `weight` ≥ 0 and may be fractional.
    pub fn add_weighted_mean(&mut self, mean: &[f32; N_CEPS], weight: f64) {
        if !weight.is_finite() || weight <= 0.0 {
            return;
        }
        for j in 0..N_CEPS {
            self.sum[j] += weight * f64::from(mean[j]);
        }
        self.weight += weight;
    }

    /// The prior a clip's own frames are added to before normalising: `global_frames` of
    /// the profile's `global` mean, and the speaker's `others` lines as up to
    /// [`SPEAKER_PRIOR_FRAMES`](crate::SPEAKER_PRIOR_FRAMES) frames of theirs. Offline
    /// ([`Analyser::renormalise`](crate::Analyser::renormalise)) and streaming (where
    /// each utterance starts from it, [`StreamCepstralMean`](crate::StreamCepstralMean))
    /// share it.
    pub(crate) fn speaker_prior(
        global: &[f32; N_CEPS],
        global_frames: f64,
        others: &CepstralMean,
    ) -> CepstralMean {
        let mut prior = CepstralMean::default();
        prior.add_weighted_mean(global, global_frames);
        if let Some(voice) = others.mean() {
            prior.add_weighted_mean(&voice, (others.frames as f64).min(SPEAKER_PRIOR_FRAMES));
        }
        prior
    }

    /// Frames' worth of prior means in this sum.
    pub(crate) fn prior_weight(&self) -> f64 {
        self.weight
    }

    /// The mean; `None` without frames.
    pub fn mean(&self) -> Option<[f32; N_CEPS]> {
        let n = self.frames as f64 + self.weight;
        (n > 0.0).then(|| std::array::from_fn(|j| (self.sum[j] / n) as f32))
    }
}
