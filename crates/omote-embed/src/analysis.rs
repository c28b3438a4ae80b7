//! A whole clip's lip sync from samples at any rate: the same numbers `omote lipsync`
//! gives for the same audio (the same resampling to the analyser's rate, the same
//! analyser and built-in profile).

use omote_lipsync::{Analyser, SAMPLE_RATE, VoicedSpan, VowelFrame, VowelTrack, export};

use crate::EmbedError;

/// A clip's lip sync in flat form: per frame the weights of A I U E O and the closed
/// mouth N.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceAnalysis {
    /// Frames per second (100).
    pub fps: f32,
    /// 6 numbers per frame: A I U E O N.
    pub frames: Vec<f32>,
    /// Per frame: whether it is silence.
    pub silent: Vec<bool>,
    /// Per frame: loudness 0–1 against the clip's speech level.
    pub volume: Vec<f32>,
    /// Where speech starts, seconds; `None` for a clip with no speech.
    pub voiced_start: Option<f64>,
    /// Where speech ends, seconds.
    pub voiced_end: Option<f64>,
    /// The clip's duration in seconds.
    pub duration_s: f64,
}

/// Analyses `samples` (mono, −1..1) at `sample_rate` Hz, alone (a character's line is
/// better read against the character's others: [`crate::Speaker`]).
///
/// ```
/// let tone: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
/// let a = omote_embed::analyse_voice(&tone, 16_000.0).unwrap();
/// assert_eq!(a.frames.len(), 6 * a.silent.len());
/// assert!(omote_embed::analyse_voice(&[], 16_000.0).is_err());
/// ```
pub fn analyse_voice(samples: &[f32], sample_rate: f64) -> Result<VoiceAnalysis, EmbedError> {
    analyse_voice_with_profile(samples, sample_rate, None)
}

/// [`analyse_voice`] with a lip sync profile given as JSON (one
/// [`crate::calibrate_voice_from_card`] made for this voice; `None`: the built-in one); a
/// profile that is not one is refused.
pub fn analyse_voice_with_profile(
    samples: &[f32],
    sample_rate: f64,
    profile: Option<&str>,
) -> Result<VoiceAnalysis, EmbedError> {
    let profile = crate::voice_profile::parse_voice_profile(profile)?;
    let samples = analyser_input(samples, sample_rate)?;
    Ok(VoiceAnalysis::from_track(
        &Analyser::new(profile).analyse(&samples),
    ))
}

/// The rate the analyser runs at (Hz): [`load_voice`] gives samples at it.
pub const ANALYSIS_RATE: f64 = SAMPLE_RATE as f64;

/// An audio file (WAV, FLAC, OGG, MP3, by content) as mono samples at
/// [`ANALYSIS_RATE`], decoded and resampled as `omote lipsync` reads its inputs, so a
/// file's analysis here is the CLI's to the bit.
///
/// ```
/// let e = omote_embed::load_voice(std::path::Path::new("no-such.wav")).unwrap_err();
/// assert!(matches!(e, omote_embed::EmbedError::FileNotFound(_)));
/// ```
pub fn load_voice(path: &std::path::Path) -> Result<Vec<f32>, EmbedError> {
    load_voice_with_warning(path).map(|(samples, _)| samples)
}

/// [`load_voice`], with the warning for a WAV cut short of what its header declares
/// (what is there is read, as `omote lipsync` does; a binding passes the warning on).
pub fn load_voice_with_warning(
    path: &std::path::Path,
) -> Result<(Vec<f32>, Option<String>), EmbedError> {
    omote_audio::load_mono_warned(path, SAMPLE_RATE)
        .map(|(audio, warning)| (audio.samples, warning))
        .map_err(|e| audio_file_error(path, e))
}

/// A reader's error on audio file `path` in the embedding API's words: a file that is not
/// there as every binding says it, anything else as the reader said it.
pub(crate) fn audio_file_error(path: &std::path::Path, e: omote_audio::AudioError) -> EmbedError {
    match e.missing_file() {
        Some(_) => EmbedError::file_not_found(path),
        None => EmbedError::AudioFile(e.to_string()),
    }
}

/// `samples` at `sample_rate` checked (not empty, finite, a rate omote reads) and
/// resampled to the analyser's rate.
pub(crate) fn analyser_input(samples: &[f32], sample_rate: f64) -> Result<Vec<f32>, EmbedError> {
    if samples.is_empty() {
        return Err(EmbedError::NoSamples);
    }
    let rate = check_rate(sample_rate)?;
    check_samples(samples)?;
    omote_audio::resample(samples, rate, SAMPLE_RATE).map_err(|e| EmbedError::Audio(e.to_string()))
}

