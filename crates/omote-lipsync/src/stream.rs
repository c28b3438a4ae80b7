//! Streaming analysis: push chunks of any size, get frames as soon as their window is
//! complete. Same features and profile as offline, causal voicing, running cepstral mean
//! and an HMM filter over the mouth class that looks at most one frame ahead.

use crate::ClassSmoother;
use crate::analyser::{AnalyserConfig, fade, volume};
use crate::cepstral_mean::CepstralMean;
use crate::features::{FRAME_RATE, FeatureExtractor, HOP, N_MEL, SAMPLE_RATE, WINDOW};
use crate::noise_floor;
use crate::profile::Profile;
use crate::scorer::ClassScorer;
use crate::stream_mean::StreamCepstralMean;
use crate::voicing::StreamVoicing;
use crate::{ContextNet, N_CEPS, VowelFrame, VowelTrack};

const RING: usize = 512;
/// Frames of the running noise estimate's memory (2 s of pauses).
const NOISE_FRAMES: f32 = 200.0;

/// Live analyser. Frame *i* is centred at `(i + 0.5) · 10 ms` of the stream and is emitted
/// once the stream reaches the end of the next frame's window, [`StreamAnalyser::LATENCY_S`]
/// later.
/// No allocation per frame: output goes into the caller's `Vec`.
///
/// It learns the voice as it goes (running cepstral mean, noise floor, speech level):
/// keep one per voice and push line after line into it rather than starting a new one
/// per line, or start it from a profile calibrated on that voice.
pub struct StreamAnalyser {
    extractor: FeatureExtractor,
    profile: Profile,
    scorer: ClassScorer,
    config: AnalyserConfig,
    voicing: StreamVoicing,
    ring: [f32; RING],
    /// Samples of the virtual stream seen so far (the stream starts with WINDOW/2 − HOP/2
    /// zeros so frame 0 is centred at 5 ms).
    pos: u64,
    next_frame: u64,
    window: [f32; WINDOW],
    /// The mouth-class smoothing (and the frame it holds back).
    smoother: ClassSmoother,
    /// The running cepstral mean (the voice so far, and the utterance going on).
    cmn: StreamCepstralMean,
    /// Mean mel band energies of the silent frames so far, and how many there were
    /// (capped at [`NOISE_FRAMES`]): the noise taken out of voiced frames, as the
    /// offline analyser does with the whole clip's pauses.
    noise: [f32; N_MEL],
    noise_n: f32,
    zero_run: usize,
    /// The last frames the profile's context net reads, when it has one.
    context: Option<RecentFrames>,
}

/// A stream's last normalised cepstra — every frame's, silent ones too, as the context net
/// was trained on whole clips — and the window the net reads for the newest. A stream
/// cannot wait for the frames after it (that would add their 10 ms each to the
/// latency), so the newest stands in for them: a clip's end is read the same way.
#[derive(Clone, Debug)]
struct RecentFrames {
    ring: [[f32; N_CEPS]; ContextNet::MAX_WINDOW],
    /// Frames pushed so far (the first ones repeat the stream's first frame).
    seen: u64,
    past: usize,
    future: usize,
    /// The raw cepstrum of digital silence (its transform is skipped).
    silence: [f32; N_CEPS],
    window: [[f32; N_CEPS]; ContextNet::MAX_WINDOW],
}

impl RecentFrames {
    fn new(net: &ContextNet, silence: [f32; N_CEPS]) -> Self {
        Self {
            ring: [[0.0; N_CEPS]; ContextNet::MAX_WINDOW],
            seen: 0,
            past: net.past.min(ContextNet::MAX_WINDOW - 1),
            future: net.future,
            silence,
            window: [[0.0; N_CEPS]; ContextNet::MAX_WINDOW],
        }
    }

    fn push(&mut self, x: &[f32; N_CEPS]) {
        self.ring[(self.seen % ContextNet::MAX_WINDOW as u64) as usize] = *x;
        self.seen += 1;
    }

    /// The net's window for the newest frame: `past` frames before it (the first frame
    /// repeated before the stream's start), it, then it again for each future frame.
    fn window(&mut self) -> &[[f32; N_CEPS]] {
        let n = (self.past + 1)
            .saturating_add(self.future)
            .min(ContextNet::MAX_WINDOW);
        let newest = self.seen.saturating_sub(1);
        for (w, out) in self.window[..n].iter_mut().enumerate() {
            let back = self.past.saturating_sub(w) as u64;
            let i = newest.saturating_sub(back);
            *out = self.ring[(i % ContextNet::MAX_WINDOW as u64) as usize];
        }
        &self.window[..n]
    }
}

const LEAD: usize = WINDOW / 2 - HOP / 2;

