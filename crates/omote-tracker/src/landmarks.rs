//! The landmark model: Face Mesh v2 with irises (`face_landmarks_detector.onnx`).
//! Crops the ROI to 256x256 (stretching, edge pixels replicated), runs the model
//! and maps the 478 points back to normalised image coordinates
//! (`TensorsToLandmarks` + `LandmarkProjection`).

use crate::error::Result;
use crate::frame::NUM_LANDMARKS;
use crate::model::OnnxModel;
use crate::rgb::RgbView;
use crate::roi::Roi;
use crate::warp::{Border, PixelRect, warp_into};

/// File name of the landmark model.
pub const LANDMARKS_FILE: &str = "face_landmarks_detector.onnx";

/// Landmark model input side in pixels.
pub const LANDMARKS_INPUT: usize = 256;

/// The result of one landmark-model run.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceLandmarks {
    /// [`NUM_LANDMARKS`] points `[x / width, y / height, z]`, z in the scale of x.
    pub points: Vec<[f32; 3]>,
    /// Face presence probability in `[0, 1]` (sigmoid of the model's logit).
    pub presence: f32,
}

/// The 478-point face mesh model.
#[derive(Debug)]
pub struct LandmarkModel {
    model: OnnxModel,
    input: Vec<f32>,
    landmarks: usize,
    presence: usize,
}

impl LandmarkModel {
    /// Loads the model from the bytes of `face_landmarks_detector.onnx`.
    pub fn from_onnx_bytes(bytes: &[u8]) -> Result<Self> {
        let n = LANDMARKS_INPUT;
        let model = OnnxModel::load(LANDMARKS_FILE, bytes, &[1, n, n, 3])?;
        let landmarks = model.output_index("Identity")?;
        let presence = model.output_index("Identity_1")?;
        Ok(Self {
            model,
            input: vec![0.0; n * n * 3],
            landmarks,
            presence,
        })
    }

    /// Runs the model on `roi` of `image`.
    pub fn run(&mut self, image: &RgbView<'_>, roi: &Roi) -> Result<FaceLandmarks> {
        self.warp(image, roi);
        self.infer(image.width(), image.height(), roi)
    }

    /// The first half of [`LandmarkModel::run`]: crops `roi` of `image` into the
    /// network input.
    pub(crate) fn warp(&mut self, image: &RgbView<'_>, roi: &Roi) {
        let (w, h) = (f64::from(image.width()), f64::from(image.height()));
        let rect = PixelRect {
            cx: f64::from(roi.cx) * w,
            cy: f64::from(roi.cy) * h,
            width: f64::from(roi.width) * w,
            height: f64::from(roi.height) * h,
            rotation: f64::from(roi.rotation),
        };
        warp_into(
            image,
            &rect,
            LANDMARKS_INPUT,
            Border::Replicate,
            0.0,
            1.0,
            &mut self.input,
        );
    }

    /// The second half of [`LandmarkModel::run`]: the network on the warped input,
    /// points mapped back to a `width` x `height` image.
    pub(crate) fn infer(&mut self, width: u32, height: u32, roi: &Roi) -> Result<FaceLandmarks> {
        self.model.run(&self.input)?;
        let raw = self.model.output_slice(self.landmarks, NUM_LANDMARKS * 3)?;
        let logit = self.model.output_slice(self.presence, 1)?[0];
        let presence = 1.0 / (1.0 + (-logit).exp());
        let (w, h) = (width as f32, height as f32);
        let (a, b) = (roi.width * w, roi.height * h);
        let (s, c) = roi.rotation.sin_cos();
        let (cx, cy) = (roi.cx * w, roi.cy * h);
        let z_scale = ((a * c / w).powi(2) + (a * s / h).powi(2)).sqrt();
        let n = LANDMARKS_INPUT as f32;
        let points = raw
            .chunks_exact(3)
            .map(|p| {
                let (x, y) = (p[0] / n - 0.5, p[1] / n - 0.5);
                [
                    (cx + a * c * x - b * s * y) / w,
                    (cy + a * s * x + b * c * y) / h,
                    p[2] / n * z_scale,
                ]
            })
            .collect();
        Ok(FaceLandmarks {
            points,
            presence: if presence.is_nan() { 0.0 } else { presence },
        })
    }
}