/// The first sample that is NaN or infinite, as an error.
pub(crate) fn check_samples(samples: &[f32]) -> Result<(), EmbedError> {
    match samples.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        Some((index, value)) => Err(EmbedError::NonFiniteSample {
            index,
            value: *value,
        }),
        None => Ok(()),
    }
}

/// `sample_rate` as a whole number of Hz within what omote reads.
pub(crate) fn check_rate(sample_rate: f64) -> Result<u32, EmbedError> {
    let (min, max) = (omote_audio::MIN_RATE, omote_audio::MAX_RATE);
    let whole = sample_rate.is_finite() && sample_rate.fract() == 0.0;
    if whole && (f64::from(min)..=f64::from(max)).contains(&sample_rate) {
        Ok(sample_rate as u32)
    } else {
        Err(EmbedError::SampleRate {
            rate: sample_rate,
            min,
            max,
        })
    }
}

impl VoiceAnalysis {
    /// The flat form of a track.
    pub fn from_track(track: &VowelTrack) -> Self {
        let mut frames = Vec::with_capacity(track.frames.len() * 6);
        for f in &track.frames {
            frames.extend_from_slice(&f.weights);
        }
        VoiceAnalysis {
            fps: track.fps,
            frames,
            silent: track.frames.iter().map(|f| f.silent).collect(),
            volume: track.frames.iter().map(|f| f.volume).collect(),
            voiced_start: track.voiced_span.map(|s| s.start_s),
            voiced_end: track.voiced_span.map(|s| s.end_s),
            duration_s: track.duration_s,
        }
    }

    /// The analyser's track again (every field is kept, so it is the same track):
    /// for the text exports of `omote_lipsync::export`.
    pub fn to_track(&self) -> VowelTrack {
        VowelTrack {
            fps: self.fps,
            frames: self
                .frames
                .chunks_exact(6)
                .zip(&self.silent)
                .zip(&self.volume)
                .map(|((w, &silent), &volume)| VowelFrame {
                    weights: [w[0], w[1], w[2], w[3], w[4], w[5]],
                    volume,
                    silent,
                })
                .collect(),
            voiced_span: self
                .voiced()
                .map(|(start_s, end_s)| VoicedSpan { start_s, end_s }),
            duration_s: self.duration_s,
        }
    }

    /// The track at another frame rate (1–1000 fps; weights interpolated), as
    /// `omote lipsync --fps` writes it.
    pub fn resampled(&self, fps: f32) -> Result<Self, EmbedError> {
        crate::character::check_fps(fps)?;
        Ok(Self::from_track(&self.to_track().resampled(fps)))
    }

    /// omote's track JSON, byte for byte the file of `omote lipsync --format json`
    /// (`source`: the name written in it).
    pub fn to_json(&self, source: &str) -> String {
        export::to_json(&self.to_track(), source)
    }

    /// `time A I U E O N volume silent`, one row per frame (`--format tsv`).
    pub fn to_tsv(&self) -> String {
        export::to_tsv(&self.to_track())
    }

    /// Rhubarb Lip Sync's JSON (mouth shapes A–F and X; `--format rhubarb-json`). Rhubarb
    /// writes the sound file's absolute path as `sound_file`.
    pub fn to_rhubarb_json(&self, sound_file: &str) -> String {
        export::to_rhubarb_json(&self.to_track(), sound_file)
    }

    /// Rhubarb Lip Sync's TSV (`start<TAB>shape` per cue; `--format rhubarb-tsv`).
    pub fn to_rhubarb_tsv(&self) -> String {
        export::to_rhubarb_tsv(&self.to_track())
    }

    /// Rhubarb Lip Sync's XML (`--format rhubarb-xml`).
    pub fn to_rhubarb_xml(&self, sound_file: &str) -> String {
        export::to_rhubarb_xml(&self.to_track(), sound_file)
    }

