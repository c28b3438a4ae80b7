//! Bilinear warp of a rotated rectangle of an RGB image into a square model input
//! tensor (MediaPipe's `ImageToTensorCalculator`, CPU path, without its fixed-point
//! quirks).
//!
//! Output pixel `(u, v)` of an `S x S` tensor samples the image at
//!
//! ```text
//! [x, y] = [cx, cy] + R(θ) · [(u / S - 0.5) · w, (v / S - 0.5) · h]
//! R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]]          (pixels, y down)
//! ```
//!
//! so the rectangle's outer edges map to the tensor's outer edges. Samples are
//! bilinear between the four neighbouring pixel centres, rounded to 8 bits (as
//! MediaPipe's uint8 intermediate), then mapped linearly from `[0, 255]` to
//! `[lo, hi]`.

use crate::rgb::RgbView;

/// What pixels outside the image are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Border {
    /// Black (`BORDER_CONSTANT` 0): used by the detector's letterbox.
    Zero,
    /// The nearest edge pixel (`BORDER_REPLICATE`): used by the landmark crop.
    Replicate,
}

/// A rotated rectangle in pixel coordinates: centre, size and rotation (radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelRect {
    /// Centre x in pixels.
    pub cx: f64,
    /// Centre y in pixels.
    pub cy: f64,
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
    /// Rotation in radians.
    pub rotation: f64,
}

