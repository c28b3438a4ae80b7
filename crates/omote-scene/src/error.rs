//! Scene file errors: always the file, the line when there is one, the field, in words.

use std::fmt;
use std::path::Path;

/// What is wrong with a scene file (or a file it names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneFileError {
    /// The scene file.
    pub file: String,
    /// 1-based line in the scene file, when the problem is at one.
    pub line: Option<usize>,
    /// The field (`character[1].line[0].audio`), when there is one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// Whether what is wrong is a file that is not there (the scene, or one it names),
    /// which the bindings report as a missing file rather than a bad one.
    pub missing_file: bool,
}

impl SceneFileError {
    /// An error about the whole file.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            file: path.display().to_string(),
            line: None,
            field: None,
            message: message.into(),
            missing_file: false,
        }
    }

    /// An error at a line and field.
    pub fn at(
        path: &Path,
        line: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: path.display().to_string(),
            line: Some(line),
            field: Some(field.into()),
            message: message.into(),
            missing_file: false,
        }
    }

    /// The same error, marked as a file that is not there.
    pub fn of_missing_file(self) -> Self {
        self.missing_if(true)
    }

    /// The same error, marked as a file that is not there when `missing` (a reader's
    /// `missing_file()` said so).
    pub fn missing_if(self, missing: bool) -> Self {
        Self {
            missing_file: self.missing_file || missing,
            ..self
        }
    }
}

impl fmt::Display for SceneFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SceneFileError {}

/// The 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
