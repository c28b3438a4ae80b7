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
    // A time no clock can reach (a 1e30 s step) fails the input, which ends the
    // session; it never panics this thread.
    let wait = |due: f64| match sleep_until(start, due, stop) {
        Ok(go_on) => go_on,
        Err(why) => {
            sender.set_state(InputState::Failed(why));
            false
        }
    };
    loop {
        for (t, face) in frames {
            let due = (offset + t - first) / speed;
            if !wait(due) {
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
    if wait((offset + lap) / speed) {
        sender.set_state(InputState::Ended);
    }
}

/// Sleeps until `due` seconds after `start`, in short steps that watch `stop`; false
/// when stopped, an error when `due` is past what a clock can count.
fn sleep_until(start: Instant, due: f64, stop: &AtomicBool) -> Result<bool, String> {
    let due = Duration::try_from_secs_f64(due.max(0.0))
        .ok()
        .and_then(|d| start.checked_add(d))
        .ok_or_else(|| format!("a frame is due {due:e} s after the start, past any clock"))?;
    loop {
        if stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let Some(left) = due.checked_duration_since(Instant::now()) else {
            return Ok(true);
        };
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TrackingInbox;

    #[test]
    fn a_time_past_any_clock_fails_the_input_without_a_panic() {
        let inbox = TrackingInbox::new(Duration::from_secs(1));
        let stop = Arc::new(AtomicBool::new(false));
        let frames = vec![
            (0.0, Some(TrackedFace::default())),
            (1e30, Some(TrackedFace::default())),
        ];
        let replay = ReplayInput::spawn(frames, 1.0, false, inbox.sender("replay"), stop).unwrap();
        let t0 = Instant::now();
        while !replay.is_finished() {
            assert!(t0.elapsed() < Duration::from_secs(10), "the replay waits");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(replay.thread.join().is_ok(), "the replay thread panicked");
        let s = &inbox.stats()[0];
        assert_eq!(s.frames, 1);
        assert!(
            matches!(&s.state, InputState::Failed(why) if why.contains("1e30 s")),
            "{:?}",
            s.state
        );
    }

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
