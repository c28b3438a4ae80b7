//! Tracking inputs of a live session, each on its own thread, all publishing into one
//! [`TrackingInbox`]: a camera or video file through ffmpeg and the face tracker
//! ([`CameraInput`]), a recorded sequence ([`ReplayInput`]), another performer over VMC
//! ([`VmcInput`]).

mod camera;
mod inbox;
mod replay;
mod vmc_in;

pub use camera::{
    CameraInput, CameraOptions, CameraSource, TrackingTap, TrackingTimes, ffmpeg_args,
    platform_input_format,
};
pub use inbox::{CurrentTracking, InputState, InputStats, TrackingInbox, TrackingSender};
pub use replay::ReplayInput;
pub use vmc_in::VmcInput;
