//! The syllable measure (issue 39): real recorded syllables and vowels, each file named by
//! its text, scored without an aligner. In a consonant + vowel syllable (or a vowel alone)
//! the end of the voiced part is the vowel, so the leading class of each of the last
//! [`SCORED_TAIL`] of a file's voiced frames is compared with the syllable's vowel.
//!
//! No I/O here: the caller lists the files, reads the vowel map ([`parse_vowel_map`], or the
//! name itself: [`vowel_from_name`]), decodes each file to 16 kHz mono and hands them in as
//! [`SyllableClip`]s; [`evaluate_syllables`] returns a [`SyllableReport`], which
//! [`SyllableReport::to_text`] prints (`omote lipsync eval --syllables DIR`).
//!
//! ```
//! use omote_lipsync::eval::AnalysisMode;
//! use omote_lipsync::syllables::{SyllableClip, SyllableReading, evaluate_syllables};
//! use omote_lipsync::{Profile, SAMPLE_RATE, Viseme};
//! let clips = vec![SyllableClip {
//!     speaker: "cs".into(),
//!     name: "BA".into(),
//!     vowel: Viseme::A,
//!     samples: vec![0.0; SAMPLE_RATE as usize], // decoded BA.wav
//! }];
//! let reading = SyllableReading::Speaker;
//! let report = evaluate_syllables(&Profile::builtin(), &clips, reading, AnalysisMode::Offline);
//! assert_eq!(report.total.files_without_voice, 1); // silence: counted, not scored
//! print!("{}", report.to_text(false));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::eval::{
    AnalysisMode, CALIBRATION_MIN_FRAMES, LabelledClip, pct, source_tracks, speaker_features,
};
use crate::{Analyser, HOP, LipsyncError, Profile, ProfileBuilder, Viseme, VowelTrack};

/// The share of a file's voiced frames scored, at its end: the vowel's part of a
/// consonant + vowel syllable (the consonant, and the glide into the vowel, come first).
pub const SCORED_TAIL: f64 = 0.6;

/// One recorded syllable, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct SyllableClip {
    /// The speaker (the folder it was found in).
    pub speaker: String,
    /// Its text (the file name without its extension), for messages.
    pub name: String,
    /// The vowel it ends in: `A`..`O` (never `N`).
    pub vowel: Viseme,
    /// Mono samples at [`crate::SAMPLE_RATE`].
    pub samples: Vec<f32>,
}

/// How a speaker's files are normalised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyllableReading {
    /// The folder as one [`crate::Speaker`]: each file read against the others, as `omote
    /// lipsync` reads a folder.
    #[default]
    Speaker,
    /// Each file alone (its own cepstral mean only).
    File,
    /// The folder as one speaker, in two halves (alternate files): each half read with the
    /// profile calibrated on the other half's syllables ([`calibrated_on_syllables`]) —
    /// how far the speaker's own labelled syllables take the profile.
    CalibratedHalves,
}

/// Frames counted for one speaker (or all): rows are the true vowel (`A I U E O`), columns
/// the leading class (`A I U E O N`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyllableCounts {
    /// `confusion[true][read]`, frames.
    pub confusion: [[u64; 6]; 5],
    /// Files scored.
    pub files: usize,
    /// Files with no voiced frame at all (nothing to score; listed, not hidden).
    pub files_without_voice: usize,
}

impl SyllableCounts {
    /// Frames of true vowel `v` (`0..5`).
    pub fn frames_of(&self, v: usize) -> u64 {
        self.confusion[v].iter().sum()
    }

    /// Frames scored.
    pub fn frames(&self) -> u64 {
        (0..5).map(|v| self.frames_of(v)).sum()
    }

    /// Share of scored frames whose leading class is the syllable's vowel; `None` without
    /// frames.
    pub fn accuracy(&self) -> Option<f64> {
        let n = self.frames();
        (n > 0).then(|| (0..5).map(|v| self.confusion[v][v]).sum::<u64>() as f64 / n as f64)
    }

    /// The same share for true vowel `v` (`0..5`).
    pub fn vowel_accuracy(&self, v: usize) -> Option<f64> {
        let n = self.frames_of(v);
        (n > 0).then(|| self.confusion[v][v] as f64 / n as f64)
    }

    /// Adds another count.
    pub fn add(&mut self, other: &SyllableCounts) {
        for (row, o) in self.confusion.iter_mut().zip(&other.confusion) {
            for (a, b) in row.iter_mut().zip(o) {
                *a += b;
            }
        }
        self.files += other.files;
        self.files_without_voice += other.files_without_voice;
    }
}

