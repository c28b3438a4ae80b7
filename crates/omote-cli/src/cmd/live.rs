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
//! A reader thread takes frames off stdin while the main thread tracks; with
//! `--drop-late` a frame that arrives while the tracker is still busy replaces the waiting
//! one (the avatar stays current on a slow machine); without it every frame is processed
//! in order, so a recorded input gives the same output as `omote track` + `omote retarget`.
//!
//! With `--voice PCM` a microphone drives the mouth too (voice first, the tracked mouth in
//! its silences), e.g. `mkfifo mic; arecord -q -f S16_LE -r 16000 -c 1 -t raw > mic &`
//! then `… | omote live --stdin 640x480 --voice mic --vmc 127.0.0.1:39539`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use omote_core::{
    AnimRecorder, Face, FaceConfig, FaceInputs, LookAtType, RetargetConfig, Retargeter,
};
use omote_lipsync::{Profile, VowelFrame};
use omote_tracker::{FaceTracker, RgbImage, RgbView};
use omote_vmc::{BonePose, VmcFrameWriter};

use crate::cmd::lipsync::pcm::{PcmLipsync, SampleFormat};
use crate::cmd::track::{FrameSize, parse_size, read_raw_frame};
use crate::cmd::vmc::{WireNames, WireWeights, send_packet, sender_socket};
use crate::output::{VoiceMouth, load_avatar, write_anim};

/// Arguments of `omote live`.
#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// Raw RGB frames (ffmpeg `-f rawvideo -pix_fmt rgb24`) of this size on stdin.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub stdin: FrameSize,
    /// Frame rate of the input.
    #[arg(long, default_value_t = 30.0)]
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
    /// Record the avatar's animation to this anim file when the input ends.
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
    /// Sample rate of --voice.
    #[arg(long, default_value_t = 16_000)]
    pub voice_rate: u32,
}

/// Lip sync frames (100 per second) of the --voice stream, in arrival order.
type VoiceFrames = std::sync::Arc<std::sync::Mutex<Vec<VowelFrame>>>;

/// Reads raw s16le mono PCM from `path` and appends its lip sync frames to `frames`.
fn spawn_voice(
    path: PathBuf,
    rate: u32,
) -> Result<(VoiceFrames, std::thread::JoinHandle<Result<()>>)> {
    use std::io::Read;
    let mut pipeline = PcmLipsync::new(SampleFormat::S16le, 1, rate, Profile::builtin())
        .with_context(|| format!("--voice-rate {rate}"))?;
    let mut file = std::fs::File::open(&path)
        .with_context(|| format!("{}: cannot open the voice input", path.display()))?;
    let frames: VoiceFrames = Default::default();
    let shared = frames.clone();
    let handle = std::thread::spawn(move || -> Result<()> {
        let mut buf = vec![0u8; pipeline.chunk_bytes(rate)];
        let mut out = Vec::new();
        let publish = |out: &[VowelFrame]| -> Result<()> {
            shared
                .lock()
                .map_err(|_| anyhow::anyhow!("voice buffer poisoned"))?
                .extend_from_slice(out);
            Ok(())
        };
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(e).with_context(|| format!("{}: read failed", path.display()));
                }
            };
            out.clear();
            pipeline.push(&buf[..n], &mut out);
            if !out.is_empty() {
                publish(&out)?;
            }
        }
        out.clear();
        pipeline.finish(&mut out);
        publish(&out)
    });
    Ok((frames, handle))
}

/// Frames from the reader thread: index, image; or the read error.
type Incoming = Result<(u64, RgbImage), String>;

fn spawn_reader(
    size: FrameSize,
    drop_late: bool,
) -> (Receiver<Incoming>, std::thread::JoinHandle<u64>) {
    let (tx, rx): (SyncSender<Incoming>, Receiver<Incoming>) = sync_channel(1);
    let handle = std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let (mut index, mut dropped) = (0u64, 0u64);
        loop {
            let item = match read_raw_frame(&mut stdin, size, index) {
                Ok(Some(img)) => Ok((index, img)),
                Ok(None) => break,
                Err(e) => Err(e.to_string()),
            };
            let failed = item.is_err();
            index += 1;
            if drop_late && !failed {
                match tx.try_send(item) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => dropped += 1,
                    Err(TrySendError::Disconnected(_)) => break,
                }
            } else if tx.send(item).is_err() {
                break;
            }
            if failed {
                break;
            }
        }
        dropped
    });
    (rx, handle)
}

