//! The tracker's error type. Every variant names the file (model, image or data
//! file) or the input it is about, and what is wrong with it.

use std::path::PathBuf;

use thiserror::Error;

/// Why the tracker could not be built, or could not process an input.
///
/// "No face" is not an error: tracking returns an empty face list then.
#[derive(Debug, Error)]
pub enum TrackerError {
    /// An ONNX model could not be parsed, optimised or run.
    #[error("model {file}: {message}")]
    Model {
        /// The model's file name (e.g. `face_detector.onnx`).
        file: &'static str,
        /// What tract reported.
        message: String,
    },
    /// A model's outputs do not have the names or sizes this crate expects.
    #[error("model {file}: unexpected output: {message}")]
    ModelOutput {
        /// The model's file name.
        file: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The face-geometry metadata (`face_geometry.json`) is malformed.
    #[error("{file}: {message}")]
    Geometry {
        /// The data file's name.
        file: &'static str,
        /// What is wrong.
        message: String,
    },
    /// An image file could not be opened or decoded.
    #[error("{}: cannot read image: {message}", path.display())]
    ReadImage {
        /// The image file.
        path: PathBuf,
        /// What the decoder reported.
        message: String,
    },
    /// An image file could not be written.
    #[error("{}: cannot write image: {message}", path.display())]
    WriteImage {
        /// The image file.
        path: PathBuf,
        /// What the encoder reported.
        message: String,
    },
    /// An image (file or frame) has a size the tracker does not accept.
    #[error("{what}: image is {width}x{height}; {problem}")]
    ImageSize {
        /// The file name, or a description of the frame source.
        what: String,
        /// Width in pixels.
        width: u64,
        /// Height in pixels.
        height: u64,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A raw RGB buffer does not hold width x height x 3 bytes.
    #[error("{what}: frame buffer has {got} bytes, {width}x{height} RGB needs {expected}")]
    FrameBytes {
        /// A description of the frame source.
        what: String,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes given.
        got: usize,
        /// Bytes needed.
        expected: usize,
    },
    /// A video timestamp went backwards or repeated.
    #[error("timestamp {got_us} µs is not after the previous frame's {previous_us} µs")]
    Timestamp {
        /// The timestamp given.
        got_us: i64,
        /// The previous frame's timestamp.
        previous_us: i64,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = TrackerError> = std::result::Result<T, E>;
