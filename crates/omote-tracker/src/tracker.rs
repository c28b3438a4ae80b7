//! [`FaceTracker`]: the whole FaceLandmarker pipeline, for still images
//! ([`FaceTracker::detect_image`], MediaPipe's IMAGE mode) and video
//! ([`FaceTracker::track`], VIDEO mode: the detector runs only until a face is
//! found; later frames take their ROI from the previous frame's landmarks until the
//! presence score drops, and landmarks are one-euro smoothed).

use crate::blendshapes::BlendshapeModel;
use crate::detector::{DetectorConfig, FaceDetector};
use crate::error::{Result, TrackerError};
use crate::frame::{LandmarkerFace, LandmarkerFrame};
use crate::geometry::FaceGeometry;
use crate::landmarks::{FaceLandmarks, LandmarkModel};
use crate::models;
use crate::profile::{Lap, StageTimes};
use crate::rgb::RgbView;
use crate::roi::Roi;
use crate::smoothing::{LandmarkSmoother, OneEuroParams};

/// Tracker settings. The defaults are MediaPipe FaceLandmarker's, as used for the
/// reference data (`num_faces` 1, all confidences 0.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackerConfig {
    /// Detector settings.
    pub detector: DetectorConfig,
    /// Minimum face presence (exclusive) to accept landmarks and keep tracking.
    pub min_presence: f32,
    /// One-euro smoothing of landmarks in video mode; `None` turns it off.
    pub smoothing: Option<OneEuroParams>,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        Self {
            detector: DetectorConfig::default(),
            min_presence: 0.5,
            smoothing: Some(OneEuroParams::default()),
        }
    }
}

/// What the last video frame did, for statistics and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameStats {
    /// Whether the detector ran on this frame.
    pub detector_ran: bool,
    /// Whether a face was returned.
    pub face_found: bool,
}

/// A face tracker holding the three models (loaded and optimised once) and the
/// video-mode state. One tracker handles one stream at a time; use one per thread.
#[derive(Debug)]
pub struct FaceTracker {
    detector: FaceDetector,
    landmarks: LandmarkModel,
    blendshapes: BlendshapeModel,
    geometry: FaceGeometry,
    config: TrackerConfig,
    tracked: Option<Roi>,
    smoother: Option<LandmarkSmoother>,
    last_timestamp_us: Option<i64>,
    last_stats: FrameStats,
    /// `Some` while profiling is on.
    times: Option<StageTimes>,
}

impl FaceTracker {
    /// A tracker with the default settings and the embedded models.
    pub fn new() -> Result<Self> {
        Self::with_config(TrackerConfig::default())
    }

    /// A tracker with `config` and the embedded models.
    pub fn with_config(config: TrackerConfig) -> Result<Self> {
        Ok(Self {
            detector: FaceDetector::from_onnx_bytes(models::FACE_DETECTOR_ONNX, config.detector)?,
            landmarks: LandmarkModel::from_onnx_bytes(models::FACE_LANDMARKS_ONNX)?,
            blendshapes: BlendshapeModel::from_onnx_bytes(models::FACE_BLENDSHAPES_ONNX)?,
            geometry: FaceGeometry::from_json(models::FACE_GEOMETRY_JSON)?,
            smoother: config.smoothing.map(LandmarkSmoother::new),
            config,
            tracked: None,
            last_timestamp_us: None,
            last_stats: FrameStats::default(),
            times: None,
        })
    }

    /// Switches per-stage timing on (from zero) or off. Off by default: the clock is
    /// then never read.
    pub fn set_profiling(&mut self, on: bool) {
        self.times = on.then(StageTimes::default);
    }

    /// The stage totals since profiling was switched on, `None` when it is off.
    pub fn stage_times(&self) -> Option<&StageTimes> {
        self.times.as_ref()
    }

    /// Runs the detector, timed.
    fn detect(&mut self, image: &RgbView<'_>) -> Result<Vec<crate::Detection>> {
        let mut lap = Lap::start(self.times.is_some());
        let dets = self.detector.detect(image)?;
        if let Some(t) = &mut self.times {
            lap.lap(&mut t.detector);
            t.detector_runs += 1;
        }
        Ok(dets)
    }

    /// Runs the landmark model on `roi`, timed.
    fn landmarks(&mut self, image: &RgbView<'_>, roi: &Roi) -> Result<FaceLandmarks> {
        let mut lap = Lap::start(self.times.is_some());
        self.landmarks.warp(image, roi);
        if let Some(t) = &mut self.times {
            lap.lap(&mut t.landmark_warp);
        }
        let lm = self.landmarks.infer(image.width(), image.height(), roi)?;
        if let Some(t) = &mut self.times {
            lap.lap(&mut t.landmark_net);
        }
        Ok(lm)
    }

    /// The settings in use.
    pub fn config(&self) -> &TrackerConfig {
        &self.config
    }

    /// What the last call did.
    pub fn last_stats(&self) -> FrameStats {
        self.last_stats
    }

    /// Forgets the video state (tracked ROI, smoothing, last timestamp).
    pub fn reset(&mut self) {
        self.tracked = None;
        self.last_timestamp_us = None;
        if let Some(s) = &mut self.smoother {
            s.reset();
        }
    }