/// Of `voiced` voiced frames, the first that is the vowel's: the first 40 % (rounded down)
/// are skipped, so a single voiced frame is the vowel. The one rule for the measure and for
/// learning real voices ([`learn_real_voices`]).
pub fn vowel_start(voiced: usize) -> usize {
    ((1.0 - SCORED_TAIL) * voiced as f64).floor() as usize
}

/// One speaker's syllables read as the measure reads them: as one [`crate::Speaker`] with
/// `profile`'s features, each file's normalised features with its voiced frames' indices.
fn read_as_speaker<'a>(
    profile: &Profile,
    clips: &[&'a SyllableClip],
) -> Vec<(crate::ClipFeatures, Vec<usize>, &'a SyllableClip)> {
    let mut analyser = Analyser::new(profile.clone());
    let (feats, speaker) =
        speaker_features(&mut analyser, clips.iter().map(|c| c.samples.as_slice()));
    feats
        .into_iter()
        .zip(clips)
        .map(|(mut f, &c)| {
            speaker.normalise(&analyser, &mut f);
            let voiced = (0..f.normalised.len())
                .filter(|&i| f.voicing.voiced[i])
                .collect();
            (f, voiced, c)
        })
        .collect()
}

/// Teaches `builder` real voices from recorded syllables: each speaker's files are read as
/// one [`crate::Speaker`] with `profile`'s features, as the measure reads them, and each
/// file's vowel frames (the last [`SCORED_TAIL`] of its voiced frames) go to its vowel's
/// real-voice Gaussian ([`ProfileBuilder::add_real_voice`]) and, when the builder trains
/// one, its context net ([`ProfileBuilder::net_real_weight`]). Returns the frames added.
pub fn learn_real_voices(
    builder: &mut ProfileBuilder,
    profile: &Profile,
    clips: &[SyllableClip],
) -> u64 {
    let mut by_speaker: BTreeMap<&str, Vec<&SyllableClip>> = BTreeMap::new();
    for c in clips {
        by_speaker.entry(&c.speaker).or_default().push(c);
    }
    let mut added = 0;
    for items in by_speaker.values() {
        for (f, voiced, c) in read_as_speaker(profile, items) {
            // The vowel's frames teach its real-voice Gaussian and, with the whole file
            // as their context, the net (if the builder trains one).
            let vowel = &voiced[vowel_start(voiced.len())..];
            for &i in vowel {
                builder.add_real_voice(c.vowel, &f.normalised[i]);
            }
            added += vowel.len() as u64;
            let weight = builder.real_weight_in_net();
            builder.add_net_clip(&f.normalised, vowel.iter().map(|&i| (i, c.vowel)), weight);
        }
    }
    added
}

/// Teaches `builder` one speaker's own recorded syllables, for [`Profile::calibrated`]: the
/// clips are read as one [`crate::Speaker`] with `profile`'s features (as the measure reads
/// them), each file's vowel frames (the last [`SCORED_TAIL`] of its voiced frames) go to
/// its vowel's class, and every voiced frame to the speaker's mean. Returns the vowel
/// frames added.
pub fn learn_speaker_syllables(
    builder: &mut ProfileBuilder,
    profile: &Profile,
    clips: &[&SyllableClip],
) -> u64 {
    let mut added = 0;
    for (f, voiced, c) in read_as_speaker(profile, clips) {
        for &i in &voiced {
            builder.add_raw_voiced(&f.frames[i].ceps);
        }
        for &i in &voiced[vowel_start(voiced.len())..] {
            builder.add(c.vowel, &f.normalised[i]);
            added += 1;
        }
    }
    added
}

/// The calibration card a speaker reads in one take, a short pause after each syllable:
/// each vowel alone, then five consonant rows: six of each vowel (any five-vowel spelling
/// of the syllables works as a card text; see [`split_card`]).
pub const DEFAULT_CARD: &str =
    "a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te to na ni nu ne no ma mi mu me mo";

/// Voiced runs of a card closer than this (frames, 10 ms) are one syllable: longer than a
/// stop closure inside a syllable, shorter than the pause a reader leaves after one.
const CARD_JOIN_FRAMES: usize = 12;

/// A voiced run of a card shorter than this (frames) is a click or a breath, not a
/// syllable: a read syllable's vowel alone lasts longer.
const CARD_MIN_RUN_FRAMES: usize = 5;

/// A syllable's clip keeps this much (frames) of the pause on each side of its voice: the
/// quiet onset and decay the voicing reads as the syllable's edges.
const CARD_MARGIN_FRAMES: usize = 15;

