//! MediaPipe FaceLandmarker's output as files carry it (`omote track`, MediaPipe's own
//! Python API) and its conversion to the core's [`TrackedFace`]: the head rotation comes
//! from the facial transformation matrix or, without one, from four landmarks (seed
//! 000's construction). Image-space data stays here; the core never sees it.
//!
//! ```json
//! {"width": 640, "height": 480, "t": 0.033,
//!  "faces": [{"landmarks": [[x, y, z], ... 478],
//!             "blendshapes": {"_neutral": 0.0, "browDownLeft": 0.01, ... 52},
//!             "transform": [16 floats, row-major 4x4]}]}
//! ```
//! Landmarks are normalised image coordinates (x / width, y / height, y down; z is depth
//! in the scale of x, negative toward the camera). Blendshape names are ARKit's; missing
//! ones read as 0 and `_neutral` is ignored. The transform maps MediaPipe's canonical
//! face into camera space (x right, y up, z toward the viewer), so its rotation is a head
//! rotation in the VRM frame for an unmirrored image. `"faces": []` is a frame without a
//! face.

use omote_core::glam::{Mat3, Vec3};
use omote_core::smoothing::normalize_quat;
use omote_core::tracking::Blendshapes;
use omote_core::{Quat, TrackedFace};
use serde::{Deserialize, Serialize};

/// Where a MediaPipe face's head rotation comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HeadSource {
    /// The transform matrix when present, else landmarks.
    #[default]
    Auto,
    /// Only the transform matrix (a metric fit of all landmarks: the steadiest).
    Transform,
    /// Only landmarks (the method of docs/design.md § Tracking).
    Landmarks,
}

/// One face in a MediaPipe frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MediaPipeFace {
    /// Landmarks in normalised image coordinates (478; may be empty).
    #[serde(default)]
    pub landmarks: Vec<[f32; 3]>,
    /// The 52 blendshape scores.
    #[serde(default)]
    pub blendshapes: Blendshapes,
    /// Row-major 4×4 facial transformation matrix, when the tracker gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<[f32; 16]>,
}

/// Landmarks in a MediaPipe face mesh: 478 with the irises, 468 without.
pub const LANDMARK_COUNTS: [usize; 2] = [478, 468];

impl MediaPipeFace {
    /// Whether the landmarks can be MediaPipe's: none (blendshapes alone) or a whole mesh
    /// ([`LANDMARK_COUNTS`]). Any other count is refused with why: the landmark head reads
    /// fixed indices, so a short list (10 landmarks) would freeze the head, not move it.
    pub fn check_landmark_count(&self) -> Result<(), String> {
        let n = self.landmarks.len();
        if n == 0 || LANDMARK_COUNTS.contains(&n) {
            Ok(())
        } else {
            Err(format!(
                "{n} landmarks, not MediaPipe's 478 (or 468 without irises)"
            ))
        }
    }
}

/// One frame of MediaPipe output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MediaPipeFrame {
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
    /// Faces found (the first one is used).
    #[serde(default)]
    pub faces: Vec<MediaPipeFace>,
}

/// One frame of any tracking sequence as the core takes it: its time, and the face if
/// one was found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SequenceFrame {
    /// Time in seconds, when the file gives it.
    pub t: Option<f64>,
    /// The tracked face; `None` when the frame has none.
    pub face: Option<TrackedFace>,
}

/// The longest pause between two frames of a replayed sequence (an hour: a take has
/// none; a 1e12 s gap would wait for ever).
pub const MAX_REPLAY_STEP_S: f64 = 3600.0;

