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

/// Where a file's bytes come from: [`std::fs::read`], or a host's own store (an
/// engine's assets, an archive, memory). Paths are as the caller resolved them.
pub type ReadFile<'a> = &'a dyn Fn(&Path) -> std::io::Result<Vec<u8>>;

/// Read and parse a TOML or JSON file (by extension) into `T`: a regular file of at most
/// [`omote_fs::Limit::CONFIG`].
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    load_with(path, &config_file)
}

/// A config file from the filesystem (the default [`ReadFile`]): a regular file of at
/// most [`omote_fs::Limit::CONFIG`] (a FIFO, a device, a huge file refused unread).
pub fn config_file(path: &Path) -> std::io::Result<Vec<u8>> {
    omote_fs::read(path, omote_fs::Limit::CONFIG)
}

/// A data file from the filesystem (an anim, tracking frames): a regular file of at most
/// [`omote_fs::Limit::DATA`].
pub fn data_file(path: &Path) -> std::io::Result<Vec<u8>> {
    omote_fs::read(path, omote_fs::Limit::DATA)
}

/// [`load`] with the file's bytes from `read`; errors are [`load`]'s, word for word.
pub fn load_with<T: DeserializeOwned>(path: &Path, read: ReadFile<'_>) -> Result<T, ConfigError> {
    let Some(format) = Format::from_path(path) else {
        // A name mistyped is a file that is not there before it is a file of no known
        // type: say the first.
        return Err(match read(path) {
            Err(error) => ConfigError::Io {
                path: path.to_path_buf(),
                error,
            },
            Ok(_) => ConfigError::UnknownFormat {
                path: path.to_path_buf(),
            },
        });
    };
    let text = read_text(path, read).map_err(|error| ConfigError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    parse(&text, format, path)
}

/// A text file's contents from `read`: its bytes as UTF-8, refused as
/// [`std::fs::read_to_string`] refuses them (the same error, the same words).
pub fn read_text(path: &Path, read: ReadFile<'_>) -> std::io::Result<String> {
    omote_fs::utf8_text(read(path)?)
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
        Format::Json => parse_json(text, path),
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

/// [`parse`] for JSON alone: a caller that reads only JSON (the bindings' tracking
/// settings, `omote_embed::tracking_settings`) instantiates no TOML reader.
pub fn parse_json<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T, ConfigError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let message = format!("{}", e.into_inner());
        ConfigError::Parse {
            path: path.to_path_buf(),
            field: if field == "." { String::new() } else { field },
            message,
        }
    })
}

#[cfg(test)]
mod read_tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_is_refused_in_words_with_the_filesystems_kind() {
        let dir = std::env::temp_dir().join(format!("omote-config-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, [b'a', 0xff, 0xfe]).unwrap();
        let fs = std::fs::read_to_string(&path).unwrap_err();
        let ours = read_text(&path, &|p| std::fs::read(p)).unwrap_err();
        assert_eq!(ours.kind(), fs.kind());
        assert_eq!(ours.to_string(), "not UTF-8 text");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
