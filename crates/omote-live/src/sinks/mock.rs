//! [`MockSink`]: keeps what it is sent.

use omote_core::{FaceState, Quat};

use super::FaceSink;
use crate::LiveError;

/// One face as a [`MockSink`] received it.
#[derive(Clone, Debug, PartialEq)]
pub struct SinkFrame {
    /// The time it was sent with.
    pub time_s: f64,
    /// Expression weights in rig order.
    pub expressions: Vec<f32>,
    /// Head orientation.
    pub head: Quat,
    /// Left eye bone rotation.
    pub left_eye: Quat,
    /// Right eye bone rotation.
    pub right_eye: Quat,
}

/// Collects every face it is sent, for tests.
#[derive(Clone, Debug, Default)]
pub struct MockSink {
    /// What arrived, in order.
    pub frames: Vec<SinkFrame>,
}

impl MockSink {
    /// Nothing received yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl FaceSink for MockSink {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.frames.push(SinkFrame {
            time_s,
            expressions: face.expressions.to_vec(),
            head: face.head,
            left_eye: face.left_eye,
            right_eye: face.right_eye,
        });
        Ok(())
    }
}
