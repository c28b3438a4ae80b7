//! The face detector: short-range BlazeFace (`face_detector.onnx`), with MediaPipe's
//! pre- and post-processing (`face_detector_graph.cc`): letterbox the whole image
//! into 128x128, decode the 896 anchor boxes, threshold, weighted NMS, undo the
//! letterbox.

use crate::anchors::{DETECTOR_INPUT, NUM_ANCHORS, ssd_anchors};
use crate::error::Result;
use crate::model::OnnxModel;
use crate::nms::weighted_nms;
use crate::rgb::RgbView;
use crate::warp::{Border, PixelRect, warp_into};

/// File name of the detector model.
pub const DETECTOR_FILE: &str = "face_detector.onnx";

/// One detected face, normalised to the image (x / width, y / height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// Confidence in `[0, 1]`.
    pub score: f32,
    /// Box `[xmin, ymin, xmax, ymax]`.
    pub bbox: [f32; 4],
    /// Keypoints `(x, y)`: 0 right eye (the subject's), 1 left eye, 2 nose tip,
    /// 3 mouth centre, 4 right ear tragion, 5 left ear tragion.
    pub keypoints: [[f32; 2]; 6],
}

/// Detector settings (MediaPipe's defaults, as used by the reference data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectorConfig {
    /// Minimum score to keep a detection (`min_face_detection_confidence`).
    pub min_score: f32,
    /// IoU above which detections are merged.
    pub nms_iou: f32,
    /// How many faces to return at most.
    pub max_faces: usize,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self {
            min_score: 0.5,
            nms_iou: 0.5,
            max_faces: 1,
        }
    }
}

/// The short-range BlazeFace detector.
#[derive(Debug)]
pub struct FaceDetector {
    model: OnnxModel,
    anchors: Vec<[f32; 2]>,
    config: DetectorConfig,
    input: Vec<f32>,
    regressors: usize,
    classificators: usize,
}

impl FaceDetector {
    /// Loads the detector from the bytes of `face_detector.onnx`.
    pub fn from_onnx_bytes(bytes: &[u8], config: DetectorConfig) -> Result<Self> {
        let n = DETECTOR_INPUT;
        let model = OnnxModel::load(DETECTOR_FILE, bytes, &[1, n, n, 3])?;
        let regressors = model.output_index("regressors")?;
        let classificators = model.output_index("classificators")?;
        Ok(Self {
            model,
            anchors: ssd_anchors(),
            config,
            input: vec![0.0; n * n * 3],
            regressors,
            classificators,
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &DetectorConfig {
        &self.config
    }

    /// Finds faces in `image`, best first (at most `max_faces`).
    pub fn detect(&mut self, image: &RgbView<'_>) -> Result<Vec<Detection>> {
        let (w, h) = (f64::from(image.width()), f64::from(image.height()));
        // Letterbox: a square of the longer side, centred; padding is black.
        let side = w.max(h);
        let (pad_x, pad_y) = ((1.0 - w / side) / 2.0, (1.0 - h / side) / 2.0);
        let rect = PixelRect {
            cx: w / 2.0,
            cy: h / 2.0,
            width: side,
            height: side,
            rotation: 0.0,
        };
        warp_into(
            image,
            &rect,
            DETECTOR_INPUT,
            Border::Zero,
            -1.0,
            1.0,
            &mut self.input,
        );
        self.model.run(&self.input)?;
        let reg = self.model.output_slice(self.regressors, NUM_ANCHORS * 16)?;
        let cls = self.model.output_slice(self.classificators, NUM_ANCHORS)?;
        let mut dets = Vec::new();
        let scale = DETECTOR_INPUT as f32;
        for (i, (&logit, anchor)) in cls.iter().zip(&self.anchors).enumerate() {
            let score = 1.0 / (1.0 + (-logit.clamp(-100.0, 100.0)).exp());
            if score.is_nan() || score < self.config.min_score {
                continue;
            }
            let r = &reg[i * 16..i * 16 + 16];
            let (cx, cy) = (r[0] / scale + anchor[0], r[1] / scale + anchor[1]);
            let (bw, bh) = (r[2] / scale, r[3] / scale);
            let mut keypoints = [[0.0; 2]; 6];
            for (k, kp) in keypoints.iter_mut().enumerate() {
                *kp = [
                    r[4 + 2 * k] / scale + anchor[0],
                    r[5 + 2 * k] / scale + anchor[1],
                ];
            }
            let d = Detection {
                score,
                bbox: [cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0],
                keypoints,
            };
            if d.bbox
                .iter()
                .chain(d.keypoints.as_flattened())
                .all(|v| v.is_finite())
            {
                dets.push(d);
            }
        }
        let mut dets = weighted_nms(dets, self.config.nms_iou, self.config.max_faces);
        // Undo the letterbox.
        let (px, py) = (pad_x as f32, pad_y as f32);
        let (sx, sy) = (1.0 - 2.0 * px, 1.0 - 2.0 * py);
        for d in &mut dets {
            d.bbox = [
                (d.bbox[0] - px) / sx,
                (d.bbox[1] - py) / sy,
                (d.bbox[2] - px) / sx,
                (d.bbox[3] - py) / sy,
            ];
            for k in &mut d.keypoints {
                *k = [(k[0] - px) / sx, (k[1] - py) / sy];
            }
        }
        Ok(dets)
    }
}
