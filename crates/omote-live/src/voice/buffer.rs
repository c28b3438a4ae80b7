//! [`VoiceBuffer`]: a bounded window of the newest lip sync frames, shared between the
//! thread that analyses a voice ([`VoiceFeed`]) and the loop that uses it.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use omote_lipsync::VowelFrame;

use super::voice_frame_index;
use crate::LiveError;

/// What the feed does when the buffer is full.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overflow {
    /// Wait until the consumer moves on: nothing is lost. For a file, analysed far
    /// faster than it is used.
    Wait,
    /// Drop the oldest frame: the feed never stalls. For a microphone, which must be
    /// read at its own pace (a stalled pipe makes the capture tool drop audio).
    #[default]
    DropOldest,
}

/// The state behind both handles.
struct Ring {
    frames: VecDeque<VowelFrame>,
    /// Stream index of `frames[0]`.
    first: u64,
    capacity: usize,
    overflow: Overflow,
    dropped: u64,
    /// Set once by the feed: the voice ended, or failed.
    end: Option<Result<(), LiveError>>,
    ended: bool,
    /// The consumer went away: the feed stops waiting.
    closed: bool,
}

impl Ring {
    /// Index one past the newest frame.
    fn end_index(&self) -> u64 {
        self.first + self.frames.len() as u64
    }
}

struct Shared {
    ring: Mutex<Ring>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A bounded buffer of at most `capacity` frames (at least 1): the producer and
/// consumer ends.
///
/// The buffer is allocated here, once; a session of any length uses no more memory.
pub fn voice_buffer(capacity: usize, overflow: Overflow) -> (VoiceFeed, VoiceBuffer) {
    let capacity = capacity.max(1);
    let shared = Arc::new(Shared {
        ring: Mutex::new(Ring {
            frames: VecDeque::with_capacity(capacity),
            first: 0,
            capacity,
            overflow,
            dropped: 0,
            end: None,
            ended: false,
            closed: false,
        }),
        changed: Condvar::new(),
    });
    (
        VoiceFeed {
            shared: shared.clone(),
        },
        VoiceBuffer { shared },
    )
}

/// The producer end: appends frames in stream order.
pub struct VoiceFeed {
    shared: Arc<Shared>,
}

impl VoiceFeed {
    /// Appends `frames` (frame *k* of the stream is the *k*-th ever pushed). Under
    /// [`Overflow::Wait`] this blocks while the buffer is full; returns `false` when
    /// the consumer has gone away (stop producing).
    pub fn push(&self, frames: &[VowelFrame]) -> bool {
        let mut ring = self.shared.lock();
        for f in frames {
            while ring.frames.len() >= ring.capacity {
                if ring.closed {
                    return false;
                }
                match ring.overflow {
                    Overflow::DropOldest => {
                        ring.frames.pop_front();
                        ring.first += 1;
                        ring.dropped += 1;
                    }
                    Overflow::Wait => {
                        ring = self
                            .shared
                            .changed
                            .wait(ring)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                }
            }
            ring.frames.push_back(*f);
        }
        self.shared.changed.notify_all();
        !ring.closed
    }

    /// Marks the end of the voice (or its error, for [`ThreadedVoice::finish`]).
    ///
    /// [`ThreadedVoice::finish`]: super::ThreadedVoice::finish
    pub fn end(&self, result: Result<(), LiveError>) {
        let mut ring = self.shared.lock();
        if !ring.ended {
            ring.end = Some(result);
            ring.ended = true;
        }
        self.shared.changed.notify_all();
    }
}

/// The consumer end: the frame for a moment of the session, old frames dropped.
pub struct VoiceBuffer {
    shared: Arc<Shared>,
}

impl VoiceBuffer {
    /// The frame with stream index `index` (frame *k* covers `[k, k + 1) / 100` s).
    ///
    /// Frames before `index` are dropped (ask in increasing order), except the newest.
    /// If frame `index` has not arrived, waits up to `wait` for it (returning as soon as
    /// it does), then gives the newest frame there is; at once if the voice has ended.
    /// If it was already dropped ([`Overflow::DropOldest`] with a consumer far behind),
    /// gives the oldest kept. `None` only when no frame ever arrived.
    pub fn frame_at(&self, index: u64, wait: Duration) -> Option<VowelFrame> {
        // A wait too long for the clock is a wait without a deadline.
        let deadline = Instant::now().checked_add(wait);
        let mut ring = self.shared.lock();
        loop {
            let mut freed = false;
            while ring.frames.len() > 1 && ring.first < index {
                ring.frames.pop_front();
                ring.first += 1;
                freed = true;
            }
            if freed {
                self.shared.changed.notify_all();
            }
            if index < ring.end_index() {
                let at = index.saturating_sub(ring.first) as usize;
                return ring.frames.get(at).copied();
            }
            let now = Instant::now();
            if ring.ended || deadline.is_some_and(|d| now >= d) {
                return ring.frames.back().copied();
            }
            ring = match deadline {
                Some(d) => {
                    self.shared
                        .changed
                        .wait_timeout(ring, d - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => self
                    .shared
                    .changed
                    .wait(ring)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }

    /// [`VoiceBuffer::frame_at`] for the frame covering `t_s` seconds.
    pub fn frame_at_time(&self, t_s: f64, wait: Duration) -> Option<VowelFrame> {
        self.frame_at(voice_frame_index(t_s), wait)
    }

    /// Frames held now (never more than [`VoiceBuffer::capacity`]).
    pub fn len(&self) -> usize {
        self.shared.lock().frames.len()
    }

    /// Whether no frame is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most frames ever held.
    pub fn capacity(&self) -> usize {
        self.shared.lock().capacity
    }

    /// Frames that arrived in all (the stream index after the newest).
    pub fn received(&self) -> u64 {
        self.shared.lock().end_index()
    }

    /// Frames dropped unread because the buffer was full ([`Overflow::DropOldest`]).
    pub fn overflowed(&self) -> u64 {
        self.shared.lock().dropped
    }

    /// Whether the voice has ended (or failed).
    pub fn is_ended(&self) -> bool {
        self.shared.lock().ended
    }

    /// The voice's end: `None` while it goes on, else its result (the error once; `Ok`
    /// after that).
    pub fn take_end(&self) -> Option<Result<(), LiveError>> {
        let mut ring = self.shared.lock();
        if !ring.ended {
            return None;
        }
        Some(ring.end.take().unwrap_or(Ok(())))
    }
}

impl Drop for VoiceBuffer {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.changed.notify_all();
    }
}
