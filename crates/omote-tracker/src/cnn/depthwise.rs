//! Depthwise convolution (one filter per channel), channels-last.
//!
//! In `HWC` layout the channels of one pixel are contiguous, so the filter taps
//! of eight channels at a time are one vector multiply-add each; the accumulator
//! of an output pixel stays in registers across the `kh x kw` taps and is stored
//! once, with bias and activation already applied. Taps that fall in the zero
//! padding are skipped rather than read.

use super::act::Act;
use super::isa::{Isa, madd};

/// Channels handled per vector step.
const LANES: usize = 8;

/// A depthwise convolution with its geometry and weights.
#[derive(Debug, Clone)]
pub(crate) struct Depthwise {
    /// Channels.
    pub c: usize,
    /// Input height and width.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Kernel height.
    pub kh: usize,
    /// Kernel width.
    pub kw: usize,
    /// Stride (both axes).
    pub stride: usize,
    /// Zero rows above the input.
    pub pad_top: usize,
    /// Zero columns left of the input.
    pub pad_left: usize,
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
    /// `[kh·kw][c]`: tap-major so a tap's channels are contiguous.
    pub weights: Vec<f32>,
    /// Bias per channel.
    pub bias: Vec<f32>,
    /// Fused activation.
    pub act: Act,
}

impl Depthwise {
    /// Valid kernel offsets `[k0, k1)` for output coordinate `o` along an axis of
    /// `size` input pixels.
    #[inline(always)]
    fn taps(&self, o: usize, pad: usize, k: usize, size: usize) -> (usize, usize, isize) {
        let start = (o * self.stride) as isize - pad as isize;
        let k0 = (-start).max(0) as usize;
        let k1 = (size as isize - start).clamp(0, k as isize) as usize;
        (k0, k1.max(k0), start)
    }

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
        if !(self.kh == 3 && self.kw == 3 && self.c.is_multiple_of(LANES)) {
            return self.run_with::<true>(input, out);
        }
        // 3x3: the interior of each row in intrinsics, the borders as usual.
        let (lo, hi) = self.interior_columns(3);
        for oy in 0..self.oh {
            let iy = (oy * self.stride) as isize - self.pad_top as isize;
            if iy < 0 || iy as usize + 3 > self.h {
                for ox in 0..self.ow {
                    self.pixel::<true>(oy, ox, input, out);
                }
                continue;
            }
            for ox in (0..lo).chain(hi.max(lo)..self.ow) {
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
        // The usual kernels get a fixed-size loop for the interior (all taps inside
        // the input): unrolled, no per-pixel tap bounds. Borders and other shapes
        // take the general path.
        if self.c.is_multiple_of(LANES) {
            match (self.kh, self.kw) {
                (3, 3) => return self.run_k::<3, 3, FMA>(input, out),
                (5, 5) => return self.run_k::<5, 5, FMA>(input, out),
                _ => {}
            }
        }
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                self.pixel::<FMA>(oy, ox, input, out);
            }
        }
    }

    /// Output columns `[lo, hi)` whose taps all fall inside the input.
    fn interior_columns(&self, kw: usize) -> (usize, usize) {
        let lo = self.pad_left.div_ceil(self.stride);
        let hi = if self.w + self.pad_left >= kw {
            ((self.w + self.pad_left - kw) / self.stride + 1).min(self.ow)
        } else {
            0
        };
        (lo.min(hi), hi)
    }

    #[inline(always)]
    fn run_k<const KH: usize, const KW: usize, const FMA: bool>(
        &self,
        input: &[f32],
        out: &mut [f32],
    ) {
        let c = self.c;
        let (lo, hi) = self.interior_columns(KW);
        for oy in 0..self.oh {
            let iy = (oy * self.stride) as isize - self.pad_top as isize;
            if iy < 0 || iy as usize + KH > self.h {
                for ox in 0..self.ow {
                    self.pixel::<FMA>(oy, ox, input, out);
                }
                continue;
            }
            let iy = iy as usize;
            for ox in 0..lo {
                self.pixel::<FMA>(oy, ox, input, out);
            }
            for ox in lo..hi {
                let ix = ox * self.stride - self.pad_left;
                let o = &mut out[(oy * self.ow + ox) * c..][..c];
                for c0 in (0..c).step_by(LANES) {
                    let mut acc: [f32; LANES] =
                        self.bias[c0..c0 + LANES].try_into().expect("lanes");
                    for ky in 0..KH {
                        let base = ((iy + ky) * self.w + ix) * c + c0;
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
            for ox in hi.max(lo)..self.ow {
                self.pixel::<FMA>(oy, ox, input, out);
            }
        }
    }

    /// One output pixel, any kernel, taps in the padding skipped.
    #[inline(always)]
    fn pixel<const FMA: bool>(&self, oy: usize, ox: usize, input: &[f32], out: &mut [f32]) {
        let c = self.c;
        let full = c / LANES * LANES;
        let (ky0, ky1, iy) = self.taps(oy, self.pad_top, self.kh, self.h);
        let (kx0, kx1, ix) = self.taps(ox, self.pad_left, self.kw, self.w);
        let o = &mut out[(oy * self.ow + ox) * c..][..c];
        for c0 in (0..full).step_by(LANES) {
            let mut acc: [f32; LANES] = self.bias[c0..c0 + LANES].try_into().expect("lanes");
            for ky in ky0..ky1 {
                let row = (iy + ky as isize) as usize * self.w;
                for kx in kx0..kx1 {
                    let px = row + (ix + kx as isize) as usize;
                    let i: &[f32; LANES] = input[px * c + c0..][..LANES].try_into().expect("lanes");
                    let t = (ky * self.kw + kx) * c + c0;
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
                let row = (iy + ky as isize) as usize * self.w;
                for kx in kx0..kx1 {
                    let px = row + (ix + kx as isize) as usize;
                    let wt = self.weights[(ky * self.kw + kx) * c + ch];
                    acc = madd::<FMA>(input[px * c + ch], wt, acc);
                }
            }
            o[ch] = acc;
        }
        self.act.apply(&mut o[full..], full);
    }
}
