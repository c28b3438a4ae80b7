//! [`AnimSink`]: faces recorded into an anim.

use omote_core::{Anim, AnimRecorder, FaceState, Rig};

use super::FaceSink;
use crate::LiveError;

/// Records every face into an anim at a fixed frame rate ([`AnimRecorder`]: one anim
/// frame per face sent; the time is not used), up to an optional cap on its frames
/// ([`AnimSink::with_max_frames`]): faces beyond it are counted, not kept.
pub struct AnimSink {
    recorder: AnimRecorder,
    max_frames: usize,
    dropped: u64,
}

impl AnimSink {
    /// Records faces of `rig` at `fps`.
    pub fn new(rig: &Rig, fps: f32) -> Self {
        Self {
            recorder: AnimRecorder::new(rig, fps),
            max_frames: usize::MAX,
            dropped: 0,
        }
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
    fn send(&mut self, _time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        if self.recorder.frames() < self.max_frames {
            self.recorder.record(face);
        } else {
            self.dropped += 1;
        }
        Ok(())
    }
}
