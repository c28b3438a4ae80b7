//! A raw RGB byte stream (ffmpeg's stdout, or the caller's own) as frames: cut into
//! frames of the asked size, each stamped with the moment it arrived, read on a thread
//! of their own so the tracker always takes the newest (or every one, by the policy).

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use omote_tracker::RgbImage;

use super::source::CameraOptions;
use crate::LiveError;
use crate::frames::{Frame, FrameSource, LatePolicy, RawFrames, ThreadedFrames};

/// `input`'s frames of `options.size` at `options.fps`, stamped and read on their own
/// thread (named `name` in messages), late ones handled by `late`, until `stop` is set.
pub(super) fn stamped_frames(
    input: impl Read + Send + 'static,
    options: &CameraOptions,
    late: LatePolicy,
    name: &str,
    stop: &Arc<AtomicBool>,
) -> Result<ThreadedFrames<(Instant, RgbImage)>, LiveError> {
    let raw = RawFrames::new(input, options.size, options.fps)?.named(name);
    Ok(ThreadedFrames::spawn(Stamped(raw), late, name).stop_on(stop.clone()))
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
