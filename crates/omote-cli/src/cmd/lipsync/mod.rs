//! `omote lipsync`: batch analysis of voice files, calibration, plots and evaluation.
//!
//! ```text
//! omote lipsync PATH... [--out DIR] [--format json|tsv|rhubarb-json|rhubarb-tsv|rhubarb-xml] [--fps 60]
//!                       [--profile P] [--jobs N] [--stream] [--speaker folder|all|file]
//! omote lipsync calibrate --a A.wav --i I.wav --u U.wav --e E.wav --o O.wav [--n N.wav] -o PROFILE.json
//! omote lipsync calibrate --labelled CLIP.wav CLIP.lab.tsv [...] -o PROFILE.json
//! omote lipsync calibrate --build --labelled-dir DIR -o PROFILE.json   (a new speaker-independent profile)
//! omote lipsync plot VOICE.wav -o OUT.png
//! omote lipsync eval DATA_DIR [--stream] [--profile P] [--calibrate-first K] [--no-variants] [--clip-mean] [--confusion] [--by-phone]
//! omote lipsync eval --syllables SYLLABLES_DIR [--profile P] [--clip-mean | --calibrate-halves] [--stream | --session] [--confusion]
//! arecord -q -f S16_LE -r 16000 -c 1 -t raw | omote lipsync live [--format tsv|jsonl]
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use omote_lipsync::eval::{
    AnalysisMode, EvalOptions, LabelledClip, STREAM_CHUNK, evaluate, parse_manifest,
};
use omote_lipsync::labels::{LabelSegment, parse_labels};
use omote_lipsync::syllables::{SyllableClip, SyllableReading};
use omote_lipsync::{
    Analyser, AnalyserConfig, CepstralMean, ClipFeatures, NetOptions, Profile, ProfileBuilder,
    SAMPLE_RATE, Speaker, SustainedRecordings, Viseme, VowelTrack, export,
};
use rayon::prelude::*;

use crate::args::load_profile;
use crate::limits;
use crate::stages::{self, Stage};

mod live;
mod long;
mod syllables;

/// Written results waiting for their group's sync, at most: one group every 50 ms at
/// 20,000 files a second. An interrupted batch may leave about this many files in a
/// hidden `.omote-partial-PID` folder (never a partial result under a result's name).
const COMMIT_QUEUE: usize = 1024;

/// Audio file extensions picked up when walking folders.
const AUDIO_EXTS: [&str; 6] = ["wav", "flac", "ogg", "oga", "mp3", "wave"];

/// Lip sync: analyse voice files into per-frame A I U E O N weights (default), or
/// calibrate, plot, evaluate.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct LipsyncArgs {
    #[command(subcommand)]
    command: Option<LipsyncCommand>,
    #[command(flatten)]
    analyse: AnalyseArgs,
}

