//! Frame sources: where the camera side of a live session comes from.
//!
//! [`FrameSource`] gives the next [`Frame`] or the end of the input. Sources compose:
//! [`RawFrames`] reads raw RGB frames from any `Read`, [`ThreadedFrames`] moves any
//! source onto a reader thread (optionally dropping late frames), [`TrackedFrames`]
//! runs the face tracker on an image source, and [`ReplayFrames`] replays frames
//! already in memory (tracking results from a file, or a test's mock input).

mod raw;
mod replay;
mod threaded;
mod tracked;

pub use raw::{FrameSize, RawFrames};
pub use replay::ReplayFrames;
pub use threaded::{LatePolicy, ThreadedFrames};
pub use tracked::TrackedFrames;

use crate::LiveError;

/// One frame of a sequence: its index in the input, its time, and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame<T> {
    /// Position in the input, from 0. Dropped frames leave gaps.
    pub index: u64,
    /// Seconds since the start of the input.
    pub time_s: f64,
    /// The frame itself (an image, a tracking result …).
    pub data: T,
}

impl<T> Frame<T> {
    /// The same index and time with other data.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Frame<U> {
        Frame {
            index: self.index,
            time_s: self.time_s,
            data: f(self.data),
        }
    }
}

/// A sequence of frames, pulled one at a time.
pub trait FrameSource {
    /// What a frame holds.
    type Frame;

    /// The next frame, `Ok(None)` at the end of the input. After the end or an error,
    /// further calls return `Ok(None)`.
    fn next_frame(&mut self) -> Result<Option<Frame<Self::Frame>>, LiveError>;
}

impl<S: FrameSource + ?Sized> FrameSource for &mut S {
    type Frame = S::Frame;
    fn next_frame(&mut self) -> Result<Option<Frame<S::Frame>>, LiveError> {
        (**self).next_frame()
    }
}

impl<S: FrameSource + ?Sized> FrameSource for Box<S> {
    type Frame = S::Frame;
    fn next_frame(&mut self) -> Result<Option<Frame<S::Frame>>, LiveError> {
        (**self).next_frame()
    }
}
