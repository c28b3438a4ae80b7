//! How fast the spectrum moves: the cepstral distance from one voiced frame to the next,
//! relative to the voice's typical distance. The streaming class filter lets the mouth
//! change class readily where the spectrum moves (a phone boundary) and holds it where
//! the spectrum is steady (inside a vowel, where a flip is a misreading).

use crate::N_CEPS;

/// The typical frame-to-frame cepstral distance a stream starts from (the median over
/// the shared Japanese, English and MBROLA voices lies at 2.8–3.8).
pub const TYPICAL_CHANGE_START: f32 = 3.0;
/// Weight of each new distance in the running typical distance (a memory of about one
/// second of voiced frames).
const TYPICAL_CHANGE_RATE: f32 = 0.01;

/// Tracks the last voiced frame's cepstrum and the voice's typical frame-to-frame
/// distance. Distances are relative to that typical one, so a voice that moves a lot
/// everywhere (a diphthong-rich English reader) is not read as all boundaries.
///
/// ```
/// use omote_lipsync::SpectralChange;
/// let mut change = SpectralChange::new();
/// let a = [1.0; 12];
/// let mut b = [1.0; 12];
/// b[0] = 4.0; // a distance of 3, the typical one at the start
/// assert_eq!(change.update(&a), None); // the first frame has nothing to differ from
/// assert_eq!(change.update(&a), Some(0.0));
/// let moved = change.update(&b).unwrap();
/// assert!((moved - 1.01).abs() < 0.001); // 3 against a typical 2.97
/// change.silence(); // a pause: the next frame starts a new run
/// assert_eq!(change.update(&b), None);
/// ```
#[derive(Clone, Debug)]
pub struct SpectralChange {
    last: Option<[f32; N_CEPS]>,
    typical: f32,
}

impl Default for SpectralChange {
    fn default() -> Self {
        Self::new()
    }
}

impl SpectralChange {
    /// A tracker that has heard nothing, its typical distance [`TYPICAL_CHANGE_START`].
    pub fn new() -> Self {
        Self {
            last: None,
            typical: TYPICAL_CHANGE_START,
        }
    }

    /// A voiced frame's cepstrum. Returns its distance from the frame before, divided by
    /// the typical distance before this frame; `None` for the first voiced frame of a run.
    /// A cepstrum that is not finite counts as no change and is not remembered.
    pub fn update(&mut self, ceps: &[f32; N_CEPS]) -> Option<f32> {
        if !ceps.iter().all(|c| c.is_finite()) {
            return self.last.map(|_| 0.0);
        }
        let out = self.last.map(|last| {
            let d = last
                .iter()
                .zip(ceps)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f32>()
                .sqrt();
            let relative = d / self.typical;
            self.typical = (self.typical + TYPICAL_CHANGE_RATE * (d - self.typical)).max(1e-3);
            relative
        });
        self.last = Some(*ceps);
        out
    }

    /// A silent frame: the next voiced frame starts a new run. The typical distance is
    /// the voice's and is kept.
    pub fn silence(&mut self) {
        self.last = None;
    }
}