#[derive(Subcommand, Debug)]
enum LipsyncCommand {
    /// Make a speaker profile from sustained vowels or labelled clips.
    Calibrate(Box<CalibrateArgs>),
    /// Plot waveform, vowel weights and voiced span of one file to PNG.
    Plot(PlotArgs),
    /// Score the analyser on a labelled data set (the metric of the shared reference script score-lipsync.py).
    Eval(EvalArgs),
    /// Live: raw PCM from a microphone on stdin → one line per 10 ms frame on stdout.
    Live(live::LiveArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Json,
    Tsv,
    RhubarbJson,
    RhubarbTsv,
    RhubarbXml,
}

#[derive(Args, Debug)]
struct AnalyseArgs {
    /// Audio files and folders (searched recursively for .wav .flac .ogg .mp3). A file
    /// longer than 10 minutes is analysed as a stream (as --stream, memory flat in its
    /// length) and written as it goes (the Rhubarb formats: its cues at the end).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output folder (default: next to each input). Output is NAME.lipsync.json / .tsv,
    /// or NAME.rhubarb.json / .tsv / .xml for the Rhubarb formats (so both can share a
    /// folder).
    #[arg(short = 'o', long, visible_alias = "output")]
    out: Option<PathBuf>,
    /// With --out: each result goes into the sub-folder its file has below the folder
    /// the inputs share (`VO/aoi/line_1.wav`, `VO/beni/line_1.wav` → `OUT/aoi/…`,
    /// `OUT/beni/…`), so a voice library whose folders reuse file names is one run.
    #[arg(long, requires = "out")]
    keep_folders: bool,
    /// Output format: ours (json, tsv: every frame's weights) or Rhubarb Lip Sync's
    /// (rhubarb-json, rhubarb-tsv, rhubarb-xml: mouth cues A–F and X, Rhubarb's text,
    /// times in hundredths; see docs/lipsync-formats.md).
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Output frame rate, 1–1000 (the analyser runs at 100 fps; other rates interpolate).
    #[arg(long, default_value_t = 100.0, allow_negative_numbers = true, value_parser = limits::fps_f32)]
    fps: f32,
    /// Profile JSON (default: the built-in speaker-independent profile).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Worker threads, 1–256 (default: all cores; never more than the files).
    #[arg(long, allow_negative_numbers = true, value_parser = limits::jobs)]
    jobs: Option<usize>,
    /// Use the streaming analyser (10 ms chunks, 22.5 ms latency) instead of offline.
    #[arg(long)]
    stream: bool,
    /// Which files are one speaker's lines, normalised with that speaker's mean cepstrum
    /// (short lines then follow the voice, not their few words): `folder` (the files of one
    /// folder), `name` (the files of one folder named alike before their last `_`:
    /// `aoi_1.wav`, `aoi_2.wav`), `all` (every input) or `file` (each file alone). With
    /// `--stream`, each file's stream starts from the mean of the group's other files.
    #[arg(long, value_enum, default_value = "folder")]
    speaker: SpeakerGroups,
}

/// Which input files share a speaker's [`CepstralMean`].
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum SpeakerGroups {
    /// The files of one folder are one speaker's lines.
    Folder,
    /// The files of one folder whose names share what comes before their last `_` are
    /// one speaker's lines (`aoi_1.wav`, `aoi_2.wav`: aoi; `beni_1.wav`: beni).
    Name,
    /// Every input is the same speaker.
    All,
    /// Each file alone (normalised with its own mean only).
    File,
}

impl SpeakerGroups {
    /// The group `input` belongs to; `None`: a group of its own.
    fn key(self, input: &Path) -> Option<PathBuf> {
        let folder = || input.parent().map(Path::to_path_buf).unwrap_or_default();
        match self {
            Self::Folder => Some(folder()),
            Self::Name => {
                let stem = input.file_stem().unwrap_or_default().to_string_lossy();
                let name = stem.rsplit_once('_').map_or(&*stem, |(name, _)| name);
                // The folder's own entry for the name: `x/aoi` never meets `y/aoi`.
                Some(folder().join(format!("{name}_")))
            }
            Self::All => Some(PathBuf::new()),
            Self::File => None,
        }
    }
}

/// The heading of `calibrate`'s options for building a profile from scratch, kept apart
/// from the few a speaker's calibration needs.
const BUILD: &str = "Building a profile from scratch (tools/lipsync/build-default-profile.sh)";

#[derive(Args, Debug)]
struct CalibrateArgs {
    /// Sustained "a" recording.
    #[arg(long = "a")]
    a: Option<PathBuf>,
    /// Sustained "i" recording.
    #[arg(long = "i")]
    i: Option<PathBuf>,
    /// Sustained "u" recording.
    #[arg(long = "u")]
    u: Option<PathBuf>,
    /// Sustained "e" recording.
    #[arg(long = "e")]
    e: Option<PathBuf>,
    /// Sustained "o" recording.
    #[arg(long = "o")]
    o: Option<PathBuf>,
    /// Closed-mouth hum ("n"/"m") recording.
    #[arg(long = "n")]
    n: Option<PathBuf>,
    /// A labelled clip: CLIP.wav CLIP.lab.tsv (start end class phone). Repeatable.
    #[arg(long, num_args = 2, value_names = ["WAV", "LAB"], action = clap::ArgAction::Append)]
    labelled: Vec<PathBuf>,
    /// Every NAME.wav with a NAME.lab.tsv in this folder.
    #[arg(long)]
    labelled_dir: Option<PathBuf>,
    /// One speaker's recorded syllables (a folder of audio files named by their text,
    /// with an optional `vowels.tsv`, as `eval --syllables` reads a speaker): each file's
    /// vowel part moves its class toward the speaker's. Twenty or more short syllables
    /// ("ka", "ki", ... spoken one per file) cover the five vowels.
    #[arg(long, conflicts_with = "build")]
    syllables: Option<PathBuf>,
    /// One recording of the speaker reading a calibration card: its syllables one at a
    /// time, a short pause after each (default card, 30 syllables: "a i u e o ka ki ku ke
    /// ko sa shi su se so ta chi tsu te to na ni nu ne no ma mi mu me mo"). Each syllable's
    /// vowel part moves its class, as with --syllables.
    #[arg(long, conflicts_with = "build")]
    card: Option<PathBuf>,
    /// The card's text, if not the default: its syllables separated by spaces, each with
    /// one vowel in a five-vowel spelling (a i u e o), in the order they were read.
    #[arg(long, requires = "card")]
    card_text: Option<String>,
    /// Labelled clips named VOICE_N (VOICE: the name up to its last `_`) are one voice's
    /// lines: each is learnt normalised with its voice's cepstral mean, as `omote lipsync`
    /// reads one folder's files (the built-in profile is built so). Per recording
    /// variant.
    #[arg(help_heading = BUILD,long)]
    speaker_from_name: bool,
    /// Build a new speaker-independent profile from all frames (how the built-in profile
    /// is made) instead of adapting a base profile.
    #[arg(help_heading = BUILD,long)]
    build: bool,
    /// Also learn every labelled clip as recorded in a noisy room, by a quiet actor and
    /// over mains hum (`omote_lipsync::degrade::TrainingCondition`, neighbours of the
    /// conditions `eval` scores, never the same), so the profile knows noisy frames.
    #[arg(help_heading = BUILD,long)]
    with_variants: bool,
    /// Base profile to adapt (default: built-in).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Softmax sharpness for --build (0.001–100).
    #[arg(help_heading = BUILD,long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = limits::sharpness)]
    sharpness: f32,
    /// No cepstral mean normalisation for --build (it is on by default).
    #[arg(help_heading = BUILD,long)]
    no_cmn: bool,
    /// Frames a phone needs for its own Gaussian inside its mouth class, for --build (the
    /// label files' phone column; rarer phones share one). A number above any phone's
    /// count builds one Gaussian per class.
    #[arg(help_heading = BUILD,long, default_value_t = omote_lipsync::DEFAULT_MIN_PHONE_FRAMES)]
    min_phone_frames: u64,
    /// Real voices for --build: a folder of recorded syllables as `eval --syllables` reads
    /// it (speaker subfolders, `vowels.tsv`). Each file's vowel frames teach its class's
    /// real-voice Gaussian only (`--real-share`). Repeatable.
    #[arg(help_heading = BUILD,long, action = clap::ArgAction::Append)]
    real_syllables: Vec<PathBuf>,
    /// Real voices for --build: labelled recordings of real speech (NAME.wav +
    /// NAME.lab.tsv, named VOICE_N as for --speaker-from-name), whose vowel frames teach the
    /// real-voice Gaussians only.
    #[arg(help_heading = BUILD,long)]
    real_labelled_dir: Option<PathBuf>,
    /// The share of each vowel class's weight its real-voice Gaussian takes (0–0.9): one
    /// number for all five, or VOWEL=SHARE pairs over the defaults (the help text names
    /// them from `DEFAULT_REAL_SHARES`).
    #[arg(help_heading = BUILD, long, allow_negative_numbers = true, value_parser = limits::real_shares, help = real_share_help())]
    real_share: Option<[f32; 5]>,
    /// Also train a context net for --build: a small net over each frame and its
    /// neighbours (4 before, 1 after) that reads beside the Gaussians, learnt from the
    /// labelled clips and, weighted, the real voices (a few seconds per 100 k frames).
    #[arg(help_heading = BUILD,long)]
    context_net: bool,
    /// More labelled clips for the context net alone (NAME.wav + NAME.lab.tsv, named
    /// VOICE_N as for --speaker-from-name, and under --with-variants' conditions too):
    /// voices that should teach the net what a vowel is without moving the Gaussians.
    /// Repeatable.
    #[arg(help_heading = BUILD,long, action = clap::ArgAction::Append, requires = "context_net")]
    net_labelled_dir: Vec<PathBuf>,
    /// Frames after the scored one the context net reads (0–4; a stream repeats its
    /// newest frame for them).
    #[arg(help_heading = BUILD,long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=4), requires = "context_net")]
    net_future: u8,
    /// The context net's hidden units (1–128).
    #[arg(help_heading = BUILD,long, default_value_t = 48, value_parser = clap::value_parser!(u16).range(1..=128), requires = "context_net")]
    net_hidden: u16,
    /// How much the context net's logits count beside the Gaussians' log-scores (0–100).
    #[arg(help_heading = BUILD,long, default_value_t = omote_lipsync::NetOptions::MIX_WEIGHT, allow_negative_numbers = true, value_parser = limits::net_weight, requires = "context_net")]
    net_weight: f32,
    /// How much a real voice's vowel frame counts in the context net's training against
    /// a labelled one (0–100).
    #[arg(help_heading = BUILD,long, default_value_t = omote_lipsync::NET_REAL_WEIGHT, allow_negative_numbers = true, value_parser = limits::net_weight, requires = "context_net")]
    net_real_weight: f32,
    /// What the context net adds to its closed-mouth logit before the mix (−100–100): lower
    /// keeps the net from closing mouths the Gaussians leave open.
    #[arg(help_heading = BUILD,long, default_value_t = omote_lipsync::NetOptions::MIX_CLOSED_LOGIT, allow_negative_numbers = true, value_parser = limits::log_prior, requires = "context_net")]
    net_closed_logit: f32,
    /// Also teach the context net each labelled clip's frames as a stream normalises
    /// them (a running mean started from the voice's other clips), beside the offline
    /// normalisation.
    #[arg(help_heading = BUILD,long, requires = "context_net")]
    net_streamed: bool,
    /// With --with-variants, also teach the context net every labelled clip through a
    /// narrow 250–3800 Hz channel (`TrainingCondition::NET_ONLY`; the Gaussians do not
    /// learn it), so the net does not lean on the low formant energy a telephone loses.
    #[arg(help_heading = BUILD,long, requires = "context_net", requires = "with_variants")]
    net_band: bool,
    /// The context net's seed (its initial weights and the order it learns in).
    #[arg(help_heading = BUILD,long, default_value_t = 7, requires = "context_net")]
    net_seed: u64,
    /// Context nets trained side by side from seeds --net-seed, --net-seed + 1, …, stored
    /// as one net whose logits are their mean (1–8; members × --net-hidden ≤ 128): steadier
    /// on voices none of them heard than one net.
    #[arg(help_heading = BUILD,long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=8), requires = "context_net")]
    net_members: u8,
    /// Log-prior of N (closed mouth) relative to the vowels, for --build (−100–100).
    #[arg(help_heading = BUILD,long, default_value_t = -1.0, allow_negative_numbers = true, value_parser = limits::log_prior)]
    n_bias: f32,
    /// Output profile JSON.
    #[arg(
        short = 'O',
        long = "output",
        visible_short_alias = 'o',
        visible_alias = "out"
    )]
    output: PathBuf,
}

