//! `omote lipsync eval --syllables DIR`: the syllable measure of issue 39 (the measure itself
//! is `omote_lipsync::syllables`; here the folders, the vowel maps and the decoding).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use omote_lipsync::eval::AnalysisMode;
use omote_lipsync::syllables::{
    SyllableClip, SyllableReading, evaluate_syllables, parse_vowel_map, vowel_from_name,
};
use omote_lipsync::{Profile, Viseme};
use rayon::prelude::*;

use super::AUDIO_EXTS;
use crate::voice_input::load_16k;

/// The vowel map of a speaker folder (optional).
const VOWEL_MAP: &str = "vowels.tsv";

/// Runs the measure on `dir` and prints it.
pub(super) fn eval_syllables(
    dir: &Path,
    profile: &Profile,
    reading: SyllableReading,
    mode: AnalysisMode,
    confusion: bool,
) -> anyhow::Result<()> {
    let clips = load(dir)?;
    let report = evaluate_syllables(profile, &clips, reading, mode);
    print!(
        "{}",
        crate::output::escape_terminal(&report.to_text(confusion))
    );
    Ok(())
}

/// Every syllable under `dir` (its speaker subfolders, or `dir` itself), decoded.
pub(super) fn load(dir: &Path) -> anyhow::Result<Vec<SyllableClip>> {
    let jobs = list(dir)?;
    let loaded: Vec<anyhow::Result<SyllableClip>> = jobs
        .par_iter()
        .map(|(speaker, path, vowel)| {
            let samples =
                load_16k(path).with_context(|| format!("{}: cannot decode", path.display()))?;
            Ok(SyllableClip {
                speaker: speaker.clone(),
                name: stem(path),
                vowel: *vowel,
                samples,
            })
        })
        .collect();
    loaded.into_iter().collect()
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

fn is_audio(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| AUDIO_EXTS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Every (speaker, file, vowel) under `dir`: its subfolders holding audio files are the
/// speakers, or `dir` itself when it holds them. Sorted, so the report is repeatable.
fn list(dir: &Path) -> anyhow::Result<Vec<(String, PathBuf, Viseme)>> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list syllable folder", dir.display()))?
    {
        let path = entry?.path();
        if path.is_dir() {
            folders.push(path);
        }
    }
    folders.sort();
    folders.insert(0, dir.to_path_buf());
    let mut out = Vec::new();
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .with_context(|| format!("{}: cannot list folder", folder.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && is_audio(p))
            .collect();
        if files.is_empty() {
            continue;
        }
        files.sort();
        let speaker = folder.file_name().map_or_else(
            || folder.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let map_path = folder.join(VOWEL_MAP);
        let map = if map_path.is_file() {
            let text = std::fs::read_to_string(&map_path)
                .with_context(|| format!("{}: cannot read vowel map", map_path.display()))?;
            Some(parse_vowel_map(&text, &map_path.display().to_string())?)
        } else {
            None
        };
        if let Some(map) = &map {
            // Every row must name a file that is there, and every file must have a row:
            // nothing is silently left out of the measure.
            for (name, _) in map {
                if !folder.join(name).is_file() {
                    bail!(
                        "{}: names {name}, which is not in the folder",
                        map_path.display()
                    );
                }
            }
        }
        for path in files {
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let vowel = match &map {
                Some(map) => map
                    .iter()
                    .find(|(f, _)| *f == name)
                    .map(|(_, v)| *v)
                    .with_context(|| {
                        format!("{}: has no row for {name}", map_path.display())
                    })?,
                None => vowel_from_name(&stem(&path)).with_context(|| {
                    format!(
                        "{}: no {VOWEL_MAP} in its folder and its name has not exactly one of the vowels a e i o u",
                        path.display()
                    )
                })?,
            };
            out.push((speaker.clone(), path, vowel));
        }
    }
    if out.is_empty() {
        bail!(
            "{}: no audio files in it or in its subfolders",
            dir.display()
        );
    }
    Ok(out)
}
