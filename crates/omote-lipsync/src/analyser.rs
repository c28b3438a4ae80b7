//! Offline analysis of a whole clip: centred windows, clip-wide voicing and cepstral mean,
//! and posterior smoothing in both directions.

use crate::cepstral_mean::CepstralMean;
use crate::decay_hold::DecayHold;
use crate::features::{
    FRAME_RATE, FeatureExtractor, FrameFeatures, HOP, N_CEPS, SAMPLE_RATE, WINDOW,
};
use crate::noise_floor::{self, NoiseFloorConfig};
use crate::nucleus_vote::NucleusVote;
use crate::profile::Profile;
use crate::scorer::ClassScorer;
use crate::voicing::{Voicing, VoicingConfig};
use crate::{SpectralChange, VowelFrame, VowelTrack};

/// Offline cepstral mean normalisation shrinks the clip's (or speaker's) mean toward the
/// profile's global mean as if this many frames of it had been heard, so a clip with
/// little speech is not normalised by a few frames.
pub const CMN_OFFLINE_PRIOR_FRAMES: f64 = 50.0;

/// With a speaker's mean ([`Analyser::features_with_speaker`]), the speaker's other lines
/// weigh as up to this many frames (2 s of voice) in the mean a clip is normalised with:
/// a one-word line takes the speaker's, a long line keeps about half its own. Chosen over 100, 200, 400,
/// 1000 frames and the speaker's alone (crate README, "Speaker mean").
pub const SPEAKER_PRIOR_FRAMES: f64 = 200.0;

/// Analyser settings shared by the offline and streaming paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalyserConfig {
    /// Silence detection.
    pub voicing: VoicingConfig,
    /// Offline: half-width (frames) of the triangular smoothing of log-scores.
    pub smooth_radius: usize,
    /// Streaming: the mouth class is smoothed by a six-state HMM, filtered as frames come
    /// (and, with [`AnalyserConfig::stream_hold`], one frame late: the held frame sees its
    /// successor). Per 10 ms frame where the spectrum is steady, the class stays with this
    /// probability and otherwise moves to any other class with equal chance (1/6 would
    /// not smooth at all; clamped to 1/6..0.999).
    pub stream_stay: f32,
    /// Streaming: the HMM's stay where the spectrum moves (a phone boundary). Equal to
    /// `stream_stay`, the stay ignores the spectrum ([`crate::ClassFilter`]).
    pub stream_stay_at_change: f32,
    /// Streaming: the relative spectral change ([`crate::SpectralChange`]: the cepstral
    /// distance to the frame before over the voice's typical one) at which the stay has
    /// gone `1 − 1/e` of the way from `stream_stay` to `stream_stay_at_change`.
    pub stream_change_width: f32,
    /// Streaming: the HMM's emission temperature (log-scores are divided by it; higher
    /// trusts a single frame less). At least 0.01.
    pub stream_temperature: f32,
    /// Streaming: where the spectrum moves, the temperature grows up to `1 +` this many
    /// times (a frame between two phones is a poor witness of either; 0: never). See
    /// [`crate::ClassFilter::with_softening`].
    pub stream_change_softening: f32,
    /// Level range (dB, centred on the voicing threshold) over which the weights fade in
    /// with the voice band's level ([`crate::FrameFeatures::band_db`]).
    pub fade_db: f32,
    /// Offline: probability per 10 ms frame that the mouth class stays the same where the
    /// spectrum is steady, for the forward-backward pass over each voiced run (0 turns it
    /// off).
    pub hmm_stay: f32,
    /// Offline: the pass's stay where the spectrum moves (a phone boundary), as the
    /// stream's filter has it ([`AnalyserConfig::stream_stay_at_change`]); equal to
    /// `hmm_stay`, the stay ignores the spectrum.
    pub hmm_stay_at_change: f32,
    /// Offline: the relative spectral change ([`crate::SpectralChange`]) at which the stay
    /// has gone `1 − 1/e` of the way from `hmm_stay` to `hmm_stay_at_change`.
    pub hmm_change_width: f32,
    /// Offline: the emission temperature of that pass (log-scores are divided by it).
    pub hmm_temperature: f32,
    /// Offline: of a vowel's leaving probability, the share that goes to N (a consonant
    /// or closure) rather than to another vowel.
    pub hmm_to_closed: f32,
    /// Offline: from each vowel's loudest frame to its end, one vowel leads where the
    /// frames' reading is close ([`NucleusVote`], after the HMM and the short-run filter,
    /// before the decay hold).
    pub nucleus_vote: NucleusVote,
    /// Streaming: the vote's causal form ([`crate::StreamNucleusVote`]: from each vowel's
    /// loudest frame so far, only frames that have fallen `below_peak_db` under it; after
    /// the blip filter, before the decay hold).
    pub stream_nucleus_vote: NucleusVote,
    /// Offline: a dominant class that leads for fewer frames than this inside speech is a
    /// flicker: its frames are led by the neighbouring run's class instead (1 turns it off).
    pub min_run: usize,
    /// Streaming: hold each frame back one frame (10 ms more latency) so a one-frame
    /// flicker of the mouth class can be seen and removed. Off for the lowest latency
    /// (the browser's microphone worklet, where the budget is 25 ms from 48 kHz).
    pub stream_hold: bool,
    /// The noise of the clip's pauses (streaming: of the last 2 s of pauses), taken out
    /// of every frame's spectrum before the cepstrum.
    pub noise_floor: NoiseFloorConfig,
    /// A voiced frame more than this many dB under the loudest of its run's last
    /// [`crate::DECAY_WINDOW`] frames is a fading voice: it may close the mouth but not
    /// switch to another vowel ([`crate::DecayHold`], the last step offline and streamed;
    /// infinite: off).
    pub decay_hold_db: f32,
}

