//! [`Speaker`]: one voice's lines, each read against the others — the one owner of
//! "a line against the speaker's other lines" for the batch (`omote lipsync`, a folder's
//! files), scenes (a character's lines), the evaluation (a source's clips) and every
//! binding (a character's voice added line by line).

use crate::analyser::{Analyser, ClipFeatures};
use crate::cepstral_mean::CepstralMean;
use crate::frame::VowelTrack;
use crate::profile::Profile;
use crate::stream::StreamAnalyser;
use crate::{AnalyserConfig, features::N_CEPS};

/// Numbers in a voice seed ([`Speaker::voice_seed`]): a mean cepstrum and a frame count.
pub const VOICE_SEED_LEN: usize = N_CEPS + 1;

/// A voice: the cepstral sum of each line added, and their total.
///
/// Add every line there is (their features, [`Speaker::add`]), then read each
/// ([`Speaker::read`]): a line that was added is left out of its own comparison, one
/// that was not is read against all the lines. A short line is so read against the voice
/// rather than against its own few words (the crate README, "Speaker mean"). With no
/// lines a line is read alone, as [`Analyser::analyse`] does.
///
/// ```
/// use omote_lipsync::{Analyser, Profile, SAMPLE_RATE, Speaker};
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
/// let mut speaker = Speaker::new();
/// let mut features: Vec<_> = lines.iter().map(|l| analyser.features(l)).collect();
/// for f in &features {
///     speaker.add(f);
/// }
/// let track = speaker.read(&analyser, &mut features[0], lines[0].len());
/// assert_eq!(track.frames.len(), 100);
/// assert_eq!(speaker.lines(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Speaker {
    /// Each line's own sum, to leave it out when that line is read.
    lines: Vec<CepstralMean>,
    total: CepstralMean,
}

impl Speaker {
    /// A voice with no lines yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a line by its features (raw cepstra of its voiced frames).
    pub fn add(&mut self, features: &ClipFeatures) {
        self.add_sum(CepstralMean::of_clip(features));
    }

    /// Adds a line by its cepstral sum (computed elsewhere, e.g. on another thread).
    pub fn add_sum(&mut self, own: CepstralMean) {
        self.total.merge(&own);
        self.lines.push(own);
    }

    /// Adds every line of `other`, in its order: the same voice, to the bit, as adding
    /// those lines here one by one (lines read on other threads or machines, then
    /// gathered in the order a batch lists them).
    pub fn add_speaker(&mut self, other: &Speaker) {
        for own in &other.lines {
            self.add_sum(*own);
        }
    }

    /// Each line's own cepstral sum, in the order added.
    pub fn line_sums(&self) -> &[CepstralMean] {
        &self.lines
    }

    /// Lines added.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// The sum over every line added.
    pub fn total(&self) -> &CepstralMean {
        &self.total
    }

    /// What a line with the cepstral sum `own` is read against: the other lines when it
    /// was added (the same samples give the same sum to the last bit, so it is found),
    /// else every line.
    pub fn others(&self, own: &CepstralMean) -> CepstralMean {
        if self.lines.contains(own) {
            self.total.without(own)
        } else {
            self.total
        }
    }

    /// Renormalises a line's `features` in place against the others
    /// ([`Speaker::others`]): what [`Speaker::read`] classifies, and what a profile
    /// builder learns from a speaker's lines.
    pub fn normalise(&self, analyser: &Analyser, features: &mut ClipFeatures) {
        let others = self.others(&CepstralMean::of_clip(features));
        analyser.renormalise(features, &others);
    }

    /// A line's track, read against the others ([`Speaker::normalise`]): `features` are
    /// renormalised in place, `len_samples` is the line's length.
    pub fn read(
        &self,
        analyser: &Analyser,
        features: &mut ClipFeatures,
        len_samples: usize,
    ) -> VowelTrack {
        self.normalise(analyser, features);
        analyser.classify(features, len_samples)
    }

    /// A stream for a line with the cepstral sum `own`, started from the others (a stream
    /// cannot know the line it is about to hear).
    pub fn stream(
        &self,
        profile: Profile,
        config: AnalyserConfig,
        own: &CepstralMean,
    ) -> StreamAnalyser {
        let mut stream = StreamAnalyser::with_config(profile, config);
        stream.start_from_speaker(&self.others(own));
        stream
    }

