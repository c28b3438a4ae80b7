//! Voice files too long to hold: analysed as a stream and written as they go.
//!
//! The whole-file analysis holds the file's bytes, its samples, every frame's features
//! and the track: about 20 bytes per sample (a 12 h WAV took 6.9 GB). A file longer than
//! [`LONG_S`] by its header (or, when the header does not say, larger than
//! [`UNKNOWN_LONG_BYTES`]) is instead decoded a packet at a time
//! ([`omote_audio::AudioStream`]) into the streaming analyser (as `--stream` reads, from
//! the mean cepstrum of its folder's other files) and its result written a frame at a
//! time: memory is flat in the file's length. The analyser runs twice over the file —
//! the first pass counts the frames and finds the voiced span the file's header states,
//! the second writes — so the result is the one `--stream` gives for the same samples.
//! The Rhubarb formats keep only the mouth cues (one per change of shape, a few a second)
//! until the end, then write them as the whole-file path does.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use omote_lipsync::eval::STREAM_CHUNK;
use omote_lipsync::export::{RhubarbCue, RhubarbCues};
use omote_lipsync::{
    CepstralMean, FRAME_RATE, FrameInterpolator, HOP, Profile, SAMPLE_RATE, StreamAnalyser,
    VoicedSpan, VowelFrame, export,
};

use super::Format;

/// Files longer than this (seconds) are analysed as a stream: 10 minutes, about 200 MB
/// analysed whole.
pub(super) const LONG_S: f64 = 600.0;

/// Smaller files are never streamed (their header is not even read twice): 1 MiB holds
/// half a minute of 16 kHz WAV.
const PROBE_BYTES: u64 = 1 << 20;

/// A file whose header does not state its length is streamed above this size.
pub(super) const UNKNOWN_LONG_BYTES: u64 = 32 << 20;

/// Text buffered before each write to the result file.
const WRITE_BUFFER: usize = 1 << 16;

/// Whether `input` is analysed as a stream ([`LONG_S`]). A file that cannot be opened or
/// probed is not: the whole-file path reports why.
pub(super) fn is_long(input: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(input) else {
        return false;
    };
    if !meta.is_file() || meta.len() <= PROBE_BYTES {
        return false;
    }
    match omote_audio::AudioStream::open(input, SAMPLE_RATE) {
        Ok(s) => s
            .declared_duration_s()
            .map_or(meta.len() > UNKNOWN_LONG_BYTES, |d| d > LONG_S),
        Err(_) => false,
    }
}

/// What the first pass learns: the frames there are and where the voice is.
struct Counted {
    frames: usize,
    samples: u64,
    first_voiced: Option<usize>,
    last_voiced: usize,
}

/// Streams `input` through the analyser (started from `others`, the speaker's other
/// lines), giving each 100 fps frame to `each` in order: the frames
/// `StreamAnalyser::analyse_clip` gives for the file's samples. Returns the samples read
/// and the reader's warning (samples that are not numbers), if any.
fn analyse_stream(
    input: &Path,
    profile: &Profile,
    others: &CepstralMean,
    mut each: impl FnMut(usize, &VowelFrame) -> anyhow::Result<()>,
) -> anyhow::Result<(u64, Option<String>)> {
    let mut audio = omote_audio::AudioStream::open(input, SAMPLE_RATE)?;
    let mut analyser = StreamAnalyser::new(profile.clone());
    analyser.start_from_speaker(others);
    let mut samples: Vec<f32> = Vec::with_capacity(1 << 16);
    let mut frames: Vec<VowelFrame> = Vec::with_capacity(64);
    let mut total = 0u64;
    let mut j = 0usize;
    loop {
        samples.clear();
        let more = audio.next_chunk(&mut samples)?;
        total += samples.len() as u64;
        for c in samples.chunks(STREAM_CHUNK) {
            analyser.push(c, &mut frames);
            for f in frames.drain(..) {
                each(j, &f)?;
                j += 1;
            }
        }
        if !more {
            break;
        }
    }
    analyser.finish(&mut frames);
    // As `analyse_clip`: the track has `samples / HOP` frames (the tail's padding ends).
    let n = usize::try_from(total / HOP as u64).unwrap_or(usize::MAX);
    for f in frames.drain(..) {
        if j >= n {
            break;
        }
        each(j, &f)?;
        j += 1;
    }
    Ok((total, audio.warning()))
}

