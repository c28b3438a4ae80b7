//! `omote live`: the one-command avatar app — tracking and voice in, the avatar out to
//! the browser (and OBS), a VMC marionette and a recording, for as long as it runs.
//!
//! ```text
//! omote live --camera 0 --mic                          # webcam + microphone (--features mic) → :8080
//! omote live --camera /dev/video2 --size 1280x720 --vmc-out 127.0.0.1:39539
//! omote live --vmc-in 39540 --view                      # a phone tracker's perfect sync
//! omote live --replay take.jsonl --loop --view          # a recorded take, in a loop
//! ffmpeg … -f rawvideo -pix_fmt rgb24 - | omote live --stdin 640x480 --record out.anim.json
//! ```
//!
//! Inputs, each optional and on its own thread (`omote_live`): `--camera` starts ffmpeg
//! itself (v4l2 / avfoundation / dshow; a video file plays at its own pace) and runs
//! the face tracker; `--stdin` tracks raw frames piped in; `--replay` plays a tracking
//! file; `--vmc-in` takes ARKit-52 perfect sync and the head from a VMC performer;
//! `--mic` / `--audio` / `--voice` drive the mouth while the voice sounds (the tracked
//! mouth in its silences). The face is updated on each tracking result and at least at
//! `--rate`; a lost or stale face hands over to the automatic eyes and idle head.
//!
//! Outputs (the page when none is given): `--view` serves the live three-vrm page (frames over a WebSocket, `?transparent=1`
//! for an OBS browser source), `--vmc-out` sends to a marionette at its send rate,
//! `--record` writes an anim sampled at `--record-fps`, `--record-tracking` the tracking
//! as `omote track` writes it. It runs until `--seconds`, Ctrl-C (the recording is still
//! written) or the end of a video input; a status line shows rates, tracking, voice,
//! latency and drops.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use omote_avatar::{Avatar, AvatarSource};
use omote_core::{FaceConfig, FaceDriver, MouthPolicy, TrackedFace};
use omote_lipsync::Profile;
use omote_live::{
    AnimSink, AudioFileVoice, CameraInput, CameraOptions, CameraSource, FrameSize, InputState,
    LatePolicy, LiveError, LiveSession, LiveStatus, Overflow, PcmLipsync, PcmVoice, ReplayInput,
    SampleFormat, SessionStats, ThreadedVoice, TrackingInbox, TrackingTap, VmcInput, VmcListener,
    VmcSink,
};
use omote_tracker::FaceTracker;

use crate::args::{WireNames, WireWeights};

mod page;
use crate::limits;
use crate::output::{load_retarget_config, write_anim};

/// Where `--view` serves the page by default.
const DEFAULT_VIEW: &str = "127.0.0.1:8080";

/// [`DEFAULT_VIEW`] as an address.
fn default_view() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}