#[derive(Args, Debug)]
struct PlotArgs {
    /// Voice file.
    input: PathBuf,
    /// Output PNG (the name must end in .png).
    #[arg(short, long, visible_alias = "out")]
    output: PathBuf,
    /// Profile JSON (default: built-in).
    #[arg(long)]
    profile: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct EvalArgs {
    /// Folder with NAME.wav, NAME.lab.tsv and manifest.tsv.
    data: PathBuf,
    /// Profile JSON (default: built-in).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Use the streaming analyser, a new stream per clip, started from the mean cepstrum of
    /// the source's other clips (with `--clip-mean`: cold on every line).
    #[arg(long)]
    stream: bool,
    /// Use the streaming analyser as a live session: one stream per source through all
    /// its clips back to back, so what it learnt of the speaker's level, noise and
    /// cepstral mean carries over (how `lipsync live` runs for hours).
    #[arg(long, conflicts_with = "stream")]
    session: bool,
    /// Also evaluate speaker calibration: per source, calibrate on the first K clips
    /// (labelled) and score the rest with the built-in and the calibrated profile.
    #[arg(long)]
    calibrate_first: Option<usize>,
    /// Print the vowel confusion matrix per source.
    #[arg(long)]
    confusion: bool,
    /// Print, per source, how each labelled vowel phone (the label files' phone column)
    /// was read: its frames, the share read as its class and as each class — where a
    /// loss is, sound by sound.
    #[arg(long, conflicts_with = "syllables")]
    by_phone: bool,
    /// Score the clips only as recorded, without the degraded variant groups (quiet over a
    /// noise floor, pink noise, hum, telephone band).
    #[arg(long)]
    no_variants: bool,
    /// Normalise each clip with its own mean cepstrum only (`omote lipsync --speaker
    /// file`), not with its source's (all of the source's clips, as `omote lipsync` does
    /// for one folder's files by default); with `--stream`, start every stream cold.
    #[arg(long)]
    clip_mean: bool,
    /// Score a folder of recorded syllables instead (issue 39): DATA_DIR's subfolders are
    /// speakers (or DATA_DIR itself is one), each audio file is named by its text and its
    /// vowel is given by the folder's `vowels.tsv` (`tools/lipsync/klettres_syllables.py`)
    /// or, without one, by the name's vowel letters; the leading class over the last 60 %
    /// of each file's voiced frames is scored against it. `--clip-mean` reads each file
    /// alone; `--confusion` adds each speaker's confusion matrix; `--stream` streams each
    /// file (started from the speaker's other files), `--session` streams a speaker's files
    /// back to back, as a live microphone hears them.
    #[arg(long, conflicts_with_all = ["calibrate_first", "no_variants"])]
    syllables: bool,
    /// With --syllables: split each speaker's files in two halves (alternate files) and
    /// score each half with the profile calibrated on the other half's syllables (as
    /// `calibrate --syllables` does) — how far the speaker's own labelled syllables go.
    #[arg(long, requires = "syllables", conflicts_with = "clip_mean")]
    calibrate_halves: bool,
}

/// Runs `omote lipsync ...`.
pub fn run(args: LipsyncArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(LipsyncCommand::Calibrate(a)) => calibrate(*a).map(|()| ExitCode::SUCCESS),
        Some(LipsyncCommand::Plot(a)) => plot(a).map(|()| ExitCode::SUCCESS),
        Some(LipsyncCommand::Eval(a)) => eval(a).map(|()| ExitCode::SUCCESS),
        Some(LipsyncCommand::Live(a)) => live::live(a).map(|()| ExitCode::SUCCESS),
        None => analyse(args.analyse),
    }
}

use crate::voice_input::load_16k;

