//! [`TrackingInbox`]: the newest tracking result of every input, handed from the input
//! threads (camera, replay, VMC in) to the session loop.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use omote_core::TrackedFace;

/// What a tracking input is doing, for the status line and the page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InputState {
    /// Started, nothing arrived yet.
    #[default]
    Waiting,
    /// Frames are arriving.
    Running,
    /// Lost its source and trying again (a camera that stopped, a crashed ffmpeg).
    Restarting(String),
    /// Ended for good (a video file or a replay played to its end).
    Ended,
    /// Failed; the text says why.
    Failed(String),
}

/// Counts and state of one input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputStats {
    /// The input's name (`camera`, `replay`, `vmc-in`, `stdin`).
    pub name: String,
    /// Its state.
    pub state: InputState,
    /// Frames (tracking results) published.
    pub frames: u64,
    /// Of which with a face.
    pub with_face: u64,
    /// Frames or packets dropped (late camera frames, malformed VMC packets).
    pub dropped: u64,
    /// Values that were not finite and were replaced (never reach an output).
    pub non_finite: u64,
    /// Times it lost its source and started again (a camera unplugged and back).
    pub restarts: u64,
    /// The last thing worth telling about it that is not a failure (an input that
    /// ended inside a frame), for the end-of-session report.
    pub note: Option<String>,
}

struct Slot {
    stats: InputStats,
    face: Option<TrackedFace>,
    /// When the newest result arrived.
    arrived: Option<Instant>,
    /// When its input was captured.
    captured: Option<Instant>,
}

struct Shared {
    slots: Mutex<Vec<Slot>>,
    changed: Condvar,
    /// Bumped on every publish: the loop wakes on a new result.
    seq: Mutex<u64>,
}

/// The newest tracking result of each input, and their counts.
///
/// Inputs publish through a [`TrackingSender`]; the session loop asks for the face to
/// use now ([`TrackingInbox::current`]): the newest fresh face of any input. A result
/// older than the staleness limit counts as no face, so a camera that stops delivering
/// hands the face over to the automatic eyes instead of freezing it.
///
/// ```
/// use std::time::{Duration, Instant};
/// use omote_core::TrackedFace;
/// use omote_live::TrackingInbox;
///
/// let inbox = TrackingInbox::new(Duration::from_millis(500));
/// let camera = inbox.sender("camera");
/// camera.publish(Some(TrackedFace::default()));
/// let now = inbox.current(Instant::now());
/// assert_eq!(now.source, Some(0));
/// assert!(now.face.is_some());
/// assert!(inbox.current(Instant::now() + Duration::from_secs(1)).face.is_none());
/// ```
#[derive(Clone)]
pub struct TrackingInbox {
    shared: Arc<Shared>,
    stale: Duration,
}

/// The face the loop should use now.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CurrentTracking {
    /// The newest fresh face of any input; `None`: no input has one (lost, stale, none).
    pub face: Option<TrackedFace>,
    /// Which input it came from (index into [`TrackingInbox::stats`]).
    pub source: Option<usize>,
    /// When it arrived (was published).
    pub arrived: Option<Instant>,
    /// When its input was captured (before tracking).
    pub captured: Option<Instant>,
    /// The publish count so far (changes when anything new arrived).
    pub seq: u64,
}

