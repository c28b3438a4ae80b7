//! The facial transformation matrix (head pose), as MediaPipe's face-geometry
//! pipeline computes it (`geometry_pipeline.cc`, `procrustes_solver.cc`) from the
//! canonical face model in `face_geometry.json` (decoded from the
//! `geometry_pipeline_metadata_landmarks.binarypb` of `face_landmarker.task`).
//!
//! The matrix maps the canonical face model (centimetres, +y up, +z out of the
//! face towards the viewer) into a metric camera frame: a perspective camera at the
//! origin looking down -z, vertical field of view 63°, near plane 1. It is
//! `[s·R | t]` with `R` the head rotation, `s` ≈ 1 and `t` the head position in cm
//! (z negative, in front of the camera).
//!
//! Steps (first 468 landmarks, normalised):
//! 1. Screen to near plane: `y := 1 - y`, `x := x·w_near - w_near/2`,
//!    `y := y·h_near - h_near/2`, `z := z·w_near`, with
//!    `h_near = 2·tan(31.5°)`, `w_near = h_near·W/H`.
//! 2. A first Procrustes fit of the canonical model onto `(x, y, -z)` gives the
//!    scale `s1`; unprojecting with depth `z' = (z - mean z + 1)/s1`
//!    (`x' = x·z'`, `y' = y·z'`, `z := -z'`) and fitting again gives `s2`.
//! 3. Unprojecting the original points with `s1·s2` and fitting once more gives
//!    the matrix.
//!
//! Procrustes uses the 33 weighted landmarks of the metadata's
//! `procrustes_landmark_basis`.

use serde::Deserialize;

use crate::error::{Result, TrackerError};
use crate::procrustes::weighted_procrustes;

/// File name of the geometry metadata.
pub const GEOMETRY_FILE: &str = "face_geometry.json";

/// Number of canonical mesh vertices (the landmarks the geometry uses).
pub const NUM_MESH_VERTICES: usize = 468;

/// Vertical field of view of MediaPipe's default perspective camera, degrees.
pub const VERTICAL_FOV_DEG: f64 = 63.0;

/// Near plane of MediaPipe's default perspective camera.
pub const NEAR: f64 = 1.0;

#[derive(Deserialize)]
struct GeometryJson {
    input_source: String,
    procrustes_landmark_basis: Vec<(usize, f64)>,
    canonical_mesh: MeshJson,
}

#[derive(Deserialize)]
struct MeshJson {
    positions_cm: Vec<[f64; 3]>,
}

/// The canonical face model and Procrustes weights; computes head poses.
#[derive(Debug, Clone)]
pub struct FaceGeometry {
    canonical: Vec<[f64; 3]>,
    weights: Vec<f64>,
    scratch: Vec<[f64; 3]>,
}

