//! The core's numeric hygiene in one place: per frame the core never fails, it turns
//! NaN and infinities into safe values and keeps weights in range.

/// Clamp to [0, 1]; NaN → 0.
#[inline]
pub fn clamp01(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// `v` if finite, else 0.
#[inline]
pub fn finite_or_zero(v: f32) -> f32 {
    if v.is_finite() { v } else { 0.0 }
}
