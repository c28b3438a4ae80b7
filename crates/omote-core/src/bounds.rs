//! Bounds tables, the one bounds engine of every config (the blink's, the saccades',
//! the retargeter's): each number's allowed range, written once and read by both a
//! config's `check` (which reports the first number out of range, by its file name) and
//! its `sanitized` (which forces every number into range), so the two cannot drift.
//! Errors come as [`OutOfBounds`]; each config turns it into its own error type.
//!
//! A table is a `const` array of [`Bound`] rows, one per field, in file terms
//! (`"gazeBlinkFullDeg"`). A row says what kind of value it bounds ([`Value`]: a plain
//! number, a [`Span`], or one of either per [`EyeMode`](crate::EyeMode)), where it lives
//! in the config (a [`Slot`], built by `slot!`) and its two ends ([`Limit`]).
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

use crate::eyes::eye_mode::PerMode;
use crate::sanitize::clamp_or;
use crate::span::Span;

/// A number out of its range: the field as named in files (with the mode and span end
/// where there is one: `hold.idle.min`), the value, what is allowed in words.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OutOfBounds {
    pub(crate) field: String,
    pub(crate) value: f32,
    pub(crate) expected: &'static str,
}

impl OutOfBounds {
    /// `Ok` if `value` is finite and in `[lo, hi]`.
    pub(crate) fn check(
        field: &str,
        value: f32,
        lo: f32,
        hi: f32,
        expected: &'static str,
    ) -> Result<(), Self> {
        if value.is_finite() && (lo..=hi).contains(&value) {
            Ok(())
        } else {
            Err(Self {
                field: field.to_string(),
                value,
                expected,
            })
        }
    }
}

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
        $crate::bounds::Slot::new(|c: &$c| c.$($f).+, |c: &mut $c| &mut c.$($f).+)
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
    pub(crate) fn check(&self, config: &C) -> Result<(), OutOfBounds> {
        let (lo, hi) = (self.lo(config), self.hi(config));
        let field = self.field;
        match &self.value {
            Value::Num { slot, expected } => {
                OutOfBounds::check(field, (slot.get)(config), lo, hi, expected)
            }
            Value::Span(slot) => (slot.get)(config).check(field, lo, hi),
            Value::NumPerMode { slot, expected } => {
                for (mode, v) in (slot.get)(config).iter() {
                    let field = format!("{field}.{}", mode.name());
                    OutOfBounds::check(&field, v, lo, hi, expected)?;
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
pub(crate) fn check_all<C, E: From<OutOfBounds>>(table: &[Bound<C>], config: &C) -> Result<(), E> {
    table
        .iter()
        .try_for_each(|b| b.check(config))
        .map_err(E::from)
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

/// Checks every config table must pass; the configs' tests call them.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::BTreeSet;
    use std::fmt::Debug;

    use proptest::prelude::*;
    use serde::Serialize;

    use super::*;
    use crate::eyes::eye_mode::EyeMode;

    /// Sets one number of a config.
    pub(crate) type Setter<'a, C> = Box<dyn Fn(&mut C, f32) + 'a>;

    /// The file names of the numbers this row covers, as in error messages
    /// (`interval.idle`, `closeDuration.min`), and a way to set each.
    pub(crate) fn leaves<C>(b: &Bound<C>) -> Vec<(String, Setter<'_, C>)> {
        let f = b.field;
        let mut out: Vec<(String, Setter<'_, C>)> = Vec::new();
        match &b.value {
            Value::Num { slot, .. } => {
                out.push((f.to_string(), Box::new(|c, v| *(slot.get_mut)(c) = v)));
            }
            Value::Span(slot) => {
                out.push((
                    format!("{f}.min"),
                    Box::new(|c, v| (slot.get_mut)(c).min = v),
                ));
                out.push((
                    format!("{f}.max"),
                    Box::new(|c, v| (slot.get_mut)(c).max = v),
                ));
            }
            Value::NumPerMode { slot, .. } => {
                for m in EyeMode::ALL {
                    let set = move |c: &mut C, v| *(slot.get_mut)(c).get_mut(m) = v;
                    out.push((format!("{f}.{m}"), Box::new(set)));
                }
            }
            Value::SpanPerMode(slot) => {
                for m in EyeMode::ALL {
                    let set_min = move |c: &mut C, v| (slot.get_mut)(c).get_mut(m).min = v;
                    let set_max = move |c: &mut C, v| (slot.get_mut)(c).get_mut(m).max = v;
                    out.push((format!("{f}.{m}.min"), Box::new(set_min)));
                    out.push((format!("{f}.{m}.max"), Box::new(set_max)));
                }
            }
        }
        out
    }

    /// Any number, often a wild one: NaN, ±∞, huge, negative, or near the usual ranges.
    fn number() -> impl Strategy<Value = f32> {
        prop_oneof![
            4 => -10.0f32..200.0,
            2 => -0.5f32..1.5,
            1 => Just(f32::NAN),
            1 => Just(f32::INFINITY),
            1 => Just(f32::NEG_INFINITY),
            1 => -1e30f32..1e30,
            1 => any::<f32>(),
        ]
    }

    /// `n` numbers, each `None` (keep the default) or [`number`]; the share of
    /// defaults varies per case, so that some configs are valid and others wild
    /// everywhere.
    pub(crate) fn numbers(n: usize) -> impl Strategy<Value = Numbers> {
        prop_oneof![Just(0.02), Just(0.5), Just(0.9), Just(0.98)]
            .prop_flat_map(move |wild| {
                prop::collection::vec(prop::option::weighted(wild, number()), n)
            })
            .prop_map(|v| Numbers(v.into_iter()))
    }

    /// Hands out drawn numbers, falling back to the given default for `None`.
    #[derive(Debug)]
    pub(crate) struct Numbers(std::vec::IntoIter<Option<f32>>);

    impl Numbers {
        pub(crate) fn num(&mut self, default: f32) -> f32 {
            self.0.next().expect("enough numbers").unwrap_or(default)
        }
        pub(crate) fn span(&mut self, default: Span) -> Span {
            Span::new(self.num(default.min), self.num(default.max))
        }
        pub(crate) fn num_modes(&mut self, d: PerMode<f32>) -> PerMode<f32> {
            PerMode::new(
                self.num(d.idle),
                self.num(d.talking),
                self.num(d.listening),
                self.num(d.focused),
            )
        }
        pub(crate) fn span_modes(&mut self, d: PerMode<Span>) -> PerMode<Span> {
            PerMode::new(
                self.span(d.idle),
                self.span(d.talking),
                self.span(d.listening),
                self.span(d.focused),
            )
        }
        /// Panics unless every number was used.
        pub(crate) fn finish(mut self) {
            assert!(self.0.next().is_none(), "numbers left over");
        }
    }

    /// The paths of all numbers in `config`'s file form (`interval.idle`,
    /// `closeDuration.min`), leaving out the objects named in `skip`.
    fn numbers_in_file<C: Serialize>(config: &C, skip: &[&str]) -> BTreeSet<String> {
        fn walk(v: &serde_json::Value, path: String, out: &mut BTreeSet<String>) {
            match v {
                serde_json::Value::Number(_) => {
                    out.insert(path);
                }
                serde_json::Value::Object(m) => {
                    for (k, v) in m {
                        let p = if path.is_empty() {
                            k.clone()
                        } else {
                            format!("{path}.{k}")
                        };
                        walk(v, p, out);
                    }
                }
                serde_json::Value::Array(a) => {
                    for (i, v) in a.iter().enumerate() {
                        walk(v, format!("{path}[{i}]"), out);
                    }
                }
                _ => {}
            }
        }
        let mut value = serde_json::to_value(config).unwrap();
        for k in skip {
            value.as_object_mut().unwrap().remove(*k).unwrap();
        }
        let mut out = BTreeSet::new();
        walk(&value, String::new(), &mut out);
        out
    }

    /// The table has one leaf per number of the default config's file form (apart from
    /// `skip`), under the same names.
    pub(crate) fn covers_every_number<C: Serialize + Default>(table: &[Bound<C>], skip: &[&str]) {
        let in_file = numbers_in_file(&C::default(), skip);
        let leaves: Vec<String> = table.iter().flat_map(leaves).map(|l| l.0).collect();
        let in_table: BTreeSet<String> = leaves.iter().cloned().collect();
        assert_eq!(
            in_table.len(),
            leaves.len(),
            "a field is listed twice: {leaves:?}"
        );
        assert_eq!(in_table, in_file);
    }

    /// Every leaf set to NaN or ±∞ in the default config fails `check`, with an error
    /// naming that leaf, and sanitises back to the default.
    pub(crate) fn non_finite_takes_the_default<C>(
        table: &[Bound<C>],
        check: fn(&C) -> Result<(), crate::eyes::EyesConfigError>,
        sanitized: fn(&C) -> C,
    ) where
        C: Clone + Default + PartialEq + Debug,
    {
        let default = C::default();
        assert_eq!(check(&default), Ok(()));
        for b in table {
            for (name, set) in leaves(b) {
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut c = default.clone();
                    set(&mut c, bad);
                    let err = check(&c).expect_err(&name).to_string();
                    assert!(err.starts_with(&format!("{name} = ")), "{name}: {err}");
                    assert_eq!(sanitized(&c), default, "{name} = {bad}");
                }
            }
        }
    }
}
