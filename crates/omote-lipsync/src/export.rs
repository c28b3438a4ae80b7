//! Text exports of a [`VowelTrack`]: our TSV and JSON, and Rhubarb Lip Sync's JSON and TSV
//! (mouth shapes A–F and X). Pure formatting: the caller writes the strings.

use std::fmt::Write;

use crate::{Viseme, VowelFrame, VowelTrack};

mod read_json;
pub use read_json::{MAX_TRACK_FRAMES, TrackJsonError, read_json};

/// The `format` of our track JSON ([`to_json`] writes it, [`read_json`] reads it).
pub const TRACK_FORMAT: &str = "omote-lipsync-track/1";

/// TSV header, exactly.
pub const TSV_HEADER: &str = "time\tA\tI\tU\tE\tO\tN\tvolume\tsilent";

/// Time as written in exports (seconds, 4 decimals).
pub fn format_time(t: f64) -> String {
    format!("{t:.4}")
}

/// `time A I U E O N volume silent`, one row per frame (time = frame centre).
pub fn to_tsv(track: &VowelTrack) -> String {
    let mut s = String::with_capacity(64 * (track.frames.len() + 1));
    s.push_str(TSV_HEADER);
    s.push('\n');
    for (i, f) in track.frames.iter().enumerate() {
        write_tsv_row(&mut s, track.time_of(i), f);
    }
    s
}

/// Appends one TSV row (`time A I U E O N volume silent`, newline-terminated).
pub fn write_tsv_row(out: &mut String, time_s: f64, f: &VowelFrame) {
    let _ = write!(out, "{}", format_time(time_s));
    for w in f.weights {
        let _ = write!(out, "\t{w:.4}");
    }
    let _ = writeln!(out, "\t{:.4}\t{}", f.volume, u8::from(f.silent));
}

/// Appends one frame as a JSON object on its own line (`{"t","w","volume","silent"}`, the
/// same fields as a frame of [`to_json`]): the live stream's JSON Lines format.
pub fn write_json_line(out: &mut String, time_s: f64, f: &VowelFrame) {
    push_frame(out, time_s, f);
    out.push('\n');
}

fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

/// Our JSON: `{format, source, fps, duration, voiced_span:[start,end]|null, classes, frames:[{t,w,volume,silent}]}`.
pub fn to_json(track: &VowelTrack, source: &str) -> String {
    let mut out = String::new();
    write_json(&mut out, track, source);
    out
}

/// Appends [`to_json`]'s text to `out`, so a caller writing many files reuses one buffer.
///
/// Formatted by hand for speed (a frame at a time, no intermediate values), the same
/// text serde_json gives (numbers through the same shortest-form formatter, non-finite
/// numbers as `null`; `tests` compares them).
pub fn write_json(out: &mut String, track: &VowelTrack, source: &str) {
    out.reserve(160 + 90 * track.frames.len());
    write_json_head(out, track.fps, track.duration_s, track.voiced_span, source);
    for (i, f) in track.frames.iter().enumerate() {
        write_json_frame(out, i, track.time_of(i), f);
    }
    out.push_str(JSON_TAIL);
}

/// [`to_json`]'s text before the first frame, for a writer that streams the frames
/// ([`write_json_frame`], then [`JSON_TAIL`]): the same bytes, a track too long to hold.
pub fn write_json_head(
    out: &mut String,
    fps: f32,
    duration_s: f64,
    voiced_span: Option<crate::VoicedSpan>,
    source: &str,
) {
    out.push_str("{\"format\":\"");
    out.push_str(TRACK_FORMAT);
    out.push_str("\",\"source\":");
    // Escaping is serde_json's; it cannot fail for a `str`.
    out.push_str(&serde_json::to_string(source).unwrap_or_default());
    out.push_str(",\"fps\":");
    push_f32(out, fps);
    out.push_str(",\"duration\":");
    push_f64(out, duration_s);
    out.push_str(",\"voiced_span\":");
    match voiced_span {
        Some(v) => {
            out.push('[');
            push_f64(out, v.start_s);
            out.push(',');
            push_f64(out, v.end_s);
            out.push(']');
        }
        None => out.push_str("null"),
    }
    out.push_str(",\"classes\":[\"A\",\"I\",\"U\",\"E\",\"O\",\"N\"],\"frames\":[");
}

/// Frame `index` of [`to_json`]'s `frames` array (a comma before all but the first),
/// centred at `time_s`.
pub fn write_json_frame(out: &mut String, index: usize, time_s: f64, f: &VowelFrame) {
    if index > 0 {
        out.push(',');
    }
    push_frame(out, time_s, f);
}