/// Arguments of `omote live`.
#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// A camera (`0`, `/dev/video0`; macOS: an index or name; Windows: the device name)
    /// or a video file (played once at its own pace), captured through ffmpeg.
    #[arg(long, value_name = "DEVICE|FILE", conflicts_with = "stdin")]
    pub camera: Option<String>,
    /// Frame size asked of the camera; frames are scaled (letterboxed) to it.
    #[arg(long, value_name = "WxH", default_value = "640x480", value_parser = limits::frame_size)]
    pub size: FrameSize,
    /// The ffmpeg program for --camera.
    #[arg(long, default_value = "ffmpeg")]
    pub ffmpeg: PathBuf,
    /// Raw RGB frames (ffmpeg `-f rawvideo -pix_fmt rgb24`) of this size on stdin,
    /// taken as live: a recording follows the wall clock, so frames piped faster than
    /// real time are recorded as they are tracked (for a frame-exact result of a video,
    /// use `omote track` + `omote retarget`, or `--record-tracking` here).
    #[arg(long, value_name = "WxH", value_parser = limits::frame_size)]
    pub stdin: Option<FrameSize>,
    /// Frame rate of the camera or stdin frames (1–1000).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = limits::fps)]
    pub fps: f64,
    /// Track every frame in order even when the tracker falls behind (default for files
    /// and stdin); a camera otherwise drops late frames to stay current.
    #[arg(long)]
    pub keep_all: bool,
    /// Drop frames that arrive while the tracker is busy (the default for a camera).
    #[arg(long, conflicts_with = "keep_all")]
    pub drop_late: bool,
    /// A tracking file (`omote track --out SEQ.jsonl`) played in real time.
    #[arg(long, value_name = "SEQ.jsonl", conflicts_with_all = ["camera", "stdin", "vmc_in"])]
    pub replay: Option<PathBuf>,
    /// Play --replay, or a --camera video file, again and again.
    #[arg(long = "loop")]
    pub looped: bool,
    /// Play --replay this many times faster (0.01–100).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = limits::speed, requires = "replay")]
    pub replay_speed: f64,
    /// Take tracking from a VMC performer on this UDP port (on 127.0.0.1), or
    /// localhost:PORT, HOST:PORT, IP:PORT, [IPv6]:PORT: ARKit-52 perfect-sync blend
    /// shapes and the Head bone.
    #[arg(long, value_name = "[HOST:]PORT", value_parser = limits::address, conflicts_with_all = ["camera", "stdin"])]
    pub vmc_in: Option<SocketAddr>,
    /// The microphone (default device, or the one whose name contains DEVICE); needs
    /// omote built with `--features mic`.
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, default_missing_value = "")]
    pub mic: Option<String>,
    /// An audio file played as if it were the microphone.
    #[arg(long, conflicts_with_all = ["mic", "voice"])]
    pub audio: Option<PathBuf>,
    /// A microphone as raw mono s16le PCM (a named pipe fed by `arecord`, or a file).
    #[arg(long, value_name = "PCM", conflicts_with = "mic")]
    pub voice: Option<PathBuf>,
    /// Sample rate of --voice in Hz (4000–384000).
    #[arg(long, default_value_t = 16_000, allow_negative_numbers = true, value_parser = limits::sample_rate)]
    pub voice_rate: u32,
    /// Lip sync profile for --mic, --voice or --audio (default: built-in). One made for
    /// your voice reads it better: `omote lipsync calibrate --card TAKE.wav -o ME.json`.
    #[arg(long, value_name = "ME.json")]
    pub voice_profile: Option<PathBuf>,
    /// Serve the live page (three-vrm; `?transparent=1` for OBS) on this address
    /// (PORT on 127.0.0.1, localhost:PORT, HOST:PORT, IP:PORT or [IPv6]:PORT); the
    /// default output when no other is given.
    #[arg(long, value_name = "[HOST:]PORT", num_args = 0..=1, default_missing_value = DEFAULT_VIEW, value_parser = limits::address)]
    pub view: Option<SocketAddr>,
    /// Send the face to a VMC marionette (VSeeFace, VMagicMirror, Warudo …): PORT (on
    /// 127.0.0.1), localhost:PORT, HOST:PORT, IP:PORT or [IPv6]:PORT.
    #[arg(long, visible_alias = "vmc", value_name = "[HOST:]PORT", value_parser = limits::destination)]
    pub vmc_out: Option<SocketAddr>,
    /// VMC frames per second, at most (1–1000). A frame goes when the face updates: on
    /// each frame of the face input, and --rate times a second between them.
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = limits::fps)]
    pub vmc_rate: f64,
    /// The receiver: sets the names and weights it wants (--vmc-names and
    /// --vmc-weights override).
    #[arg(long, value_enum, default_value = "vseeface")]
    pub vmc_preset: VmcPreset,
    /// Expression names for --vmc-out.
    #[arg(long, value_enum)]
    pub vmc_names: Option<WireNames>,
    /// Expression weights for --vmc-out.
    #[arg(long, value_enum)]
    pub vmc_weights: Option<WireWeights>,
    /// Record the avatar's animation to this file (written at the end, also on
    /// Ctrl-C): `.anim.json` an omote anim, `.vrma` a VRM Animation on the avatar's
    /// skeleton; its folder is checked before the session.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Frames per second of --record (1–1000). The take is kept in memory until the
    /// end: about 18 KB per second at 30 fps for a 70-channel avatar (65 MB an hour),
    /// capped at the anim size limit.
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = limits::fps)]
    pub record_fps: f64,
    /// Write the camera's tracking as `omote track` does (JSON lines) to this file.
    #[arg(long, value_name = "SEQ.jsonl")]
    pub record_tracking: Option<PathBuf>,
    /// Stop after this many seconds.
    #[arg(long, allow_negative_numbers = true, value_parser = limits::seconds)]
    pub seconds: Option<f64>,
    /// Face updates per second when no tracking arrives (1–1000).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = limits::fps)]
    pub rate: f64,
    /// The avatar: a VRM model or a rig file; the built-in avatar when absent.
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Retarget settings file (.toml / .json, fields of `RetargetConfig`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Mirror the user (a selfie camera): their left drives the avatar's right.
    #[arg(long)]
    pub mirror: bool,
    /// Calibrate the head on the first SECONDS of faces (default 1): look straight at
    /// the screen as the session starts, and a camera above or beside it no longer
    /// leaves the avatar's head turned. On Linux, Enter in the terminal calibrates again.
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "1", allow_negative_numbers = true, value_parser = limits::calibration_s)]
    pub calibrate: Option<f32>,
    /// Seconds after which a tracking result counts as lost (0.05–10).
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true, value_parser = limits::stale_s)]
    pub stale: f64,
}

/// How long Enter's calibration gathers faces without --calibrate.
const ENTER_CALIBRATION_S: f32 = 1.0;

