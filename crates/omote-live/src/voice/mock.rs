//! [`MockVoice`]: lip sync frames from memory.

use std::collections::VecDeque;

use omote_lipsync::VowelFrame;

use super::VoiceSource;
use crate::LiveError;

/// Gives frames from memory, `chunk` per call (as a pipe delivers a few at a time),
/// then ends — or fails, if given an error for the end.
pub struct MockVoice {
    frames: VecDeque<VowelFrame>,
    chunk: usize,
    error: Option<LiveError>,
}

impl MockVoice {
    /// The frames, one per call.
    pub fn new(frames: impl IntoIterator<Item = VowelFrame>) -> Self {
        Self {
            frames: frames.into_iter().collect(),
            chunk: 1,
            error: None,
        }
    }

    /// Gives `n` frames per call (at least 1).
    pub fn chunked(mut self, n: usize) -> Self {
        self.chunk = n.max(1);
        self
    }

    /// Fails with `error` after the last frame instead of ending.
    pub fn failing_with(mut self, error: LiveError) -> Self {
        self.error = Some(error);
        self
    }
}

impl VoiceSource for MockVoice {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        let n = self.chunk.min(self.frames.len());
        out.extend(self.frames.drain(..n));
        if !self.frames.is_empty() {
            return Ok(true);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(false),
        }
    }
}
