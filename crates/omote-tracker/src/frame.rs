//! [`LandmarkerFrame`]: one frame's tracking result, serialised exactly like
//! MediaPipe FaceLandmarker's output in the shared reference files
//! (`shared/data/tracking/*.mediapipe.json`, `astronaut_sequence.jsonl`).
//!
//! ```json
//! {"image": "astronaut.png", "width": 512, "height": 512,
//!  "faces": [{"landmarks": [[x, y, z], ... 478],
//!             "blendshapes": {"_neutral": s, "browDownLeft": s, ... 52},
//!             "transform": [16 floats, row-major]}]}
//! ```
//!
//! Landmarks are normalised: x / width, y / height with pixel centres at integer
//! pixel coordinates; z is relative depth in the scale of x (negative = towards the
//! camera). The transform is the 4x4 facial transformation matrix, row-major, with
//! the translation in cm in elements 3, 7, 11 (see [`crate::geometry`]).

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Number of face landmarks (468 mesh points + 10 iris points).
pub const NUM_LANDMARKS: usize = 478;

/// Number of blendshape scores (`_neutral` + the 51 ARKit names MediaPipe outputs).
pub const NUM_BLENDSHAPES: usize = 52;

/// MediaPipe's blendshape names in its output order (`_neutral` first; ARKit's
/// `tongueOut` is not produced).
pub const BLENDSHAPE_NAMES: [&str; NUM_BLENDSHAPES] = [
    "_neutral",
    "browDownLeft",
    "browDownRight",
    "browInnerUp",
    "browOuterUpLeft",
    "browOuterUpRight",
    "cheekPuff",
    "cheekSquintLeft",
    "cheekSquintRight",
    "eyeBlinkLeft",
    "eyeBlinkRight",
    "eyeLookDownLeft",
    "eyeLookDownRight",
    "eyeLookInLeft",
    "eyeLookInRight",
    "eyeLookOutLeft",
    "eyeLookOutRight",
    "eyeLookUpLeft",
    "eyeLookUpRight",
    "eyeSquintLeft",
    "eyeSquintRight",
    "eyeWideLeft",
    "eyeWideRight",
    "jawForward",
    "jawLeft",
    "jawOpen",
    "jawRight",
    "mouthClose",
    "mouthDimpleLeft",
    "mouthDimpleRight",
    "mouthFrownLeft",
    "mouthFrownRight",
    "mouthFunnel",
    "mouthLeft",
    "mouthLowerDownLeft",
    "mouthLowerDownRight",
    "mouthPressLeft",
    "mouthPressRight",
    "mouthPucker",
    "mouthRight",
    "mouthRollLower",
    "mouthRollUpper",
    "mouthShrugLower",
    "mouthShrugUpper",
    "mouthSmileLeft",
    "mouthSmileRight",
    "mouthStretchLeft",
    "mouthStretchRight",
    "mouthUpperUpLeft",
    "mouthUpperUpRight",
    "noseSneerLeft",
    "noseSneerRight",
];

/// One frame (or still image) and the faces found in it.
///
/// Optional fields are written only when set: `image` for stills, `frame`, `t` and
/// `timestamp_ms` for video; unknown fields (`source`, `mediapipe`) are ignored when
/// reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LandmarkerFrame {
    /// File name of the still image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Frame index in a sequence (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// Frame time in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// Frame time in whole milliseconds, as passed to the tracker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_ms: Option<i64>,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// The faces found (empty when none; at most one with the default settings).
    pub faces: Vec<LandmarkerFace>,
}

/// One tracked face.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LandmarkerFace {
    /// [`NUM_LANDMARKS`] points `[x / width, y / height, z]` (see the module docs).
    pub landmarks: Vec<[f32; 3]>,
    /// The 52 blendshape scores in `[0, 1]`.
    pub blendshapes: LandmarkerBlendshapes,
    /// Facial transformation matrix, row-major 4x4 (scale·rotation | translation cm).
    pub transform: [f32; 16],
}

/// The 52 blendshape scores, indexed like [`BLENDSHAPE_NAMES`]. Serialised as a JSON
/// object from name to score, in that order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LandmarkerBlendshapes(pub [f32; NUM_BLENDSHAPES]);

