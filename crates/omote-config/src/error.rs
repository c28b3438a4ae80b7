//! The one error type of this crate.

use std::path::PathBuf;

/// Why a data file could not be read. The message always starts with the file path.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read at all.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
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
    /// A validation error for `path`.
    pub fn invalid(path: &std::path::Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}