impl StreamAnalyser {
    /// Algorithmic latency: from a frame's centre time to the last sample it needs — half
    /// a window (12.5 ms) plus one frame (10 ms) held back, so the class filter sees the
    /// frame after it and a one-frame flicker of the mouth class can be removed: 22.5 ms.
    /// The rest of the smoothing is causal.
    pub const LATENCY_S: f32 = (WINDOW / 2 + HOP) as f32 / SAMPLE_RATE as f32;

    /// Latency without the held frame ([`AnalyserConfig::stream_hold`] off): half a
    /// window, 12.5 ms.
    pub const LATENCY_NO_HOLD_S: f32 = (WINDOW / 2) as f32 / SAMPLE_RATE as f32;

    /// This analyser's algorithmic latency: [`Self::LATENCY_S`], or
    /// [`Self::LATENCY_NO_HOLD_S`] when its config does not hold a frame back.
    pub fn latency_s(&self) -> f32 {
        if self.config.stream_hold {
            Self::LATENCY_S
        } else {
            Self::LATENCY_NO_HOLD_S
        }
    }

    /// A streaming analyser with default settings.
    pub fn new(profile: Profile) -> Self {
        Self::with_config(profile, AnalyserConfig::default())
    }

    /// A streaming analyser with explicit settings.
    pub fn with_config(profile: Profile, config: AnalyserConfig) -> Self {
        let mut extractor = FeatureExtractor::new();
        let context = profile.context_net.as_ref().map(|net| {
            let (mel, _) = extractor.mel_and_level(&[0.0; WINDOW]);
            RecentFrames::new(net, extractor.cepstrum(&mel))
        });
        Self {
            cmn: StreamCepstralMean::new(profile.global_mean),
            extractor,
            context,
            voicing: StreamVoicing::new(config.voicing),
            scorer: ClassScorer::new(&profile),
            profile,
            config,
            ring: [0.0; RING],
            pos: LEAD as u64,
            next_frame: 0,
            window: [0.0; WINDOW],
            smoother: ClassSmoother::new(&config),
            noise: [0.0; N_MEL],
            noise_n: 0.0,
            zero_run: LEAD,
        }
    }

    /// Starts the running cepstral mean from `others`, a speaker's (the character's other lines,
    /// or what an earlier session heard) instead of the profile's global mean, weighted as
    /// up to [`SPEAKER_PRIOR_FRAMES`] frames: the first words of a new stream are then
    /// heard as that voice's, not as the average voice's. Call before the first push.
    ///
    /// [`SPEAKER_PRIOR_FRAMES`]: crate::SPEAKER_PRIOR_FRAMES
    pub fn start_from_speaker(&mut self, others: &CepstralMean) {
        self.cmn.start_from_speaker(others);
    }

    /// Frames emitted so far.
    pub fn frames_emitted(&self) -> u64 {
        self.next_frame - u64::from(self.smoother.is_holding())
    }

    /// Feeds samples (mono, [`SAMPLE_RATE`] Hz) and appends every completed frame to `out`.
    pub fn push(&mut self, chunk: &[f32], out: &mut Vec<VowelFrame>) {
        for &s in chunk {
            let s = if s.is_finite() { s } else { 0.0 };
            // u64 arithmetic: a wasm32 usize wraps after 2³² samples (75 h at 16 kHz).
            self.ring[(self.pos % RING as u64) as usize] = s;
            self.pos += 1;
            if s == 0.0 {
                self.zero_run = self.zero_run.saturating_add(1);
            } else {
                self.zero_run = 0;
            }
            if self.pos == self.next_frame * HOP as u64 + WINDOW as u64 {
                self.process_frame(out);
                self.next_frame += 1;
            }
        }
    }

    /// Analyses the frame whose window just completed and passes it to the smoother
    /// (which appends to `out` whatever frame is finished).
    fn process_frame(&mut self, out: &mut Vec<VowelFrame>) {
        if self.zero_run >= WINDOW {
            // Digital silence: skip the transform (keeps hours of silence cheap).
            self.voicing.update(crate::features::FLOOR_DB);
            self.learn_noise(&[0.0; N_MEL]);
            self.cmn.silent();
            if let Some(silence) = self.context.as_ref().map(|c| c.silence) {
                self.remember_silent(silence);
            }
            self.smoother.push_silent(0.0, out);
            return;
        }
        let start = self.pos - WINDOW as u64;
        for (i, w) in self.window.iter_mut().enumerate() {
            *w = self.ring[((start + i as u64) % RING as u64) as usize];
        }
        let (mel, level) = self.extractor.mel_and_level(&self.window);
        // The voice band's level, as offline: what lies under it is no voice.
        let voice_db = level.band_db;
        let voiced = self.voicing.update(voice_db);
        let speech_db = self.voicing.speech_db();
        let vol = volume(level.level_db, speech_db);
        let nf = self.config.noise_floor;
        if !voiced {
            if noise_floor::is_noise(&nf, voice_db, self.voicing.noise_reference_db()) {
                self.learn_noise(&mel);
            }
            self.cmn.silent();
            if self.context.is_some() {
                let x = self.cepstrum(&mel);
                self.remember_silent(x);
            }
            self.smoother.push_silent(vol, out);
            return;
        }
        let mut x = self.cepstrum(&mel);
        if self.profile.cmn {
            self.cmn.normalise(&mut x);
        }
        // The mouth opens with the voice band's level (as offline).
        let gain = fade(
            level.band_db,
            self.voicing.threshold_db(),
            self.config.fade_db,
        );
        let scores = match &mut self.context {
            Some(c) => {
                c.push(&x);
                self.scorer.log_scores_in_window(c.window())
            }
            None => self.scorer.log_scores(&x),
        };
        self.smoother
            .push_voiced(&scores, &x, voice_db, gain, vol, out);
    }

