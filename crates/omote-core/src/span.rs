//! `Span`: a closed range a random quantity is drawn from.

use serde::{Deserialize, Serialize};

use crate::bounds::OutOfBounds;
use crate::rng::Pcg32;
use crate::sanitize::clamp_or;

/// A closed range `[min, max]` from which a value is drawn uniformly; `min == max` gives
/// a constant. In files: `{"min": 0.06, "max": 0.08}`.
///
/// ```
/// use omote_core::{Pcg32, Span};
/// let s = Span::new(0.06, 0.08);
/// let x = s.draw(&mut Pcg32::new(1));
/// assert!((0.06..=0.08).contains(&x));
/// assert!((s.mean() - 0.07).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// Smallest value.
    pub min: f32,
    /// Largest value.
    pub max: f32,
}

impl Span {
    /// `[min, max]`.
    pub const fn new(min: f32, max: f32) -> Self {
        Self { min, max }
    }

    /// Always `v`.
    pub const fn fixed(v: f32) -> Self {
        Self { min: v, max: v }
    }

    /// The middle of the range (the mean of a draw).
    pub fn mean(&self) -> f32 {
        0.5 * (self.min + self.max)
    }

    /// A uniform draw. Always takes one number from `rng`, even for a constant span,
    /// so the random stream does not depend on the settings' values.
    pub fn draw(&self, rng: &mut Pcg32) -> f32 {
        rng.range_f32(self.min, self.max).clamp(self.min, self.max)
    }

    /// Finite with `lo <= min <= max <= hi`.
    pub fn is_within(&self, lo: f32, hi: f32) -> bool {
        self.min.is_finite()
            && self.max.is_finite()
            && lo <= self.min
            && self.min <= self.max
            && self.max <= hi
    }

    /// `Ok` when [`is_within`](Self::is_within)`(lo, hi)`, else an error naming `field`.
    pub(crate) fn check(&self, field: &str, lo: f32, hi: f32) -> Result<(), OutOfBounds> {
        if self.is_within(lo, hi) {
            return Ok(());
        }
        let (sub, value) = if !(self.min.is_finite() && lo <= self.min && self.min <= hi) {
            ("min", self.min)
        } else {
            ("max", self.max)
        };
        Err(OutOfBounds {
            field: format!("{field}.{sub}"),
            value,
            expected: "a finite range with min <= max inside the allowed bounds",
        })
    }

    /// This span forced into `[lo, hi]` with `min <= max`: a non-finite end becomes
    /// `fallback`'s, each end is clamped to `[lo, hi]`, then `max` is raised to `min`.
    pub(crate) fn sanitized(self, lo: f32, hi: f32, fallback: Span) -> Span {
        let min = clamp_or(self.min, lo, hi, fallback.min);
        let max = clamp_or(self.max, lo, hi, fallback.max).max(min);
        Span { min, max }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_inside_and_check_names_the_end() {
        let mut rng = Pcg32::new(3);
        let s = Span::new(1.0, 2.0);
        for _ in 0..1000 {
            assert!((1.0..=2.0).contains(&s.draw(&mut rng)));
        }
        let e = Span::new(2.0, 1.0).check("holdDuration", 0.0, 10.0);
        assert_eq!(e.unwrap_err().field, "holdDuration.max");
        let e = Span::new(f32::NAN, 1.0).check("x", 0.0, 10.0);
        assert_eq!(e.unwrap_err().field, "x.min");
        let s = Span::new(f32::NAN, 0.5).sanitized(0.0, 1.0, Span::new(0.7, 0.8));
        assert_eq!(s, Span::new(0.7, 0.7));
    }
}
