//! Bounds tables: each number of a config's allowed range, written once and read by
//! both its `check` (which reports the first number out of range, by its file name) and
//! its `sanitized` (which forces every number into range), so the two cannot drift.
//!
//! A table is a `const` array of [`Bound`] rows, one per field, in file terms
//! (`"gazeBlinkFullDeg"`). A row says where the number lives in the config (a [`Slot`]:
//! a plain number, a [`Span`], or one of either per [`EyeMode`]) and its two ends.
//!
//! - **Ends are closed**: a number is allowed when it is finite and `lo <= v <= hi`. An
//!   open end ("> 0", "< 1") is written as the nearest value the setting accepts
//!   (`0.001`, `0.99`).
//! - **An end may depend on other fields** ([`Limit::Of`]), e.g. `gazeBlinkFullDeg >=
//!   gazeBlinkMinDeg` or `diagonalShare <= 1 - horizontalShare`. Such a row must come
//!   after the rows of the fields it reads: `check` stops at the first bad row, and
//!   `sanitized` fixes rows in order, so the fields an end reads are valid by then.
//! - **A span's ends are also ordered** (`min <= max`), checked as one row; an error
//!   names the end (`closeDuration.max`).
//!
//! `sanitized` replaces a NaN or infinite number by that field's default (the config's
//! `Default`, the numbers of DESIGN.md) and clamps a finite out-of-range number to the
//! nearest end; a default outside an end set by other fields is clamped too. A span's
//! ends are fixed one by one and then `max` is raised to `min`. Hence for every
//! config `x`: `sanitized(x).check()` is `Ok`, and `check(x)` being `Ok` means
//! `sanitized(x) == x`.

use crate::error::EyesConfigError;
use crate::eyes::eye_mode::PerMode;
use crate::sanitize::clamp_or;
use crate::span::Span;

/// Read and write access to one value of a config `C`. Build it with `slot!(C, field)`.
pub(crate) struct Slot<C, T> {
    get: fn(&C) -> T,
    get_mut: fn(&mut C) -> &mut T,
}

impl<C, T> Slot<C, T> {
    pub(crate) const fn new(get: fn(&C) -> T, get_mut: fn(&mut C) -> &mut T) -> Self {
        Self { get, get_mut }
    }
}

/// `Slot::new` for the field path `a.b` of the config type `C`.
macro_rules! slot {
    ($c:ty, $($f:ident).+) => {
        $crate::eyes::bounds::Slot::new(|c: &$c| c.$($f).+, |c: &mut $c| &mut c.$($f).+)
    };
}
pub(crate) use slot;

/// What kind of value a row bounds.
pub(crate) enum Value<C> {
    /// One number; `expected` says in words what is allowed (for the error).
    Num {
        slot: Slot<C, f32>,
        expected: &'static str,
    },
    /// A `[min, max]` range: both ends within the bounds, `min <= max`.
    Span(Slot<C, Span>),
    /// One number per eye mode, each bounded alike (`interval.talking`).
    NumPerMode {
        slot: Slot<C, PerMode<f32>>,
        expected: &'static str,
    },
    /// One span per eye mode, each bounded alike (`hold.listening.max`).
    SpanPerMode(Slot<C, PerMode<Span>>),
}

/// One end of an allowed range (always included).
pub(crate) enum Limit<C> {
    /// A fixed number.
    At(f32),
    /// Computed from other fields of the config, which must come earlier in the table.
    Of(fn(&C) -> f32),
}

impl<C> Limit<C> {
    fn eval(&self, config: &C) -> f32 {
        match *self {
            Self::At(v) => v,
            Self::Of(f) => f(config),
        }
    }
}

/// One row of a bounds table: a field's name in files, where it lives, and its range.
pub(crate) struct Bound<C> {
    field: &'static str,
    value: Value<C>,
    lo: Limit<C>,
    hi: Limit<C>,
}

impl<C> Bound<C> {
    /// A number in `[lo, hi]`.
    pub(crate) const fn num(
        field: &'static str,
        slot: Slot<C, f32>,
        lo: Limit<C>,
        hi: Limit<C>,
        expected: &'static str,
    ) -> Self {
        let value = Value::Num { slot, expected };
        Self {
            field,
            value,
            lo,
            hi,
        }
    }

