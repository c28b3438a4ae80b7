//! Rhubarb Lip Sync's exports (its TSV, JSON and XML; mouth shapes A–F and X), written as
//! Rhubarb writes them, so an importer made for Rhubarb reads ours unchanged.
//!
//! What Rhubarb's files promise, and what this keeps (its README and exporters): times in
//! hundredths of a second with two decimals; the duration cut down to whole hundredths;
//! cues that start at 0.00, touch end to end and end at the duration; a file with no cue
//! gets one zero-length X (JSON, XML). What it does with the shapes before writing them is
//! Rhubarb's animation, not its format; ours is [`rhubarb_timeline`]: a mouth shape drawn
//! for less than [`MIN_SHAPE_CS`] flickers (one or two frames of a 24 fps cartoon), and a
//! mouth does not close for a pause shorter than [`HELD_PAUSE_CS`].

use std::fmt::Write;

use crate::{Viseme, VowelFrame, VowelTrack};

/// Rhubarb mouth shape for one frame: X silent; A closed (M B P); B slightly open,
/// clenched (most consonants, EE); C open (EH, AE); D wide open (AA); E slightly rounded
/// (AO, ER); F puckered (UW, OW, W).
///
/// Our classes map: A → D (C when quiet), I → B, U → F, E → C, O → E, N → A when quiet
/// (a closed mouth) else B.
pub fn rhubarb_shape(f: &VowelFrame) -> char {
    match f.class() {
        None => 'X',
        Some(Viseme::A) => {
            if f.volume >= 0.35 {
                'D'
            } else {
                'C'
            }
        }
        Some(Viseme::I) => 'B',
        Some(Viseme::U) => 'F',
        Some(Viseme::E) => 'C',
        Some(Viseme::O) => 'E',
        Some(Viseme::N) => {
            if f.volume < 0.2 {
                'A'
            } else {
                'B'
            }
        }
    }
}

/// One Rhubarb mouth cue: `(start_s, end_s, shape)`.
pub type RhubarbCue = (f64, f64, char);

/// Rhubarb cues built a frame at a time: consecutive equal shapes merged. The one rule
/// behind [`rhubarb_cues`] (a whole track) and a stream's cues (a file too long to hold).
#[derive(Clone, Debug)]
pub struct RhubarbCues {
    dt: f64,
    open: Option<RhubarbCue>,
}

impl RhubarbCues {
    /// Cues of frames at `fps` (frame `i` spans `i / fps .. (i + 1) / fps`).
    pub fn new(fps: f32) -> Self {
        Self {
            dt: 1.0 / f64::from(fps),
            open: None,
        }
    }

    /// Adds frame `index` (frames come in order); returns the cue it ends, if any.
    pub fn push(&mut self, index: usize, f: &VowelFrame) -> Option<RhubarbCue> {
        let shape = rhubarb_shape(f);
        let (a, b) = (index as f64 * self.dt, (index + 1) as f64 * self.dt);
        match &mut self.open {
            Some(open) if open.2 == shape => {
                open.1 = b;
                None
            }
            open => open.replace((a, b, shape)),
        }
    }

    /// The last cue, after the last frame.
    pub fn finish(self) -> Option<RhubarbCue> {
        self.open
    }
}

/// The frames' shapes as cues: `(start_s, end_s, shape)`, consecutive equal shapes
/// merged (before [`rhubarb_timeline`]).
pub fn rhubarb_cues(track: &VowelTrack) -> Vec<RhubarbCue> {
    let mut cues = Vec::new();
    let mut merge = RhubarbCues::new(track.fps);
    for (i, f) in track.frames.iter().enumerate() {
        cues.extend(merge.push(i, f));
    }
    cues.extend(merge.finish());
    cues
}

/// A cue as written: `(start, end, shape)` in hundredths of a second.
pub type RhubarbTimedShape = (u64, u64, char);

/// Shortest mouth shape drawn (hundredths of a second): a shorter one is given to its
/// longer neighbour. 7 cs is under two frames at 24 fps, the rate cartoons are drawn at;
/// Rhubarb's own animation keeps its main shapes this long (its in-betweens 4 cs).
pub const MIN_SHAPE_CS: u64 = 7;