/// What ends [`to_json`]'s text after the last frame.
pub const JSON_TAIL: &str = "]}";

/// One frame object, `{"t":…,"w":[…],"volume":…,"silent":…}`, rounded to 4 decimals.
fn push_frame(out: &mut String, time_s: f64, f: &VowelFrame) {
    out.push_str("{\"t\":");
    push_f64(out, (time_s * 10_000.0).round() / 10_000.0);
    out.push_str(",\"w\":[");
    for (j, w) in f.weights.iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        push_f32(out, round4(*w));
    }
    out.push_str("],\"volume\":");
    push_f32(out, round4(f.volume));
    out.push_str(if f.silent {
        ",\"silent\":true}"
    } else {
        ",\"silent\":false}"
    });
}

fn push_f32(out: &mut String, x: f32) {
    if x.is_finite() {
        out.push_str(zmij::Buffer::new().format_finite(x));
    } else {
        out.push_str("null");
    }
}

fn push_f64(out: &mut String, x: f64) {
    if x.is_finite() {
        out.push_str(zmij::Buffer::new().format_finite(x));
    } else {
        out.push_str("null");
    }
}

/// Rhubarb mouth shape for one frame: X silent; A closed (M B P); B slightly open,
/// clenched (most consonants, EE); C open (EH, AE); D wide open (AA); E slightly rounded
/// (AO, ER); F puckered (UW, OW, W).
///
/// Our classes map: A → D (C when quiet), I → B, U → F, E → C, O → E, N → A when quiet
/// (a closed mouth) else B.
pub fn rhubarb_shape(f: &VowelFrame) -> char {
    match f.class() {
        None => 'X',
        Some(Viseme::A) => {
            if f.volume >= 0.35 {
                'D'
            } else {
                'C'
            }
        }
        Some(Viseme::I) => 'B',
        Some(Viseme::U) => 'F',
        Some(Viseme::E) => 'C',
        Some(Viseme::O) => 'E',
        Some(Viseme::N) => {
            if f.volume < 0.2 {
                'A'
            } else {
                'B'
            }
        }
    }
}

/// One Rhubarb mouth cue: `(start_s, end_s, shape)`.
pub type RhubarbCue = (f64, f64, char);

/// Rhubarb cues built a frame at a time: consecutive equal shapes merged. The one rule
/// behind [`rhubarb_cues`] (a whole track) and a stream's cues (a file too long to hold).
#[derive(Clone, Debug)]
pub struct RhubarbCues {
    dt: f64,
    open: Option<RhubarbCue>,
}

impl RhubarbCues {
    /// Cues of frames at `fps` (frame `i` spans `i / fps .. (i + 1) / fps`).
    pub fn new(fps: f32) -> Self {
        Self {
            dt: 1.0 / f64::from(fps),
            open: None,
        }
    }

    /// Adds frame `index` (frames come in order); returns the cue it ends, if any.
    pub fn push(&mut self, index: usize, f: &VowelFrame) -> Option<RhubarbCue> {
        let shape = rhubarb_shape(f);
        let (a, b) = (index as f64 * self.dt, (index + 1) as f64 * self.dt);
        match &mut self.open {
            Some(open) if open.2 == shape => {
                open.1 = b;
                None
            }
            open => open.replace((a, b, shape)),
        }
    }

    /// The last cue, after the last frame.
    pub fn finish(self) -> Option<RhubarbCue> {
        self.open
    }
}

/// Rhubarb cues: `(start_s, end_s, shape)`, consecutive equal shapes merged.
pub fn rhubarb_cues(track: &VowelTrack) -> Vec<RhubarbCue> {
    let mut cues = Vec::new();
    let mut merge = RhubarbCues::new(track.fps);
    for (i, f) in track.frames.iter().enumerate() {
        cues.extend(merge.push(i, f));
    }
    cues.extend(merge.finish());
    cues
}

/// Rhubarb's JSON export shape: `{metadata:{soundFile,duration}, mouthCues:[{start,end,value}]}`.
pub fn to_rhubarb_json(track: &VowelTrack, sound_file: &str) -> String {
    rhubarb_json(&rhubarb_cues(track), track.duration_s, sound_file)
}

