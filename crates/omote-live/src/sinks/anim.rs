//! [`AnimSink`]: faces recorded into an anim.

use omote_core::{Anim, AnimRecorder, FaceState, Rig};

use super::FaceSink;
use crate::LiveError;

/// Records every face into an anim at a fixed frame rate ([`AnimRecorder`]: one anim
/// frame per face sent; the time is not used).
pub struct AnimSink {
    recorder: AnimRecorder,
}

impl AnimSink {
    /// Records faces of `rig` at `fps`.
    pub fn new(rig: &Rig, fps: f32) -> Self {
        Self {
            recorder: AnimRecorder::new(rig, fps),
        }
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
        self.recorder.record(face);
        Ok(())
    }
}
