//! [`Speaker`]: one character's voice lines at any sample rate, each read against the
//! others — `omote_lipsync::Speaker` (the one owner of that rule) with the resampling and
//! checks a binding needs.

use omote_lipsync::{Analyser, Profile, VOICE_SEED_LEN};

use crate::analysis::analyser_input;
use crate::{EmbedError, VoiceAnalysis};

/// One character's voice: add every line there is, then analyse each. A short line is
/// then read against the voice rather than against its own few words (see
/// `omote-lipsync`'s README, "Speaker mean"). A line that was added is left out of its own
/// comparison; one that was not is read against all the lines added.
///
/// ```
/// use omote_embed::Speaker;
/// let line = |hz: f32| -> Vec<f32> {
///     (0..16_000)
///         .map(|i| {
///             let t = i as f32 / 16_000.0;
///             let on = (0.3..0.7).contains(&t) as u8 as f32;
///             on * 0.3 * ((t * hz * std::f32::consts::TAU).sin() > 0.0) as u8 as f32
///         })
///         .collect()
/// };
/// let mut speaker = Speaker::new();
/// speaker.add_line(&line(140.0), 16_000.0).unwrap();
/// speaker.add_line(&line(180.0), 16_000.0).unwrap();
/// assert_eq!(speaker.lines(), 2);
/// let a = speaker.analyse(&line(140.0), 16_000.0).unwrap();
/// assert_eq!(a.frames.len(), 6 * 100);
/// ```
pub struct Speaker {
    analyser: Analyser,
    voice: omote_lipsync::Speaker,
}

impl Default for Speaker {
    fn default() -> Self {
        Self::new()
    }
}

impl Speaker {
    /// A speaker with no lines yet (it then analyses like [`crate::analyse_voice`]).
    pub fn new() -> Self {
        Self {
            analyser: Analyser::new(Profile::builtin()),
            voice: omote_lipsync::Speaker::new(),
        }
    }

    /// Adds a line (mono samples at `sample_rate` Hz) to the voice.
    pub fn add_line(&mut self, samples: &[f32], sample_rate: f64) -> Result<(), EmbedError> {
        let samples = analyser_input(samples, sample_rate)?;
        self.voice.add(&self.analyser.features(&samples));
        Ok(())
    }

    /// Adds every line of `other` in its order: the same voice, to the bit, as adding
    /// them here (lines read in other processes, gathered in the batch's order).
    pub fn add_speaker(&mut self, other: &Speaker) {
        self.voice.add_speaker(&other.voice);
    }

    /// The voice as numbers, exactly: each line's cepstral sum
    /// ([`omote_lipsync::CepstralMean::NUMBERS`] numbers each), to rebuild it elsewhere
    /// ([`Speaker::from_numbers`]; Python pickles a speaker so).
    pub fn to_numbers(&self) -> Vec<f64> {
        self.voice
            .line_sums()
            .iter()
            .flat_map(|m| m.to_numbers())
            .collect()
    }

    /// A speaker from [`Speaker::to_numbers`].
    ///
    /// ```
    /// use omote_embed::Speaker;
    /// let line: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    /// let mut speaker = Speaker::new();
    /// speaker.add_line(&line, 16_000.0).unwrap();
    /// let copy = Speaker::from_numbers(&speaker.to_numbers()).unwrap();
    /// assert_eq!(copy.voice_seed(), speaker.voice_seed());
    /// assert!(Speaker::from_numbers(&[1.0; 5]).is_err());
    /// // A number that is not one is named by where it is.
    /// let mut bad = speaker.to_numbers();
    /// bad[3] = f64::NAN;
    /// let e = Speaker::from_numbers(&bad).err().unwrap().to_string();
    /// assert!(e.contains("line 0") && e.contains("its number 3 is NaN"), "{e}");
    /// bad[3] = 0.0;
    /// bad[12] = 2.5;
    /// let e = Speaker::from_numbers(&bad).err().unwrap().to_string();
    /// assert!(e.contains("frame count (number 12) is 2.5"), "{e}");
    /// ```
    pub fn from_numbers(numbers: &[f64]) -> Result<Self, EmbedError> {
        let n = omote_lipsync::CepstralMean::NUMBERS;
        if !numbers.len().is_multiple_of(n) {
            return Err(EmbedError::Argument(format!(
                "{} numbers are not {n} per line",
                numbers.len()
            )));
        }
        let mut speaker = Self::new();
        for (i, line) in numbers.chunks_exact(n).enumerate() {
            let sum = omote_lipsync::CepstralMean::from_numbers(line).map_err(|why| {
                EmbedError::Argument(format!(
                    "line {i} of the speaker's numbers (numbers {}..{}) is not a line's sum: {why}",
                    i * n,
                    i * n + n,
                ))
            })?;
            speaker.voice.add_sum(sum);
        }
        Ok(speaker)
    }

    /// The cepstral sum over every line added (what a file that is not one of them is
    /// read against).
    pub(crate) fn lines_total(&self) -> &omote_lipsync::CepstralMean {
        self.voice.total()
    }

    /// Lines added.
    pub fn lines(&self) -> usize {
        self.voice.lines()
    }

    /// The voice as [`VOICE_SEED_LEN`] numbers, for a live stream elsewhere to start from
    /// ([`crate::VoiceStream::start_from_speaker`]; the web package's AudioWorklet runs
    /// its own wasm instance, so the voice travels to it as numbers). No lines: all zero.
    pub fn voice_seed(&self) -> [f32; VOICE_SEED_LEN] {
        self.voice.voice_seed()
    }

    /// A line's lip sync, read against the speaker's other lines. It takes `&self`, so
    /// one speaker serves many threads at once (and a binding can share it while it
    /// works): each call has its own analyser scratch.
    pub fn analyse(&self, samples: &[f32], sample_rate: f64) -> Result<VoiceAnalysis, EmbedError> {
        self.analyse_with_profile(samples, sample_rate, None)
    }

    /// [`Speaker::analyse`] with a lip sync profile given as JSON (one
    /// [`crate::calibrate_voice_from_card`] made for this speaker; `None`: the built-in
    /// one); a profile that is not one is refused.
    pub fn analyse_with_profile(
        &self,
        samples: &[f32],
        sample_rate: f64,
        profile: Option<&str>,
    ) -> Result<VoiceAnalysis, EmbedError> {
        let profile = match profile {
            None => self.analyser.profile().clone(),
            Some(_) => crate::voice_profile::parse_voice_profile(profile)?,
        };
        let samples = analyser_input(samples, sample_rate)?;
        let mut analyser = Analyser::new(profile);
        let mut features = analyser.features(&samples);
        Ok(VoiceAnalysis::from_track(&self.voice.read(
            &analyser,
            &mut features,
            samples.len(),
        )))
    }
}
