//! Face sinks: where each frame of a live face goes.
//!
//! [`FaceSink`] takes a frame's [`FaceState`] and its time: [`VmcSink`] sends it to a
//! VMC marionette over UDP, [`AnimSink`] records it into an anim, [`MockSink`] keeps
//! copies for a test to look at.

mod anim;
mod mock;
mod view;
mod vmc;

pub use anim::AnimSink;
pub use mock::{MockSink, SinkFrame};
pub use view::{ViewFrameWriter, ViewSink};
pub use vmc::VmcSink;

use omote_core::FaceState;

use crate::LiveError;
use crate::session::LiveStatus;

/// Something that takes a face, frame by frame.
pub trait FaceSink {
    /// Takes the face of the frame at `time_s` seconds into the session.
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError>;

    /// The session's status, given before each [`FaceSink::send`] of a live session
    /// (a page shows it); ignored by default.
    fn status(&mut self, _status: &LiveStatus) {}
}

impl<S: FaceSink + ?Sized> FaceSink for &mut S {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        (**self).send(time_s, face)
    }
    fn status(&mut self, status: &LiveStatus) {
        (**self).status(status);
    }
}

impl<S: FaceSink + ?Sized> FaceSink for Box<S> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        (**self).send(time_s, face)
    }
    fn status(&mut self, status: &LiveStatus) {
        (**self).status(status);
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
    fn status(&mut self, status: &LiveStatus) {
        if let Some(s) = self {
            s.status(status);
        }
    }
}

/// Every sink of a list, in order (the first error stops the frame).
impl<S: FaceSink> FaceSink for [S] {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.iter_mut().try_for_each(|s| s.send(time_s, face))
    }
    fn status(&mut self, status: &LiveStatus) {
        self.iter_mut().for_each(|s| s.status(status));
    }
}

impl<S: FaceSink> FaceSink for Vec<S> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.as_mut_slice().send(time_s, face)
    }
    fn status(&mut self, status: &LiveStatus) {
        self.as_mut_slice().status(status);
    }
}

/// Two sinks at once (e.g. VMC out and a recording), in order.
impl<A: FaceSink, B: FaceSink> FaceSink for (A, B) {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.0.send(time_s, face)?;
        self.1.send(time_s, face)
    }
    fn status(&mut self, status: &LiveStatus) {
        self.0.status(status);
        self.1.status(status);
    }
}

/// Three sinks at once, in order.
impl<A: FaceSink, B: FaceSink, C: FaceSink> FaceSink for (A, B, C) {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        self.0.send(time_s, face)?;
        self.1.send(time_s, face)?;
        self.2.send(time_s, face)
    }
    fn status(&mut self, status: &LiveStatus) {
        self.0.status(status);
        self.1.status(status);
        self.2.status(status);
    }
}
