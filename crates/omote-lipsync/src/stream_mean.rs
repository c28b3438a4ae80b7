//! The streaming analyser's cepstral mean, kept as offline keeps a speaker's: each
//! utterance is normalised against the voice heard before it plus its own frames so far.

use crate::N_CEPS;
#[cfg(doc)]
use crate::SPEAKER_PRIOR_FRAMES;
use crate::cepstral_mean::CepstralMean;

/// Streaming: frames of the running cepstral mean's memory inside one utterance (3 s of
/// voiced frames).
pub const CMN_FRAMES: f32 = 300.0;
/// Streaming: weight (in frames) of the profile's global mean in the mean an utterance
/// starts from, as offline gives it ([`CepstralMean`]'s speaker prior).
pub const CMN_PRIOR_FRAMES: f32 = 50.0;
/// Silent frames after which the next voiced frame starts a new utterance (0.3 s: longer
/// than a stop closure or a breath inside a phrase).
pub const UTTERANCE_GAP_FRAMES: u32 = 30;
/// Frames of the voice mean's memory (60 s of voiced frames): it follows a voice or a
/// microphone that changes over a long session.
pub const VOICE_MEMORY_FRAMES: f32 = 6000.0;

/// The running cepstral mean of a stream.
///
/// Offline, a line is normalised with its own mean plus [`SPEAKER_PRIOR_FRAMES`] of the
/// speaker's other lines and [`CMN_PRIOR_FRAMES`] of the profile's global mean. A stream
/// does the same causally: it keeps the mean of every voiced frame it heard (the voice,
/// [`VOICE_MEMORY_FRAMES`] of memory), and when speech starts after a pause of
/// [`UTTERANCE_GAP_FRAMES`] its running mean restarts from that voice and the global mean
/// and follows the new utterance ([`CMN_FRAMES`] of memory). Before, the running mean
/// just went on through pauses, so a line began against the last 3 s of the line before
/// it — its words, not the voice's: a session of MBROLA jp2's lines was 4.3 points under
/// offline, 2.4 with this (crate's EVALUATION.md, "Moving frames count for less, and the stream's
/// mean restarts at each utterance").
///
/// ```
/// use omote_lipsync::{StreamCepstralMean, N_CEPS};
/// let mut mean = StreamCepstralMean::new([0.0; N_CEPS]);
/// // A long utterance of one sound: the mean comes to it …
/// for _ in 0..1000 {
///     let mut x = [4.0; N_CEPS];
///     mean.normalise(&mut x);
/// }
/// let mut x = [4.0; N_CEPS];
/// mean.normalise(&mut x);
/// assert!(x[0].abs() < 0.1);
/// // … and after a pause a new utterance starts from the voice heard so far, not from
/// // the end of the last utterance: a different sound is still read against the voice.
/// for _ in 0..50 {
///     mean.silent();
/// }
/// let mut y = [-4.0; N_CEPS];
/// mean.normalise(&mut y);
/// assert!(y[0] < -7.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamCepstralMean {
    global: [f32; N_CEPS],
    /// The voice: mean of the voiced frames heard (or given by
    /// [`StreamCepstralMean::start_from_speaker`]), and their count up to the memory.
    voice: [f32; N_CEPS],
    voice_n: f32,
    /// The mean frames are normalised with, and its weight in frames.
    running: [f32; N_CEPS],
    running_n: f32,
    /// Silent frames since the last voiced one.
    silent_run: u32,
}

impl StreamCepstralMean {
    /// A stream that has heard nothing: it starts from the profile's `global` mean.
    pub fn new(global: [f32; N_CEPS]) -> Self {
        Self {
            global,
            voice: global,
            voice_n: 0.0,
            running: global,
            running_n: CMN_PRIOR_FRAMES,
            silent_run: 0,
        }
    }

    /// Starts from a speaker's other lines (`others`): the voice is theirs, weighted as
    /// up to [`SPEAKER_PRIOR_FRAMES`] frames in the mean an utterance starts from.
    pub fn start_from_speaker(&mut self, others: &CepstralMean) {
        if let Some(voice) = others.mean() {
            self.voice = voice;
            self.voice_n = (others.frames() as f32).min(VOICE_MEMORY_FRAMES);
        }
        self.restart();
    }

    /// A silent frame.
    pub fn silent(&mut self) {
        self.silent_run = self.silent_run.saturating_add(1);
    }

    /// A voiced frame's raw cepstrum `x`: learnt, then normalised in place.
    pub fn normalise(&mut self, x: &mut [f32; N_CEPS]) {
        if self.silent_run >= UTTERANCE_GAP_FRAMES && self.voice_n > 0.0 {
            self.restart();
        }
        self.silent_run = 0;
        if x.iter().any(|v| !v.is_finite()) {
            *x = [0.0; N_CEPS];
            return;
        }
        self.voice_n = (self.voice_n + 1.0).min(VOICE_MEMORY_FRAMES);
        self.running_n = (self.running_n + 1.0).min(CMN_FRAMES);
        for j in 0..N_CEPS {
            self.voice[j] += (x[j] - self.voice[j]) / self.voice_n;
            self.running[j] += (x[j] - self.running[j]) / self.running_n;
            x[j] -= self.running[j];
        }
    }

