//! Voice files too long to hold: analysed as a stream and written as they go.
//!
//! Which files are long, and how one is streamed through the analyser, is
//! `omote_embed`'s rule ([`omote_embed::is_long_voice_file`],
//! [`omote_embed::stream_voice_file`]: every binding reads such a file as the CLI does);
//! here its result is written a frame at a time, so memory is flat in the file's length
//! even for the track. The analyser runs twice over the file —
//! the first pass counts the frames and finds the voiced span the file's header states,
//! the second writes — so the result is the one `--stream` gives for the same samples.
//! The Rhubarb formats keep only the mouth cues (one per change of shape, a few a second)
//! until the end, then write them as the whole-file path does.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use omote_embed::stream_voice_file;
use omote_lipsync::export::{RhubarbCue, RhubarbCues};
use omote_lipsync::{
    CepstralMean, FRAME_RATE, FrameInterpolator, Profile, SAMPLE_RATE, VoicedSpan, VowelFrame,
    export,
};

use super::Format;

/// Text buffered before each write to the result file.
const WRITE_BUFFER: usize = 1 << 16;

/// What the first pass learns: the frames there are and where the voice is.
struct Counted {
    frames: usize,
    samples: u64,
    first_voiced: Option<usize>,
    last_voiced: usize,
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
    let first = stream_voice_file(input, profile, others, |j, f| {
        counted.frames = j + 1;
        if !f.silent {
            counted.first_voiced.get_or_insert(j);
            counted.last_voiced = j;
        }
        Ok::<(), anyhow::Error>(())
    })?;
    counted.samples = first.samples;
    let warning = first.warning;
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
    let sound_file = super::rhubarb_sound_file(input);
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
            Format::RhubarbJson | Format::RhubarbTsv | Format::RhubarbXml => {}
        }
        let mut merge = RhubarbCues::new(out_fps);
        let mut cues: Vec<RhubarbCue> = Vec::new();
        let mut put = |k: usize, f: &VowelFrame, text: &mut String| -> anyhow::Result<()> {
            let t = (k as f64 + 0.5) / f64::from(out_fps);
            match format {
                Format::Json => export::write_json_frame(text, k, t, f),
                Format::Tsv => export::write_tsv_row(text, t, f),
                Format::RhubarbJson | Format::RhubarbTsv | Format::RhubarbXml => {
                    cues.extend(merge.push(k, f))
                }
            }
            if text.len() >= WRITE_BUFFER {
                file.write_all(text.as_bytes())?;
                text.clear();
            }
            Ok(())
        };
        let mut at = FrameInterpolator::new(FRAME_RATE, counted.frames, duration_s, fps);
        let written = stream_voice_file(input, profile, others, |j, f| {
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
        })?
        .samples;
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
            Format::RhubarbJson => text = export::rhubarb_json(&cues, duration_s, &sound_file),
            Format::RhubarbTsv => text = export::rhubarb_tsv(&cues, duration_s),
            Format::RhubarbXml => text = export::rhubarb_xml(&cues, duration_s, &sound_file),
        }
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        Ok(())
    })
}
