//! The matrix product of [`super::gemm`] for AVX-512 CPUs, with intrinsics.
//!
//! Like [`super::gemm_avx2`] (activations broadcast straight from their rows,
//! accumulators in named registers, bias, residual and PReLU applied in registers),
//! with 16-lane registers: a weight panel (16 output channels) is one register, and
//! two panels are worked on at once, so a tile of 6 rows keeps 12 accumulators. Panels
//! of 8 (layers with at most 8 outputs) stay on the AVX2 kernel.
//!
//! The arithmetic is the portable kernel's, operation for operation (the same fused
//! multiply-adds in the same order; `vmaxps`/`vminps` return 0 for a NaN as
//! `f32::max`/`min` do): bit-identical results (tested).

#![allow(unsafe_code)] // intrinsics: raw loads and stores, bounds checked on entry

use std::arch::x86_64::{
    __m512, _mm512_add_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_max_ps, _mm512_min_ps,
    _mm512_mul_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps,
};

use super::act::Act;
use super::gemm::{PackedWeights, check_kernel_bounds, padded};

/// Lanes of one `__m512`, and the panel width this kernel takes.
const L: usize = 16;

/// `out[rows x w.n] = act(a[rows x w.k] · w + bias + residual)` for 16-wide panels;
/// see [`super::gemm::gemm`].
///
/// # Safety
/// The CPU must support AVX-512F (and AVX2 + FMA), and `w.nr` must be 16.
#[target_feature(enable = "avx512f,avx2,fma")]
pub(super) unsafe fn gemm(
    a: &[f32],
    rows: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
) {
    let panels = w.n.div_ceil(L);
    // Every access below stays inside these bounds.
    assert!(w.nr == L);
    check_kernel_bounds(a, rows, w, residual, out);
    // SAFETY (all calls): the bounds above; tiles stay inside `rows` and `panels`.
    unsafe {
        let pairs = panels / 2 * 2;
        let full = rows / 6 * 6;
        for p0 in (0..pairs).step_by(2) {
            for m0 in (0..full).step_by(6) {
                tile::<6, 2>(a, m0, p0, w, residual, out);
            }
            for m0 in full..rows {
                tile::<1, 2>(a, m0, p0, w, residual, out);
            }
        }
        if pairs < panels {
            let full = rows / 8 * 8;
            for m0 in (0..full).step_by(8) {
                tile::<8, 1>(a, m0, pairs, w, residual, out);
            }
            for m0 in full..rows {
                tile::<1, 1>(a, m0, pairs, w, residual, out);
            }
        }
    }
}

/// Rows `m0 .. m0 + MR` times panels `p0 .. p0 + P`.
///
/// # Safety
/// AVX-512F, and the bounds checked in [`gemm`] with `m0 + MR <= rows` and
/// `p0 + P <= panels`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
unsafe fn tile<const MR: usize, const P: usize>(
    a: &[f32],
    m0: usize,
    p0: usize,
    w: &PackedWeights,
    residual: Option<(&[f32], usize)>,
    out: &mut [f32],
) {
    let (k, n) = (w.k, w.n);
    let a0 = a.as_ptr();
    let mut acc = [[_mm512_setzero_ps(); P]; MR];
    let mut b: [*const f32; P] = std::array::from_fn(|q| w.data[(p0 + q) * k * L..].as_ptr());
    for kk in 0..k {
        // SAFETY: `kk < k`; each `b[q]` walks its panel's `k` rows of 16 floats.
        unsafe {
            let bv: [__m512; P] = std::array::from_fn(|q| _mm512_loadu_ps(b[q]));
            for (m, acc) in acc.iter_mut().enumerate() {
                let av = _mm512_set1_ps(*a0.add((m0 + m) * k + kk));
                for q in 0..P {
                    acc[q] = _mm512_fmadd_ps(av, bv[q], acc[q]);
                }
            }
            for b in &mut b {
                *b = b.add(L);
            }
        }
    }
    for (m, acc) in acc.iter().enumerate() {
        let row = m0 + m;
        for (q, &x) in acc.iter().enumerate() {
            let c0 = (p0 + q) * L;
            if c0 >= n {
                break;
            }
            // SAFETY: bias and slopes are padded to whole panels; the residual and
            // output are read and written only below their row's width.
            unsafe {
                let mut x = _mm512_add_ps(x, _mm512_loadu_ps(w.bias.as_ptr().add(c0)));
                if let Some((res, res_n)) = residual
                    && c0 < res_n
                {
                    x = _mm512_add_ps(x, load_part(&res[row * res_n + c0..(row + 1) * res_n]));
                }
                if let Act::Prelu(s) = &w.act {
                    let s = _mm512_loadu_ps(s.as_ptr().add(c0));
                    let zero = _mm512_setzero_ps();
                    x = _mm512_add_ps(
                        _mm512_max_ps(x, zero),
                        _mm512_mul_ps(_mm512_min_ps(x, zero), s),
                    );
                }
                store_part(&mut out[row * n + c0..(row + 1) * n], x);
            }
        }
    }
}

/// Up to 16 floats of `r` (missing lanes are zero).
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load_part(r: &[f32]) -> __m512 {
    let t;
    let p = if r.len() >= L {
        r.as_ptr()
    } else {
        t = padded::<L>(r);
        t.as_ptr()
    };
    // SAFETY: sixteen floats at `p`.
    unsafe { _mm512_loadu_ps(p) }
}

/// Stores the first `min(16, o.len())` lanes of `x` into `o`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store_part(o: &mut [f32], x: __m512) {
    if o.len() >= L {
        // SAFETY: room for sixteen floats.
        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), x) }
    } else {
        let mut t = [0f32; L];
        // SAFETY: a local array of sixteen.
        unsafe { _mm512_storeu_ps(t.as_mut_ptr(), x) };
        let len = o.len();
        o.copy_from_slice(&t[..len]);
    }
}
