//! The tracked gaze (docs/design.md § Tracking): each direction averages the two eyes' matching look
//! shapes, the dominant side wins, a curve, then scaled to the rig's lookAt input range.

use crate::curve::ResponseCurve;
use crate::rig::arkit::arkit_const;
use crate::sources::tracking::input::Blendshapes;

const LOOK_IN_L: usize = arkit_const("eyeLookInLeft");
const LOOK_IN_R: usize = arkit_const("eyeLookInRight");
const LOOK_OUT_L: usize = arkit_const("eyeLookOutLeft");
const LOOK_OUT_R: usize = arkit_const("eyeLookOutRight");
const LOOK_UP_L: usize = arkit_const("eyeLookUpLeft");
const LOOK_UP_R: usize = arkit_const("eyeLookUpRight");
const LOOK_DOWN_L: usize = arkit_const("eyeLookDownLeft");
const LOOK_DOWN_R: usize = arkit_const("eyeLookDownRight");

/// Gaze (yaw, pitch) in degrees with VRM signs (yaw > 0 toward the avatar's left, pitch
/// > 0 down). `range` is the rig's lookAt input range: [horizontal, up, down].
pub(crate) fn tracked_gaze(b: &Blendshapes, curve: &ResponseCurve, range: [f32; 3]) -> (f32, f32) {
    let g = |i: usize| b.0[i];
    let left = 0.5 * (g(LOOK_IN_R) + g(LOOK_OUT_L));
    let right = 0.5 * (g(LOOK_IN_L) + g(LOOK_OUT_R));
    let up = 0.5 * (g(LOOK_UP_L) + g(LOOK_UP_R));
    let down = 0.5 * (g(LOOK_DOWN_L) + g(LOOK_DOWN_R));
    let [h, u, d] = range;
    let yaw = if left > right {
        curve.eval(left) * h
    } else {
        -curve.eval(right) * h
    };
    let pitch = if up > down {
        -curve.eval(up) * u
    } else {
        curve.eval(down) * d
    };
    (yaw, pitch)
}
