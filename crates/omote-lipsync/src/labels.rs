//! Phone label files (`start end class phone`, tab separated, seconds) as used by the
//! speech dev set and the training generator, and per-frame classes from them.

use crate::{LipsyncError, Viseme};

/// One labelled segment.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelSegment {
    /// Start (s).
    pub start_s: f64,
    /// End (s).
    pub end_s: f64,
    /// The class; `None` is silence (`S`).
    pub class: Option<Viseme>,
    /// The synthesiser's or aligner's phone symbol.
    pub phone: String,
    /// Its line in the label file (from 1; 0 for a segment made in code), for messages.
    pub line: usize,
}

/// Parses a label file's text; `name` is used in errors.
pub fn parse_labels(text: &str, name: &str) -> Result<Vec<LabelSegment>, LipsyncError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if i == 0 && line.starts_with("start") {
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let err = |reason: String| LipsyncError::Labels {
            name: name.into(),
            line: i + 1,
            reason,
        };
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            return Err(err(format!(
                "expected 4 tab-separated columns, got {}",
                cols.len()
            )));
        }
        let start_s: f64 = cols[0]
            .trim()
            .parse()
            .map_err(|_| err(format!("bad start {:?}", cols[0])))?;
        let end_s: f64 = cols[1]
            .trim()
            .parse()
            .map_err(|_| err(format!("bad end {:?}", cols[1])))?;
        if !(start_s.is_finite() && end_s.is_finite() && end_s >= start_s) {
            return Err(err(format!("bad span {start_s}..{end_s}")));
        }
        if start_s < 0.0 {
            return Err(err(format!(
                "starts at {start_s} s, before the clip (times are seconds from its start)"
            )));
        }
        let c = cols[2].trim();
        let class = match c {
            "S" => None,
            _ => Some(
                c.chars()
                    .next()
                    .filter(|_| c.len() == 1)
                    .and_then(Viseme::from_letter)
                    .ok_or_else(|| err(format!("unknown class {c:?} (expected A I U E O N S)")))?,
            ),
        };
        out.push(LabelSegment {
            start_s,
            end_s,
            class,
            phone: cols.get(3).unwrap_or(&"").trim().to_string(),
            line: i + 1,
        });
    }
    Ok(out)
}

/// Frames (10 ms) of a labelled clip usable for training: frames whose centre lies at
/// least `margin_s` inside a segment. Returns `(frame index, class)`; silence is `None`.
pub fn training_frames(
    labels: &[LabelSegment],
    n_frames: usize,
    margin_s: f64,
) -> Vec<(usize, Option<Viseme>)> {
    training_frames_with_phones(labels, n_frames, margin_s)
        .into_iter()
        .map(|(i, class, _)| (i, class))
        .collect()
}

/// [`training_frames`] with each frame's phone symbol.
pub fn training_frames_with_phones(
    labels: &[LabelSegment],
    n_frames: usize,
    margin_s: f64,
) -> Vec<(usize, Option<Viseme>, &str)> {
    let mut out = Vec::new();
    for seg in labels {
        let first = ((seg.start_s + margin_s) * 100.0 - 0.5).ceil().max(0.0) as usize;
        let mut i = first;
        while i < n_frames && (i as f64 + 0.5) / 100.0 <= seg.end_s - margin_s + 1e-9 {
            out.push((i, seg.class, seg.phone.as_str()));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_before_the_clip_is_refused_naming_the_line() {
        let text = "start\tend\tclass\tphone\n0.0\t0.1\tS\tsil\n-0.5\t0.2\tA\ta\n";
        let e = parse_labels(text, "x.lab.tsv").unwrap_err().to_string();
        assert!(e.contains("x.lab.tsv"), "{e}");
        assert!(e.contains("x.lab.tsv:3:"), "{e}");
        assert!(e.contains("before the clip"), "{e}");
        let ok = parse_labels("0.0\t0.1\tS\tsil\n\n0.1\t0.3\tA\ta\n", "y").unwrap();
        assert_eq!(ok.iter().map(|s| s.line).collect::<Vec<_>>(), [1, 3]);
    }
}
