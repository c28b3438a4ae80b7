//! VRM lookAt: range maps, the gaze type, and how yaw/pitch become eye rotations or
//! look* expression weights.
//!
//! Conventions (VRM 1.0): yaw > 0 looks to the avatar's left (+X), pitch > 0 looks down.
//! Angles are in degrees at this edge. The avatar faces +Z with +Y up.

use glam::{EulerRot, Quat};
use serde::{Deserialize, Serialize};

/// Maps an input angle to an output value: `min(|v|, inputMax) / inputMax * outputScale`.
///
/// ```
/// use omote_core::rig::LookAtRangeMap;
/// let m = LookAtRangeMap::new(90.0, 10.0);
/// assert_eq!(m.map(45.0), 5.0);
/// assert_eq!(m.map(-180.0), 10.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LookAtRangeMap {
    /// Input angle (degrees) at which the output saturates.
    pub input_max_value: f32,
    /// Output at saturation: degrees of eye rotation (bone) or a weight (expression).
    pub output_scale: f32,
}

impl LookAtRangeMap {
    /// A range map.
    pub const fn new(input_max_value: f32, output_scale: f32) -> Self {
        Self {
            input_max_value,
            output_scale,
        }
    }

    /// Map the magnitude of `value` (the sign is dropped; callers pick the map by sign).
    pub fn map(&self, value: f32) -> f32 {
        let max = self.input_max_value.max(0.001);
        value.abs().min(max) / max * self.output_scale
    }

    /// Whether both numbers are finite and non-negative.
    pub fn is_valid(&self) -> bool {
        self.input_max_value.is_finite()
            && self.output_scale.is_finite()
            && self.input_max_value >= 0.0
            && self.output_scale >= 0.0
    }
}

/// Whether gaze drives eye bones or the four look* expressions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LookAtType {
    /// Rotate `leftEye` / `rightEye` bones; range maps output degrees.
    #[default]
    Bone,
    /// Weight `lookLeft` / `lookRight` / `lookUp` / `lookDown`; range maps output 0..1.
    Expression,
}

impl LookAtType {
    /// The VRM name: `"bone"` or `"expression"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bone => "bone",
            Self::Expression => "expression",
        }
    }
}

/// A model's lookAt settings (VRM 1.0 `lookAt`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LookAtDesc {
    /// Bone or expression gaze.
    #[serde(rename = "type")]
    pub kind: LookAtType,
    /// Eye position relative to the head bone (metres, head space).
    #[serde(default)]
    pub offset_from_head_bone: [f32; 3],
    /// Horizontal, eye moving toward the nose.
    pub range_map_horizontal_inner: LookAtRangeMap,
    /// Horizontal, eye moving away from the nose.
    pub range_map_horizontal_outer: LookAtRangeMap,
    /// Looking down (pitch > 0).
    pub range_map_vertical_down: LookAtRangeMap,
    /// Looking up (pitch < 0).
    pub range_map_vertical_up: LookAtRangeMap,
}

impl LookAtDesc {
    /// Bone gaze with every range map 90° → 10° (three-vrm's default).
    pub const fn default_bone() -> Self {
        let m = LookAtRangeMap::new(90.0, 10.0);
        Self {
            kind: LookAtType::Bone,
            offset_from_head_bone: [0.0, 0.06, 0.0],
            range_map_horizontal_inner: m,
            range_map_horizontal_outer: m,
            range_map_vertical_down: m,
            range_map_vertical_up: m,
        }
    }

    /// Expression gaze with every range map 90° → 1.
    pub const fn default_expression() -> Self {
        let m = LookAtRangeMap::new(90.0, 1.0);
        Self {
            kind: LookAtType::Expression,
            offset_from_head_bone: [0.0, 0.06, 0.0],
            range_map_horizontal_inner: m,
            range_map_horizontal_outer: m,
            range_map_vertical_down: m,
            range_map_vertical_up: m,
        }
    }