/// Runs `omote live`.
pub fn run(args: LiveArgs) -> Result<()> {
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 1000.0) {
        bail!("--fps must be in (0, 1000], got {}", args.fps);
    }
    omote_tracker::rgb::check_size(
        "--stdin",
        u64::from(args.stdin.width),
        u64::from(args.stdin.height),
    )?;
    let (rig, _model) = load_avatar(args.rig.as_deref())?;
    let mut config: RetargetConfig = match &args.config {
        Some(path) => omote_config::load(path)?,
        None => RetargetConfig::default(),
    };
    config.mirror |= args.mirror;
    let mut retargeter = Retargeter::new(&rig, config).context("invalid retarget settings")?;
    let mut tracker = FaceTracker::new().context("loading the face tracker models")?;
    // As in `omote retarget`: the retargeter smooths head and gaze itself.
    let face_config = FaceConfig {
        head_filter: None,
        gaze_filter: None,
        ..FaceConfig::default()
    };
    let mut face = Face::new(rig.clone(), face_config, 1);
    let mut vmc = match args.vmc {
        Some(to) => {
            let names: Vec<&str> = rig.channels().map(|(id, _)| rig.channel_name(id)).collect();
            Some((
                sender_socket(to)?,
                to,
                VmcFrameWriter::new(names, args.vmc_names.into()),
                WireWeights::resolve(args.vmc_weights, args.vmc_names),
            ))
        }
        None => None,
    };
    let eye_bones = rig.look_at().kind == LookAtType::Bone;
    let mut recorder = args
        .record
        .as_ref()
        .map(|_| AnimRecorder::new(&rig, args.fps as f32));

    eprintln!(
        "live: stdin {}x{} at {} fps → {}{}",
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
        Some(path) => Some(spawn_voice(path.clone(), args.voice_rate)?),
        None => None,
    };
    let mut voice_mouth = VoiceMouth::new(&rig);
    let (rx, reader) = spawn_reader(args.stdin, args.drop_late);
    let started = Instant::now();
    let mut last_report = Instant::now();
    let (mut done, mut with_face, mut busy) = (0u64, 0u64, Duration::ZERO);
    let mut prev_index: Option<u64> = None;
    for item in rx {
        let (index, img) = item.map_err(anyhow::Error::msg)?;
        let t0 = Instant::now();
        let what = format!("stdin frame {index}");
        let view = RgbView::from_image(&what, &img)?;
        let frame = tracker
            .video_frame(index, args.fps, &view)
            .with_context(|| format!("tracking {what}"))?
            .to_core();
        // Time follows the frame index, so dropped frames lengthen the step.
        let dt =
            (prev_index.map_or(1, |p| index.saturating_sub(p).max(1)) as f64 / args.fps) as f32;
        prev_index = Some(index);
        let out = retargeter.update(dt, &frame, face.layer_mut(Face::BASE));
        if let Some((frames, handle)) = &voice {
            // The lip sync frame of this video frame's time: waited for up to 30 ms
            // (a file is analysed far ahead; a microphone is about in step with the
            // camera), else the newest one there is.
            let k = (index as f64 / args.fps * 100.0) as usize;
            let waited = Instant::now();
            let v = loop {
                let got = {
                    let frames = frames
                        .lock()
                        .map_err(|_| anyhow::anyhow!("voice buffer poisoned"))?;
                    match frames.get(k) {
                        Some(f) => Some(Some(*f)),
                        None if handle.is_finished()
                            || waited.elapsed() >= Duration::from_millis(30) =>
                        {
                            Some(frames.last().copied())
                        }
                        None => None,
                    }
                };
                match got {
                    Some(v) => break v,
                    None => std::thread::sleep(Duration::from_millis(1)),
                }
            };
            let v = v.unwrap_or(VowelFrame::SILENT);
            let mouth = face.layer_mut(Face::MOUTH);
            voice_mouth.set_vowels(mouth, &v);
            voice_mouth.follow_voicing(mouth, !v.silent);
        }
        face.set_procedural_eyes(1.0 - out.tracking_weight);
        let inputs = FaceInputs {
            head: out.head,
            gaze_yaw_deg: out.gaze_yaw_deg,
            gaze_pitch_deg: out.gaze_pitch_deg,
        };
        let state = face.update(dt, &inputs);
        if let Some((socket, to, writer, weights)) = vmc.as_mut() {
            let pose = BonePose {
                head: Some(state.head),
                left_eye: eye_bones.then_some(state.left_eye),
                right_eye: eye_bones.then_some(state.right_eye),
            };
            let t = (index as f64 / args.fps) as f32;
            let w = weights.pick(&state.expressions, &state.input_expressions);
            send_packet(socket, *to, writer.write(t, w, &pose))?;
        }
        if let Some(rec) = recorder.as_mut() {
            rec.record(state);
        }
        busy += t0.elapsed();
        done += 1;
        with_face += u64::from(out.face_present);
        if last_report.elapsed() >= Duration::from_secs(2) {
            last_report = Instant::now();
            eprintln!(
                "live: {done} frames, {:.1} ms per frame, face in {:.0} %",
                busy.as_secs_f64() * 1e3 / done as f64,
                100.0 * with_face as f64 / done as f64
            );
        }
    }
    let dropped = reader.join().unwrap_or(0);
    if let Some((_, handle)) = voice {
        // The voice input may be a live pipe that never ends: do not wait for it.
        if handle.is_finished() {
            match handle.join() {
                Ok(Err(e)) => return Err(e),
                Err(_) => bail!("the voice reader crashed"),
                Ok(Ok(())) => {}
            }
        }
    }
    eprintln!(
        "live: input ended: {done} frames in {:.1} s ({:.1} ms of work per frame), {dropped} dropped, a face in {with_face}",
        started.elapsed().as_secs_f64(),
        if done > 0 {
            busy.as_secs_f64() * 1e3 / done as f64
        } else {
            0.0
        }
    );
    if let (Some(path), Some(rec)) = (&args.record, recorder) {
        if rec.frames() == 0 {
            bail!("{}: nothing to record (no frames arrived)", path.display());
        }
        let anim = rec.finish();
        write_anim(&anim, path)?;
        eprintln!("live: wrote {}", path.display());
    }
    Ok(())
}
