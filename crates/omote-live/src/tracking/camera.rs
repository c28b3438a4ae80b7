//! [`CameraInput`]: a camera (or a video file) tracked on its own thread — omote starts
//! ffmpeg itself, reads its raw RGB frames, runs the face tracker in video mode and
//! publishes each result to the [`TrackingInbox`](super::TrackingInbox).
//!
//! A device that stops delivering (unplugged, taken by another program, ffmpeg crashed)
//! is opened again every few seconds; meanwhile the input reports
//! [`InputState::Restarting`] and the face falls back to the automatic eyes. A file
//! plays once, at its own pace (`-re`), and ends.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use omote_tracker::{FaceTracker, LandmarkerFrame, RgbImage, RgbView};

use super::{InputState, TrackingSender};
use crate::LiveError;
use crate::frames::{Frame, FrameSize, FrameSource, LatePolicy, RawFrames, ThreadedFrames};

/// What to capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CameraSource {
    /// A capture device as the platform names it: `/dev/video0` or `0` (Linux, v4l2),
    /// an index or name (macOS, avfoundation), a name (Windows, dshow).
    Device(String),
    /// A video file, played once at its own pace.
    File(PathBuf),
}

impl CameraSource {
    /// A file when `text` names an existing file, else a device.
    pub fn parse(text: &str) -> Self {
        let path = Path::new(text);
        if path.is_file() {
            CameraSource::File(path.to_path_buf())
        } else {
            CameraSource::Device(text.to_owned())
        }
    }

    /// How it is named in messages.
    pub fn describe(&self) -> String {
        match self {
            CameraSource::Device(d) => format!("camera {d}"),
            CameraSource::File(p) => p.display().to_string(),
        }
    }
}

/// How the camera is captured.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraOptions {
    /// Frame size asked of the device; every frame is scaled (and letterboxed) to it.
    pub size: FrameSize,
    /// Frames per second asked of the device and taken from a file.
    pub fps: f64,
    /// The ffmpeg program.
    pub ffmpeg: PathBuf,
    /// The platform's capture format (`v4l2`, `avfoundation`, `dshow`); by default the
    /// one of the platform omote was built for.
    pub input_format: &'static str,
    /// What happens to frames that arrive while the tracker is busy; `None`: by the
    /// source — a device drops them (stay current), a file and a stream keep every
    /// frame (the same frames as `omote track`).
    pub late: Option<LatePolicy>,
    /// Pause before a device is opened again after it stopped.
    pub retry: Duration,
}

impl CameraOptions {
    /// 640×480 at 30 fps from `ffmpeg` on the `PATH`, the platform's format.
    pub fn new(size: FrameSize, fps: f64) -> Self {
        Self {
            size,
            fps,
            ffmpeg: PathBuf::from("ffmpeg"),
            input_format: platform_input_format(),
            late: None,
            retry: Duration::from_secs(2),
        }
    }
}

/// The capture format of this platform's ffmpeg.
pub fn platform_input_format() -> &'static str {
    if cfg!(target_os = "macos") {
        "avfoundation"
    } else if cfg!(target_os = "windows") {
        "dshow"
    } else {
        "v4l2"
    }
}

