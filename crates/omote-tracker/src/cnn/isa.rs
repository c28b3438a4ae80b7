//! Run-time choice of the instruction set.
//!
//! The crate is compiled for baseline x86-64 (SSE2): users and CI run it on other
//! CPUs, so `-C target-cpu=native` is not an option. The kernels are therefore
//! written once as `#[inline(always)]` generic code and instantiated inside
//! functions compiled with `#[target_feature(enable = "avx2,fma")]`, chosen when
//! the network is built if the CPU reports both. `FMA` selects fused
//! multiply-add (without the `fma` feature `f32::mul_add` is a slow libm call).
//!
//! An AVX-512 instantiation was tried: LLVM's code for these loops with
//! `avx512f` enabled was slower than the AVX2 code (up to 4x for some tile
//! shapes), so AVX-512 CPUs run the AVX2 kernels.

/// The instruction set the kernels run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Baseline (SSE2 on x86-64, whatever the target has elsewhere).
    Generic,
    /// AVX2 + FMA.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Isa {
    /// The best instruction set this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
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
