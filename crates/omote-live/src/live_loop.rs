//! [`LiveLoop`]: the one live loop — tracked frames and an optional voice in, the face
//! driver advanced frame by frame, every face out to the sinks. `omote live` is this
//! loop over a tracked camera; tests run it over replayed frames and mocks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_core::{DriverInputs, FaceDriver, TrackedFace, VoiceFrame};
use omote_lipsync::VowelFrame;

use crate::LiveError;
use crate::frames::FrameSource;
use crate::sinks::FaceSink;
use crate::voice::ThreadedVoice;

/// What a live loop did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiveStats {
    /// Frames driven.
    pub frames: u64,
    /// Frames with a tracked face.
    pub with_face: u64,
    /// Time spent in the driver and the sinks (tracking time is the source's own).
    pub busy: Duration,
}

/// Drives a face from a source of tracked frames (`Option<TrackedFace>` per frame:
/// `None` = no face) at a known frame rate.
///
/// Time follows the frame index (`index / fps`), so a dropped frame lengthens the next
/// step and a replayed recording gives the same result as the original run.
#[derive(Clone, Debug)]
pub struct LiveLoop {
    fps: f64,
    voice_wait: Duration,
    stop: Option<Arc<AtomicBool>>,
}

impl LiveLoop {
    /// A loop for frames at `fps`.
    pub fn new(fps: f64) -> Self {
        Self {
            fps,
            voice_wait: ThreadedVoice::FRAME_WAIT,
            stop: None,
        }
    }

    /// Ends the run (as if the source had ended) before the next frame once `flag` is
    /// set (a Ctrl-C). A source that blocks waiting for input should watch the same flag
    /// ([`ThreadedFrames::stop_on`](crate::ThreadedFrames::stop_on)).
    pub fn stop_on(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// How long a frame waits for the voice's lip-sync frame of its time before it takes
    /// the newest one there is (default [`ThreadedVoice::FRAME_WAIT`]).
    pub fn voice_wait(mut self, wait: Duration) -> Self {
        self.voice_wait = wait;
        self
    }

    /// Runs until the source ends. `on_frame` sees the stats and the source after each
    /// frame (status lines: a tracked source knows its own tracking time).
    pub fn run<S>(
        &self,
        frames: &mut S,
        driver: &mut FaceDriver,
        voice: Option<&ThreadedVoice>,
        sink: &mut impl FaceSink,
        mut on_frame: impl FnMut(&LiveStats, &S),
    ) -> Result<LiveStats, LiveError>
    where
        S: FrameSource<Frame = Option<TrackedFace>>,
    {
        let mut stats = LiveStats::default();
        let mut prev_index: Option<u64> = None;
        let stopped = || self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst));
        while !stopped() {
            let Some(frame) = frames.next_frame()? else {
                break;
            };
            let t0 = Instant::now();
            let steps = prev_index.map_or(1, |p| frame.index.saturating_sub(p).max(1));
            let dt = (steps as f64 / self.fps) as f32;
            prev_index = Some(frame.index);
            // The lip sync frame of this video frame's time: waited for briefly (a file
            // is analysed far ahead; a microphone is about in step with the camera),
            // else the newest one there is.
            let voice_frame = voice.map(|v| {
                let f = v.frame_at_time(frame.time_s, self.voice_wait);
                to_voice_frame(&f.unwrap_or(VowelFrame::SILENT))
            });
            let inputs = DriverInputs {
                tracking: frame.data.as_ref(),
                voice: voice_frame,
                ..DriverInputs::default()
            };
            let state = driver.update(dt, &inputs);
            sink.send(frame.time_s, state)?;
            stats.frames += 1;
            stats.with_face += u64::from(frame.data.is_some());
            stats.busy += t0.elapsed();
            on_frame(&stats, frames);
        }
        Ok(stats)
    }
}

/// A lip-sync frame as the core's live voice input: the five vowels (the closed-mouth
/// weight N is the absence of them; a weight that is not finite counts as 0) and
/// whether the voice sounds.
pub fn to_voice_frame(frame: &VowelFrame) -> VoiceFrame {
    VoiceFrame {
        vowels: std::array::from_fn(|j| {
            let w = frame.weights[j];
            if w.is_finite() {
                w.clamp(0.0, 1.0)
            } else {
                0.0
            }
        }),
        voiced: !frame.silent,
    }
}
