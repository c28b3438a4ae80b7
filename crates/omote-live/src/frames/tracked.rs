//! [`TrackedFrames`]: the face tracker (video mode) over an image source.

use std::time::{Duration, Instant};

use omote_tracker::{FaceTracker, RgbImage, RgbView};

use super::{Frame, FrameSource};
use crate::LiveError;

/// Tracks each image of `source` with [`FaceTracker::video_frame`] (timestamps from the
/// frame index and `fps`, as `omote track` does) and gives the core's tracking input:
/// the face found, or `None` when there is none.
pub struct TrackedFrames<S> {
    source: S,
    tracker: FaceTracker,
    fps: f64,
    name: String,
    busy: Duration,
}

impl<S: FrameSource<Frame = RgbImage>> TrackedFrames<S> {
    /// Tracks `source`, a video at `fps`; frames are named `stdin frame N` in errors.
    pub fn new(source: S, tracker: FaceTracker, fps: f64) -> Self {
        Self {
            source,
            tracker,
            fps,
            name: "stdin".into(),
            busy: Duration::ZERO,
        }
    }

    /// Names the stream in errors (`NAME frame 12`).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Time spent tracking so far (not waiting for frames).
    pub fn tracking_time(&self) -> Duration {
        self.busy
    }

    /// The image source.
    pub fn source(&self) -> &S {
        &self.source
    }
}

impl<S: FrameSource<Frame = RgbImage>> FrameSource for TrackedFrames<S> {
    type Frame = Option<omote_core::TrackedFace>;

    fn next_frame(&mut self) -> Result<Option<Frame<Self::Frame>>, LiveError> {
        let Some(frame) = self.source.next_frame()? else {
            return Ok(None);
        };
        let t0 = Instant::now();
        let what = format!("{} frame {}", self.name, frame.index);
        let view = RgbView::from_image(&what, &frame.data)?;
        let tracked = self
            .tracker
            .video_frame(frame.index, self.fps, &view)
            .map_err(|source| LiveError::Track { what, source })?;
        self.busy += t0.elapsed();
        Ok(Some(Frame {
            index: frame.index,
            time_s: frame.time_s,
            data: tracked.to_core(),
        }))
    }
}