/// The calibrate request of the session: set now for --calibrate, and again each time
/// Enter is pressed in the terminal (when stdin is a terminal and not the frames' pipe).
fn calibrate_requests(args: &LiveArgs) -> (Arc<AtomicBool>, bool) {
    let flag = Arc::new(AtomicBool::new(args.calibrate.is_some()));
    let interactive = args.stdin.is_none() && in_the_foreground();
    if interactive {
        let request = flag.clone();
        // Detached: it ends with the process, blocked on the terminal or not.
        std::thread::spawn(move || {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
                request.store(true, std::sync::atomic::Ordering::SeqCst);
                eprintln!("live: calibrating: look straight at the screen");
                line.clear();
            }
        });
    }
    (flag, interactive)
}

/// Whether stdin is a terminal this process may read: in the terminal's foreground
/// process group (`omote live … &` may not: its read would stop the whole process).
#[cfg(target_os = "linux")]
fn in_the_foreground() -> bool {
    let stdin = std::io::stdin();
    stdin.is_terminal() && nix::unistd::tcgetpgrp(&stdin).is_ok_and(|g| g == nix::unistd::getpgrp())
}

/// Elsewhere Enter does not calibrate (`--calibrate` still does).
#[cfg(not(target_os = "linux"))]
fn in_the_foreground() -> bool {
    false
}

/// VMC receivers.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum VmcPreset {
    /// VSeeFace: VRM 0.x names, weights after the override rules.
    Vseeface,
    /// VMagicMirror: as VSeeFace.
    Vmagicmirror,
    /// Warudo: as VSeeFace.
    Warudo,
    /// A VRM 1.0 marionette (EVMC4U with a VRM 1.0 model, three-vrm apps): VRM 1.0
    /// names, weights before the override rules (it applies them itself).
    Vrm1,
}

impl VmcPreset {
    fn names(self) -> WireNames {
        match self {
            VmcPreset::Vrm1 => WireNames::Vrm1,
            _ => WireNames::Vrm0,
        }
    }
}

