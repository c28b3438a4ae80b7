//! Drawing tracked landmarks onto an image, for checking results by eye.

use std::path::Path;

use crate::error::{Result, TrackerError};
use crate::frame::LandmarkerFace;
use crate::rgb::RgbView;

/// Colour of the 468 face-mesh points.
pub const MESH_COLOUR: [u8; 3] = [0, 255, 64];

/// Colour of the 10 iris points.
pub const IRIS_COLOUR: [u8; 3] = [255, 48, 48];

/// Draws every landmark of `faces` onto `image` as a small dot (mesh points green,
/// iris points red). Points outside the image are skipped.
pub fn draw_landmarks(image: &mut image::RgbImage, faces: &[LandmarkerFace]) {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let radius = (w.min(h) / 300).clamp(1, 4);
    for face in faces {
        for (i, p) in face.landmarks.iter().enumerate() {
            if !(p[0].is_finite() && p[1].is_finite()) {
                continue;
            }
            let colour = if i >= 468 { IRIS_COLOUR } else { MESH_COLOUR };
            let (cx, cy) = (
                (f64::from(p[0]) * w as f64).round() as i64,
                (f64::from(p[1]) * h as f64).round() as i64,
            );
            for dy in -radius..=radius {
                for dx in -radius..=radius {
                    let (x, y) = (cx + dx, cy + dy);
                    if dx * dx + dy * dy <= radius * radius && x >= 0 && y >= 0 && x < w && y < h {
                        image.put_pixel(x as u32, y as u32, image::Rgb(colour));
                    }
                }
            }
        }
    }
}

/// Writes `image` with `faces` drawn on it as a PNG file at `path`.
pub fn save_overlay_png(path: &Path, image: &RgbView<'_>, faces: &[LandmarkerFace]) -> Result<()> {
    let mut canvas =
        image::RgbImage::from_raw(image.width(), image.height(), image.data().to_vec())
            .ok_or_else(|| TrackerError::ImageSize {
                what: path.display().to_string(),
                width: u64::from(image.width()),
                height: u64::from(image.height()),
                problem: "the pixel buffer does not match the size",
            })?;
    draw_landmarks(&mut canvas, faces);
    canvas
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| TrackerError::WriteImage {
            path: path.to_owned(),
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::LandmarkerBlendshapes;

    #[test]
    fn draws_inside_and_skips_outside() {
        let mut img = image::RgbImage::new(10, 10);
        let mut lm = vec![[2.0f32, 2.0, 0.0]; 478];
        lm[0] = [0.5, 0.5, 0.0];
        lm[470] = [0.0, 0.0, 0.0];
        lm[1] = [f32::NAN, 0.5, 0.0];
        let face = LandmarkerFace {
            landmarks: lm,
            blendshapes: LandmarkerBlendshapes::default(),
            transform: [0.0; 16],
        };
        draw_landmarks(&mut img, &[face]);
        assert_eq!(img.get_pixel(5, 5).0, MESH_COLOUR);
        assert_eq!(img.get_pixel(0, 0).0, IRIS_COLOUR);
        assert_eq!(img.get_pixel(9, 0).0, [0, 0, 0]);
    }
}