/// The audio files behind `paths`: named files as given, folders walked recursively
/// (sorted). Every file is visited once: symbolic links are followed, but a folder or
/// file already seen (by its canonical path: a link loop, a link to a sibling, a path
/// given twice) is skipped.
fn collect_inputs(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    use std::collections::HashSet;
    /// `canonical`: `dir`'s canonical path. A plain file's or folder's in it is
    /// `canonical/NAME`, known without asking the system; only links are resolved (a
    /// `canonicalize` and a `stat` per file were most of the walk's time).
    fn walk(
        dir: &Path,
        canonical: &Path,
        out: &mut Vec<PathBuf>,
        seen: &mut HashSet<PathBuf>,
    ) -> anyhow::Result<()> {
        let mut entries: Vec<(std::ffi::OsString, std::fs::DirEntry)> = std::fs::read_dir(dir)
            .with_context(|| format!("{}: cannot list folder", dir.display()))?
            .filter_map(|e| e.ok().map(|e| (e.file_name(), e)))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let p = entry.path();
            let (is_dir, real) = if kind.is_symlink() {
                // A dangling link has no canonical path: skipped like any unreadable entry.
                let Ok(real) = p.canonicalize() else {
                    continue;
                };
                (real.is_dir(), real)
            } else {
                (kind.is_dir(), canonical.join(&name))
            };
            if is_dir {
                if seen.insert(real.clone()) {
                    walk(&p, &real, out, seen)?;
                }
            } else if Path::new(&name)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| AUDIO_EXTS.contains(&e.to_ascii_lowercase().as_str()))
                && seen.insert(real)
            {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for p in paths {
        let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
        if p.is_dir() {
            if seen.insert(canonical.clone()) {
                walk(p, &canonical, &mut out, &mut seen)?;
            }
        } else if seen.insert(canonical) {
            // Named files are always tried, whatever their extension.
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Two inputs whose results would be the same file (`a/x.wav` and `b/x.flac` into one
/// `--out`): an error before any work, naming both.
fn check_distinct_outputs(inputs: &[PathBuf], outputs: &Outputs) -> anyhow::Result<()> {
    let mut seen: HashMap<PathBuf, &Path> = HashMap::new();
    // Each output folder's canonical path, asked once (not once per file).
    let mut folders: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    for input in inputs {
        let out = outputs.path(input);
        let folder = out.parent().map(|d| {
            if !folders.contains_key(d) {
                folders.insert(d.to_path_buf(), d.canonicalize().ok());
            }
            &folders[d]
        });
        let key = folder.and_then(Option::as_ref).map_or_else(
            || out.clone(),
            |d| d.join(out.file_name().unwrap_or_default()),
        );
        if let Some(first) = seen.insert(key, input) {
            // `--keep-folders` helps only inputs in different folders; `x.flac` beside
            // `x.ogg` needs another name or another run.
            let same_folder = first.parent() == input.parent();
            bail!(
                "{} and {} would both write {}: {}",
                first.display(),
                input.display(),
                out.display(),
                if same_folder {
                    "they differ only by extension; rename one, or analyse them in separate runs with different --out folders"
                } else if outputs.dir.is_some() && outputs.below.is_none() {
                    "give them different --out folders or names (--keep-folders keeps their sub-folders)"
                } else {
                    "give them different --out folders or names"
                }
            );
        }
    }
    Ok(())
}

/// Where each input's result goes: next to it, in `--out`, or (`--keep-folders`) in the
/// sub-folder of `--out` that it has below the folder the inputs share.
struct Outputs {
    dir: Option<PathBuf>,
    /// With `--keep-folders`: the deepest folder every input path lies under, as given.
    below: Option<PathBuf>,
    format: Format,
}

impl Outputs {
    fn new(args: &AnalyseArgs) -> Self {
        let below = (args.keep_folders && args.out.is_some()).then(|| {
            let folders = args.paths.iter().map(|p| {
                if p.is_dir() {
                    p.as_path()
                } else {
                    p.parent().unwrap_or(Path::new(""))
                }
            });
            common_folder(folders)
        });
        Self {
            dir: args.out.clone(),
            below,
            format: args.format,
        }
    }

    fn path(&self, input: &Path) -> PathBuf {
        let flat = output_path(input, self.dir.as_deref(), self.format);
        match (&self.dir, &self.below) {
            (Some(dir), Some(below)) => {
                let sub = input
                    .strip_prefix(below)
                    .ok()
                    .and_then(Path::parent)
                    .unwrap_or(Path::new(""));
                dir.join(sub).join(flat.file_name().unwrap_or_default())
            }
            _ => flat,
        }
    }
}

/// The longest leading run of components all `folders` share (`""` when none).
fn common_folder<'a>(mut folders: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = folders.next() else {
        return PathBuf::new();
    };
    let mut common: Vec<_> = first.components().collect();
    for f in folders {
        let n = common
            .iter()
            .zip(f.components())
            .take_while(|(a, b)| *a == b)
            .count();
        common.truncate(n);
    }
    common.iter().collect()
}

fn output_path(input: &Path, out_dir: Option<&Path>, format: Format) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "audio".into());
    let ext = match format {
        Format::Json => "lipsync.json",
        Format::Tsv => "lipsync.tsv",
        Format::RhubarbJson => "rhubarb.json",
        Format::RhubarbTsv => "rhubarb.tsv",
        Format::RhubarbXml => "rhubarb.xml",
    };
    let dir = out_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| input.parent().map(Path::to_path_buf).unwrap_or_default());
    dir.join(format!("{stem}.{ext}"))
}

fn render(track: &VowelTrack, input: &Path, format: Format) -> String {
    let name = input.display().to_string();
    match format {
        Format::Json => export::to_json(track, &name),
        Format::Tsv => export::to_tsv(track),
        Format::RhubarbJson => export::to_rhubarb_json(track, &rhubarb_sound_file(input)),
        Format::RhubarbTsv => export::to_rhubarb_tsv(track),
        Format::RhubarbXml => export::to_rhubarb_xml(track, &rhubarb_sound_file(input)),
    }
}

/// The `soundFile` of a Rhubarb export: the input's absolute path, as Rhubarb writes it
/// (a relative one would be relative to wherever the command ran, not to the result).
fn rhubarb_sound_file(input: &Path) -> String {
    std::path::absolute(input)
        .unwrap_or_else(|_| input.to_path_buf())
        .display()
        .to_string()
}

/// One input of the batch between the two passes.
enum Pending {
    /// Read (first pass done).
    Read(Box<ReadClip>),
    /// Written, or could not be read (reported).
    Done,
    /// Not read yet (no speaker groups: one pass).
    Unread,
    /// Too long to hold ([`omote_embed::LONG_VOICE_S`]): analysed as a stream in the second pass,
    /// against its group's other files, and not one of them.
    Long,
}

/// A file after the first pass: its own cepstral sum, its length in samples, and
/// (offline) its features without the normalised copy; a stream reads the audio again.
struct ReadClip {
    own: CepstralMean,
    len: usize,
    features: Option<ClipFeatures>,
}

/// What every worker of the batch shares: the settings, the progress bar, the failures.
struct Batch<'a> {
    args: &'a AnalyseArgs,
    outputs: Outputs,
    profile: Profile,
    bar: ProgressBar,
    failures: Mutex<Vec<String>>,
}

