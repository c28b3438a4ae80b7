//! The one error type of omote-web; in JavaScript each becomes an `Error` with this text.

/// What a call from JavaScript got wrong.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WebError {
    /// No samples to analyse.
    #[error("{what}: the sample buffer is empty")]
    NoSamples {
        /// The call.
        what: &'static str,
    },
    /// A sample rate outside what omote reads.
    #[error("{what}: sample rate {rate} Hz is not within {min}–{max} Hz")]
    SampleRate {
        /// The call.
        what: &'static str,
        /// The rate given.
        rate: f64,
        /// The lowest rate taken.
        min: u32,
        /// The highest rate taken.
        max: u32,
    },
    /// A sample that is NaN or infinite.
    #[error("{what}: sample {index} is {value} (samples must be finite numbers)")]
    NonFiniteSample {
        /// The call.
        what: &'static str,
        /// Its index.
        index: usize,
        /// What it was.
        value: f32,
    },
    /// The rig description could not be read.
    #[error("the avatar description is not valid: {0}")]
    Rig(String),
    /// An avatar with no expressions: nothing to drive.
    #[error("the avatar has no expressions (its VRM defines none): there is nothing to drive")]
    NoExpressions,
    /// An argument that is not what the call takes.
    #[error("{what}: {problem}")]
    Argument {
        /// The call and argument (`say: frames`).
        what: &'static str,
        /// Why it is refused.
        problem: String,
    },
    /// Resampling failed.
    #[error("resampling: {0}")]
    Audio(String),
}
