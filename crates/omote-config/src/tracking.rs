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

/// The frames of a JSON-lines file, and what was left out of them.
#[derive(Debug, Clone)]
pub struct Sequence<T> {
    /// One per line that holds a frame, in file order.
    pub frames: Vec<T>,
    /// Set when the file ends inside its last line (a recording stopped mid-write):
    /// that line is left out, the frames before it are kept, and this says so.
    pub warnings: Vec<String>,
}

/// Read a tracking sequence: one JSON frame per line (`*.jsonl`). Blank lines are
/// skipped; an error names the file and the line. A last line the file ends inside is
/// left out with a warning, not an error: a take cut off by a crash keeps its frames.
pub fn load_tracking_sequence(path: &Path) -> Result<Sequence<MediaPipeFrame>, ConfigError> {
    read_lines(path, |frame: &MediaPipeFrame, line| {
        check(frame, path, Some(line))
    })
}

/// Read an ARKit-52 sequence (one [`ArkitFrame`] per line), with
/// [`load_tracking_sequence`]'s rules for blank lines, errors and a cut last line.
pub fn load_arkit_sequence(path: &Path) -> Result<Sequence<ArkitFrame>, ConfigError> {
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
) -> Result<Sequence<T>, ConfigError> {
    let text =
        omote_fs::read_to_string(path, omote_fs::Limit::DATA).map_err(|error| ConfigError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    // A crashed writer may leave NUL padding after what it wrote; a BOM is no frame.
    let text = text.trim_end_matches('\0');
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The one line that may be cut short: the last, when no newline ends the file.
    let open_line = (!text.ends_with('\n')).then(|| text.lines().count());
    let mut out = Vec::new();
    let mut warnings = Vec::new();
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
        let item: T = match parse(line, Format::Json, path) {
            Ok(item) => item,
            Err(_) if open_line == Some(i + 1) && not_one_whole_value(line) => {
                let kept = match out.len() {
                    1 => "the frame".to_string(),
                    n => format!("the {n} frames"),
                };
                warnings.push(format!(
                    "{}: line {} is cut short (the file ends inside it, as when a recording \
                     stops mid-write); read {kept} before it",
                    path.display(),
                    i + 1,
                ));
                break;
            }
            Err(e) => return Err(at_line(e)),
        };
        check_line(&item, i + 1)?;
        out.push(item);
    }
    if out.is_empty() {
        let why = match open_line {
            Some(line) if !warnings.is_empty() => format!(
                "the sequence has no whole frame: line {line}, its first, is cut short (the file ends inside it)"
            ),
            _ => "the sequence has no frames".to_string(),
        };
        return Err(ConfigError::invalid(path, why));
    }
    Ok(Sequence {
        frames: out,
        warnings,
    })
}

/// True when `line` is not one whole JSON value (on the open last line: the start of
/// one that the file ends inside), as opposed to a whole value of the wrong shape. Not
/// only serde_json's end-of-input error: a cut right after `-`, `.` or `e` in a number
/// is an invalid number to it.
fn not_one_whole_value(line: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(line).is_err()
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
