//! Run-time choice of the instruction set.
//!
//! The crate is compiled for baseline x86-64 (SSE2): users and CI run it on other
//! CPUs, so `-C target-cpu=native` is not an option. The kernels are therefore
//! written once as `#[inline(always)]` generic code and instantiated inside
//! functions compiled with `#[target_feature(enable = "avx2,fma")]`, chosen when
//! the network is built if the CPU reports both. `FMA` selects fused
//! multiply-add (without the `fma` feature `f32::mul_add` is a slow libm call).
//!
//! The matrix product also has intrinsics kernels (`gemm_avx2.rs`, and
//! `gemm_avx512.rs` for AVX-512 CPUs). An AVX-512 instantiation of the generic
//! code was tried first: LLVM's code for those loops with `avx512f` enabled was
//! slower than the AVX2 code (up to 4x for some tile shapes), so every other
//! kernel runs its AVX2 code on AVX-512 CPUs.

/// The instruction set the kernels run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Baseline (SSE2 on x86-64, whatever the target has elsewhere).
    Generic,
    /// AVX2 + FMA.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512F as well (the matrix product's 16-wide panels; the rest as `Avx2`).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Isa {
    /// The best instruction set this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            if is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            return Isa::Avx2;
        }
        Isa::Generic
    }
}

/// `a·b + c`, fused when `FMA`.
#[inline(always)]
pub(crate) fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}
