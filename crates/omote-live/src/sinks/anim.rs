//! [`AnimSink`]: faces recorded into an anim.

use omote_core::anim::AnimRecorder;
use omote_core::{Anim, FaceState, Rig};

use super::FaceSink;
use crate::LiveError;

/// Records faces into an anim at a fixed frame rate ([`AnimRecorder`]), up to an
/// optional cap on its frames ([`AnimSink::with_max_frames`]): faces beyond it are
/// counted, not kept.
///
/// By default every face sent is one anim frame (the time is not used: a loop that
/// sends at the anim's rate). [`AnimSink::sample_by_time`] records a session whose
/// faces come at uneven times: frame *k* is the first face sent at or after `k / fps`.
pub struct AnimSink {
    recorder: AnimRecorder,
    max_frames: usize,
    dropped: u64,
    by_time: bool,
    fps: f64,
}

impl AnimSink {
    /// Records faces of `rig` at `fps`.
    pub fn new(rig: &Rig, fps: f32) -> Self {
        Self {
            recorder: AnimRecorder::new(rig, fps),
            max_frames: usize::MAX,
            dropped: 0,
            by_time: false,
            fps: f64::from(fps),
        }
    }

    /// Samples the faces by their time: frame *k* holds the first face sent at or after
    /// `k / fps` seconds (a face is repeated over a gap; of faces closer together than a
    /// frame only the first is kept), so the recording keeps the session's timing
    /// within one update.
    pub fn sample_by_time(mut self) -> Self {
        self.by_time = true;
        self
    }

    /// Keeps at most `max_frames` frames (a session that runs for days stays bounded).
    pub fn with_max_frames(mut self, max_frames: usize) -> Self {
        self.max_frames = max_frames;
        self
    }

    /// Faces sent after the cap was reached (not recorded).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> usize {
        self.recorder.frames()
    }

    /// The recording.
    pub fn finish(self) -> Anim {
        self.recorder.finish()
    }
}

impl FaceSink for AnimSink {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        // How many frames are due once this face is in: one, or (by time) every frame
        // up to and including the one at `time_s`.
        let due = if self.by_time {
            let upto = if time_s.is_finite() && time_s > 0.0 {
                (time_s * self.fps + 1e-6).floor() as usize + 1
            } else {
                1
            };
            upto.saturating_sub(self.recorder.frames() + self.dropped as usize)
        } else {
            1
        };
        for _ in 0..due {
            if self.recorder.frames() < self.max_frames {
                self.recorder.record(face);
            } else {
                self.dropped += 1;
            }
        }
        Ok(())
    }
}