impl Default for AnalyserConfig {
    fn default() -> Self {
        Self {
            voicing: VoicingConfig::default(),
            smooth_radius: 1,
            stream_stay: 0.93,
            stream_stay_at_change: 0.3,
            stream_change_width: 0.58,
            stream_temperature: 2.5,
            stream_change_softening: 4.0,
            fade_db: 6.0,
            hmm_stay: 0.98,
            hmm_stay_at_change: 0.3,
            hmm_change_width: 0.8,
            hmm_temperature: 2.5,
            hmm_to_closed: 0.2,
            nucleus_vote: NucleusVote {
                ratio: 0.3,
                margin: 2.0,
                below_peak_db: 0.0,
            },
            stream_nucleus_vote: NucleusVote {
                ratio: 0.3,
                margin: 1.5,
                below_peak_db: 6.0,
            },
            min_run: 4,
            stream_hold: true,
            noise_floor: NoiseFloorConfig::default(),
            decay_hold_db: 15.0,
        }
    }
}

impl AnalyserConfig {
    /// Streaming at the lowest latency (12.5 ms): no frame held back, and the mouth-class
    /// HMM tuned for filtering alone — it cannot look ahead, so it trusts each frame more
    /// (one stay, 0.5, whatever the spectrum does; temperature 1, not softened where the
    /// spectrum moves; with the held filter's former 0.6 and 2 Japanese lost 2 points).
    ///
    /// ```
    /// use omote_lipsync::{AnalyserConfig, Profile, StreamAnalyser};
    /// let live = StreamAnalyser::with_config(Profile::builtin(), AnalyserConfig::lowest_latency());
    /// assert_eq!(live.latency_s(), StreamAnalyser::LATENCY_NO_HOLD_S);
    /// ```
    pub fn lowest_latency() -> Self {
        Self {
            stream_hold: false,
            stream_stay: 0.5,
            stream_stay_at_change: 0.5,
            stream_temperature: 1.0,
            stream_change_softening: 0.0,
            ..Self::default()
        }
    }
}

/// Features of a whole clip, before classification (used to build and calibrate profiles).
#[derive(Clone, Debug, Default)]
pub struct ClipFeatures {
    /// Raw per-frame features.
    pub frames: Vec<FrameFeatures>,
    /// Voicing of each frame.
    pub voicing: Voicing,
    /// Cepstra as the classifier sees them (mean-normalised when the profile says so).
    pub normalised: Vec<[f32; N_CEPS]>,
}

/// Offline analyser: owns the FFT plan and a profile; reuse it across clips.
pub struct Analyser {
    extractor: FeatureExtractor,
    profile: Profile,
    scorer: ClassScorer,
    config: AnalyserConfig,
    window: Vec<f32>,
}

/// Number of frames of a clip of `len` samples: `floor(len / HOP)`.
pub fn frame_count(len: usize) -> usize {
    len / HOP
}

/// Softmax of log-scores into `out`. A non-finite score counts as impossible; with no
/// finite score at all the weights are all 0 (a closed mouth), never NaN.
pub(crate) fn softmax(s: &[f32; 6]) -> [f32; 6] {
    let s = s.map(|v| if v.is_finite() { v } else { f32::NEG_INFINITY });
    let m = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut out = [0f32; 6];
    if !m.is_finite() {
        return out;
    }
    let mut sum = 0f32;
    for (o, v) in out.iter_mut().zip(&s) {
        *o = (v - m).exp();
        sum += *o;
    }
    for o in &mut out {
        *o /= sum;
    }
    out
}