impl LandmarkerBlendshapes {
    /// The score of `name` (a MediaPipe/ARKit name such as `jawOpen`), if it is one.
    pub fn get(&self, name: &str) -> Option<f32> {
        BLENDSHAPE_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| self.0[i])
    }

    /// `(name, score)` pairs in MediaPipe's order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f32)> + '_ {
        BLENDSHAPE_NAMES.iter().copied().zip(self.0.iter().copied())
    }
}

impl Default for LandmarkerBlendshapes {
    fn default() -> Self {
        Self([0.0; NUM_BLENDSHAPES])
    }
}

impl Serialize for LandmarkerBlendshapes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(NUM_BLENDSHAPES))?;
        for (name, score) in self.iter() {
            map.serialize_entry(name, &score)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for LandmarkerBlendshapes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScoresVisitor;
        impl<'de> Visitor<'de> for ScoresVisitor {
            type Value = LandmarkerBlendshapes;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping the 52 MediaPipe blendshape names to scores")
            }

            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LandmarkerBlendshapes, A::Error> {
                let mut scores = [0.0f32; NUM_BLENDSHAPES];
                let mut seen = [false; NUM_BLENDSHAPES];
                while let Some(name) = map.next_key::<String>()? {
                    let Some(i) = BLENDSHAPE_NAMES.iter().position(|n| *n == name) else {
                        return Err(serde::de::Error::custom(format!(
                            "unknown blendshape name `{name}`"
                        )));
                    };
                    scores[i] = map.next_value()?;
                    seen[i] = true;
                }
                if let Some(i) = seen.iter().position(|s| !s) {
                    return Err(serde::de::Error::custom(format!(
                        "blendshape `{}` is missing",
                        BLENDSHAPE_NAMES[i]
                    )));
                }
                Ok(LandmarkerBlendshapes(scores))
            }
        }
        deserializer.deserialize_map(ScoresVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face() -> LandmarkerFace {
        let mut b = LandmarkerBlendshapes::default();
        b.0[25] = 0.5;
        LandmarkerFace {
            landmarks: vec![[0.25, 0.5, -0.01]; NUM_LANDMARKS],
            blendshapes: b,
            transform: [
                1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 1.0, -40.0, 0.0, 0.0, 0.0, 1.0,
            ],
        }
    }

    #[test]
    fn round_trips_and_keeps_mediapipe_layout() {
        let frame = LandmarkerFrame {
            image: Some("a.png".into()),
            frame: None,
            t: None,
            timestamp_ms: None,
            width: 4,
            height: 3,
            faces: vec![face()],
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert!(text.starts_with(
            r#"{"image":"a.png","width":4,"height":3,"faces":[{"landmarks":[[0.25,0.5,-0.01],"#
        ));
        assert!(text.contains(r#""blendshapes":{"_neutral":0.0,"browDownLeft":0.0,"#));
        assert!(!text.contains("timestamp_ms"));
        let back: LandmarkerFrame = serde_json::from_str(&text).unwrap();
        assert_eq!(back, frame);
        assert_eq!(back.faces[0].blendshapes.get("jawOpen"), Some(0.5));
        assert_eq!(back.faces[0].blendshapes.get("tongueOut"), None);
    }

    #[test]
    fn reads_reference_layout_and_rejects_bad_names() {
        let mut shapes = String::new();
        for (i, n) in BLENDSHAPE_NAMES.iter().enumerate() {
            if i > 0 {
                shapes.push(',');
            }
            shapes.push_str(&format!("\"{n}\":0.1"));
        }
        let text = format!(
            r#"{{"frame":3,"t":0.1,"timestamp_ms":100,"width":640,"height":480,"faces":[{{"landmarks":[[0,0,0]],"blendshapes":{{{shapes}}},"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}}],"mediapipe":"0.10.21"}}"#
        );
        let f: LandmarkerFrame = serde_json::from_str(&text).unwrap();
        assert_eq!(f.frame, Some(3));
        assert_eq!(f.faces[0].blendshapes.0[51], 0.1);
        let bad = text.replace("noseSneerRight", "noseSneerRite");
        let err = serde_json::from_str::<LandmarkerFrame>(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("noseSneerRite"), "{err}");
    }
}
