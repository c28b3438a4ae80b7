//! Tracking input files: one MediaPipe-style JSON frame, or a JSON-lines sequence.

use std::path::Path;

use omote_core::TrackingFrame;

use crate::{ConfigError, Format, parse};

/// Read one tracking frame (`*.mediapipe.json`, the output of `omote track IMAGE`).
pub fn load_tracking_frame(path: &Path) -> Result<TrackingFrame, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let frame: TrackingFrame = parse(&text, Format::Json, path)?;
    check(&frame, path, None)?;
    Ok(frame)
}

/// Read a tracking sequence: one JSON frame per line (`*.jsonl`). Blank lines are
/// skipped; an error names the file and the line.
pub fn load_tracking_sequence(path: &Path) -> Result<Vec<TrackingFrame>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut frames = Vec::new();
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
        let frame: TrackingFrame = parse(line, Format::Json, path).map_err(at_line)?;
        check(&frame, path, Some(i + 1))?;
        frames.push(frame);
    }
    if frames.is_empty() {
        return Err(ConfigError::invalid(path, "the sequence has no frames"));
    }
    Ok(frames)
}

/// Invariants the mapping relies on: finite numbers, a usable image size.
fn check(frame: &TrackingFrame, path: &Path, line: Option<usize>) -> Result<(), ConfigError> {
    let at = line.map_or(String::new(), |l| format!("line {l}: "));
    if frame.width == 0 || frame.height == 0 {
        return Err(ConfigError::invalid(
            path,
            format!("{at}width and height must be positive"),
        ));
    }
    for (f, face) in frame.faces.iter().enumerate() {
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