/// Weight gain of a voiced frame from its level (the voice band's:
/// [`crate::FrameFeatures::band_db`]) against the threshold: 0.5 at the threshold, 1 at
/// `fade_db / 2` over it, never under 0.05.
pub(crate) fn fade(level_db: f32, threshold_db: f32, fade_db: f32) -> f32 {
    ((level_db - threshold_db) / fade_db.max(1e-3) + 0.5).clamp(0.05, 1.0)
}

/// Voice-level volume 0..1 relative to the speech level.
pub(crate) fn volume(level_db: f32, speech_db: f32) -> f32 {
    10f32.powf((level_db - speech_db) / 20.0).clamp(0.0, 1.0)
}

impl Analyser {
    /// An analyser using `profile` with default settings.
    pub fn new(profile: Profile) -> Self {
        Self::with_config(profile, AnalyserConfig::default())
    }

    /// An analyser with explicit settings.
    pub fn with_config(profile: Profile, config: AnalyserConfig) -> Self {
        Self {
            extractor: FeatureExtractor::new(),
            scorer: ClassScorer::new(&profile),
            profile,
            config,
            window: vec![0.0; WINDOW],
        }
    }

    /// The profile in use.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Features of a clip (mono, [`SAMPLE_RATE`] Hz): frame *i*'s window is centred at
    /// sample `i·HOP + HOP/2`, zero-padded at the ends.
    pub fn features(&mut self, samples: &[f32]) -> ClipFeatures {
        let n = frame_count(samples.len());
        let mut mels = Vec::with_capacity(n);
        let mut levels = Vec::with_capacity(n);
        let mut bands = Vec::with_capacity(n);
        let half = (WINDOW / 2) as isize;
        for i in 0..n {
            let c = (i * HOP + HOP / 2) as isize;
            let (a, b) = (c - half, c + half);
            let src_a = a.max(0) as usize;
            let src_b = (b.max(0) as usize).min(samples.len());
            let (mel, level) = if a >= 0 && b as usize <= samples.len() {
                self.extractor.mel_and_level(&samples[src_a..src_b])
            } else {
                // A window over the clip's edge is padded with the mean of what it holds, not
                // zeros: a clip with a DC offset would otherwise meet a step there, and a
                // step's energy reaches the voice band.
                let held = &samples[src_a..src_b.max(src_a)];
                let mean = held
                    .iter()
                    .map(|x| if x.is_finite() { *x } else { 0.0 })
                    .sum::<f32>()
                    / held.len().max(1) as f32;
                self.window.fill(if mean.is_finite() { mean } else { 0.0 });
                let off = (src_a as isize - a) as usize;
                self.window[off..off + held.len()].copy_from_slice(held);
                self.extractor.mel_and_level(&self.window)
            };
            mels.push(mel);
            levels.push(level.level_db);
            bands.push(level.band_db);
        }
        // Voicing, the noise estimate's pauses, the vote and the decay hold read the voice
        // band's level: what lies under it — a thump, rumble, mains hum — is no voice, and
        // a floor of it would lift the threshold over the quieter vowels (EVALUATION.md's
        // eighteenth stage).
        let voicing = self.config.voicing.offline(&bands);
        let nf = &self.config.noise_floor;
        let noise = noise_floor::estimate(
            nf,
            &mels,
            &voicing.voiced,
            &bands,
            voicing.noise_reference_db(),
        );
        let frames: Vec<FrameFeatures> = mels
            .iter()
            .zip(levels.iter().zip(&bands))
            .map(|(mel, (&level_db, &band_db))| {
                let ceps = match &noise {
                    Some(noise) => self
                        .extractor
                        .cepstrum(&noise_floor::subtract(nf, mel, noise)),
                    None => self.extractor.cepstrum(mel),
                };
                FrameFeatures {
                    ceps,
                    level_db,
                    band_db,
                }
            })
            .collect();
        let mut own = CepstralMean::default();
        own.add_frames(&frames, &voicing.voiced);
        let normalised = self.normalised(&frames, own, &CepstralMean::default());
        ClipFeatures {
            frames,
            voicing,
            normalised,
        }
    }

