//! The evaluation harness behind `omote lipsync eval`: score the analyser on a labelled
//! data set (`shared/data/speech`: `manifest.tsv`, `NAME.wav`, `NAME.lab.tsv`) per
//! source, offline or streaming, and optionally calibrate on the first clips of each
//! source and score the rest.
//!
//! No I/O here: the caller reads the manifest's text ([`parse_manifest`]), decodes each
//! clip to 16 kHz mono and parses its labels, and hands them in as [`LabelledClip`]s;
//! [`evaluate`] returns an [`EvalReport`], which [`EvalReport::to_text`] prints.
//!
//! ```
//! use omote_lipsync::eval::{EvalOptions, LabelledClip, evaluate, parse_manifest};
//! use omote_lipsync::labels::parse_labels;
//! use omote_lipsync::{Profile, SAMPLE_RATE};
//! let manifest = parse_manifest("clip\tlanguage\tsource\nquiet\tja\tsynthetic\n", "manifest.tsv")?;
//! let clips: Vec<LabelledClip> = manifest
//!     .iter()
//!     .map(|m| LabelledClip {
//!         source: m.source.clone(),
//!         samples: vec![0.0; SAMPLE_RATE as usize], // decoded NAME.wav
//!         labels: parse_labels("0\t1\tS\tsil\n", &m.clip).unwrap(),
//!     })
//!     .collect();
//! let report = evaluate(&Profile::builtin(), &clips, &EvalOptions::default());
//! assert_eq!(report.sources[0].counts.silence_accuracy(), Some(1.0));
//! print!("{}", report.to_text(false));
//! # Ok::<(), omote_lipsync::LipsyncError>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::degrade::Degradation;
use crate::labels::LabelSegment;
use crate::score::{PhoneConfusion, ScoreCounts, score_clip};
use crate::{
    Analyser, AnalyserConfig, CepstralMean, ClipFeatures, HOP, LipsyncError, Profile,
    ProfileBuilder, Speaker, StreamAnalyser, Viseme, VowelTrack,
};

/// Chunk size (samples at 16 kHz) of [`AnalysisMode::Streaming`]: 10 ms, like a live
/// audio callback.
pub const STREAM_CHUNK: usize = 160;

/// Frames a class needs in the calibration clips to move its mean (as
/// [`Profile::calibrated`]'s `min_frames`).
pub const CALIBRATION_MIN_FRAMES: u64 = 20;

/// Which analyser scores the clips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnalysisMode {
    /// [`Analyser`]: the whole clip at once (look-ahead, clip-adaptive silence).
    #[default]
    Offline,
    /// [`StreamAnalyser`] fed in [`STREAM_CHUNK`]-sample chunks, a new one per clip (a
    /// stream that starts cold on every line).
    Streaming,
    /// One [`StreamAnalyser`] per source, fed its clips back to back (each padded with
    /// digital silence to whole frames), as a live session that has been hearing the
    /// speaker: the running noise floor, speech level and cepstral mean carry over.
    Session,
}

impl AnalysisMode {
    /// `Streaming` when `stream`, else `Offline`.
    pub const fn from_stream(stream: bool) -> Self {
        if stream {
            Self::Streaming
        } else {
            Self::Offline
        }
    }

    /// `"offline"`, `"streaming"` or `"streaming session"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Offline => "offline",
            Self::Streaming => "streaming",
            Self::Session => "streaming session",
        }
    }

    /// Analyses one clip (16 kHz mono) with `profile` in this mode; `Session` analyses
    /// it as a cold stream (a session needs the source's other clips: `session_tracks`).
    pub fn analyse(self, profile: &Profile, samples: &[f32]) -> VowelTrack {
        match self {
            Self::Offline => Analyser::new(profile.clone()).analyse(samples),
            Self::Streaming | Self::Session => StreamAnalyser::analyse_in_chunks(
                profile.clone(),
                AnalyserConfig::default(),
                samples,
                STREAM_CHUNK,
            ),
        }
    }
}

/// One row of a data set's `manifest.tsv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestClip {
    /// The clip's name (the `clip` column without a `.wav` ending): its files are
    /// `NAME.wav` and `NAME.lab.tsv`.
    pub clip: String,
    /// `language/source` (`?` for an empty cell): what the figures are grouped by.
    pub source: String,
}

