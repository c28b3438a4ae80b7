//! The AVX2 + FMA matrix product of [`super::gemm`], written with intrinsics.
//!
//! The portable kernel (`gemm.rs`) leaves vectorisation to LLVM, which needs the
//! activation rows transposed into a packed tile first and applies `f32::max`/`min`
//! with NaN fix-ups; on the small reductions of these networks (k = 8..32 for most
//! layers) that packing and the epilogue cost as much as the product. Here each
//! activation is broadcast straight from its row, the `MR x NR` accumulators are
//! named vector registers, and bias, residual and PReLU are applied in registers.
//!
//! The arithmetic is the portable kernel's, operation for operation: the same fused
//! multiply-adds in the same order, then `+ bias`, `+ residual`, and
//! `max(x, 0) + min(x, 0)·slope` (`vmaxps`/`vminps` return the second operand, 0, for
//! a NaN, as `f32::max`/`min` do). The results are bit-identical (tested).

#![allow(unsafe_code)] // intrinsics: raw loads and stores, bounds checked on entry

use std::arch::x86_64::{
    __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_max_ps,
    _mm256_min_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
};

use super::act::Act;
use super::gemm::{PackedWeights, check_kernel_bounds, padded};

/// Lanes of one `__m256`.
const L: usize = 8;

/// `out[rows x w.n] = act(a[rows x w.k] · w + bias + residual)`; see
/// [`super::gemm::gemm`].
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn gemm(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
) {
    // Every access below stays inside these bounds.
    check_kernel_bounds(a, rows, w, residual, out);
    // SAFETY (all calls): the bounds above; the tiles stay inside `rows`.
    unsafe {
        if w.nr == 16 {
            let full = rows / 6 * 6;
            for m0 in (0..full).step_by(6) {
                tile::<6, 2>(a, m0, w, residual, out);
            }
            for m0 in full..rows {
                tile::<1, 2>(a, m0, w, residual, out);
            }
        } else {
            // Eight rows, not twelve: each row's broadcast needs its own address
            // register, and twelve of them spill.
            let full = rows / 8 * 8;
            for m0 in (0..full).step_by(8) {
                tile::<8, 1>(a, m0, w, residual, out);
            }
            for m0 in full..rows {
                tile::<1, 1>(a, m0, w, residual, out);
            }
        }
    }
}

/// Rows `m0 .. m0 + MR` across every panel; panels are `V` vectors (`V·8` columns)
/// wide.
///
/// # Safety
/// AVX2 + FMA, and the bounds checked in [`gemm`] with `m0 + MR <= rows`.
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn tile<const MR: usize, const V: usize>(
    a: &[f32],
    m0: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
) {
    let (k, n) = (w.k, w.n);
    let nr = V * L;
    let a0 = a.as_ptr();
    for (p, panel) in w.data.chunks_exact(k * nr).enumerate() {
        let mut acc = [[_mm256_setzero_ps(); V]; MR];
        let mut b = panel.as_ptr();
        for kk in 0..k {
            // SAFETY: `kk < k` and `b` walks the panel's `k` rows of `nr` floats.
            unsafe {
                let bv: [__m256; V] = std::array::from_fn(|v| _mm256_loadu_ps(b.add(v * L)));
                for (m, acc) in acc.iter_mut().enumerate() {
                    let av = _mm256_broadcast_ss(&*a0.add((m0 + m) * k + kk));
                    for v in 0..V {
                        acc[v] = _mm256_fmadd_ps(av, bv[v], acc[v]);
                    }
                }
                b = b.add(nr);
            }
        }
        let n0 = p * nr;
        for (m, acc) in acc.iter().enumerate() {
            let row = m0 + m;
            for (v, &x) in acc.iter().enumerate() {
                let c0 = n0 + v * L;
                if c0 >= n {
                    break;
                }
                // SAFETY: bias and slopes are padded to whole panels; the residual
                // and output are read and written only below their row's width.
                unsafe {
                    let mut x = _mm256_add_ps(x, _mm256_loadu_ps(w.bias.as_ptr().add(c0)));
                    if let Some((res, res_n)) = residual
                        && c0 < res_n
                    {
                        let r = &res[row * res_n + c0..(row + 1) * res_n];
                        x = _mm256_add_ps(x, load_part(r));
                    }
                    if let Act::Prelu(s) = &w.act {
                        x = prelu(x, _mm256_loadu_ps(s.as_ptr().add(c0)));
                    }
                    let o = &mut out[row * n + c0..(row + 1) * n];
                    store_part(o, x);
                }
            }
        }
    }
}