    /// Cepstra minus the mean of the clip's own voiced frames (`own`) and the prior
    /// ([`CepstralMean::speaker_prior`]: [`CMN_OFFLINE_PRIOR_FRAMES`] of the profile's
    /// global mean, so a clip with little speech is not normalised by a few frames, and the
    /// speaker's `others` lines).
    fn normalised(
        &self,
        frames: &[FrameFeatures],
        mut own: CepstralMean,
        others: &CepstralMean,
    ) -> Vec<[f32; N_CEPS]> {
        if !self.profile.cmn {
            return frames.iter().map(|f| f.ceps).collect();
        }
        let global = &self.profile.global_mean;
        own.merge(&CepstralMean::speaker_prior(
            global,
            CMN_OFFLINE_PRIOR_FRAMES,
            others,
        ));
        let mean = own.mean().unwrap_or(*global);
        frames
            .iter()
            .map(|f| {
                let mut x = f.ceps;
                for j in 0..N_CEPS {
                    x[j] -= mean[j];
                }
                x
            })
            .collect()
    }

    /// Features of a clip normalised with its speaker's mean: `others` is the
    /// [`CepstralMean`] of the speaker's *other* clips (with a sum over all of them,
    /// [`CepstralMean::without_clip`] gives it). Over many lines the words average out, so
    /// a short line is classified against the voice rather than against its own few words
    /// (see the crate README, "Speaker mean"). The clip's own mean still counts against
    /// [`SPEAKER_PRIOR_FRAMES`] of the others', so a long clip recorded apart (another
    /// day, another microphone) keeps much of its own, and with no other clips (an empty
    /// `others`) it is normalised as by [`Analyser::features`].
    pub fn features_with_speaker(
        &mut self,
        samples: &[f32],
        others: &CepstralMean,
    ) -> ClipFeatures {
        let mut feats = self.features(samples);
        self.renormalise(&mut feats, others);
        feats
    }

    /// Replaces `feats.normalised` with the clip's cepstra normalised with the speaker's
    /// mean, `others` being the speaker's other clips ([`Analyser::features_with_speaker`]).
    pub fn renormalise(&self, feats: &mut ClipFeatures, others: &CepstralMean) {
        feats.normalised = self.normalised(&feats.frames, CepstralMean::of_clip(feats), others);
    }

    /// The clip's cepstra normalised as a stream started from the speaker's other clips
    /// (`others`) normalises them: a running mean that learns each voiced frame before
    /// normalising it and restarts at each utterance ([`crate::StreamCepstralMean`]);
    /// silent frames are normalised with it as it stands. Offline voicing decides which
    /// frames are voiced. For training the context net on what a stream gives it. A
    /// profile without cepstral mean normalisation gets the raw cepstra, as a stream does.
    pub fn stream_normalised(
        &self,
        feats: &ClipFeatures,
        others: &CepstralMean,
    ) -> Vec<[f32; N_CEPS]> {
        if !self.profile.cmn {
            return feats.frames.iter().map(|f| f.ceps).collect();
        }
        let mut mean = crate::StreamCepstralMean::new(self.profile.global_mean);
        mean.start_from_speaker(others);
        feats
            .frames
            .iter()
            .zip(&feats.voicing.voiced)
            .map(|(f, &voiced)| {
                let mut x = f.ceps;
                if voiced {
                    mean.normalise(&mut x);
                } else {
                    mean.silent();
                    mean.apply(&mut x);
                }
                x
            })
            .collect()
    }

    /// [`Analyser::analyse`] with the speaker's other clips ([`Analyser::features_with_speaker`]).
    pub fn analyse_with_speaker(&mut self, samples: &[f32], others: &CepstralMean) -> VowelTrack {
        let feats = self.features_with_speaker(samples, others);
        self.classify(&feats, samples.len())
    }

    /// Analyses a whole clip (mono, [`SAMPLE_RATE`] Hz) into a 100 fps [`VowelTrack`].
    /// Never fails: empty input gives an empty track, silence an all-silent one.
    pub fn analyse(&mut self, samples: &[f32]) -> VowelTrack {
        let feats = self.features(samples);
        self.classify(&feats, samples.len())
    }