/// A pause (X) between two shapes shorter than this (hundredths of a second) holds the
/// shape before it: the mouth does not close and open again within 0.12 s.
pub const HELD_PAUSE_CS: u64 = 12;

/// A clip's duration in whole hundredths, cut down as Rhubarb cuts it.
pub fn rhubarb_duration_cs(duration_s: f64) -> u64 {
    // The small slack keeps 3.09 s (3.0899999…) at 309.
    (duration_s.max(0.0) * 100.0 + 1e-6).floor() as u64
}

/// The cues as Rhubarb's files carry them: in hundredths of a second, from 0 to the
/// duration cut down to hundredths, end to end; no mouth shape shorter than
/// [`MIN_SHAPE_CS`] and no pause inside speech shorter than [`HELD_PAUSE_CS`]. Empty when
/// the clip is shorter than 0.01 s.
pub fn rhubarb_timeline(cues: &[RhubarbCue], duration_s: f64) -> Vec<RhubarbTimedShape> {
    let end = rhubarb_duration_cs(duration_s);
    let cs = |t: f64| ((t.max(0.0) * 100.0).round() as u64).min(end);
    let mut out: Vec<RhubarbTimedShape> = Vec::with_capacity(cues.len());
    for &(a, b, shape) in cues {
        push_joined(&mut out, (cs(a), cs(b), shape));
    }
    match out.last_mut() {
        Some(last) => last.1 = end,
        None if end > 0 => out.push((0, end, 'X')),
        None => {}
    }
    if let Some(first) = out.first_mut() {
        first.0 = 0;
    }
    hold_short_pauses(&mut out);
    absorb_short_shapes(&mut out);
    out
}

/// Appends `cue`, joined to the last one when it is the same shape; a cue with no
/// length (shorter than a hundredth, rounded away) is left out.
fn push_joined(out: &mut Vec<RhubarbTimedShape>, cue: RhubarbTimedShape) {
    if cue.1 <= cue.0 {
        return;
    }
    match out.last_mut() {
        // Cues come in time order; one that does not (a caller's) never shortens it.
        Some(last) if last.2 == cue.2 => last.1 = last.1.max(cue.1),
        Some(last) => {
            // Touching, whatever the rounding did.
            let cue = (last.1, cue.1, cue.2);
            if cue.1 > cue.0 {
                out.push(cue);
            }
        }
        None => out.push(cue),
    }
}

/// Rebuilds `cues` joining neighbours of one shape.
fn rejoin(cues: &mut Vec<RhubarbTimedShape>) {
    let all = std::mem::take(cues);
    for c in all {
        push_joined(cues, c);
    }
}

/// A short X between two shapes takes the shape before it.
fn hold_short_pauses(cues: &mut Vec<RhubarbTimedShape>) {
    for k in 1..cues.len().saturating_sub(1) {
        let (a, b, shape) = cues[k];
        if shape == 'X' && b - a < HELD_PAUSE_CS {
            cues[k].2 = cues[k - 1].2;
        }
    }
    rejoin(cues);
}

/// Whether a cue is a mouth shape drawn too briefly.
fn is_short(c: &RhubarbTimedShape) -> bool {
    c.2 != 'X' && c.1 - c.0 < MIN_SHAPE_CS
}

/// Cues as a linked list, so one can join its neighbour in place.
struct CueList<'a> {
    cues: &'a mut [RhubarbTimedShape],
    prev: Vec<Option<usize>>,
    next: Vec<Option<usize>>,
    alive: Vec<bool>,
}

impl CueList<'_> {
    fn len_of(&self, k: Option<usize>) -> Option<u64> {
        k.map(|k| self.cues[k].1 - self.cues[k].0)
    }

    /// Cue `gone` joins its neighbour `into`: `into` spans both, `gone` leaves the list.
    fn join(&mut self, into: usize, gone: usize) {
        self.cues[into].0 = self.cues[into].0.min(self.cues[gone].0);
        self.cues[into].1 = self.cues[into].1.max(self.cues[gone].1);
        self.alive[gone] = false;
        let (p, q) = (self.prev[gone], self.next[gone]);
        if let Some(p) = p {
            self.next[p] = q;
        }
        if let Some(q) = q {
            self.prev[q] = p;
        }
    }
}

