//! Errors of the core. The core fails only while things are built; per-frame code
//! clamps and sanitises instead.

use thiserror::Error;

/// Why a rig could not be built. `field` names the offending field in rig-file terms.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum RigError {
    /// Two expressions share a name.
    #[error("expression name `{name}` appears more than once")]
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// An expression has an empty name.
    #[error("expressions[{index}].name is empty")]
    EmptyName {
        /// Position in the expression list.
        index: usize,
    },
    /// More channels than indices allow.
    #[error("{count} expressions; at most {max} are supported")]
    TooManyChannels {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A lookAt range map has a negative or non-finite number.
    #[error(
        "lookAt.{field} must be finite and non-negative (inputMaxValue {input_max_value}, outputScale {output_scale})"
    )]
    InvalidRangeMap {
        /// `rangeMapHorizontalInner` etc.
        field: &'static str,
        /// The given input maximum.
        input_max_value: f32,
        /// The given output scale.
        output_scale: f32,
    },
    /// A number is NaN or infinite.
    #[error("{field} must be finite")]
    NonFinite {
        /// The field path.
        field: String,
    },
    /// A number is outside its allowed range.
    #[error("{field} = {value} is out of range")]
    OutOfRange {
        /// The field path.
        field: String,
        /// The value given.
        value: f32,
    },
}

/// Why a response curve could not be built.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum CurveError {
    /// A curve needs at least one key.
    #[error("a curve needs at least one key")]
    NoKeys,
    /// A key's number is NaN or infinite.
    #[error("keys[{index}].{field} must be finite")]
    NonFinite {
        /// Key position.
        index: usize,
        /// `t`, `v`, `in` or `out`.
        field: &'static str,
    },
    /// Key times must strictly increase.
    #[error("keys[{index}].t = {t} is not after the previous key's time {previous}")]
    NotIncreasing {
        /// Key position.
        index: usize,
        /// Its time.
        t: f32,
        /// The previous key's time.
        previous: f32,
    },
    /// An unknown preset name.
    #[error(
        "unknown curve preset `{name}` (known: linear, ease-in, ease-out, smoothstep, constant-zero, constant-one)"
    )]
    UnknownPreset {
        /// The name given.
        name: String,
    },
}

/// Why a blink or saccade setting is not usable. `field` names it in config-file terms
/// (`closeDuration.max`, `motions[0].expression`).
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum EyesConfigError {
    /// A number is NaN, infinite or outside its allowed range.
    #[error("{field} = {value} is out of range ({expected})")]
    OutOfRange {
        /// The field path.
        field: String,
        /// The value given.
        value: f32,
        /// What is allowed.
        expected: &'static str,
    },
    /// A name that the rig has no channel for.
    #[error("{field}: the rig has no channel `{name}`")]
    UnknownChannel {
        /// The field path.
        field: String,
        /// The name given.
        name: String,
    },
}

/// Why a blink request or an eye-change announcement was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EyeRequestError {
    /// Its queue is full (the limit keeps a frame free of allocation).
    #[error("the queue is full")]
    QueueFull,
    /// The face has no automatic blink ([`FaceConfig::blink`](crate::FaceConfig) is `None`).
    #[error("the automatic blink is off")]
    BlinkOff,
    /// The time given is NaN or infinite.
    #[error("the time is not a finite number")]
    NotFinite,
}

/// Why a voice line was not started: the driver has no speech (it was built without
/// [`FaceDriver::with_speech`](crate::FaceDriver::with_speech)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("the driver has no speech (voice lines are off)")]
pub struct NoSpeech;

impl From<crate::bounds::OutOfBounds> for EyesConfigError {
    fn from(e: crate::bounds::OutOfBounds) -> Self {
        Self::OutOfRange {
            field: e.field,
            value: e.value,
            expected: e.expected,
        }
    }
}