/// Parses a manifest: tab-separated, a header row naming at least the columns `clip`,
/// `language` and `source` (in any order, among others), then one clip per non-blank
/// line. `name` is used in errors.
pub fn parse_manifest(text: &str, name: &str) -> Result<Vec<ManifestClip>, LipsyncError> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(ci), Some(li), Some(si)) = (col("clip"), col("language"), col("source")) else {
        return Err(LipsyncError::Manifest {
            name: name.into(),
            reason: "manifest needs columns clip, language, source".into(),
        });
    };
    let clips: Vec<ManifestClip> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            ManifestClip {
                clip: c
                    .get(ci)
                    .copied()
                    .unwrap_or_default()
                    .trim_end_matches(".wav")
                    .to_string(),
                source: format!(
                    "{}/{}",
                    c.get(li).copied().unwrap_or("?"),
                    c.get(si).copied().unwrap_or("?")
                ),
            }
        })
        .collect();
    // Scoring nothing is not a score: an empty manifest is an error, not a 0-clip report.
    if clips.is_empty() {
        return Err(LipsyncError::Manifest {
            name: name.into(),
            reason: "the manifest lists no clips (one per line after the header)".into(),
        });
    }
    Ok(clips)
}

/// A decoded, labelled clip to score.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledClip {
    /// The group it is scored in ([`ManifestClip::source`]).
    pub source: String,
    /// Mono samples at [`crate::SAMPLE_RATE`].
    pub samples: Vec<f32>,
    /// Its labels (`NAME.lab.tsv`, [`crate::labels::parse_labels`]).
    pub labels: Vec<LabelSegment>,
}

/// What [`evaluate`] does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalOptions {
    /// Offline or streaming analysis.
    pub mode: AnalysisMode,
    /// Also, per source with more than K clips: calibrate the profile on its first K
    /// clips (in the order given) and score the others with the profile and with the
    /// calibrated one.
    pub calibrate_first: Option<usize>,
    /// Also score every clip under each recording condition of [`Degradation::ALL`]
    /// (quiet over a noise floor, pink noise, hum, telephone band), each in its own group
    /// `SOURCE +CONDITION`. Deterministic: the noise is seeded by the clip's position.
    pub variants: bool,
    /// Offline: normalise each clip with its source's [`CepstralMean`] (all of the
    /// source's clips in the group) instead of the clip's own mean, as `omote lipsync`
    /// does for the files of one folder. Streaming: start each clip's stream from the
    /// mean of the source's other clips. A session ignores it.
    pub speaker_mean: bool,
    /// Also tally every source's vowel frames by labelled phone ([`SourceScore::phones`]).
    pub by_phone: bool,
}

/// One source's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceScore {
    /// `language/source`.
    pub source: String,
    /// Summed over its clips.
    pub counts: ScoreCounts,
    /// With [`EvalOptions::by_phone`]: its vowel frames by labelled phone.
    pub phones: Option<PhoneConfusion>,
}

/// One source's calibration: the held-out clips scored before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalibrationScore {
    /// With the profile as given.
    pub built_in: ScoreCounts,
    /// With the profile calibrated on the first K clips.
    pub calibrated: ScoreCounts,
    /// Clips scored (the source's clips after the first K).
    pub held_out: usize,
}

/// One source's line of the calibration part.
#[derive(Debug)]
pub struct SourceCalibration {
    /// `language/source`.
    pub source: String,
    /// The scores, or why the profile could not be calibrated on the first K clips.
    pub result: Result<CalibrationScore, LipsyncError>,
}

/// The calibration part of a report.
#[derive(Debug)]
pub struct CalibrationReport {
    /// K: clips of each source calibrated on.
    pub first: usize,
    /// Sources with more than K clips, by name.
    pub sources: Vec<SourceCalibration>,
}

/// What [`evaluate`] found.
#[derive(Debug)]
pub struct EvalReport {
    /// How the clips were analysed.
    pub mode: AnalysisMode,
    /// The profile's description.
    pub profile: String,
    /// Per source, by name.
    pub sources: Vec<SourceScore>,
    /// With [`EvalOptions::calibrate_first`].
    pub calibration: Option<CalibrationReport>,
}