    /// Classifies precomputed clip features.
    pub fn classify(&self, feats: &ClipFeatures, len_samples: usize) -> VowelTrack {
        let n = feats.frames.len();
        let v = &feats.voicing;
        // Only voiced frames are read (the context net's window still spans the silent
        // ones, as in training).
        let scores: Vec<[f32; 6]> = (0..feats.normalised.len())
            .map(|i| {
                if v.voiced.get(i) == Some(&true) {
                    self.scorer.log_scores_at(&feats.normalised, i)
                } else {
                    [0.0; 6]
                }
            })
            .collect();
        let r = self.config.smooth_radius as isize;
        // Triangular smoothing of log-scores over voiced neighbours only (speech is not
        // smeared into silence and back).
        let mut smoothed = vec![[0f32; 6]; n];
        for i in 0..n {
            if !v.voiced[i] {
                continue;
            }
            let mut acc = [0f32; 6];
            let mut wsum = 0f32;
            for d in -r..=r {
                let j = i as isize + d;
                if j < 0 || j >= n as isize || !v.voiced[j as usize] {
                    continue;
                }
                let w = (r + 1 - d.abs()) as f32;
                for k in 0..6 {
                    acc[k] += w * scores[j as usize][k];
                }
                wsum += w;
            }
            for a in &mut acc {
                *a /= wsum;
            }
            smoothed[i] = acc;
        }
        let c = &self.config;
        let stays = self.stays(feats);
        let mut posteriors = posteriors(
            &smoothed,
            &v.voiced,
            &stays,
            c.hmm_temperature,
            c.hmm_to_closed,
        );
        if c.min_run > 1 {
            drop_short_runs(&mut posteriors, &v.voiced, c.min_run);
        }
        if c.nucleus_vote.is_on() {
            let levels: Vec<f32> = feats.frames.iter().map(|f| f.band_db).collect();
            c.nucleus_vote.apply(&mut posteriors, &v.voiced, &levels);
        }
        let mut decay = DecayHold::new(c.decay_hold_db);
        for (i, p) in posteriors.iter_mut().enumerate() {
            decay.frame(feats.frames[i].band_db, v.voiced[i].then_some(p));
        }
        let mut frames = Vec::with_capacity(n);
        for i in 0..n {
            if !v.voiced[i] {
                frames.push(VowelFrame {
                    volume: volume(feats.frames[i].level_db, v.speech_db),
                    ..VowelFrame::SILENT
                });
                continue;
            }
            let p = posteriors[i];
            let level = feats.frames[i].level_db;
            // The mouth opens with the voice band's level: a thump, rumble or hum in the
            // frame is not a louder voice (the volume is the input's, all of it).
            let g = fade(feats.frames[i].band_db, v.threshold_db, self.config.fade_db);
            let mut weights = [0f32; 6];
            for k in 0..6 {
                weights[k] = p[k] * g;
            }
            frames.push(VowelFrame {
                weights,
                volume: volume(level, v.speech_db),
                silent: false,
            });
        }
        let mut track = VowelTrack {
            fps: FRAME_RATE,
            frames,
            voiced_span: None,
            duration_s: len_samples as f64 / f64::from(SAMPLE_RATE),
        };
        track.update_voiced_span();
        track
    }
}

impl Analyser {
    /// Per frame, the offline HMM's stay into it from the frame before: `hmm_stay` where
    /// the spectrum is steady, down to `hmm_stay_at_change` where it moves (the stream's
    /// rule, [`crate::ClassFilter`], over the same [`SpectralChange`]); empty when the pass
    /// is off.
    fn stays(&self, feats: &ClipFeatures) -> Vec<f32> {
        let c = &self.config;
        if !(c.hmm_stay > 0.0 && c.hmm_stay < 1.0) {
            return Vec::new();
        }
        let (steady, moved) = (
            c.hmm_stay,
            c.hmm_stay_at_change.clamp(1.0 / 6.0, c.hmm_stay),
        );
        let width = c.hmm_change_width.max(1e-3);
        let mut change = SpectralChange::new();
        (0..feats.normalised.len())
            .map(|i| {
                if feats.voicing.voiced.get(i) != Some(&true) {
                    change.silence();
                    return steady;
                }
                let r = change.update(&feats.normalised[i]).unwrap_or(0.0);
                moved + (steady - moved) * (-(r / width) * (r / width)).exp()
            })
            .collect()
    }
}

