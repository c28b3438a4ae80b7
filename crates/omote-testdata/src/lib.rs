//! Where omote's tests find the shared test data.
//!
//! The data (VRM samples, speech clips, MediaPipe reference output; each folder has a
//! README) lives outside the repository, in `shared/data` next to the checkout: the
//! workspace's `../shared/data`. Tests that need it call [`shared_data`]:
//!
//! ```no_run
//! let Some(dir) = omote_testdata::shared_data("speech") else { return };
//! let wav = dir.join("ja_ojt_001.wav");
//! # let _ = wav;
//! ```
//!
//! When the data is absent the test prints `skipping: … not found` and returns early,
//! so a fresh checkout passes; with the environment variable `CI` set (as `.ci/run`
//! does) it fails instead, so CI never passes by skipping.

use std::path::{Path, PathBuf};

/// The shared data folder, `../shared/data` beside the workspace (it may not exist).
pub fn root() -> PathBuf {
    // This crate is `crates/omote-testdata` in the workspace.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// `root()/relative`, whether or not it exists (for callers with their own fallback,
/// e.g. a benchmark that falls back to synthetic input).
pub fn path(relative: &str) -> PathBuf {
    root().join(relative)
}

/// Whether the environment says we run in CI (`CI` set, to anything).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// Says a test cannot run because `what` is missing (a tool, a built package): prints
/// `SKIP: <what>` to stderr, so the caller returns and passes.
///
/// # Panics
///
/// When `CI` is set: CI never passes by skipping.
pub fn missing(what: &str) {
    if in_ci() {
        panic!("cannot run under CI: {what}");
    }
    eprintln!("SKIP: {what}");
}

/// `../shared/data/<relative>` (a folder or a file) if it exists.
///
/// When it does not: `None`, after printing `skipping: <path> not found …` to stderr.
///
/// # Panics
///
/// When it does not exist and `CI` is set: the shared data is required in CI.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    find(path(relative), in_ci())
}

/// Every file in the shared folder `relative` whose extension is `ext` (without the
/// dot, case-sensitive), sorted; `None` as in [`shared_data`] when the folder is absent.
///
/// # Panics
///
/// When the folder is absent and `CI` is set, or it cannot be listed.
pub fn shared_files(relative: &str, ext: &str) -> Option<Vec<PathBuf>> {
    let dir = shared_data(relative)?;
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    Some(v)
}

/// `p` if it exists; else skip (`None`, with a message) or, in CI, panic.
fn find(p: PathBuf, ci: bool) -> Option<PathBuf> {
    if p.exists() {
        return Some(p);
    }
    let shown = p.display();
    if ci {
        panic!(
            "{shown} not found: the shared test data (../shared/data beside the checkout) is required when CI is set"
        );
    }
    eprintln!(
        "skipping: {shown} not found (the shared test data lives in ../shared/data beside the checkout)"
    );
    None
}

/// KLettres' recorded syllables (Debian `klettres-data`) of `langs`, written by the
/// repository's `tools/lipsync/klettres_syllables.py` into `out` (one folder per language,
/// each with its `vowels.tsv`); `None` (after [`missing`] says why) when the package is not
/// installed outside CI.
///
/// # Panics
///
/// When the package is missing under CI, or the script fails.
pub fn klettres_syllables(out: &Path, langs: &[&str]) -> Option<()> {
    if !Path::new("/usr/share/klettres").is_dir() {
        missing("the KLettres check: /usr/share/klettres (apt-get install klettres-data)");
        return None;
    }
    let mut args = vec![out.as_os_str()];
    for l in langs {
        args.extend([std::ffi::OsStr::new("--lang"), std::ffi::OsStr::new(l)]);
    }
    run_lipsync_tool("klettres_syllables.py", &args);
    Some(())
}

