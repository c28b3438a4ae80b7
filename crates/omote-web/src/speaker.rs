//! `Speaker`: one character's voice lines, each analysed against the others (the
//! speaker's cepstral mean), as `omote lipsync` reads the files of one folder.

use omote_lipsync::{Analyser, CepstralMean, N_CEPS, Profile};

use crate::analysis::analyser_input;
use crate::{VoiceAnalysis, WebError};

/// Numbers in a voice seed ([`WebSpeaker::voice_seed`]): a mean cepstrum and a frame count.
pub const VOICE_SEED_LEN: usize = N_CEPS + 1;

/// One character's voice: add every line there is, then analyse each. A short line is
/// then read against the voice rather than against its own few words (see
/// `omote-lipsync`'s README, "Speaker mean"). A line that was added is left out of its own
/// comparison; one that was not is read against all the lines added.
///
/// ```
/// use omote_web::WebSpeaker;
/// let line = |hz: f32| -> Vec<f32> {
///     (0..16_000)
///         .map(|i| {
///             let t = i as f32 / 16_000.0;
///             let on = (0.3..0.7).contains(&t) as u8 as f32;
///             on * 0.3 * ((t * hz * std::f32::consts::TAU).sin() > 0.0) as u8 as f32
///         })
///         .collect()
/// };
/// let mut speaker = WebSpeaker::new();
/// speaker.add_line(&line(140.0), 16_000.0).unwrap();
/// speaker.add_line(&line(180.0), 16_000.0).unwrap();
/// assert_eq!(speaker.lines(), 2);
/// let a = speaker.analyse(&line(140.0), 16_000.0).unwrap();
/// assert_eq!(a.frames.len(), 6 * 100);
/// ```
pub struct WebSpeaker {
    analyser: Analyser,
    /// Each added line's own sum, to leave it out when that line is analysed.
    lines: Vec<CepstralMean>,
    total: CepstralMean,
}

impl Default for WebSpeaker {
    fn default() -> Self {
        Self::new()
    }
}

impl WebSpeaker {
    /// A speaker with no lines yet (it then analyses like [`crate::analyse_voice`]).
    pub fn new() -> Self {
        Self {
            analyser: Analyser::new(Profile::builtin()),
            lines: Vec::new(),
            total: CepstralMean::default(),
        }
    }

    /// Adds a line (mono samples at `sample_rate` Hz) to the speaker's mean.
    pub fn add_line(&mut self, samples: &[f32], sample_rate: f64) -> Result<(), WebError> {
        let samples = analyser_input("Speaker.addLine", samples, sample_rate)?;
        let own = CepstralMean::of_clip(&self.analyser.features(&samples));
        self.total.merge(&own);
        self.lines.push(own);
        Ok(())
    }

    /// Lines added.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// The voice as [`VOICE_SEED_LEN`] numbers — its mean cepstrum over every line added,
    /// then how many voiced frames that mean is over — for a live stream to start from
    /// ([`crate::WebLiveVoice::start_from_speaker`]). The package's AudioWorklet runs its
    /// own wasm instance, so the voice travels to it as numbers. No lines: all zero (a
    /// seed that changes nothing).
    pub fn voice_seed(&self) -> Vec<f32> {
        let mut seed = vec![0.0; VOICE_SEED_LEN];
        if let Some(mean) = self.total.mean() {
            seed[..N_CEPS].copy_from_slice(&mean);
            seed[N_CEPS] = self.total.frames() as f32;
        }
        seed
    }

    /// A line's lip sync, read against the speaker's other lines.
    pub fn analyse(
        &mut self,
        samples: &[f32],
        sample_rate: f64,
    ) -> Result<VoiceAnalysis, WebError> {
        let samples = analyser_input("Speaker.analyseVoice", samples, sample_rate)?;
        let mut feats = self.analyser.features(&samples);
        let own = CepstralMean::of_clip(&feats);
        // The same samples give the same sum to the last bit: an added line is found.
        let others = if self.lines.contains(&own) {
            self.total.without(&own)
        } else {
            self.total
        };
        self.analyser.renormalise(&mut feats, &others);
        Ok(VoiceAnalysis::from_track(
            &self.analyser.classify(&feats, samples.len()),
        ))
    }
}
