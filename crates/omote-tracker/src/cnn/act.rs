//! Activations fused into the layer that produces their input.

/// What follows a convolution: nothing, or PReLU with per-channel slopes
/// (`x > 0 ? x : slope·x`; ReLU is PReLU with zero slopes).
///
/// PReLU is computed as `max(x, 0) + min(x, 0)·slope`: the same value, but
/// without a data-dependent branch (activations are positive or negative at
/// random, so a branch mispredicts constantly) and in vector instructions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Act {
    /// Identity.
    None,
    /// `x > 0 ? x : slope[c]·x`, slopes zero-padded to whole weight panels.
    Prelu(Vec<f32>),
}

impl Act {
    /// PReLU with `slopes`, zero-padded to `padded` channels.
    pub fn prelu(slopes: &[f32], padded: usize) -> Self {
        let mut s = vec![0.0; padded.max(slopes.len())];
        s[..slopes.len()].copy_from_slice(slopes);
        Act::Prelu(s)
    }

    /// Applies the activation to `NR` channels starting at channel `c0`.
    #[inline(always)]
    pub fn apply_panel<const NR: usize>(&self, v: &mut [f32; NR], c0: usize) {
        if let Act::Prelu(s) = self {
            let s: &[f32; NR] = s[c0..c0 + NR].try_into().expect("slope panel");
            for j in 0..NR {
                v[j] = prelu(v[j], s[j]);
            }
        }
    }

    /// Applies the activation to a run of channels starting at channel `c0`.
    #[inline(always)]
    pub fn apply(&self, v: &mut [f32], c0: usize) {
        if let Act::Prelu(s) = self {
            for (x, s) in v.iter_mut().zip(&s[c0..]) {
                *x = prelu(*x, *s);
            }
        }
    }
}

/// `x > 0 ? x : x·slope`, branch-free.
#[inline(always)]
fn prelu(x: f32, slope: f32) -> f32 {
    x.max(0.0) + x.min(0.0) * slope
}
