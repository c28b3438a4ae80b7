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
    /// Dominant-class changes between consecutive output frames inside labelled speech
    /// (`../shared/tools/lipsync-change-rate.py`'s measure) …
    pub changes_out: u64,
    /// … the same count for the labels …
    pub changes_label: u64,
    /// … and the output frames inside labelled speech.
    pub voiced_frames: u64,
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
        self.changes_out += o.changes_out;
        self.changes_label += o.changes_label;
        self.voiced_frames += o.voiced_frames;
    }

    /// Dominant-class changes of the output per change of the labels inside speech (1 =
    /// the mouth flips exactly as often as the phones do); `None` without label changes.
    pub fn change_ratio(&self) -> Option<f64> {
        (self.changes_label > 0).then(|| self.changes_out as f64 / self.changes_label as f64)
    }

    /// Output dominant-class changes per voiced second.
    pub fn changes_per_second(&self) -> Option<f64> {
        (self.voiced_frames > 0)
            .then(|| self.changes_out as f64 / (self.voiced_frames as f64 * 0.01))
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
    count_changes(track, &times, labels, &mut c);
    c
}

/// The change-rate measure: over output frames whose time falls in a labelled non-silent
/// segment, count changes of the output's dominant class (N when all weights are 0) and
/// of the label's class between consecutive such frames; silence restarts the count.
fn count_changes(track: &VowelTrack, times: &[f64], labels: &[LabelSegment], c: &mut ScoreCounts) {
    let mut seg = 0;
    let (mut prev_out, mut prev_label): (Option<usize>, Option<usize>) = (None, None);
    for (f, &t) in track.frames.iter().zip(times) {
        while seg < labels.len() && labels[seg].end_s <= t {
            seg += 1;
        }
        let label = labels
            .get(seg)
            .filter(|l| l.start_s <= t)
            .and_then(|l| l.class);
        let Some(label) = label else {
            (prev_out, prev_label) = (None, None);
            continue;
        };
        c.voiced_frames += 1;
        let max = f.weights.iter().copied().fold(0.0, f32::max);
        let out = if max > 0.0 {
            (0..6).fold(0, |b, k| if f.weights[k] > f.weights[b] { k } else { b })
        } else {
            Viseme::N.index()
        };
        let l = label.index();
        c.changes_out += u64::from(prev_out.is_some_and(|p| p != out));
        c.changes_label += u64::from(prev_label.is_some_and(|p| p != l));
        (prev_out, prev_label) = (Some(out), Some(l));
    }
}
