//! Camera-angle face correction: the camera's direction in the head's frame, the motion
//! map over (α, β), and the correction that writes the blended motions into a layer.

pub(crate) mod camera_angle;
pub(crate) mod camera_correction;
pub(crate) mod motion_map;
