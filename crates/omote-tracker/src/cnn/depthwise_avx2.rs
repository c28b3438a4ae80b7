//! The 3x3 depthwise convolution's interior with AVX2 + FMA intrinsics.
//!
//! The portable loop (`depthwise.rs`) reloads the nine filter taps for every output
//! pixel and carries one accumulator, so each pixel is a chain of nine dependent
//! multiply-adds. Here, for each group of eight channels, the nine taps stay in
//! registers while a row is swept, and four output pixels are computed at once (four
//! independent chains). Per pixel the operations and their order are the portable
//! loop's (`bias`, then the taps row by row with fused multiply-adds, then PReLU), so
//! the results are bit-identical (tested against the portable loop).

#![allow(unsafe_code)] // intrinsics: raw loads and stores, bounds checked per row

use std::arch::x86_64::{__m256, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_storeu_ps};

use super::act::Act;
use super::depthwise::Depthwise;
use super::gemm_avx2::prelu;

/// Channels per vector.
const L: usize = 8;
/// Output pixels computed together.
const PIXELS: usize = 4;

impl Depthwise {
    /// Output pixels `(oy, lo..hi)` of a 3x3 convolution whose taps all lie inside
    /// the input (rows `iy..iy + 3`, columns from `lo·stride - pad_left`), for `c` a
    /// multiple of 8.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn interior_row_3x3(
        &self,
        input: &[f32],
        out: &mut [f32],
        oy: usize,
        iy: usize,
        (lo, hi): (usize, usize),
    ) {
        let g = &self.geom;
        let (c, s) = (g.c, g.stride);
        if lo >= hi {
            return;
        }
        // Everything read or written below lies in these ranges.
        let ix_last = (hi - 1) * s - g.pad_left;
        assert!(c.is_multiple_of(L) && self.weights.len() >= 9 * c && self.bias.len() >= c);
        assert!(iy + 3 <= g.h && ix_last + 3 <= g.w && lo * s >= g.pad_left);
        assert!(input.len() >= g.h * g.w * c && out.len() >= (oy * g.ow + hi) * c);
        let slopes = match &self.act {
            Act::Prelu(v) => {
                assert!(v.len() >= c);
                Some(v.as_ptr())
            }
            Act::None => None,
        };
        let (inp, outp) = (input.as_ptr(), out.as_mut_ptr());
        // SAFETY: all offsets are inside the ranges asserted above.
        unsafe {
            for c0 in (0..c).step_by(L) {
                let wt: [__m256; 9] =
                    std::array::from_fn(|t| _mm256_loadu_ps(self.weights.as_ptr().add(t * c + c0)));
                let bias = _mm256_loadu_ps(self.bias.as_ptr().add(c0));
                let finish = |x: __m256| match slopes {
                    Some(sl) => prelu(x, _mm256_loadu_ps(sl.add(c0))),
                    None => x,
                };
                // Input offset of tap (0, 0) of output column `ox`, channel `c0`.
                let at = |ox: usize| ((iy * g.w) + ox * s - g.pad_left) * c + c0;
                let row = g.w * c;
                let mut ox = lo;
                while ox + PIXELS <= hi {
                    let mut acc = [bias; PIXELS];
                    for ky in 0..3 {
                        for kx in 0..3 {
                            let w = wt[ky * 3 + kx];
                            for (j, acc) in acc.iter_mut().enumerate() {
                                let i = _mm256_loadu_ps(inp.add(at(ox + j) + ky * row + kx * c));
                                *acc = _mm256_fmadd_ps(i, w, *acc);
                            }
                        }
                    }
                    for (j, acc) in acc.iter().enumerate() {
                        _mm256_storeu_ps(outp.add((oy * g.ow + ox + j) * c + c0), finish(*acc));
                    }
                    ox += PIXELS;
                }
                while ox < hi {
                    let mut acc = bias;
                    for ky in 0..3 {
                        for kx in 0..3 {
                            let i = _mm256_loadu_ps(inp.add(at(ox) + ky * row + kx * c));
                            acc = _mm256_fmadd_ps(i, wt[ky * 3 + kx], acc);
                        }
                    }
                    _mm256_storeu_ps(outp.add((oy * g.ow + ox) * c + c0), finish(acc));
                    ox += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Isa;
    use super::super::geometry::ConvGeometry;
    use super::*;

    fn values(seed: usize, len: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.0 - 1.0)
            .collect()
    }

    /// Strides 1 and 2, the networks' paddings, one to three channel groups, with
    /// and without PReLU: the intrinsics give the portable loop's numbers exactly.
    #[test]
    fn intrinsics_3x3_equal_the_portable_loop_bit_for_bit() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            eprintln!("skipped: this CPU has no AVX2 + FMA");
            return;
        }
        let mut cases = 0;
        for c in [8, 16, 24] {
            for (stride, pad, h, w) in [(1, 1, 9, 13), (2, 0, 12, 10), (2, 1, 11, 17), (1, 0, 5, 7)]
            {
                for prelu in [false, true] {
                    let geom = ConvGeometry::new(c, (h, w), (3, 3), stride, (pad, pad, pad, pad));
                    let (oh, ow) = (geom.oh, geom.ow);
                    let op = Depthwise {
                        geom,
                        weights: values(c + stride, 9 * c),
                        bias: values(pad + 3, c),
                        act: if prelu {
                            Act::prelu(&values(5, c), c)
                        } else {
                            Act::None
                        },
                    };
                    let input = values(h * w, h * w * c);
                    let mut want = vec![f32::NAN; oh * ow * c];
                    let mut got = vec![f32::NAN; oh * ow * c];
                    // SAFETY: AVX2 and FMA were checked above.
                    unsafe { op.run_portable_fma(&input, &mut want) };
                    op.run(Isa::Avx2, &input, &mut got);
                    for (i, (x, y)) in want.iter().zip(&got).enumerate() {
                        assert!(
                            x == y,
                            "c {c} stride {stride} pad {pad} {h}x{w}: element {i}: {x} vs {y}"
                        );
                    }
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 24);
    }
}