/// Analyses the long file `input` as a stream into `out` in `format` at `fps`, written
/// through a temporary file renamed at the end.
pub(super) fn analyse_long(
    input: &Path,
    out: &Path,
    format: Format,
    fps: f32,
    profile: &Profile,
    others: &CepstralMean,
) -> anyhow::Result<()> {
    let mut counted = Counted {
        frames: 0,
        samples: 0,
        first_voiced: None,
        last_voiced: 0,
    };
    let warning;
    (counted.samples, warning) = analyse_stream(input, profile, others, |j, f| {
        counted.frames = j + 1;
        if !f.silent {
            counted.first_voiced.get_or_insert(j);
            counted.last_voiced = j;
        }
        Ok(())
    })?;
    // Said once, from the first pass (the second reads the same samples).
    if let Some(w) = warning {
        crate::output::warn(&w);
    }
    let duration_s = counted.samples as f64 / f64::from(SAMPLE_RATE);
    // As `VowelTrack::update_voiced_span` on the 100 fps track (kept when resampled).
    let voiced_span = counted.first_voiced.map(|a| VoicedSpan {
        start_s: a as f64 / f64::from(FRAME_RATE),
        end_s: ((counted.last_voiced + 1) as f64 / f64::from(FRAME_RATE)).min(duration_s.max(0.0)),
    });
    let resample = (FRAME_RATE - fps).abs() >= 1e-6 && counted.frames > 0;
    let out_fps = if resample { fps } else { FRAME_RATE };
    let source = input.display().to_string();
    crate::output::write_with(out, |tmp| {
        let mut file = std::fs::File::create(tmp)
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        let mut text = String::with_capacity(2 * WRITE_BUFFER);
        match format {
            Format::Json => {
                export::write_json_head(&mut text, out_fps, duration_s, voiced_span, &source)
            }
            Format::Tsv => {
                text.push_str(export::TSV_HEADER);
                text.push('\n');
            }
            // Written whole at the end: the cues are few (one per change of shape).
            Format::RhubarbJson | Format::RhubarbTsv => {}
        }
        let mut merge = RhubarbCues::new(out_fps);
        let mut cues: Vec<RhubarbCue> = Vec::new();
        let mut put = |k: usize, f: &VowelFrame, text: &mut String| -> anyhow::Result<()> {
            let t = (k as f64 + 0.5) / f64::from(out_fps);
            match format {
                Format::Json => export::write_json_frame(text, k, t, f),
                Format::Tsv => export::write_tsv_row(text, t, f),
                Format::RhubarbJson | Format::RhubarbTsv => cues.extend(merge.push(k, f)),
            }
            if text.len() >= WRITE_BUFFER {
                file.write_all(text.as_bytes())?;
                text.clear();
            }
            Ok(())
        };
        let mut at = FrameInterpolator::new(FRAME_RATE, counted.frames, duration_s, fps);
        let (written, _) = analyse_stream(input, profile, others, |j, f| {
            if resample {
                let mut result = Ok(());
                at.push(j, f, |k, g| {
                    if result.is_ok() {
                        result = put(k, &g, &mut text);
                    }
                });
                result
            } else {
                put(j, f, &mut text)
            }
        })?;
        if written != counted.samples {
            bail!(
                "{}: changed while it was analysed ({} samples, then {written})",
                input.display(),
                counted.samples
            );
        }
        cues.extend(merge.finish());
        match format {
            Format::Json => text.push_str(export::JSON_TAIL),
            Format::Tsv => {}
            Format::RhubarbJson => text = export::rhubarb_json(&cues, duration_s, &source),
            Format::RhubarbTsv => text = export::rhubarb_tsv(&cues, duration_s),
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        Ok(())
    })
}