/// Class posteriors per frame from per-frame log-scores: a softmax per frame, or, with
/// `stays` (per frame, the probability that the class stays from the frame before;
/// empty: off), the forward-backward pass of a six-state HMM over each voiced run
/// (the matrix `transitions` spells out), so a single odd frame does not flip the mouth. Silent frames get
/// zeros.
fn posteriors(
    scores: &[[f32; 6]],
    voiced: &[bool],
    stays: &[f32],
    temperature: f32,
    to_closed: f32,
) -> Vec<[f32; 6]> {
    let n = scores.len();
    let mut out = vec![[0f32; 6]; n];
    if stays.len() != n {
        for i in 0..n {
            if voiced[i] {
                out[i] = softmax(&scores[i]);
            }
        }
        return out;
    }
    let t = if temperature > 0.0 { temperature } else { 1.0 };
    let to_closed = to_closed.clamp(0.0, 1.0);
    let mut fwd: Vec<[f32; 6]> = Vec::new();
    for (start, end) in voiced_runs(voiced) {
        let run = &scores[start..end];
        // Emissions, scaled per frame (softmax) so the products stay in range.
        let emit: Vec<[f32; 6]> = run
            .iter()
            .map(|s| softmax(&std::array::from_fn(|k| s[k] / t)))
            .collect();
        fwd.clear();
        let mut prev = [1.0 / 6.0; 6];
        for (j, e) in emit.iter().enumerate() {
            // Into frame j: its own stay (how much the spectrum moved to reach it).
            let into = forward_step(&prev, stays[start + j], to_closed);
            let mut a = [0f32; 6];
            let mut sum = 0.0;
            for k in 0..6 {
                a[k] = into[k] * e[k];
                sum += a[k];
            }
            let sum = if sum > 0.0 { sum } else { 1.0 };
            for v in &mut a {
                *v /= sum;
            }
            fwd.push(a);
            prev = a;
        }
        let mut beta = [1.0f32; 6];
        for j in (0..run.len()).rev() {
            let mut post = [0f32; 6];
            let mut sum = 0.0;
            for k in 0..6 {
                post[k] = fwd[j][k] * beta[k];
                sum += post[k];
            }
            let sum = if sum > 0.0 { sum } else { 1.0 };
            for v in &mut post {
                *v /= sum;
            }
            out[start + j] = post;
            // beta for the frame before: Σ_k' P(k → k') e_j(k') beta(k').
            let eb: [f32; 6] = std::array::from_fn(|k| emit[j][k] * beta[k]);
            let nb = backward_step(&eb, stays[start + j], to_closed);
            let s2: f32 = nb.iter().sum();
            let s2 = if s2 > 0.0 { s2 } else { 1.0 };
            beta = nb.map(|v| v / s2);
        }
    }
    out
}

/// `(start, end)` of each run of consecutive voiced frames.
fn voiced_runs(voiced: &[bool]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < voiced.len() && !voiced[i] {
            i += 1;
        }
        let start = i;
        while i < voiced.len() && voiced[i] {
            i += 1;
        }
        (start < i).then_some((start, i))
    })
}

/// Index of the largest weight (the first on ties, as the scorer reads it).
pub(crate) fn dominant(p: &[f32; 6]) -> usize {
    (0..6).fold(0, |b, k| if p[k] > p[b] { k } else { b })
}

/// Makes class `k` dominant by swapping its weight with the largest one: the weights keep
/// their values (so the blend keeps its shape), only which class leads changes.
pub(crate) fn lead_with(p: &mut [f32; 6], k: usize) {
    let d = dominant(p);
    if d != k && p[d] > p[k] {
        p.swap(d, k);
    }
}

/// Removes dominant-class runs shorter than `min_run` frames inside each voiced run,
/// shortest first: such a run is led instead by the class of the neighbouring run (before
/// or after it) whose weights over the short run sum higher. Runs at a voiced run's edge
/// have one neighbour; a voiced run that is one short run stays.
fn drop_short_runs(post: &mut [[f32; 6]], voiced: &[bool], min_run: usize) {
    for (start, end) in voiced_runs(voiced) {
        let run = &mut post[start..end];
        for len in 1..min_run {
            // (start, end, class) of each dominant run, rebuilt after each length pass.
            let mut runs: Vec<(usize, usize, usize)> = Vec::new();
            for (j, p) in run.iter().enumerate() {
                let k = dominant(p);
                match runs.last_mut() {
                    Some(r) if r.2 == k => r.1 = j + 1,
                    _ => runs.push((j, j + 1, k)),
                }
            }
            for r in 0..runs.len() {
                let (a, b, _) = runs[r];
                if b - a != len || runs.len() == 1 {
                    continue;
                }
                let sum = |k: usize| run[a..b].iter().map(|p| p[k]).sum::<f32>();
                let before = (r > 0).then(|| runs[r - 1].2);
                let after = runs.get(r + 1).map(|x| x.2);
                let k = match (before, after) {
                    (Some(x), Some(y)) => {
                        if sum(y) > sum(x) {
                            y
                        } else {
                            x
                        }
                    }
                    (Some(x), None) | (None, Some(x)) => x,
                    (None, None) => continue,
                };
                for p in &mut run[a..b] {
                    lead_with(p, k);
                }
                runs[r].2 = k;
            }
        }
    }
}

