//! The reader of our track JSON ([`super::to_json`]'s text), beside its writer.

use serde::Deserialize;

use super::TRACK_FORMAT;
use crate::{VoicedSpan, VowelFrame, VowelTrack};

/// Frames a track may have (about 3 hours at 100 fps): a bound on what a file can make
/// us hold.
pub const MAX_TRACK_FRAMES: usize = 1_000_000;

/// Why a text is not a track [`super::to_json`] could have written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrackJsonError {
    /// Not JSON, or not the track's fields.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Not a JSON object at all: another export (TSV, Rhubarb's XML) or another file.
    #[error(
        "not a lip sync track (the JSON `omote lipsync --format json` writes): the text starts with `{0}`"
    )]
    NotJson(String),
    /// Another format.
    #[error("format is `{0}`, expected `{TRACK_FORMAT}`")]
    Format(String),
    /// A frame rate outside 1–1000.
    #[error("fps is {0}, expected 1 to 1000")]
    Fps(f32),
    /// More than [`MAX_TRACK_FRAMES`] frames.
    #[error("{0} frames, at most {MAX_TRACK_FRAMES}")]
    TooLong(usize),
    /// A negative or non-finite duration.
    #[error("duration is {0}")]
    Duration(f64),
    /// A frame with a value that is not a number.
    #[error("frames[{0}] has a value that is not a number")]
    Frame(usize),
    /// A voiced span that is not one.
    #[error("voiced_span {0:?} is not a span")]
    VoicedSpan([f64; 2]),
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

/// Reads a track [`super::to_json`] wrote (`omote lipsync --format json`); weights and
/// volume are clamped to 0–1, the voiced span to the duration.
///
/// ```
/// use omote_lipsync::{VowelFrame, VowelTrack, export};
/// let track = VowelTrack { fps: 100.0, frames: vec![VowelFrame::default(); 3], voiced_span: None, duration_s: 0.03 };
/// let back = export::read_json(&export::to_json(&track, "line.wav")).unwrap();
/// assert_eq!(back.frames.len(), 3);
/// assert!(export::read_json("{}").is_err());
/// assert!(export::read_json("t\tclass\n0.00\tA\n").unwrap_err().to_string().starts_with("not a lip sync track"));
/// ```
pub fn read_json(text: &str) -> Result<VowelTrack, TrackJsonError> {
    // (A byte-order mark, which some editors write, is no reason to refuse it.)
    let text = text.trim_start_matches('\u{feff}');
    let body = text.trim_start();
    if !body.starts_with('{') {
        let start: String = body.chars().take(20).collect();
        return Err(TrackJsonError::NotJson(start.escape_debug().to_string()));
    }
    let j: JsonTrack = serde_json::from_str(text)?;
    if j.format != TRACK_FORMAT {
        return Err(TrackJsonError::Format(j.format));
    }
    if !(j.fps.is_finite() && (1.0..=1000.0).contains(&j.fps)) {
        return Err(TrackJsonError::Fps(j.fps));
    }
    if j.frames.len() > MAX_TRACK_FRAMES {
        return Err(TrackJsonError::TooLong(j.frames.len()));
    }
    if !(j.duration.is_finite() && j.duration >= 0.0) {
        return Err(TrackJsonError::Duration(j.duration));
    }
    let mut frames = Vec::with_capacity(j.frames.len());
    for (i, f) in j.frames.iter().enumerate() {
        if f.w.iter().chain([&f.volume]).any(|x| !x.is_finite()) {
            return Err(TrackJsonError::Frame(i));
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
        Some(s) => return Err(TrackJsonError::VoicedSpan(s)),
        None => None,
    };
    Ok(VowelTrack {
        fps: j.fps,
        frames,
        voiced_span,
        duration_s: j.duration,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_writer_writes_reads_back_at_its_precision() {
        let frame = VowelFrame {
            weights: [0.12345, 0.5, 0.0, 0.25, 1.0, 0.0],
            volume: 0.3,
            silent: false,
        };
        let track = VowelTrack {
            fps: 100.0,
            frames: vec![frame; 20],
            voiced_span: Some(VoicedSpan {
                start_s: 0.05,
                end_s: 0.15,
            }),
            duration_s: 0.2,
        };
        let back = read_json(&super::super::to_json(&track, "x.wav")).unwrap();
        assert_eq!(back.frames.len(), 20);
        assert_eq!(back.frames[3].weights[0], 0.1235);
        assert_eq!(back.voiced_span, track.voiced_span);
    }

    #[test]
    fn other_formats_and_bad_values_say_what_is_wrong() {
        let good = super::super::to_json(
            &VowelTrack {
                fps: 100.0,
                frames: vec![VowelFrame::default(); 2],
                voiced_span: None,
                duration_s: 0.02,
            },
            "x",
        );
        let other = good.replace(TRACK_FORMAT, "omote-lipsync-track/9");
        assert!(
            read_json(&other)
                .unwrap_err()
                .to_string()
                .contains("expected `omote-lipsync-track/1`")
        );
        let fps = good.replace("\"fps\":100.0", "\"fps\":0.0");
        assert!(
            read_json(&fps)
                .unwrap_err()
                .to_string()
                .contains("fps is 0")
        );
        let span = good.replace("\"voiced_span\":null", "\"voiced_span\":[0.5,0.1]");
        assert!(
            read_json(&span)
                .unwrap_err()
                .to_string()
                .contains("is not a span")
        );
    }
}
