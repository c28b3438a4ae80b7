//! Tracking input files: one MediaPipe-style JSON frame, or a JSON-lines sequence of
//! MediaPipe or ARKit-52 frames.

use std::path::Path;

use crate::mediapipe::{ArkitFrame, MediaPipeFrame};
use serde::de::DeserializeOwned;

use crate::{ConfigError, Format, parse};

/// Read one tracking frame (`*.mediapipe.json`, the output of `omote track IMAGE`).
pub fn load_tracking_frame(path: &Path) -> Result<MediaPipeFrame, ConfigError> {
    let text =
        omote_fs::read_to_string(path, omote_fs::Limit::DATA).map_err(|error| ConfigError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    let frame: MediaPipeFrame = parse(&text, Format::Json, path)?;
    check(&frame, path, None)?;
    Ok(frame)
}

/// Read a tracking sequence: one JSON frame per line (`*.jsonl`). Blank lines are
/// skipped; an error names the file and the line.
pub fn load_tracking_sequence(path: &Path) -> Result<Vec<MediaPipeFrame>, ConfigError> {
    read_lines(path, |frame: &MediaPipeFrame, line| {
        check(frame, path, Some(line))
    })
}

/// Read an ARKit-52 sequence (one [`ArkitFrame`] per line).
pub fn load_arkit_sequence(path: &Path) -> Result<Vec<ArkitFrame>, ConfigError> {
    read_lines(path, |f: &ArkitFrame, line| {
        if f.head
            .is_some_and(|q| !q.iter().all(|v| v.is_finite()) || q.iter().all(|v| *v == 0.0))
        {
            return Err(ConfigError::invalid(
                path,
                format!("line {line}: head must be a finite, non-zero quaternion"),
            ));
        }
        Ok(())
    })
}

fn read_lines<T: DeserializeOwned>(
    path: &Path,
    check_line: impl Fn(&T, usize) -> Result<(), ConfigError>,
) -> Result<Vec<T>, ConfigError> {
    let text =
        omote_fs::read_to_string(path, omote_fs::Limit::DATA).map_err(|error| ConfigError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at_line = |e: ConfigError| match e {
            ConfigError::Parse { field, message, .. } => ConfigError::Parse {
                path: path.to_path_buf(),
                field: if field.is_empty() {
                    format!("line {}", i + 1)
                } else {
                    format!("line {}: {field}", i + 1)
                },
                message,
            },
            other => other,
        };
        let item: T = parse(line, Format::Json, path).map_err(at_line)?;
        check_line(&item, i + 1)?;
        out.push(item);
    }
    if out.is_empty() {
        return Err(ConfigError::invalid(path, "the sequence has no frames"));
    }
    Ok(out)
}

/// Invariants the mapping relies on: finite numbers, a usable image size.
fn check(frame: &MediaPipeFrame, path: &Path, line: Option<usize>) -> Result<(), ConfigError> {
    let at = line.map_or(String::new(), |l| format!("line {l}: "));
    if frame.width == 0 || frame.height == 0 {
        return Err(ConfigError::invalid(
            path,
            format!("{at}width and height must be positive"),
        ));
    }
    for (f, face) in frame.faces.iter().enumerate() {
        face.check_landmark_count()
            .map_err(|why| ConfigError::invalid(path, format!("{at}faces[{f}]: {why}")))?;
        if let Some(i) = face
            .landmarks
            .iter()
            .position(|p| !p.iter().all(|v| v.is_finite()))
        {
            return Err(ConfigError::invalid(
                path,
                format!("{at}faces[{f}].landmarks[{i}] is not finite"),
            ));
        }
        if face
            .transform
            .is_some_and(|m| !m.iter().all(|v| v.is_finite()))
        {
            return Err(ConfigError::invalid(
                path,
                format!("{at}faces[{f}].transform is not finite"),
            ));
        }
    }
    Ok(())
}
