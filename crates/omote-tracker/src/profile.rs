//! [`StageTimes`]: where a tracker's time goes, stage by stage, when profiling is
//! switched on with [`crate::FaceTracker::set_profiling`] (`omote track` prints them
//! with `OMOTE_TRACK_PROFILE=1`).

use std::time::{Duration, Instant};

/// Accumulated wall time per pipeline stage over the frames since profiling was
/// switched on (or last reset).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageTimes {
    /// Frames (or still images) tracked.
    pub frames: u64,
    /// Detector runs.
    pub detector_runs: u64,
    /// Detector: letterbox warp, network, anchors and NMS.
    pub detector: Duration,
    /// Landmark ROI warp (rotated crop to 256x256, colour to float).
    pub landmark_warp: Duration,
    /// Landmark network and the projection of its points back to the image.
    pub landmark_net: Duration,
    /// VIDEO-mode one-euro smoothing and the next frame's ROI.
    pub smoothing: Duration,
    /// Blendshape network.
    pub blendshapes: Duration,
    /// Head pose (weighted Procrustes, transformation matrix).
    pub geometry: Duration,
}

impl StageTimes {
    /// The stages as `(name, total)` pairs, in pipeline order.
    pub fn stages(&self) -> [(&'static str, Duration); 6] {
        [
            ("detector", self.detector),
            ("landmark warp", self.landmark_warp),
            ("landmark network", self.landmark_net),
            ("smoothing + roi", self.smoothing),
            ("blendshapes", self.blendshapes),
            ("geometry", self.geometry),
        ]
    }

    /// The sum of all stages.
    pub fn total(&self) -> Duration {
        self.stages().iter().map(|s| s.1).sum()
    }
}

/// A stopwatch that reads the clock only when profiling is on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lap(Option<Instant>);

impl Lap {
    /// Starts timing if `on`.
    pub(crate) fn start(on: bool) -> Self {
        Self(on.then(Instant::now))
    }

    /// Adds the time since the last lap to `total` and starts the next lap.
    pub(crate) fn lap(&mut self, total: &mut Duration) {
        if let Some(t) = self.0 {
            let now = Instant::now();
            *total += now - t;
            self.0 = Some(now);
        }
    }
}
