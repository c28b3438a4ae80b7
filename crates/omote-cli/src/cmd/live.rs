//! `omote live`: camera in, avatar out, in one process — raw video frames on stdin →
//! face tracker (video mode) → retargeting → the character's face (automatic blinks and
//! saccades when the face is lost) → a VMC marionette and/or an anim recording.
//!
//! ```text
//! ffmpeg -loglevel quiet -f v4l2 -framerate 30 -video_size 640x480 -i /dev/video0 \
//!        -f rawvideo -pix_fmt rgb24 - \
//!   | omote live --stdin 640x480 --fps 30 --vmc 127.0.0.1:39539 [--rig MODEL.vrm] [--mirror]
//! ```
//!
//! A reader thread (`omote_live::ThreadedFrames`) takes frames off stdin while the main
//! thread tracks; with
//! `--drop-late` a frame that arrives while the tracker is still busy replaces the waiting
//! one (the avatar stays current on a slow machine); without it every frame is processed
//! in order, so a recorded input gives the same output as `omote track` + `omote retarget`.
//!
//! With `--voice PCM` a microphone drives the mouth too (voice first, the tracked mouth in
//! its silences), e.g. `mkfifo mic; arecord -q -f S16_LE -r 16000 -c 1 -t raw > mic &`
//! then `… | omote live --stdin 640x480 --voice mic --vmc 127.0.0.1:39539`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use omote_core::{FaceConfig, FaceDriver, MouthPolicy};
use omote_lipsync::Profile;
use omote_live::{
    AnimSink, FrameSize, LatePolicy, LiveError, LiveLoop, LiveStats, Overflow, PcmLipsync,
    PcmVoice, RawFrames, SampleFormat, ThreadedFrames, ThreadedVoice, TrackedFrames, VmcSink,
};
use omote_tracker::FaceTracker;

use crate::args::{WireNames, WireWeights};
use crate::limits;
use crate::output::{load_avatar, load_retarget_config, write_anim};

/// Arguments of `omote live`.
#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// Raw RGB frames (ffmpeg `-f rawvideo -pix_fmt rgb24`) of this size on stdin.
    #[arg(long, value_name = "WxH", value_parser = limits::frame_size)]
    pub stdin: FrameSize,
    /// Frame rate of the input (1–1000).
    #[arg(long, default_value_t = 30.0, value_parser = limits::fps)]
    pub fps: f64,
    /// Send the face to a VMC marionette at this address (VSeeFace, VMagicMirror …).
    #[arg(long)]
    pub vmc: Option<SocketAddr>,
    /// Expression names for --vmc.
    #[arg(long, value_enum, default_value = "vrm0")]
    pub vmc_names: WireNames,
    /// Expression weights for --vmc [default: applied with vrm0 names, input with vrm1].
    #[arg(long, value_enum)]
    pub vmc_weights: Option<WireWeights>,
    /// Record the avatar's animation to this anim file, written when the input ends
    /// (also inside a frame) or on Ctrl-C; its folder is checked before the session.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// The avatar: a VRM model or a rig file; the built-in rig when absent.
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Retarget settings file (.toml / .json, fields of `RetargetConfig`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Mirror the user (a selfie camera): their left drives the avatar's right.
    #[arg(long)]
    pub mirror: bool,
    /// Drop frames that arrive while the tracker is busy (stay current instead of
    /// falling behind).
    #[arg(long)]
    pub drop_late: bool,
    /// A microphone as raw mono s16le PCM (a named pipe fed by `arecord`, or a file):
    /// its lip sync drives the mouth while the voice is voiced, the tracked mouth in
    /// its silences.
    #[arg(long, value_name = "PCM")]
    pub voice: Option<PathBuf>,
    /// Sample rate of --voice in Hz (4000–384000).
    #[arg(long, default_value_t = 16_000, value_parser = limits::sample_rate)]
    pub voice_rate: u32,
}

/// The --voice stream (raw s16le mono PCM) analysed on its own thread. A regular file
/// is analysed far ahead of the camera: the bounded buffer waits for the video loop, so
/// nothing is lost; a pipe (a microphone) is never stalled: the oldest frames go.
fn spawn_voice(path: &std::path::Path, rate: u32) -> Result<ThreadedVoice> {
    let name = path.display().to_string();
    let pipeline = PcmLipsync::new(&name, SampleFormat::S16le, 1, rate, Profile::builtin())
        .with_context(|| format!("--voice-rate {rate}"))?;
    let file = std::fs::File::open(path)
        .with_context(|| format!("{name}: cannot open the voice input"))?;
    let is_file = file.metadata().is_ok_and(|m| m.is_file());
    let overflow = if is_file {
        Overflow::Wait
    } else {
        Overflow::DropOldest
    };
    let source = PcmVoice::new(file, name.as_str(), pipeline);
    Ok(ThreadedVoice::spawn(
        source,
        ThreadedVoice::DEFAULT_CAPACITY,
        overflow,
        name,
    ))
}

