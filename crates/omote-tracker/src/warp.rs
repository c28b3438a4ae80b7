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

/// 1.0 in the 32.32 fixed point the inner warp loop steps in.
const FIXED_ONE: f64 = 4_294_967_296.0;

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
        // Output pixels whose 2x2 neighbourhood lies inside the image form one run
        // [inside.0, inside.1) (coordinates are linear in u); they take the fast path.
        let inside = inside_run(rx, dxu, w, size).intersect(inside_run(ry, dyu, h, size));
        // Inside the run the coordinates are in [0, extent - 1), so they step in
        // 32.32 fixed point: no float work and no float-to-int conversions per
        // pixel. (Over a 256-pixel row the steps' rounding adds up to < 1e-7 px;
        // the run's margin is 1e-6 px.)
        let fixed = |v: f64| (v * FIXED_ONE).round() as i64;
        let (mut fx, mut fy) = (
            fixed(rx + inside.0 as f64 * dxu),
            fixed(ry + inside.0 as f64 * dyu),
        );
        let (step_x, step_y) = (fixed(dxu), fixed(dyu));
        for u in inside.0..inside.1 {
            // Bilinear weights in 10-bit fixed point (1/1024 px, finer than
            // OpenCV's 1/32).
            let (x0, y0) = ((fx >> 32) as usize, (fy >> 32) as usize);
            let wx = ((fx >> 22) & 1023) as i32;
            let wy = ((fy >> 22) & 1023) as i32;
            fx += step_x;
            fy += step_y;
            let i00 = y0 * stride + x0 * 3;
            let top = &data[i00..i00 + 6];
            let bottom = &data[i00 + stride..i00 + stride + 6];
            let px = &mut row[u * 3..u * 3 + 3];
            for c in 0..3 {
                let (p00, p01) = (i32::from(top[c]), i32::from(top[c + 3]));
                let (p10, p11) = (i32::from(bottom[c]), i32::from(bottom[c + 3]));
                let t = (p00 << 10) + (p01 - p00) * wx;
                let b = (p10 << 10) + (p11 - p10) * wx;
                let val = (t << 10) + (b - t) * wy;
                px[c] = lut[(((val + (1 << 19)) >> 20) as usize).min(255)];
            }
        }
        for u in (0..inside.0).chain(inside.1.max(inside.0)..size) {
            let x = (rx + u as f64 * dxu).clamp(-limit, limit);
            let y = (ry + u as f64 * dyu).clamp(-limit, limit);
            let px = &mut row[u * 3..u * 3 + 3];
            sample_border(data, w, h, stride, x, y, border, &lut, px);
        }
    }
}

/// A half-open run of output columns `[start, end)`.
#[derive(Debug, Clone, Copy)]
struct Run(usize, usize);

impl Run {
    fn intersect(self, other: Run) -> Run {
        let start = self.0.max(other.0);
        Run(start, self.1.min(other.1).max(start))
    }
}

/// The output columns `u` in `0..size` for which `c = c0 + u·dc` satisfies
/// `0 <= c` and `c + 1 < extent` with a small safety margin, so both neighbours
/// `floor(c)` and `floor(c) + 1` are inside `0..extent`.
fn inside_run(c0: f64, dc: f64, extent: i64, size: usize) -> Run {
    const MARGIN: f64 = 1e-6;
    let (lo, hi) = (MARGIN, extent as f64 - 1.0 - MARGIN);
    if hi < lo {
        return Run(0, 0);
    }
    let n = size as f64;
    let (start, end) = if dc == 0.0 {
        if (lo..=hi).contains(&c0) {
            (0.0, n)
        } else {
            (0.0, 0.0)
        }
    } else {
        let (a, b) = ((lo - c0) / dc, (hi - c0) / dc);
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        // u in [a, b]; integer u from ceil(a) to floor(b) inclusive.
        (a.ceil().max(0.0), (b.floor() + 1.0).min(n))
    };
    if start.is_nan() || end.is_nan() || start >= end {
        return Run(0, 0);
    }
    Run(start as usize, end as usize)
}

/// Bilinear sample at `(x, y)` where some neighbours may be outside the image.
#[allow(clippy::too_many_arguments)]
fn sample_border(
    data: &[u8],
    w: i64,
    h: i64,
    stride: usize,
    x: f64,
    y: f64,
    border: Border,
    lut: &[f32; 256],
    px: &mut [f32],
) {
    let (xf, yf) = (x.floor(), y.floor());
    let (fx, fy) = ((x - xf) as f32, (y - yf) as f32);
    let (x0, y0) = (xf as i64, yf as i64);
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
        (fetch(y0, x0), (1.0 - fx) * (1.0 - fy)),
        (fetch(y0, x0 + 1), fx * (1.0 - fy)),
        (fetch(y0 + 1, x0), (1.0 - fx) * fy),
        (fetch(y0 + 1, x0 + 1), fx * fy),
    ];
    for (c, out) in px.iter_mut().enumerate() {
        let mut val = 0.0f32;
        for (p, wt) in &n {
            if let Some(p) = p {
                val += f32::from(p[c]) * wt;
            }
        }
        *out = lut[((val + 0.5) as usize).min(255)];
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
    fn fast_path_agrees_with_the_border_path() {
        let (w, h) = (37u32, 23u32);
        let data: Vec<u8> = (0..w * h * 3)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        let img = RgbView::new("t", w, h, &data).unwrap();
        let lut: [f32; 256] = std::array::from_fn(|i| i as f32);
        for (rot, size) in [(0.0, 16.0), (0.4, 30.0), (-2.0, 12.0), (3.0, 40.0)] {
            let rect = PixelRect {
                cx: 18.3,
                cy: 11.7,
                width: size,
                height: size * 0.8,
                rotation: rot,
            };
            for border in [Border::Zero, Border::Replicate] {
                let mut out = vec![0f32; 20 * 20 * 3];
                warp_into(&img, &rect, 20, border, 0.0, 255.0, &mut out);
                let (sin, cos) = f64::sin_cos(rot);
                for v in 0..20 {
                    for u in 0..20 {
                        let (a, b) = (
                            (u as f64 / 20.0 - 0.5) * size,
                            (v as f64 / 20.0 - 0.5) * size * 0.8,
                        );
                        let x = rect.cx + cos * a - sin * b;
                        let y = rect.cy + sin * a + cos * b;
                        let mut want = [0f32; 3];
                        sample_border(&data, 37, 23, 37 * 3, x, y, border, &lut, &mut want);
                        let got = &out[(v * 20 + u) * 3..][..3];
                        for c in 0..3 {
                            assert!(
                                (got[c] - want[c]).abs() <= 1.0,
                                "{rot} {u},{v}: {got:?} vs {want:?}"
                            );
                        }
                    }
                }
            }
        }
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
