//! The core's tracking input: what a face tracker reports for one frame, in the form
//! every tracker can give — the 52 ARKit blendshape scores (MediaPipe FaceLandmarker,
//! iPhone ARKit, VMC "perfect sync" senders all use these names) and, when the tracker
//! has one, the head rotation. A frame without a face is `None` at the call site
//! ([`Retargeter::update`](crate::tracking::Retargeter::update), [`DriverInputs::tracking`](crate::DriverInputs)).
//!
//! Image-space data (landmarks, image size) stays with the tracker and its file readers:
//! `omote-tracker` and `omote-config` turn MediaPipe's output into this.
//! Blendshape names refer to the *subject's* left and right.

use std::collections::BTreeMap;

use glam::{Mat3, Quat};
use serde::{Deserialize, Serialize};

use crate::rig::arkit::{ARKIT_52, arkit_index};

/// The 52 ARKit blendshape scores, indexed like [`ARKIT_52`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blendshapes(pub [f32; 52]);

impl Default for Blendshapes {
    fn default() -> Self {
        Self([0.0; 52])
    }
}

impl Blendshapes {
    /// Score by ARKit name (0 for an unknown name).
    pub fn get(&self, name: &str) -> f32 {
        arkit_index(name).map_or(0.0, |i| self.0[i])
    }

    /// Set a score by ARKit name; returns false for an unknown name.
    pub fn set(&mut self, name: &str, value: f32) -> bool {
        match arkit_index(name) {
            Some(i) => {
                self.0[i] = value;
                true
            }
            None => false,
        }
    }

    /// The same face seen in a mirror: every `…Left` score swapped with its `…Right`.
    pub fn mirrored(&self) -> Self {
        let mut out = *self;
        for (i, name) in ARKIT_52.iter().enumerate() {
            if let Some(stem) = name.strip_suffix("Left") {
                let twin = ARKIT_52
                    .iter()
                    .position(|n| n.strip_suffix("Right") == Some(stem));
                let Some(j) = twin else { continue };
                out.0[i] = self.0[j];
                out.0[j] = self.0[i];
            }
        }
        out
    }
}

impl Serialize for Blendshapes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<&str, f32> = ARKIT_52.iter().copied().zip(self.0).collect();
        map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Blendshapes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Names outside ARKit's 52 (MediaPipe's `_neutral`) are ignored; missing ones are 0.
        let map = BTreeMap::<String, f32>::deserialize(d)?;
        let mut out = Self::default();
        for (name, value) in map {
            if !value.is_finite() {
                return Err(serde::de::Error::custom(format!(
                    "blendshape `{name}` is not finite"
                )));
            }
            out.set(&name, value);
        }
        Ok(out)
    }
}

/// One tracked face: ARKit-52 scores and the head rotation, if the tracker gives one.
///
/// ```
/// use omote_core::{Quat, TrackedFace};
/// let mut face = TrackedFace::default();
/// face.blendshapes.set("jawOpen", 0.4);
/// face.head = Some(Quat::from_rotation_y(0.2)); // turned toward the avatar's left
/// assert_eq!(face.blendshapes.get("jawOpen"), 0.4);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrackedFace {
    /// The 52 blendshape scores (0..1; out-of-range and NaN values are clamped by the
    /// retargeter).
    pub blendshapes: Blendshapes,
    /// Head rotation relative to the camera, VRM frame (+Y up, +Z toward the viewer),
    /// as seen by an unmirrored camera; `None` when the tracker has no head pose.
    pub head: Option<Quat>,
}

impl TrackedFace {
    /// The rotation part of a row-major 4×4 head transform (a similarity: uniform scale ×
    /// rotation | translation), such as MediaPipe's facial transformation matrix or an
    /// ARKit face anchor's transform. `None` if it is not finite or not a proper rotation.
    pub fn head_from_row_major(m: &[f32; 16]) -> Option<Quat> {
        if !m.iter().all(|v| v.is_finite()) {
            return None;
        }
        let cols = Mat3::from_cols_array(&[m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]]);
        // Remove any uniform scale, then take the nearest rotation.
        let det = cols.determinant();
        if !(det.is_finite() && det > 1e-9) {
            return None;
        }
        let q = Quat::from_mat3(&(cols * det.cbrt().recip()));
        crate::smoothing::normalize_quat(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blendshapes_parse_ignore_neutral_and_mirror() {
        let b: Blendshapes =
            serde_json::from_str(r#"{"_neutral": 0.5, "eyeBlinkLeft": 0.9, "jawOpen": 0.3}"#)
                .unwrap();
        assert_eq!(b.get("eyeBlinkLeft"), 0.9);
        assert_eq!(b.get("jawOpen"), 0.3);
        let m = b.mirrored();
        assert_eq!((m.get("eyeBlinkLeft"), m.get("eyeBlinkRight")), (0.0, 0.9));
        assert_eq!(m.get("jawOpen"), 0.3);
        assert!(serde_json::from_str::<Blendshapes>(r#"{"jawOpen": "x"}"#).is_err());
    }

    #[test]
    fn head_round_trips_through_a_row_major_transform() {
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.2, 0.1);
        let c = (Mat3::from_quat(q) * 2.0).to_cols_array_2d();
        let m = [
            c[0][0], c[1][0], c[2][0], 1.0, c[0][1], c[1][1], c[2][1], 2.0, c[0][2], c[1][2],
            c[2][2], 3.0, 0.0, 0.0, 0.0, 1.0,
        ];
        let back = TrackedFace::head_from_row_major(&m).unwrap();
        assert!(back.angle_between(q) < 1e-3, "{back:?} vs {q:?}");
        let mut bad = m;
        bad[5] = f32::NAN;
        assert!(TrackedFace::head_from_row_major(&bad).is_none());
        assert!(TrackedFace::head_from_row_major(&[0.0; 16]).is_none());
    }
}
