//! [`ReplayFrames`]: frames already in memory, replayed in order.

use std::collections::VecDeque;

use super::{Frame, FrameSource};
use crate::LiveError;

/// Replays `(time, frame)` pairs from memory, e.g. tracking results read from a
/// `.jsonl` file, or a test's mock camera. Frame *i* of the list has index *i*.
#[derive(Clone, Debug, Default)]
pub struct ReplayFrames<T> {
    frames: VecDeque<(f64, T)>,
    index: u64,
}

impl<T> ReplayFrames<T> {
    /// Frames with their times in seconds.
    pub fn new(frames: impl IntoIterator<Item = (f64, T)>) -> Self {
        Self {
            frames: frames.into_iter().collect(),
            index: 0,
        }
    }

    /// Frames at a fixed rate: frame *i* at `i / fps` seconds.
    pub fn at_fps(frames: impl IntoIterator<Item = T>, fps: f64) -> Self {
        Self::new(
            frames
                .into_iter()
                .enumerate()
                .map(|(i, f)| (i as f64 / fps, f)),
        )
    }

    /// Frames not replayed yet.
    pub fn remaining(&self) -> usize {
        self.frames.len()
    }
}

impl<T> FrameSource for ReplayFrames<T> {
    type Frame = T;

    fn next_frame(&mut self) -> Result<Option<Frame<T>>, LiveError> {
        Ok(self.frames.pop_front().map(|(time_s, data)| {
            let index = self.index;
            self.index += 1;
            Frame {
                index,
                time_s,
                data,
            }
        }))
    }
}
