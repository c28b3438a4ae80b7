//! The one error type of this crate.

use std::path::PathBuf;

/// Why a data file could not be read. The message always starts with the file path.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read at all.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error (shown in the message, so not also chained as a source).
        error: std::io::Error,
    },
    /// The extension is neither `.toml` nor `.json`.
    #[error("{path}: unknown file type (expected a .toml or .json file)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The text does not parse, or a field has the wrong type or an unknown name.
    #[error("{path}: {field}: {message}", field = if field.is_empty() { "(top level)" } else { field })]
    Parse {
        /// The file.
        path: PathBuf,
        /// The field path, e.g. `expressions[2].isBinary` (empty at the top level).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The content parsed but is not valid (duplicate names, bad ranges, …).
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
}

impl ConfigError {
    /// The file, when the error is that it is not there.
    pub fn missing_file(&self) -> Option<&std::path::Path> {
        match self {
            ConfigError::Io { path, error } if error.kind() == std::io::ErrorKind::NotFound => {
                Some(path)
            }
            _ => None,
        }
    }

    /// A validation error for `path`.
    pub fn invalid(path: &std::path::Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}
