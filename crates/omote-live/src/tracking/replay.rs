//! [`ReplayInput`]: a recorded tracking sequence played in real time (demos, tests, a
//! take reviewed on the avatar), optionally looped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_core::TrackedFace;

use super::{InputState, TrackingSender};
use crate::LiveError;

/// A tracking sequence played on its own thread: frame *i* is published at its time
/// (÷ `speed`) after the start; at the end it starts again (`looped`) or reports
/// [`InputState::Ended`], and the face falls back to the automatic eyes.
pub struct ReplayInput {
    thread: std::thread::JoinHandle<()>,
}

impl ReplayInput {
    /// Plays `frames` (`(time in seconds, face or none)`, times not decreasing) through
    /// `sender` until the end or `stop`.
    pub fn spawn(
        frames: Vec<(f64, Option<TrackedFace>)>,
        speed: f64,
        looped: bool,
        sender: TrackingSender,
        stop: Arc<AtomicBool>,
    ) -> Result<Self, LiveError> {
        let thread = std::thread::Builder::new()
            .name("omote-replay".into())
            .spawn(move || play(&frames, speed, looped, &sender, &stop))
            .map_err(|source| LiveError::Thread {
                what: "the replay".into(),
                source,
            })?;
        Ok(Self { thread })
    }

    /// Whether it has played to its end (or was stopped).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }
}

fn play(
    frames: &[(f64, Option<TrackedFace>)],
    speed: f64,
    looped: bool,
    sender: &TrackingSender,
    stop: &AtomicBool,
) {
    let speed = if speed.is_finite() && speed > 0.0 {
        speed
    } else {
        1.0
    };
    let Some(&(first, _)) = frames.first() else {
        sender.set_state(InputState::Ended);
        return;
    };
    let last = frames.last().map_or(first, |f| f.0);
    // One loop lasts the sequence plus one mean frame step, so the last frame is shown
    // as long as the others.
    let step = if frames.len() > 1 {
        (last - first) / (frames.len() - 1) as f64
    } else {
        1.0 / 30.0
    };
    let lap = (last - first + step).max(1e-3);
    let start = Instant::now();
    let mut offset = 0.0;
    loop {
        for (t, face) in frames {
            let due = (offset + t - first) / speed;
            if !sleep_until(start, due, stop) {
                return;
            }
            sender.publish(*face);
        }
        if !looped {
            break;
        }
        offset += lap;
    }
    // Let the last frame show for its step before the input counts as ended.
    if sleep_until(start, (offset + lap) / speed, stop) {
        sender.set_state(InputState::Ended);
    }
}

/// Sleeps until `due` seconds after `start`, in short steps that watch `stop`; false
/// when stopped.
fn sleep_until(start: Instant, due: f64, stop: &AtomicBool) -> bool {
    let due = start + Duration::from_secs_f64(due.max(0.0));
    loop {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        let Some(left) = due.checked_duration_since(Instant::now()) else {
            return true;
        };
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TrackingInbox;

    #[test]
    fn a_replay_plays_in_time_then_ends_and_a_loop_keeps_going() {
        let inbox = TrackingInbox::new(Duration::from_secs(1));
        let stop = Arc::new(AtomicBool::new(false));
        let frames: Vec<_> = (0..5)
            .map(|i| (i as f64 * 0.01, Some(TrackedFace::default())))
            .collect();
        let t0 = Instant::now();
        let once = ReplayInput::spawn(
            frames.clone(),
            1.0,
            false,
            inbox.sender("replay"),
            stop.clone(),
        )
        .unwrap();
        while !once.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
        // Four steps of 10 ms and the last frame's own step.
        assert!(t0.elapsed() >= Duration::from_millis(50));
        let s = &inbox.stats()[0];
        assert_eq!((s.frames, s.state.clone()), (5, InputState::Ended));
        // Looped at 10× speed: more frames than one pass, until stopped.
        let looping =
            ReplayInput::spawn(frames, 10.0, true, inbox.sender("loop"), stop.clone()).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        stop.store(true, Ordering::SeqCst);
        while !looping.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let s = &inbox.stats()[1];
        assert!(s.frames > 5, "{s:?}");
        assert_eq!(s.state, InputState::Running);
    }
}