/// Runs the repository's `tools/lipsync/SCRIPT` with `args` under `python3`.
///
/// # Panics
///
/// When the script fails (its standard error is the message).
fn run_lipsync_tool(script: &str, args: &[&std::ffi::OsStr]) {
    // This crate is `crates/omote-testdata` in the repository.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/lipsync")
        .join(script);
    let o = std::process::Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// gcin-voice's recorded Mandarin syllables (Debian `gcin-voice`, two speakers), written by
/// the repository's `tools/lipsync/gcin_syllables.py` into `out` (folders `zh_liu` and
/// `zh_lo`, each with its `vowels.tsv`); `None` (after [`missing`] says why) when the package
/// is not installed outside CI.
///
/// # Panics
///
/// When the package is missing under CI, or the script fails.
pub fn gcin_syllables(out: &Path) -> Option<()> {
    if !Path::new("/usr/share/gcin-voice/ogg").is_dir() {
        missing("the Mandarin syllables: /usr/share/gcin-voice/ogg (apt-get install gcin-voice)");
        return None;
    }
    run_lipsync_tool("gcin_syllables.py", &[out.as_os_str()]);
    Some(())
}

/// qABCs' recorded letters and one-syllable words of seven speakers (Debian
/// `qabcs-data`), written by `tools/lipsync/qabcs_syllables.py` into `out` as
/// `qabcs_LANG` folders. `None` when the package is absent (after [`missing`]).
pub fn qabcs_syllables(out: &Path) -> Option<()> {
    if !Path::new("/usr/share/qabcs/abcs").is_dir() {
        missing("the qABCs syllables: /usr/share/qabcs/abcs (apt-get install qabcs-data)");
        return None;
    }
    run_lipsync_tool("qabcs_syllables.py", &[out.as_os_str()]);
    Some(())
}

/// A vowel-like buzz (120 Hz, 30 harmonics, 16-bit mono at `rate`) inside `voiced`
/// seconds, digital silence elsewhere: the test signal of the lip-sync and live tests.
pub fn buzz(rate: u32, seconds: f32, voiced: std::ops::Range<f32>) -> Vec<i16> {
    (0..(rate as f32 * seconds) as usize)
        .map(|i| {
            let t = i as f32 / rate as f32;
            let s = if voiced.contains(&t) {
                (0..30)
                    .map(|k| {
                        ((k + 1) as f32 * 120.0 * std::f32::consts::TAU * t).sin() / (k + 1) as f32
                    })
                    .sum::<f32>()
                    * 0.2
            } else {
                0.0
            };
            (s.clamp(-1.0, 1.0) * 32767.0) as i16
        })
        .collect()
}

/// A voice of lines `seconds` long: a [`buzz`] cycle of `cycle_s` seconds, voiced from
/// 0.4 s to 0.8 s before its end, repeated (the long files of the stream tests).
pub fn repeated_buzz(rate: u32, seconds: f64, cycle_s: f32) -> Vec<i16> {
    let cycle = buzz(rate, cycle_s, 0.4..cycle_s - 0.8);
    let n = (seconds * f64::from(rate)) as usize;
    cycle.iter().copied().cycle().take(n).collect()
}

/// A test's own empty folder, `TMP/omote-{crate}-{pid}-{name}`, removed when the test
/// passes (dropped without a panic) and kept, with its path printed, when it fails, so a
/// run leaves nothing behind in the temporary folder but what a failure needs looked at.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// Makes the folder (emptied first if an earlier process of the same pid left it).
    ///
    /// # Panics
    ///
    /// When the folder cannot be made.
    pub fn new(crate_name: &str, name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("omote-{crate_name}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
        Self(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for a look: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

/// A 16-bit PCM WAV file's bytes: `samples` interleaved over `channels`, at `rate`.
pub fn wav16(samples: &[i16], rate: u32, channels: u16) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut b = Vec::with_capacity(44 + samples.len() * 2);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data_len).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&channels.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 2 * u32::from(channels)).to_le_bytes());
    b.extend_from_slice(&(2 * channels).to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

/// A 32-bit IEEE float mono WAV file's bytes at `rate` (float files can hold NaN).
pub fn wav_f32(samples: &[f32], rate: u32) -> Vec<u8> {
    let data_len = (samples.len() * 4) as u32;
    let mut b = Vec::with_capacity(44 + samples.len() * 4);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data_len).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes()); // IEEE float
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 4).to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&32u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.to_le_bytes());
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_beside_the_workspace() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        assert!(workspace.join("Cargo.toml").is_file());
        assert!(workspace.join("crates/omote-testdata").is_dir());
        assert_eq!(path("vrm"), workspace.join("../shared/data/vrm"));
    }

    #[test]
    fn absent_data_skips_outside_ci_and_fails_in_ci() {
        let absent = path("no-such-folder-omote-testdata");
        assert_eq!(find(absent.clone(), false), None);
        let r = std::panic::catch_unwind(|| find(absent, true));
        let msg = r.expect_err("must fail under CI");
        let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("required when CI is set"), "{msg}");
        assert!(msg.contains("no-such-folder-omote-testdata"), "{msg}");
        if !in_ci() {
            assert_eq!(shared_data("no-such-folder-omote-testdata"), None);
            assert_eq!(shared_files("no-such-folder-omote-testdata", "wav"), None);
        }
    }

    #[test]
    fn present_data_is_found() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(find(here.clone(), true), Some(here.clone()));
        assert_eq!(
            find(here.join("Cargo.toml"), false),
            Some(here.join("Cargo.toml"))
        );
    }
}
