//! Tracking input: what a face tracker reports for one frame.
//!
//! The shapes mirror MediaPipe FaceLandmarker's output as written by `omote track` (and
//! by MediaPipe's Python API in `../shared/data/tracking`):
//!
//! ```json
//! {"width": 640, "height": 480, "t": 0.033,
//!  "faces": [{"landmarks": [[x, y, z], ... 478],
//!             "blendshapes": {"_neutral": 0.0, "browDownLeft": 0.01, ... 52},
//!             "transform": [16 floats, row-major 4x4]}]}
//! ```
//! Landmarks are normalised image coordinates (x / width, y / height, y down; z is depth
//! in the scale of x, negative toward the camera). Blendshape names are ARKit's and
//! refer to the *subject's* left and right. The transform maps MediaPipe's canonical
//! face into camera space (x right, y up, z toward the viewer; centimetres), so its
//! rotation is directly a head rotation in the VRM frame for an unmirrored image.
//! A frame with `"faces": []` is valid input (no face this frame).

use std::collections::BTreeMap;

use glam::{Mat3, Quat};
use serde::{Deserialize, Serialize};

use crate::rig::arkit::ARKIT_52;

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
        ARKIT_52
            .iter()
            .position(|n| *n == name)
            .map_or(0.0, |i| self.0[i])
    }

    /// Set a score by ARKit name; returns false for an unknown name.
    pub fn set(&mut self, name: &str, value: f32) -> bool {
        match ARKIT_52.iter().position(|n| *n == name) {
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
                let j = ARKIT_52
                    .iter()
                    .position(|n| n.strip_suffix("Right") == Some(stem))
                    .expect("every Left shape has a Right twin");
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

/// One tracked face.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrackedFace {
    /// Landmarks in normalised image coordinates (478 for MediaPipe; may be empty for
    /// ARKit-style sources).
    #[serde(default)]
    pub landmarks: Vec<[f32; 3]>,
    /// The 52 blendshape scores.
    #[serde(default)]
    pub blendshapes: Blendshapes,
    /// Row-major 4×4 facial transformation matrix, when the tracker gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<[f32; 16]>,
}

/// One frame of tracker output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrackingFrame {
    /// Frame number in a sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// Time in seconds, in a sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// Image width in pixels (landmarks are scaled by it).
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Faces found (at most one is used).
    #[serde(default)]
    pub faces: Vec<TrackedFace>,
}

/// An ARKit-52 frame from an iPhone-style tracker: scores by name and an optional head
/// rotation (quaternion `[x, y, z, w]` in the VRM frame).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArkitFrame {
    /// Time in seconds.
    #[serde(default)]
    pub t: Option<f64>,
    /// Scores by ARKit name.
    pub blendshapes: Blendshapes,
    /// Head rotation, if tracked.
    #[serde(default)]
    pub head: Option<[f32; 4]>,
}

impl ArkitFrame {
    /// As a tracked face (no landmarks; the head rotation becomes the transform).
    pub fn to_tracked_face(&self) -> TrackedFace {
        let transform = self.head.map(|q| {
            let m = Mat3::from_quat(Quat::from_array(q).normalize());
            // Row-major 4x4 with no translation.
            let c = m.to_cols_array_2d();
            [
                c[0][0], c[1][0], c[2][0], 0.0, c[0][1], c[1][1], c[2][1], 0.0, c[0][2], c[1][2],
                c[2][2], 0.0, 0.0, 0.0, 0.0, 1.0,
            ]
        });
        TrackedFace {
            landmarks: Vec::new(),
            blendshapes: self.blendshapes,
            transform,
        }
    }
}

impl TrackedFace {
    /// The head rotation in the transform matrix (VRM frame, unmirrored), if any.
    pub fn transform_rotation(&self) -> Option<Quat> {
        let m = self.transform?;
        if !m.iter().all(|v| v.is_finite()) {
            return None;
        }
        // Row-major → columns.
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
    fn arkit_head_round_trips_through_the_transform() {
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.2, 0.1);
        let f = ArkitFrame {
            t: None,
            blendshapes: Blendshapes::default(),
            head: Some(q.to_array()),
        };
        let back = f.to_tracked_face().transform_rotation().unwrap();
        assert!(back.angle_between(q) < 1e-4);
    }
}