/// When a take has a few more voiced runs than its card has syllables (a cough, a chair,
/// a syllable broken by a long closure), its shortest runs go first: into a neighbour
/// closer than this (frames), else away.
const CARD_MERGE_FRAMES: usize = 30;

/// One recording of a speaker reading a card of syllables (`text`: the syllables separated
/// by spaces, each with one vowel in a five-vowel spelling, as [`vowel_from_name`] reads a
/// name), cut into one [`SyllableClip`] per syllable for [`calibrated_on_syllables`]. The
/// syllables are the recording's voiced runs (runs closer than 120 ms joined, runs shorter
/// than 50 ms dropped; when there are up to a quarter more runs than syllables, the
/// shortest go, into a neighbour closer than 300 ms or away); their number must then be
/// the text's, or the card is refused with both counts. Each clip is its run and up to
/// 150 ms of the pause on each side, never past halfway to the next run. `name` names the
/// recording in errors and is each clip's speaker.
pub fn split_card(
    profile: &Profile,
    samples: &[f32],
    text: &str,
    name: &str,
) -> Result<Vec<SyllableClip>, LipsyncError> {
    let err = |reason: String| LipsyncError::Card {
        name: name.to_string(),
        reason,
    };
    let syllables: Vec<(&str, Viseme)> = text
        .split_whitespace()
        .map(|s| {
            vowel_from_name(s).map(|v| (s, v)).ok_or_else(|| {
                err(format!(
                    "the card's syllable {s:?} has no single vowel (a, i, u, e or o)"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    if syllables.is_empty() {
        return Err(err("the card's text has no syllables".into()));
    }
    let voiced = Analyser::new(profile.clone())
        .features(samples)
        .voicing
        .voiced;
    // Voiced runs [start, end) in frames, joined across short gaps, blips dropped.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < voiced.len() {
        if !voiced[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < voiced.len() && voiced[i] {
            i += 1;
        }
        match runs.last_mut() {
            Some(last) if start - last.1 < CARD_JOIN_FRAMES => last.1 = i,
            _ => runs.push((start, i)),
        }
    }
    runs.retain(|&(a, b)| b - a >= CARD_MIN_RUN_FRAMES);
    // Up to a quarter more runs than syllables are noises or broken syllables; more than
    // that is not this card.
    if runs.len() > syllables.len() && runs.len() <= syllables.len() + syllables.len() / 4 {
        while runs.len() > syllables.len() {
            let k = (0..runs.len())
                .min_by_key(|&k| runs[k].1 - runs[k].0)
                .unwrap_or(0);
            let before = (k > 0).then(|| (runs[k].0 - runs[k - 1].1, k - 1));
            let after = (k + 1 < runs.len()).then(|| (runs[k + 1].0 - runs[k].1, k + 1));
            let nearest = match (before, after) {
                (Some(b), Some(a)) => Some(if b.0 <= a.0 { b } else { a }),
                (b, a) => b.or(a),
            };
            let (start, end) = runs.remove(k);
            if let Some((_, j)) = nearest.filter(|&(gap, _)| gap < CARD_MERGE_FRAMES) {
                let j = if j > k { j - 1 } else { j };
                runs[j] = (runs[j].0.min(start), runs[j].1.max(end));
            }
        }
    }
    if runs.len() != syllables.len() {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        return Err(err(format!(
            "heard {} syllable{}, the card has {}: read one syllable at a time with a short pause (a quarter second) after each",
            runs.len(),
            plural(runs.len()),
            syllables.len()
        )));
    }
    // Each syllable's clip: its run and CARD_MARGIN_FRAMES of the pause on each side (never
    // past halfway to the next run), so a noise that was dropped stays out of it.
    let frame = |f: usize| (f * HOP).min(samples.len());
    let clip = |k: usize| -> (usize, usize) {
        let (a, b) = runs[k];
        let start = match k {
            0 => a.saturating_sub(CARD_MARGIN_FRAMES),
            _ => a
                .saturating_sub(CARD_MARGIN_FRAMES)
                .max((runs[k - 1].1 + a) / 2),
        };
        let end = match runs.get(k + 1) {
            None => b + CARD_MARGIN_FRAMES,
            Some(next) => (b + CARD_MARGIN_FRAMES).min((b + next.0) / 2),
        };
        (frame(start), frame(end))
    };
    Ok(syllables
        .iter()
        .enumerate()
        .map(|(k, &(text, vowel))| {
            let (start, end) = clip(k);
            SyllableClip {
                speaker: name.to_string(),
                name: text.to_string(),
                vowel,
                samples: samples[start..end].to_vec(),
            }
        })
        .collect())
}

/// `profile` calibrated to the speaker of one take of a calibration card ([`split_card`]
/// cuts it, [`calibrated_on_syllables`] learns it): what `omote lipsync calibrate --card`
/// and the embedding API's card calibration make. `name` names the take in errors.
pub fn calibrated_on_card(
    profile: &Profile,
    samples: &[f32],
    text: &str,
    name: &str,
) -> Result<Profile, LipsyncError> {
    let clips = split_card(profile, samples, text, name)?;
    calibrated_on_syllables(profile, &clips.iter().collect::<Vec<_>>())
}

/// `profile` calibrated to the speaker of `clips` (one speaker's syllables, each with its
/// vowel known from its text): each vowel with at least [`CALIBRATION_MIN_FRAMES`] frames
/// moves to the speaker's ([`Profile::calibrated`]). Errors when no vowel has that many.
pub fn calibrated_on_syllables(
    profile: &Profile,
    clips: &[&SyllableClip],
) -> Result<Profile, LipsyncError> {
    let mut builder = ProfileBuilder::new();
    learn_speaker_syllables(&mut builder, profile, clips);
    profile.calibrated(&builder, CALIBRATION_MIN_FRAMES)
}

/// Scores one file's track against its vowel: the leading class of each of the last
/// [`SCORED_TAIL`] of its voiced (not silent) frames.
pub fn score_syllable(track: &VowelTrack, vowel: Viseme) -> SyllableCounts {
    let mut counts = SyllableCounts {
        files: 1,
        ..SyllableCounts::default()
    };
    let voiced: Vec<Viseme> = track.frames.iter().filter_map(|f| f.class()).collect();
    if voiced.is_empty() {
        counts.files_without_voice = 1;
        return counts;
    }
    let row = vowel.index().min(4);
    for class in &voiced[vowel_start(voiced.len())..] {
        counts.confusion[row][class.index()] += 1;
    }
    counts
}

/// What [`evaluate_syllables`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct SyllableReport {
    /// The profile's description.
    pub profile: String,
    /// How each speaker's files were read.
    pub reading: SyllableReading,
    /// Offline, streamed or as a live session.
    pub mode: AnalysisMode,
    /// Per speaker, by name.
    pub speakers: Vec<(String, SyllableCounts)>,
    /// Every speaker's frames together.
    pub total: SyllableCounts,
}

/// Scores every clip with `profile`, per speaker, read in `mode` as `omote lipsync eval`
/// reads a source: offline; streamed, a new stream per file (as one speaker: started from
/// the speaker's other files); or as a session, one stream through the speaker's files back
/// to back ([`SyllableReading::File`] then reads each file as a cold stream).
pub fn evaluate_syllables(
    profile: &Profile,
    clips: &[SyllableClip],
    reading: SyllableReading,
    mode: AnalysisMode,
) -> SyllableReport {
    let mut by_speaker: BTreeMap<&str, Vec<&SyllableClip>> = BTreeMap::new();
    for c in clips {
        by_speaker.entry(&c.speaker).or_default().push(c);
    }
    let mut total = SyllableCounts::default();
    let speakers = by_speaker
        .into_iter()
        .map(|(speaker, items)| {
            let mut counts = SyllableCounts::default();
            match reading {
                SyllableReading::File => {
                    for c in &items {
                        let track = mode.analyse(profile, &c.samples);
                        counts.add(&score_syllable(&track, c.vowel));
                    }
                }
                SyllableReading::Speaker => {
                    counts.add(&score_as_speaker(profile, &items, mode));
                }
                SyllableReading::CalibratedHalves => {
                    for half in 0..2 {
                        let (scored, taught): (Vec<_>, Vec<_>) =
                            items.iter().enumerate().partition(|(i, _)| i % 2 == half);
                        let scored: Vec<&SyllableClip> =
                            scored.into_iter().map(|(_, c)| *c).collect();
                        let taught: Vec<&SyllableClip> =
                            taught.into_iter().map(|(_, c)| *c).collect();
                        // A half with no vowel long enough to calibrate (a speaker of one or
                        // two files) is read with the profile as it is.
                        let calibrated = calibrated_on_syllables(profile, &taught);
                        counts.add(&score_as_speaker(
                            calibrated.as_ref().unwrap_or(profile),
                            &scored,
                            mode,
                        ));
                    }
                }
            }
            total.add(&counts);
            (speaker.to_string(), counts)
        })
        .collect();
    SyllableReport {
        profile: profile.description.clone(),
        reading,
        mode,
        speakers,
        total,
    }
}

/// The files of one speaker read in `mode` as the harness reads a source (offline and
/// streamed as one [`crate::Speaker`], or as one session), so both measures read a voice
/// the same way, and scored.
fn score_as_speaker(
    profile: &Profile,
    items: &[&SyllableClip],
    mode: AnalysisMode,
) -> SyllableCounts {
    let as_clips: Vec<LabelledClip> = items
        .iter()
        .map(|c| LabelledClip {
            source: c.speaker.clone(),
            samples: c.samples.clone(),
            labels: Vec::new(),
        })
        .collect();
    let tracks = source_tracks(profile, &as_clips.iter().collect::<Vec<_>>(), mode, true);
    let mut counts = SyllableCounts::default();
    for (track, c) in tracks.iter().zip(items) {
        counts.add(&score_syllable(track, c.vowel));
    }
    counts
}

impl SyllableReport {
    /// The report as `omote lipsync eval --syllables` prints it: a header, one line per
    /// speaker (the share and the share per vowel; with `confusion`, its confusion matrix),
    /// then the total and its confusion matrix (each row's shares).
    pub fn to_text(&self, confusion: bool) -> String {
        let mut s = String::new();
        let reading = match self.reading {
            SyllableReading::Speaker => "each folder as one speaker",
            SyllableReading::File => "each file alone",
            SyllableReading::CalibratedHalves => {
                "each folder as one speaker, each half of its files with the profile calibrated on the other half"
            }
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            s,
            "omote lipsync eval --syllables ({}, {reading}, profile: {}): leading class over the last {:.0} % of each file's voiced frames",
            self.mode.name(),
            self.profile,
            100.0 * SCORED_TAIL
        );
        let line = |s: &mut String, name: &str, c: &SyllableCounts| {
            let per: String = (0..5)
                .map(|v| {
                    format!(
                        "  {} {:>6}",
                        Viseme::ALL[v].letter(),
                        pct(c.vowel_accuracy(v))
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "{name:24} syllable {:>6} ({} fr, {} files{}){per}",
                pct(c.accuracy()),
                c.frames(),
                c.files,
                if c.files_without_voice > 0 {
                    format!(", {} without voice", c.files_without_voice)
                } else {
                    String::new()
                },
            );
        };
        let matrix = |s: &mut String, c: &SyllableCounts| {
            let _ = writeln!(
                s,
                "    vowel\\read     A      I      U      E      O      N"
            );
            for (v, row) in c.confusion.iter().enumerate() {
                let n = c.frames_of(v);
                let cells: String = row
                    .iter()
                    .map(|&k| {
                        if n == 0 {
                            "     -".to_string()
                        } else {
                            format!("{:>6.1}", 100.0 * k as f64 / n as f64)
                        }
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "    {}         {cells}   % of {n} fr",
                    Viseme::ALL[v].letter()
                );
            }
        };
        for (name, c) in &self.speakers {
            line(&mut s, name, c);
            if confusion {
                matrix(&mut s, c);
            }
        }
        line(&mut s, "all", &self.total);
        matrix(&mut s, &self.total);
        s
    }
}

/// The vowel of a syllable named by its text in a five-vowel spelling: the one vowel class
/// among its letters `a e i o u` (accents ignored, any case; a `~2` duplicate mark
/// ignored). `None` when it has no vowel letter or letters of two classes.
pub fn vowel_from_name(name: &str) -> Option<Viseme> {
    let text = name.split('~').next().unwrap_or(name);
    let mut found: Option<Viseme> = None;
    for ch in text.chars().flat_map(char::to_lowercase) {
        let v = match ch {
            'a' | 'á' | 'à' | 'â' => Viseme::A,
            'i' | 'í' | 'ì' | 'î' => Viseme::I,
            'u' | 'ú' | 'ù' | 'û' => Viseme::U,
            'e' | 'é' | 'è' | 'ê' => Viseme::E,
            'o' | 'ó' | 'ò' | 'ô' => Viseme::O,
            _ => continue,
        };
        match found {
            Some(f) if f != v => return None,
            _ => found = Some(v),
        }
    }
    found
}

/// Parses a folder's `vowels.tsv` (a header with `file` and `vowel` columns, then one row
/// per file: its name and one of `A I U E O`), as `tools/lipsync/klettres_syllables.py`
/// writes it. `name` is the file's name, for messages.
pub fn parse_vowel_map(text: &str, name: &str) -> Result<Vec<(String, Viseme)>, LipsyncError> {
    let err = |reason: String| LipsyncError::Manifest {
        name: name.to_string(),
        reason,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or_else(|| err("empty vowel map".into()))?;
    let cols: Vec<&str> = header.split('\t').map(str::trim).collect();
    let col = |want: &str| {
        cols.iter()
            .position(|c| *c == want)
            .ok_or_else(|| err(format!("header has no `{want}` column")))
    };
    let (file_col, vowel_col) = (col("file")?, col("vowel")?);
    let mut out = Vec::new();
    for (i, l) in lines {
        let cells: Vec<&str> = l.split('\t').map(str::trim).collect();
        let (Some(file), Some(vowel)) = (cells.get(file_col), cells.get(vowel_col)) else {
            return Err(err(format!("line {}: too few columns", i + 1)));
        };
        let v = match vowel.chars().collect::<Vec<_>>()[..] {
            [c] => Viseme::from_letter(c).filter(|v| *v != Viseme::N),
            _ => None,
        }
        .ok_or_else(|| {
            err(format!(
                "line {}: vowel `{vowel}` is not one of A I U E O",
                i + 1
            ))
        })?;
        if file.is_empty() {
            return Err(err(format!("line {}: empty file name", i + 1)));
        }
        out.push(((*file).to_string(), v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SAMPLE_RATE, VowelFrame};

    /// A held vowel-like sound (harmonics of 140 Hz under a two-peak envelope), padded
    /// with quiet noise: a recorded "syllable" with `voice_s` of voice.
    fn syllable(voice_s: f32, peaks: (f32, f32)) -> Vec<f32> {
        let sr = SAMPLE_RATE as f32;
        let pad = (0.25 * sr) as usize;
        let n = (voice_s * sr) as usize;
        let mut out = Vec::with_capacity(n + 2 * pad);
        let hiss = |i: usize| 1e-4 * (((i * 7919) % 101) as f32 / 50.0 - 1.0);
        out.extend((0..pad).map(hiss));
        for i in 0..n {
            let t = i as f32 / sr;
            let v: f32 = (1..28)
                .map(|h| {
                    let f = 140.0 * h as f32;
                    let env = (-((f - peaks.0) / 150.0).powi(2)).exp()
                        + 0.6 * (-((f - peaks.1) / 250.0).powi(2)).exp();
                    env * (std::f32::consts::TAU * f * t).sin()
                })
                .sum();
            out.push(0.1 * v + hiss(i));
        }
        out.extend((0..pad).map(hiss));
        out
    }

    /// How many of `samples`' frames the analyser calls voiced.
    fn voiced_frames(profile: &Profile, samples: &[f32]) -> usize {
        let features = Analyser::new(profile.clone()).features(samples);
        features.voicing.voiced.iter().filter(|v| **v).count()
    }

    #[test]
    fn a_card_is_cut_into_its_syllables_in_the_pauses() {
        // Three syllables read with pauses (each padded by 0.25 s of hiss on both sides).
        let parts = [
            syllable(0.3, (800.0, 1300.0)),
            syllable(0.3, (300.0, 2300.0)),
            syllable(0.3, (320.0, 800.0)),
        ];
        let take: Vec<f32> = parts.concat();
        let profile = Profile::builtin();
        let card = split_card(&profile, &take, "ka  ki\tku", "card.wav").unwrap();
        let clips = &card;
        let names: Vec<(&str, Viseme)> = clips.iter().map(|c| (c.name.as_str(), c.vowel)).collect();
        assert_eq!(
            names,
            [("ka", Viseme::A), ("ki", Viseme::I), ("ku", Viseme::U)]
        );
        assert!(clips.iter().all(|c| c.speaker == "card.wav"));
        // Each clip holds one syllable's voice, 0.3 s of it, and starts in its pause.
        let part_len = parts[0].len();
        for (k, c) in card.iter().enumerate() {
            let voiced = voiced_frames(&profile, &c.samples);
            assert!(
                (25..=35).contains(&voiced),
                "clip {k}: {voiced} voiced frames"
            );
            // Its voice and at most 150 ms of pause on each side: under its 0.8 s part.
            let len = c.samples.len() as f32 / SAMPLE_RATE as f32;
            assert!((0.3..0.65).contains(&len), "clip {k}: {len} s");
            assert!(c.samples.len() < part_len);
        }
        // The text must match what was heard, and name a vowel per syllable.
        let err = split_card(&profile, &take, "ka ki", "card.wav").unwrap_err();
        assert_eq!(
            err.to_string(),
            "card.wav: heard 3 syllables, the card has 2: read one syllable at a time with a short pause (a quarter second) after each"
        );
        let err = split_card(&profile, &take, "ka kai ku", "card.wav").unwrap_err();
        assert!(
            err.to_string().contains("\"kai\" has no single vowel"),
            "{err}"
        );
        assert!(split_card(&profile, &take, " ", "card.wav").is_err());
        // A click in a pause (60 ms of voice, far from both syllables) is dropped; a card
        // of n syllables may have n / 4 runs too many (so five here), not more; a card of
        // more syllables than were heard is refused.
        let click: Vec<f32> = syllable(0.06, (800.0, 1300.0));
        let with_click: Vec<f32> = [
            parts[0].clone(),
            click,
            parts[1].clone(),
            parts[2].clone(),
            parts[0].clone(),
            parts[1].clone(),
        ]
        .concat();
        let clicked = split_card(&profile, &with_click, "ka ki ku ka ki", "card.wav").unwrap();
        assert_eq!(clicked.len(), 5);
        // The click went with its pause: the first syllable's clip ends in the pause after
        // the click, and every clip is one syllable's voice.
        for (k, c) in clicked.iter().enumerate() {
            let voiced = voiced_frames(&profile, &c.samples);
            assert!(
                (25..=35).contains(&voiced),
                "clip {k}: {voiced} voiced frames"
            );
        }
        let err = split_card(&profile, &with_click, "ka ki ku", "card.wav").unwrap_err();
        assert!(
            err.to_string()
                .contains("heard 6 syllables, the card has 3"),
            "{err}"
        );
        let err = split_card(&profile, &take, "ka ki ku ke", "card.wav").unwrap_err();
        assert!(
            err.to_string()
                .contains("heard 3 syllables, the card has 4"),
            "{err}"
        );
        // A gap shorter than a pause is inside one syllable: two bursts 60 ms apart are one.
        let mut joined = syllable(0.15, (800.0, 1300.0));
        let pad = (0.25 * SAMPLE_RATE as f32) as usize;
        joined.truncate(joined.len() - pad + 960);
        joined.extend(syllable(0.15, (800.0, 1300.0)).split_off(pad));
        let clips = split_card(&profile, &joined, "ka", "x.wav").unwrap();
        assert_eq!(clips.len(), 1);
        // The card teaches a calibration the three vowels it holds, and no other class.
        let refs: Vec<&SyllableClip> = card.iter().collect();
        let mut builder = ProfileBuilder::new();
        assert!(learn_speaker_syllables(&mut builder, &profile, &refs) > 0);
        let counts = builder.counts();
        assert!(counts[..3].iter().all(|&n| n >= 15), "{counts:?}");
        assert_eq!(counts[3..], [0, 0, 0]);
    }

    #[test]
    fn real_voices_learn_each_files_vowel_part() {
        let clip = |speaker: &str, name: &str, vowel, peaks| SyllableClip {
            speaker: speaker.into(),
            name: name.into(),
            vowel,
            samples: syllable(0.4, peaks),
        };
        let clips = vec![
            clip("a", "KA", Viseme::A, (800.0, 1300.0)),
            clip("a", "MA", Viseme::A, (780.0, 1250.0)),
            clip("a", "TI", Viseme::I, (300.0, 2300.0)),
            clip("b", "PU", Viseme::U, (320.0, 800.0)),
        ];
        let profile = Profile::builtin();
        let mut builder = ProfileBuilder::new();
        let added = learn_real_voices(&mut builder, &profile, &clips);
        let counts = builder.real_counts();
        // Each file's last 60 % of its voiced frames (about 40 voiced frames each).
        let voiced = |c: &SyllableClip| {
            Analyser::new(profile.clone())
                .features(&c.samples)
                .voicing
                .voiced
                .iter()
                .filter(|v| **v)
                .count()
        };
        let tail = |c: &SyllableClip| (voiced(c) - vowel_start(voiced(c))) as u64;
        assert_eq!(counts[0], tail(&clips[0]) + tail(&clips[1]));
        assert_eq!(counts[1], tail(&clips[2]));
        assert_eq!(counts[2], tail(&clips[3]));
        assert_eq!((counts[3], counts[4], counts[5]), (0, 0, 0));
        assert_eq!(added, counts.iter().sum::<u64>());
        assert!(counts[0] > 40, "{counts:?}");
    }

    fn frame(class: Option<Viseme>) -> VowelFrame {
        match class {
            None => VowelFrame::SILENT,
            Some(v) => {
                let mut weights = [0.0; 6];
                weights[v.index()] = 1.0;
                VowelFrame {
                    weights,
                    volume: 0.5,
                    silent: false,
                }
            }
        }
    }

    fn track(classes: &[Option<Viseme>]) -> VowelTrack {
        VowelTrack {
            fps: 100.0,
            frames: classes.iter().map(|&c| frame(c)).collect(),
            voiced_span: None,
            duration_s: classes.len() as f64 / 100.0,
        }
    }

    #[test]
    fn scores_only_the_last_share_of_voiced_frames() {
        use Viseme::*;
        // Silence, then 4 consonant frames (N) and 6 vowel frames (A), then silence: the
        // last 60 % of the 10 voiced frames are exactly the vowel's.
        let mut c = vec![None, None];
        c.extend([Some(N); 4]);
        c.extend([Some(A), Some(A), Some(O), Some(A), Some(A), Some(A)]);
        c.extend([None; 3]);
        let counts = score_syllable(&track(&c), A);
        assert_eq!(counts.frames(), 6);
        assert_eq!(counts.confusion[0], [5, 0, 0, 0, 1, 0]);
        assert_eq!(counts.accuracy(), Some(5.0 / 6.0));
        // Scored as an O it is 1 in 6, in O's row.
        let as_o = score_syllable(&track(&c), O);
        assert_eq!(as_o.confusion[4], [5, 0, 0, 0, 1, 0]);
        assert_eq!(as_o.vowel_accuracy(4), Some(1.0 / 6.0));
        // All silent: counted as a file without voice, no frames.
        let silent = score_syllable(&track(&[None; 5]), A);
        assert_eq!((silent.files, silent.files_without_voice), (1, 1));
        assert_eq!(silent.accuracy(), None);
    }

    #[test]
    fn vowel_of_a_name() {
        assert_eq!(vowel_from_name("BA"), Some(Viseme::A));
        assert_eq!(vowel_from_name("té~2"), Some(Viseme::E));
        assert_eq!(vowel_from_name("Ó"), Some(Viseme::O));
        assert_eq!(vowel_from_name("PAPA"), Some(Viseme::A));
        assert_eq!(vowel_from_name("BAO"), None);
        assert_eq!(vowel_from_name("PST"), None);
    }

    #[test]
    fn vowel_map_errors_name_the_file_and_line() {
        let ok =
            parse_vowel_map("file\ttext\tvowel\nБА.wav\tБА\tA\nЮ.wav\tЮ\tU\n", "v.tsv").unwrap();
        assert_eq!(
            ok,
            vec![("БА.wav".into(), Viseme::A), ("Ю.wav".into(), Viseme::U)]
        );
        let e = parse_vowel_map("file\tvowel\nx.wav\tN\n", "ru/vowels.tsv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ru/vowels.tsv: line 2: vowel `N` is not one of A I U E O"
        );
        let e = parse_vowel_map("file\ttext\n", "v.tsv").unwrap_err();
        assert!(e.to_string().contains("no `vowel` column"), "{e}");
    }

    /// The analyser really runs on the files in both readings: a silent file is counted
    /// as without voice, and a noisy one's frames land only in its own vowel's row.
    #[test]
    fn silence_and_noise_are_not_scored_as_vowels() {
        // Noise bursts: voiced or not, whatever is scored must be counted in the right row.
        let mut samples = vec![0.0f32; SAMPLE_RATE as usize];
        let mut x = 1u32;
        for s in &mut samples[4000..12000] {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *s = (x >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
        }
        let clips = vec![
            SyllableClip {
                speaker: "x".into(),
                name: "KU".into(),
                vowel: Viseme::U,
                samples: samples.clone(),
            },
            SyllableClip {
                speaker: "x".into(),
                name: "silence".into(),
                vowel: Viseme::I,
                samples: vec![0.0; 8000],
            },
        ];
        let readings = [SyllableReading::Speaker, SyllableReading::File];
        let modes = [
            AnalysisMode::Offline,
            AnalysisMode::Streaming,
            AnalysisMode::Session,
        ];
        for (reading, mode) in readings.into_iter().flat_map(|r| modes.map(|m| (r, m))) {
            let r = evaluate_syllables(&Profile::builtin(), &clips, reading, mode);
            assert_eq!(r.total.files, 2);
            assert_eq!(r.total.files_without_voice, 1);
            for v in [0, 1, 3, 4] {
                assert_eq!(r.total.frames_of(v), 0, "row {v}");
            }
            assert!(r.to_text(true).contains("1 without voice"));
        }
    }
}