/// Scores `clips` with `profile` (the same metric as `tools/score-lipsync.py`, see
/// [`crate::score`]), per source.
pub fn evaluate(profile: &Profile, clips: &[LabelledClip], options: &EvalOptions) -> EvalReport {
    let mut by_source: BTreeMap<&str, Vec<&LabelledClip>> = BTreeMap::new();
    for c in clips {
        by_source.entry(&c.source).or_default().push(c);
    }
    let variants: Vec<LabelledClip> = if options.variants {
        variant_clips(clips)
    } else {
        Vec::new()
    };
    let mut scored = by_source.clone();
    for c in &variants {
        scored.entry(&c.source).or_default().push(c);
    }
    let sources = scored
        .iter()
        .map(|(source, items)| {
            let (counts, phones) = score_all(profile, items, options);
            SourceScore {
                source: (*source).to_string(),
                counts,
                phones,
            }
        })
        .collect();
    let calibration = options.calibrate_first.map(|k| CalibrationReport {
        first: k,
        sources: by_source
            .iter()
            .filter(|(_, items)| items.len() > k)
            .map(|(source, items)| SourceCalibration {
                source: (*source).to_string(),
                result: calibrate_and_score(profile, items, k, options),
            })
            .collect(),
    });
    EvalReport {
        mode: options.mode,
        profile: profile.description.clone(),
        sources,
        calibration,
    }
}

/// Every clip under every condition of [`Degradation::ALL`], grouped as
/// `SOURCE +CONDITION`; clip *i*'s noise is seeded with *i*.
pub fn variant_clips(clips: &[LabelledClip]) -> Vec<LabelledClip> {
    let mut out = Vec::with_capacity(clips.len() * Degradation::ALL.len());
    for d in Degradation::ALL {
        for (i, c) in clips.iter().enumerate() {
            out.push(LabelledClip {
                source: format!("{} +{}", c.source, d.name()),
                samples: d.apply(&c.samples, i as u64),
                labels: c.labels.clone(),
            });
        }
    }
    out
}

fn score_all(
    profile: &Profile,
    items: &[&LabelledClip],
    options: &EvalOptions,
) -> (ScoreCounts, Option<PhoneConfusion>) {
    let tracks = source_tracks(profile, items, options.mode, options.speaker_mean);
    let mut total = ScoreCounts::default();
    let mut phones = options.by_phone.then(PhoneConfusion::default);
    for (track, c) in tracks.iter().zip(items) {
        total.add(&score_clip(track, &c.labels));
        if let Some(p) = &mut phones {
            p.add_clip(track, &c.labels);
        }
    }
    (total, phones)
}

/// One source's clips read in `mode`: as one session; or, with `speaker_mean`, offline or
/// streamed as one [`Speaker`]; else each clip alone.
pub(crate) fn source_tracks(
    profile: &Profile,
    items: &[&LabelledClip],
    mode: AnalysisMode,
    speaker_mean: bool,
) -> Vec<VowelTrack> {
    match mode {
        AnalysisMode::Session => session_tracks(profile, items),
        AnalysisMode::Offline if speaker_mean => speaker_tracks(profile, items),
        AnalysisMode::Streaming if speaker_mean => speaker_stream_tracks(profile, items),
        _ => items
            .iter()
            .map(|c| mode.analyse(profile, &c.samples))
            .collect(),
    }
}

/// Every clip's features, and the source as one [`Speaker`] (its clips as a voice's lines).
pub(crate) fn speaker_features<'a>(
    analyser: &mut Analyser,
    lines: impl IntoIterator<Item = &'a [f32]>,
) -> (Vec<ClipFeatures>, Speaker) {
    let mut speaker = Speaker::new();
    let feats = lines
        .into_iter()
        .map(|samples| {
            let f = analyser.features(samples);
            speaker.add(&f);
            f
        })
        .collect();
    (feats, speaker)
}

/// Offline, every clip read against the source's other clips ([`Speaker::read`]).
pub fn speaker_tracks(profile: &Profile, clips: &[&LabelledClip]) -> Vec<VowelTrack> {
    let mut analyser = Analyser::new(profile.clone());
    let (mut feats, speaker) =
        speaker_features(&mut analyser, clips.iter().map(|c| c.samples.as_slice()));
    feats
        .iter_mut()
        .zip(clips)
        .map(|(f, c)| speaker.read(&analyser, f, c.samples.len()))
        .collect()
}