    /// A span with both ends in `[lo, hi]`.
    pub(crate) const fn span(
        field: &'static str,
        slot: Slot<C, Span>,
        lo: Limit<C>,
        hi: Limit<C>,
    ) -> Self {
        let value = Value::Span(slot);
        Self {
            field,
            value,
            lo,
            hi,
        }
    }

    /// A number per eye mode, each in `[lo, hi]`.
    pub(crate) const fn num_per_mode(
        field: &'static str,
        slot: Slot<C, PerMode<f32>>,
        lo: Limit<C>,
        hi: Limit<C>,
        expected: &'static str,
    ) -> Self {
        let value = Value::NumPerMode { slot, expected };
        Self {
            field,
            value,
            lo,
            hi,
        }
    }

    /// A span per eye mode, each with both ends in `[lo, hi]`.
    pub(crate) const fn span_per_mode(
        field: &'static str,
        slot: Slot<C, PerMode<Span>>,
        lo: Limit<C>,
        hi: Limit<C>,
    ) -> Self {
        let value = Value::SpanPerMode(slot);
        Self {
            field,
            value,
            lo,
            hi,
        }
    }

    /// The lower end for `config` (which must be valid in the rows before this one).
    pub(crate) fn lo(&self, config: &C) -> f32 {
        self.lo.eval(config)
    }

    /// The upper end for `config` (which must be valid in the rows before this one).
    pub(crate) fn hi(&self, config: &C) -> f32 {
        self.hi.eval(config)
    }

    /// `Ok` if this field of `config` is in range, else an error naming it (with the
    /// mode and span end where there is one: `hold.idle.min`).
    pub(crate) fn check(&self, config: &C) -> Result<(), EyesConfigError> {
        let (lo, hi) = (self.lo(config), self.hi(config));
        let field = self.field;
        match &self.value {
            Value::Num { slot, expected } => {
                EyesConfigError::check(field, (slot.get)(config), lo, hi, expected)
            }
            Value::Span(slot) => (slot.get)(config).check(field, lo, hi),
            Value::NumPerMode { slot, expected } => {
                for (mode, v) in (slot.get)(config).iter() {
                    let field = format!("{field}.{}", mode.name());
                    EyesConfigError::check(&field, v, lo, hi, expected)?;
                }
                Ok(())
            }
            Value::SpanPerMode(slot) => {
                for (mode, s) in (slot.get)(config).iter() {
                    s.check(&format!("{field}.{}", mode.name()), lo, hi)?;
                }
                Ok(())
            }
        }
    }

    /// Force this field of `config` into range: NaN and ±∞ take `default`'s value, finite
    /// numbers out of range are clamped to the nearest end.
    pub(crate) fn sanitize(&self, config: &mut C, default: &C) {
        let (lo, hi) = (self.lo(config), self.hi(config));
        match &self.value {
            Value::Num { slot, .. } => {
                let d = (slot.get)(default);
                let v = (slot.get_mut)(config);
                *v = clamp_or(*v, lo, hi, d);
            }
            Value::Span(slot) => {
                let d = (slot.get)(default);
                let s = (slot.get_mut)(config);
                *s = s.sanitized(lo, hi, d);
            }
            Value::NumPerMode { slot, .. } => {
                let d = (slot.get)(default);
                let m = (slot.get_mut)(config);
                for (mode, d) in d.iter() {
                    let v = m.get_mut(mode);
                    *v = clamp_or(*v, lo, hi, d);
                }
            }
            Value::SpanPerMode(slot) => {
                let d = (slot.get)(default);
                let m = (slot.get_mut)(config);
                for (mode, d) in d.iter() {
                    let s = m.get_mut(mode);
                    *s = s.sanitized(lo, hi, d);
                }
            }
        }
    }
}

/// `Ok` if every row of `table` is in range for `config`, else the first error.
pub(crate) fn check_all<C>(table: &[Bound<C>], config: &C) -> Result<(), EyesConfigError> {
    table.iter().try_for_each(|b| b.check(config))
}

/// `config` with every row of `table` forced into range, in table order (see the module
/// docs); fields not in the table are kept as they are.
pub(crate) fn sanitize_all<C: Clone + Default>(table: &[Bound<C>], config: &C) -> C {
    let default = C::default();
    let mut out = config.clone();
    for b in table {
        b.sanitize(&mut out, &default);
    }
    out
}
