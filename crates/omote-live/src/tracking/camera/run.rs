//! The camera's thread: tracks every frame it is given in video mode, publishes the
//! results, keeps the tracking times, and opens a device that stopped again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use omote_tracker::{FaceTracker, RgbImage, RgbView};

use super::ffmpeg::{Ffmpeg, start_ffmpeg};
use super::source::{CameraOptions, CameraSource};
use super::{TrackingTap, TrackingTimes};
use crate::LiveError;
use crate::frames::{FrameSource, ThreadedFrames};
use crate::tracking::{InputState, TrackingSender};

pub(super) struct CameraRun {
    /// `None`: a stream given by the caller (stdin), tracked once to its end.
    pub(super) source: Option<CameraSource>,
    pub(super) name: String,
    pub(super) options: CameraOptions,
    pub(super) tracker: FaceTracker,
    pub(super) sender: TrackingSender,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) tap: Option<TrackingTap>,
    pub(super) times: Arc<Mutex<TrackingTimes>>,
    /// Frames tracked over all runs of ffmpeg: the video-mode clock never goes back.
    pub(super) index: u64,
}

impl CameraRun {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Tracks ffmpeg's frames; restarts a device that stopped (see the module doc).
    pub(super) fn run_device(&mut self, first: Ffmpeg) -> Result<(), LiveError> {
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
                        // ffmpeg's words for a file with no picture (a sound file).
                        let why = if why.contains("does not contain any stream")
                            || why.contains("matches no streams")
                        {
                            "it has no video stream: an audio file goes to --audio".to_string()
                        } else {
                            why
                        };
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
    pub(super) fn track_all(
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