/// [`to_rhubarb_json`] of cues already made (a track of `duration_s` seconds).
pub fn rhubarb_json(cues: &[RhubarbCue], duration_s: f64, sound_file: &str) -> String {
    let cues: Vec<serde_json::Value> = cues
        .iter()
        .map(|&(a, b, c)| {
            serde_json::json!({"start": (a * 100.0).round() / 100.0, "end": (b * 100.0).round() / 100.0, "value": c.to_string()})
        })
        .collect();
    let v = serde_json::json!({
        "metadata": {"soundFile": sound_file, "duration": (duration_s * 100.0).round() / 100.0},
        "mouthCues": cues,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Rhubarb's TSV export: `start<TAB>shape` per cue, then the end time with X.
pub fn to_rhubarb_tsv(track: &VowelTrack) -> String {
    rhubarb_tsv(&rhubarb_cues(track), track.duration_s)
}

/// [`to_rhubarb_tsv`] of cues already made (a track of `duration_s` seconds).
pub fn rhubarb_tsv(cues: &[RhubarbCue], duration_s: f64) -> String {
    let mut s = String::new();
    for (a, _, c) in cues {
        let _ = writeln!(s, "{a:.2}\t{c}");
    }
    let end = cues.last().map_or(duration_s, |c| c.1);
    let _ = writeln!(s, "{end:.2}\tX");
    s
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;
    use crate::VoicedSpan;

    /// The serde_json form `to_json` had before it was written by hand: the reference.
    #[derive(Serialize)]
    struct JsonTrack<'a> {
        format: &'static str,
        source: &'a str,
        fps: f32,
        duration: f64,
        voiced_span: Option<[f64; 2]>,
        classes: [&'static str; 6],
        frames: Vec<JsonFrame>,
    }

    #[derive(Serialize)]
    struct JsonFrame {
        t: f64,
        w: [f32; 6],
        volume: f32,
        silent: bool,
    }

    fn json_frame(time_s: f64, f: &VowelFrame) -> JsonFrame {
        JsonFrame {
            t: (time_s * 10_000.0).round() / 10_000.0,
            w: f.weights.map(round4),
            volume: round4(f.volume),
            silent: f.silent,
        }
    }

    fn reference(track: &VowelTrack, source: &str) -> String {
        serde_json::to_string(&JsonTrack {
            format: TRACK_FORMAT,
            source,
            fps: track.fps,
            duration: track.duration_s,
            voiced_span: track.voiced_span.map(|v| [v.start_s, v.end_s]),
            classes: ["A", "I", "U", "E", "O", "N"],
            frames: track
                .frames
                .iter()
                .enumerate()
                .map(|(i, f)| json_frame(track.time_of(i), f))
                .collect(),
        })
        .unwrap()
    }

    /// Every value a frame can hold, and some it should not: shortest forms, exponents,
    /// negative zero, rounding ties, non-finite numbers.
    fn awkward_track(fps: f32) -> VowelTrack {
        let values = [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            0.000_05,
            0.000_049_99,
            0.123_45,
            0.999_95,
            1e-9,
            3.0e7,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.1 + 0.2,
            f32::MIN_POSITIVE,
            f32::MAX,
        ];
        let mut x: u32 = 7;
        let frames = (0..2_000)
            .map(|i| {
                let mut pick = || {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    if i % 3 == 0 {
                        values[x as usize % values.len()]
                    } else {
                        x as f32 / u32::MAX as f32
                    }
                };
                VowelFrame {
                    weights: [pick(), pick(), pick(), pick(), pick(), pick()],
                    volume: pick(),
                    silent: i % 7 == 0,
                }
            })
            .collect();
        VowelTrack {
            fps,
            frames,
            duration_s: 20.004_999_999,
            voiced_span: Some(VoicedSpan {
                start_s: 0.1 + 0.2,
                end_s: 1e-7,
            }),
        }
    }

    #[test]
    fn hand_written_json_is_the_serde_json_text() {
        for fps in [100.0, 60.0, 29.97, 1000.0] {
            let track = awkward_track(fps);
            for source in ["voice.wav", "a \"quoted\"\\path\n\u{1}é/日本.wav", ""] {
                assert_eq!(to_json(&track, source), reference(&track, source));
            }
        }
        let mut track = awkward_track(100.0);
        track.voiced_span = None;
        track.duration_s = f64::NAN;
        assert_eq!(to_json(&track, "x"), reference(&track, "x"));
        track.frames.clear();
        assert_eq!(to_json(&track, "x"), reference(&track, "x"));
    }

    #[test]
    fn json_lines_are_the_frames_of_the_json() {
        let track = awkward_track(100.0);
        for (i, f) in track.frames.iter().enumerate() {
            let mut line = String::new();
            write_json_line(&mut line, track.time_of(i), f);
            let want = serde_json::to_string(&json_frame(track.time_of(i), f)).unwrap() + "\n";
            assert_eq!(line, want);
        }
    }
}
