//! Zero padding of a channels-last tensor (channels and/or borders).

/// Zero padding: `before`/`after` counts for channels, rows and columns.
#[derive(Debug, Clone)]
pub(crate) struct Pad {
    /// Input channels, height, width.
    pub c: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// `(before, after)` for channels, rows, columns.
    pub pads: [(usize, usize); 3],
}

impl Pad {
    /// Output channels, height, width.
    pub fn out_shape(&self) -> (usize, usize, usize) {
        let [pc, ph, pw] = self.pads;
        (
            self.c + pc.0 + pc.1,
            self.h + ph.0 + ph.1,
            self.w + pw.0 + pw.1,
        )
    }

    /// `input` is `h x w x c`, `out` has [`Pad::out_shape`].
    pub fn run(&self, input: &[f32], out: &mut [f32]) {
        let (oc, _, ow) = self.out_shape();
        let [pc, ph, pw] = self.pads;
        out.fill(0.0);
        for y in 0..self.h {
            for x in 0..self.w {
                let o = ((y + ph.0) * ow + x + pw.0) * oc + pc.0;
                let i = (y * self.w + x) * self.c;
                out[o..o + self.c].copy_from_slice(&input[i..i + self.c]);
            }
        }
    }
}