/// `max(x, 0) + min(x, 0)·slope`, lane by lane: the portable kernels' PReLU (`vmaxps`
/// and `vminps` return 0 for a NaN, as `f32::max`/`min` do). Also the depthwise kernel's.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn prelu(x: __m256, slope: __m256) -> __m256 {
    let zero = _mm256_setzero_ps();
    _mm256_add_ps(
        _mm256_max_ps(x, zero),
        _mm256_mul_ps(_mm256_min_ps(x, zero), slope),
    )
}

/// Up to eight floats of `r` (missing lanes are zero).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_part(r: &[f32]) -> __m256 {
    let t;
    let p = if r.len() >= L {
        r.as_ptr()
    } else {
        t = padded::<L>(r);
        t.as_ptr()
    };
    // SAFETY: eight floats at `p`.
    unsafe { _mm256_loadu_ps(p) }
}

/// Stores the first `min(8, o.len())` lanes of `x` into `o`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_part(o: &mut [f32], x: __m256) {
    if o.len() >= L {
        // SAFETY: room for eight floats.
        unsafe { _mm256_storeu_ps(o.as_mut_ptr(), x) }
    } else {
        let mut t = [0f32; L];
        // SAFETY: a local array of eight.
        unsafe { _mm256_storeu_ps(t.as_mut_ptr(), x) };
        let len = o.len();
        o.copy_from_slice(&t[..len]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::gemm::{MAX_MR, PackedWeights, gemm_portable_fma};
    use super::*;

    /// A fixed pseudo-random sequence in [-1, 1) (xorshift), with a few exact zeros.
    fn values(seed: u32, len: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2_654_435_761) | 1;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if i % 17 == 0 {
                    0.0
                } else {
                    (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
                }
            })
            .collect()
    }

    /// Every panel width, reduction length and tail the networks use (and odd ones):
    /// the intrinsics kernels (AVX2; AVX-512 where the CPU has it) give the portable
    /// kernel's numbers exactly.
    #[test]
    fn intrinsics_kernel_equals_the_portable_one_bit_for_bit() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            eprintln!("skipped: this CPU has no AVX2 + FMA");
            return;
        }
        let avx512 = is_x86_feature_detected!("avx512f");
        let mut cases = 0;
        for (k, n) in [
            (8, 16),
            (16, 8),
            (27, 16),
            (75, 24),
            (24, 28),
            (42, 48),
            (3, 5),
            (512, 39),
        ] {
            for rows in [1, 5, 6, 7, 12, 13, 29] {
                for (res_n, prelu) in [(0, false), (n, true), (n.min(10), true), (n / 2, false)] {
                    let seed = (k * 1000 + n * 10 + rows) as u32;
                    let a = values(seed, rows * k);
                    let wv = values(seed + 1, k * n);
                    let bias = values(seed + 2, n);
                    let mut w = PackedWeights::new(k, n, &bias, |kk, c| wv[kk * n + c]);
                    if prelu {
                        w.act = Act::prelu(&values(seed + 3, n), w.bias.len());
                    }
                    let res = values(seed + 4, rows * res_n.max(1));
                    let residual = (res_n > 0).then_some((&res[..], res_n));
                    let mut want = vec![f32::NAN; rows * n];
                    let mut pack = vec![0.0; MAX_MR * k];
                    // SAFETY: AVX2 and FMA were checked above.
                    unsafe { gemm_portable_fma(&a, rows, &w, residual, &mut want, &mut pack) };
                    let mut got = vec![f32::NAN; rows * n];
                    // SAFETY: as above.
                    unsafe { gemm(&a, rows, &w, residual, &mut got) };
                    let mut kernels = vec![("avx2", got)];
                    if w.nr == 16 && avx512 {
                        let mut got = vec![f32::NAN; rows * n];
                        // SAFETY: AVX-512F was checked above; the panels are 16 wide.
                        unsafe {
                            super::super::gemm_avx512::gemm(&a, rows, &w, residual, &mut got)
                        };
                        kernels.push(("avx512", got));
                    }
                    for (kernel, got) in kernels {
                        for (i, (x, y)) in want.iter().zip(&got).enumerate() {
                            assert!(
                                x == y,
                                "{kernel}: k {k} n {n} rows {rows} res {res_n} prelu {prelu}: element {i}: {x} vs {y}"
                            );
                        }
                        cases += 1;
                    }
                }
            }
        }
        // Both kernels on the six shapes with 16-wide panels (AVX-512 CPUs).
        assert_eq!(cases, 8 * 7 * 4 + if avx512 { 6 * 7 * 4 } else { 0 });
    }
}
