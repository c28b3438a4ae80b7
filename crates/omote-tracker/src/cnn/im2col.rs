//! Gathering receptive fields into rows, so that a convolution larger than 1x1
//! becomes a matrix product ([`super::gemm`]).
//!
//! Row `p` (output pixel `p`) holds, for each kernel tap `(ky, kx)` in order, the
//! `c` channels of the input pixel under that tap (zeros in the padding): in
//! channels-last layout each tap is one contiguous copy. Rows are produced a block
//! at a time into a small scratch buffer that stays in cache.

use super::geometry::ConvGeometry;

/// A gather: the geometry of the convolution it feeds.
#[derive(Debug, Clone)]
pub(crate) struct Im2col {
    /// Sizes, kernel, stride, padding.
    pub geom: ConvGeometry,
}

impl Im2col {
    /// Row length: `kh · kw · c`.
    pub fn k(&self) -> usize {
        let g = &self.geom;
        g.kh * g.kw * g.c
    }

    /// Writes rows `[p0, p0 + rows)` into `out` (`rows x k`).
    pub fn gather(&self, input: &[f32], p0: usize, rows: usize, out: &mut [f32]) {
        let g = &self.geom;
        let (c, k) = (g.c, self.k());
        for (r, row) in out[..rows * k].chunks_exact_mut(k).enumerate() {
            let p = p0 + r;
            let (oy, ox) = (p / g.ow, p % g.ow);
            let ix0 = (ox * g.stride) as isize - g.pad_left as isize;
            if ix0 >= 0 && ix0 as usize + g.kw <= g.w {
                // The whole window is inside horizontally: a kernel row's taps are
                // adjacent pixels, one contiguous run of `kw · c` values.
                self.gather_rows(input, oy, ix0 as usize, row);
                continue;
            }
            for ky in 0..g.kh {
                let iy = (oy * g.stride + ky) as isize - g.pad_top as isize;
                for kx in 0..g.kw {
                    let ix = (ox * g.stride + kx) as isize - g.pad_left as isize;
                    let dst = &mut row[(ky * g.kw + kx) * c..][..c];
                    if iy >= 0 && (iy as usize) < g.h && ix >= 0 && (ix as usize) < g.w {
                        let src = (iy as usize * g.w + ix as usize) * c;
                        let src = &input[src..src + c];
                        if let (Ok(d), Ok(s)) = (
                            <&mut [f32; 3]>::try_from(&mut *dst),
                            <&[f32; 3]>::try_from(src),
                        ) {
                            // RGB input: a fixed-size copy, not a `memcpy` call per tap.
                            *d = *s;
                        } else {
                            dst.copy_from_slice(src);
                        }
                    } else {
                        dst.fill(0.0);
                    }
                }
            }
        }
    }

    /// One row whose window lies inside the input horizontally (columns `ix0 ..
    /// ix0 + kw`): per kernel row one copy, or zeros above and below the input.
    #[inline]
    fn gather_rows(&self, input: &[f32], oy: usize, ix0: usize, row: &mut [f32]) {
        let g = &self.geom;
        let run = g.kw * g.c;
        for (ky, dst) in row.chunks_exact_mut(run).enumerate() {
            let iy = (oy * g.stride + ky) as isize - g.pad_top as isize;
            if iy < 0 || iy as usize >= g.h {
                dst.fill(0.0);
                continue;
            }
            let src = &input[(iy as usize * g.w + ix0) * g.c..][..run];
            // The networks' first convolutions (3x3 and 5x5 over RGB): fixed-size
            // copies, not a `memcpy` call per kernel row.
            match run {
                9 => copy_fixed::<9>(dst, src),
                15 => copy_fixed::<15>(dst, src),
                _ => dst.copy_from_slice(src),
            }
        }
    }
}

#[inline(always)]
fn copy_fixed<const N: usize>(dst: &mut [f32], src: &[f32]) {
    if let (Ok(d), Ok(s)) = (
        <&mut [f32; N]>::try_from(&mut *dst),
        <&[f32; N]>::try_from(src),
    ) {
        *d = *s;
    } else {
        dst.copy_from_slice(src);
    }
}