    /// The four range maps with their VRM field names, for validation and display.
    pub fn range_maps(&self) -> [(&'static str, LookAtRangeMap); 4] {
        [
            ("rangeMapHorizontalInner", self.range_map_horizontal_inner),
            ("rangeMapHorizontalOuter", self.range_map_horizontal_outer),
            ("rangeMapVerticalDown", self.range_map_vertical_down),
            ("rangeMapVerticalUp", self.range_map_vertical_up),
        ]
    }

    /// Per-eye (yaw, pitch) in degrees for a gaze of `yaw`, `pitch` degrees (bone type).
    ///
    /// The avatar's left eye looking left (yaw > 0) moves outward, so it uses the outer
    /// map; the right eye uses the inner one, and the reverse for yaw < 0.
    pub fn eye_angles(&self, yaw: f32, pitch: f32) -> EyeAngles {
        let (left_yaw, right_yaw) = if yaw >= 0.0 {
            (
                self.range_map_horizontal_outer.map(yaw),
                self.range_map_horizontal_inner.map(yaw),
            )
        } else {
            (
                -self.range_map_horizontal_inner.map(yaw),
                -self.range_map_horizontal_outer.map(yaw),
            )
        };
        let eye_pitch = if pitch >= 0.0 {
            self.range_map_vertical_down.map(pitch)
        } else {
            -self.range_map_vertical_up.map(pitch)
        };
        EyeAngles {
            left_yaw,
            right_yaw,
            pitch: eye_pitch,
        }
    }

    /// Weights of lookLeft, lookRight, lookUp, lookDown for a gaze (expression type).
    pub fn expression_weights(&self, yaw: f32, pitch: f32) -> LookWeights {
        let mut w = LookWeights::default();
        if yaw >= 0.0 {
            w.left = self.range_map_horizontal_outer.map(yaw);
        } else {
            w.right = self.range_map_horizontal_outer.map(yaw);
        }
        if pitch >= 0.0 {
            w.down = self.range_map_vertical_down.map(pitch);
        } else {
            w.up = self.range_map_vertical_up.map(pitch);
        }
        w
    }
}

impl Default for LookAtDesc {
    fn default() -> Self {
        Self::default_bone()
    }
}

/// Eye bone angles in degrees (VRM signs), relative to the rest pose.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EyeAngles {
    /// Left eye yaw (> 0: toward the avatar's left).
    pub left_yaw: f32,
    /// Right eye yaw.
    pub right_yaw: f32,
    /// Pitch of both eyes (> 0: down).
    pub pitch: f32,
}

impl EyeAngles {
    /// Local rotations of the left and right eye bones (+Z forward, +Y up, +X avatar-left).
    pub fn rotations(&self) -> (Quat, Quat) {
        (
            eye_rotation(self.left_yaw, self.pitch),
            eye_rotation(self.right_yaw, self.pitch),
        )
    }
}

/// The rotation that turns +Z toward (yaw, pitch) in degrees: yaw about +Y, then pitch
/// about the turned +X (positive pitch turns +Z toward −Y, i.e. down).
pub fn eye_rotation(yaw_deg: f32, pitch_deg: f32) -> Quat {
    Quat::from_euler(
        EulerRot::YXZ,
        yaw_deg.to_radians(),
        pitch_deg.to_radians(),
        0.0,
    )
}

/// Weights of the four look* expressions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct LookWeights {
    pub left: f32,
    pub right: f32,
    pub up: f32,
    pub down: f32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn asym() -> LookAtDesc {
        LookAtDesc {
            range_map_horizontal_inner: LookAtRangeMap::new(90.0, 8.0),
            range_map_horizontal_outer: LookAtRangeMap::new(90.0, 12.0),
            range_map_vertical_down: LookAtRangeMap::new(90.0, 10.0),
            range_map_vertical_up: LookAtRangeMap::new(45.0, 6.0),
            ..LookAtDesc::default_bone()
        }
    }

    #[test]
    fn left_eye_uses_outer_when_looking_left() {
        let e = asym().eye_angles(45.0, 0.0);
        assert!((e.left_yaw - 6.0).abs() < 1e-5);
        assert!((e.right_yaw - 4.0).abs() < 1e-5);
        let e = asym().eye_angles(-45.0, 0.0);
        assert!((e.left_yaw + 4.0).abs() < 1e-5);
        assert!((e.right_yaw + 6.0).abs() < 1e-5);
    }

    #[test]
    fn pitch_down_uses_vertical_down_and_up_saturates() {
        let d = asym();
        assert!((d.eye_angles(0.0, 45.0).pitch - 5.0).abs() < 1e-5);
        assert!((d.eye_angles(0.0, -90.0).pitch + 6.0).abs() < 1e-5);
    }

    #[test]
    fn rotation_signs_follow_vrm() {
        let fwd = Vec3::Z;
        let left = eye_rotation(30.0, 0.0) * fwd;
        assert!(
            left.x > 0.4,
            "yaw > 0 looks toward +X (avatar left): {left}"
        );
        let down = eye_rotation(0.0, 30.0) * fwd;
        assert!(down.y < -0.4, "pitch > 0 looks down: {down}");
    }

    #[test]
    fn expression_weights_pick_one_side() {
        let d = LookAtDesc::default_expression();
        let w = d.expression_weights(-45.0, -90.0);
        assert_eq!((w.left, w.down), (0.0, 0.0));
        assert!((w.right - 0.5).abs() < 1e-6 && (w.up - 1.0).abs() < 1e-6);
    }

    #[test]
    fn zero_input_max_does_not_divide_by_zero() {
        let m = LookAtRangeMap::new(0.0, 10.0);
        assert!(m.map(5.0).is_finite());
        assert!(!LookAtRangeMap::new(f32::NAN, 1.0).is_valid());
        assert!(!LookAtRangeMap::new(90.0, -1.0).is_valid());
    }
}
