//! # omote-tracker
//!
//! omote's built-in face tracker: a pure-Rust port of Google MediaPipe's
//! FaceLandmarker (0.10.21, CPU path) on its own three networks, run with
//! [tract](https://crates.io/crates/tract-onnx):
//!
//! 1. [`FaceDetector`]: short-range BlazeFace on the letterboxed image, anchors,
//!    box decoding, weighted NMS;
//! 2. [`LandmarkModel`]: a rotated square ROI around the face (from the detection,
//!    or from the previous frame's landmarks when tracking video) warped to
//!    256x256, 478 landmarks mapped back to the image, a presence score;
//! 3. [`BlendshapeModel`]: 146 of the landmarks to 52 ARKit-named scores;
//! 4. [`FaceGeometry`]: the 4x4 facial transformation matrix (head pose) by
//!    weighted Procrustes against MediaPipe's canonical face model.
//!
//! [`FaceTracker`] runs them all and returns [`LandmarkerFace`]s; [`LandmarkerFrame`]
//! serialises exactly like MediaPipe's results in the shared reference files. The
//! models are embedded in the library ([`models`]); nothing is downloaded or looked
//! up at run time. The trackers are single-threaded; run one per thread.
//!
//! ```no_run
//! use omote_tracker::{FaceTracker, RgbView, load_rgb};
//!
//! # fn main() -> Result<(), omote_tracker::TrackerError> {
//! let mut tracker = FaceTracker::new()?;
//! let img = load_rgb("face.png".as_ref())?;
//! let frame = tracker.image_frame("face.png", &RgbView::from_image("face.png", &img)?)?;
//! if let Some(face) = frame.faces.first() {
//!     println!("jawOpen {:?}", face.blendshapes.get("jawOpen"));
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Conventions: landmarks are normalised (`x / width`, `y / height`, pixel centres
//! at integer pixel coordinates, `z` in the scale of `x`, negative towards the
//! camera); rotations in radians, positive clockwise on screen (image y points
//! down); the transformation matrix is row-major with translations in cm.

pub mod anchors;
pub mod blendshapes;
mod cnn;
pub mod detector;
pub mod error;
pub mod frame;
pub mod geometry;
pub mod landmarks;
mod model;
pub mod models;
pub mod nms;
pub mod overlay;
mod prelu;
pub mod procrustes;
pub mod profile;
pub mod rgb;
pub mod roi;
pub mod smoothing;
pub mod to_core;
pub mod tracker;
pub mod warp;

pub use blendshapes::{BLENDSHAPE_SUBSET, BlendshapeModel};
pub use detector::{Detection, DetectorConfig, FaceDetector};
pub use error::{Result, TrackerError};
pub use frame::{
    BLENDSHAPE_NAMES, LandmarkerBlendshapes, LandmarkerFace, LandmarkerFrame, NUM_BLENDSHAPES,
    NUM_LANDMARKS,
};
pub use geometry::FaceGeometry;
/// The `image` crate's 8-bit RGB buffer, as returned by [`load_rgb`].
pub use image::RgbImage;
pub use landmarks::{FaceLandmarks, LandmarkModel};
pub use overlay::{draw_landmarks, save_overlay_png};
pub use profile::StageTimes;
pub use rgb::{RgbView, decode_rgb_bytes, load_rgb};
pub use roi::Roi;
pub use smoothing::{LandmarkSmoother, OneEuroParams};
pub use tracker::{FaceTracker, FrameStats, TrackerConfig};