/// Each mouth shape shorter than [`MIN_SHAPE_CS`] goes to its longer neighbour (the one
/// before on a tie), shortest first, until none is left (an X stays as it is: the rest
/// before and after speech). A heap over a linked list: hours of cues take milliseconds.
fn absorb_short_shapes(cues: &mut Vec<RhubarbTimedShape>) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = cues.len();
    let mut heap: BinaryHeap<Reverse<(u64, u64, usize)>> = cues
        .iter()
        .enumerate()
        .filter(|(_, c)| is_short(c))
        .map(|(k, c)| Reverse((c.1 - c.0, c.0, k)))
        .collect();
    let mut list = CueList {
        prev: (0..n).map(|k| k.checked_sub(1)).collect(),
        next: (0..n).map(|k| (k + 1 < n).then_some(k + 1)).collect(),
        alive: vec![true; n],
        cues,
    };
    while let Some(Reverse((len, _, k))) = heap.pop() {
        let c = list.cues[k];
        if !list.alive[k] || c.1 - c.0 != len || !is_short(&c) {
            continue;
        }
        let into = match (list.len_of(list.prev[k]), list.len_of(list.next[k])) {
            (None, None) => continue,
            (Some(p), Some(q)) if q > p => list.next[k],
            (Some(_), _) => list.prev[k],
            (None, Some(_)) => list.next[k],
        };
        let Some(into) = into else { continue };
        list.join(into, k);
        // The shape may now meet the cue beyond: one shape, one cue.
        for beyond in [list.prev[into], list.next[into]].into_iter().flatten() {
            if list.cues[beyond].2 == list.cues[into].2 {
                list.join(into, beyond);
            }
        }
        let c = list.cues[into];
        if is_short(&c) {
            heap.push(Reverse((c.1 - c.0, c.0, into)));
        }
    }
    let alive = list.alive;
    let kept: Vec<RhubarbTimedShape> = (0..n).filter(|&k| alive[k]).map(|k| cues[k]).collect();
    *cues = kept;
}

/// Hundredths as Rhubarb writes a time: `1.05`.
fn cs_text(cs: u64) -> String {
    format!("{}.{:02}", cs / 100, cs % 100)
}

/// The timeline, or Rhubarb's one zero-length X for a clip with no cue.
fn cues_or_rest(timeline: &[RhubarbTimedShape]) -> &[RhubarbTimedShape] {
    if timeline.is_empty() {
        &[(0, 0, 'X')]
    } else {
        timeline
    }
}

/// Rhubarb's JSON export, as its text: `metadata` (`soundFile`, `duration`), then
/// `mouthCues`, one `{ "start", "end", "value" }` per line.
pub fn to_rhubarb_json(track: &VowelTrack, sound_file: &str) -> String {
    rhubarb_json(&rhubarb_cues(track), track.duration_s, sound_file)
}

/// [`to_rhubarb_json`] of cues already made (a track of `duration_s` seconds).
pub fn rhubarb_json(cues: &[RhubarbCue], duration_s: f64, sound_file: &str) -> String {
    let timeline = rhubarb_timeline(cues, duration_s);
    let cues = cues_or_rest(&timeline);
    let mut s = String::with_capacity(128 + 48 * cues.len());
    let file = serde_json::to_string(sound_file).unwrap_or_else(|_| "\"\"".into());
    let _ = write!(
        s,
        "{{\n  \"metadata\": {{\n    \"soundFile\": {file},\n    \"duration\": {}\n  }},\n  \"mouthCues\": [\n",
        cs_text(rhubarb_duration_cs(duration_s))
    );
    for (k, &(a, b, shape)) in cues.iter().enumerate() {
        if k > 0 {
            s.push_str(",\n");
        }
        let _ = write!(
            s,
            "    {{ \"start\": {}, \"end\": {}, \"value\": \"{shape}\" }}",
            cs_text(a),
            cs_text(b)
        );
    }
    s.push_str("\n  ]\n}\n");
    s
}

