//! [`LiveSession`]: the one live loop (`omote live`, and every in-process test of it) —
//! whatever tracking and voice arrive, the face driver advanced on the session's clock,
//! every face out to the sinks.
//!
//! The face is updated when a new tracking result arrives (at once: a camera frame
//! reaches the outputs right after the tracker) and otherwise on a steady tick at the
//! update rate, so the automatic blinks and saccades keep moving when nothing arrives.
//! Updates are at least [`LiveSession::MIN_GAP`] apart, so a flood of packets cannot
//! run the loop hot. Time is the clock's since the start — the wall clock live
//! ([`WallClock`]), a source's frame times in tests and offline runs ([`SourceClock`]);
//! a recording samples it at its own fixed rate
//! ([`AnimSink::sample_by_time`](crate::AnimSink::sample_by_time)).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_core::{DriverInputs, FaceDriver};
use omote_lipsync::VowelFrame;

use crate::LiveError;
use crate::sinks::FaceSink;
use crate::tracking::TrackingInbox;
use crate::voice::{ThreadedVoice, voice_frame_index};

mod clock;
pub use clock::{SessionClock, SourceClock, WallClock};

/// What the session is doing, given to the sinks and the caller after every update.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiveStatus {
    /// Seconds since the start.
    pub time_s: f64,
    /// Faces sent so far.
    pub frames_out: u64,
    /// Faces sent per second (over the last second).
    pub fps_out: f32,
    /// Tracking results received per second, all inputs (over the last second).
    pub fps_in: f32,
    /// The input whose face is shown (index into [`TrackingInbox::stats`]); `None`: no
    /// fresh face, the automatic eyes and idle head show.
    pub source: Option<usize>,
    /// Capture → output of the newest tracking result, in milliseconds (the last one
    /// measured).
    pub latency_ms: f32,
    /// Of which after tracking: the result's arrival → output (the session's own share).
    pub after_tracking_ms: f32,
    /// The voice's loudness (0–1, relative to its speech level), when there is a voice.
    pub voice_volume: Option<f32>,
    /// Whether the voice sounds now.
    pub voiced: bool,
}

/// Latency figures over a session.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencyStats {
    /// Results measured.
    pub count: u64,
    /// Sum of capture → output.
    pub total: Duration,
    /// Largest capture → output.
    pub max: Duration,
    /// Sum of arrival → output (after tracking).
    pub after_tracking: Duration,
    /// Largest arrival → output.
    pub max_after_tracking: Duration,
}

impl LatencyStats {
    /// Mean capture → output in milliseconds.
    pub fn mean_ms(&self) -> f64 {
        ms(self.total) / self.count.max(1) as f64
    }

    /// Mean arrival → output in milliseconds.
    pub fn mean_after_tracking_ms(&self) -> f64 {
        ms(self.after_tracking) / self.count.max(1) as f64
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// What a session did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SessionStats {
    /// Faces sent.
    pub frames_out: u64,
    /// Of which with a tracked face.
    pub with_face: u64,
    /// Tracking results that reached an output, with their latency.
    pub latency: LatencyStats,
    /// How long it ran.
    pub duration: Duration,
    /// Time spent in the driver and the sinks.
    pub busy: Duration,
}

/// The live loop (see the module doc).
#[derive(Clone, Debug)]
pub struct LiveSession {
    period: Duration,
    stop: Option<Arc<AtomicBool>>,
    max: Option<Duration>,
    end_with_inputs: bool,
    calibrate: Option<(Arc<AtomicBool>, f32)>,
}

impl LiveSession {
    /// The least time between two updates.
    pub const MIN_GAP: Duration = Duration::from_millis(1);

    /// A session that updates at least `rate_hz` times a second (1–1000; others are
    /// clamped).
    pub fn new(rate_hz: f64) -> Self {
        let rate = if rate_hz.is_finite() {
            rate_hz.clamp(1.0, 1000.0)
        } else {
            60.0
        };
        Self {
            period: Duration::from_secs_f64(1.0 / rate),
            stop: None,
            max: None,
            end_with_inputs: false,
            calibrate: None,
        }
    }

