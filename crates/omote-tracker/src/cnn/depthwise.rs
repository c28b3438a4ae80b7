//! Depthwise convolution (one filter per channel), channels-last.
//!
//! In `HWC` layout the channels of one pixel are contiguous, so the filter taps
//! of eight channels at a time are one vector multiply-add each; the accumulator
//! of an output pixel stays in registers across the `kh x kw` taps and is stored
//! once, with bias and activation already applied. Taps that fall in the zero
//! padding are skipped rather than read.

use super::act::Act;
use super::geometry::ConvGeometry;
use super::isa::{Isa, madd};

/// Channels handled per vector step.
const LANES: usize = 8;

/// A depthwise convolution with its geometry and weights.
#[derive(Debug, Clone)]
pub(crate) struct Depthwise {
    /// Sizes, kernel, stride, padding.
    pub geom: ConvGeometry,
    /// `[kh·kw][c]`: tap-major so a tap's channels are contiguous.
    pub weights: Vec<f32>,
    /// Bias per channel.
    pub bias: Vec<f32>,
    /// Fused activation.
    pub act: Act,
}

impl Depthwise {
    /// Runs the convolution: `input` is `h x w x c`, `out` is `oh x ow x c`.
    pub fn run(&self, isa: Isa, input: &[f32], out: &mut [f32]) {
        match isa {
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            // SAFETY: `Isa::Avx2` and `Avx512` are only chosen when the CPU reports
            // avx2 and fma.
            Isa::Avx2 | Isa::Avx512 => unsafe { self.run_avx2(input, out) },
            Isa::Generic => self.run_with::<false>(input, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn run_avx2(&self, input: &[f32], out: &mut [f32]) {
        let g = &self.geom;
        if !(g.kh == 3 && g.kw == 3 && g.c.is_multiple_of(LANES)) {
            return self.run_with::<true>(input, out);
        }
        // 3x3: the interior of each row in intrinsics, the borders as usual.
        let (lo, hi) = g.interior_columns(3);
        for oy in 0..g.oh {
            let iy = (oy * g.stride) as isize - g.pad_top as isize;
            if iy < 0 || iy as usize + 3 > g.h {
                for ox in 0..g.ow {
                    self.pixel::<true>(oy, ox, input, out);
                }
                continue;
            }
            for ox in (0..lo).chain(hi.max(lo)..g.ow) {
                self.pixel::<true>(oy, ox, input, out);
            }
            // SAFETY: this function runs only where AVX2 and FMA are present.
            #[allow(unsafe_code)]
            unsafe {
                self.interior_row_3x3(input, out, oy, iy as usize, (lo, hi))
            };
        }
    }

    /// The portable loop with fused multiply-adds (what the intrinsics must equal).
    #[cfg(all(test, target_arch = "x86_64"))]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn run_portable_fma(&self, input: &[f32], out: &mut [f32]) {
        self.run_with::<true>(input, out);
    }

    #[inline(always)]
    fn run_with<const FMA: bool>(&self, input: &[f32], out: &mut [f32]) {
        let g = &self.geom;
        // The usual kernels get a fixed-size loop for the interior (all taps inside
        // the input): unrolled, no per-pixel tap bounds. Borders and other shapes
        // take the general path.
        if g.c.is_multiple_of(LANES) {
            match (g.kh, g.kw) {
                (3, 3) => return self.run_k::<3, 3, FMA>(input, out),
                (5, 5) => return self.run_k::<5, 5, FMA>(input, out),
                _ => {}
            }
        }
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                self.pixel::<FMA>(oy, ox, input, out);
            }
        }
    }

    #[inline(always)]
    fn run_k<const KH: usize, const KW: usize, const FMA: bool>(
        &self,
        input: &[f32],
        out: &mut [f32],
    ) {
        let g = &self.geom;
        let c = g.c;
        let (lo, hi) = g.interior_columns(KW);
        for oy in 0..g.oh {
            let iy = (oy * g.stride) as isize - g.pad_top as isize;
            if iy < 0 || iy as usize + KH > g.h {
                for ox in 0..g.ow {
                    self.pixel::<FMA>(oy, ox, input, out);
                }
                continue;
            }
            let iy = iy as usize;
            for ox in 0..lo {
                self.pixel::<FMA>(oy, ox, input, out);
            }
            for ox in lo..hi {
                let ix = ox * g.stride - g.pad_left;
                let o = &mut out[(oy * g.ow + ox) * c..][..c];
                for c0 in (0..c).step_by(LANES) {
                    let mut acc: [f32; LANES] =
                        self.bias[c0..c0 + LANES].try_into().expect("lanes");
                    for ky in 0..KH {
                        let base = ((iy + ky) * g.w + ix) * c + c0;
                        let taps = &input[base..base + (KW - 1) * c + LANES];
                        let wrow = &self.weights[ky * KW * c + c0..];
                        for kx in 0..KW {
                            let i: &[f32; LANES] =
                                taps[kx * c..kx * c + LANES].try_into().expect("lanes");
                            let wt: &[f32; LANES] =
                                wrow[kx * c..kx * c + LANES].try_into().expect("lanes");
                            for j in 0..LANES {
                                acc[j] = madd::<FMA>(i[j], wt[j], acc[j]);
                            }
                        }
                    }
                    self.act.apply_panel(&mut acc, c0);
                    o[c0..c0 + LANES].copy_from_slice(&acc);
                }
            }
            for ox in hi.max(lo)..g.ow {
                self.pixel::<FMA>(oy, ox, input, out);
            }
        }
    }

    /// One output pixel, any kernel, taps in the padding skipped.
    #[inline(always)]
    fn pixel<const FMA: bool>(&self, oy: usize, ox: usize, input: &[f32], out: &mut [f32]) {
        let g = &self.geom;
        let c = g.c;
        let full = c / LANES * LANES;
        let (ky0, ky1, iy) = g.row_taps(oy);
        let (kx0, kx1, ix) = g.column_taps(ox);
        let o = &mut out[(oy * g.ow + ox) * c..][..c];
        for c0 in (0..full).step_by(LANES) {
            let mut acc: [f32; LANES] = self.bias[c0..c0 + LANES].try_into().expect("lanes");
            for ky in ky0..ky1 {
                let row = (iy + ky as isize) as usize * g.w;
                for kx in kx0..kx1 {
                    let px = row + (ix + kx as isize) as usize;
                    let i: &[f32; LANES] = input[px * c + c0..][..LANES].try_into().expect("lanes");
                    let t = (ky * g.kw + kx) * c + c0;
                    let wt: &[f32; LANES] = self.weights[t..t + LANES].try_into().expect("lanes");
                    for j in 0..LANES {
                        acc[j] = madd::<FMA>(i[j], wt[j], acc[j]);
                    }
                }
            }
            self.act.apply_panel(&mut acc, c0);
            o[c0..c0 + LANES].copy_from_slice(&acc);
        }
        for ch in full..c {
            let mut acc = self.bias[ch];
            for ky in ky0..ky1 {
                let row = (iy + ky as isize) as usize * g.w;
                for kx in kx0..kx1 {
                    let px = row + (ix + kx as isize) as usize;
                    let wt = self.weights[(ky * g.kw + kx) * c + ch];
                    acc = madd::<FMA>(input[px * c + ch], wt, acc);
                }
            }
            o[ch] = acc;
        }
        self.act.apply(&mut o[full..], full);
    }
}