    /// A silent frame's raw cepstrum, normalised without being learnt, as the context
    /// net's neighbour of the frames around it.
    fn remember_silent(&mut self, mut x: [f32; N_CEPS]) {
        if self.profile.cmn {
            self.cmn.apply(&mut x);
        }
        if let Some(c) = &mut self.context {
            c.push(&x);
        }
    }

    /// A frame's cepstrum, the noise learnt so far taken out once there is enough of it.
    fn cepstrum(&mut self, mel: &[f32; N_MEL]) -> [f32; N_CEPS] {
        let nf = &self.config.noise_floor;
        if self.noise_n >= nf.min_frames as f32 {
            self.extractor
                .cepstrum(&noise_floor::subtract(nf, mel, &self.noise))
        } else {
            self.extractor.cepstrum(mel)
        }
    }

    /// Adds a silent frame's band energies to the running noise estimate.
    fn learn_noise(&mut self, mel: &[f32; N_MEL]) {
        self.noise_n = (self.noise_n + 1.0).min(NOISE_FRAMES);
        for (n, e) in self.noise.iter_mut().zip(mel) {
            *n += (e - *n) / self.noise_n;
        }
    }

    /// Ends the stream: pads with zeros so every frame of the `floor(len / HOP)` frames of
    /// the pushed audio is emitted, and appends them to `out`.
    pub fn finish(&mut self, out: &mut Vec<VowelFrame>) {
        let pushed = self.pos - LEAD as u64;
        let total = pushed / HOP as u64;
        let pad = [0f32; HOP];
        while self.next_frame < total {
            self.push(&pad, out);
        }
        self.smoother.flush(out);
    }

    /// Convenience: streams a whole clip in chunks of `chunk` samples and returns the track
    /// (what `omote lipsync --stream` does).
    pub fn analyse_in_chunks(
        profile: Profile,
        config: AnalyserConfig,
        samples: &[f32],
        chunk: usize,
    ) -> VowelTrack {
        StreamAnalyser::with_config(profile, config).analyse_clip(samples, chunk)
    }

    /// Feeds a whole clip through this stream in `chunk`-sample chunks and finishes it:
    /// one frame per whole [`HOP`] of the clip.
    pub fn analyse_clip(mut self, samples: &[f32], chunk: usize) -> VowelTrack {
        let mut frames = Vec::with_capacity(samples.len() / HOP + 1);
        for c in samples.chunks(chunk.max(1)) {
            self.push(c, &mut frames);
        }
        self.finish(&mut frames);
        frames.truncate(samples.len() / HOP);
        let mut t = VowelTrack {
            fps: FRAME_RATE,
            frames,
            voiced_span: None,
            duration_s: samples.len() as f64 / f64::from(SAMPLE_RATE),
        };
        t.update_voiced_span();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_the_past_frames_then_the_newest_for_the_future() {
        let mut recent = RecentFrames::new(&tiny_net(), [0.0; N_CEPS]);
        let frame = |v: f32| [v; N_CEPS];
        let firsts = |w: &[[f32; N_CEPS]]| w.iter().map(|x| x[0]).collect::<Vec<f32>>();
        recent.push(&frame(1.0));
        recent.push(&frame(2.0));
        // Before the stream's start its first frame stands in, as a clip's edge does.
        assert_eq!(firsts(recent.window()), [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]);
        for v in 3..=40 {
            recent.push(&frame(v as f32));
        }
        assert_eq!(
            firsts(recent.window()),
            [36.0, 37.0, 38.0, 39.0, 40.0, 40.0]
        );
    }

    /// A net reading 4 frames back and 1 ahead (its numbers do not matter here).
    fn tiny_net() -> ContextNet {
        ContextNet {
            past: 4,
            future: 1,
            weight: 0.5,
            input_mean: vec![0.0; 6 * N_CEPS],
            input_scale: vec![1.0; 6 * N_CEPS],
            hidden_weights: vec![0.0; 6 * N_CEPS],
            hidden_bias: vec![0.0],
            output_weights: vec![0.0; 6],
            output_bias: [0.0; 6],
        }
    }
}