    /// Ends the run within one update period once `flag` is set (a Ctrl-C).
    pub fn stop_on(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Calibrates the tracked head whenever `flag` is set (a key or a button; the flag
    /// is cleared): the user's pose over the next `seconds` of faces becomes straight
    /// ahead ([`Retargeter::calibrate_over`](omote_core::tracking::Retargeter::calibrate_over)).
    /// Set it before the run to calibrate on the first faces.
    pub fn calibrate_on(mut self, flag: Arc<AtomicBool>, seconds: f32) -> Self {
        self.calibrate = Some((flag, seconds));
        self
    }

    /// Ends the run after `d`.
    pub fn max_duration(mut self, d: Duration) -> Self {
        self.max = Some(d);
        self
    }

    /// Ends the run once every tracking input has ended (a video file played out).
    pub fn end_with_inputs(mut self, yes: bool) -> Self {
        self.end_with_inputs = yes;
        self
    }

    /// Runs on the wall clock until stopped: see the module doc. `on_update` sees the
    /// status after every face sent.
    pub fn run(
        &self,
        driver: &mut FaceDriver,
        inbox: &TrackingInbox,
        voice: Option<&ThreadedVoice>,
        sinks: &mut impl FaceSink,
        on_update: impl FnMut(&LiveStatus),
    ) -> Result<SessionStats, LiveError> {
        self.run_with_clock(&mut WallClock, driver, inbox, voice, sinks, on_update)
    }

    /// [`LiveSession::run`] on `clock`'s time.
    pub fn run_with_clock(
        &self,
        clock: &mut impl SessionClock,
        driver: &mut FaceDriver,
        inbox: &TrackingInbox,
        voice: Option<&ThreadedVoice>,
        sinks: &mut impl FaceSink,
        mut on_update: impl FnMut(&LiveStatus),
    ) -> Result<SessionStats, LiveError> {
        let wall_start = Instant::now();
        let start = clock.now();
        let mut stats = SessionStats::default();
        let mut status = LiveStatus::default();
        let mut last = start;
        let mut seen = inbox.seq();
        // The newest result already counted for latency (by its arrival).
        let mut measured: Option<Instant> = None;
        let mut rate = RateMeter::new(start);
        let stopped = || self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst));
        let ended = || self.end_with_inputs && inbox.all_ended();
        loop {
            let now = clock.now();
            if stopped() || self.max.is_some_and(|m| now - start >= m) || ended() {
                break;
            }
            let mut deadline = last + self.period;
            if let Some(m) = self.max {
                deadline = deadline.min(start + m);
            }
            let seq = clock.wait_for_news(inbox, seen, deadline)?;
            let news = seq != seen;
            seen = seq;
            // Inputs that ended send no last face of their own.
            if ended() {
                break;
            }
            if !news && clock.now() < deadline {
                continue;
            }
            // At most one update per MIN_GAP, however fast results come.
            clock.sleep_until(last + Self::MIN_GAP);
            let now = clock.now();
            let t0 = Instant::now();
            let current = inbox.current(now);
            let dt = (now - last).as_secs_f32();
            last = now;
            let time_s = (now - start).as_secs_f64();
            let vowels = voice.and_then(|v| voice_at(v, time_s, clock.voice_wait()));
            let inputs = DriverInputs {
                tracking: current.face.as_ref(),
                voice: vowels.as_ref().map(VowelFrame::voice_frame),
                ..DriverInputs::default()
            };
            if let Some((flag, seconds)) = &self.calibrate
                && flag.swap(false, Ordering::SeqCst)
                && let Some(retargeter) = driver.retargeter_mut()
            {
                retargeter.calibrate_over(*seconds);
            }
            let state = driver.update(dt, &inputs);
            status.time_s = time_s;
            status.source = current.source;
            status.voice_volume = vowels.map(|v| v.volume);
            status.voiced = vowels.is_some_and(|v| !v.silent);
            sinks.status(&status);
            sinks.send(time_s, state)?;
            let sent = Instant::now();
            // Latency of a result shown for the first time.
            if let (Some(arrived), Some(captured)) = (current.arrived, current.captured)
                && measured.is_none_or(|m| arrived > m)
            {
                measured = Some(arrived);
                // On the clock's time: a source's frames are shown at their own time.
                let shown = clock.now();
                let total = shown.saturating_duration_since(captured);
                let after = shown.saturating_duration_since(arrived);
                let l = &mut stats.latency;
                l.count += 1;
                l.total += total;
                l.max = l.max.max(total);
                l.after_tracking += after;
                l.max_after_tracking = l.max_after_tracking.max(after);
                status.latency_ms = ms(total) as f32;
                status.after_tracking_ms = ms(after) as f32;
            }
            stats.frames_out += 1;
            stats.with_face += u64::from(current.face.is_some());
            stats.busy += sent - t0;
            status.frames_out = stats.frames_out;
            let inputs_seen = {
                let mut n = 0;
                inbox.for_each_input(|_, s| n += s.frames);
                n
            };
            if let Some((out, inp)) = rate.tick(sent, stats.frames_out, inputs_seen) {
                status.fps_out = out;
                status.fps_in = inp;
            }
            on_update(&status);
        }
        stats.duration = wall_start.elapsed();
        Ok(stats)
    }
}

/// The voice's frame at `time_s`, waiting at most `wait` for it (then a microphone's
/// newest frame when the one of this moment is not analysed yet); silence once a voice
/// that ended has no frame for this time (a file played out does not hold its last
/// vowel).
fn voice_at(voice: &ThreadedVoice, time_s: f64, wait: Duration) -> Option<VowelFrame> {
    let index = voice_frame_index(time_s);
    if voice.is_finished() && index >= voice.buffer().received() {
        return Some(VowelFrame::SILENT);
    }
    voice.frame_at(index, wait)
}

/// Frames per second over windows of about a second.
struct RateMeter {
    since: Instant,
    out: u64,
    inp: u64,
}

impl RateMeter {
    fn new(start: Instant) -> Self {
        Self {
            since: start,
            out: 0,
            inp: 0,
        }
    }

    /// New rates (out, in) when a window closed.
    fn tick(&mut self, now: Instant, out: u64, inp: u64) -> Option<(f32, f32)> {
        let span = (now - self.since).as_secs_f64();
        if span < 1.0 {
            return None;
        }
        let rates = (
            ((out - self.out) as f64 / span) as f32,
            ((inp.saturating_sub(self.inp)) as f64 / span) as f32,
        );
        (self.since, self.out, self.inp) = (now, out, inp);
        Some(rates)
    }
}