impl Batch<'_> {
    /// Loads `input`; a file with no samples is an error (there is nothing to analyse),
    /// and one cut short is warned about once (`warn`: the first read of the file).
    fn load<'a>(
        &self,
        loader: &'a mut Result<omote_audio::Loader, omote_audio::AudioError>,
        input: &Path,
        warn: bool,
    ) -> anyhow::Result<&'a [f32]> {
        let loader = loader.as_mut().map_err(|e| anyhow::anyhow!("{e}"))?;
        loader.load(input)?;
        let loader: &'a omote_audio::Loader = loader;
        let samples = loader.last();
        if samples.is_empty() {
            return Err(omote_audio::AudioError::NoSamples {
                path: input.to_path_buf(),
            }
            .into());
        }
        if let (true, Some(w)) = (warn, loader.warning(input)) {
            self.bar.suspend(|| {
                crate::output::warn(&w);
            });
        }
        Ok(samples)
    }

    /// Reports a file's failure above the progress bar and counts it.
    fn fail(&self, input: &Path, e: &anyhow::Error) {
        self.bar.suspend(|| {
            eprintln!("error: {}", crate::output::error_text(e));
        });
        if let Ok(mut f) = self.failures.lock() {
            f.push(input.display().to_string());
        }
    }

    /// A worker's own analyser and audio loader.
    fn worker(
        &self,
    ) -> (
        Analyser,
        Result<omote_audio::Loader, omote_audio::AudioError>,
    ) {
        stages::time(Stage::Setup, || {
            (
                Analyser::new(self.profile.clone()),
                omote_audio::Loader::new(SAMPLE_RATE),
            )
        })
    }

    /// First pass (speaker groups): every file's cepstral sum and (offline) features,
    /// kept without the normalised copy; then each group's voice.
    fn read_speakers(
        &self,
        pool: &rayon::ThreadPool,
        inputs: &[PathBuf],
    ) -> (Vec<Pending>, HashMap<PathBuf, Speaker>) {
        self.bar.set_message("reading (speaker means)");
        let read: Vec<Pending> = pool.install(|| {
            inputs
                .par_iter()
                .map_init(
                    || self.worker(),
                    |(analyser, loader), input| {
                        if omote_embed::is_long_voice_file(input) {
                            self.bar.inc(1);
                            return Pending::Long;
                        }
                        let read = stages::time(Stage::Decode, || self.load(loader, input, true))
                            .map(|samples| {
                                let mut f =
                                    stages::time(Stage::Analyse, || analyser.features(samples));
                                f.normalised = Vec::new();
                                Pending::Read(Box::new(ReadClip {
                                    own: CepstralMean::of_clip(&f),
                                    len: samples.len(),
                                    features: (!self.args.stream).then_some(f),
                                }))
                            });
                        self.bar.inc(1);
                        read.unwrap_or_else(|e| {
                            self.fail(input, &e);
                            Pending::Done
                        })
                    },
                )
                .collect()
        });
        let mut speakers: HashMap<PathBuf, Speaker> = HashMap::new();
        for (input, f) in inputs.iter().zip(&read) {
            if let (Some(key), Pending::Read(clip)) = (self.args.speaker.key(input), f) {
                speakers.entry(key).or_default().add_sum(clip.own);
            }
        }
        self.bar.set_position(0);
        self.bar.set_message("classifying and writing");
        (read, speakers)
    }

    /// One file's track: read against its speaker's other lines when the first pass read
    /// it, else analysed alone. `None`: already reported.
    fn track(
        &self,
        (analyser, loader): &mut (
            Analyser,
            Result<omote_audio::Loader, omote_audio::AudioError>,
        ),
        read: &mut Pending,
        input: &Path,
        speakers: &HashMap<PathBuf, Speaker>,
    ) -> anyhow::Result<Option<VowelTrack>> {
        let track = match read {
            Pending::Done | Pending::Long => return Ok(None),
            Pending::Read(clip) => {
                let ReadClip { own, len, features } = &mut **clip;
                let no_speaker = Speaker::new();
                let speaker = self
                    .args
                    .speaker
                    .key(input)
                    .and_then(|k| speakers.get(&k))
                    .unwrap_or(&no_speaker);
                let track = match features {
                    Some(feats) => {
                        stages::time(Stage::Analyse, || speaker.read(analyser, feats, *len))
                    }
                    None => {
                        let samples =
                            stages::time(Stage::Decode, || self.load(loader, input, false))?;
                        stages::time(Stage::Analyse, || {
                            speaker
                                .stream(self.profile.clone(), AnalyserConfig::default(), own)
                                .analyse_clip(samples, STREAM_CHUNK)
                        })
                    }
                };
                // Free the features as soon as they are used.
                *read = Pending::Done;
                track
            }
            Pending::Unread => {
                let samples = stages::time(Stage::Decode, || self.load(loader, input, true))?;
                stages::time(Stage::Analyse, || {
                    if self.args.stream {
                        // 10 ms chunks, like a live audio callback.
                        AnalysisMode::Streaming.analyse(&self.profile, samples)
                    } else {
                        analyser.analyse(samples)
                    }
                })
            }
        };
        Ok(Some(if (track.fps - self.args.fps).abs() < 1e-6 {
            track
        } else {
            stages::time(Stage::Analyse, || track.resampled(self.args.fps))
        }))
    }

    /// A file too long to hold ([`omote_embed::LONG_VOICE_S`]; found by the first pass, or here
    /// without speaker groups): analysed as a stream and written now. `false`: not long.
    fn long(&self, read: &mut Pending, input: &Path, speakers: &HashMap<PathBuf, Speaker>) -> bool {
        let is_long = match read {
            Pending::Long => true,
            Pending::Unread => omote_embed::is_long_voice_file(input),
            _ => false,
        };
        if !is_long {
            return false;
        }
        *read = Pending::Done;
        self.bar.suspend(|| {
            eprintln!(
                "{}: longer than {} minutes: analysed as a stream (as --stream), written as it goes",
                crate::output::escape_terminal(&input.display().to_string()),
                omote_embed::LONG_VOICE_S / 60.0
            );
        });
        // Not one of its group's lines, so all of them are its others.
        let others = self
            .args
            .speaker
            .key(input)
            .and_then(|k| speakers.get(&k))
            .map(|s| *s.total())
            .unwrap_or_default();
        let out = self.outputs.path(input);
        let done = stages::time(Stage::Analyse, || {
            long::analyse_long(
                input,
                &out,
                self.args.format,
                self.args.fps,
                &self.profile,
                &others,
            )
        });
        if let Err(e) = done {
            self.fail(input, &e);
        }
        self.bar.inc(1);
        true
    }

    /// Second pass: every file's track, rendered and written by its worker, then made
    /// durable and renamed in groups by one thread behind the workers.
    fn classify_and_write(
        &self,
        pool: &rayon::ThreadPool,
        inputs: &[PathBuf],
        read: &mut [Pending],
        speakers: &HashMap<PathBuf, Speaker>,
    ) -> anyhow::Result<()> {
        std::thread::scope(|scope| -> anyhow::Result<()> {
            let (to_commit, committer) = crate::output::commit_behind(
                scope,
                COMMIT_QUEUE,
                |input: &Path, result: anyhow::Result<()>| {
                    if let Err(e) = result {
                        self.fail(input, &e);
                    }
                    self.bar.inc(1);
                },
            )?;
            pool.install(|| {
                read.par_iter_mut().zip(inputs.par_iter()).for_each_init(
                    || (self.worker(), to_commit.clone()),
                    |(worker, to_commit), (read, input)| {
                        if self.long(read, input, speakers) {
                            return;
                        }
                        let written = self.track(worker, read, input, speakers).and_then(|t| {
                            let Some(track) = t else { return Ok(None) };
                            let text = stages::time(Stage::Render, || {
                                render(&track, input, self.args.format)
                            });
                            let out = self.outputs.path(input);
                            // Each worker writes in a folder of its own (see `stage_file`).
                            let lane = rayon::current_thread_index().unwrap_or(0);
                            crate::output::stage_file(&out, text.as_bytes(), lane, input.as_path())
                                .map(Some)
                        });
                        match written {
                            // The committer ends only after this scope's senders are gone.
                            Ok(Some(staged)) => {
                                let _ = stages::time(Stage::Wait, || to_commit.send(staged));
                            }
                            Ok(None) => self.bar.inc(1),
                            Err(e) => {
                                self.fail(input, &e);
                                self.bar.inc(1);
                            }
                        }
                    },
                );
            });
            drop(to_commit);
            committer.finish()
        })
    }
}

