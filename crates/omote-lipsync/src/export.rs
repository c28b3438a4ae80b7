//! Text exports of a [`VowelTrack`]: our TSV and JSON, and Rhubarb Lip Sync's TSV, JSON
//! and XML (mouth shapes A–F and X, `rhubarb.rs`). Pure formatting: the caller writes the strings.

use std::fmt::Write;

use crate::{VowelFrame, VowelTrack};

mod read_json;
mod rhubarb;
pub use read_json::{MAX_TRACK_FRAMES, TrackJsonError, read_json};
pub use rhubarb::{
    HELD_PAUSE_CS, MIN_SHAPE_CS, RhubarbCue, RhubarbCues, RhubarbTimedShape, rhubarb_cues,
    rhubarb_duration_cs, rhubarb_json, rhubarb_shape, rhubarb_timeline, rhubarb_tsv, rhubarb_xml,
    to_rhubarb_json, to_rhubarb_tsv, to_rhubarb_xml,
};

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
    for w in written_weights(&f.weights) {
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

/// A frame's weights as the exports write them: 4 decimals, and still summing to at most 1
/// (the format's promise). Rounding each can add up to 3 ten-thousandths over the exact
/// sum; what takes the sum past 1 comes off the weights rounded up the most, a
/// ten-thousandth each, so of two weights the larger never comes out smaller (the leading
/// class stays the leader). Only what rounding added is taken: weights that already sum
/// past 1 (never the analyser's) are written rounded.
fn written_weights(w: &[f32; 6]) -> [f32; 6] {
    let exact = w.map(|x| {
        if x.is_finite() {
            x.clamp(0.0, 1.0) * 10_000.0
        } else {
            0.0
        }
    });
    let mut units = exact.map(f32::round);
    let allowed = exact.iter().sum::<f32>().round().max(10_000.0);
    let mut excess = units.iter().sum::<f32>() - allowed;
    while excess > 0.0 {
        // How far each was rounded up (the first of equals).
        let up = |k: usize| units[k] - exact[k];
        let k = (0..6).fold(0, |b, k| if up(k) > up(b) { k } else { b });
        units[k] -= 1.0;
        excess -= 1.0;
    }
    units.map(|u| u / 10_000.0)
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
    for (j, w) in written_weights(&f.weights).iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        push_f32(out, *w);
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
            w: written_weights(&f.weights),
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
    fn written_weights_sum_to_at_most_one() {
        // Weights summing to 1 whose roundings sum to 1.0001 before the mend.
        let thirds = [0.33336, 0.33336, 0.33328, 0.0, 0.0, 0.0];
        let w = written_weights(&thirds);
        let units: i32 = w.iter().map(|x| (x * 10_000.0).round() as i32).sum();
        assert_eq!(units, 10_000, "{w:?}");
        // The ten-thousandth comes off the one rounded up most, so the leader keeps its
        // lead even where two round to the same (0.33338 and 0.33336 both to 0.3334).
        let w = written_weights(&[0.33338, 0.33336, 0.33326, 0.0, 0.0, 0.0]);
        assert_eq!(w[..3], [0.3334, 0.3333, 0.3333], "{w:?}");
        assert!(w.iter().all(|x| (0.0..=1.0).contains(x)), "{w:?}");
        // Weights under 1 in sum are rounded as before.
        assert_eq!(
            written_weights(&[0.12344, 0.5, 0.0, 0.0, 0.0, 0.0])[0],
            0.1234
        );
        // Not finite reads as 0 (the analyser never makes one).
        assert_eq!(
            written_weights(&[f32::NAN, 0.5, 0.0, 0.0, 0.0, 0.0])[0],
            0.0
        );
        // TSV and JSON write the same numbers.
        let f = VowelFrame {
            weights: thirds,
            volume: 0.5,
            silent: false,
        };
        let (mut row, mut line) = (String::new(), String::new());
        write_tsv_row(&mut row, 0.005, &f);
        write_json_line(&mut line, 0.005, &f);
        let expected = written_weights(&thirds);
        assert!(
            row.starts_with(&format!(
                "0.0050\t{:.4}\t{:.4}\t{:.4}\t0.0000",
                expected[0], expected[1], expected[2]
            )),
            "{row}"
        );
        let json: serde_json::Value = serde_json::from_str(&line).unwrap();
        let written: Vec<f32> = json["w"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(written, expected, "{line}");
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
