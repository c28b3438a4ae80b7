//! `analyseVoice`: a whole clip's lip sync, the same numbers as `omote lipsync` gives for
//! the same audio (the same resampling to the analyser's rate, the same analyser and
//! built-in profile).

use omote_lipsync::{Analyser, Profile, SAMPLE_RATE, VowelTrack};

use crate::WebError;

/// A clip's lip sync: per frame the weights of A I U E O and the closed mouth N.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceAnalysis {
    /// Frames per second (100).
    pub fps: f32,
    /// 6 numbers per frame: A I U E O N.
    pub frames: Vec<f32>,
    /// Per frame: whether it is silence.
    pub silent: Vec<bool>,
    /// Where speech starts, seconds; `None` for a clip with no speech.
    pub voiced_start: Option<f64>,
    /// Where speech ends, seconds.
    pub voiced_end: Option<f64>,
    /// The clip's duration in seconds.
    pub duration_s: f64,
}

/// Analyses `samples` (mono, −1..1) at `sample_rate` Hz.
///
/// ```
/// let tone: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
/// let a = omote_web::analyse_voice(&tone, 16_000.0).unwrap();
/// assert_eq!(a.frames.len(), 6 * (a.frames.len() / 6));
/// assert!(omote_web::analyse_voice(&[], 16_000.0).is_err());
/// ```
pub fn analyse_voice(samples: &[f32], sample_rate: f64) -> Result<VoiceAnalysis, WebError> {
    let samples = analyser_input("analyseVoice", samples, sample_rate)?;
    Ok(VoiceAnalysis::from_track(
        &Analyser::new(Profile::builtin()).analyse(&samples),
    ))
}

/// `samples` at `sample_rate` checked (not empty, finite, a rate omote reads) and
/// resampled to the analyser's rate, or the error for `what`.
pub(crate) fn analyser_input(
    what: &'static str,
    samples: &[f32],
    sample_rate: f64,
) -> Result<Vec<f32>, WebError> {
    if samples.is_empty() {
        return Err(WebError::NoSamples { what });
    }
    let rate = check_rate(what, sample_rate)?;
    if let Some((index, value)) = samples.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(WebError::NonFiniteSample {
            what,
            index,
            value: *value,
        });
    }
    omote_audio::resample(samples, rate, SAMPLE_RATE).map_err(|e| WebError::Audio(e.to_string()))
}

impl VoiceAnalysis {
    /// The flat form of a track.
    pub(crate) fn from_track(track: &VowelTrack) -> Self {
        let mut frames = Vec::with_capacity(track.frames.len() * 6);
        for f in &track.frames {
            frames.extend_from_slice(&f.weights);
        }
        VoiceAnalysis {
            fps: track.fps,
            frames,
            silent: track.frames.iter().map(|f| f.silent).collect(),
            voiced_start: track.voiced_span.map(|s| s.start_s),
            voiced_end: track.voiced_span.map(|s| s.end_s),
            duration_s: track.duration_s,
        }
    }
}

/// `sample_rate` as a whole number of Hz within what omote reads, or the error for `what`.
pub(crate) fn check_rate(what: &'static str, sample_rate: f64) -> Result<u32, WebError> {
    let (min, max) = (omote_audio::MIN_RATE, omote_audio::MAX_RATE);
    let whole = sample_rate.is_finite() && sample_rate.fract() == 0.0;
    if whole && (f64::from(min)..=f64::from(max)).contains(&sample_rate) {
        Ok(sample_rate as u32)
    } else {
        Err(WebError::SampleRate {
            what,
            rate: sample_rate,
            min,
            max,
        })
    }
}