fn analyse(args: AnalyseArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let profile = stages::time(Stage::Start, || load_profile(args.profile.as_deref()))?;
    let inputs = stages::time(Stage::Walk, || collect_inputs(&args.paths))?;
    if inputs.is_empty() {
        let names: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        bail!("no audio files found in {}", names.join(", "));
    }
    let check_started = std::time::Instant::now();
    if let Some(dir) = &args.out {
        crate::output::ensure_dir(dir)?;
    }
    let outputs = Outputs::new(&args);
    check_distinct_outputs(&inputs, &outputs)?;
    if outputs.below.is_some() {
        // Each sub-folder made before the workers (a missing result folder is an error
        // for them, not something to create half way).
        let folders: std::collections::BTreeSet<PathBuf> = inputs
            .iter()
            .filter_map(|i| outputs.path(i).parent().map(Path::to_path_buf))
            .collect();
        for f in &folders {
            crate::output::ensure_dir(f)?;
        }
    }
    let jobs = limits::threads_for(args.jobs, inputs.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start worker threads")?;
    stages::add(Stage::Check, check_started.elapsed());
    let bar = ProgressBar::new(inputs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed} (eta {eta}) {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let batch = Batch {
        args: &args,
        outputs,
        profile,
        bar,
        failures: Mutex::new(Vec::new()),
    };
    // Speaker groups: every file read first, then each line against its group's others.
    let (mut read, speakers) = if args.speaker == SpeakerGroups::File {
        let unread = (0..inputs.len()).map(|_| Pending::Unread).collect();
        (unread, HashMap::new())
    } else {
        batch.read_speakers(&pool, &inputs)
    };
    batch.classify_and_write(&pool, &inputs, &mut read, &speakers)?;
    batch.bar.finish_and_clear();
    stages::report(inputs.len(), jobs, started.elapsed(), COMMIT_QUEUE);
    let failed = batch.failures.into_inner().unwrap_or_default();
    let ok = inputs.len() - failed.len();
    // Counted over the files analysed, not the groups read: a file too long to hold is
    // streamed, not read into its group, but is still its folder's speaker.
    let groups: std::collections::HashSet<PathBuf> = inputs
        .iter()
        .filter(|i| !failed.contains(&i.display().to_string()))
        .filter_map(|i| args.speaker.key(i))
        .collect();
    let count = format!(
        "{} speaker{}",
        groups.len(),
        if groups.len() == 1 { "" } else { "s" }
    );
    let speakers = match args.speaker {
        // Nothing was read: how files would have been grouped says nothing.
        _ if ok == 0 => String::new(),
        SpeakerGroups::File => String::new(),
        SpeakerGroups::All => "; one speaker (--speaker all)".to_string(),
        SpeakerGroups::Folder => format!(
            "; {count} (one per folder; --speaker name: one per name before its last `_`; \
             --speaker file: each file alone)"
        ),
        SpeakerGroups::Name => {
            format!("; {count} (one per name before its last `_`, in each folder)")
        }
    };
    // Where the results went: the file itself for one input, else the folder or rule.
    let written = match (inputs.as_slice(), args.out.as_deref()) {
        ([one], _) if ok == 1 => {
            format!("; wrote {}", batch.outputs.path(one).display())
        }
        (_, Some(out)) if ok > 0 => format!("; written to {}", out.display()),
        (_, None) if ok > 0 => "; each written next to its input".to_string(),
        _ => String::new(),
    };
    eprintln!(
        "lipsync: {ok} of {} files analysed, {} failed{speakers}{written}",
        inputs.len(),
        failed.len()
    );
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read_labels(path: &Path) -> anyhow::Result<Vec<LabelSegment>> {
    let text = omote_fs::read_to_string(path, omote_fs::Limit::DATA)
        .with_context(|| format!("{}: cannot read labels", path.display()))?;
    Ok(parse_labels(&text, &path.display().to_string())?)
}

fn labelled_pairs_in(dir: &Path) -> anyhow::Result<Vec<(PathBuf, PathBuf)>> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list folder", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.extension().and_then(|e| e.to_str()) == Some("wav") {
            let lab = p.with_extension("lab.tsv");
            if lab.exists() {
                out.push((p, lab));
            }
        }
    }
    Ok(out)
}

/// Seconds a label may run past the end of its audio (rounding, a trailing pause).
const LABEL_SLACK_S: f64 = 1.0;

/// Labels far past the end of the audio are a mismatched pair (or a hostile file that
/// would cost minutes of scoring nothing): refused, naming both files.
fn check_labels_fit(
    labels: &[LabelSegment],
    samples: usize,
    lab: &Path,
    wav: &Path,
) -> anyhow::Result<()> {
    let duration = samples as f64 / f64::from(SAMPLE_RATE);
    if let Some(seg) = labels.iter().find(|s| s.end_s > duration + LABEL_SLACK_S) {
        bail!(
            "{}: line {}: a label ends at {} s, past the end of {} ({duration:.2} s)",
            lab.display(),
            seg.line,
            seg.end_s,
            wav.display()
        );
    }
    Ok(())
}

/// What a folder of labelled clips teaches a profile being built.
#[derive(Clone, Copy, Debug)]
enum Teaches {
    /// The synthetic phones' Gaussians (and the context net, if one is trained).
    Phones,
    /// The real-voice Gaussians (and the context net).
    RealVoices,
    /// The context net alone.
    NetOnly,
}

/// How labelled clips teach a context net, when a profile trains one.
struct NetTraining {
    options: NetOptions,
    /// Each clip also as a stream normalises it.
    streamed: bool,
    /// Each clip also through `TrainingCondition::NET_ONLY` (with the variants).
    band: bool,
}