    /// IMAGE mode: detector, landmarks, blendshapes and pose for one still image,
    /// independent of earlier calls. Empty when no face is found.
    pub fn detect_image(&mut self, image: &RgbView<'_>) -> Result<Vec<LandmarkerFace>> {
        self.last_stats = FrameStats {
            detector_ran: true,
            face_found: false,
        };
        if let Some(t) = &mut self.times {
            t.frames += 1;
        }
        let mut faces = Vec::new();
        for det in self.detect(image)? {
            let roi = Roi::from_detection(&det, image.width(), image.height());
            if !roi.is_usable() {
                continue;
            }
            let lm = self.landmarks(image, &roi)?;
            if lm.presence.is_nan() || lm.presence <= self.config.min_presence {
                continue;
            }
            if let Some(face) = self.finish(lm.points, image)? {
                faces.push(face);
            }
        }
        self.last_stats.face_found = !faces.is_empty();
        Ok(faces)
    }

    /// VIDEO mode: one frame of a stream, taken at `timestamp_us` (microseconds,
    /// strictly increasing). Runs the detector only when no face is being tracked.
    /// Empty when no face is found (tracking restarts with the detector on the
    /// next frame).
    pub fn track(&mut self, image: &RgbView<'_>, timestamp_us: i64) -> Result<Vec<LandmarkerFace>> {
        if let Some(previous_us) = self.last_timestamp_us
            && timestamp_us <= previous_us
        {
            return Err(TrackerError::Timestamp {
                got_us: timestamp_us,
                previous_us,
            });
        }
        self.last_timestamp_us = Some(timestamp_us);
        let (w, h) = (image.width(), image.height());
        if let Some(t) = &mut self.times {
            t.frames += 1;
        }
        let mut stats = FrameStats::default();
        let roi = match self.tracked.take() {
            Some(roi) => Some(roi),
            None => {
                stats.detector_ran = true;
                self.detect(image)?
                    .first()
                    .map(|d| Roi::from_detection(d, w, h))
                    .filter(Roi::is_usable)
            }
        };
        let mut faces = Vec::new();
        if let Some(roi) = roi {
            let lm = self.landmarks(image, &roi)?;
            if lm.presence > self.config.min_presence {
                let mut lap = Lap::start(self.times.is_some());
                self.tracked = Roi::from_landmarks(&lm.points, w, h);
                let mut points = lm.points;
                if let Some(s) = &mut self.smoother {
                    s.smooth(&mut points, w, h, timestamp_us);
                }
                if let Some(t) = &mut self.times {
                    lap.lap(&mut t.smoothing);
                }
                if let Some(face) = self.finish(points, image)? {
                    faces.push(face);
                }
            }
        }
        if faces.is_empty() {
            self.tracked = None;
            if let Some(s) = &mut self.smoother {
                s.reset();
            }
        }
        stats.face_found = !faces.is_empty();
        self.last_stats = stats;
        Ok(faces)
    }

    /// [`FaceTracker::detect_image`] wrapped in a [`LandmarkerFrame`] named `name`.
    pub fn image_frame(&mut self, name: &str, image: &RgbView<'_>) -> Result<LandmarkerFrame> {
        let faces = self.detect_image(image)?;
        Ok(LandmarkerFrame {
            image: Some(name.to_owned()),
            frame: None,
            t: None,
            timestamp_ms: None,
            width: image.width(),
            height: image.height(),
            faces,
        })
    }

    /// [`FaceTracker::track`] for frame `index` of a stream at `fps` frames per
    /// second (timestamp `round(index·1000/fps)` ms, as the reference data uses),
    /// wrapped in a [`LandmarkerFrame`].
    pub fn video_frame(
        &mut self,
        index: u64,
        fps: f64,
        image: &RgbView<'_>,
    ) -> Result<LandmarkerFrame> {
        let t = index as f64 / fps;
        let timestamp_ms = (index as f64 * 1000.0 / fps).round() as i64;
        let faces = self.track(image, timestamp_ms * 1000)?;
        Ok(LandmarkerFrame {
            image: None,
            frame: Some(index),
            t: Some((t * 1e6).round() / 1e6),
            timestamp_ms: Some(timestamp_ms),
            width: image.width(),
            height: image.height(),
            faces,
        })
    }

    /// LandmarkerBlendshapes and pose for accepted landmarks. `None` if the landmarks are
    /// degenerate (not finite).
    fn finish(
        &mut self,
        points: Vec<[f32; 3]>,
        image: &RgbView<'_>,
    ) -> Result<Option<LandmarkerFace>> {
        if !points.iter().flatten().all(|v| v.is_finite()) {
            return Ok(None);
        }
        let (w, h) = (image.width(), image.height());
        let mut lap = Lap::start(self.times.is_some());
        let blendshapes = self.blendshapes.run(&points, w, h)?;
        if let Some(t) = &mut self.times {
            lap.lap(&mut t.blendshapes);
        }
        let m = self.geometry.transform(&points, w, h);
        if let Some(t) = &mut self.times {
            lap.lap(&mut t.geometry);
        }
        let Some(m) = m else {
            return Ok(None);
        };
        let mut transform = [0f32; 16];
        for (dst, src) in transform.iter_mut().zip(m.as_flattened()) {
            *dst = *src as f32;
        }
        Ok(Some(LandmarkerFace {
            landmarks: points,
            blendshapes,
            transform,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_can_move_to_another_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<FaceTracker>();
    }
}
