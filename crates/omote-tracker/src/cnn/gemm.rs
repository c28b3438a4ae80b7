//! Convolution as a matrix product, channels-last: `out[p, n] = act(Σ_k a[p, k] ·
//! b[k, n] + bias[n] + residual[p, n])`.
//!
//! Every dense convolution of the networks becomes this product: a 1x1
//! convolution reads the `HWC` activations directly (pixel `p`'s row is its
//! channels), a larger one gathers each output pixel's receptive field into a row
//! first ([`super::im2col`]). The weights are packed once, at load time, into
//! column panels of `NR` output channels (`[k][NR]`, zero-padded), so the inner
//! loop broadcasts one activation and multiplies a contiguous `NR`-wide weight row.
//! `MR` pixel rows share each weight load; `MR x NR` accumulators stay in vector
//! registers (the loops have constant trip counts, so LLVM unrolls and vectorises
//! them for whatever instruction set the caller was compiled for, see
//! [`super::isa`]). Bias, residual and activation are applied while the
//! accumulators are still in registers: no extra pass over the output.

use super::act::Act;
use super::isa::{Isa, madd};

/// Weights of one convolution packed into `NR`-wide column panels.
#[derive(Debug, Clone)]
pub(crate) struct PackedWeights {
    /// Panel width (8 or 16).
    pub nr: usize,
    /// Reduction length (input channels x kernel taps).
    pub k: usize,
    /// Output channels.
    pub n: usize,
    /// `ceil(n / nr)` panels of `k x nr`.
    pub data: Vec<f32>,
    /// Bias per output channel, zero-padded to a whole panel.
    pub bias: Vec<f32>,
    /// Per-channel activation slopes (see [`Act`]), zero-padded like `bias`.
    pub act: Act,
}

impl PackedWeights {
    /// Packs `w(k, n)` (a function, so any source layout works) with `bias`.
    pub fn new(k: usize, n: usize, bias: &[f32], w: impl Fn(usize, usize) -> f32) -> Self {
        let nr = if n <= 8 { 8 } else { 16 };
        let panels = n.div_ceil(nr);
        let mut data = vec![0.0; panels * k * nr];
        for p in 0..panels {
            for kk in 0..k {
                for j in 0..nr {
                    let col = p * nr + j;
                    if col < n {
                        data[(p * k + kk) * nr + j] = w(kk, col);
                    }
                }
            }
        }
        let mut padded = vec![0.0; panels * nr];
        padded[..n].copy_from_slice(bias);
        Self {
            nr,
            k,
            n,
            data,
            bias: padded,
            act: Act::None,
        }
    }
}

/// Largest tile height of any kernel shape (sizes [`gemm`]'s packing buffer).
pub(crate) const MAX_MR: usize = 12;

/// `rows` pixel rows of `a` (each `k` long, contiguous) times `w` into `out`
/// (rows of `w.n`), with `residual` rows (of `res_n <= w.n` channels, missing
/// channels count as zero) added before the activation. `pack` holds at least
/// [`MAX_MR`]` · k` values.
pub(crate) fn gemm(
    isa: Isa,
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
    pack: &mut [f32],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        // SAFETY: `Isa::Avx2` is only chosen when the CPU reports avx2 and fma.
        Isa::Avx2 => unsafe { super::gemm_avx2::gemm(a, rows, w, residual, out) },
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        // SAFETY: `Isa::Avx512` is only chosen when the CPU reports avx512f, avx2 and
        // fma; the AVX-512 kernel takes 16-wide panels.
        Isa::Avx512 => unsafe {
            if w.nr == 16 {
                super::gemm_avx512::gemm(a, rows, w, residual, out)
            } else {
                super::gemm_avx2::gemm(a, rows, w, residual, out)
            }
        },
        Isa::Generic => gemm_shape::<false>(a, rows, w, residual, out, pack),
    }
}

/// The bounds the intrinsics kernels (`gemm_avx2`, `gemm_avx512`) rely on for their
/// raw loads and stores: the same contract as [`gemm`], checked once per call.
#[cfg(target_arch = "x86_64")]
pub(super) fn check_kernel_bounds(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &[f32],
) {
    let (k, n) = (w.k, w.n);
    let padded = n.div_ceil(w.nr) * w.nr;
    assert!(a.len() >= rows * k && out.len() >= rows * n);
    assert!(w.data.len() == padded * k && w.bias.len() >= padded);
    if let Some((res, res_n)) = residual {
        assert!(res_n <= n && res.len() >= rows * res_n);
    }
    if let Act::Prelu(s) = &w.act {
        assert!(s.len() >= padded);
    }
}

