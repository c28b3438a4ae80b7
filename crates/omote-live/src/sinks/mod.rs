//! Face sinks: where each frame of a live face goes.
//!
//! [`FaceSink`] takes a frame's [`FaceState`] and its time: [`VmcSink`] sends it to a
//! VMC marionette over UDP, [`AnimSink`] records it into an anim, [`MockSink`] keeps
//! copies for a test to look at.

mod anim;
mod mock;
mod vmc;

pub use anim::AnimSink;
pub use mock::{MockSink, SinkFrame};
pub use vmc::VmcSink;

use omote_core::FaceState;

use crate::LiveError;

/// Something that takes a face, frame by frame.
pub trait FaceSink {
    /// Takes the face of the frame at `time_s` seconds into the session.
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError>;
}

impl<S: FaceSink + ?Sized> FaceSink for &mut S {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        (**self).send(time_s, face)
    }
}

impl<S: FaceSink + ?Sized> FaceSink for Box<S> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        (**self).send(time_s, face)
    }
}

/// An optional sink: `None` takes nothing.
impl<S: FaceSink> FaceSink for Option<S> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        match self {
            Some(s) => s.send(time_s, face),
            None => Ok(()),
        }
    }
}

/// Every sink of a list, in order (the first error stops the frame).
impl<S: FaceSink> FaceSink for [S] {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.iter_mut().try_for_each(|s| s.send(time_s, face))
    }
}

impl<S: FaceSink> FaceSink for Vec<S> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.as_mut_slice().send(time_s, face)
    }
}

/// Two sinks at once (e.g. VMC out and a recording), in order.
impl<A: FaceSink, B: FaceSink> FaceSink for (A, B) {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.0.send(time_s, face)?;
        self.1.send(time_s, face)
    }
}
