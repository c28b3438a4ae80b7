//! [`ThreadedVoice`]: a voice source analysed on its own thread into a bounded buffer.

use std::time::Duration;

use omote_lipsync::VowelFrame;

use super::{Overflow, VoiceBuffer, VoiceFeed, VoiceSource, voice_buffer};
use crate::LiveError;

/// Ends the feed as a crash if the thread unwinds before ending it.
struct EndGuard {
    feed: VoiceFeed,
    what: String,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        // No effect if the voice already ended.
        self.feed.end(Err(LiveError::ReaderPanicked {
            what: std::mem::take(&mut self.what),
        }));
    }
}

/// A [`VoiceSource`] running on a thread; the frames land in a [`VoiceBuffer`] of a
/// fixed capacity, where the consumer asks for the frame of a given time
/// ([`ThreadedVoice::frame_at_time`]). Memory does not grow with the session's length.
///
/// Dropping it stops the thread at its next frames (a thread blocked in a read that
/// never returns, e.g. an idle microphone pipe, is left to end with the process).
pub struct ThreadedVoice {
    buffer: VoiceBuffer,
}

impl ThreadedVoice {
    /// Frames kept by default: 10 s of voice (a few kilobytes).
    pub const DEFAULT_CAPACITY: usize = 1000;
    /// How long the live loop waits for the frame of a video frame before it takes
    /// the newest: a microphone runs about in step with the camera.
    pub const FRAME_WAIT: Duration = Duration::from_millis(30);

    /// Starts a thread analysing `source` into a buffer of `capacity` frames, full
    /// buffers handled by `overflow`; `what` names the voice if the thread crashes.
    pub fn spawn<V>(source: V, capacity: usize, overflow: Overflow, what: impl Into<String>) -> Self
    where
        V: VoiceSource + Send + 'static,
    {
        let (feed, buffer) = voice_buffer(capacity, overflow);
        let guard = EndGuard {
            feed,
            what: what.into(),
        };
        std::thread::spawn(move || run(source, guard));
        Self { buffer }
    }

    /// The frame covering `t_s` seconds of the voice, waiting up to `wait` for it, else
    /// the newest one (see [`VoiceBuffer::frame_at`]); `None` before any frame arrived.
    pub fn frame_at_time(&self, t_s: f64, wait: Duration) -> Option<VowelFrame> {
        self.buffer.frame_at_time(t_s, wait)
    }

    /// The frame with stream index `index` ([`VoiceBuffer::frame_at`]).
    pub fn frame_at(&self, index: u64, wait: Duration) -> Option<VowelFrame> {
        self.buffer.frame_at(index, wait)
    }

    /// The buffer itself.
    pub fn buffer(&self) -> &VoiceBuffer {
        &self.buffer
    }

    /// Whether the voice has ended (or failed).
    pub fn is_finished(&self) -> bool {
        self.buffer.is_ended()
    }

    /// At the end of a session: the voice's error if it failed. A voice still going (a
    /// live pipe that never ends) is not waited for: `Ok`.
    pub fn finish(self) -> Result<(), LiveError> {
        self.buffer.take_end().unwrap_or(Ok(()))
    }
}

fn run<V: VoiceSource>(mut source: V, guard: EndGuard) {
    let mut frames = Vec::with_capacity(64);
    loop {
        frames.clear();
        let more = source.next_frames(&mut frames);
        let open = guard.feed.push(&frames);
        match more {
            Ok(true) if open => {}
            Ok(_) => break guard.feed.end(Ok(())),
            Err(e) => break guard.feed.end(Err(e)),
        }
    }
}
