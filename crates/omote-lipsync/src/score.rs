//! The evaluation metric of `tools/score-lipsync.py`, exactly: labels every 10 ms starting
//! 15 ms inside each vowel or silence segment and ending 15 ms before its end; the
//! prediction is the output row nearest in time (as written to TSV), class S when silent
//! else the argmax of A I U E O N.

use crate::labels::LabelSegment;
use crate::{Viseme, VowelTrack};

/// Scored frame counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreCounts {
    /// Vowel frames predicted right.
    pub vowel_ok: u64,
    /// Vowel frames scored.
    pub vowel_n: u64,
    /// Silence frames predicted silent.
    pub silence_ok: u64,
    /// Silence frames scored.
    pub silence_n: u64,
    /// Confusion of vowel frames: `[label][predicted]`, predicted index 6 = silent.
    pub confusion: [[u64; 7]; 5],
}

impl ScoreCounts {
    /// Adds another clip's counts.
    pub fn add(&mut self, o: &ScoreCounts) {
        self.vowel_ok += o.vowel_ok;
        self.vowel_n += o.vowel_n;
        self.silence_ok += o.silence_ok;
        self.silence_n += o.silence_n;
        for i in 0..5 {
            for j in 0..7 {
                self.confusion[i][j] += o.confusion[i][j];
            }
        }
    }

    /// Vowel accuracy 0..1 (`None` without vowel frames).
    pub fn vowel_accuracy(&self) -> Option<f64> {
        (self.vowel_n > 0).then(|| self.vowel_ok as f64 / self.vowel_n as f64)
    }

    /// Silence accuracy 0..1 (`None` without silence frames).
    pub fn silence_accuracy(&self) -> Option<f64> {
        (self.silence_n > 0).then(|| self.silence_ok as f64 / self.silence_n as f64)
    }
}

/// The time of frame `i` as the TSV export writes it (and the scorer reads it back).
pub fn written_time(track: &VowelTrack, i: usize) -> f64 {
    crate::export::format_time(track.time_of(i))
        .parse()
        .unwrap_or(0.0)
}

/// Scores one clip's track against its labels.
pub fn score_clip(track: &VowelTrack, labels: &[LabelSegment]) -> ScoreCounts {
    let times: Vec<f64> = (0..track.frames.len())
        .map(|i| written_time(track, i))
        .collect();
    let mut c = ScoreCounts::default();
    if times.is_empty() {
        return c;
    }
    for seg in labels {
        let (s, e) = (seg.start_s, seg.end_s);
        if seg.class == Some(Viseme::N) {
            continue;
        }
        let mut t = s + 0.015;
        while t <= e - 0.015 + 1e-9 {
            // bisect_left, then prefer the previous row when strictly nearer.
            let mut i = times.partition_point(|x| *x < t);
            if i == times.len() || (i > 0 && t - times[i - 1] < times[i] - t) {
                i -= 1;
            }
            let pred = track.frames[i].class();
            match seg.class {
                None => {
                    c.silence_n += 1;
                    c.silence_ok += u64::from(pred.is_none());
                }
                Some(v) => {
                    c.vowel_n += 1;
                    c.vowel_ok += u64::from(pred == Some(v));
                    let j = pred.map_or(6, |p| p.index());
                    c.confusion[v.index()][j] += 1;
                }
            }
            t += 0.01;
        }
    }
    c
}
