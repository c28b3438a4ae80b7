//! Tracking → avatar: the core's tracking input (ARKit-52 scores and an optional head
//! rotation) and the retargeter that maps it onto a rig.

pub(crate) mod input;
pub(crate) mod retargeter;