/// A tracking sequence as a replay's `(time, face)` pairs: each frame's `t` where given,
/// else its index / `fps`. Times must be finite, must not decrease and may step at most
/// [`MAX_REPLAY_STEP_S`]; the error names the frame (from 1) and the time.
pub fn replay_sequence(
    frames: &[SequenceFrame],
    fps: f64,
) -> Result<Vec<(f64, Option<TrackedFace>)>, String> {
    let mut out = Vec::with_capacity(frames.len());
    let mut last = f64::NEG_INFINITY;
    for (i, f) in frames.iter().enumerate() {
        let t = f.t.unwrap_or(i as f64 / fps);
        if !t.is_finite() {
            return Err(format!(
                "frame {}: time {t} is not a number of seconds",
                i + 1
            ));
        }
        if t < last {
            return Err(format!(
                "frame {}: time {t} goes back (times must not decrease)",
                i + 1
            ));
        }
        if i > 0 && t - last > MAX_REPLAY_STEP_S {
            return Err(format!(
                "frame {}: time {t:e} s is {:e} s after the frame before (at most {MAX_REPLAY_STEP_S} s between two frames)",
                i + 1,
                t - last
            ));
        }
        last = t;
        out.push((t, f.face));
    }
    Ok(out)
}

impl MediaPipeFrame {
    /// Image width / height (1 for a degenerate size).
    pub fn aspect(&self) -> f32 {
        if self.height > 0 && self.width > 0 {
            self.width as f32 / self.height as f32
        } else {
            1.0
        }
    }

    /// The first face as the core's input, with the head from `source`.
    pub fn tracked(&self, source: HeadSource) -> Option<TrackedFace> {
        let aspect = self.aspect();
        self.faces.first().map(|f| f.tracked(source, aspect))
    }

    /// This frame as a sequence frame.
    pub fn to_sequence_frame(&self, source: HeadSource) -> SequenceFrame {
        SequenceFrame {
            t: self.t,
            face: self.tracked(source),
        }
    }
}

impl MediaPipeFace {
    /// The head rotation by `source`; `aspect` is the image's width / height.
    pub fn head(&self, source: HeadSource, aspect: f32) -> Option<Quat> {
        let matrix = || {
            self.transform
                .as_ref()
                .and_then(TrackedFace::head_from_row_major)
        };
        match source {
            HeadSource::Transform => matrix(),
            HeadSource::Landmarks => landmark_head(&self.landmarks, aspect),
            HeadSource::Auto => matrix().or_else(|| landmark_head(&self.landmarks, aspect)),
        }
    }

    /// As the core's input.
    pub fn tracked(&self, source: HeadSource, aspect: f32) -> TrackedFace {
        TrackedFace {
            blendshapes: self.blendshapes,
            head: self.head(source, aspect),
        }
    }
}

/// MediaPipe landmark indices used for the head frame.
const LM_FACE_LEFT: usize = 454; // subject's left cheek edge
const LM_FACE_RIGHT: usize = 234; // subject's right cheek edge
const LM_FACE_TOP: usize = 10; // forehead
const LM_FACE_BOTTOM: usize = 152; // chin

/// Seed 000's head rotation from landmarks, as one orthonormal frame: X along the face's
/// right→left vector, Y along chin→forehead, Z their cross product (facing). Landmarks
/// are converted to a y-up, z-toward-camera frame with pixels as units.
pub fn landmark_head(landmarks: &[[f32; 3]], aspect: f32) -> Option<Quat> {
    let get = |i: usize| {
        landmarks
            .get(i)
            .map(|p| Vec3::new(p[0] * aspect, -p[1], -p[2] * aspect))
    };
    let left = get(LM_FACE_LEFT)? - get(LM_FACE_RIGHT)?;
    let up = get(LM_FACE_TOP)? - get(LM_FACE_BOTTOM)?;
    if !(left.is_finite() && up.is_finite()) {
        return None;
    }
    let x = left.try_normalize()?;
    let z = x.cross(up).try_normalize()?;
    let y = z.cross(x);
    normalize_quat(Quat::from_mat3(&Mat3::from_cols(x, y, z)))
}