/// `Σ_j prev[j] · T[j][k]` for `transitions(stay, nfrac)`, in six steps instead of
/// thirty-six (the matrix is a stay and two shares).
fn forward_step(prev: &[f32; 6], stay: f32, nfrac: f32) -> [f32; 6] {
    let leave = 1.0 - stay;
    let vowels: f32 = prev[..5].iter().sum();
    let (to_vowel, from_closed) = (leave * (1.0 - nfrac) / 4.0, prev[5] * leave / 5.0);
    std::array::from_fn(|k| {
        if k == 5 {
            prev[5] * stay + vowels * leave * nfrac
        } else {
            prev[k] * stay + (vowels - prev[k]) * to_vowel + from_closed
        }
    })
}

/// `Σ_m T[k][m] · next[m]` for `transitions(stay, nfrac)` (the backward pass's step).
fn backward_step(next: &[f32; 6], stay: f32, nfrac: f32) -> [f32; 6] {
    let leave = 1.0 - stay;
    let vowels: f32 = next[..5].iter().sum();
    let to_vowel = leave * (1.0 - nfrac) / 4.0;
    std::array::from_fn(|k| {
        if k == 5 {
            next[5] * stay + vowels * leave / 5.0
        } else {
            next[k] * stay + (vowels - next[k]) * to_vowel + next[5] * leave * nfrac
        }
    })
}

/// The HMM's transition matrix `[from][to]` over A I U E O N: every class stays with
/// `stay`; a vowel leaves to N (a consonant or closure) with `nfrac` of the rest and to
/// each other vowel with an equal share of what remains; N leaves to each vowel equally.
#[cfg(test)]
fn transitions(stay: f32, nfrac: f32) -> [[f32; 6]; 6] {
    let leave = 1.0 - stay;
    let mut t = [[0f32; 6]; 6];
    for (from, row) in t.iter_mut().enumerate() {
        for (to, p) in row.iter_mut().enumerate() {
            *p = if from == to {
                stay
            } else if from == 5 {
                leave / 5.0
            } else if to == 5 {
                leave * nfrac
            } else {
                leave * (1.0 - nfrac) / 4.0
            };
        }
    }
    t
}

#[cfg(test)]
mod hmm_tests {
    use super::*;

    /// Log-scores favouring class `k` by `margin`.
    fn favour(k: usize, margin: f32) -> [f32; 6] {
        std::array::from_fn(|j| if j == k { margin } else { 0.0 })
    }

    #[test]
    fn a_single_odd_frame_flips_the_softmax_but_not_the_hmm() {
        let mut scores: Vec<[f32; 6]> = (0..20).map(|_| favour(0, 2.0)).collect();
        scores[10] = favour(3, 2.5);
        let voiced = vec![true; 20];
        let argmax = |p: &[f32; 6]| (0..6).fold(0, |b, k| if p[k] > p[b] { k } else { b });
        let plain = posteriors(&scores, &voiced, &[], 1.0, 0.2);
        assert_eq!(argmax(&plain[10]), 3);
        let hmm = posteriors(&scores, &voiced, &[0.85; 20], 0.7, 0.2);
        assert!(hmm.iter().all(|p| argmax(p) == 0), "{:?}", hmm[10]);
        for p in &hmm {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4 && p.iter().all(|v| v.is_finite()));
        }
        // A real change (eight frames of another class) still comes through.
        for s in &mut scores[10..18] {
            *s = favour(3, 2.5);
        }
        let hmm = posteriors(&scores, &voiced, &[0.85; 20], 0.7, 0.2);
        assert_eq!(argmax(&hmm[14]), 3);
        // Silent frames stay empty and split the runs.
        let mut gaps = voiced.clone();
        gaps[5] = false;
        let hmm = posteriors(&scores, &gaps, &[0.85; 20], 0.7, 0.2);
        assert_eq!(hmm[5], [0.0; 6]);
    }

    #[test]
    fn transition_rows_sum_to_one() {
        for row in transitions(0.85, 0.2) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }

    /// The six-step products are the matrix's.
    #[test]
    fn the_steps_multiply_by_the_transition_matrix() {
        let v = [0.1, 0.3, 0.05, 0.2, 0.15, 0.2];
        for (stay, nfrac) in [(0.98, 0.2), (0.3, 0.5), (0.85, 0.0)] {
            let t = transitions(stay, nfrac);
            let (f, b) = (
                forward_step(&v, stay, nfrac),
                backward_step(&v, stay, nfrac),
            );
            for k in 0..6 {
                let fk: f32 = (0..6).map(|j| v[j] * t[j][k]).sum();
                let bk: f32 = (0..6).map(|m| t[k][m] * v[m]).sum();
                assert!((f[k] - fk).abs() < 1e-6 && (b[k] - bk).abs() < 1e-6);
            }
        }
    }

    /// Offline, the stay follows the spectrum: a steady run keeps one class through a
    /// weak odd stretch, while the same stretch behind a spectral jump comes through.
    #[test]
    fn a_change_in_the_spectrum_lets_the_class_move() {
        let mut scores: Vec<[f32; 6]> = (0..30).map(|_| favour(0, 1.0)).collect();
        for s in &mut scores[15..20] {
            *s = favour(3, 1.5);
        }
        let voiced = vec![true; 30];
        let argmax = |p: &[f32; 6]| (0..6).fold(0, |b, k| if p[k] > p[b] { k } else { b });
        let steady = posteriors(&scores, &voiced, &[0.98; 30], 2.5, 0.2);
        assert_eq!(argmax(&steady[17]), 0, "held through: {:?}", steady[17]);
        let mut at_change = [0.98; 30];
        at_change[15] = 0.3;
        at_change[20] = 0.3;
        let moved = posteriors(&scores, &voiced, &at_change, 2.5, 0.2);
        assert_eq!(argmax(&moved[17]), 3, "let through: {:?}", moved[17]);
    }
}

