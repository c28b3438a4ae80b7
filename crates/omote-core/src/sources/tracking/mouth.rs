//! The tracked mouth: jaw openness through a curve (docs/design.md § Tracking), split into the five
//! vowels by the mouth's openness, roundness and width (a soft nearest-prototype, so
//! every vowel is reachable from a camera).

use crate::rig::arkit::arkit_const;
use crate::sources::tracking::config::MouthMapping;
use crate::sources::tracking::input::Blendshapes;

/// Soft vowel prototypes in (openness, roundness, width), A I U E O.
const VOWEL_PROTOTYPES: [[f32; 3]; 5] = [
    [0.75, 0.0, 0.1],  // A
    [0.15, 0.0, 0.65], // I
    [0.1, 0.6, 0.0],   // U
    [0.4, 0.0, 0.45],  // E
    [0.45, 0.55, 0.0], // O
];

const JAW_OPEN: usize = arkit_const("jawOpen");
const FUNNEL: usize = arkit_const("mouthFunnel");
const PUCKER: usize = arkit_const("mouthPucker");
const STRETCH_L: usize = arkit_const("mouthStretchLeft");
const STRETCH_R: usize = arkit_const("mouthStretchRight");
const SMILE_L: usize = arkit_const("mouthSmileLeft");
const SMILE_R: usize = arkit_const("mouthSmileRight");

/// Every ARKit shape the vowels are read from: a rig that shows them all (perfect sync)
/// shows the mouth without them.
pub(crate) const VOWEL_SOURCES: [usize; 7] = [
    JAW_OPEN, FUNNEL, PUCKER, STRETCH_L, STRETCH_R, SMILE_L, SMILE_R,
];

/// Vowel targets A I U E O (sum ≤ 1) for one frame's scores. With `vowels` off only A
/// moves, by the jaw.
pub(crate) fn tracked_vowels(b: &Blendshapes, m: &MouthMapping) -> [f32; 5] {
    let open = m.jaw_curve.eval(b.0[JAW_OPEN]);
    if !m.vowels {
        return [open, 0.0, 0.0, 0.0, 0.0];
    }
    let round = b.0[FUNNEL].max(b.0[PUCKER]);
    let wide = 0.5 * (b.0[STRETCH_L] + b.0[STRETCH_R])
        + 0.25 * (b.0[SMILE_L] + b.0[SMILE_R]) * open.min(1.0);
    let activity = (m.gain * open.max(0.8 * round).max(0.7 * wide)).clamp(0.0, 1.0);
    if activity.is_nan() || activity <= 0.0 {
        return [0.0; 5];
    }
    let feature = [open, round, wide];
    let mut scores = [0.0f32; 5];
    let mut total = 0.0;
    for (s, p) in scores.iter_mut().zip(VOWEL_PROTOTYPES) {
        let d2: f32 = feature.iter().zip(p).map(|(f, q)| (f - q) * (f - q)).sum();
        *s = (-d2 / 0.02).exp();
        total += *s;
    }
    if total.is_nan() || total <= 0.0 {
        return [0.0; 5];
    }
    scores.map(|s| activity * s / total)
}