/// Rhubarb's TSV export: `start<TAB>shape` per cue, then the end time with X.
pub fn to_rhubarb_tsv(track: &VowelTrack) -> String {
    rhubarb_tsv(&rhubarb_cues(track), track.duration_s)
}

/// [`to_rhubarb_tsv`] of cues already made (a track of `duration_s` seconds).
pub fn rhubarb_tsv(cues: &[RhubarbCue], duration_s: f64) -> String {
    let timeline = rhubarb_timeline(cues, duration_s);
    let mut s = String::with_capacity(16 * (timeline.len() + 1));
    for &(a, _, shape) in &timeline {
        let _ = writeln!(s, "{}\t{shape}", cs_text(a));
    }
    let _ = writeln!(s, "{}\tX", cs_text(rhubarb_duration_cs(duration_s)));
    s
}

/// Rhubarb's XML export, as its text: `rhubarbResult` with `metadata` (`soundFile`,
/// `duration`) and `mouthCues`, one `<mouthCue start end>SHAPE</mouthCue>` per line.
pub fn to_rhubarb_xml(track: &VowelTrack, sound_file: &str) -> String {
    rhubarb_xml(&rhubarb_cues(track), track.duration_s, sound_file)
}

/// [`to_rhubarb_xml`] of cues already made (a track of `duration_s` seconds).
pub fn rhubarb_xml(cues: &[RhubarbCue], duration_s: f64, sound_file: &str) -> String {
    let timeline = rhubarb_timeline(cues, duration_s);
    let cues = cues_or_rest(&timeline);
    let mut s = String::with_capacity(256 + 56 * cues.len());
    let _ = write!(
        s,
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rhubarbResult>\n  <metadata>\n    \
         <soundFile>{}</soundFile>\n    <duration>{}</duration>\n  </metadata>\n  <mouthCues>\n",
        xml_text(sound_file),
        cs_text(rhubarb_duration_cs(duration_s))
    );
    for &(a, b, shape) in cues {
        let _ = writeln!(
            s,
            "    <mouthCue start=\"{}\" end=\"{}\">{shape}</mouthCue>",
            cs_text(a),
            cs_text(b)
        );
    }
    s.push_str("  </mouthCues>\n</rhubarbResult>\n");
    s
}

