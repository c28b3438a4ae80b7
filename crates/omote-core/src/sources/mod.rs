//! The sources that write a face's layers each frame: tracking (a tracker's face →
//! the tracking layer), speech (voice lines and live voice → the mouth layer and the
//! afterglow) and the camera (the motion map → the correction layer).
//! [`FaceDriver`](crate::FaceDriver) calls them in a fixed order.

pub(crate) mod camera;
pub(crate) mod speech;
pub(crate) mod tracking;
pub(crate) mod voice_mouth;
