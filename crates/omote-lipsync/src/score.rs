//! The evaluation metric of `tools/score-lipsync.py`, exactly: labels every 10 ms starting
//! 15 ms inside each vowel or silence segment and ending 15 ms before its end; the
//! prediction is the output row nearest in time (as written to TSV), class S when silent
//! else the argmax of A I U E O N. Frames inside N segments are counted apart (the
//! closed-mouth share), as the reference scorer leaves them out.

use std::collections::BTreeMap;

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
    /// Closed-mouth frames (labelled N: consonants, closures) whose output is N or
    /// silent — a mouth that does not show a vowel there.
    pub closed_ok: u64,
    /// Closed-mouth frames scored (the same 15 ms margins).
    pub closed_n: u64,
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
        self.closed_ok += o.closed_ok;
        self.closed_n += o.closed_n;
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

    /// Share of closed-mouth frames shown closed, 0..1 (`None` without such frames).
    /// The vowel accuracy does not score them, so this is what keeps a profile from
    /// buying vowel accuracy by never closing the mouth.
    pub fn closed_accuracy(&self) -> Option<f64> {
        (self.closed_n > 0).then(|| self.closed_ok as f64 / self.closed_n as f64)
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

/// Every scored label frame of a clip: each labelled segment's frames every 10 ms from
/// 15 ms after its start to 15 ms before its end, with the class the track shows at the
/// output row nearest in time (`None`: silent). The one walk [`score_clip`] and
/// [`PhoneConfusion::add_clip`] share.
fn scored_frames<'a>(
    track: &'a VowelTrack,
    times: &'a [f64],
    labels: &'a [LabelSegment],
) -> impl Iterator<Item = (&'a LabelSegment, Option<Viseme>)> + 'a {
    let labels = if times.is_empty() { &[][..] } else { labels };
    labels.iter().flat_map(move |seg| {
        let last = seg.end_s - 0.015 + 1e-9;
        std::iter::successors(Some(seg.start_s + 0.015), |t| Some(t + 0.01))
            .take_while(move |t| *t <= last)
            .map(move |t| {
                // bisect_left, then prefer the previous row when strictly nearer.
                let mut i = times.partition_point(|x| *x < t);
                if i == times.len() || (i > 0 && t - times[i - 1] < times[i] - t) {
                    i -= 1;
                }
                (seg, track.frames[i].class())
            })
    })
}

/// The times of a track's rows as written.
fn written_times(track: &VowelTrack) -> Vec<f64> {
    (0..track.frames.len())
        .map(|i| written_time(track, i))
        .collect()
}

/// Scores one clip's track against its labels.
pub fn score_clip(track: &VowelTrack, labels: &[LabelSegment]) -> ScoreCounts {
    let times = written_times(track);
    let mut c = ScoreCounts::default();
    if times.is_empty() {
        return c;
    }
    for (seg, pred) in scored_frames(track, &times, labels) {
        match seg.class {
            Some(Viseme::N) => {
                c.closed_n += 1;
                c.closed_ok += u64::from(matches!(pred, None | Some(Viseme::N)));
            }
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
    }
    count_changes(track, &times, labels, &mut c);
    c
}

/// How each labelled vowel phone was read: per phone symbol (the label files' fourth
/// column), its class and the scored frames shown as A I U E O N or silent — the vowel
/// measure of [`score_clip`] taken apart by phone, so a loss shows which sounds it is in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhoneConfusion {
    /// (Phone symbol, its class) → frames read as A I U E O N and silent. A phone the
    /// labels give two classes (a mapping slip) has two rows.
    pub phones: BTreeMap<(String, Viseme), [u64; 7]>,
}

impl PhoneConfusion {
    /// Adds one clip's vowel frames (the frames [`score_clip`] scores as vowels).
    pub fn add_clip(&mut self, track: &VowelTrack, labels: &[LabelSegment]) {
        let times = written_times(track);
        for (seg, pred) in scored_frames(track, &times, labels) {
            let Some(class) = seg.class.filter(|c| *c != Viseme::N) else {
                continue;
            };
            // A label file without a phone column counts its frames under `-`.
            let phone = if seg.phone.is_empty() {
                "-"
            } else {
                &seg.phone
            };
            let row = self
                .phones
                .entry((phone.to_string(), class))
                .or_insert([0; 7]);
            row[pred.map_or(6, |p| p.index())] += 1;
        }
    }

    /// Adds another tally.
    pub fn add(&mut self, other: &PhoneConfusion) {
        for (key, row) in &other.phones {
            let mine = self.phones.entry(key.clone()).or_insert([0; 7]);
            for (m, o) in mine.iter_mut().zip(row) {
                *m += o;
            }
        }
    }

    /// Phones by frames, most first (ties by symbol).
    pub fn by_frames(&self) -> Vec<(&str, Viseme, &[u64; 7])> {
        let mut v: Vec<_> = self
            .phones
            .iter()
            .map(|((p, c), row)| (p.as_str(), *c, row))
            .collect();
        v.sort_by(|a, b| {
            b.2.iter()
                .sum::<u64>()
                .cmp(&a.2.iter().sum::<u64>())
                .then(a.0.cmp(b.0))
        });
        v
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::parse_labels;
    use crate::{FRAME_RATE, VowelFrame};

    /// A voiced frame whose leading class is `k`.
    fn lead(k: usize) -> VowelFrame {
        let mut w = [0.0; 6];
        w[k] = 0.9;
        VowelFrame {
            weights: w,
            volume: 0.5,
            silent: false,
        }
    }

    #[test]
    fn closed_mouth_frames_are_counted_apart_from_the_vowels() {
        // 0.1 s silence, 0.1 s "m" (N), 0.1 s "a".
        let labels = parse_labels(
            "start\tend\tclass\tphone\n0.000\t0.100\tS\tsil\n0.100\t0.200\tN\tm\n0.200\t0.300\tA\ta\n",
            "t",
        )
        .unwrap();
        // Silence, then N for half of the "m" and A for its other half, then A.
        let mut frames = vec![VowelFrame::SILENT; 10];
        frames.extend((0..5).map(|_| lead(5)));
        frames.extend((0..15).map(|_| lead(0)));
        let track = VowelTrack {
            fps: FRAME_RATE,
            frames,
            voiced_span: None,
            duration_s: 0.3,
        };
        let c = score_clip(&track, &labels);
        // 15 ms margins: frames at 115..185 ms of the "m" are scored, 8 of them.
        assert_eq!(c.closed_n, 8);
        assert_eq!(c.closed_ok, 4, "the N frames before 150 ms");
        assert_eq!((c.vowel_ok, c.vowel_n), (8, 8));
        assert_eq!(c.closed_accuracy(), Some(0.5));
        // A silent frame inside the "m" also shows a closed mouth.
        let mut t = track.clone();
        t.frames[16] = VowelFrame::SILENT;
        assert_eq!(score_clip(&t, &labels).closed_ok, 5);
    }

    #[test]
    fn phones_take_the_vowel_measure_apart_frame_for_frame() {
        // Two A phones and an I phone between a closure and silence.
        let labels = parse_labels(
            "start\tend\tclass\tphone\n0.000\t0.100\tS\tsil\n0.100\t0.200\tA\tAA\n\
             0.200\t0.260\tN\tm\n0.260\t0.400\tA\tAH\n0.400\t0.500\tI\tIY\n",
            "t",
        )
        .unwrap();
        // AA read as A, AH read as E then silent, IY read as I.
        let mut frames = vec![VowelFrame::SILENT; 10];
        frames.extend((0..16).map(|_| lead(0)));
        frames.extend((0..8).map(|_| lead(3)));
        frames.extend((0..6).map(|_| VowelFrame::SILENT));
        frames.extend((0..10).map(|_| lead(1)));
        let track = VowelTrack {
            fps: FRAME_RATE,
            frames,
            voiced_span: None,
            duration_s: 0.5,
        };
        let counts = score_clip(&track, &labels);
        let mut phones = PhoneConfusion::default();
        phones.add_clip(&track, &labels);
        let mut twice = phones.clone();
        twice.add(&phones);
        // Every scored vowel frame is in exactly one phone, and the classes' rows agree.
        for (k, v) in Viseme::ALL[..5].iter().enumerate() {
            let mut summed = [0u64; 7];
            for ((_, class), row) in &phones.phones {
                if class == v {
                    summed.iter_mut().zip(row).for_each(|(s, r)| *s += r);
                }
            }
            assert_eq!(summed, counts.confusion[k], "{v:?}");
        }
        assert_eq!(phones.phones.len(), 3, "no N or silence phone");
        let row = |p: &PhoneConfusion, phone: &str, class| p.phones[&(phone.to_string(), class)];
        let unnamed = parse_labels("start\tend\tclass\n0.100\t0.200\tA\n", "t").unwrap();
        let mut dash = PhoneConfusion::default();
        dash.add_clip(&track, &unnamed);
        assert_eq!(row(&dash, "-", Viseme::A), [8, 0, 0, 0, 0, 0, 0]);
        assert_eq!(row(&phones, "AA", Viseme::A), [8, 0, 0, 0, 0, 0, 0]);
        let ah = row(&phones, "AH", Viseme::A);
        assert_eq!(ah.iter().sum::<u64>(), 12);
        assert_eq!(ah[3] + ah[6], 12, "read as E, then silent: {ah:?}");
        assert!(ah[3] > 0 && ah[6] > 0, "{ah:?}");
        assert_eq!(row(&phones, "IY", Viseme::I)[1], 8);
        let order: Vec<&str> = phones.by_frames().iter().map(|(p, _, _)| *p).collect();
        assert_eq!(order, ["AH", "AA", "IY"]);
        assert_eq!(row(&twice, "AH", Viseme::A), ah.map(|v| 2 * v));
        // A phone the labels give two classes keeps them apart.
        let slip = parse_labels(
            "start\tend\tclass\tphone\n0.100\t0.200\tA\tx\n0.400\t0.500\tI\tx\n",
            "t",
        )
        .unwrap();
        let mut two = PhoneConfusion::default();
        two.add_clip(&track, &slip);
        assert_eq!(row(&two, "x", Viseme::A)[0], 8);
        assert_eq!(row(&two, "x", Viseme::I)[1], 8);
        // An empty track scores nothing and does not panic.
        let empty = VowelTrack {
            frames: Vec::new(),
            ..track
        };
        let mut none = PhoneConfusion::default();
        none.add_clip(&empty, &labels);
        assert!(none.phones.is_empty());
    }
}