/// An ARKit-52 frame from an iPhone-style tracker (one line of an ARKit sequence):
/// scores by name and an optional head rotation (quaternion `[x, y, z, w]`, VRM frame).
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
    /// This frame as a sequence frame (an ARKit frame always has a face).
    pub fn to_sequence_frame(&self) -> SequenceFrame {
        SequenceFrame {
            t: self.t,
            face: Some(TrackedFace {
                blendshapes: self.blendshapes,
                head: self.head.and_then(|q| normalize_quat(Quat::from_array(q))),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_times_must_be_finite_in_order_and_without_absurd_gaps() {
        let at = |t: Option<f64>| SequenceFrame { t, face: None };
        let ok = replay_sequence(&[at(None), at(None), at(Some(5.0))], 10.0).unwrap();
        assert_eq!(ok.iter().map(|f| f.0).collect::<Vec<_>>(), [0.0, 0.1, 5.0]);
        for (frames, needle) in [
            (
                vec![at(Some(0.0)), at(Some(1e30))],
                "frame 2: time 1e30 s is 1e30 s after",
            ),
            (
                vec![at(Some(0.0)), at(Some(0.1)), at(Some(1e12))],
                "frame 3: time 1e12 s",
            ),
            (
                vec![at(Some(1.0)), at(Some(0.5))],
                "frame 2: time 0.5 goes back",
            ),
            (vec![at(Some(f64::NAN))], "frame 1: time NaN"),
        ] {
            let e = replay_sequence(&frames, 30.0).unwrap_err();
            assert!(e.contains(needle), "{e}");
        }
        // A recording stamped with the wall clock starts anywhere.
        assert!(replay_sequence(&[at(Some(1.7e9)), at(Some(1.7e9 + 0.03))], 30.0).is_ok());
    }

    #[test]
    fn only_a_whole_mesh_of_landmarks_is_mediapipe() {
        let face = |n: usize| MediaPipeFace {
            landmarks: vec![[0.5, 0.5, 0.0]; n],
            ..MediaPipeFace::default()
        };
        for n in [0, 468, 478] {
            assert!(face(n).check_landmark_count().is_ok(), "{n}");
        }
        for n in [1, 10, 467, 477, 479, 100_000] {
            let e = face(n).check_landmark_count().unwrap_err();
            assert!(e.contains(&format!("{n} landmarks")), "{e}");
        }
    }

    #[test]
    fn a_frame_reads_leniently_and_gives_the_first_face() {
        let f: MediaPipeFrame = serde_json::from_str(
            r#"{"width": 640, "height": 480, "faces": [{"blendshapes": {"_neutral": 1.0, "jawOpen": 0.5}}]}"#,
        )
        .unwrap();
        let face = f.tracked(HeadSource::Auto).unwrap();
        assert_eq!(face.blendshapes.get("jawOpen"), 0.5);
        assert!(
            face.head.is_none(),
            "no transform and no landmarks: no head"
        );
        let none: MediaPipeFrame =
            serde_json::from_str(r#"{"width": 1, "height": 1, "faces": []}"#).unwrap();
        assert!(none.tracked(HeadSource::Auto).is_none());
    }

    #[test]
    fn landmarks_facing_the_camera_give_no_rotation() {
        let mut lm = vec![[0.5f32, 0.5, 0.0]; 478];
        lm[LM_FACE_LEFT] = [0.6, 0.5, 0.0];
        lm[LM_FACE_RIGHT] = [0.4, 0.5, 0.0];
        lm[LM_FACE_TOP] = [0.5, 0.3, 0.0];
        lm[LM_FACE_BOTTOM] = [0.5, 0.7, 0.0];
        // In image space the subject's left is on the viewer's right: facing the camera.
        let q = landmark_head(&lm, 1.0).unwrap();
        assert!(q.angle_between(Quat::IDENTITY) < 1e-4, "{q:?}");
        assert!(landmark_head(&lm[..100], 1.0).is_none());
    }

    #[test]
    fn arkit_head_is_normalised_and_a_zero_quaternion_is_no_head() {
        let f = ArkitFrame {
            t: Some(0.5),
            blendshapes: Blendshapes::default(),
            head: Some([0.0, 0.0, 0.0, 2.0]),
        };
        let s = f.to_sequence_frame();
        assert_eq!(s.face.unwrap().head, Some(Quat::IDENTITY));
        let z = ArkitFrame {
            head: Some([0.0; 4]),
            ..f
        };
        assert_eq!(z.to_sequence_frame().face.unwrap().head, None);
    }
}
