//! [`CameraInput`]: a camera (or a video file) tracked on its own thread — omote starts
//! ffmpeg itself, reads its raw RGB frames, runs the face tracker in video mode and
//! publishes each result to the [`TrackingInbox`](super::TrackingInbox).
//!
//! A device that stops delivering (unplugged, taken by another program, ffmpeg crashed)
//! is opened again every few seconds; meanwhile the input reports
//! [`InputState::Restarting`] and the face falls back to the automatic eyes. A file
//! plays once, at its own pace (`-re`), and ends.
//!
//! The parts: what to capture and how (`source.rs`); the ffmpeg child, its arguments and
//! its last words (`ffmpeg.rs`); its output as stamped frames on their own thread
//! (`frames.rs`); the tracking thread, which restarts a device that stopped (`run.rs`).

mod ffmpeg;
mod frames;
mod run;
mod source;

pub use ffmpeg::ffmpeg_args;
pub use source::{CameraOptions, CameraSource, platform_input_format};

use std::io::Read;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use omote_tracker::{FaceTracker, LandmarkerFrame};

use super::{InputState, TrackingSender};
use crate::LiveError;
use crate::frames::LatePolicy;
use ffmpeg::start_ffmpeg;
use frames::stamped_frames;
use run::CameraRun;

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
        let late = options.late.unwrap_or(LatePolicy::KeepAll);
        let mut frames = stamped_frames(input, &options, late, name, &stop)?;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::frames::FrameSize;

    /// 640x480 at 30 fps in `format` (the camera tests' options; `ffmpeg.rs` uses it too).
    pub(crate) fn options(format: &'static str) -> CameraOptions {
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
