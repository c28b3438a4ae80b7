//! Tracking → avatar: the core's tracking input (ARKit-52 scores and an optional head
//! rotation), the retargeter's settings, and the retargeter that maps a tracked face
//! onto a rig (mouth, gaze and head in their own files).

pub(crate) mod config;
pub(crate) mod gaze;
pub(crate) mod head;
pub(crate) mod input;
pub(crate) mod mouth;
pub(crate) mod retargeter;
