//! Frames as the core's retargeter takes them ([`omote_core::TrackingFrame`]), without a
//! trip through JSON. This crate's [`TrackingFrame`] is MediaPipe's wire layout
//! (`_neutral` first, MediaPipe's order, `image` / `timestamp_ms`); the core's is what
//! every tracker source (this one, JSON files, ARKit streams) becomes before retargeting
//! (ARKit's order, `tongueOut`, no `_neutral`). Both read and write the same JSON.

use omote_core::ARKIT_52;

use crate::frame::{BLENDSHAPE_NAMES, Blendshapes, TrackedFace, TrackingFrame};

/// For each ARKit-52 slot, the index of the same name in MediaPipe's order (`None`:
/// `tongueOut`, which MediaPipe does not produce).
fn arkit_slots() -> [Option<usize>; 52] {
    std::array::from_fn(|i| BLENDSHAPE_NAMES.iter().position(|n| *n == ARKIT_52[i]))
}

impl Blendshapes {
    /// The scores in the core's ARKit-52 order (`tongueOut` = 0, `_neutral` dropped).
    pub fn to_core(&self) -> omote_core::Blendshapes {
        let slots = arkit_slots();
        omote_core::Blendshapes(std::array::from_fn(|i| slots[i].map_or(0.0, |j| self.0[j])))
    }
}

impl TrackedFace {
    /// This face as the core's retargeter takes it.
    pub fn to_core(&self) -> omote_core::TrackedFace {
        omote_core::TrackedFace {
            landmarks: self.landmarks.clone(),
            blendshapes: self.blendshapes.to_core(),
            transform: Some(self.transform),
        }
    }
}

impl TrackingFrame {
    /// This frame as the core's retargeter takes it (`image` and `timestamp_ms` dropped).
    pub fn to_core(&self) -> omote_core::TrackingFrame {
        omote_core::TrackingFrame {
            frame: self.frame,
            t: self.t,
            width: self.width,
            height: self.height,
            faces: self.faces.iter().map(TrackedFace::to_core).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_going_through_json() {
        let mut b = Blendshapes::default();
        for (i, s) in b.0.iter_mut().enumerate() {
            *s = i as f32 / 100.0;
        }
        let frame = TrackingFrame {
            image: Some("x.png".into()),
            frame: Some(7),
            t: Some(0.25),
            timestamp_ms: Some(250),
            width: 640,
            height: 480,
            faces: vec![TrackedFace {
                landmarks: vec![[0.5, 0.25, -0.01]; 478],
                blendshapes: b,
                transform: std::array::from_fn(|i| i as f32),
            }],
        };
        let via_json: omote_core::TrackingFrame =
            serde_json::from_str(&serde_json::to_string(&frame).unwrap()).unwrap();
        assert_eq!(frame.to_core(), via_json);
        let core = &frame.to_core().faces[0].blendshapes;
        assert_eq!(core.get("jawOpen"), b.get("jawOpen").unwrap());
        assert_eq!(core.get("tongueOut"), 0.0);
        // Every MediaPipe name but `_neutral` lands somewhere.
        let used = arkit_slots().iter().flatten().count();
        assert_eq!(used, 51);
    }
}
