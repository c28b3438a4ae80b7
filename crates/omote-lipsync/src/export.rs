//! Text exports of a [`VowelTrack`]: our TSV and JSON, and Rhubarb Lip Sync's JSON and TSV
//! (mouth shapes A–F and X). Pure formatting: the caller writes the strings.

use std::fmt::Write;

use serde::Serialize;

use crate::{Viseme, VowelFrame, VowelTrack};

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
    let frame = json_frame(time_s, f);
    let _ = writeln!(out, "{}", serde_json::to_string(&frame).unwrap_or_default());
}

fn json_frame(time_s: f64, f: &VowelFrame) -> JsonFrame {
    JsonFrame {
        t: (time_s * 10_000.0).round() / 10_000.0,
        w: f.weights.map(round4),
        volume: round4(f.volume),
        silent: f.silent,
    }
}

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

fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

/// Our JSON: `{format, source, fps, duration, voiced_span:[start,end]|null, classes, frames:[{t,w,volume,silent}]}`.
pub fn to_json(track: &VowelTrack, source: &str) -> String {
    let j = JsonTrack {
        format: "omote-lipsync-track/1",
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
    };
    serde_json::to_string(&j).unwrap_or_default()
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

/// Rhubarb cues: `(start_s, end_s, shape)`, consecutive equal shapes merged.
pub fn rhubarb_cues(track: &VowelTrack) -> Vec<(f64, f64, char)> {
    let mut cues: Vec<(f64, f64, char)> = Vec::new();
    let dt = 1.0 / f64::from(track.fps);
    for (i, f) in track.frames.iter().enumerate() {
        let shape = rhubarb_shape(f);
        let (a, b) = (
            i as f64 * dt,
            ((i + 1) as f64 * dt).min(track.duration_s.max((i + 1) as f64 * dt)),
        );
        match cues.last_mut() {
            Some(last) if last.2 == shape => last.1 = b,
            _ => cues.push((a, b, shape)),
        }
    }
    cues
}

/// Rhubarb's JSON export shape: `{metadata:{soundFile,duration}, mouthCues:[{start,end,value}]}`.
pub fn to_rhubarb_json(track: &VowelTrack, sound_file: &str) -> String {
    let cues: Vec<serde_json::Value> = rhubarb_cues(track)
        .into_iter()
        .map(|(a, b, c)| {
            serde_json::json!({"start": (a * 100.0).round() / 100.0, "end": (b * 100.0).round() / 100.0, "value": c.to_string()})
        })
        .collect();
    let v = serde_json::json!({
        "metadata": {"soundFile": sound_file, "duration": (track.duration_s * 100.0).round() / 100.0},
        "mouthCues": cues,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Rhubarb's TSV export: `start<TAB>shape` per cue, then the end time with X.
pub fn to_rhubarb_tsv(track: &VowelTrack) -> String {
    let mut s = String::new();
    let cues = rhubarb_cues(track);
    for (a, _, c) in &cues {
        let _ = writeln!(s, "{a:.2}\t{c}");
    }
    let end = cues.last().map_or(track.duration_s, |c| c.1);
    let _ = writeln!(s, "{end:.2}\tX");
    s
}