/// Runs `omote live`.
pub fn run(args: LiveArgs) -> Result<()> {
    if let Some(path) = &args.record {
        crate::output::check_output_file(path, "--record")?;
    }
    let raw = RawFrames::new(std::io::stdin(), args.stdin, args.fps)?;
    let (rig, _model) = load_avatar(args.rig.as_deref())?;
    let config = load_retarget_config(args.config.as_deref(), args.mirror)?;
    // As in `omote retarget`: automatic eyes show as the tracking weight falls.
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(config)
        .context("invalid retarget settings")?;
    if args.voice.is_some() {
        // Voice first: the microphone while the voice sounds, the tracked mouth between.
        driver = driver.with_voice(MouthPolicy::VoiceFirst);
    }
    let tracker = FaceTracker::new().context("loading the face tracker models")?;
    let vmc = match args.vmc {
        Some(to) => Some(
            VmcSink::for_rig(to, &rig, args.vmc_names.into())?
                .with_weights(WireWeights::resolve(args.vmc_weights, args.vmc_names)),
        ),
        None => None,
    };
    let mut recorder = args.record.as_ref().map(|_| {
        AnimSink::new(&rig, args.fps as f32).with_max_frames(limits::max_anim_frames(rig.len()))
    });

    eprintln!(
        "live: stdin {}x{} at {} fps → {}{}; Ctrl-C to stop",
        args.stdin.width,
        args.stdin.height,
        args.fps,
        args.vmc
            .map_or("no VMC".to_string(), |a| format!("VMC {a}")),
        if args.drop_late {
            ", dropping late frames"
        } else {
            ""
        }
    );
    let voice = match &args.voice {
        Some(path) => Some(spawn_voice(path, args.voice_rate)?),
        None => None,
    };
    let policy = if args.drop_late {
        LatePolicy::DropLate
    } else {
        LatePolicy::KeepAll
    };
    let stop = crate::interrupt::install()?;
    let mut frames = TrackedFrames::new(
        ThreadedFrames::spawn(raw, policy, "stdin").stop_on(stop.clone()),
        tracker,
        args.fps,
    );
    let started = Instant::now();
    let mut last_report = Instant::now();
    let mut sinks = (vmc, recorder.as_mut());
    let mut stats = LiveStats::default();
    let result = LiveLoop::new(args.fps).stop_on(stop.clone()).run(
        &mut frames,
        &mut driver,
        voice.as_ref(),
        &mut sinks,
        |now, frames| {
            stats = *now;
            if last_report.elapsed() >= Duration::from_secs(2) {
                last_report = Instant::now();
                let work = now.busy + frames.tracking_time();
                eprintln!(
                    "live: {} frames, {:.1} ms per frame, face in {:.0} %",
                    now.frames,
                    work.as_secs_f64() * 1e3 / now.frames as f64,
                    100.0 * now.with_face as f64 / now.frames as f64
                );
            }
        },
    );
    // The session's end: the input ended (also inside a frame: an interrupted ffmpeg),
    // Ctrl-C, or an error. Whatever was recorded is written in every case.
    let failure = match result {
        Ok(_) => None,
        Err(e @ LiveError::TruncatedFrame { .. }) => {
            eprintln!("live: the input ended inside a frame ({e}); it is dropped");
            None
        }
        Err(e) => Some(anyhow::Error::from(e)),
    };
    if crate::interrupt::stopped(&stop) {
        eprintln!("live: interrupted");
    }
    let (done, with_face, busy) = (stats.frames, stats.with_face, stats.busy);
    let dropped = frames.source().dropped();
    let work = busy + frames.tracking_time();
    let voice_end = voice.map(|v| v.finish());
    eprintln!(
        "live: input ended: {done} frames in {:.1} s ({:.1} ms of work per frame), {dropped} dropped, a face in {with_face}",
        started.elapsed().as_secs_f64(),
        if done > 0 {
            work.as_secs_f64() * 1e3 / done as f64
        } else {
            0.0
        }
    );
    if let (Some(path), Some(rec)) = (&args.record, recorder) {
        if rec.dropped() > 0 {
            eprintln!(
                "live: the recording reached its size limit ({} values); the last {} frames are not in it",
                limits::MAX_ANIM_VALUES,
                rec.dropped()
            );
        }
        if rec.frames() == 0 {
            let e = anyhow::anyhow!("{}: nothing to record (no frames arrived)", path.display());
            return Err(failure.map_or(e, |f| f.context("nothing recorded")));
        }
        let anim = rec.finish();
        write_anim(&anim, path)?;
        eprintln!("live: wrote {} ({} frames)", path.display(), anim.frames());
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(end) = voice_end {
        // The voice input may be a live pipe that never ends: it is not waited for.
        end?;
    }
    Ok(())
}