#[cfg(test)]
mod stream_normalised_tests {
    use super::*;

    /// A clip of `voiced` flags whose every frame has the cepstrum `ceps(i)`.
    fn clip(voiced: Vec<bool>, ceps: impl Fn(usize) -> [f32; N_CEPS]) -> ClipFeatures {
        ClipFeatures {
            frames: (0..voiced.len())
                .map(|i| FrameFeatures {
                    ceps: ceps(i),
                    level_db: -20.0,
                    band_db: -20.0,
                })
                .collect(),
            voicing: Voicing {
                voiced,
                speech_db: -20.0,
                floor_db: -60.0,
                threshold_db: -40.0,
            },
            normalised: Vec::new(),
        }
    }

    #[test]
    fn a_clip_is_normalised_as_a_stream_learns_it() {
        let analyser = Analyser::new(Profile::builtin());
        let global = Profile::builtin().global_mean;
        let above = global.map(|g| g + 2.0);
        // 100 voiced frames 2 above the global mean, 40 silent ones, one voiced frame
        // 2 below it, then a frame that is not finite.
        let mut voiced = vec![true; 100];
        voiced.extend([false; 40]);
        voiced.extend([true, true]);
        let feats = clip(voiced, |i| match i {
            0..140 => above,
            140 => global.map(|g| g - 2.0),
            _ => [f32::NAN; N_CEPS],
        });
        let out = analyser.stream_normalised(&feats, &CepstralMean::default());
        assert_eq!(out.len(), feats.frames.len());
        // The first frame is read against the global mean (the running mean has only it)…
        assert!(out[0][0] > 1.9, "{}", out[0][0]);
        // … and the running mean learns the voice frame by frame.
        assert!(out[99][0] < 1.0 && out[99][0] > 0.0, "{}", out[99][0]);
        assert!(out[50][0] > out[99][0]);
        // Silent frames are normalised with the mean as it stands, without learning it.
        assert_eq!(out[100], out[139]);
        assert!((out[100][0] - out[99][0]).abs() < 0.02);
        // After the pause the next utterance starts again from the voice and the global
        // mean, so a frame below the global mean reads well below zero.
        assert!(out[140][0] < -2.5, "{}", out[140][0]);
        // A broken frame is read as the mean, never NaN.
        assert!(out.iter().flatten().all(|v| v.is_finite()));
        assert_eq!(out[141], [0.0; N_CEPS]);
        // Offline normalisation of the same clip differs: it knows the whole clip.
        let mut offline = feats.clone();
        analyser.renormalise(&mut offline, &CepstralMean::default());
        assert!((offline.normalised[0][0] - out[0][0]).abs() > 0.5);
        // Without mean normalisation a stream reads the raw cepstra.
        let raw = Analyser::new(Profile {
            cmn: false,
            ..Profile::builtin()
        })
        .stream_normalised(&feats, &CepstralMean::default());
        assert_eq!(raw[0], above);
    }
}