/// `r` in an array of `N` (missing lanes zero): the last, partial vector of a row.
#[cfg(target_arch = "x86_64")]
pub(super) fn padded<const N: usize>(r: &[f32]) -> [f32; N] {
    let mut t = [0f32; N];
    let len = r.len().min(N);
    t[..len].copy_from_slice(&r[..len]);
    t
}

/// The portable kernel with fused multiply-adds: what [`super::gemm_avx2`] must equal.
#[cfg(all(test, target_arch = "x86_64"))]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn gemm_portable_fma(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
    pack: &mut [f32],
) {
    gemm_shape::<true>(a, rows, w, residual, out, pack);
}

/// Picks the tile shape for the panel width: `MR x NR` accumulators plus one
/// weight row and one broadcast fit the 16 vector registers of AVX2 (and the
/// shapes were checked to vectorise: LLVM's SLP vectoriser gives up on some
/// others, e.g. 8x8 or 6x8, and emits scalar code).
#[inline(always)]
fn gemm_shape<const FMA: bool>(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
    pack: &mut [f32],
) {
    if w.nr == 16 {
        gemm_mr::<6, 16, FMA>(a, rows, w, residual, out, pack);
    } else {
        gemm_mr::<12, 8, FMA>(a, rows, w, residual, out, pack);
    }
}

#[inline(always)]
fn gemm_mr<const MR: usize, const NR: usize, const FMA: bool>(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
    pack: &mut [f32],
) {
    let k = w.k;
    debug_assert_eq!(w.nr, NR);
    let full = rows / MR * MR;
    for m0 in (0..full).step_by(MR) {
        let tile = &mut pack[..MR * k];
        pack_rows::<MR>(&a[m0 * k..(m0 + MR) * k], k, tile);
        tile_rows::<MR, NR, FMA>(tile, m0, MR, w, residual, out);
    }
    // Leftover rows one at a time (a single row needs no transposition).
    for m in full..rows {
        tile_rows::<1, NR, FMA>(&a[m * k..(m + 1) * k], m, 1, w, residual, out);
    }
}

/// Transposes `MR` rows of `k` values into `k` groups of `MR` (one group per
/// reduction step), so the kernel reads a fixed-size group without bounds checks.
#[inline(always)]
fn pack_rows<const MR: usize>(a: &[f32], k: usize, out: &mut [f32]) {
    let rows: [&[f32]; MR] = std::array::from_fn(|m| &a[m * k..(m + 1) * k]);
    for (kk, col) in out[..MR * k].chunks_exact_mut(MR).enumerate() {
        for m in 0..MR {
            col[m] = rows[m][kk];
        }
    }
}

/// One tile of `MR` rows (`a` packed by [`pack_rows`]; the first `valid` rows are
/// stored) across all panels.
#[inline(always)]
fn tile_rows<const MR: usize, const NR: usize, const FMA: bool>(
    a: &[f32],
    m0: usize,
    valid: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
) {
    let (k, n) = (w.k, w.n);
    for (p, panel) in w.data.chunks_exact(k * NR).enumerate() {
        let mut acc = [[0f32; NR]; MR];
        for (acol, brow) in a.chunks_exact(MR).zip(panel.chunks_exact(NR)) {
            let acol: &[f32; MR] = acol.try_into().expect("packed column");
            let brow: &[f32; NR] = brow.try_into().expect("panel row");
            for m in 0..MR {
                for j in 0..NR {
                    acc[m][j] = madd::<FMA>(acol[m], brow[j], acc[m][j]);
                }
            }
        }
        let n0 = p * NR;
        let cols = NR.min(n - n0);
        let bias: &[f32; NR] = w.bias[n0..n0 + NR].try_into().expect("bias panel");
        // Rows are copied out by constant index (not iterated by reference) so
        // that `acc` stays in vector registers: any dynamic access to it makes
        // LLVM keep it in memory and the product loop goes scalar.
        for m in 0..MR {
            let mut row_acc = acc[m];
            let acc = &mut row_acc;
            if m >= valid {
                continue;
            }
            let row = m0 + m;
            for j in 0..NR {
                acc[j] += bias[j];
            }
            if let Some((res, res_n)) = residual
                && n0 < res_n
            {
                if res_n - n0 >= NR {
                    let r: &[f32; NR] = res[row * res_n + n0..][..NR].try_into().expect("res");
                    for j in 0..NR {
                        acc[j] += r[j];
                    }
                } else {
                    let r = &res[row * res_n + n0..(row + 1) * res_n];
                    for (a, r) in acc.iter_mut().zip(r) {
                        *a += *r;
                    }
                }
            }
            w.act.apply_panel(acc, n0);
            let o = &mut out[row * n + n0..];
            if cols == NR {
                o[..NR].copy_from_slice(acc);
            } else {
                o[..cols].copy_from_slice(&acc[..cols]);
            }
        }
    }
}