/// ffmpeg's arguments for `source`: raw rgb24 frames of exactly `options.size` at
/// `options.fps` on stdout, no audio, errors only on stderr.
///
/// ```
/// use omote_live::{CameraOptions, CameraSource, FrameSize, ffmpeg_args};
/// let mut o = CameraOptions::new(FrameSize { width: 640, height: 480 }, 30.0);
/// o.input_format = "v4l2";
/// let args = ffmpeg_args(&CameraSource::Device("0".into()), &o);
/// let i = args.iter().position(|a| a == "-i").unwrap();
/// assert_eq!(args[i + 1], "/dev/video0");
/// assert!(args.windows(2).any(|w| w == ["-f", "v4l2"]));
/// ```
pub fn ffmpeg_args(source: &CameraSource, options: &CameraOptions) -> Vec<String> {
    let FrameSize { width, height } = options.size;
    let fps = format_fps(options.fps);
    let mut args: Vec<String> = ["-hide_banner", "-loglevel", "error", "-nostdin"]
        .map(String::from)
        .to_vec();
    match source {
        CameraSource::File(path) => {
            args.extend(["-re".into(), "-i".into(), path.display().to_string()]);
        }
        CameraSource::Device(device) => {
            let format = options.input_format;
            let input = match format {
                "v4l2" if device.chars().all(|c| c.is_ascii_digit()) => {
                    format!("/dev/video{device}")
                }
                "avfoundation" => format!("{device}:none"),
                "dshow" if !device.starts_with("video=") => format!("video={device}"),
                _ => device.clone(),
            };
            args.extend([
                "-f".into(),
                format.into(),
                "-framerate".into(),
                fps.clone(),
                "-video_size".into(),
                format!("{width}x{height}"),
                "-i".into(),
                input,
            ]);
        }
    }
    let filter = format!(
        "scale={width}:{height}:force_original_aspect_ratio=decrease,\
         pad={width}:{height}:(ow-iw)/2:(oh-ih)/2,fps={fps}"
    );
    args.extend(
        [
            "-an", "-vf", &filter, "-pix_fmt", "rgb24", "-f", "rawvideo", "-",
        ]
        .map(String::from),
    );
    args
}

fn format_fps(fps: f64) -> String {
    if fps.fract() == 0.0 {
        format!("{}", fps as u64)
    } else {
        format!("{fps:.3}")
    }
}

/// Called with every tracker result, in order (e.g. to write the tracking as
/// `omote track` does).
pub type TrackingTap = Box<dyn FnMut(&LandmarkerFrame) + Send>;

/// A camera tracked on its own thread (see the module doc).
pub struct CameraInput {
    thread: Option<std::thread::JoinHandle<Result<(), LiveError>>>,
    tracking: Arc<Mutex<TrackingTimes>>,
}

/// Time spent tracking.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrackingTimes {
    /// Frames tracked.
    pub frames: u64,
    /// Total tracking time.
    pub total: Duration,
    /// The last frame's.
    pub last: Duration,
}

impl CameraInput {
    /// Starts capturing `source` with `options`, tracking with `tracker`, publishing
    /// through `sender`, until `stop` is set or a file ends. Fails at once when ffmpeg
    /// cannot be started; a device ffmpeg cannot open shows as
    /// [`InputState::Failed`] with ffmpeg's message (the caller decides whether that ends
    /// the session).
    pub fn spawn(
        source: CameraSource,
        options: CameraOptions,
        tracker: FaceTracker,
        sender: TrackingSender,
        stop: Arc<AtomicBool>,
        tap: Option<TrackingTap>,
    ) -> Result<Self, LiveError> {
        // Start once here so a missing ffmpeg is an error of the command, not a state.
        let first = start_ffmpeg(&source, &options, &stop)?;
        let tracking = Arc::new(Mutex::new(TrackingTimes::default()));
        let times = tracking.clone();
        let thread = std::thread::Builder::new()
            .name("omote-camera".into())
            .spawn(move || {
                let mut run = CameraRun {
                    name: source.describe(),
                    source: Some(source),
                    options,
                    tracker,
                    sender,
                    stop,
                    tap,
                    times,
                    index: 0,
                };
                let result = run.run_device(first);
                if let Err(e) = &result {
                    run.sender.set_state(InputState::Failed(e.to_string()));
                }
                result
            })
            .map_err(|source| LiveError::Thread {
                what: "the camera".into(),
                source,
            })?;
        Ok(Self {
            thread: Some(thread),
            tracking,
        })
    }

