//! A port of `shared/tools/tracking/make_sequence.py`'s frame generator: the
//! synthetic 640x480 head-motion clip made from `astronaut.png`, regenerated
//! exactly (float64, bilinear, black outside), so the VIDEO-mode reference
//! results in `astronaut_sequence.jsonl` can be checked without storing frames.

#![allow(dead_code)]

use std::f64::consts::PI;

/// Frame width.
pub const W: u32 = 640;
/// Frame height.
pub const H: u32 = 480;
/// Frames per second.
pub const FPS: f64 = 30.0;
/// Number of frames.
pub const N_FRAMES: u64 = 300;
const ANCHOR: (f64, f64) = (225.5, 124.5);

fn bump(t: f64) -> f64 {
    if !(5.5..7.5).contains(&t) {
        0.0
    } else if t < 6.0 {
        (PI / 2.0 * (t - 5.5) / 0.5).sin().powi(2)
    } else if t < 6.5 {
        1.0
    } else {
        (PI / 2.0 * (7.5 - t) / 1.0).sin().powi(2)
    }
}

/// `(roll_deg, scale, px, py)` of frame `i`.
pub fn motion(i: u64) -> (f64, f64, f64, f64) {
    let t = i as f64 / FPS;
    let roll =
        (20.0 * (2.0 * PI * t / 5.0).sin() + 5.0 * (2.0 * PI * t / 1.7).sin()).clamp(-20.0, 20.0);
    let scale = 1.5 * (1.0 + 0.3 * (2.0 * PI * t / 7.0 + 0.8).sin());
    let mut px = 320.0 + 110.0 * (2.0 * PI * t / 6.0).sin();
    let mut py = 230.0 + 50.0 * (2.0 * PI * t / 4.3 + 0.5).sin();
    let b = bump(t);
    if b > 0.0 {
        px -= (px + 260.0) * b;
    }
    if (8.5..8.8).contains(&t) {
        px = -400.0;
        py = 240.0;
    }
    (roll, scale, px, py)
}

/// Renders frame `i` from the source image `src` (`sw` x `sh` RGB) as packed RGB.
pub fn render_frame(src: &[u8], sw: u32, sh: u32, i: u64) -> Vec<u8> {
    let (roll, scale, px, py) = motion(i);
    let (s, c) = roll.to_radians().sin_cos();
    let (sw, sh) = (i64::from(sw), i64::from(sh));
    let get = |x: i64, y: i64, k: usize| -> f64 {
        if x < 0 || y < 0 || x >= sw || y >= sh {
            0.0
        } else {
            f64::from(src[(y * sw + x) as usize * 3 + k])
        }
    };
    let mut out = vec![0u8; (W * H * 3) as usize];
    for v in 0..H {
        for u in 0..W {
            let (du, dv) = (f64::from(u) - px, f64::from(v) - py);
            let x = ANCHOR.0 + (c * du - s * dv) / scale;
            let y = ANCHOR.1 + (s * du + c * dv) / scale;
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = (x - x0, y - y0);
            let (xi, yi) = (x0 as i64, y0 as i64);
            // Same rule as the generator: the 2x2 neighbourhood must lie within the
            // image padded by one black pixel, else the pixel is black.
            if xi < -1 || yi < -1 || xi + 1 > sw || yi + 1 > sh {
                continue;
            }
            for k in 0..3 {
                let val = get(xi, yi, k) * (1.0 - fx) * (1.0 - fy)
                    + get(xi + 1, yi, k) * fx * (1.0 - fy)
                    + get(xi, yi + 1, k) * (1.0 - fx) * fy
                    + get(xi + 1, yi + 1, k) * fx * fy;
                out[((v * W + u) * 3) as usize + k] = (val + 0.5).floor().clamp(0.0, 255.0) as u8;
            }
        }
    }
    out
}
