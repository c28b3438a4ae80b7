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
            // SAFETY: `Isa::Avx2` is only chosen when the CPU reports avx2 and fma.
            Isa::Avx2 => unsafe { self.run_avx2(input, out) },
            Isa::Generic => self.run_with::<false>(input, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn run_avx2(&self, input: &[f32], out: &mut [f32]) {
        self.run_with::<true>(input, out);
    }

    #[inline(always)]
    fn run_with<const FMA: bool>(&self, input: &[f32], out: &mut [f32]) {
        let c = self.c;
        let full = c / LANES * LANES;
        for oy in 0..self.oh {
            let (ky0, ky1, iy) = self.taps(oy, self.pad_top, self.kh, self.h);
            for ox in 0..self.ow {
                let (kx0, kx1, ix) = self.taps(ox, self.pad_left, self.kw, self.w);
                let o = &mut out[(oy * self.ow + ox) * c..][..c];
                for c0 in (0..full).step_by(LANES) {
                    let mut acc: [f32; LANES] =
                        self.bias[c0..c0 + LANES].try_into().expect("lanes");
                    for ky in ky0..ky1 {
                        let row = (iy + ky as isize) as usize * self.w;
                        for kx in kx0..kx1 {
                            let px = row + (ix + kx as isize) as usize;
                            let i: &[f32; LANES] =
                                input[px * c + c0..][..LANES].try_into().expect("lanes");
                            let t = (ky * self.kw + kx) * c + c0;
                            let wt: &[f32; LANES] =
                                self.weights[t..t + LANES].try_into().expect("lanes");
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
    }
}