impl TrackingInbox {
    /// An inbox whose results count as lost once older than `stale`.
    pub fn new(stale: Duration) -> Self {
        Self {
            shared: Arc::new(Shared {
                slots: Mutex::new(Vec::new()),
                changed: Condvar::new(),
                seq: Mutex::new(0),
            }),
            stale,
        }
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.shared
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A sender for a new input named `name`.
    pub fn sender(&self, name: &str) -> TrackingSender {
        let mut slots = self.slots();
        slots.push(Slot {
            stats: InputStats {
                name: name.to_owned(),
                ..InputStats::default()
            },
            face: None,
            arrived: None,
            captured: None,
        });
        TrackingSender {
            inbox: self.clone(),
            index: slots.len() - 1,
        }
    }

    /// The publish count: it changes whenever an input published.
    pub fn seq(&self) -> u64 {
        *self
            .shared
            .seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the publish count differs from `seen` or `deadline` passes; returns
    /// the count.
    pub fn wait_for_news(&self, seen: u64, deadline: Instant) -> u64 {
        let mut seq = self
            .shared
            .seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *seq == seen {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            seq = self
                .shared
                .changed
                .wait_timeout(seq, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *seq
    }

    /// The face to use at `now`: the most recent result with a face among the inputs
    /// whose newest result is fresh (an input that reports "no face" does not hide
    /// another input's face).
    pub fn current(&self, now: Instant) -> CurrentTracking {
        let seq = self.seq();
        let slots = self.slots();
        let mut best: Option<(usize, &Slot)> = None;
        for (i, slot) in slots.iter().enumerate() {
            let (Some(_), Some(at)) = (slot.face, slot.arrived) else {
                continue;
            };
            if now.saturating_duration_since(at) > self.stale {
                continue;
            }
            if best.is_none_or(|(_, b)| b.arrived < slot.arrived) {
                best = Some((i, slot));
            }
        }
        CurrentTracking {
            face: best.and_then(|(_, s)| s.face),
            source: best.map(|(i, _)| i),
            arrived: best.and_then(|(_, s)| s.arrived),
            captured: best.and_then(|(_, s)| s.captured),
            seq,
        }
    }

    /// Every input's counts and state, in the order they were added.
    pub fn stats(&self) -> Vec<InputStats> {
        self.slots().iter().map(|s| s.stats.clone()).collect()
    }

    /// Calls `f` with every input's counts (no allocation).
    pub fn for_each_input(&self, mut f: impl FnMut(usize, &InputStats)) {
        for (i, s) in self.slots().iter().enumerate() {
            f(i, &s.stats);
        }
    }

    /// Whether every input has ended or failed (false with no inputs).
    pub fn all_ended(&self) -> bool {
        let slots = self.slots();
        !slots.is_empty()
            && slots
                .iter()
                .all(|s| matches!(s.stats.state, InputState::Ended | InputState::Failed(_)))
    }
}

/// One input's end of a [`TrackingInbox`].
#[derive(Clone)]
pub struct TrackingSender {
    inbox: TrackingInbox,
    index: usize,
}

impl TrackingSender {
    /// Changes the slot; `wake`: the loop has news (a result or a state change; counts
    /// alone are not news, so a flood of bad packets never drives the loop).
    fn update(&self, wake: bool, f: impl FnOnce(&mut Slot)) {
        {
            let mut slots = self.inbox.slots();
            f(&mut slots[self.index]);
        }
        if !wake {
            return;
        }
        let mut seq = self
            .inbox
            .shared
            .seq
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *seq += 1;
        self.inbox.shared.changed.notify_all();
    }

    /// Publishes a tracking result (`None`: this frame has no face). Values that are not
    /// finite are replaced (scores by 0, a head by none) and counted.
    pub fn publish(&self, face: Option<TrackedFace>) {
        self.publish_captured(face, Instant::now());
    }

    /// [`TrackingSender::publish`] for a result whose input was captured at `captured`
    /// (a camera frame before tracking, a packet's arrival): the latency the session
    /// reports runs from there.
    pub fn publish_captured(&self, face: Option<TrackedFace>, captured: Instant) {
        self.publish_at(face, captured, Instant::now());
    }

    /// [`TrackingSender::publish_captured`] arriving at `now` (a session on a source's
    /// time, [`crate::SourceClock`], publishes at the frame's time).
    pub(crate) fn publish_at(&self, face: Option<TrackedFace>, captured: Instant, now: Instant) {
        let (face, replaced) = match face {
            Some(f) => {
                let (f, n) = sanitised(f);
                (Some(f), n)
            }
            None => (None, 0),
        };
        self.update(true, |slot| {
            slot.face = face;
            slot.arrived = Some(now);
            slot.captured = Some(captured);
            slot.stats.frames += 1;
            slot.stats.with_face += u64::from(face.is_some());
            slot.stats.non_finite += replaced;
            if !matches!(slot.stats.state, InputState::Running) {
                slot.stats.state = InputState::Running;
            }
        });
    }

    /// Counts `n` dropped frames or packets.
    pub fn dropped(&self, n: u64) {
        if n > 0 {
            self.update(false, |slot| slot.stats.dropped += n);
        }
    }

    /// Counts `n` values that were not finite and were replaced before they reached it.
    pub fn non_finite(&self, n: u64) {
        if n > 0 {
            self.update(false, |slot| slot.stats.non_finite += n);
        }
    }

    /// Keeps a note for the report (see [`InputStats::note`]).
    pub fn note(&self, text: String) {
        self.update(false, |slot| slot.stats.note = Some(text));
    }

    /// Sets the input's state; anything but running also clears its face (the loop
    /// falls back to the automatic eyes at once instead of waiting for staleness).
    pub fn set_state(&self, state: InputState) {
        self.update(true, |slot| {
            if state != InputState::Running {
                slot.face = None;
            }
            if matches!(state, InputState::Restarting(_)) {
                slot.stats.restarts += 1;
            }
            slot.stats.state = state;
        });
    }
}

/// `face` with non-finite scores set to 0 and a non-finite or degenerate head removed;
/// the count of values replaced.
fn sanitised(mut face: TrackedFace) -> (TrackedFace, u64) {
    let mut replaced = 0;
    for v in face.blendshapes.0.iter_mut() {
        if !v.is_finite() {
            *v = 0.0;
            replaced += 1;
        }
    }
    if let Some(q) = face.head {
        let ok = q.is_finite() && q.length_squared() > 1e-12;
        if ok {
            face.head = Some(q.normalize());
        } else {
            face.head = None;
            replaced += 1;
        }
    }
    (face, replaced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use omote_core::Quat;

    #[test]
    fn a_face_from_one_input_is_not_hidden_by_another_that_has_none() {
        let inbox = TrackingInbox::new(Duration::from_secs(1));
        let (camera, vmc) = (inbox.sender("camera"), inbox.sender("vmc-in"));
        let mut face = TrackedFace::default();
        face.blendshapes.set("jawOpen", 0.5);
        vmc.publish(Some(face));
        camera.publish(None);
        let now = inbox.current(Instant::now());
        assert_eq!(now.source, Some(1));
        assert_eq!(now.face.unwrap().blendshapes.get("jawOpen"), 0.5);
        // The newer of two faces wins.
        camera.publish(Some(TrackedFace::default()));
        assert_eq!(inbox.current(Instant::now()).source, Some(0));
        // A stopped input loses its face at once.
        camera.set_state(InputState::Restarting("ffmpeg exited".into()));
        assert_eq!(inbox.current(Instant::now()).source, Some(1));
        let stats = inbox.stats();
        assert_eq!((stats[0].frames, stats[0].with_face), (2, 1));
    }

    #[test]
    fn non_finite_values_never_leave_the_inbox() {
        let inbox = TrackingInbox::new(Duration::from_secs(1));
        let input = inbox.sender("vmc-in");
        let mut face = TrackedFace::default();
        face.blendshapes.0[3] = f32::NAN;
        face.blendshapes.0[4] = f32::INFINITY;
        face.head = Some(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
        input.publish(Some(face));
        let got = inbox.current(Instant::now()).face.unwrap();
        assert!(got.blendshapes.0.iter().all(|v| v.is_finite()));
        assert_eq!(got.head, None);
        assert_eq!(inbox.stats()[0].non_finite, 3);
        // A zero quaternion is no head either; a scaled one is normalised.
        let mut face = TrackedFace {
            head: Some(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            ..TrackedFace::default()
        };
        input.publish(Some(face));
        assert_eq!(inbox.current(Instant::now()).face.unwrap().head, None);
        face.head = Some(Quat::from_xyzw(0.0, 0.0, 0.0, 3.0));
        input.publish(Some(face));
        let head = inbox.current(Instant::now()).face.unwrap().head.unwrap();
        assert!((head.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_loop_wakes_on_news_and_on_its_deadline() {
        let inbox = TrackingInbox::new(Duration::from_secs(1));
        let input = inbox.sender("replay");
        let seen = inbox.seq();
        let t0 = Instant::now();
        assert_eq!(
            inbox.wait_for_news(seen, t0 + Duration::from_millis(20)),
            seen
        );
        assert!(t0.elapsed() >= Duration::from_millis(20));
        let other = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            input.publish(None);
        });
        let news = inbox.wait_for_news(seen, Instant::now() + Duration::from_secs(10));
        assert_ne!(news, seen);
        other.join().unwrap();
        assert!(!inbox.all_ended());
    }
}
