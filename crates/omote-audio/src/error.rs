//! The one error type of omote-audio.

use std::path::PathBuf;

/// Why an audio file could not be turned into samples. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file is empty (0 bytes).
    #[error("{path}: file is empty (0 bytes)")]
    EmptyFile {
        /// The file.
        path: PathBuf,
    },
    /// No supported container or codec was recognised in the bytes.
    #[error("{path}: not a supported audio file (WAV, FLAC, OGG/Vorbis, MP3): {reason}")]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// What the prober said.
        reason: String,
    },
    /// The container was recognised but the data could not be decoded.
    #[error("{path}: corrupt audio data: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The file decodes to no samples at all (a WAV header without data): a voice
    /// reader has nothing to analyse.
    #[error("{path}: no audio samples (a header without data): nothing to analyse")]
    NoSamples {
        /// The file.
        path: PathBuf,
    },
    /// The stream declares a sample rate outside what we resample from.
    #[error("{path}: unsupported sample rate {rate} Hz (omote reads {min} to {max} Hz)")]
    SampleRate {
        /// The file (or `<memory>`).
        path: PathBuf,
        /// The declared rate.
        rate: u32,
        /// Lowest accepted rate.
        min: u32,
        /// Highest accepted rate.
        max: u32,
    },
}

impl AudioError {
    /// The file, when the error is that it is not there.
    pub fn missing_file(&self) -> Option<&std::path::Path> {
        match self {
            AudioError::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
                Some(path)
            }
            _ => None,
        }
    }

    /// Replaces the path of a variant created without one (`<memory>`), e.g. by
    /// [`crate::resample`], with `path`.
    pub fn with_path(mut self, path: &std::path::Path) -> Self {
        match &mut self {
            AudioError::Io { path: p, .. }
            | AudioError::EmptyFile { path: p }
            | AudioError::NoSamples { path: p }
            | AudioError::UnsupportedFormat { path: p, .. }
            | AudioError::Corrupt { path: p, .. }
            | AudioError::SampleRate { path: p, .. } => *p = path.to_path_buf(),
        }
        self
    }
}