impl FaceGeometry {
    /// Parses the contents of `face_geometry.json`.
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |message: String| TrackerError::Geometry {
            file: GEOMETRY_FILE,
            message,
        };
        let g: GeometryJson = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if g.input_source != "FACE_LANDMARK_PIPELINE" {
            return Err(bad(format!(
                "input_source is {}, expected FACE_LANDMARK_PIPELINE",
                g.input_source
            )));
        }
        if g.canonical_mesh.positions_cm.len() != NUM_MESH_VERTICES {
            return Err(bad(format!(
                "canonical_mesh has {} vertices, expected {NUM_MESH_VERTICES}",
                g.canonical_mesh.positions_cm.len()
            )));
        }
        let mut weights = vec![0.0; NUM_MESH_VERTICES];
        for &(i, w) in &g.procrustes_landmark_basis {
            if i >= NUM_MESH_VERTICES || !w.is_finite() || w < 0.0 {
                return Err(bad(format!(
                    "bad procrustes_landmark_basis entry ({i}, {w})"
                )));
            }
            weights[i] = w;
        }
        if weights.iter().sum::<f64>() <= 0.0 {
            return Err(bad("procrustes_landmark_basis is empty".into()));
        }
        Ok(Self {
            canonical: g.canonical_mesh.positions_cm,
            weights,
            scratch: vec![[0.0; 3]; NUM_MESH_VERTICES],
        })
    }

    /// The canonical mesh vertex positions in cm.
    pub fn canonical_vertices(&self) -> &[[f64; 3]] {
        &self.canonical
    }

    fn fit_scale(&self, points: &[[f64; 3]]) -> Option<f64> {
        let s = weighted_procrustes(&self.canonical, points, &self.weights)?.scale;
        (s.is_finite() && s > 0.0).then_some(s)
    }

    fn unproject(&mut self, screen: &[[f64; 3]], depth_offset: f64, scale: f64) {
        for (dst, p) in self.scratch.iter_mut().zip(screen) {
            let z = (p[2] - depth_offset + NEAR) / scale;
            *dst = [p[0] * z / NEAR, p[1] * z / NEAR, -z];
        }
    }

    /// The facial transformation matrix (row-major 4x4) of `landmarks` (at least
    /// [`NUM_MESH_VERTICES`] normalised points) in a `width` x `height` image.
    /// `None` if the landmarks are degenerate (too few, not finite, collapsed).
    pub fn transform(
        &mut self,
        landmarks: &[[f32; 3]],
        width: u32,
        height: u32,
    ) -> Option<[[f64; 4]; 4]> {
        if landmarks.len() < NUM_MESH_VERTICES {
            return None;
        }
        let h_near = 2.0 * NEAR * (0.5 * VERTICAL_FOV_DEG.to_radians()).tan();
        let w_near = f64::from(width) * h_near / f64::from(height);
        let screen: Vec<[f64; 3]> = landmarks[..NUM_MESH_VERTICES]
            .iter()
            .map(|p| {
                [
                    f64::from(p[0]) * w_near - 0.5 * w_near,
                    (1.0 - f64::from(p[1])) * h_near - 0.5 * h_near,
                    f64::from(p[2]) * w_near,
                ]
            })
            .collect();
        if !screen.iter().flatten().all(|v| v.is_finite()) {
            return None;
        }
        let depth_offset = screen.iter().map(|p| p[2]).sum::<f64>() / NUM_MESH_VERTICES as f64;
        let flipped: Vec<[f64; 3]> = screen.iter().map(|p| [p[0], p[1], -p[2]]).collect();
        let s1 = self.fit_scale(&flipped)?;
        self.unproject(&screen, depth_offset, s1);
        let s2 = self.fit_scale(&self.scratch)?;
        self.unproject(&screen, depth_offset, s1 * s2);
        let sim = weighted_procrustes(&self.canonical, &self.scratch, &self.weights)?;
        Some(sim.to_matrix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_metadata() {
        let e = FaceGeometry::from_json("{}").unwrap_err().to_string();
        assert!(e.starts_with("face_geometry.json: "), "{e}");
        let e = FaceGeometry::from_json(
            r#"{"input_source":"FACE_LANDMARK_PIPELINE","procrustes_landmark_basis":[[1,1.0]],"canonical_mesh":{"positions_cm":[[0,0,0]]}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("1 vertices"), "{e}");
    }

    #[test]
    fn degenerate_landmarks_give_none() {
        let mut g = FaceGeometry::from_json(crate::models::FACE_GEOMETRY_JSON).unwrap();
        assert!(g.transform(&[[0.5, 0.5, 0.0]; 478], 640, 480).is_none());
        assert!(g.transform(&[[0.5, 0.5, 0.0]; 10], 640, 480).is_none());
        let mut lm = vec![[0.5f32, 0.5, 0.0]; 478];
        lm[0] = [f32::NAN, 0.0, 0.0];
        assert!(g.transform(&lm, 640, 480).is_none());
    }

    #[test]
    fn canonical_face_in_front_of_camera_is_upright() {
        // Project the canonical mesh, placed 50 cm in front of the camera, to the
        // screen; the recovered pose is the identity rotation at z = -50.
        let mut g = FaceGeometry::from_json(crate::models::FACE_GEOMETRY_JSON).unwrap();
        let (w, h) = (640u32, 480u32);
        let h_near = 2.0 * (0.5 * VERTICAL_FOV_DEG.to_radians()).tan();
        let w_near = f64::from(w) * h_near / f64::from(h);
        let lm: Vec<[f32; 3]> = g
            .canonical_vertices()
            .iter()
            .map(|p| {
                let z = p[2] - 50.0;
                let (x, y) = (p[0] / -z, p[1] / -z);
                [
                    ((x + 0.5 * w_near) / w_near) as f32,
                    (1.0 - (y + 0.5 * h_near) / h_near) as f32,
                    (-p[2] / 50.0 / w_near) as f32,
                ]
            })
            .collect();
        let m = g.transform(&lm, w, h).unwrap();
        for r in 0..3 {
            for c in 0..3 {
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((m[r][c] - want).abs() < 0.05, "{m:?}");
            }
        }
        assert!((m[2][3] + 50.0).abs() < 2.0, "{m:?}");
    }
}