    /// A track given as numbers (a lip sync file's, an engine's own): 6 per frame
    /// (A I U E O N, each clamped to 0–1, and a frame whose six sum over 1 scaled to sum
    /// 1, as every track's frames do) at `fps`, the voiced span in seconds (`None`:
    /// a clip with no speech, whose mouth never moves; a mouth track to play whole takes
    /// [`VoiceAnalysis::whole_span`]). Nothing is measured: a frame is silent outside the
    /// span, and its volume is 1 inside it.
    /// Checked as a voice line is (a whole number of frames, finite numbers, a positive
    /// rate, a span inside the clip).
    pub fn from_frames(
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
    ) -> Result<Self, EmbedError> {
        crate::character::speech_track(frames, fps, voiced)?;
        let n = frames.len() / 6;
        let silent: Vec<bool> = (0..n)
            .map(|i| {
                let t = (i as f64 + 0.5) / f64::from(fps);
                voiced.is_none_or(|(s, e)| t < s || t >= e)
            })
            .collect();
        Ok(VoiceAnalysis {
            fps,
            frames: frames.chunks_exact(6).flat_map(frame_within_one).collect(),
            volume: silent.iter().map(|s| if *s { 0.0 } else { 1.0 }).collect(),
            silent,
            voiced_start: voiced.map(|v| v.0),
            voiced_end: voiced.map(|v| v.1),
            duration_s: n as f64 / f64::from(fps),
        })
    }

    /// The span of a whole clip of `numbers` weights (6 per frame) at `fps`: what a mouth
    /// track given as bare frames (another tool's, an engine's) plays over — every
    /// binding's "voiced throughout" (`None` for no frames or a rate that is not one).
    pub fn whole_span(numbers: usize, fps: f32) -> Option<(f64, f64)> {
        let frames = numbers / 6;
        (frames > 0 && fps.is_finite() && fps > 0.0).then(|| (0.0, frames as f64 / f64::from(fps)))
    }

    /// A track rebuilt from its parts exactly (a copy that crossed a process: Python's
    /// pickle), checked: `frames` 6 per frame, `silent` and `volume` one per frame,
    /// every number finite, weights and volumes 0–1, a positive rate, a duration within
    /// a frame of the frames' and the voiced span inside it.
    pub fn from_parts(
        fps: f32,
        frames: Vec<f32>,
        silent: Vec<bool>,
        volume: Vec<f32>,
        voiced: Option<(f64, f64)>,
        duration_s: f64,
    ) -> Result<Self, EmbedError> {
        let bad = |why: String| Err(EmbedError::Argument(format!("not a track: {why}")));
        let n = silent.len();
        if !(fps.is_finite() && fps > 0.0) {
            return bad(format!("{fps} fps"));
        }
        if frames.len() != 6 * n || volume.len() != n {
            return bad(format!(
                "{} weights and {} volumes for {n} frames (6 and 1 per frame)",
                frames.len(),
                volume.len()
            ));
        }
        if let Some(v) = frames
            .iter()
            .chain(&volume)
            .find(|v| !(0.0..=1.0).contains(*v))
        {
            return bad(format!("a weight or volume of {v} (0–1)"));
        }
        // The duration is the samples' (within a frame of the frames'), and the span lies
        // inside it (a track resampled to few frames per second ends before its span).
        let frames_s = n as f64 / f64::from(fps);
        let frame_s = 1.0 / f64::from(fps);
        if !(duration_s.is_finite() && (duration_s - frames_s).abs() <= frame_s + 1e-9) {
            return bad(format!(
                "a duration of {duration_s} s for {n} frames at {fps} fps ({frames_s} s)"
            ));
        }
        if let Some((a, b)) = voiced
            && !(0.0 <= a && a <= b && b <= duration_s + 1e-3)
        {
            return bad(format!("a voiced span {a}–{b} s in {duration_s} s"));
        }
        Ok(VoiceAnalysis {
            fps,
            frames,
            silent,
            volume,
            voiced_start: voiced.map(|v| v.0),
            voiced_end: voiced.map(|v| v.1),
            duration_s,
        })
    }

    /// The voiced span in seconds, when there is speech.
    pub fn voiced(&self) -> Option<(f64, f64)> {
        self.voiced_start.zip(self.voiced_end)
    }

    /// Frames in the clip.
    pub fn len(&self) -> usize {
        self.silent.len()
    }

    /// Whether the clip has no frames.
    pub fn is_empty(&self) -> bool {
        self.silent.is_empty()
    }
}

/// One frame's six weights as a track holds them: each 0–1, together at most 1 — the
/// one rule for frames given as numbers, whether kept as a track or said at once.
pub(crate) fn frame_within_one(w: &[f32]) -> [f32; 6] {
    let mut out = [0.0f32; 6];
    for (o, v) in out.iter_mut().zip(w) {
        *o = v.clamp(0.0, 1.0);
    }
    // A frame that sums to 1 but for rounding (an analysis's own, or one read back from
    // a file's 4 decimals: six of them round by at most 3e-4) is kept as it is.
    let sum: f32 = out.iter().sum();
    if sum > 1.0 + 5e-4 {
        out.iter_mut().for_each(|v| *v /= sum);
    }
    out
}