/// A replay file as `(time, face)` pairs: its `t` where given, else frame / --fps.
fn load_replay(path: &Path, fps: f64) -> Result<Vec<(f64, Option<TrackedFace>)>> {
    let seq = omote_config::load_tracking_sequence(path).context(
        "--replay takes a tracking file (JSON lines, as `omote track --out` or \
         --record-tracking write them)",
    )?;
    seq.warnings.iter().for_each(|w| crate::output::warn(w));
    let frames = seq.frames;
    let head = omote_config::HeadSource::Auto;
    let seq: Vec<_> = frames.iter().map(|f| f.to_sequence_frame(head)).collect();
    omote_config::replay_sequence(&seq, fps).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The voice of the session on its own thread, if any.
fn spawn_voice(args: &LiveArgs) -> Result<Option<(ThreadedVoice, String)>> {
    if args.audio.is_none() && args.voice.is_none() && args.mic.is_none() {
        if args.voice_profile.is_some() {
            bail!("--voice-profile reads a voice: give --mic, --voice or --audio too");
        }
        return Ok(None);
    }
    let profile = crate::args::load_profile(args.voice_profile.as_deref())?;
    if let Some(path) = &args.audio {
        let (voice, warning) = AudioFileVoice::open_warned(path, profile)?;
        if let Some(w) = warning {
            crate::output::warn(&w);
        }
        let name = path.display().to_string();
        let t = ThreadedVoice::spawn(
            voice,
            ThreadedVoice::DEFAULT_CAPACITY,
            Overflow::DropOldest,
            name.clone(),
        );
        return Ok(Some((t, name)));
    }
    if let Some(path) = &args.voice {
        let name = path.display().to_string();
        let rate = args.voice_rate;
        let pipeline = PcmLipsync::new(&name, SampleFormat::S16le, 1, rate, profile)
            .with_context(|| format!("--voice-rate {rate}"))?;
        let file = omote_live::open_pcm_input(path, "the voice input")?;
        // A regular file is analysed ahead and waits for the loop; a pipe (a microphone)
        // never stalls: the oldest frames go.
        let overflow = if file.metadata().is_ok_and(|m| m.is_file()) {
            Overflow::Wait
        } else {
            Overflow::DropOldest
        };
        let source = PcmVoice::new(file, name.as_str(), pipeline);
        let t = ThreadedVoice::spawn(source, ThreadedVoice::DEFAULT_CAPACITY, overflow, &name);
        return Ok(Some((t, name)));
    }
    match &args.mic {
        Some(device) => mic_voice(device, profile).map(Some),
        None => Ok(None),
    }
}

#[cfg(feature = "mic")]
fn mic_voice(device: &str, profile: Profile) -> Result<(ThreadedVoice, String)> {
    let device = (!device.is_empty()).then_some(device);
    let mic = omote_live::MicVoice::open(device, profile)?;
    let name = mic.device_name().to_owned();
    let t = ThreadedVoice::spawn(
        mic,
        ThreadedVoice::DEFAULT_CAPACITY,
        Overflow::DropOldest,
        &name,
    );
    Ok((t, format!("microphone {name}")))
}

#[cfg(not(feature = "mic"))]
fn mic_voice(_device: &str, _profile: Profile) -> Result<(ThreadedVoice, String)> {
    bail!(
        "--mic: this omote was built without microphone support; build it with \
         `cargo install --locked --path crates/omote-cli --features mic` or \
         `cargo build --release --features mic` (Linux needs `apt install libasound2-dev \
         pkg-config`), or pipe the microphone in with --voice (arecord -f S16_LE -r 16000)"
    )
}

/// Writes the tracker's frames as JSON lines (the tap of --record-tracking); a write
/// error is kept and reported at the end (the session goes on).
fn tracking_writer(path: &Path) -> Result<(TrackingTap, Arc<Mutex<Option<String>>>)> {
    crate::output::check_output_file(path, "--record-tracking")?;
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let error = Arc::new(Mutex::new(None));
    let seen = error.clone();
    let name = path.display().to_string();
    let tap: TrackingTap = Box::new(move |frame| {
        let mut err = seen.lock().unwrap_or_else(PoisonError::into_inner);
        if err.is_some() {
            return;
        }
        let written = serde_json::to_writer(&mut out, frame)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(e) = written {
            *err = Some(format!("{name}: write failed: {e}"));
        }
    });
    Ok((tap, error))
}

/// Whether `--record` writes a VRM Animation (`.vrma`) rather than an anim (`.json`).
fn is_vrma(path: &Path) -> bool {
    crate::output::extension_in(path, &["vrma"]).is_ok()
}

/// Runs `omote live`.
pub fn run(args: LiveArgs) -> Result<()> {
    if args.looped && args.replay.is_none() && args.camera.is_none() {
        bail!("--loop plays a --replay or a --camera video file again: give one of them");
    }
    if let Some(path) = &args.record {
        // A stream (`-`, a pipe, /dev/null) gets the anim.
        let stream = matches!(
            crate::output::Target::of(path),
            Ok(crate::output::Target::Through(_))
        );
        if !stream && crate::output::extension_in(path, &["json", "vrma"]).is_err() {
            bail!(
                "--record {}: give a name ending in .anim.json (an omote anim) or .vrma (a \
                 VRM Animation)",
                path.display()
            );
        }
        crate::output::check_output_file(path, "--record")?;
    }
    let avatar = Avatar::load(&AvatarSource::from_option(args.rig.as_deref()))?;
    let rig = avatar.rig.clone();
    let config = load_retarget_config(args.config.as_deref(), args.mirror)?;
    let neck_share = config.neck_share;
    // Automatic eyes show as the tracking weight falls (a lost face keeps blinking).
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(config)
        .context("invalid retarget settings")?;
    // Every file and address is checked before any input starts.
    let replay_frames = match &args.replay {
        Some(path) => Some(load_replay(path, args.fps)?),
        None => None,
    };
    let stop = crate::interrupt::install()?;
    let inbox = TrackingInbox::new(Duration::from_secs_f64(args.stale));

    // Tracking inputs (bound in the order they were declared: they drop in reverse).
    let Inputs {
        names: inputs,
        video_input,
        tap_error,
        camera,
        replay: _replay,
        vmc_in,
    } = start_inputs(&args, &inbox, &stop, replay_frames)?;
    let voice = spawn_voice(&args)?;
    // Now that every input file is read: a recording that would replace one is refused
    // before the session, not after it (when the take would be lost).
    if let Some(path) = &args.record {
        crate::output::Target::of(path).with_context(|| format!("--record {}", path.display()))?;
    }
    if voice.is_some() {
        // Voice first: the voice while it sounds, the tracked mouth between.
        driver = driver.with_voice(MouthPolicy::VoiceFirst);
    }

    // Outputs.
    let Outputs {
        vmc,
        mut recorder,
        view,
    } = open_outputs(&args, &avatar, &inbox)?;
    let (calibrate, by_enter) = calibrate_requests(&args);
    announce(&args, &avatar, &inputs, voice.as_ref(), view.as_ref())?;
    if by_enter && !inputs.is_empty() {
        eprintln!("live: Enter calibrates the head (look straight at the screen)");
    }

    let session = SessionRun {
        args: &args,
        inbox: &inbox,
        stop: &stop,
        video_input,
        calibrate,
    };
    let (result, failed_input) = session.run(
        &mut driver,
        voice.as_ref().map(|(v, _)| v),
        vmc,
        recorder.as_mut(),
        view.as_ref(),
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let failure = match result {
        Ok(stats) => {
            report(&stats, &inbox, camera.as_ref());
            if let Some((v, name)) = &voice {
                let (heard, lost) = (v.buffer().received(), v.buffer().overflowed());
                eprintln!(
                    "live: input voice {}: {heard} frames heard ({:.1} s of voice), {lost} dropped, {}",
                    crate::output::escape_terminal(name),
                    heard as f64 / f64::from(omote_lipsync::FRAME_RATE),
                    if v.is_finished() { "ended" } else { "running" }
                );
            }
            None
        }
        Err(e) => Some(anyhow::Error::from(e)),
    };
    let camera_end = camera.map(CameraInput::finish);
    let vmc_end = vmc_in.map(VmcInput::finish);
    let failure = match (&args.record, recorder) {
        (Some(path), Some(rec)) => write_recording(path, rec, &avatar, neck_share, failure)?,
        _ => failure,
    };
    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(msg) = failed_input {
        bail!("{msg}");
    }
    if let Some(err) =
        tap_error.and_then(|e| e.lock().unwrap_or_else(PoisonError::into_inner).take())
    {
        bail!("{err}");
    }
    if let Some(end) = camera_end {
        end?;
    }
    if let Some(end) = vmc_end {
        end?;
    }
    if let Some((v, _)) = voice {
        // A live pipe that never ends is not waited for.
        v.finish()?;
    }
    Ok(())
}

/// The running tracking inputs.
struct Inputs {
    /// Their names, for the start line.
    names: Vec<String>,
    /// Whether one is a video (a file or stdin) whose end ends the session.
    video_input: bool,
    /// Where `--record-tracking` reports a failed write.
    tap_error: Option<Arc<Mutex<Option<String>>>>,
    camera: Option<CameraInput>,
    replay: Option<ReplayInput>,
    vmc_in: Option<VmcInput>,
}

/// Starts the tracking inputs asked for, each sending to `inbox`.
fn start_inputs(
    args: &LiveArgs,
    inbox: &TrackingInbox,
    stop: &Arc<AtomicBool>,
    replay_frames: Option<Vec<(f64, Option<TrackedFace>)>>,
) -> Result<Inputs> {
    let mut inputs: Vec<String> = Vec::new();
    let mut video_input = false;
    let tap = match &args.record_tracking {
        Some(path) => {
            anyhow::ensure!(
                args.camera.is_some() || args.stdin.is_some(),
                "--record-tracking records the tracker's results: it needs --camera or --stdin"
            );
            Some(tracking_writer(path)?)
        }
        None => None,
    };
    let (tap, tap_error) = match tap {
        Some((t, e)) => (Some(t), Some(e)),
        None => (None, None),
    };
    let mut camera = None;
    if args.camera.is_some() || args.stdin.is_some() {
        let (name, input) = start_camera(args, inbox, stop, tap, &mut video_input)?;
        inputs.push(name);
        camera = Some(input);
    }
    let mut _replay = None;
    if let (Some(path), Some(frames)) = (&args.replay, replay_frames) {
        let sender = inbox.sender("replay");
        _replay = Some(ReplayInput::spawn(
            frames,
            args.replay_speed,
            args.looped,
            sender,
            stop.clone(),
        )?);
        inputs.push(format!(
            "replay {}{}",
            path.display(),
            if args.looped { " (loop)" } else { "" }
        ));
    }
    let mut vmc_in = None;
    if let Some(addr) = args.vmc_in {
        let listener = VmcListener::bind(addr).context("--vmc-in")?;
        let bound = listener.local_addr();
        vmc_in = Some(VmcInput::spawn(
            listener,
            inbox.sender("vmc-in"),
            stop.clone(),
        )?);
        inputs.push(format!("VMC in {bound}"));
    }
    Ok(Inputs {
        names: inputs,
        video_input,
        tap_error,
        camera,
        replay: _replay,
        vmc_in,
    })
}

/// Starts the face tracker on `--camera` or `--stdin` frames; returns its name and the
/// input. `video_input` is set when its end should end the session.
fn start_camera(
    args: &LiveArgs,
    inbox: &TrackingInbox,
    stop: &Arc<AtomicBool>,
    tap: Option<TrackingTap>,
    video_input: &mut bool,
) -> Result<(String, CameraInput)> {
    let tracker = FaceTracker::new().context("loading the face tracker models")?;
    let size = args.stdin.unwrap_or(args.size);
    let mut options = CameraOptions::new(size, args.fps);
    options.ffmpeg = args.ffmpeg.clone();
    Ok(match &args.camera {
        Some(text) => {
            let source = CameraSource::parse(text).context("--camera")?;
            let is_file = matches!(source, CameraSource::File(_));
            if args.looped && !is_file {
                bail!("--loop plays a video file or a --replay again: a camera does not end");
            }
            options.late = late_policy(args);
            options.looped = args.looped;
            // A looped video never ends the session.
            *video_input |= is_file && !args.looped;
            let name = source.describe();
            let sender = inbox.sender("camera");
            (
                name,
                CameraInput::spawn(source, options, tracker, sender, stop.clone(), tap)?,
            )
        }
        None => {
            options.late = late_policy(args);
            *video_input = true;
            let sender = inbox.sender("stdin");
            (
                format!("stdin {size}"),
                CameraInput::spawn_stream(
                    std::io::stdin(),
                    "stdin",
                    options,
                    tracker,
                    sender,
                    stop.clone(),
                    tap,
                )?,
            )
        }
    })
}

/// The outputs, opened before the session.
struct Outputs {
    vmc: Option<VmcSink>,
    recorder: Option<AnimSink>,
    view: Option<page::LiveView>,
}

/// The avatar's head and eye positions for VMC's bone messages (each relative to its
/// parent; an average adult's where the avatar has no such bone or is no VRM).
fn vmc_bone_rest(avatar: &Avatar) -> omote_vmc::BoneRest {
    let average = omote_vmc::BoneRest::default();
    let Some(model) = &avatar.model else {
        return average;
    };
    let at = |bone: &str, or: glam::Vec3| {
        model
            .bone_rest_translation(bone)
            .map_or(or, glam::Vec3::from_array)
    };
    omote_vmc::BoneRest {
        head: at("head", average.head),
        left_eye: at("leftEye", average.left_eye),
        right_eye: at("rightEye", average.right_eye),
    }
}

/// Opens the outputs asked for: the page when none is.
fn open_outputs(args: &LiveArgs, avatar: &Avatar, inbox: &TrackingInbox) -> Result<Outputs> {
    let rig = &avatar.rig;
    let names = args.vmc_names.unwrap_or(args.vmc_preset.names());
    // A VRM 0.x model's channels are its clip names: sent as it spells them.
    let model_v0 = avatar
        .model
        .as_ref()
        .is_some_and(|m| m.version == omote_vrm::VrmVersion::V0);
    let vmc = match args.vmc_out {
        Some(to) => Some(
            VmcSink::for_rig(to, rig, names.into())?
                .with_channel_spelling_kept(model_v0)
                .with_eye_bones(avatar.moves_eye_bones())
                .with_rest(vmc_bone_rest(avatar))
                .with_weights(WireWeights::resolve(args.vmc_weights, names))
                .with_rate(args.vmc_rate),
        ),
        None => None,
    };
    let recorder = args.record.as_ref().map(|_| {
        AnimSink::new(rig, args.record_fps as f32)
            .sample_by_time()
            .with_max_frames(limits::max_anim_frames(rig.len()))
    });
    // With no output asked for, the page: `omote live --camera 0` shows the avatar.
    let no_output = args.view.is_none()
        && args.vmc_out.is_none()
        && args.record.is_none()
        && args.record_tracking.is_none();
    let view_addr = args.view.or_else(|| {
        no_output.then(|| {
            eprintln!("live: no output given: serving the live page (--view {DEFAULT_VIEW})");
            default_view()
        })
    });
    let view = match view_addr {
        Some(addr) => Some(page::LiveView::start(
            addr,
            rig,
            avatar.vrm.clone(),
            &stamp_inputs(inbox),
        )?),
        None => None,
    };
    Ok(Outputs {
        vmc,
        recorder,
        view,
    })
}

/// The page's address on stdout, and the start line (avatar, inputs, outputs) on
/// stderr.
fn announce(
    args: &LiveArgs,
    avatar: &Avatar,
    inputs: &[String],
    voice: Option<&(ThreadedVoice, String)>,
    view: Option<&page::LiveView>,
) -> Result<()> {
    let mut outputs = Vec::new();
    if let Some(v) = view {
        outputs.push(format!("page {}", v.url()));
    }
    if let Some(to) = args.vmc_out {
        // A frame is sent when the face updates: on each face input frame and --rate
        // times a second between them; with no face input (the voice alone, the
        // automatic eyes), --rate is the most there can be.
        let face_input = args.camera.is_some()
            || args.stdin.is_some()
            || args.replay.is_some()
            || args.vmc_in.is_some();
        if args.vmc_rate > args.rate && !face_input {
            outputs.push(format!(
                "VMC {to} at {} Hz (--vmc-rate {} is above --rate {}: raise --rate for more)",
                args.rate, args.vmc_rate, args.rate
            ));
        } else {
            outputs.push(format!("VMC {to} at {} Hz", args.vmc_rate));
        }
    }
    if let Some(p) = &args.record {
        outputs.push(format!("recording {}", p.display()));
    }
    if let Some(v) = view {
        // Tests and scripts read the page's address from stdout.
        let mut out = std::io::stdout().lock();
        writeln!(out, "omote live: {}", v.url())
            .and_then(|()| out.flush())
            .context("writing the page address to stdout")?;
    }
    if avatar.rig.is_empty() {
        crate::output::warn(&format!(
            "{} has no expressions: its face cannot move (only its head and eyes will)",
            omote_fs::echo(&avatar.name)
        ));
    }
    eprintln!(
        "live: {} ({} channels); in: {}{}; out: {}; Ctrl-C to stop",
        omote_fs::echo(&avatar.name),
        avatar.rig.len(),
        if inputs.is_empty() {
            "no tracking (automatic eyes)".to_string()
        } else {
            crate::output::escape_terminal(&inputs.join(", ")).into_owned()
        },
        voice.map_or(String::new(), |(_, n)| format!(
            ", voice {}",
            crate::output::escape_terminal(n)
        )),
        if outputs.is_empty() {
            "none (status only)".to_string()
        } else {
            outputs.join(", ")
        }
    );
    Ok(())
}

/// What the session runs on: the arguments, the tracking inbox and the stop flag.
struct SessionRun<'a> {
    args: &'a LiveArgs,
    inbox: &'a TrackingInbox,
    stop: &'a Arc<AtomicBool>,
    /// Whether a video input's end ends the session.
    video_input: bool,
    /// The calibrate request ([`calibrate_requests`]).
    calibrate: Arc<AtomicBool>,
}

impl SessionRun<'_> {
    /// Runs the session until it ends, with a status line; returns its result and the
    /// failure of an input that never worked, if one ended it.
    fn run(
        &self,
        driver: &mut FaceDriver,
        voice: Option<&ThreadedVoice>,
        vmc: Option<VmcSink>,
        recorder: Option<&mut AnimSink>,
        view: Option<&page::LiveView>,
    ) -> (Result<SessionStats, LiveError>, Option<String>) {
        let (args, inbox, stop) = (self.args, self.inbox, self.stop);
        let mut session = LiveSession::new(args.rate)
            .stop_on(stop.clone())
            .end_with_inputs(self.video_input && args.seconds.is_none())
            .calibrate_on(
                self.calibrate.clone(),
                args.calibrate.unwrap_or(ENTER_CALIBRATION_S),
            );
        if let Some(s) = args.seconds {
            session = session.max_duration(Duration::from_secs_f64(s));
        }
        let mut status_line = StatusLine::new(inbox.clone(), view.map(|v| v.clients()));
        let failed_input: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let result = {
            let view_sink = view.map(|v| v.sink());
            let mut sinks = (vmc, recorder, view_sink);
            session.run(driver, inbox, voice, &mut sinks, |status| {
                status_line.update(status);
                // An input that never worked (a missing camera) ends the session.
                if let Some(msg) = status_line.failure() {
                    *failed_input.lock().unwrap_or_else(PoisonError::into_inner) = Some(msg);
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            })
        };
        status_line.finish();
        let failed = failed_input
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        (result, failed)
    }
}

/// Writes the recording at the end of the session; `failure` is the session's error,
/// passed through (or the context of the error when nothing was recorded).
fn write_recording(
    path: &Path,
    rec: AnimSink,
    avatar: &Avatar,
    neck_share: f32,
    failure: Option<anyhow::Error>,
) -> Result<Option<anyhow::Error>> {
    if rec.dropped() > 0 {
        eprintln!(
            "live: the recording reached its size limit ({} values); the last {} frames are not in it",
            limits::MAX_ANIM_VALUES,
            rec.dropped()
        );
    }
    if rec.frames() == 0 {
        let e = anyhow::anyhow!("{}: nothing to record (no frames)", path.display());
        return Err(failure.map_or(e, |f| f.context("nothing recorded")));
    }
    let anim = rec.finish();
    if is_vrma(path) {
        // On the avatar's own skeleton; the built-in one's for a rig without a model.
        let builtin;
        let model = match &avatar.model {
            Some(m) => m,
            None => {
                builtin = omote_vrm::avatar::model();
                &builtin
            }
        };
        if let Some(note) = omote_vrm::expressions_not_on_note(&anim, model) {
            eprintln!("note: {}", crate::output::escape_terminal(&note));
        }
        let bytes = omote_vrm::write_vrma_with_neck_share(&anim, model, neck_share)
            .with_context(|| format!("--record {}", path.display()))?;
        crate::output::write_file(path, &bytes)?;
    } else {
        write_anim(&anim, path)?;
    }
    eprintln!("live: wrote {} ({} frames)", path.display(), anim.frames());
    Ok(failure)
}

/// The inputs' names by inbox index, for the page's status.
fn stamp_inputs(inbox: &TrackingInbox) -> Vec<String> {
    inbox.stats().into_iter().map(|s| s.name).collect()
}

/// `--keep-all` / `--drop-late`, else the source's own default (see `CameraOptions`).
fn late_policy(args: &LiveArgs) -> Option<LatePolicy> {
    if args.keep_all {
        Some(LatePolicy::KeepAll)
    } else if args.drop_late {
        Some(LatePolicy::DropLate)
    } else {
        None
    }
}

/// The end-of-session summary on stderr.
fn report(stats: &SessionStats, inbox: &TrackingInbox, camera: Option<&CameraInput>) {
    let secs = stats.duration.as_secs_f64();
    eprintln!(
        "live: {:.1} s, {} faces out ({:.1}/s), a tracked face in {}, {:.3} ms of work per face",
        secs,
        stats.frames_out,
        stats.frames_out as f64 / secs.max(1e-9),
        stats.with_face,
        stats.busy.as_secs_f64() * 1e3 / stats.frames_out.max(1) as f64
    );
    for s in inbox.stats() {
        eprintln!(
            "live: input {}: {} results ({} with a face), {} dropped, {} non-finite values replaced, {} restarts, {}",
            s.name,
            s.frames,
            s.with_face,
            s.dropped,
            s.non_finite,
            s.restarts,
            match (&s.state, s.dropped) {
                (InputState::Waiting, 1..) => "nothing usable arrived".to_string(),
                (state, _) => describe_state(state),
            }
        );
        if let Some(note) = &s.note {
            eprintln!("live: input {}: {note}", s.name);
        }
        // Raw frames of another size than said track as noise: no face, ever.
        if s.name == "stdin" && s.frames >= 30 && s.with_face == 0 {
            eprintln!(
                "live: input stdin: no face in {} frames: are they the --stdin size, rgb24?",
                s.frames
            );
        }
    }
    if let Some(c) = camera {
        let t = c.tracking_times();
        if t.frames > 0 {
            eprintln!(
                "live: tracker {:.1} ms per frame over {} frames",
                t.total.as_secs_f64() * 1e3 / t.frames as f64,
                t.frames
            );
        }
    }
    let l = &stats.latency;
    if l.count > 0 {
        eprintln!(
            "live: latency input → output: mean {:.2} ms, max {:.2} ms; after tracking: mean {:.3} ms, max {:.3} ms ({} results)",
            l.mean_ms(),
            l.max.as_secs_f64() * 1e3,
            l.mean_after_tracking_ms(),
            l.max_after_tracking.as_secs_f64() * 1e3,
            l.count
        );
    }
}

fn describe_state(state: &InputState) -> String {
    match state {
        InputState::Waiting => "nothing arrived".into(),
        InputState::Running => "running".into(),
        InputState::Restarting(why) => format!("restarting ({why})"),
        InputState::Ended => "ended".into(),
        InputState::Failed(why) => format!("failed: {why}"),
    }
}

/// The one-line status on stderr: redrawn in place on a terminal, a line every 10 s
/// otherwise (logs of long runs).
struct StatusLine {
    inbox: TrackingInbox,
    clients: Option<Arc<dyn Fn() -> usize + Send + Sync>>,
    terminal: bool,
    last: Option<Instant>,
    every: Duration,
    drawn: bool,
}

impl StatusLine {
    fn new(inbox: TrackingInbox, clients: Option<Arc<dyn Fn() -> usize + Send + Sync>>) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self {
            inbox,
            clients,
            terminal,
            last: None,
            every: if terminal {
                Duration::from_millis(250)
            } else {
                Duration::from_secs(10)
            },
            drawn: false,
        }
    }

    /// The message of an input that failed (one that never delivered, a missing
    /// camera, or one that failed on the way, a replay's impossible time): it ends the
    /// session with an error.
    fn failure(&self) -> Option<String> {
        let mut out = None;
        self.inbox.for_each_input(|_, s| {
            if let InputState::Failed(why) = &s.state
                && out.is_none()
            {
                // A camera's own message already starts with its name.
                out = Some(if why.starts_with(s.name.as_str()) {
                    why.clone()
                } else {
                    format!("{}: {why}", s.name)
                });
            }
        });
        out
    }

    fn update(&mut self, status: &LiveStatus) {
        let now = Instant::now();
        if self.last.is_some_and(|l| now - l < self.every) {
            return;
        }
        self.last = Some(now);
        let line = self.text(status);
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            self.drawn = true;
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    fn text(&self, status: &LiveStatus) -> String {
        let mut tracking = String::from("no face");
        let (mut frames_dropped, mut packets_dropped) = (0, 0);
        self.inbox.for_each_input(|i, s| {
            if status.source == Some(i) {
                tracking = format!("face from {}", s.name);
            } else if status.source.is_none()
                && let InputState::Restarting(_) | InputState::Failed(_) = s.state
            {
                tracking = format!("{} {}", s.name, describe_state(&s.state));
            }
            if s.name == "vmc-in" {
                packets_dropped += s.dropped;
            } else {
                frames_dropped += s.dropped;
            }
        });
        let voice = match status.voice_volume {
            Some(v) => format!(
                " · voice {:>3.0} %{}",
                v * 100.0,
                if status.voiced { " voiced" } else { "" }
            ),
            None => String::new(),
        };
        let view = self
            .clients
            .as_ref()
            .map_or(String::new(), |c| format!(" · page {}", c()));
        crate::output::escape_terminal(&format!(
            "live {:.0} s · in {:.1}/s · out {:.1}/s · {tracking} · latency {:.1} ms{voice} · dropped {frames_dropped} frames, {packets_dropped} packets{view}",
            status.time_s, status.fps_in, status.fps_out, status.latency_ms
        ))
        .into_owned()
    }

    fn finish(&mut self) {
        if self.drawn {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_page_address_is_the_documented_one() {
        assert_eq!(limits::address(DEFAULT_VIEW), Ok(default_view()));
        assert!(default_view().ip().is_loopback());
    }
}
