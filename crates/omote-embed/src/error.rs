//! The one error type of the embedding API. A binding adds the name of its call (the
//! web package's `Speaker.addLine: …`) and turns it into its language's error.

/// What a call got wrong. Every message says what was given and what is taken.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum EmbedError {
    /// No samples to analyse.
    #[error("the sample buffer is empty")]
    NoSamples,
    /// A sample rate outside what omote reads, or not a whole number of Hz.
    #[error("sample rate {rate} Hz is not a whole number of Hz from {min} to {max}")]
    SampleRate {
        /// The rate given.
        rate: f64,
        /// The lowest rate taken.
        min: u32,
        /// The highest rate taken.
        max: u32,
    },
    /// A sample that is NaN or infinite.
    #[error("sample {index} is {value} (samples must be finite numbers)")]
    NonFiniteSample {
        /// Its index.
        index: usize,
        /// What it was.
        value: f32,
    },
    /// The rig description could not be read.
    #[error("the avatar description is not valid: {0}")]
    Rig(String),
    /// An avatar with no expressions: nothing to drive. Holds the avatar's name (its
    /// file) when the caller knows it ([`crate::Character::from_avatar`]).
    #[error(
        "{}the avatar has no expressions (its VRM defines none): there is nothing to drive",
        .0.as_deref().map(|name| format!("{name}: ")).unwrap_or_default()
    )]
    NoExpressions(Option<String>),
    /// A name the avatar does not have.
    #[error("the avatar has no expression `{0}`")]
    UnknownExpression(String),
    /// An argument that is not what the call takes (a NaN weight, a zero quaternion, …).
    #[error("{0}")]
    Argument(String),
    /// Numbers that are not a voice seed.
    #[error(transparent)]
    VoiceSeed(#[from] omote_lipsync::VoiceSeedError),
    /// A blink request or an eye-change announcement that was not taken.
    #[error("{0}")]
    EyeRequest(#[from] omote_core::eyes::EyeRequestError),
    /// A live voice stream that has begun cannot start from a speaker any more.
    #[error("the stream has begun: start from a speaker before the first push")]
    StreamStarted,
    /// The avatar could not be loaded.
    #[cfg(feature = "avatar")]
    #[error("{0}")]
    Avatar(String),
    /// A file that is not there: an audio file, an avatar, a scene, or a file a scene
    /// names (the message names it; a binding reports it as its missing-file error).
    #[error("{0}")]
    FileNotFound(String),
    /// An audio file that could not be read or decoded (the message names it).
    #[error("{0}")]
    AudioFile(String),
    /// A lip sync profile that could not be read, or a calibration that could not be made
    /// (a card take whose syllables were not heard as its text has them).
    #[error("{0}")]
    VoiceProfile(String),
    /// Resampling failed.
    #[error("resampling: {0}")]
    Audio(String),
    /// A scene could not be loaded: the message names the file, the line and the field
    /// (`scene.toml:40: character[0].gaze[1].t: -1 is not a time in seconds …`). A file the
    /// scene names that is not there is [`EmbedError::FileNotFound`].
    #[cfg(feature = "scene")]
    #[error("{0}")]
    Scene(String),
    /// An anim that cannot be written (not a valid anim, or not for that VRM).
    #[error("the anim cannot be written: {0}")]
    Anim(String),
}

impl EmbedError {
    /// A file that is not there, in the words every binding uses: `PATH: no such file`.
    pub fn file_not_found(path: &std::path::Path) -> Self {
        EmbedError::FileNotFound(omote_fs::no_such_file(path))
    }
}
