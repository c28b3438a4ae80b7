//! [`ThreadedFrames`]: any frame source on its own reader thread, so reading the next
//! frame overlaps the work on the current one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{Frame, FrameSource};
use crate::LiveError;

/// What the reader does with a frame that arrives while the consumer is still busy
/// and the previous frame is still waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LatePolicy {
    /// Wait until the consumer takes the waiting frame: every frame is delivered, in
    /// order (a recorded input gives the same result however slow the consumer is).
    #[default]
    KeepAll,
    /// The new frame replaces the waiting one (counted in [`ThreadedFrames::dropped`]):
    /// the consumer always gets the newest frame and stays current on a slow machine.
    /// Errors and the end of the input are never dropped.
    DropLate,
}

/// The hand-over between the reader thread and the consumer: one waiting frame at most.
struct Slot<T> {
    frame: Option<Frame<T>>,
    /// Set once by the reader: the end of the input or its error.
    end: Option<Result<(), LiveError>>,
    /// Set by the consumer when it goes away: the reader stops.
    closed: bool,
}

struct Shared<T> {
    slot: Mutex<Slot<T>>,
    changed: Condvar,
    dropped: AtomicU64,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Sets the end (as a crash) if the reader thread unwinds without setting it.
struct EndGuard<T> {
    shared: Arc<Shared<T>>,
    what: String,
}

impl<T> Drop for EndGuard<T> {
    fn drop(&mut self) {
        let mut slot = self.shared.lock();
        if slot.end.is_none() {
            slot.end = Some(Err(LiveError::ReaderPanicked {
                what: std::mem::take(&mut self.what),
            }));
        }
        self.shared.changed.notify_all();
    }
}

/// A frame source read on a reader thread, handed over one frame at a time under a
/// [`LatePolicy`]. Dropping it stops the reader at its next frame (a reader blocked
/// in a read that never returns, e.g. an idle pipe, is left to end with the process).
pub struct ThreadedFrames<T> {
    shared: Arc<Shared<T>>,
    finished: bool,
    stop: Option<Arc<AtomicBool>>,
}

impl<T: Send + 'static> ThreadedFrames<T> {
    /// Starts a thread reading `source`; `what` names it if the thread crashes.
    pub fn spawn<S>(source: S, policy: LatePolicy, what: impl Into<String>) -> Self
    where
        S: FrameSource<Frame = T> + Send + 'static,
    {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                frame: None,
                end: None,
                closed: false,
            }),
            changed: Condvar::new(),
            dropped: AtomicU64::new(0),
        });
        let guard = EndGuard {
            shared: shared.clone(),
            what: what.into(),
        };
        std::thread::spawn(move || read_loop(source, policy, guard));
        Self {
            shared,
            finished: false,
            stop: None,
        }
    }
}

fn read_loop<S: FrameSource>(mut source: S, policy: LatePolicy, guard: EndGuard<S::Frame>) {
    let shared = &guard.shared;
    loop {
        let item = source.next_frame();
        let mut slot = shared.lock();
        match item {
            Ok(Some(frame)) => {
                if policy == LatePolicy::KeepAll {
                    while slot.frame.is_some() && !slot.closed {
                        slot = shared
                            .changed
                            .wait(slot)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                }
                if slot.closed {
                    return;
                }
                if slot.frame.replace(frame).is_some() {
                    shared.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(None) => {
                slot.end = Some(Ok(()));
                shared.changed.notify_all();
                return;
            }
            Err(e) => {
                slot.end = Some(Err(e));
                shared.changed.notify_all();
                return;
            }
        }
        shared.changed.notify_all();
    }
}

impl<T> ThreadedFrames<T> {
    /// How often a consumer waiting for a frame looks at the stop flag.
    const STOP_POLL: Duration = Duration::from_millis(50);

    /// Ends the input (a clean end, as if the stream had ended) once `flag` is set —
    /// a Ctrl-C — even while the reader is blocked in a read; the frame waiting is
    /// still delivered first.
    pub fn stop_on(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    fn stop_requested(&self) -> bool {
        self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// Frames replaced before the consumer took them ([`LatePolicy::DropLate`]).
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Whether the reader has stopped (end of input or error); frames may still wait.
    pub fn reader_done(&self) -> bool {
        self.finished || self.shared.lock().end.is_some()
    }
}

impl<T> FrameSource for ThreadedFrames<T> {
    type Frame = T;

    /// Blocks until the reader has a frame, the input ended, or the reader failed (its
    /// error, after the frames before it).
    fn next_frame(&mut self) -> Result<Option<Frame<T>>, LiveError> {
        if self.finished {
            return Ok(None);
        }
        let mut slot = self.shared.lock();
        loop {
            if let Some(frame) = slot.frame.take() {
                self.shared.changed.notify_all();
                return Ok(Some(frame));
            }
            if let Some(end) = slot.end.take() {
                self.finished = true;
                return end.map(|()| None);
            }
            if self.stop_requested() {
                self.finished = true;
                return Ok(None);
            }
            slot = if self.stop.is_some() {
                self.shared
                    .changed
                    .wait_timeout(slot, Self::STOP_POLL)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            } else {
                self.shared
                    .changed
                    .wait(slot)
                    .unwrap_or_else(PoisonError::into_inner)
            };
        }
    }
}

impl<T> Drop for ThreadedFrames<T> {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.changed.notify_all();
    }
}