    /// Tracks raw RGB frames of `options.size` read from `input` (stdin fed by the
    /// caller's own ffmpeg) until it ends, then reports [`InputState::Ended`]; an input
    /// that ends inside a frame ends there (the partial frame is dropped).
    pub fn spawn_stream(
        input: impl Read + Send + 'static,
        name: &str,
        options: CameraOptions,
        tracker: FaceTracker,
        sender: TrackingSender,
        stop: Arc<AtomicBool>,
        tap: Option<TrackingTap>,
    ) -> Result<Self, LiveError> {
        let raw = RawFrames::new(input, options.size, options.fps)?.named(name);
        let late = options.late.unwrap_or(LatePolicy::KeepAll);
        let mut frames = ThreadedFrames::spawn(Stamped(raw), late, name).stop_on(stop.clone());
        let tracking = Arc::new(Mutex::new(TrackingTimes::default()));
        let times = tracking.clone();
        let name = name.to_owned();
        let thread = std::thread::Builder::new()
            .name("omote-video".into())
            .spawn(move || {
                let mut run = CameraRun {
                    source: None,
                    name,
                    options,
                    tracker,
                    sender,
                    stop,
                    tap,
                    times,
                    index: 0,
                };
                let (_, result) = run.track_all(&mut frames);
                match &result {
                    Ok(()) => run.sender.set_state(InputState::Ended),
                    Err(e) => run.sender.set_state(InputState::Failed(e.to_string())),
                }
                result
            })
            .map_err(|source| LiveError::Thread {
                what: "the video input".into(),
                source,
            })?;
        Ok(Self {
            thread: Some(thread),
            tracking,
        })
    }

    /// Tracking time so far.
    pub fn tracking_times(&self) -> TrackingTimes {
        *self.tracking.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for the camera thread (after the stop flag was set or the file ended) and
    /// gives its error, if any.
    pub fn finish(mut self) -> Result<(), LiveError> {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(LiveError::ReaderPanicked {
                what: "the camera".into(),
            }),
            None => Ok(()),
        }
    }
}

/// A running ffmpeg: its frames and the last lines of its stderr.
struct Ffmpeg {
    child: Child,
    frames: ThreadedFrames<(Instant, RgbImage)>,
    stderr: Arc<Mutex<Vec<String>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Ffmpeg {
    /// Its last error line, if it wrote one.
    fn message(&self) -> Option<String> {
        let lines = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        lines.last().cloned()
    }

    /// Ends ffmpeg and waits for its last words (so [`Ffmpeg::message`] has them).
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }
}

/// Frames of any source stamped with the moment they arrived.
struct Stamped<S>(S);

impl<S: FrameSource<Frame = RgbImage>> FrameSource for Stamped<S> {
    type Frame = (Instant, RgbImage);
    fn next_frame(&mut self) -> Result<Option<Frame<(Instant, RgbImage)>>, LiveError> {
        Ok(self
            .0
            .next_frame()?
            .map(|f| f.map(|img| (Instant::now(), img))))
    }
}

fn start_ffmpeg(
    source: &CameraSource,
    options: &CameraOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Ffmpeg, LiveError> {
    let mut child = Command::new(&options.ffmpeg)
        .args(ffmpeg_args(source, options))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| LiveError::Ffmpeg {
            program: options.ffmpeg.clone(),
            problem: if e.kind() == std::io::ErrorKind::NotFound {
                "not found: install ffmpeg (apt install ffmpeg, brew install ffmpeg, \
                 winget install ffmpeg) or name it with --ffmpeg"
                    .into()
            } else {
                format!("cannot be started: {e}")
            },
        })?;
    let stdout = child.stdout.take().ok_or_else(|| LiveError::Ffmpeg {
        program: options.ffmpeg.clone(),
        problem: "gave no output pipe".into(),
    })?;
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let stderr_reader = child.stderr.take().map(|pipe| {
        let lines = stderr.clone();
        std::thread::spawn(move || keep_last_lines(pipe, &lines))
    });
    let raw = RawFrames::new(stdout, options.size, options.fps)?.named(source.describe());
    let late = options.late.unwrap_or(match source {
        CameraSource::Device(_) => LatePolicy::DropLate,
        CameraSource::File(_) => LatePolicy::KeepAll,
    });
    let frames = ThreadedFrames::spawn(Stamped(raw), late, source.describe()).stop_on(stop.clone());
    Ok(Ffmpeg {
        child,
        frames,
        stderr,
        stderr_reader,
    })
}