/// Streaming, a new stream per clip started from the source's *other* clips
/// ([`Speaker::stream`]: a stream cannot know the line it is about to hear).
pub fn speaker_stream_tracks(profile: &Profile, clips: &[&LabelledClip]) -> Vec<VowelTrack> {
    let (feats, speaker) = speaker_features(
        &mut Analyser::new(profile.clone()),
        clips.iter().map(|c| c.samples.as_slice()),
    );
    feats
        .iter()
        .zip(clips)
        .map(|(f, c)| {
            speaker
                .stream(
                    profile.clone(),
                    AnalyserConfig::default(),
                    &CepstralMean::of_clip(f),
                )
                .analyse_clip(&c.samples, STREAM_CHUNK)
        })
        .collect()
}

/// [`AnalysisMode::Session`]: one stream through every clip, cut back into one track per
/// clip (its `floor(len / HOP)` frames, as [`StreamAnalyser::analyse_in_chunks`] gives).
pub fn session_tracks(profile: &Profile, clips: &[&LabelledClip]) -> Vec<VowelTrack> {
    let mut stream = StreamAnalyser::with_config(profile.clone(), AnalyserConfig::default());
    let mut frames = Vec::new();
    let mut spans = Vec::with_capacity(clips.len());
    let pad = [0f32; HOP];
    for c in clips {
        let whole = c.samples.len().div_ceil(HOP);
        for chunk in c.samples.chunks(STREAM_CHUNK) {
            stream.push(chunk, &mut frames);
        }
        let tail = whole * HOP - c.samples.len();
        stream.push(&pad[..tail], &mut frames);
        spans.push((whole, c.samples.len() / HOP));
    }
    stream.finish(&mut frames);
    let mut out = Vec::with_capacity(clips.len());
    let mut at = 0;
    for (c, (whole, kept)) in clips.iter().zip(spans) {
        let mut track = VowelTrack {
            fps: crate::FRAME_RATE,
            frames: frames[at.min(frames.len())..(at + kept).min(frames.len())].to_vec(),
            voiced_span: None,
            duration_s: c.samples.len() as f64 / f64::from(crate::SAMPLE_RATE),
        };
        track.update_voiced_span();
        out.push(track);
        at += whole;
    }
    out
}

fn calibrate_and_score(
    profile: &Profile,
    items: &[&LabelledClip],
    k: usize,
    options: &EvalOptions,
) -> Result<CalibrationScore, LipsyncError> {
    // The calibration lines print counts only: no phone tally.
    let counts_only = EvalOptions {
        by_phone: false,
        ..*options
    };
    let (cal, rest) = items.split_at(k);
    let mut builder = ProfileBuilder::new();
    let mut analyser = Analyser::new(profile.clone());
    for c in cal {
        builder.add_labelled_clip(&analyser.features(&c.samples), &c.labels);
    }
    let calibrated = profile.calibrated(&builder, CALIBRATION_MIN_FRAMES)?;
    Ok(CalibrationScore {
        built_in: score_all(profile, rest, &counts_only).0,
        calibrated: score_all(&calibrated, rest, &counts_only).0,
        held_out: rest.len(),
    })
}

/// A source's vowel frames by phone, most frames first: each phone's class, frames, the
/// share read as its class and the shares read as each class and silent.
fn write_phones(s: &mut String, p: &PhoneConfusion) {
    let _ = writeln!(
        s,
        "    phone      class  frames   right   (% read as  A    I    U    E    O    N    S)"
    );
    for (phone, class, row) in p.by_frames() {
        let n = row.iter().sum::<u64>().max(1) as f64;
        let share = |k: usize| 100.0 * row[k] as f64 / n;
        let cells: String = (0..7).map(|k| format!("{:5.0}", share(k))).collect();
        let _ = writeln!(
            s,
            "    {phone:10} {}      {:6}  {:5.1}%             {cells}",
            class.letter(),
            row.iter().sum::<u64>(),
            share(class.index()),
        );
    }
}

/// A fraction as a percentage with one decimal (`"91.3%"`), `"n/a"` for `None`.
pub fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{:.1}%", 100.0 * v))
}