/// Accumulates labelled clips into a builder (in parallel).
fn labelled_builder(
    profile: &Profile,
    pairs: &[(PathBuf, PathBuf)],
    with_variants: bool,
    speaker_from_name: bool,
    teaches: Teaches,
    net: Option<&NetTraining>,
) -> anyhow::Result<ProfileBuilder> {
    use omote_lipsync::degrade::TrainingCondition;
    let net_band = with_variants && net.is_some_and(|n| n.band);
    // The clip as recorded, then under each training condition (seeded by its position),
    // then under the net's own conditions, which only the net learns.
    let versions = |samples: &[f32], i: usize| -> Vec<Vec<f32>> {
        let mut v = vec![samples.to_vec()];
        if with_variants {
            v.extend(
                TrainingCondition::ALL
                    .iter()
                    .map(|c| c.apply(samples, i as u64)),
            );
        }
        if net_band {
            v.extend(
                TrainingCondition::NET_ONLY
                    .iter()
                    .map(|c| c.apply(samples, i as u64)),
            );
        }
        v
    };
    let net_only_version = |v: usize| v > TrainingCondition::ALL.len();
    let voice_of = |wav: &Path| -> String {
        let stem = wav
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        stem.rfind('_')
            .map_or(stem.clone(), |i| stem[..i].to_string())
    };
    // Every clip's features under every version, once. With speaker groups they are
    // renormalised below with their (voice, version)'s other clips before they are learnt.
    let read: Vec<anyhow::Result<(Vec<LabelSegment>, Vec<ClipFeatures>)>> = pairs
        .par_iter()
        .enumerate()
        .map(|(i, (wav, lab))| {
            let labels = read_labels(lab)?;
            let samples = load_16k(wav)?;
            check_labels_fit(&labels, samples.len(), lab, wav)?;
            let mut analyser = Analyser::new(profile.clone());
            let features = versions(&samples, i)
                .iter()
                .map(|s| {
                    let mut f = analyser.features(s);
                    if speaker_from_name {
                        f.normalised = Vec::new(); // remade with the voice's mean
                    }
                    f
                })
                .collect();
            Ok((labels, features))
        })
        .collect();
    let read = read.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let mut means: std::collections::HashMap<(String, usize), CepstralMean> = Default::default();
    if speaker_from_name {
        for ((wav, _), (_, features)) in pairs.iter().zip(&read) {
            for (v, f) in features.iter().enumerate() {
                means.entry((voice_of(wav), v)).or_default().add_clip(f);
            }
        }
    }
    let analyser = Analyser::new(profile.clone());
    let mut total = ProfileBuilder::new();
    if let Some(net) = net {
        total = total.context_net(net.options.clone());
    }
    let net_streamed = net.is_some_and(|n| n.streamed);
    for ((wav, _), (labels, features)) in pairs.iter().zip(read) {
        for (v, mut f) in features.into_iter().enumerate() {
            let others = means.get(&(voice_of(wav), v)).map(|m| m.without_clip(&f));
            if let Some(others) = &others {
                analyser.renormalise(&mut f, others);
            }
            if net_streamed && total.trains_context_net() {
                let streamed = ClipFeatures {
                    normalised: analyser.stream_normalised(&f, &others.unwrap_or_default()),
                    ..f.clone()
                };
                total.add_net_labelled_clip(&streamed, &labels);
            }
            let teaches = if net_only_version(v) {
                Teaches::NetOnly
            } else {
                teaches
            };
            match teaches {
                Teaches::Phones => total.add_labelled_clip(&f, &labels),
                Teaches::RealVoices => total.add_real_labelled_clip(&f, &labels),
                Teaches::NetOnly => total.add_net_labelled_clip(&f, &labels),
            }
        }
    }
    Ok(total)
}

/// Voiced frames (10 ms) a sustained recording must give after trimming its ends.
const SUSTAINED_MIN_FRAMES: u64 = 40;

/// Two sustained recordings whose mean cepstra are closer than this are one sound given
/// for two vowels (the same file, or the same vowel twice): distinct vowels lie units apart.
const SAME_RECORDING_DISTANCE: f32 = 0.05;