/// Keeps the last few lines of `pipe` (bounded, however much ffmpeg writes).
fn keep_last_lines(pipe: impl Read, lines: &Mutex<Vec<String>>) {
    for line in BufReader::new(pipe).lines() {
        let Ok(line) = line else { break };
        let line = line.trim().to_owned();
        if line.is_empty() {
            continue;
        }
        let mut kept = lines.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= 8 {
            kept.remove(0);
        }
        kept.push(line.chars().take(300).collect());
    }
}

struct CameraRun {
    /// `None`: a stream given by the caller (stdin), tracked once to its end.
    source: Option<CameraSource>,
    name: String,
    options: CameraOptions,
    tracker: FaceTracker,
    sender: TrackingSender,
    stop: Arc<AtomicBool>,
    tap: Option<TrackingTap>,
    times: Arc<Mutex<TrackingTimes>>,
    /// Frames tracked over all runs of ffmpeg: the video-mode clock never goes back.
    index: u64,
}

impl CameraRun {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Tracks ffmpeg's frames; restarts a device that stopped (see the module doc).
    fn run_device(&mut self, first: Ffmpeg) -> Result<(), LiveError> {
        let mut ffmpeg = first;
        let mut ever = false;
        loop {
            let (frames, result) = self.track_all(&mut ffmpeg.frames);
            ffmpeg.stop();
            ever |= frames > 0;
            if self.stopped() {
                return Ok(());
            }
            let why = match (&result, ffmpeg.message()) {
                (Err(e), _) => e.to_string(),
                (Ok(()), Some(msg)) => format!("ffmpeg: {msg}"),
                (Ok(()), None) => "ffmpeg ended".into(),
            };
            match self.source.clone() {
                Some(CameraSource::File(_)) => {
                    if frames == 0 {
                        self.sender.set_state(InputState::Failed(format!(
                            "{}: no frames ({why})",
                            self.name
                        )));
                    } else {
                        self.sender.set_state(InputState::Ended);
                    }
                    return Ok(());
                }
                Some(CameraSource::Device(_)) if !ever => {
                    // Never worked: a missing or busy device, or options it refuses.
                    self.sender
                        .set_state(InputState::Failed(format!("{}: {why}", self.name)));
                    return Ok(());
                }
                Some(source) => {
                    self.sender.set_state(InputState::Restarting(why));
                    if !self.pause(self.options.retry) {
                        return Ok(());
                    }
                    // A new stream: the tracker must not follow a face across the gap.
                    self.tracker.reset();
                    ffmpeg = start_ffmpeg(&source, &self.options, &self.stop)?;
                }
                // A caller's stream is tracked once (spawn_stream), never restarted.
                None => return Ok(()),
            }
        }
    }