    /// A frame's raw cepstrum normalised with the running mean as it is, without learning
    /// it (a silent frame, which the context net reads as a neighbour).
    pub fn apply(&self, x: &mut [f32; N_CEPS]) {
        for j in 0..N_CEPS {
            x[j] = if x[j].is_finite() {
                x[j] - self.running[j]
            } else {
                0.0
            };
        }
    }

    /// The running mean restarts from the global mean and the voice, weighted as
    /// offline weighs them ([`CepstralMean::speaker_prior`]).
    fn restart(&mut self) {
        let voice = CepstralMean::from_mean(&self.voice, self.voice_n as u64);
        let prior = CepstralMean::speaker_prior(&self.global, f64::from(CMN_PRIOR_FRAMES), &voice);
        if let Some(mean) = prior.mean() {
            self.running = mean;
            self.running_n = prior.prior_weight() as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream's mean before this type: one running mean through pauses, its prior
    /// the global mean's 50 frames.
    fn plain_running_mean(global: [f32; N_CEPS], frames: &[[f32; N_CEPS]]) -> Vec<[f32; N_CEPS]> {
        let (mut mean, mut n) = (global, CMN_PRIOR_FRAMES);
        frames
            .iter()
            .map(|x| {
                n = (n + 1.0).min(CMN_FRAMES);
                std::array::from_fn(|j| {
                    mean[j] += (x[j] - mean[j]) / n;
                    x[j] - mean[j]
                })
            })
            .collect()
    }

    fn frame(i: usize) -> [f32; N_CEPS] {
        std::array::from_fn(|j| ((i * 7 + j * 3) % 11) as f32 - 5.0 + (i / 100) as f32)
    }

    #[test]
    fn without_a_long_pause_it_is_one_running_mean() {
        let global = [0.5; N_CEPS];
        let frames: Vec<_> = (0..700).map(frame).collect();
        let want = plain_running_mean(global, &frames);
        let mut mean = StreamCepstralMean::new(global);
        for (i, (x, want)) in frames.iter().zip(&want).enumerate() {
            // Pauses shorter than the gap (closures, breaths) do not restart it.
            if i % 50 == 0 {
                for _ in 0..UTTERANCE_GAP_FRAMES - 1 {
                    mean.silent();
                }
            }
            let mut got = *x;
            mean.normalise(&mut got);
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-4, "frame {i}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn after_a_pause_an_utterance_starts_from_the_voice_and_the_global_mean() {
        let global = [0.0; N_CEPS];
        let mut mean = StreamCepstralMean::new(global);
        // 400 frames of a voice at 2 (the voice's memory holds all of them).
        for _ in 0..400 {
            mean.normalise(&mut [2.0; N_CEPS]);
        }
        for _ in 0..UTTERANCE_GAP_FRAMES {
            mean.silent();
        }
        // The new utterance's first frame: the running mean restarts at
        // (50 · 0 + 200 · 2) / 250 = 1.6, then takes the frame in (1/251 of the way).
        let mut x = [10.0; N_CEPS];
        mean.normalise(&mut x);
        let want = 10.0 - (1.6 + (10.0 - 1.6) / 251.0);
        assert!((x[0] - want).abs() < 1e-4, "{} vs {want}", x[0]);
    }

    #[test]
    fn a_speaker_seed_is_the_first_utterances_prior() {
        let mut mean = StreamCepstralMean::new([0.0; N_CEPS]);
        mean.start_from_speaker(&CepstralMean::from_mean(&[3.0; N_CEPS], 1000));
        let mut x = [3.0; N_CEPS];
        mean.normalise(&mut x);
        // (50 · 0 + 200 · 3) / 250 = 2.4, then the frame at 3 moves it 1/251 of the way.
        let want = 3.0 - (2.4 + 0.6 / 251.0);
        assert!((x[0] - want).abs() < 1e-4, "{} vs {want}", x[0]);
        // An empty seed changes nothing.
        let mut cold = StreamCepstralMean::new([0.0; N_CEPS]);
        let before = cold;
        cold.start_from_speaker(&CepstralMean::default());
        assert_eq!(cold, before);
    }

    #[test]
    fn bad_frames_are_not_learnt() {
        let mut mean = StreamCepstralMean::new([1.0; N_CEPS]);
        let before = mean;
        let mut x = [f32::NAN; N_CEPS];
        x[3] = 2.0;
        mean.normalise(&mut x);
        assert_eq!(x, [0.0; N_CEPS]);
        assert_eq!(mean, before);
        let mut y = [1.0; N_CEPS];
        y[0] = f32::INFINITY;
        mean.normalise(&mut y);
        assert_eq!(mean, before);
        let mut z = [2.0; N_CEPS];
        mean.normalise(&mut z);
        assert!(z.iter().all(|v| v.is_finite()));
    }
}
