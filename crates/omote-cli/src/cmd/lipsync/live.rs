//! `omote lipsync live`: raw PCM from a microphone on stdin (or any pipe/file) → one line
//! per 10 ms frame on stdout, written and flushed as soon as the frame exists.
//!
//! Capturing is left to the tools that already do it well on every platform:
//!
//! ```text
//! arecord -q -f S16_LE -r 16000 -c 1 -t raw | omote lipsync live
//! ffmpeg -loglevel quiet -f pulse -i default -ac 1 -ar 48000 -f s16le - | omote lipsync live --rate 48000
//! arecord -q -f S16_LE -r 16000 -c 1 -t raw | omote lipsync live --vmc 127.0.0.1:39539 > /dev/null
//! ```
//!
//! With `--vmc` the mouth also goes to a VMC marionette (VSeeFace, VMagicMirror …).

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use omote_lipsync::{VowelFrame, export};
use omote_live::{PcmLipsync, PcmVoice, VmcSink, VoiceSource};
use omote_vmc::BonePose;

use crate::args::{SampleFormat, WireNames, load_profile};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum LiveFormat {
    /// `time A I U E O N volume silent` rows after a header line.
    Tsv,
    /// One JSON object per line: `{"t","w":[A,I,U,E,O,N],"volume","silent"}`.
    Jsonl,
}

/// Live lip sync from a raw PCM stream (a microphone through arecord/ffmpeg).
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// Raw interleaved PCM to read; `-` is stdin.
    #[arg(default_value = "-")]
    input: PathBuf,
    /// Sample rate of the input in Hz (4000–384000).
    #[arg(long, default_value_t = 16_000, allow_negative_numbers = true, value_parser = crate::limits::sample_rate)]
    rate: u32,
    /// Interleaved channels in the input (mixed down to mono), 1–64.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = crate::limits::channels)]
    channels: u16,
    /// Sample encoding of the input.
    #[arg(long, value_enum, default_value = "s16le")]
    sample_format: SampleFormat,
    /// Output line format.
    #[arg(long, value_enum, default_value = "tsv")]
    format: LiveFormat,
    /// Profile JSON (default: built-in; a calibrated one from `lipsync calibrate` is better).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Also send the mouth to a VMC marionette at this address (e.g. 39539,
    /// localhost:39539 or 192.168.1.20:39539): A I U E O blend values every 10 ms; the
    /// closed mouth is all zero.
    #[arg(long, value_name = "[HOST:]PORT", value_parser = crate::limits::destination)]
    vmc: Option<std::net::SocketAddr>,
    /// Expression names for --vmc.
    #[arg(long, value_enum, default_value = "vrm0")]
    vmc_names: WireNames,
}

pub(super) fn live(args: LiveArgs) -> anyhow::Result<()> {
    let profile = load_profile(args.profile.as_deref())?;
    let name = if args.input.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        args.input.display().to_string()
    };
    let pipeline = PcmLipsync::new(
        &name,
        args.sample_format.into(),
        args.channels,
        args.rate,
        profile,
    )
    .with_context(|| format!("--rate {} --channels {}", args.rate, args.channels))?;
    let input: Box<dyn Read> = if args.input.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(omote_live::open_pcm_input(&args.input, "the input")?)
    };
    let mut voice = PcmVoice::new(input, name.as_str(), pipeline);
    eprintln!(
        "live: {name}, {} Hz × {} ch {:?} → 16 kHz; latency {:.1} ms (analysis {:.1} ms + resampling {:.1} ms) plus the capture buffer",
        args.rate,
        args.channels,
        args.sample_format,
        voice.pipeline().latency_s() * 1e3,
        omote_lipsync::StreamAnalyser::LATENCY_S * 1e3,
        voice.pipeline().resampler_delay_s() * 1e3
    );

    let mut frames: Vec<VowelFrame> = Vec::with_capacity(16);
    let mut text = String::with_capacity(4096);
    let mut emitted = 0u64;
    // Only the vowels go out and nothing here overrides them, so the weights before and
    // after the VRM override rules are the same: no applied/input choice to make.
    let mut vmc = match args.vmc {
        Some(to) => Some(VmcSink::new(
            to,
            ["aa", "ih", "ou", "ee", "oh"],
            args.vmc_names.into(),
        )?),
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.format == LiveFormat::Tsv {
        text.push_str(export::TSV_HEADER);
        text.push('\n');
    }
    loop {
        frames.clear();
        let more = voice.next_frames(&mut frames)?;
        if let Some(sink) = vmc.as_mut() {
            for (k, f) in frames.iter().enumerate() {
                let t = (emitted + k as u64) as f32 / 100.0;
                sink.send_weights(t, &f.weights[..5], &BonePose::default())?;
            }
        }
        if !write_frames(&mut out, &mut text, &frames, &mut emitted, args.format)? {
            return Ok(()); // the reader went away
        }
        if !more {
            break;
        }
    }
    eprintln!(
        "live: {name} ended after {:.2} s ({emitted} frames)",
        emitted as f64 / 100.0
    );
    Ok(())
}

/// Writes and flushes `frames`; `false` when stdout was closed (e.g. `| head`).
fn write_frames(
    out: &mut impl Write,
    text: &mut String,
    frames: &[VowelFrame],
    emitted: &mut u64,
    format: LiveFormat,
) -> anyhow::Result<bool> {
    for f in frames {
        let t = (*emitted as f64 + 0.5) / 100.0;
        match format {
            LiveFormat::Tsv => export::write_tsv_row(text, t, f),
            LiveFormat::Jsonl => export::write_json_line(text, t, f),
        }
        *emitted += 1;
    }
    if text.is_empty() {
        return Ok(true);
    }
    let result = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    text.clear();
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e).context("stdout: write failed"),
    }
}
