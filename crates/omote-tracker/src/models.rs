//! The model files, embedded in the binary (no download or file lookup at run
//! time). Sources and licence: `models/README.md` and `models/LICENSE-MODELS.txt`
//! in this crate.

/// `face_detector.onnx`: short-range BlazeFace.
pub const FACE_DETECTOR_ONNX: &[u8] = include_bytes!("../models/face_detector.onnx");

/// `face_landmarks_detector.onnx`: Face Mesh v2 with irises.
pub const FACE_LANDMARKS_ONNX: &[u8] = include_bytes!("../models/face_landmarks_detector.onnx");

/// `face_blendshapes.onnx`: landmarks to 52 blendshapes.
pub const FACE_BLENDSHAPES_ONNX: &[u8] = include_bytes!("../models/face_blendshapes.onnx");

/// `face_geometry.json`: canonical face mesh and Procrustes weights.
pub const FACE_GEOMETRY_JSON: &str = include_str!("../models/face_geometry.json");
