//! Where a live session's time comes from: the wall clock ([`WallClock`], `omote live`),
//! or the frames of a source ([`SourceClock`]: replayed or tracked frames, each
//! published at its own time, so a run is the same every time — tests, offline runs).

use std::time::{Duration, Instant};

use omote_core::TrackedFace;

use crate::LiveError;
use crate::frames::FrameSource;
use crate::tracking::{InputState, TrackingInbox, TrackingSender};
use crate::voice::ThreadedVoice;

/// A live session's time and its waiting (see the module doc).
pub trait SessionClock {
    /// The time now.
    fn now(&mut self) -> Instant;
    /// Waits until `inbox` has news after the publish count `seen` or `deadline` passes;
    /// returns the count then.
    fn wait_for_news(
        &mut self,
        inbox: &TrackingInbox,
        seen: u64,
        deadline: Instant,
    ) -> Result<u64, LiveError>;
    /// Waits until `t`.
    fn sleep_until(&mut self, t: Instant);
    /// How long an update waits for the voice's frame of its time before it takes the
    /// newest there is: none live (a microphone is about in step), a while when time is
    /// the frames' (a voice file is analysed far ahead).
    fn voice_wait(&self) -> Duration {
        Duration::ZERO
    }
}

/// The wall clock: results arrive when their inputs publish them.
#[derive(Clone, Copy, Debug, Default)]
pub struct WallClock;

impl SessionClock for WallClock {
    fn now(&mut self) -> Instant {
        Instant::now()
    }

    fn wait_for_news(
        &mut self,
        inbox: &TrackingInbox,
        seen: u64,
        deadline: Instant,
    ) -> Result<u64, LiveError> {
        Ok(inbox.wait_for_news(seen, deadline))
    }

    fn sleep_until(&mut self, t: Instant) {
        if let Some(wait) = t.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
}

/// Time that runs on a frame source's frames: each wait publishes the source's next
/// tracking result into the session's inbox at its frame time, and time jumps there.
/// The session starts one frame step before the first frame (as a camera's first frame
/// comes one interval after it is opened), so every frame is one step of `1/fps`.
///
/// ```
/// use std::time::Duration;
/// use omote_core::{FaceConfig, FaceDriver, RetargetConfig, Rig, TrackedFace};
/// use omote_live::{LiveSession, MockSink, ReplayFrames, SourceClock, TrackingInbox};
///
/// let mut driver = FaceDriver::new(std::sync::Arc::new(Rig::standard()), FaceConfig::default(), 1)
///     .with_tracking(RetargetConfig::default())
///     .unwrap();
/// let inbox = TrackingInbox::new(Duration::from_millis(500));
/// let frames = ReplayFrames::at_fps(vec![Some(TrackedFace::default()); 5], 30.0);
/// let mut clock = SourceClock::new(frames, &inbox, "replay", 30.0);
/// let mut sink = MockSink::new();
/// let stats = LiveSession::new(1.0)
///     .end_with_inputs(true)
///     .run_with_clock(&mut clock, &mut driver, &inbox, None, &mut sink, |_| {})?;
/// assert_eq!((stats.frames_out, stats.with_face), (5, 5));
/// assert!((sink.frames[4].time_s - 5.0 / 30.0).abs() < 1e-6);
/// # Ok::<(), omote_live::LiveError>(())
/// ```
pub struct SourceClock<S> {
    source: S,
    sender: TrackingSender,
    origin: Instant,
    now: Instant,
    step_s: f64,
    pending: Option<(Instant, Option<TrackedFace>)>,
    ended: bool,
}

impl<S: FrameSource<Frame = Option<TrackedFace>>> SourceClock<S> {
    /// A clock on `source`'s frames (at about `fps`), publishing into `inbox` as an
    /// input called `name`.
    pub fn new(source: S, inbox: &TrackingInbox, name: &str, fps: f64) -> Self {
        let origin = Instant::now();
        let fps = if fps.is_finite() && fps > 0.0 {
            fps
        } else {
            30.0
        };
        Self {
            source,
            sender: inbox.sender(name),
            origin,
            now: origin,
            step_s: 1.0 / fps,
            pending: None,
            ended: false,
        }
    }

    /// The next frame and when it is due, pulled from the source once.
    fn next(&mut self) -> Result<Option<Instant>, LiveError> {
        if self.pending.is_none() && !self.ended {
            match self.source.next_frame()? {
                Some(frame) => {
                    let at = self.step_s + frame.time_s.max(0.0);
                    let due = self.origin + Duration::from_secs_f64(at);
                    self.pending = Some((due.max(self.now), frame.data));
                }
                None => {
                    self.ended = true;
                    self.sender.set_state(InputState::Ended);
                }
            }
        }
        Ok(self.pending.as_ref().map(|(due, _)| *due))
    }
}

impl<S: FrameSource<Frame = Option<TrackedFace>>> SessionClock for SourceClock<S> {
    fn now(&mut self) -> Instant {
        self.now
    }

    fn wait_for_news(
        &mut self,
        inbox: &TrackingInbox,
        seen: u64,
        deadline: Instant,
    ) -> Result<u64, LiveError> {
        match self.next()? {
            Some(due) if due <= deadline => {
                self.now = due;
                if let Some((_, face)) = self.pending.take() {
                    self.sender.publish_at(face, due, due);
                }
            }
            // The end was just reported (news), or nothing is due before the deadline.
            _ if inbox.seq() != seen => {}
            _ => self.now = self.now.max(deadline),
        }
        Ok(inbox.seq())
    }

    fn sleep_until(&mut self, t: Instant) {
        self.now = self.now.max(t);
    }

    fn voice_wait(&self) -> Duration {
        ThreadedVoice::FRAME_WAIT
    }
}
