//! Max pooling without padding, channels-last (a pixel's channels are
//! contiguous, so the max runs over whole channel rows).

/// Max pooling geometry.
#[derive(Debug, Clone)]
pub(crate) struct MaxPool {
    /// Channels.
    pub c: usize,
    /// Input width (the height is implied by `oh`).
    pub w: usize,
    /// Kernel height.
    pub kh: usize,
    /// Kernel width.
    pub kw: usize,
    /// Stride (both axes).
    pub stride: usize,
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
}

impl MaxPool {
    /// `input` is `h x w x c`, `out` is `oh x ow x c`.
    #[inline(always)]
    pub fn run(&self, input: &[f32], out: &mut [f32]) {
        let c = self.c;
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                let o = &mut out[(oy * self.ow + ox) * c..][..c];
                for ky in 0..self.kh {
                    for kx in 0..self.kw {
                        let px = (oy * self.stride + ky) * self.w + ox * self.stride + kx;
                        let i = &input[px * c..][..c];
                        if ky == 0 && kx == 0 {
                            o.copy_from_slice(i);
                        } else {
                            for (o, i) in o.iter_mut().zip(i) {
                                *o = o.max(*i);
                            }
                        }
                    }
                }
            }
        }
    }
}
