//! Format detection and parsing with field paths.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::ConfigError;

/// A data file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML.
    Toml,
    /// JSON.
    Json,
}

impl Format {
    /// The format a path's extension names.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "toml" => Some(Self::Toml),
            "json" => Some(Self::Json),
            _ => None,
        }
    }
}

/// Read and parse a TOML or JSON file (by extension) into `T`.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let format = Format::from_path(path).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, format, path)
}

/// Parse text in `format` into `T`; `path` is only used in error messages.
pub fn parse<T: DeserializeOwned>(
    text: &str,
    format: Format,
    path: &Path,
) -> Result<T, ConfigError> {
    let parse_err = |field: String, message: String| ConfigError::Parse {
        path: path.to_path_buf(),
        field,
        message,
    };
    match format {
        Format::Json => {
            let de = &mut serde_json::Deserializer::from_str(text);
            serde_path_to_error::deserialize(de).map_err(|e| {
                let field = e.path().to_string();
                let inner = e.into_inner();
                let message = format!("{inner}");
                parse_err(if field == "." { String::new() } else { field }, message)
            })
        }
        Format::Toml => {
            let de = toml::Deserializer::parse(text)
                .map_err(|e| parse_err(String::new(), e.to_string()))?;
            serde_path_to_error::deserialize(de).map_err(|e| {
                let field = e.path().to_string();
                let message = e.into_inner().message().to_string();
                parse_err(if field == "." { String::new() } else { field }, message)
            })
        }
    }
}
