//! The core's numeric sanitising, in one place: how per-frame code turns NaN, infinities
//! and out-of-range numbers into usable ones (the "fails only at construction, then
//! clamps" rule of `ARCHITECTURE.md`).
//!
//! Every function here is total: none panics, whatever the input (unlike
//! [`f32::clamp`], which panics when `lo > hi` or either end is NaN), and none returns
//! NaN for finite ends.

/// `v` if it is finite, else `fallback` (NaN and ±∞ alike).
#[inline]
pub(crate) fn finite_or(v: f32, fallback: f32) -> f32 {
    if v.is_finite() { v } else { fallback }
}

/// `v` if it is finite, else 0 (NaN and ±∞ alike).
#[inline]
pub(crate) fn finite_or_zero(v: f32) -> f32 {
    finite_or(v, 0.0)
}

/// `v` if it is finite and > 0, else 0: a usable time step or delay (negative, NaN and
/// ±∞ count as no time at all; −0 becomes +0). A subnormal `v` (below
/// `f32::MIN_POSITIVE`, 1.2e-38 s) is no time too: the exact filters divide by the step,
/// and `τ / dt` overflows to ∞ there (∞ · 0 = NaN in a still head).
#[inline]
pub(crate) fn positive_or_zero(v: f32) -> f32 {
    if v.is_normal() && v > 0.0 { v } else { 0.0 }
}

/// `v` clamped to `[0, 1]`; NaN becomes 0 (so −∞ → 0, +∞ → 1). The rule for weights,
/// masks and visibilities.
#[inline]
pub(crate) fn clamp01(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// `v` clamped to `[lo, hi]` without panicking: if `lo > hi`, `hi` wins; a NaN `v`
/// gives `lo`. For finite ends the result is finite.
#[inline]
pub(crate) fn clamp_to(v: f32, lo: f32, hi: f32) -> f32 {
    v.max(lo).min(hi)
}

/// `v` clamped to `[lo, hi]`, or `fallback` (itself clamped to `[lo, hi]`) when `v` is
/// NaN or infinite. The rule for config numbers: a finite value out of range is taken
/// to mean "as far as allowed", a non-finite one "not set".
#[inline]
pub(crate) fn clamp_or(v: f32, lo: f32, hi: f32, fallback: f32) -> f32 {
    clamp_to(finite_or(v, fallback), lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ODD: [f32; 7] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1e30,
        1e30,
        -0.0,
        f32::MIN_POSITIVE / 2.0,
    ];

    #[test]
    fn finite_helpers_replace_nan_and_infinities() {
        assert_eq!(finite_or(2.5, 7.0), 2.5);
        assert_eq!(finite_or(f32::NAN, 7.0), 7.0);
        assert_eq!(finite_or(f32::INFINITY, 7.0), 7.0);
        assert_eq!(finite_or(f32::NEG_INFINITY, 7.0), 7.0);
        assert_eq!(finite_or_zero(-3.0), -3.0);
        assert_eq!(finite_or_zero(f32::NAN), 0.0);
        assert_eq!(finite_or_zero(f32::NEG_INFINITY), 0.0);
        assert_eq!(positive_or_zero(0.016), 0.016);
        assert_eq!(positive_or_zero(f32::MIN_POSITIVE), f32::MIN_POSITIVE);
        let subnormal = [f32::from_bits(1), f32::MIN_POSITIVE / 2.0];
        for v in [-0.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY]
            .into_iter()
            .chain(subnormal)
        {
            assert_eq!(positive_or_zero(v).to_bits(), 0.0f32.to_bits(), "{v}");
        }
    }

    #[test]
    fn clamp01_sends_nan_to_zero() {
        assert_eq!(clamp01(f32::NAN), 0.0);
        assert_eq!(clamp01(f32::INFINITY), 1.0);
        assert_eq!(clamp01(f32::NEG_INFINITY), 0.0);
        assert_eq!(clamp01(0.25), 0.25);
        assert_eq!(clamp01(1.5), 1.0);
        assert_eq!(clamp01(-0.5), 0.0);
        for v in ODD {
            assert!((0.0..=1.0).contains(&clamp01(v)), "{v}");
        }
    }

    #[test]
    fn clamping_never_panics_and_stays_in_range() {
        assert_eq!(clamp_to(5.0, 0.0, 1.0), 1.0);
        assert_eq!(clamp_to(f32::NAN, 0.2, 1.0), 0.2);
        assert_eq!(clamp_to(0.5, 2.0, 1.0), 1.0);
        assert_eq!(clamp_or(f32::NAN, 0.0, 10.0, 3.0), 3.0);
        assert_eq!(clamp_or(f32::INFINITY, 0.0, 10.0, 3.0), 3.0);
        assert_eq!(clamp_or(f32::NEG_INFINITY, 0.0, 10.0, 3.0), 3.0);
        assert_eq!(clamp_or(f32::NAN, 0.0, 10.0, 30.0), 10.0);
        assert_eq!(clamp_or(-4.0, 0.0, 10.0, 3.0), 0.0);
        assert_eq!(clamp_or(1e30, 0.0, 10.0, 3.0), 10.0);
        for v in ODD {
            for fallback in ODD {
                let r = clamp_or(v, -1.0, 1.0, fallback);
                assert!((-1.0..=1.0).contains(&r), "{v} {fallback} -> {r}");
            }
        }
    }
}