/// Text escaped for an XML element's content.
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Not allowed in XML 1.0 at all: shown, not dropped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(t: &[RhubarbTimedShape]) -> String {
        t.iter().map(|c| c.2).collect()
    }

    #[test]
    fn the_timeline_is_whole_hundredths_from_zero_to_the_cut_down_duration() {
        // Frames at 24 fps: boundaries are not hundredths; the end is the clip's.
        let cues = [(0.0, 0.5, 'X'), (0.5, 1.25, 'D'), (1.25, 3.0, 'X')];
        let t = rhubarb_timeline(&cues, 3.0899);
        assert_eq!(t, [(0, 50, 'X'), (50, 125, 'D'), (125, 308, 'X')]);
        // A last cue that stops short (frames end before the samples do) is drawn on.
        let t = rhubarb_timeline(&[(0.0, 0.4, 'X'), (0.4, 3.0, 'D')], 3.09);
        assert_eq!(t, [(0, 40, 'X'), (40, 309, 'D')]);
        assert_eq!(rhubarb_duration_cs(3.09), 309);
        assert_eq!(rhubarb_timeline(&[], 0.005), []);
        assert_eq!(rhubarb_timeline(&[], 0.5), [(0, 50, 'X')]);
    }

    #[test]
    fn a_flicker_goes_to_its_longer_neighbour_and_a_short_pause_holds() {
        let cs = |v: &[(u64, u64, char)]| -> Vec<RhubarbCue> {
            v.iter()
                .map(|&(a, b, c)| (a as f64 / 100.0, b as f64 / 100.0, c))
                .collect()
        };
        // D 1 cs inside C: C; B 3 cs between D (20) and E (57, once its pause is held): E.
        let t = rhubarb_timeline(
            &cs(&[
                (0, 10, 'X'),
                (10, 30, 'C'),
                (30, 31, 'D'),
                (31, 40, 'C'),
                (40, 60, 'D'),
                (60, 63, 'B'),
                (63, 73, 'E'),
                (73, 80, 'X'),
                (80, 120, 'E'),
                (120, 200, 'X'),
            ]),
            2.0,
        );
        assert_eq!(shapes(&t), "XCDEX");
        assert_eq!(t[1], (10, 40, 'C'));
        assert_eq!(t[2], (40, 60, 'D'));
        // The 7 cs pause inside speech held E; the rest before and after stays X.
        assert_eq!(t[3], (60, 120, 'E'));
        assert_eq!(t[4], (120, 200, 'X'));
        // Every shape drawn is long enough; the cues touch.
        assert!(t.iter().all(|c| c.2 == 'X' || c.1 - c.0 >= MIN_SHAPE_CS));
        assert!(t.windows(2).all(|w| w[0].1 == w[1].0 && w[0].2 != w[1].2));
    }

    #[test]
    fn cues_out_of_order_do_not_break_the_timeline() {
        let t = rhubarb_timeline(&[(0.5, 0.9, 'D'), (0.1, 0.2, 'D'), (0.0, 0.3, 'C')], 1.0);
        assert!(t.iter().all(|c| c.0 < c.1), "{t:?}");
        assert!(t.windows(2).all(|w| w[0].1 == w[1].0), "{t:?}");
        assert_eq!((t[0].0, t.last().unwrap().1), (0, 100));
    }

    #[test]
    fn the_files_are_rhubarbs_text() {
        let cues = [
            (0.0, 0.05, 'X'),
            (0.05, 0.27, 'D'),
            (0.27, 0.31, 'C'),
            (0.31, 0.43, 'B'),
            (0.43, 0.4799, 'X'),
        ];
        // Rhubarb's README example ("Hi"); C is 4 cs there (its own rule keeps
        // in-betweens that short): here it goes to D, its longer neighbour.
        let json = rhubarb_json(&cues, 0.4799, "C:\\av\\hi.wav");
        assert_eq!(
            json,
            "{\n  \"metadata\": {\n    \"soundFile\": \"C:\\\\av\\\\hi.wav\",\n    \"duration\": 0.47\n  },\n  \"mouthCues\": [\n    { \"start\": 0.00, \"end\": 0.05, \"value\": \"X\" },\n    { \"start\": 0.05, \"end\": 0.31, \"value\": \"D\" },\n    { \"start\": 0.31, \"end\": 0.43, \"value\": \"B\" },\n    { \"start\": 0.43, \"end\": 0.47, \"value\": \"X\" }\n  ]\n}\n"
        );
        assert_eq!(
            rhubarb_tsv(&cues, 0.4799),
            "0.00\tX\n0.05\tD\n0.31\tB\n0.43\tX\n0.47\tX\n"
        );
        assert_eq!(
            rhubarb_xml(&cues, 0.4799, "a&b.wav"),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rhubarbResult>\n  <metadata>\n    <soundFile>a&amp;b.wav</soundFile>\n    <duration>0.47</duration>\n  </metadata>\n  <mouthCues>\n    <mouthCue start=\"0.00\" end=\"0.05\">X</mouthCue>\n    <mouthCue start=\"0.05\" end=\"0.31\">D</mouthCue>\n    <mouthCue start=\"0.31\" end=\"0.43\">B</mouthCue>\n    <mouthCue start=\"0.43\" end=\"0.47\">X</mouthCue>\n  </mouthCues>\n</rhubarbResult>\n"
        );
        // Under a hundredth: no cue but Rhubarb's zero-length X; the TSV only its end.
        let json = rhubarb_json(&[(0.0, 0.005, 'D')], 0.005, "t.wav");
        assert!(json.contains("\"duration\": 0.00"), "{json}");
        assert!(
            json.contains("[\n    { \"start\": 0.00, \"end\": 0.00, \"value\": \"X\" }\n  ]"),
            "{json}"
        );
        assert_eq!(rhubarb_tsv(&[(0.0, 0.005, 'D')], 0.005), "0.00\tX\n");
        assert!(rhubarb_xml(&[], 0.0, "t").contains("start=\"0.00\" end=\"0.00\">X<"));
    }
}
