//! The blendshape model (`face_blendshapes.onnx`): 146 of the 478 landmarks, in
//! image pixels, to the 52 scores of [`crate::BLENDSHAPE_NAMES`]
//! (`face_blendshapes_graph.cc`).

use crate::error::Result;
use crate::frame::{LandmarkerBlendshapes, NUM_BLENDSHAPES, NUM_LANDMARKS};
use crate::model::OnnxModel;

/// File name of the blendshape model.
pub const BLENDSHAPES_FILE: &str = "face_blendshapes.onnx";

/// The landmarks the blendshape model reads, in its input order
/// (`kLandmarksSubsetIdxs`).
pub const BLENDSHAPE_SUBSET: [usize; 146] = [
    0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65,
    66, 67, 70, 78, 80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136,
    144, 145, 146, 148, 149, 150, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172,
    173, 176, 178, 181, 185, 191, 195, 197, 234, 246, 249, 251, 263, 267, 269, 270, 276, 282, 283,
    284, 285, 288, 291, 293, 295, 296, 297, 300, 308, 310, 311, 312, 314, 317, 318, 321, 323, 324,
    332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381, 382, 384, 385,
    386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472,
    473, 474, 475, 476, 477,
];

/// The landmarks-to-blendshapes network.
#[derive(Debug)]
pub struct BlendshapeModel {
    model: OnnxModel,
    input: Vec<f32>,
}

impl BlendshapeModel {
    /// Loads the model from the bytes of `face_blendshapes.onnx`.
    pub fn from_onnx_bytes(bytes: &[u8]) -> Result<Self> {
        let model = OnnxModel::load(BLENDSHAPES_FILE, bytes, &[1, BLENDSHAPE_SUBSET.len(), 2])?;
        if model.output_names().len() != 1 {
            return Err(crate::TrackerError::ModelOutput {
                file: model.file(),
                message: format!("expected one output, found {:?}", model.output_names()),
            });
        }
        Ok(Self {
            model,
            input: vec![0.0; BLENDSHAPE_SUBSET.len() * 2],
        })
    }

    /// Scores for `landmarks` ([`NUM_LANDMARKS`] normalised points) of a
    /// `width` x `height` image. Scores are clamped to `[0, 1]`; NaN becomes 0.
    pub fn run(
        &mut self,
        landmarks: &[[f32; 3]],
        width: u32,
        height: u32,
    ) -> Result<LandmarkerBlendshapes> {
        if landmarks.len() != NUM_LANDMARKS {
            return Err(crate::TrackerError::ModelOutput {
                file: self.model.file(),
                message: format!(
                    "{} landmarks given, {NUM_LANDMARKS} needed",
                    landmarks.len()
                ),
            });
        }
        let (w, h) = (width as f32, height as f32);
        for (dst, &i) in self.input.chunks_exact_mut(2).zip(&BLENDSHAPE_SUBSET) {
            dst[0] = landmarks[i][0] * w;
            dst[1] = landmarks[i][1] * h;
        }
        self.model.run(&self.input)?;
        let scores = self.model.output_slice(0, NUM_BLENDSHAPES)?;
        let mut out = LandmarkerBlendshapes::default();
        for (o, s) in out.0.iter_mut().zip(scores) {
            *o = if s.is_nan() { 0.0 } else { s.clamp(0.0, 1.0) };
        }
        Ok(out)
    }
}
