//! [`Roi`]: the rotated rectangle the landmark model looks at, and how MediaPipe
//! derives it from a detection (`DetectionsToRects` + `RectTransformation` in
//! `face_detector_graph.cc`) or from the previous frame's landmarks
//! (`face_landmarks_detector_graph.cc`).

use std::f32::consts::PI;

use crate::detector::Detection;

/// A rotated rectangle in normalised image coordinates (MediaPipe's
/// `NormalizedRect`): centre and size as fractions of the image width/height,
/// rotation in radians (positive turns the rectangle clockwise on screen, as the
/// image y axis points down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roi {
    /// Centre x / image width.
    pub cx: f32,
    /// Centre y / image height.
    pub cy: f32,
    /// Width / image width.
    pub width: f32,
    /// Height / image height.
    pub height: f32,
    /// Rotation in radians, in `[-π, π)`.
    pub rotation: f32,
}

/// Wraps an angle into `[-π, π)` (MediaPipe's `NormalizeRadians`).
pub fn normalize_radians(a: f32) -> f32 {
    a - 2.0 * PI * ((a + PI) / (2.0 * PI)).floor()
}

/// The rotation that makes the line from `p0` to `p1` (pixels) horizontal
/// (MediaPipe's `ComputeRotation` with a target angle of 0).
fn rotation_from(p0: [f32; 2], p1: [f32; 2]) -> f32 {
    normalize_radians(-(-(p1[1] - p0[1])).atan2(p1[0] - p0[0]))
}

impl Roi {
    /// The landmark ROI for a detection in an image of `width` x `height` pixels:
    /// the box centre, the box size x 1.5 (not squared), rotated so the eyes
    /// (keypoints 0 and 1) are level.
    pub fn from_detection(d: &Detection, width: u32, height: u32) -> Self {
        let (w, h) = (width as f32, height as f32);
        let [x0, y0, x1, y1] = d.bbox;
        let k0 = [d.keypoints[0][0] * w, d.keypoints[0][1] * h];
        let k1 = [d.keypoints[1][0] * w, d.keypoints[1][1] * h];
        Self {
            cx: (x0 + x1) / 2.0,
            cy: (y0 + y1) / 2.0,
            width: (x1 - x0) * 1.5,
            height: (y1 - y0) * 1.5,
            rotation: rotation_from(k0, k1),
        }
    }

    /// The next frame's ROI from this frame's (unsmoothed, normalised) landmarks:
    /// their axis-aligned bounding box, squared on its longer side in pixels and
    /// scaled by 1.5, rotated so landmarks 33 -> 263 (the outer eye corners) are
    /// level. `None` if there are fewer than 264 landmarks or they are not finite.
    pub fn from_landmarks(landmarks: &[[f32; 3]], width: u32, height: u32) -> Option<Self> {
        if landmarks.len() <= 263 {
            return None;
        }
        let (w, h) = (width as f32, height as f32);
        let (mut x0, mut y0) = (f32::INFINITY, f32::INFINITY);
        let (mut x1, mut y1) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
        for p in landmarks {
            x0 = x0.min(p[0]);
            x1 = x1.max(p[0]);
            y0 = y0.min(p[1]);
            y1 = y1.max(p[1]);
        }
        let (p0, p1) = (landmarks[33], landmarks[263]);
        let rotation = rotation_from([p0[0] * w, p0[1] * h], [p1[0] * w, p1[1] * h]);
        let long = ((x1 - x0) * w).max((y1 - y0) * h);
        let roi = Self {
            cx: (x0 + x1) / 2.0,
            cy: (y0 + y1) / 2.0,
            width: long / w * 1.5,
            height: long / h * 1.5,
            rotation,
        };
        roi.is_usable().then_some(roi)
    }

    /// Whether every number is finite and the size positive.
    pub fn is_usable(&self) -> bool {
        [self.cx, self.cy, self.width, self.height, self.rotation]
            .iter()
            .all(|v| v.is_finite())
            && self.width > 0.0
            && self.height > 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_into_half_open_range() {
        assert!((normalize_radians(3.0 * PI / 2.0) + PI / 2.0).abs() < 1e-6);
        assert!((normalize_radians(-PI) + PI).abs() < 1e-6);
        assert!((normalize_radians(0.3) - 0.3).abs() < 1e-7);
    }

    #[test]
    fn rotation_levels_the_eyes() {
        // Right eye lower than left on screen (y down): the face is turned
        // counter-clockwise on screen, the ROI rotation is negative.
        let r = rotation_from([0.0, 10.0], [10.0, 0.0]);
        assert!((r + PI / 4.0).abs() < 1e-6, "{r}");
        assert_eq!(rotation_from([0.0, 0.0], [10.0, 0.0]), 0.0);
    }

    #[test]
    fn from_detection_scales_box() {
        let d = Detection {
            score: 0.9,
            bbox: [0.2, 0.3, 0.4, 0.6],
            keypoints: [
                [0.25, 0.4],
                [0.35, 0.4],
                [0.3, 0.45],
                [0.3, 0.5],
                [0.2, 0.4],
                [0.4, 0.4],
            ],
        };
        let r = Roi::from_detection(&d, 100, 100);
        assert!((r.cx - 0.3).abs() < 1e-6 && (r.cy - 0.45).abs() < 1e-6);
        assert!((r.width - 0.3).abs() < 1e-6 && (r.height - 0.45).abs() < 1e-6);
        assert_eq!(r.rotation, 0.0);
    }

    #[test]
    fn from_landmarks_squares_the_long_side() {
        let mut lm = vec![[0.5f32, 0.5, 0.0]; 478];
        lm[0] = [0.4, 0.2, 0.0];
        lm[1] = [0.6, 0.8, 0.0];
        lm[33] = [0.45, 0.5, 0.0];
        lm[263] = [0.55, 0.5, 0.0];
        let r = Roi::from_landmarks(&lm, 200, 100).unwrap();
        // box 40 x 60 px -> 60 px square -> x1.5 = 90 px
        assert!(
            (r.width - 0.45).abs() < 1e-6 && (r.height - 0.9).abs() < 1e-6,
            "{r:?}"
        );
        assert!(Roi::from_landmarks(&lm[..100], 200, 100).is_none());
        lm[33] = [f32::NAN, 0.5, 0.0];
        assert!(Roi::from_landmarks(&lm, 200, 100).is_none());
    }
}