fn calibrate(args: CalibrateArgs) -> anyhow::Result<()> {
    let base = load_profile(args.profile.as_deref())?;
    let mut feature_profile = base.clone();
    if args.build {
        feature_profile.cmn = !args.no_cmn;
    }
    let mut pairs: Vec<(PathBuf, PathBuf)> = args
        .labelled
        .chunks(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect();
    if let Some(dir) = &args.labelled_dir {
        pairs.extend(labelled_pairs_in(dir)?);
    }
    if args.context_net && !args.build {
        bail!("--context-net trains a net for a profile --build makes");
    }
    let net = args.context_net.then(|| NetTraining {
        options: NetOptions {
            hidden: usize::from(args.net_hidden),
            future: usize::from(args.net_future),
            weight: args.net_weight,
            closed_logit: args.net_closed_logit,
            seed: args.net_seed,
            members: usize::from(args.net_members),
            ..NetOptions::default()
        },
        streamed: args.net_streamed,
        band: args.net_band,
    });
    let mut builder = labelled_builder(
        &feature_profile,
        &pairs,
        args.with_variants,
        args.speaker_from_name,
        Teaches::Phones,
        net.as_ref(),
    )?
    .min_phone_frames(args.min_phone_frames);
    if let Some(shares) = args.real_share {
        builder = builder.real_shares(shares);
    }
    builder = builder.net_real_weight(args.net_real_weight);
    let any_real = !args.real_syllables.is_empty() || args.real_labelled_dir.is_some();
    if any_real && !args.build {
        bail!("--real-syllables and --real-labelled-dir teach a profile --build makes");
    }
    for dir in &args.real_syllables {
        let clips = syllables::load(dir)?;
        omote_lipsync::syllables::learn_real_voices(&mut builder, &feature_profile, &clips);
    }
    if let Some(dir) = &args.real_labelled_dir {
        let real_pairs = labelled_pairs_in(dir)?;
        builder.merge(&labelled_builder(
            &feature_profile,
            &real_pairs,
            false,
            true,
            Teaches::RealVoices,
            net.as_ref(),
        )?);
    }
    for dir in &args.net_labelled_dir {
        builder.merge(&labelled_builder(
            &feature_profile,
            &labelled_pairs_in(dir)?,
            args.with_variants,
            true,
            Teaches::NetOnly,
            net.as_ref(),
        )?);
    }
    if let Some(dir) = &args.syllables {
        let clips = syllables::load(dir)?;
        let speakers: std::collections::BTreeSet<&str> =
            clips.iter().map(|c| c.speaker.as_str()).collect();
        if speakers.len() > 1 {
            bail!(
                "{}: holds {} speakers' folders; --syllables calibrates to one speaker: give one of them",
                dir.display(),
                speakers.len()
            );
        }
        let clips: Vec<&SyllableClip> = clips.iter().collect();
        let frames = omote_lipsync::syllables::learn_speaker_syllables(
            &mut builder,
            &feature_profile,
            &clips,
        );
        if frames == 0 {
            bail!(
                "{}: no voiced vowel frames in {} audio files",
                dir.display(),
                clips.len()
            );
        }
    }
    if let Some(card) = &args.card {
        let samples = load_16k(card)?;
        let text = args
            .card_text
            .as_deref()
            .unwrap_or(omote_lipsync::syllables::DEFAULT_CARD);
        let clips = omote_lipsync::syllables::split_card(
            &feature_profile,
            &samples,
            text,
            &card.display().to_string(),
        )?;
        let clips: Vec<&SyllableClip> = clips.iter().collect();
        omote_lipsync::syllables::learn_speaker_syllables(&mut builder, &feature_profile, &clips);
    }
    let sustained = [
        (&args.a, Viseme::A),
        (&args.i, Viseme::I),
        (&args.u, Viseme::U),
        (&args.e, Viseme::E),
        (&args.o, Viseme::O),
        (&args.n, Viseme::N),
    ];
    let any_sustained = sustained.iter().any(|(p, _)| p.is_some());
    let own_syllables = args.syllables.is_some() || args.card.is_some();
    if pairs.is_empty() && !any_sustained && !own_syllables {
        bail!(
            "nothing to calibrate from: give --a/--i/--u/--e/--o, --labelled, --labelled-dir, --syllables or --card"
        );
    }
    if args.build && any_sustained {
        bail!(
            "--build makes a profile from labelled clips only; calibrate sustained vowels against it afterwards with --profile"
        );
    }
    let mut recordings = SustainedRecordings::new();
    let mut analyser = Analyser::new(feature_profile.clone());
    // Each vowel's mean spectrum, to find one recording given for two vowels.
    let mut heard: Vec<(&Path, Viseme, [f32; omote_lipsync::N_CEPS])> = Vec::new();
    for (path, class) in sustained {
        let Some(path) = path else { continue };
        let samples = load_16k(path)?;
        let feats = analyser.features(&samples);
        // Over every frame: a held vowel has no pauses for the voicing detector to learn.
        let mut all = CepstralMean::default();
        all.add_frames(&feats.frames, &vec![true; feats.frames.len()]);
        if let Some(mean) = all.mean() {
            if let Some((other, other_class, _)) = heard.iter().find(|(_, _, m)| {
                let d2: f32 = m.iter().zip(&mean).map(|(a, b)| (a - b) * (a - b)).sum();
                d2.sqrt() < SAME_RECORDING_DISTANCE
            }) {
                bail!(
                    "{} (--{}) and {} (--{}) are the same sound: a calibration needs each vowel recorded on its own",
                    other.display(),
                    other_class.letter().to_ascii_lowercase(),
                    path.display(),
                    class.letter().to_ascii_lowercase()
                );
            }
            heard.push((path.as_path(), class, mean));
        }
        let before = recordings.counts()[class.index()];
        recordings.add(class, &feats);
        let got = recordings.counts()[class.index()] - before;
        if got < SUSTAINED_MIN_FRAMES {
            bail!(
                "{}: only {got} voiced frames of {} (need {SUSTAINED_MIN_FRAMES}, about half a second of the held sound)",
                path.display(),
                class.letter()
            );
        }
    }
    let profile = if args.build {
        let desc = format!("built from {} labelled clips", pairs.len());
        let mut p = builder.build(&desc, !args.no_cmn, args.sharpness)?;
        p.bias[Viseme::N.index()] = args.n_bias;
        p
    } else {
        let labelled = if pairs.is_empty() && !own_syllables {
            base
        } else {
            base.calibrated(&builder, omote_lipsync::eval::CALIBRATION_MIN_FRAMES)?
        };
        if any_sustained {
            labelled.calibrated_from_sustained(&recordings, SUSTAINED_MIN_FRAMES)?
        } else {
            labelled
        }
    };
    crate::output::write_file(&args.output, profile.to_json().as_bytes())?;
    eprintln!(
        "profile written to {} (frames per class A I U E O N: labelled {:?}, real voices {:?}, sustained {:?})",
        args.output.display(),
        builder.counts(),
        builder.real_counts(),
        recordings.counts()
    );
    Ok(())
}

fn plot(args: PlotArgs) -> anyhow::Result<()> {
    use omote_plot::{Panel, Series, TimePlot};
    crate::output::check_png_name(&args.output)?;
    let profile = load_profile(args.profile.as_deref())?;
    let samples = load_16k(&args.input)?;
    let track = Analyser::new(profile).analyse(&samples);
    omote_plot::register_fonts();
    // Waveform as a min/max envelope per 10 ms.
    let mut hi = Vec::new();
    let mut lo = Vec::new();
    for (i, c) in samples.chunks(160).enumerate() {
        let t = (i as f32 + 0.5) * 0.01;
        hi.push((t, c.iter().copied().fold(0.0f32, f32::max)));
        lo.push((t, c.iter().copied().fold(0.0f32, f32::min)));
    }
    let mut wave = Panel::new("waveform")
        .y_range(-1.0, 1.0)
        .series(Series::new("max", hi))
        .series(Series::new("min", lo));
    let mut weights = Panel::new("weights").y_range(0.0, 1.0);
    for v in Viseme::ALL {
        let pts = track
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (track.time_of(i) as f32, f.weights[v.index()]))
            .collect();
        weights = weights.series(Series::new(v.letter().to_string(), pts));
    }
    let mut vol = Panel::new("volume").y_range(0.0, 1.0).series(Series::new(
        "volume",
        track
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (track.time_of(i) as f32, f.volume))
            .collect(),
    ));
    if let Some(span) = track.voiced_span {
        wave = wave.span(span.start_s as f32, span.end_s as f32);
        weights = weights.span(span.start_s as f32, span.end_s as f32);
        vol = vol.span(span.start_s as f32, span.end_s as f32);
    }
    let title = format!("lip sync: {}", args.input.display());
    let plot = TimePlot::new(title).panel(wave).panel(weights).panel(vol);
    crate::output::write_png(&plot, &args.output)?;
    eprintln!("plot written to {}", args.output.display());
    Ok(())
}

fn eval(args: EvalArgs) -> anyhow::Result<()> {
    let profile = load_profile(args.profile.as_deref())?;
    if args.syllables {
        let reading = if args.calibrate_halves {
            SyllableReading::CalibratedHalves
        } else if args.clip_mean {
            SyllableReading::File
        } else {
            SyllableReading::Speaker
        };
        let mode = if args.session {
            AnalysisMode::Session
        } else {
            AnalysisMode::from_stream(args.stream)
        };
        return syllables::eval_syllables(&args.data, &profile, reading, mode, args.confusion);
    }
    let path = args.data.join("manifest.tsv");
    let text = omote_fs::read_to_string(&path, omote_fs::Limit::DATA)
        .with_context(|| format!("{}: cannot read manifest", path.display()))?;
    let manifest = parse_manifest(&text, &path.display().to_string())?;
    // Decoding is the slow part: in parallel; the scoring itself is cheap.
    let loaded: Vec<anyhow::Result<LabelledClip>> = manifest
        .par_iter()
        .map(|m| {
            let wav = args.data.join(format!("{}.wav", m.clip));
            let lab = args.data.join(format!("{}.lab.tsv", m.clip));
            let samples = load_16k(&wav)?;
            let labels = read_labels(&lab)?;
            check_labels_fit(&labels, samples.len(), &lab, &wav)?;
            Ok(LabelledClip {
                source: m.source.clone(),
                samples,
                labels,
            })
        })
        .collect();
    let clips = loaded.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let options = EvalOptions {
        mode: if args.session {
            AnalysisMode::Session
        } else {
            AnalysisMode::from_stream(args.stream)
        },
        calibrate_first: args.calibrate_first,
        variants: !args.no_variants,
        speaker_mean: !args.clip_mean,
        by_phone: args.by_phone,
    };
    let report = evaluate(&profile, &clips, &options);
    print!(
        "{}",
        crate::output::escape_terminal(&report.to_text(args.confusion))
    );
    Ok(())
}

/// `--real-share`'s help, with the defaults as the builder has them.
fn real_share_help() -> String {
    let d = omote_lipsync::DEFAULT_REAL_SHARES;
    format!(
        "The share of each vowel class's weight its real-voice Gaussian takes (0–0.9): one \
         number for all five, or VOWEL=SHARE pairs over the defaults (A {}, I {}, U {}, E {}, O {})",
        d[0], d[1], d[2], d[3], d[4]
    )
}