    /// Sleeps up to `d`, waking on the stop flag; false when stopped.
    fn pause(&self, d: Duration) -> bool {
        let until = Instant::now() + d;
        while Instant::now() < until {
            if self.stopped() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        !self.stopped()
    }

    /// Tracks frames until ffmpeg's output ends; the count tracked and how it ended.
    fn track_all(
        &mut self,
        source: &mut ThreadedFrames<(Instant, RgbImage)>,
    ) -> (u64, Result<(), LiveError>) {
        let mut frames = 0;
        let mut dropped_seen = 0;
        let result = loop {
            let frame = match source.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => break Ok(()),
                Err(e @ LiveError::TruncatedFrame { .. }) => {
                    // An interrupted stream: the whole frames before it count.
                    self.sender.note(format!(
                        "the input ended inside a frame ({e}); it is dropped"
                    ));
                    break Ok(());
                }
                Err(e) => break Err(e),
            };
            let dropped = source.dropped();
            self.sender.dropped(dropped - dropped_seen);
            dropped_seen = dropped;
            let (captured, image) = frame.data;
            let what = format!("{} frame {}", self.name, frame.index);
            let t0 = Instant::now();
            let view = match RgbView::from_image(&what, &image) {
                Ok(v) => v,
                Err(e) => break Err(e.into()),
            };
            let tracked = match self
                .tracker
                .video_frame(self.index, self.options.fps, &view)
            {
                Ok(t) => t,
                Err(source) => break Err(LiveError::Track { what, source }),
            };
            let took = t0.elapsed();
            self.index += 1;
            frames += 1;
            {
                let mut times = self.times.lock().unwrap_or_else(PoisonError::into_inner);
                times.frames += 1;
                times.total += took;
                times.last = took;
            }
            if let Some(tap) = self.tap.as_mut() {
                tap(&tracked);
            }
            self.sender.publish_captured(tracked.to_core(), captured);
            if self.stopped() {
                break Ok(());
            }
        };
        (frames, result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(format: &'static str) -> CameraOptions {
        let mut o = CameraOptions::new(
            FrameSize {
                width: 640,
                height: 480,
            },
            30.0,
        );
        o.input_format = format;
        o
    }

    fn input_of(args: &[String]) -> &str {
        let i = args.iter().position(|a| a == "-i").unwrap();
        &args[i + 1]
    }

    #[test]
    fn each_platform_names_its_device_its_own_way() {
        let dev = |d: &str| CameraSource::Device(d.into());
        let linux = ffmpeg_args(&dev("2"), &options("v4l2"));
        assert_eq!(input_of(&linux), "/dev/video2");
        assert_eq!(
            input_of(&ffmpeg_args(&dev("/dev/video1"), &options("v4l2"))),
            "/dev/video1"
        );
        let mac = ffmpeg_args(&dev("0"), &options("avfoundation"));
        assert_eq!(input_of(&mac), "0:none");
        assert!(mac.windows(2).any(|w| w == ["-f", "avfoundation"]));
        let win = ffmpeg_args(&dev("USB Camera"), &options("dshow"));
        assert_eq!(input_of(&win), "video=USB Camera");
        for args in [&linux, &mac, &win] {
            assert!(args.windows(2).any(|w| w == ["-video_size", "640x480"]));
            assert!(args.windows(2).any(|w| w == ["-framerate", "30"]));
            assert!(args.ends_with(&["rawvideo".into(), "-".into()]));
        }
        // A file plays at its own pace, with no capture options.
        let file = ffmpeg_args(&CameraSource::File("clip.mkv".into()), &options("v4l2"));
        assert_eq!(input_of(&file), "clip.mkv");
        assert!(file.contains(&"-re".to_string()));
        assert!(!file.contains(&"-video_size".to_string()));
        let vf = file.iter().position(|a| a == "-vf").unwrap();
        assert!(file[vf + 1].contains("scale=640:480") && file[vf + 1].ends_with("fps=30"));
    }

    #[test]
    fn a_missing_ffmpeg_is_a_clear_error() {
        let inbox = super::super::TrackingInbox::new(Duration::from_secs(1));
        let mut o = options("v4l2");
        o.ffmpeg = "/nonexistent/ffmpeg-omote".into();
        let tracker = FaceTracker::new().unwrap();
        let err = CameraInput::spawn(
            CameraSource::Device("0".into()),
            o,
            tracker,
            inbox.sender("camera"),
            Arc::new(AtomicBool::new(false)),
            None,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("/nonexistent/ffmpeg-omote") && err.contains("not found"),
            "{err}"
        );
    }
}