impl EvalReport {
    /// The report as `omote lipsync eval` prints it: a header, one line per source
    /// (with its vowel confusion matrix when `confusion`), then the calibration lines.
    pub fn to_text(&self, confusion: bool) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(
            s,
            "omote lipsync eval ({}, profile: {})",
            self.mode.name(),
            self.profile
        );
        for SourceScore {
            source,
            counts: c,
            phones,
        } in &self.sources
        {
            let _ = writeln!(
                s,
                "{source:40} vowel {:>6} ({} fr)  silence {:>6} ({} fr)  closed {:>6} ({} fr)  changes {} /s, {} × labels",
                pct(c.vowel_accuracy()),
                c.vowel_n,
                pct(c.silence_accuracy()),
                c.silence_n,
                pct(c.closed_accuracy()),
                c.closed_n,
                c.changes_per_second()
                    .map_or("n/a".into(), |v| format!("{v:.1}")),
                c.change_ratio().map_or("n/a".into(), |v| format!("{v:.2}")),
            );
            if confusion {
                let _ = writeln!(
                    s,
                    "    label\\pred    A     I     U     E     O     N     S"
                );
                for (k, row) in c.confusion.iter().enumerate() {
                    let cells: String = row.iter().map(|v| format!("{v:6}")).collect();
                    let _ = writeln!(s, "    {}        {cells}", Viseme::ALL[k].letter());
                }
            }
            if let Some(p) = phones {
                write_phones(&mut s, p);
            }
        }
        if let Some(cal) = &self.calibration {
            let _ = writeln!(
                s,
                "calibration: per source, calibrate on the first {} clips, score the rest",
                cal.first
            );
            for SourceCalibration { source, result } in &cal.sources {
                let _ = match result {
                    Err(e) => writeln!(s, "{source:40} cannot calibrate: {e}"),
                    Ok(r) => writeln!(
                        s,
                        "{source:40} built-in vowel {:>6} -> calibrated {:>6} ({} clips held out)",
                        pct(r.built_in.vowel_accuracy()),
                        pct(r.calibrated.vowel_accuracy()),
                        r.held_out
                    ),
                };
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SAMPLE_RATE;

    /// A vowel-like buzz (120 Hz with `harmonics` harmonics falling as 1/k) inside
    /// `voiced` (seconds), digital silence around it; and labels: S, `class`, S.
    fn clip(
        source: &str,
        seconds: f64,
        voiced: (f64, f64),
        harmonics: usize,
        class: Viseme,
    ) -> LabelledClip {
        let rate = f64::from(SAMPLE_RATE);
        let samples = (0..(seconds * rate) as usize)
            .map(|i| {
                let t = i as f64 / rate;
                if t < voiced.0 || t >= voiced.1 {
                    return 0.0;
                }
                let s: f64 = (1..=harmonics)
                    .map(|k| (k as f64 * 120.0 * std::f64::consts::TAU * t).sin() / k as f64)
                    .sum();
                (0.2 * s) as f32
            })
            .collect();
        let seg = |start_s: f64, end_s: f64, class: Option<Viseme>| LabelSegment {
            start_s,
            end_s,
            class,
            phone: String::new(),
            line: 0,
        };
        LabelledClip {
            source: source.into(),
            samples,
            labels: vec![
                seg(0.0, voiced.0, None),
                seg(voiced.0, voiced.1, Some(class)),
                seg(voiced.1, seconds, None),
            ],
        }
    }

    fn data() -> Vec<LabelledClip> {
        vec![
            clip("ja/b", 1.2, (0.3, 0.9), 30, Viseme::A),
            clip("en/a", 1.0, (0.2, 0.7), 8, Viseme::I),
            clip("ja/b", 1.5, (0.4, 1.1), 20, Viseme::O),
            clip("ja/b", 1.0, (0.3, 0.8), 30, Viseme::A),
        ]
    }

    #[test]
    fn manifest_columns_in_any_order_and_missing_cells() {
        let text = "source\tclip\ttext\tlanguage\n\
                    open_jtalk\tja_001.wav\tこんにちは\tja\n\
                    \n\
                    espeak\ten_002\thello\ten\n\
                    short\tx\n";
        let m = parse_manifest(text, "m.tsv").unwrap();
        let rows: Vec<(&str, &str)> = m
            .iter()
            .map(|c| (c.clip.as_str(), c.source.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("ja_001", "ja/open_jtalk"),
                ("en_002", "en/espeak"),
                ("x", "?/short")
            ]
        );
        for bad in ["clip\tlanguage\n", "", "clip language source\n"] {
            let e = parse_manifest(bad, "data/manifest.tsv").unwrap_err();
            assert_eq!(
                e.to_string(),
                "data/manifest.tsv: manifest needs columns clip, language, source"
            );
        }
        // A header and no clips: an error, so `eval` never reports a score of nothing.
        for empty in ["clip\tlanguage\tsource\n", "clip\tlanguage\tsource\n\n  \n"] {
            let e = parse_manifest(empty, "data/manifest.tsv").unwrap_err();
            assert!(
                e.to_string()
                    .contains("data/manifest.tsv: the manifest lists no clips"),
                "{e}"
            );
        }
    }

    /// With the speaker mean, a source of one clip scores as before (no other lines),
    /// offline and streamed; a source of several reads them otherwise.
    #[test]
    fn speaker_mean_reads_a_clip_against_its_sources_other_clips() {
        let profile = Profile::builtin();
        let clips = data();
        for mode in [AnalysisMode::Offline, AnalysisMode::Streaming] {
            let options = |speaker_mean| EvalOptions {
                mode,
                speaker_mean,
                by_phone: false,
                ..EvalOptions::default()
            };
            let (alone, grouped) = (
                evaluate(&profile, &clips, &options(false)),
                evaluate(&profile, &clips, &options(true)),
            );
            assert_eq!(alone.sources[0].source, "en/a");
            assert_eq!(
                alone.sources[0].counts, grouped.sources[0].counts,
                "{mode:?}"
            );
            let ja: Vec<&LabelledClip> = clips.iter().filter(|c| c.source == "ja/b").collect();
            let tracks = match mode {
                AnalysisMode::Offline => speaker_tracks(&profile, &ja),
                _ => speaker_stream_tracks(&profile, &ja),
            };
            let changed = ja
                .iter()
                .zip(&tracks)
                .filter(|(c, t)| mode.analyse(&profile, &c.samples).frames != t.frames)
                .count();
            assert!(changed > 0, "{mode:?}: no clip read otherwise");
            assert!(
                tracks
                    .iter()
                    .flat_map(|t| &t.frames)
                    .all(|f| f.weights.iter().all(|w| w.is_finite()))
            );
        }
    }

    #[test]
    fn sources_are_scored_separately_and_sum_their_clips() {
        let profile = Profile::builtin();
        let clips = data();
        for mode in [AnalysisMode::Offline, AnalysisMode::Streaming] {
            let options = EvalOptions {
                mode,
                calibrate_first: None,
                variants: false,
                speaker_mean: false,
                by_phone: false,
            };
            let r = evaluate(&profile, &clips, &options);
            assert_eq!(r.mode, mode);
            assert!(r.calibration.is_none());
            let names: Vec<&str> = r.sources.iter().map(|s| s.source.as_str()).collect();
            assert_eq!(names, ["en/a", "ja/b"], "sorted by source");
            // Each source's figures are the sum of its clips' scores.
            for s in &r.sources {
                let mut want = ScoreCounts::default();
                for c in clips.iter().filter(|c| c.source == s.source) {
                    want.add(&score_clip(&mode.analyse(&profile, &c.samples), &c.labels));
                }
                assert_eq!(s.counts, want, "{mode:?} {}", s.source);
                assert!(s.counts.vowel_n > 0 && s.counts.silence_n > 0);
            }
            // Digital silence around the buzz is found as silence.
            assert!(
                r.sources
                    .iter()
                    .all(|s| s.counts.silence_accuracy() > Some(0.9))
            );
        }
        // Offline and streaming differ in analysis, not in what is scored.
        let off = evaluate(&profile, &clips, &EvalOptions::default());
        let on = evaluate(
            &profile,
            &clips,
            &EvalOptions {
                mode: AnalysisMode::Streaming,
                calibrate_first: None,
                variants: false,
                speaker_mean: false,
                by_phone: false,
            },
        );
        for (a, b) in off.sources.iter().zip(&on.sources) {
            assert_eq!(
                (a.counts.vowel_n, a.counts.silence_n),
                (b.counts.vowel_n, b.counts.silence_n)
            );
        }
    }

    #[test]
    fn variants_add_one_group_per_source_and_condition() {
        let profile = Profile::builtin();
        let clips = data();
        let r = evaluate(
            &profile,
            &clips,
            &EvalOptions {
                variants: true,
                speaker_mean: false,
                by_phone: false,
                ..EvalOptions::default()
            },
        );
        let names: Vec<&str> = r.sources.iter().map(|s| s.source.as_str()).collect();
        assert_eq!(names.len(), 2 * (1 + Degradation::ALL.len()));
        assert!(names.contains(&"ja/b +quiet-22/-60dBFS") && names.contains(&"en/a +hum50Hz"));
        let plain = evaluate(&profile, &clips, &EvalOptions::default());
        for s in &plain.sources {
            let same = r.sources.iter().find(|v| v.source == s.source).unwrap();
            assert_eq!(same.counts, s.counts, "the clean groups are unchanged");
            for d in Degradation::ALL {
                let v = r
                    .sources
                    .iter()
                    .find(|v| v.source == format!("{} +{}", s.source, d.name()))
                    .unwrap();
                assert_eq!(v.counts.vowel_n, s.counts.vowel_n, "same labels scored");
                // A steady buzz under any of these conditions is still found and named.
                assert!(v.counts.silence_accuracy() > Some(0.9), "{}", v.source);
            }
        }
        assert_eq!(
            variant_clips(&clips),
            variant_clips(&clips),
            "deterministic"
        );
    }

    #[test]
    fn calibrate_first_k_holds_out_the_rest_per_source() {
        let profile = Profile::builtin();
        let clips = data();
        let r = evaluate(
            &profile,
            &clips,
            &EvalOptions {
                mode: AnalysisMode::Offline,
                calibrate_first: Some(1),
                variants: false,
                speaker_mean: false,
                by_phone: false,
            },
        );
        let cal = r.calibration.as_ref().unwrap();
        assert_eq!(cal.first, 1);
        // en/a has one clip: nothing to hold out, so no line.
        assert_eq!(cal.sources.len(), 1);
        assert_eq!(cal.sources[0].source, "ja/b");
        let scores = cal.sources[0].result.as_ref().unwrap();
        assert_eq!(scores.held_out, 2);
        // The held-out clips (the 2nd and 3rd of ja/b, in the order given).
        let mut want = ScoreCounts::default();
        for c in [&clips[2], &clips[3]] {
            want.add(&score_clip(
                &AnalysisMode::Offline.analyse(&profile, &c.samples),
                &c.labels,
            ));
        }
        assert_eq!(scores.built_in, want);
        assert_eq!(scores.calibrated.vowel_n, want.vowel_n);
        // Too few frames to calibrate on: reported, not fatal.
        let silent = LabelledClip {
            source: "ja/b".into(),
            samples: vec![0.0; SAMPLE_RATE as usize],
            labels: clips[0].labels.clone(),
        };
        let mut clips = clips;
        clips.insert(0, silent);
        let r = evaluate(
            &profile,
            &clips,
            &EvalOptions {
                mode: AnalysisMode::Offline,
                calibrate_first: Some(1),
                variants: false,
                speaker_mean: false,
                by_phone: false,
            },
        );
        let cal = r.calibration.unwrap();
        let e = cal.sources[0].result.as_ref().unwrap_err();
        assert!(matches!(e, LipsyncError::TooFewFrames { .. }), "{e}");
        // More clips than any source has: no calibration lines at all.
        let r = evaluate(
            &profile,
            &clips,
            &EvalOptions {
                mode: AnalysisMode::Offline,
                calibrate_first: Some(10),
                variants: false,
                speaker_mean: false,
                by_phone: false,
            },
        );
        assert!(r.calibration.unwrap().sources.is_empty());
    }

    #[test]
    fn a_session_is_one_stream_cut_back_into_its_clips() {
        // Lengths that are not whole frames, so the padding between clips matters.
        let mut a = clip("ja/b", 1.2, (0.3, 0.9), 30, Viseme::A);
        a.samples.truncate(a.samples.len() - 37);
        let b = clip("ja/b", 1.0, (0.2, 0.8), 20, Viseme::O);
        let profile = Profile::builtin();
        let cold = |c: &LabelledClip| AnalysisMode::Streaming.analyse(&profile, &c.samples);
        let tracks = session_tracks(&profile, &[&a, &b]);
        assert_eq!(tracks.len(), 2);
        assert_eq!(tracks[0].frames.len(), a.samples.len() / HOP);
        assert_eq!(tracks[1].frames.len(), b.samples.len() / HOP);
        // The first clip is what a cold stream gives; the second starts from what the
        // stream learnt (level, noise, cepstral mean), so it differs from a cold one.
        assert_eq!(tracks[0].frames, cold(&a).frames);
        assert_ne!(tracks[1].frames, cold(&b).frames);
        assert!(tracks[1].voiced_span.is_some());
        // A session of one clip of whole frames is a cold stream.
        assert_eq!(b.samples.len() % HOP, 0);
        assert_eq!(session_tracks(&profile, &[&b])[0].frames, cold(&b).frames);
        // And `evaluate` scores sessions per source.
        let r = evaluate(
            &profile,
            &data(),
            &EvalOptions {
                mode: AnalysisMode::Session,
                calibrate_first: None,
                variants: false,
                speaker_mean: false,
                by_phone: false,
            },
        );
        assert_eq!(r.sources.len(), 2);
        assert!(
            r.to_text(false)
                .starts_with("omote lipsync eval (streaming session,")
        );
    }

    #[test]
    fn text_is_what_the_cli_prints() {
        let mut a = ScoreCounts {
            vowel_ok: 913,
            vowel_n: 1000,
            silence_ok: 99,
            silence_n: 100,
            closed_ok: 61,
            closed_n: 200,
            changes_out: 120,
            changes_label: 80,
            voiced_frames: 1000,
            ..Default::default()
        };
        a.confusion[0] = [344, 0, 16, 58, 134, 0, 32];
        let empty = ScoreCounts::default();
        let report = EvalReport {
            mode: AnalysisMode::Streaming,
            profile: "built-in: test".into(),
            sources: vec![
                SourceScore {
                    source: "en/none".into(),
                    counts: empty,
                    phones: None,
                },
                SourceScore {
                    source: "ja/open_jtalk".into(),
                    counts: a,
                    phones: None,
                },
            ],
            calibration: Some(CalibrationReport {
                first: 10,
                sources: vec![
                    SourceCalibration {
                        source: "en/none".into(),
                        result: Err(LipsyncError::TooFewFrames {
                            class: 'A',
                            frames: 3,
                            need: 20,
                        }),
                    },
                    SourceCalibration {
                        source: "ja/open_jtalk".into(),
                        result: Ok(CalibrationScore {
                            built_in: a,
                            calibrated: ScoreCounts {
                                vowel_ok: 956,
                                vowel_n: 1000,
                                ..Default::default()
                            },
                            held_out: 30,
                        }),
                    },
                ],
            }),
        };
        let want = "\
omote lipsync eval (streaming, profile: built-in: test)
en/none                                  vowel    n/a (0 fr)  silence    n/a (0 fr)  closed    n/a (0 fr)  changes n/a /s, n/a × labels
ja/open_jtalk                            vowel  91.3% (1000 fr)  silence  99.0% (100 fr)  closed  30.5% (200 fr)  changes 12.0 /s, 1.50 × labels
calibration: per source, calibrate on the first 10 clips, score the rest
en/none                                  cannot calibrate: not enough voiced frames to calibrate A: 3 (need 20)
ja/open_jtalk                            built-in vowel  91.3% -> calibrated  95.6% (30 clips held out)
";
        assert_eq!(report.to_text(false), want);
        let with_confusion = report.to_text(true);
        assert!(with_confusion.contains(
            "ja/open_jtalk                            vowel  91.3% (1000 fr)  silence  99.0% (100 fr)  closed  30.5% (200 fr)  changes 12.0 /s, 1.50 × labels\n    label\\pred    A     I     U     E     O     N     S\n    A           344     0    16    58   134     0    32\n    I             0"
        ), "{with_confusion}");
        assert_eq!(with_confusion.lines().count(), want.lines().count() + 2 * 6);
        assert_eq!(pct(Some(0.913)), "91.3%");
        assert_eq!(pct(None), "n/a");
    }
}