    /// The voice as [`VOICE_SEED_LEN`] numbers — its mean cepstrum over every line added,
    /// then how many voiced frames that mean is over — for a stream elsewhere (another
    /// thread, another wasm instance) to start from ([`Speaker::from_voice_seed`]). No
    /// lines: all zero, a seed that changes nothing.
    pub fn voice_seed(&self) -> [f32; VOICE_SEED_LEN] {
        let mut seed = [0.0; VOICE_SEED_LEN];
        if let Some(mean) = self.total.mean() {
            seed[..N_CEPS].copy_from_slice(&mean);
            seed[N_CEPS] = self.total.frames() as f32;
        }
        seed
    }

    /// The voice a seed from [`Speaker::voice_seed`] carries, or why the numbers are not a
    /// seed.
    pub fn from_voice_seed(seed: &[f32]) -> Result<CepstralMean, VoiceSeedError> {
        if seed.len() != VOICE_SEED_LEN {
            return Err(VoiceSeedError::Length(seed.len()));
        }
        if let Some((index, value)) = seed.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(VoiceSeedError::NotFinite {
                index,
                value: *value,
            });
        }
        let frames = seed[N_CEPS];
        if frames < 0.0 {
            return Err(VoiceSeedError::NegativeFrames(frames));
        }
        let mut mean = [0.0; N_CEPS];
        mean.copy_from_slice(&seed[..N_CEPS]);
        Ok(CepstralMean::from_mean(&mean, frames.round() as u64))
    }
}

/// Numbers that are not a voice seed ([`Speaker::from_voice_seed`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VoiceSeedError {
    /// Not [`VOICE_SEED_LEN`] numbers.
    #[error("a voice seed is {VOICE_SEED_LEN} numbers (a speaker's voice seed), not {0}")]
    Length(usize),
    /// A NaN or infinity.
    #[error("number {index} of the voice seed is {value}")]
    NotFinite {
        /// Its index.
        index: usize,
        /// What it was.
        value: f32,
    },
    /// A negative frame count.
    #[error("the voice seed's frame count is {0}")]
    NegativeFrames(f32),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SAMPLE_RATE;

    fn line(hz: f32) -> Vec<f32> {
        (0..SAMPLE_RATE)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                let on = (0.2..0.8).contains(&t) as u8 as f32;
                on * 0.3 * ((t * hz * std::f32::consts::TAU).sin() > 0.0) as u8 as f32
            })
            .collect()
    }

    #[test]
    fn an_added_line_is_left_out_and_a_new_one_is_not() {
        let mut analyser = Analyser::new(Profile::builtin());
        let a = analyser.features(&line(140.0));
        let b = analyser.features(&line(190.0));
        let mut speaker = Speaker::new();
        speaker.add(&a);
        speaker.add(&b);
        let own_a = CepstralMean::of_clip(&a);
        assert_eq!(speaker.others(&own_a), CepstralMean::of_clip(&b));
        let c = analyser.features(&line(230.0));
        assert_eq!(speaker.others(&CepstralMean::of_clip(&c)), *speaker.total());
    }

    #[test]
    fn no_lines_reads_a_line_alone() {
        let mut analyser = Analyser::new(Profile::builtin());
        let samples = line(150.0);
        let mut f = analyser.features(&samples);
        let alone = analyser.analyse(&samples);
        assert_eq!(Speaker::new().read(&analyser, &mut f, samples.len()), alone);
    }

    #[test]
    fn a_seed_round_trips_and_bad_seeds_say_why() {
        let mut analyser = Analyser::new(Profile::builtin());
        let mut speaker = Speaker::new();
        speaker.add(&analyser.features(&line(160.0)));
        let seed = speaker.voice_seed();
        let back = Speaker::from_voice_seed(&seed).unwrap();
        assert_eq!(back.frames(), speaker.total().frames());
        assert_eq!(
            Speaker::from_voice_seed(&seed[..5]),
            Err(VoiceSeedError::Length(5))
        );
        let mut nan = seed;
        nan[3] = f32::NAN;
        assert!(matches!(
            Speaker::from_voice_seed(&nan),
            Err(VoiceSeedError::NotFinite { index: 3, .. })
        ));
        let mut negative = seed;
        negative[N_CEPS] = -1.0;
        assert_eq!(
            Speaker::from_voice_seed(&negative),
            Err(VoiceSeedError::NegativeFrames(-1.0))
        );
        assert_eq!(Speaker::new().voice_seed(), [0.0; VOICE_SEED_LEN]);
    }
}
