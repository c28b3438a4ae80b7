//! Tracker results as the core takes them ([`omote_core::TrackedFace`]: ARKit-52 scores
//! and a head rotation), without a trip through JSON. This crate's [`LandmarkerFrame`] is
//! MediaPipe's wire layout (`_neutral` first, MediaPipe's order, landmarks, the 4×4
//! transform); the core's input is what every tracker source (this one, MediaPipe JSON
//! files read by `omote-config`, ARKit streams, VMC perfect sync) becomes before
//! retargeting.

use std::sync::OnceLock;

use omote_core::tracking::arkit_index;

use crate::frame::{BLENDSHAPE_NAMES, LandmarkerBlendshapes, LandmarkerFace, LandmarkerFrame};

/// For each MediaPipe slot, the ARKit-52 index of the same name (`None`: `_neutral`).
fn arkit_slots() -> &'static [Option<usize>; 52] {
    static SLOTS: OnceLock<[Option<usize>; 52]> = OnceLock::new();
    SLOTS.get_or_init(|| std::array::from_fn(|j| arkit_index(BLENDSHAPE_NAMES[j])))
}

impl LandmarkerBlendshapes {
    /// The scores in the core's ARKit-52 order (`tongueOut` = 0, `_neutral` dropped).
    pub fn to_core(&self) -> omote_core::tracking::Blendshapes {
        let mut out = omote_core::tracking::Blendshapes::default();
        for (score, slot) in self.0.iter().zip(arkit_slots()) {
            if let Some(i) = slot {
                out.0[*i] = *score;
            }
        }
        out
    }
}

impl LandmarkerFace {
    /// This face as the core takes it: scores in ARKit order, the head rotation from the
    /// facial transformation matrix.
    pub fn to_core(&self) -> omote_core::TrackedFace {
        omote_core::TrackedFace {
            blendshapes: self.blendshapes.to_core(),
            head: omote_core::TrackedFace::head_from_row_major(&self.transform),
        }
    }
}

impl LandmarkerFrame {
    /// The first face as the core takes it; `None` when the frame has no face.
    pub fn to_core(&self) -> Option<omote_core::TrackedFace> {
        self.faces.first().map(LandmarkerFace::to_core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_land_on_their_arkit_names_and_the_head_comes_from_the_matrix() {
        let mut b = LandmarkerBlendshapes::default();
        for (i, s) in b.0.iter_mut().enumerate() {
            *s = i as f32 / 100.0;
        }
        // A 30° turn about +Y, scaled by 1.5, 50 cm in front of the camera.
        let (s, c) = (0.5f32.sin() * 1.5, 0.5f32.cos() * 1.5);
        let transform = [
            c, 0.0, s, 0.0, 0.0, 1.5, 0.0, 0.0, -s, 0.0, c, -50.0, 0.0, 0.0, 0.0, 1.0,
        ];
        let frame = LandmarkerFrame {
            image: Some("x.png".into()),
            frame: Some(7),
            t: Some(0.25),
            timestamp_ms: Some(250),
            width: 640,
            height: 480,
            faces: vec![LandmarkerFace {
                landmarks: vec![[0.5, 0.25, -0.01]; 478],
                blendshapes: b,
                transform,
            }],
        };
        let core = frame.to_core().unwrap();
        for (name, score) in b.iter().skip(1) {
            assert_eq!(core.blendshapes.get(name), score, "{name}");
        }
        assert_eq!(core.blendshapes.get("tongueOut"), 0.0);
        let head = core.head.unwrap();
        assert!(head.angle_between(omote_core::Quat::from_rotation_y(0.5)) < 1e-3);
        // Every MediaPipe name but `_neutral` lands somewhere.
        assert_eq!(arkit_slots().iter().flatten().count(), 51);
        assert!(
            LandmarkerFrame {
                faces: vec![],
                ..frame
            }
            .to_core()
            .is_none()
        );
    }
}