/// Warps `rect` of `src` into `out`, an `size x size x 3` (HWC, RGB) `f32` tensor
/// with values in `[lo, hi]`.
///
/// # Panics
/// If `out.len() != size * size * 3` (a programming error, not an input error).
pub fn warp_into(
    src: &RgbView<'_>,
    rect: &PixelRect,
    size: usize,
    border: Border,
    lo: f32,
    hi: f32,
    out: &mut [f32],
) {
    assert_eq!(
        out.len(),
        size * size * 3,
        "warp output has the wrong length"
    );
    let scale = (hi - lo) / 255.0;
    let mut lut = [0f32; 256];
    for (i, v) in lut.iter_mut().enumerate() {
        *v = i as f32 * scale + lo;
    }
    let (w, h) = (src.width() as i64, src.height() as i64);
    let data = src.data();
    let stride = w as usize * 3;
    let (sin, cos) = rect.rotation.sin_cos();
    let s = size as f64;
    let (dxu, dyu) = (cos * rect.width / s, sin * rect.width / s);
    let (dxv, dyv) = (-sin * rect.height / s, cos * rect.height / s);
    let ox = rect.cx - 0.5 * (cos * rect.width - sin * rect.height);
    let oy = rect.cy - 0.5 * (sin * rect.width + cos * rect.height);
    let finite = [ox, oy, dxu, dyu, dxv, dyv].iter().all(|v| v.is_finite());
    if !finite {
        // A degenerate rectangle sees nothing: fill with black.
        out.fill(lo);
        return;
    }
    // Far outside coordinates are clamped so the integer conversion cannot overflow;
    // they sample the border either way.
    let limit = (w.max(h) + 4) as f64;
    for v in 0..size {
        let rx = ox + v as f64 * dxv;
        let ry = oy + v as f64 * dyv;
        let row = &mut out[v * size * 3..(v + 1) * size * 3];
        for (u, px) in row.chunks_exact_mut(3).enumerate() {
            let x = (rx + u as f64 * dxu).clamp(-limit, limit);
            let y = (ry + u as f64 * dyu).clamp(-limit, limit);
            let (xf, yf) = (x.floor(), y.floor());
            let (fx, fy) = ((x - xf) as f32, (y - yf) as f32);
            let (x0, y0) = (xf as i64, yf as i64);
            let w00 = (1.0 - fx) * (1.0 - fy);
            let w01 = fx * (1.0 - fy);
            let w10 = (1.0 - fx) * fy;
            let w11 = fx * fy;
            if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                let i00 = y0 as usize * stride + x0 as usize * 3;
                let i10 = i00 + stride;
                let top = &data[i00..i00 + 6];
                let bottom = &data[i10..i10 + 6];
                for c in 0..3 {
                    let val = f32::from(top[c]) * w00
                        + f32::from(top[c + 3]) * w01
                        + f32::from(bottom[c]) * w10
                        + f32::from(bottom[c + 3]) * w11;
                    px[c] = lut[((val + 0.5) as usize).min(255)];
                }
            } else {
                let fetch = |yy: i64, xx: i64| -> Option<&[u8]> {
                    let (yy, xx) = match border {
                        Border::Zero => {
                            if xx < 0 || yy < 0 || xx >= w || yy >= h {
                                return None;
                            }
                            (yy, xx)
                        }
                        Border::Replicate => (yy.clamp(0, h - 1), xx.clamp(0, w - 1)),
                    };
                    let i = yy as usize * stride + xx as usize * 3;
                    Some(&data[i..i + 3])
                };
                let n = [
                    (fetch(y0, x0), w00),
                    (fetch(y0, x0 + 1), w01),
                    (fetch(y0 + 1, x0), w10),
                    (fetch(y0 + 1, x0 + 1), w11),
                ];
                for c in 0..3 {
                    let mut val = 0.0f32;
                    for (p, wt) in &n {
                        if let Some(p) = p {
                            val += f32::from(p[c]) * wt;
                        }
                    }
                    px[c] = lut[((val + 0.5) as usize).min(255)];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(w: u32, h: u32) -> Vec<u8> {
        let mut v = Vec::new();
        for y in 0..h {
            for x in 0..w {
                v.extend_from_slice(&[(x * 10) as u8, (y * 10) as u8, 7]);
            }
        }
        v
    }

    #[test]
    fn identity_crop_reproduces_pixels() {
        let data = gradient(8, 8);
        let img = RgbView::new("t", 8, 8, &data).unwrap();
        // A 4x4 rect whose top-left edge is at pixel 2: output u samples x = 2 + u.
        let rect = PixelRect {
            cx: 4.0,
            cy: 4.0,
            width: 4.0,
            height: 4.0,
            rotation: 0.0,
        };
        let mut out = vec![0f32; 4 * 4 * 3];
        warp_into(&img, &rect, 4, Border::Zero, 0.0, 255.0, &mut out);
        for v in 0..4 {
            for u in 0..4 {
                let p = &out[(v * 4 + u) * 3..][..3];
                assert_eq!(p, &[((2 + u) * 10) as f32, ((2 + v) * 10) as f32, 7.0]);
            }
        }
    }

    #[test]
    fn half_pixel_is_bilinear_and_rounded() {
        let data = gradient(4, 4);
        let img = RgbView::new("t", 4, 4, &data).unwrap();
        let rect = PixelRect {
            cx: 1.5,
            cy: 1.0,
            width: 1.0,
            height: 1.0,
            rotation: 0.0,
        };
        let mut out = vec![0f32; 3];
        warp_into(&img, &rect, 1, Border::Zero, 0.0, 255.0, &mut out);
        // samples (1.0, 0.5): x = 10, y between 0 and 10 -> 5
        assert_eq!(out, vec![10.0, 5.0, 7.0]);
    }

    #[test]
    fn rotation_by_quarter_turn() {
        let data = gradient(8, 8);
        let img = RgbView::new("t", 8, 8, &data).unwrap();
        let rect = PixelRect {
            cx: 4.0,
            cy: 4.0,
            width: 4.0,
            height: 4.0,
            rotation: std::f64::consts::FRAC_PI_2,
        };
        let mut out = vec![0f32; 4 * 4 * 3];
        warp_into(&img, &rect, 4, Border::Zero, 0.0, 255.0, &mut out);
        // x = 4 - (v/4 - 0.5)*4 = 6 - v, y = 4 + (u/4 - 0.5)*4 = 2 + u
        let p = &out[(4 + 3) * 3..][..3]; // u = 3, v = 1
        assert_eq!(p, &[50.0, 50.0, 7.0]);
    }

    #[test]
    fn borders() {
        let data = vec![200u8; 2 * 2 * 3];
        let img = RgbView::new("t", 2, 2, &data).unwrap();
        let rect = PixelRect {
            cx: 1.0,
            cy: 1.0,
            width: 8.0,
            height: 8.0,
            rotation: 0.3,
        };
        let mut out = vec![0f32; 8 * 8 * 3];
        warp_into(&img, &rect, 8, Border::Replicate, -1.0, 1.0, &mut out);
        let expect = 200.0 * 2.0 / 255.0 - 1.0;
        assert!(out.iter().all(|v| (v - expect).abs() < 1e-6));
        warp_into(&img, &rect, 8, Border::Zero, -1.0, 1.0, &mut out);
        assert_eq!(out[0], -1.0);
        // a 1x1 image and absurd rectangles do not panic
        let one = [9u8, 9, 9];
        let img = RgbView::new("t", 1, 1, &one).unwrap();
        for rect in [
            PixelRect {
                cx: 0.0,
                cy: 0.0,
                width: 1e30,
                height: 1e-30,
                rotation: 1.0,
            },
            PixelRect {
                cx: f64::NAN,
                cy: 0.0,
                width: 1.0,
                height: 1.0,
                rotation: 0.0,
            },
        ] {
            warp_into(&img, &rect, 8, Border::Replicate, 0.0, 1.0, &mut out);
            warp_into(&img, &rect, 8, Border::Zero, 0.0, 1.0, &mut out);
        }
    }
}
