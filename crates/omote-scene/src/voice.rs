//! Voice files → the core's speech tracks: lip sync of an audio file, or a track
//! `omote lipsync --format json` wrote earlier.

use std::path::Path;

use omote_core::{SpeechError, SpeechTrack};
use omote_lipsync::{Analyser, ClipFeatures, SAMPLE_RATE, VoicedSpan, VowelFrame, VowelTrack};
use serde::Deserialize;

/// A lip sync track as the core's speech track: the five vowel weights per frame and
/// the voiced span (clipped to the clip).
///
/// ```
/// use omote_lipsync::{VowelFrame, VowelTrack, VoicedSpan};
/// let mut frame = VowelFrame::default();
/// frame.weights[0] = 0.7;
/// let track = VowelTrack {
///     fps: 100.0,
///     frames: vec![frame; 50],
///     voiced_span: Some(VoicedSpan { start_s: 0.1, end_s: 0.4 }),
///     duration_s: 0.5,
/// };
/// let speech = omote_scene::speech_track(&track).unwrap();
/// assert_eq!(speech.voiced(), Some((0.1, 0.4)));
/// assert_eq!(speech.sample(0.25)[0], 0.7);
/// ```
pub fn speech_track(track: &VowelTrack) -> Result<SpeechTrack, SpeechError> {
    let vowels = track
        .frames
        .iter()
        .map(|f| {
            [
                f.weights[0],
                f.weights[1],
                f.weights[2],
                f.weights[3],
                f.weights[4],
            ]
        })
        .collect();
    let duration = (track.frames.len() as f64 / f64::from(track.fps.max(1e-3))) as f32;
    let voiced = track
        .voiced_span
        .map(|s| (s.start_s as f32, (s.end_s as f32).min(duration)));
    SpeechTrack::new(track.fps, vowels, voiced)
}

/// Lip sync of an audio file (decoded, mixed to mono, resampled to the analyser's rate).
pub fn analyse_file(path: &Path, analyser: &mut Analyser) -> Result<VowelTrack, String> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE).map_err(|e| e.to_string())?;
    Ok(analyser.analyse(&audio.samples))
}

/// Features of an audio file for [`Analyser::classify`], and its length in samples.
pub fn voice_features(
    path: &Path,
    analyser: &mut Analyser,
) -> Result<(ClipFeatures, usize), String> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE).map_err(|e| e.to_string())?;
    Ok((analyser.features(&audio.samples), audio.samples.len()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonTrack {
    format: String,
    #[allow(dead_code)]
    source: Option<String>,
    fps: f32,
    duration: f64,
    voiced_span: Option<[f64; 2]>,
    #[allow(dead_code)]
    classes: Option<Vec<String>>,
    frames: Vec<JsonFrame>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonFrame {
    #[allow(dead_code)]
    t: f64,
    w: [f32; 6],
    volume: f32,
    silent: bool,
}

/// Frames a precomputed track may have (about 3 hours at 100 fps).
const MAX_FRAMES: usize = 1_000_000;

/// Reads a track written by `omote lipsync --format json` (`omote-lipsync-track/1`).
pub fn read_lipsync_json(text: &str) -> Result<VowelTrack, String> {
    let j: JsonTrack = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if j.format != "omote-lipsync-track/1" {
        return Err(format!(
            "format is `{}`, expected `omote-lipsync-track/1`",
            j.format
        ));
    }
    if !(j.fps.is_finite() && (1.0..=1000.0).contains(&j.fps)) {
        return Err(format!("fps is {}, expected 1 to 1000", j.fps));
    }
    if j.frames.len() > MAX_FRAMES {
        return Err(format!("{} frames, at most {MAX_FRAMES}", j.frames.len()));
    }
    if !(j.duration.is_finite() && j.duration >= 0.0) {
        return Err(format!("duration is {}", j.duration));
    }
    let mut frames = Vec::with_capacity(j.frames.len());
    for (i, f) in j.frames.iter().enumerate() {
        if f.w.iter().chain([&f.volume]).any(|x| !x.is_finite()) {
            return Err(format!("frames[{i}] has a value that is not a number"));
        }
        frames.push(VowelFrame {
            weights: f.w.map(|x| x.clamp(0.0, 1.0)),
            volume: f.volume.clamp(0.0, 1.0),
            silent: f.silent,
        });
    }
    let voiced_span = match j.voiced_span {
        Some([a, b]) if a.is_finite() && b.is_finite() && 0.0 <= a && a <= b => Some(VoicedSpan {
            start_s: a,
            end_s: b.min(j.duration),
        }),
        Some(s) => return Err(format!("voiced_span {s:?} is not a span")),
        None => None,
    };
    Ok(VowelTrack {
        fps: j.fps,
        frames,
        voiced_span,
        duration_s: j.duration,
    })
}
