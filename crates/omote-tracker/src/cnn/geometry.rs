//! The geometry of a 2-D convolution over a channels-last input: sizes, kernel,
//! stride, zero padding and the output size they give. Written once here; the
//! depthwise kernel ([`super::depthwise`]) and the gather of dense convolutions
//! ([`super::im2col`]) both carry one.

/// Where a convolution's windows fall on its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConvGeometry {
    /// Input channels.
    pub c: usize,
    /// Input height.
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
}

impl ConvGeometry {
    /// A `kh x kw` kernel at `stride` over an `h x w x c` input with
    /// `(top, left, bottom, right)` rows and columns of zero padding; the output
    /// size follows (the last window that fits whole).
    ///
    /// # Panics
    /// If the kernel is larger than the padded input or the stride is 0.
    pub fn new(
        c: usize,
        (h, w): (usize, usize),
        (kh, kw): (usize, usize),
        stride: usize,
        (pad_top, pad_left, pad_bottom, pad_right): (usize, usize, usize, usize),
    ) -> Self {
        Self {
            c,
            h,
            w,
            kh,
            kw,
            stride,
            pad_top,
            pad_left,
            oh: (h + pad_top + pad_bottom - kh) / stride + 1,
            ow: (w + pad_left + pad_right - kw) / stride + 1,
        }
    }

    /// Kernel rows `[ky0, ky1)` of output row `oy` that fall inside the input, and
    /// the input row under kernel row 0 (negative in the padding).
    #[inline(always)]
    pub fn row_taps(&self, oy: usize) -> (usize, usize, isize) {
        self.taps(oy, self.pad_top, self.kh, self.h)
    }

    /// Kernel columns `[kx0, kx1)` of output column `ox` that fall inside the
    /// input, and the input column under kernel column 0 (negative in the padding).
    #[inline(always)]
    pub fn column_taps(&self, ox: usize) -> (usize, usize, isize) {
        self.taps(ox, self.pad_left, self.kw, self.w)
    }

    /// Valid kernel offsets `[k0, k1)` for output coordinate `o` along an axis of
    /// `size` input pixels with `pad` zeros before it and `k` taps.
    #[inline(always)]
    fn taps(&self, o: usize, pad: usize, k: usize, size: usize) -> (usize, usize, isize) {
        let start = (o * self.stride) as isize - pad as isize;
        let k0 = (-start).max(0) as usize;
        let k1 = (size as isize - start).clamp(0, k as isize) as usize;
        (k0, k1.max(k0), start)
    }

    /// Output columns `[lo, hi)` whose `kw` taps all fall inside the input.
    pub fn interior_columns(&self, kw: usize) -> (usize, usize) {
        let lo = self.pad_left.div_ceil(self.stride);
        let hi = if self.w + self.pad_left >= kw {
            ((self.w + self.pad_left - kw) / self.stride + 1).min(self.ow)
        } else {
            0
        };
        (lo.min(hi), hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_size_is_the_last_whole_window() {
        // 3x3, stride 2, padding 0/1 (TensorFlow's "same" for an even input).
        let g = ConvGeometry::new(8, (128, 96), (3, 3), 2, (0, 0, 1, 1));
        assert_eq!((g.oh, g.ow), (64, 48));
        // 5x5, stride 1, padding 2 all round: the size stays.
        let g = ConvGeometry::new(3, (7, 9), (5, 5), 1, (2, 2, 2, 2));
        assert_eq!((g.oh, g.ow), (7, 9));
        // No padding: only whole windows.
        let g = ConvGeometry::new(1, (5, 6), (3, 2), 2, (0, 0, 0, 0));
        assert_eq!((g.oh, g.ow), (2, 3));
    }

    #[test]
    fn taps_skip_the_padding_and_interior_columns_need_none() {
        let g = ConvGeometry::new(8, (5, 5), (3, 3), 1, (1, 1, 1, 1));
        // The first output row's and column's tap 0 is in the padding.
        assert_eq!(g.row_taps(0), (1, 3, -1));
        assert_eq!(g.column_taps(0), (1, 3, -1));
        assert_eq!(g.column_taps(2), (0, 3, 1));
        // The last one's tap 2 is.
        assert_eq!(g.column_taps(4), (0, 2, 3));
        assert_eq!(g.interior_columns(3), (1, 4));
    }
}
