//! Scene file → a running [`Scene`]: parse, check every number and name against the
//! file's own lines, find every file it names before any work, run lip sync on the
//! voices, then build the core scene.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use omote_avatar::{Avatar, AvatarSource};
use omote_core::scene::SceneError;
use omote_core::scene::{
    CameraKey, CharacterSetup, ExpressionKey, EyeModeChoice, EyeModeKey, GazeKey, GazeTarget,
    KeyCurve, SceneSetup, VoiceLine, Wait, is_eye_area,
};
use omote_core::speech::SpeechConfig;
use omote_core::{ChannelId, FaceConfig, FaceDriver, Rig, Scene, SpeechTrack, Vec3};
use omote_lipsync::{Analyser, Profile, Speaker, export};
use omote_vrm::VrmModel;
use toml::Spanned;

use crate::error::{SceneFileError, line_of};
use crate::file::{CharacterDesc, EyesDesc, GazeDesc, KeyDesc, LineDesc, SceneFile};
use crate::files::{FsFiles, SceneFiles, reader};
use crate::voice::{VoiceFile, voice_features};

/// The most characters, keys per character and lines per character a scene may have:
/// far above any real scene, low enough that a hostile file cannot exhaust memory.
pub const MAX_CHARACTERS: usize = 256;
/// See [`MAX_CHARACTERS`].
pub const MAX_ITEMS: usize = 100_000;
/// The longest character id, in bytes: ids name result files (`ID.anim.json`) and
/// appear in every message about the character.
pub const MAX_ID_LEN: usize = 64;
/// The motion map a scene names as `motionMap = "builtin:anime-face"`.
pub const ANIME_FACE_MAP: &str = include_str!("../../../examples/maps/anime-face.toml");

/// The built-in motion map ([`ANIME_FACE_MAP`]) resolved against `rig`. It drives ARKit
/// blendshapes (mouthLeft, browInnerUp, eyeWide…): an avatar with some of them is
/// corrected with those it has, one with none of them is refused by name (a map written
/// for a particular avatar, by contrast, must name only channels it has).
pub fn anime_face_correction(
    rig: &Rig,
) -> Result<omote_core::CameraCorrection, omote_core::camera::MotionMapError> {
    let path = Path::new("builtin:anime-face");
    let mut desc: omote_core::camera::MotionMapDesc =
        omote_config::parse(ANIME_FACE_MAP, omote_config::Format::Toml, path)
            .expect("the built-in motion map is valid TOML");
    let driven: std::collections::BTreeSet<String> = desc
        .points
        .iter()
        .flat_map(|p| p.expressions.keys().cloned())
        .collect();
    for p in &mut desc.points {
        p.expressions.retain(|name, _| rig.channel(name).is_some());
    }
    if desc.points.iter().all(|p| p.expressions.is_empty()) {
        return Err(omote_core::camera::MotionMapError {
            field: path.display().to_string(),
            kind: omote_core::camera::MotionMapErrorKind::NoChannelInRig {
                names: driven.into_iter().collect::<Vec<_>>().join(", "),
            },
        });
    }
    let map = omote_core::MotionMap::new(&desc)?;
    omote_core::CameraCorrection::new(map, rig)
}

/// Scene times must be below this (s): the longest bake ([`crate::MAX_BAKE_S`], four
/// hours), so a key never lies past what a bake plays.
pub const MAX_TIME_S: f32 = crate::MAX_BAKE_S;

/// How to load a scene.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// The lip sync profile (the built-in one when `None`).
    pub profile: Option<Profile>,
    /// Voice line timing (hand-over lead and blend).
    pub speech: SpeechConfig,
}

/// What the scene's characters are, beside the runtime.
#[derive(Clone, Debug)]
pub struct LoadedCharacter {
    /// Its id.
    pub id: String,
    /// Its rig.
    pub rig: Arc<Rig>,
    /// Its VRM model, when it has one (a `.vrm` or a built-in avatar).
    pub model: Option<VrmModel>,
    /// The model's bytes when it is a built-in avatar (so it can be written out).
    pub builtin_vrm: Option<Arc<[u8]>>,
    /// The rig as written in the file (`builtin`, a path).
    pub rig_source: String,
    /// Head position in scene space (metres).
    pub position: [f32; 3],
    /// Body turn about +Y (degrees; 0 faces +Z).
    pub facing_deg: f32,
    /// Its lines: the clip's file name and its path, in the order the scene plays them.
    pub lines: Vec<LoadedLine>,
}

/// A voice line's files.
#[derive(Clone, Debug)]
pub struct LoadedLine {
    /// Scene time it starts.
    pub t: f32,
    /// The clip's file name (in events).
    pub clip: String,
    /// The audio file, if the line names one (a viewer plays it).
    pub audio: Option<PathBuf>,
    /// Its lip sync.
    pub track: Arc<SpeechTrack>,
}

/// A loaded scene: the runtime and what its characters are.
#[derive(Clone, Debug)]
pub struct LoadedScene {
    /// The scene file.
    pub path: PathBuf,
    /// The runtime, at time 0.
    pub scene: Scene,
    /// The characters, in scene order.
    pub characters: Vec<LoadedCharacter>,
    /// The file's frame rate, if it sets one.
    pub fps: Option<f32>,
    /// What was read but not whole (a voice WAV cut short of what its header declares:
    /// what is there is used), each naming the scene's line and the file; a host shows
    /// these as its warnings.
    pub warnings: Vec<String>,
}

/// What the loader is doing, for a progress bar: `(voice files analysed, total)`.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// Reads and builds a scene file. Every file it names is checked to exist before any
/// voice is analysed.
pub fn load_scene(
    path: &Path,
    options: &LoadOptions,
    progress: Progress<'_>,
) -> Result<LoadedScene, SceneFileError> {
    load_scene_with(path, options, &FsFiles, progress)
}

/// [`load_scene`] with the scene file and every file it names read from `files`.
pub fn load_scene_with(
    path: &Path,
    options: &LoadOptions,
    files: &dyn SceneFiles,
    progress: Progress<'_>,
) -> Result<LoadedScene, SceneFileError> {
    // Capped before the parse, which costs tens of bytes of memory per byte of text.
    let text = omote_config::read_text(path, &|p| files.read_capped(p, omote_fs::Limit::SCENE))
        .map_err(|e| {
            // A missing scene in the words every binding uses, not the OS's.
            if e.kind() == std::io::ErrorKind::NotFound {
                let why = omote_fs::NO_SUCH_FILE;
                SceneFileError::file(path, format!("cannot read the scene: {why}"))
                    .of_missing_file()
            } else {
                SceneFileError::file(path, format!("cannot read the scene: {e}"))
            }
        })?;
    parse_scene_with(&text, path, options, files, progress)
}

/// Builds a scene from its text; `path` names it in errors and is the folder relative
/// paths start from.
pub fn parse_scene(
    text: &str,
    path: &Path,
    options: &LoadOptions,
    progress: Progress<'_>,
) -> Result<LoadedScene, SceneFileError> {
    parse_scene_with(text, path, options, &FsFiles, progress)
}

/// [`parse_scene`] with every file the scene names read from `files` (by its path: the
/// scene's folder joined with what the scene wrote).
pub fn parse_scene_with(
    text: &str,
    path: &Path,
    options: &LoadOptions,
    files: &dyn SceneFiles,
    progress: Progress<'_>,
) -> Result<LoadedScene, SceneFileError> {
    // A UTF-8 byte-order mark (editors on Windows write one) is not TOML: skipped, so
    // the file is not refused as "expected a key" on its first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let err = |e: toml::de::Error, field: Option<String>| SceneFileError {
        file: path.display().to_string(),
        line: e.span().map(|s| line_of(text, s.start)),
        field,
        // A writer's words, not Rust's type names.
        message: e
            .message()
            .trim()
            .replace("expected f32", "expected a number")
            .replace("expected f64", "expected a number")
            .replace("expected u64", "expected a whole number, 0 or more")
            .replace("expected u32", "expected a whole number, 0 or more"),
        missing_file: false,
    };
    // The field a wrong value is in (`character[0].acting[1].fade`), not only its line;
    // the tables that keep their span show as one more step in the path, left out.
    let de = toml::Deserializer::parse(text).map_err(|e| err(e, None))?;
    let file: SceneFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e
            .path()
            .to_string()
            .replace(".$__serde_spanned_private_value", "");
        err(e.into_inner(), (field != ".").then_some(field))
    })?;
    Loader {
        text,
        path,
        base: path.parent().unwrap_or(Path::new("")).to_path_buf(),
        files,
    }
    .build(file, options, progress)
}

/// Most missing files one error lists after its own (a message stays one line, as
/// terminals and bindings show it, and short).
const MISSING_LISTED: usize = 8;

/// The missing files' errors as one: the first, then the others by line and field
/// (`… no such file; also missing: line 14 character[0].line[5].audio VO/b.wav, …`), so a
/// writer fixes them all in one go. `None` when there are none.
fn missing_files(missing: Vec<(SceneFileError, PathBuf)>) -> Option<SceneFileError> {
    let mut missing = missing.into_iter();
    let (mut first, _) = missing.next()?;
    let rest: Vec<(SceneFileError, PathBuf)> = missing.collect();
    if rest.is_empty() {
        return Some(first);
    }
    let listed: Vec<String> = rest
        .iter()
        .take(MISSING_LISTED)
        .map(|(e, p)| {
            let at = e.line.map(|l| format!("line {l} ")).unwrap_or_default();
            format!("{at}{} {}", e.field.as_deref().unwrap_or(""), p.display())
        })
        .collect();
    let more = rest.len().saturating_sub(MISSING_LISTED);
    first.message.push_str(&format!(
        "; also missing: {}{}",
        listed.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ));
    Some(first)
}

/// A character's rig, its VRM model if any, and the model's bytes if built in.
type ResolvedRig = (Arc<Rig>, Option<VrmModel>, Option<Arc<[u8]>>);

struct Loader<'a> {
    text: &'a str,
    path: &'a Path,
    base: PathBuf,
    files: &'a dyn SceneFiles,
}

/// A line's voice source, found before any analysis.
enum VoiceSource {
    Audio(PathBuf),
    Lipsync(PathBuf),
}

/// One character's voice lines, read as one speaker's.
struct CharacterVoice<'a> {
    loader: &'a Loader<'a>,
    file: &'a SceneFile,
    character: usize,
    list: &'a [VoiceSource],
}

/// Each distinct audio file, read.
type VoiceFeatures<'a> = HashMap<&'a Path, VoiceFile>;

impl<'a> CharacterVoice<'a> {
    /// Line `k`'s error: `what` is the field (`audio`, `lipsync`) naming file `p`.
    fn line_err(&self, k: usize, what: &str, p: &Path, e: String) -> SceneFileError {
        self.line_said(k, what, format!("{}: {e}", p.display()))
    }

    /// Line `k`'s error in words that name the file already (an audio error's).
    fn line_said(&self, k: usize, what: &str, message: String) -> SceneFileError {
        let i = self.character;
        let at = &self.file.character[i].get_ref().line[k];
        self.loader
            .err(at, format!("character[{i}].line[{k}].{what}"), message)
    }

    /// Each distinct audio file's features, added to the character's voice; `progress`
    /// is told how many files are done, `warnings` which files were cut short.
    fn features(
        &self,
        analyser: &mut Analyser,
        progress: &mut dyn FnMut(usize),
        warnings: &mut Vec<String>,
    ) -> Result<(VoiceFeatures<'a>, Speaker), SceneFileError> {
        let mut features: VoiceFeatures<'a> = HashMap::new();
        let mut speaker = Speaker::new();
        for (k, src) in self.list.iter().enumerate() {
            if let VoiceSource::Audio(p) = src
                && !features.contains_key(p.as_path())
            {
                // Checked to exist, but a resolver may still not have it when read.
                let f = voice_features(self.loader.files, p, analyser).map_err(|e| {
                    self.line_said(k, "audio", e.to_string())
                        .missing_if(e.missing_file().is_some())
                })?;
                if let Some(note) = &f.truncated {
                    warnings.push(self.line_err(k, "audio", p, note.clone()).to_string());
                }
                speaker.add(&f.features);
                features.insert(p, f);
                progress(features.len());
            }
        }
        Ok((features, speaker))
    }

    /// Each line, read against the character's other lines (a file named twice is
    /// read once).
    fn read_lines(
        &self,
        analyser: &Analyser,
        features: &mut VoiceFeatures<'a>,
        speaker: &Speaker,
    ) -> Result<Vec<Arc<SpeechTrack>>, SceneFileError> {
        let mut read: HashMap<&Path, Arc<SpeechTrack>> = HashMap::new();
        let mut out = Vec::with_capacity(self.list.len());
        for (k, src) in self.list.iter().enumerate() {
            let (p, what, vt) = match src {
                VoiceSource::Audio(p) => (p, "audio", features.get_mut(p.as_path())),
                VoiceSource::Lipsync(p) => (p, "lipsync", None),
            };
            if let Some(t) = read.get(p.as_path()) {
                out.push(t.clone());
                continue;
            }
            let mut missing = false;
            let track = match vt {
                Some(f) => Ok(speaker.read(analyser, &mut f.features, f.len)),
                None => omote_config::read_text(p, &reader(self.loader.files))
                    .map_err(|e| {
                        missing = e.kind() == std::io::ErrorKind::NotFound;
                        e.to_string()
                    })
                    .and_then(|t| export::read_json(&t).map_err(|e| e.to_string())),
            };
            let st = track
                .and_then(|vt| vt.speech_track().map_err(|e| e.to_string()))
                .map_err(|e| self.line_err(k, what, p, e).missing_if(missing))?;
            let st = Arc::new(st);
            read.insert(p, st.clone());
            out.push(st);
        }
        Ok(out)
    }
}

/// How far from the scene's origin a head or the camera may be (m).
const MAX_POSITION_M: f32 = 10_000.0;

/// A wait with where the file gives it: its line and field.
type PlacedWait = (Wait, (usize, String));

impl Loader<'_> {
    fn line<T>(&self, s: &Spanned<T>) -> usize {
        line_of(self.text, s.span().start)
    }

    /// The line of `field` in the table `at`: its key's own line (`fade = …`, or the
    /// `happy` of `set = { happy = … }`), else the table's first line.
    fn field_line<T>(&self, at: &Spanned<T>, field: &str) -> usize {
        let span = at.span();
        let body = table_text(self.text.get(span.start..).unwrap_or(""), span.len());
        match key_offset(body, last_key(field)) {
            Some(offset) => line_of(self.text, span.start + offset),
            None => self.line(at),
        }
    }

    fn err<T>(
        &self,
        at: &Spanned<T>,
        field: impl Into<String>,
        msg: impl Into<String>,
    ) -> SceneFileError {
        let field = field.into();
        SceneFileError::at(self.path, self.field_line(at, &field), field, msg)
    }

    /// [`Loader::err`] for a file the field names that could not be read: `missing`
    /// (a reader's `missing_file()`) as [`Loader::missing_err`]; any other failure in its
    /// own words.
    fn file_err<T>(
        &self,
        at: &Spanned<T>,
        field: impl Into<String>,
        e: &dyn std::fmt::Display,
        missing: Option<&Path>,
    ) -> SceneFileError {
        match missing {
            Some(file) => self.missing_err(at, field, file),
            None => self.err(at, field, e.to_string()),
        }
    }

    /// [`Loader::err`] for a file the field names that is not there: in the words every
    /// binding uses, not the OS's, and marked as a missing file.
    fn missing_err<T>(
        &self,
        at: &Spanned<T>,
        field: impl Into<String>,
        file: &Path,
    ) -> SceneFileError {
        self.err(at, field, omote_fs::no_such_file(file))
            .of_missing_file()
    }

    fn time<T>(&self, at: &Spanned<T>, field: &str, t: f32) -> Result<f32, SceneFileError> {
        if t.is_finite() && (0.0..MAX_TIME_S).contains(&t) {
            Ok(t)
        } else {
            Err(self.err(
                at,
                field,
                format!(
                    "{} is not a time in seconds from 0 to {MAX_TIME_S} (4 h, the longest bake)",
                    f32_text(t)
                ),
            ))
        }
    }

    fn seconds<T>(
        &self,
        at: &Spanned<T>,
        field: &str,
        v: f32,
        max: f32,
    ) -> Result<f32, SceneFileError> {
        if v.is_finite() && (0.0..=max).contains(&v) {
            Ok(v)
        } else {
            Err(self.err(
                at,
                field,
                format!("{} is not a duration from 0 to {max} s", f32_text(v)),
            ))
        }
    }

    fn resolve_path(&self, p: &str) -> PathBuf {
        self.base.join(p)
    }

    fn build(
        &self,
        file: SceneFile,
        options: &LoadOptions,
        progress: Progress<'_>,
    ) -> Result<LoadedScene, SceneFileError> {
        let fps = self.check_scene(&file)?;
        // Ids first: gaze keys refer to them.
        let ids = self.character_ids(&file)?;
        // Every file the scene names, before any work.
        let sources = self.voice_sources(&file)?;
        let mut warnings = Vec::new();
        let tracks = self.read_voices(&file, &sources, options, progress, &mut warnings)?;
        // Characters.
        let mut setups = Vec::new();
        let mut loaded = Vec::new();
        // The waits, each with where the file gives it (its line and field).
        let mut waits = Vec::new();
        for (i, c) in file.character.iter().enumerate() {
            let (setup, info, line_waits) =
                self.character(i, c, &ids, &tracks[i], &sources[i], options)?;
            setups.push(setup);
            loaded.push(info);
            waits.extend(line_waits);
        }
        let camera = self.camera_keys(&file)?;
        self.scene_waits(&file, &mut waits)?;
        let (waits, places): (Vec<Wait>, Vec<(usize, String)>) = waits.into_iter().unzip();
        let scene = Scene::new(SceneSetup {
            characters: setups,
            camera,
            waits,
        })
        .map_err(|e| match &e {
            SceneError::WaitInLine { wait, .. } if *wait < places.len() => {
                let (line, field) = &places[*wait];
                SceneFileError::at(self.path, *line, field.clone(), e.to_string())
            }
            _ => SceneFileError::file(self.path, e.to_string()),
        })?;
        Ok(LoadedScene {
            path: self.path.to_path_buf(),
            scene,
            characters: loaded,
            fps,
            warnings,
        })
    }

    /// Checks the number of characters and the frame rate; returns the frame rate.
    fn check_scene(&self, file: &SceneFile) -> Result<Option<f32>, SceneFileError> {
        if file.character.is_empty() {
            return Err(SceneFileError::file(
                self.path,
                "the scene has no [[character]]",
            ));
        }
        if file.character.len() > MAX_CHARACTERS {
            return Err(SceneFileError::file(
                self.path,
                format!(
                    "{} characters, at most {MAX_CHARACTERS}",
                    file.character.len()
                ),
            ));
        }
        match &file.fps {
            Some(f) if !(f.get_ref().is_finite() && (1.0..=1000.0).contains(f.get_ref())) => {
                Err(self.err(
                    f,
                    "fps",
                    format!(
                        "{} is not a frame rate from 1 to 1000",
                        number_text(*f.get_ref())
                    ),
                ))
            }
            f => Ok(f.as_ref().map(|f| *f.get_ref() as f32)),
        }
    }

    /// Each character's index by its id, each id checked and used once.
    fn character_ids<'f>(
        &self,
        file: &'f SceneFile,
    ) -> Result<HashMap<&'f str, usize>, SceneFileError> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        // Ids name result files: `A.anim.json` and `a.anim.json` are one file on
        // case-insensitive filesystems (macOS, Windows).
        let mut folded: HashMap<String, &str> = HashMap::new();
        for (i, c) in file.character.iter().enumerate() {
            let id = c.get_ref().id.as_str();
            if id.len() > MAX_ID_LEN {
                return Err(self.err(
                    c,
                    format!("character[{i}].id"),
                    format!(
                        "`{}` is {} bytes long; an id has at most {MAX_ID_LEN}",
                        omote_fs::echo(id),
                        id.len()
                    ),
                ));
            }
            if id.is_empty()
                || !id
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-_".contains(ch))
            {
                return Err(self.err(
                    c,
                    format!("character[{i}].id"),
                    format!(
                        "`{}` is not an id (ASCII letters, digits, - and _: it names files)",
                        omote_fs::echo(id)
                    ),
                ));
            }
            if ids.insert(id, i).is_some() {
                return Err(self.err(
                    c,
                    format!("character[{i}].id"),
                    format!("`{id}` is used twice"),
                ));
            }
            if let Some(other) = folded.insert(id.to_ascii_lowercase(), id) {
                return Err(self.err(
                    c,
                    format!("character[{i}].id"),
                    format!(
                        "`{id}` and `{other}` differ only in case; their result files \
                         would be one file on a case-insensitive filesystem"
                    ),
                ));
            }
        }
        Ok(ids)
    }

    /// Each character's lines' voice files, each checked to exist.
    fn voice_sources(&self, file: &SceneFile) -> Result<Vec<Vec<VoiceSource>>, SceneFileError> {
        let mut sources: Vec<Vec<VoiceSource>> = Vec::new();
        let mut missing: Vec<(SceneFileError, PathBuf)> = Vec::new();
        for (i, c) in file.character.iter().enumerate() {
            let desc = c.get_ref();
            if desc.line.len() > MAX_ITEMS {
                return Err(self.err(
                    c,
                    format!("character[{i}].line"),
                    format!("more than {MAX_ITEMS} lines"),
                ));
            }
            let mut list = Vec::new();
            for (k, l) in desc.line.iter().enumerate() {
                match self.voice_source(l, &format!("character[{i}].line[{k}]")) {
                    Ok(src) => list.push(src),
                    // Every missing voice file is listed, not one a run.
                    Err(e) if e.missing_file => {
                        let named = l.get_ref().audio.as_ref().or(l.get_ref().lipsync.as_ref());
                        let path = named.map(|p| self.resolve_path(p)).unwrap_or_default();
                        missing.push((e, path));
                    }
                    Err(e) => return Err(e),
                }
            }
            sources.push(list);
        }
        match missing_files(missing) {
            Some(e) => Err(e),
            None => Ok(sources),
        }
    }

    /// A line's voice file (`field` names the line), checked to exist.
    fn voice_source(
        &self,
        l: &Spanned<LineDesc>,
        field: &str,
    ) -> Result<VoiceSource, SceneFileError> {
        let src = match (&l.get_ref().audio, &l.get_ref().lipsync) {
            (Some(a), None) => VoiceSource::Audio(self.resolve_path(a)),
            (None, Some(j)) => VoiceSource::Lipsync(self.resolve_path(j)),
            (Some(_), Some(_)) => {
                return Err(self.err(l, field, "give `audio` or `lipsync`, not both"));
            }
            (None, None) => {
                return Err(self.err(l, field, "a line needs `audio` or `lipsync`"));
            }
        };
        let (p, what) = match &src {
            VoiceSource::Audio(p) => (p, "audio"),
            VoiceSource::Lipsync(p) => (p, "lipsync"),
        };
        if !self.files.exists(p) {
            // Why not, in the reader's words when it is not plainly missing (a folder).
            let field = format!("{field}.{what}");
            return Err(match self.files.read(p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    self.err(l, field, format!("{}: {e}", p.display()))
                }
                _ => self.missing_err(l, field, p),
            });
        }
        Ok(src)
    }

    /// Voices: lip sync each distinct file once. A character's audio lines are one
    /// speaker's: their features first, then each line normalised with the mean of all
    /// of that character's lines (a short line then follows the voice, not its words).
    fn read_voices(
        &self,
        file: &SceneFile,
        sources: &[Vec<VoiceSource>],
        options: &LoadOptions,
        progress: Progress<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Vec<Arc<SpeechTrack>>>, SceneFileError> {
        let total: usize = sources.iter().map(Vec::len).sum();
        let mut analyser = Analyser::new(options.profile.clone().unwrap_or_else(Profile::builtin));
        let mut tracks: Vec<Vec<Arc<SpeechTrack>>> = Vec::new();
        let mut done = 0;
        progress(0, total);
        for (i, list) in sources.iter().enumerate() {
            let voice = CharacterVoice {
                loader: self,
                file,
                character: i,
                list,
            };
            let (mut features, speaker) =
                voice.features(&mut analyser, &mut |n| progress(done + n, total), warnings)?;
            let out = voice.read_lines(&analyser, &mut features, &speaker)?;
            done += list.len();
            progress(done, total);
            tracks.push(out);
        }
        Ok(tracks)
    }

    /// The camera path's keys, checked.
    fn camera_keys(&self, file: &SceneFile) -> Result<Vec<CameraKey>, SceneFileError> {
        let mut camera = Vec::new();
        for (k, key) in file.camera.iter().enumerate() {
            let d = key.get_ref();
            let field = format!("camera[{k}]");
            let t = self.time(key, &format!("{field}.t"), d.t)?;
            self.position(key, &format!("{field}.position"), d.position)?;
            camera.push(CameraKey {
                t,
                position: Vec3::from_array(d.position),
                curve: self.curve(key, &field, d.curve.as_deref())?,
            });
        }
        Ok(camera)
    }

    /// The scene's own waits, checked, after the lines' `waits`, with their places.
    fn scene_waits(
        &self,
        file: &SceneFile,
        waits: &mut Vec<PlacedWait>,
    ) -> Result<(), SceneFileError> {
        for (k, w) in file.wait.iter().enumerate() {
            let d = w.get_ref();
            let field = format!("wait[{k}]");
            let wait = Wait {
                t: self.time(w, &format!("{field}.t"), d.t)?,
                hold: self.seconds(w, &format!("{field}.hold"), d.hold.unwrap_or(1.0), 3600.0)?,
            };
            let field = format!("{field}.t");
            waits.push((wait, (self.field_line(w, &field), field)));
        }
        Ok(())
    }

    fn curve<T>(
        &self,
        at: &Spanned<T>,
        field: &str,
        name: Option<&str>,
    ) -> Result<KeyCurve, SceneFileError> {
        match name {
            None => Ok(KeyCurve::Smooth),
            Some(n) => KeyCurve::from_name(n).ok_or_else(|| {
                self.err(
                    at,
                    format!("{field}.curve"),
                    format!(
                        "`{}` is not a curve (smooth, linear, step)",
                        omote_fs::echo(n)
                    ),
                )
            }),
        }
    }

    fn rig<T>(
        &self,
        at: &Spanned<T>,
        field: &str,
        rig: Option<&str>,
    ) -> Result<ResolvedRig, SceneFileError> {
        let source = AvatarSource::from_scene(rig, &self.base);
        let avatar = Avatar::load_with(&source, &reader(self.files))
            .map_err(|e| self.file_err(at, field, &e, e.missing_file()))?;
        // Only a built-in avatar's bytes are kept: it has no file to copy.
        let builtin = matches!(source, AvatarSource::Builtin | AvatarSource::BuiltinSecond);
        let bytes = avatar.vrm.filter(|_| builtin);
        Ok((avatar.rig, avatar.model, bytes))
    }

    #[allow(clippy::type_complexity)]
    fn character(
        &self,
        i: usize,
        c: &Spanned<CharacterDesc>,
        ids: &HashMap<&str, usize>,
        tracks: &[Arc<SpeechTrack>],
        sources: &[VoiceSource],
        options: &LoadOptions,
    ) -> Result<(CharacterSetup, LoadedCharacter, Vec<PlacedWait>), SceneFileError> {
        let d = c.get_ref();
        let field = format!("character[{i}]");
        let (rig, model, builtin_vrm) = self.rig(c, &format!("{field}.rig"), d.rig.as_deref())?;
        let names = RigNames {
            loader: self,
            rig: &rig,
            names: &d.names,
        };
        // A name mapped to an expression the rig lacks is a mistake even if no key uses it.
        for (from, to) in &d.names {
            if rig.channel(to).is_none() {
                return Err(self.err(
                    c,
                    format!("{field}.names.{from}"),
                    format!(
                        "the rig `{}` has no expression `{}`",
                        rig.name(),
                        to.escape_debug()
                    ),
                ));
            }
        }
        let acting = self.keys(&names, c, &field, &d.acting, "acting", false)?;
        let picture = self.keys(&names, c, &field, &d.picture, "picture", true)?;
        let (position, facing, head_share) = self.placement(c, &field)?;
        let driver = self.driver(i, c, &field, &rig, options)?;
        let mut setup = CharacterSetup::new(d.id.clone(), driver, Vec3::from_array(position));
        setup.facing_deg = facing;
        setup.head_share = head_share;
        setup.acting = acting;
        setup.picture = picture;
        let (lines_info, waits) =
            self.lines(&names, c, &field, tracks, sources, &mut setup.lines)?;
        for (k, g) in d.gaze.iter().enumerate() {
            let gd = g.get_ref();
            let f = format!("{field}.gaze[{k}]");
            let t = self.time(g, &format!("{f}.t"), gd.t)?;
            let target = self.gaze_target(g, f, i, ids)?;
            setup.gaze.push(GazeKey { t, target });
        }
        for (k, e) in d.eyes.iter().enumerate() {
            setup
                .eye_modes
                .push(self.eye_mode_key(e, &format!("{field}.eyes[{k}]"))?);
        }
        let info = LoadedCharacter {
            id: d.id.clone(),
            rig,
            model,
            builtin_vrm,
            rig_source: d.rig.clone().unwrap_or_else(|| "builtin".into()),
            position,
            facing_deg: facing,
            lines: lines_info,
        };
        Ok((setup, info, waits))
    }

    /// A character's `acting` or `picture` keys (`what`; `signed` weights for picture),
    /// checked against its rig.
    fn keys(
        &self,
        names: &RigNames<'_>,
        c: &Spanned<CharacterDesc>,
        field: &str,
        list: &[Spanned<KeyDesc>],
        what: &str,
        signed: bool,
    ) -> Result<Vec<ExpressionKey>, SceneFileError> {
        if list.len() > MAX_ITEMS {
            return Err(self.err(
                c,
                format!("{field}.{what}"),
                format!("more than {MAX_ITEMS} keys"),
            ));
        }
        let mut out = Vec::new();
        for (k, key) in list.iter().enumerate() {
            let kd = key.get_ref();
            let f = format!("{field}.{what}[{k}]");
            let t = self.time(key, &format!("{f}.t"), kd.t)?;
            let fade = self.seconds(key, &format!("{f}.fade"), kd.fade.unwrap_or(0.25), 600.0)?;
            let curve = self.curve(key, &f, kd.curve.as_deref())?;
            if kd.set.is_empty() {
                return Err(self.err(key, format!("{f}.set"), "sets no expression"));
            }
            for (ch, w) in names.weights(
                &|f| self.field_line(key, f),
                &format!("{f}.set"),
                &kd.set,
                signed,
            )? {
                out.push(ExpressionKey {
                    t,
                    channel: ch,
                    weight: w,
                    fade,
                    curve,
                    eye_area: kd.eye_area.unwrap_or_else(|| is_eye_area(names.rig, ch)),
                });
            }
        }
        Ok(out)
    }

    /// A position in the scene (a head, the camera): three finite numbers of metres, each
    /// within ±10 km.
    fn position<T>(&self, at: &Spanned<T>, field: &str, p: [f32; 3]) -> Result<(), SceneFileError> {
        if p.iter().all(|v| v.is_finite() && v.abs() < MAX_POSITION_M) {
            return Ok(());
        }
        let [x, y, z] = p.map(f32_text);
        Err(self.err(
            at,
            field,
            format!(
                "[{x}, {y}, {z}] is not a position: three numbers of metres, each within ±{MAX_POSITION_M}"
            ),
        ))
    }

    /// A character's head position, facing and head share, checked.
    fn placement(
        &self,
        c: &Spanned<CharacterDesc>,
        field: &str,
    ) -> Result<([f32; 3], f32, f32), SceneFileError> {
        let d = c.get_ref();
        let position = d.position.unwrap_or([0.0, 1.4, 0.0]);
        self.position(c, &format!("{field}.position"), position)?;
        let facing = d.facing.unwrap_or(0.0);
        if !(facing.is_finite() && facing.abs() <= 360.0) {
            return Err(self.err(
                c,
                format!("{field}.facing"),
                format!(
                    "{} is not an angle from -360 to 360 degrees",
                    f32_text(facing)
                ),
            ));
        }
        let head_share = d.head_share.unwrap_or(0.3);
        if !(head_share.is_finite() && (0.0..=1.0).contains(&head_share)) {
            return Err(self.err(
                c,
                format!("{field}.headShare"),
                format!("{} is not a share from 0 to 1", f32_text(head_share)),
            ));
        }
        Ok((position, facing, head_share))
    }

    /// Character `i`'s face driver: its seed, the scene's speech timing and its motion
    /// map, if it names one.
    fn driver(
        &self,
        i: usize,
        c: &Spanned<CharacterDesc>,
        field: &str,
        rig: &Arc<Rig>,
        options: &LoadOptions,
    ) -> Result<FaceDriver, SceneFileError> {
        let d = c.get_ref();
        let mut driver = FaceDriver::new(
            rig.clone(),
            FaceConfig::default(),
            d.seed.unwrap_or(i as u64 + 1),
        )
        .with_speech(options.speech);
        if let Some(m) = &d.motion_map {
            let fail = |e: String| self.err(c, format!("{field}.motionMap"), e);
            let correction = if m == "builtin:anime-face" {
                anime_face_correction(rig).map_err(|e| fail(e.to_string()))?
            } else {
                let path = self.resolve_path(m);
                omote_config::load_camera_correction_with(&path, rig, |_| None, &reader(self.files))
                    .map_err(|e| {
                        self.file_err(c, format!("{field}.motionMap"), &e, e.missing_file())
                    })?
            };
            driver = driver.with_camera(correction);
        }
        Ok(driver)
    }

    /// A character's voice lines, pushed to `lines`; returns what they are (in the
    /// order they play) and the waits after them. One character speaks one line at a
    /// time.
    fn lines(
        &self,
        names: &RigNames<'_>,
        c: &Spanned<CharacterDesc>,
        field: &str,
        tracks: &[Arc<SpeechTrack>],
        sources: &[VoiceSource],
        lines: &mut Vec<VoiceLine>,
    ) -> Result<(Vec<LoadedLine>, Vec<PlacedWait>), SceneFileError> {
        let d = c.get_ref();
        let mut waits = Vec::new();
        let mut lines_info = Vec::new();
        // Lines, with their spans for the overlap check.
        let mut spans: Vec<(f32, f32, usize)> = Vec::new();
        let mut previous_end = 0.0f32;
        for (k, l) in d.line.iter().enumerate() {
            let ld = l.get_ref();
            let f = format!("{field}.line[{k}]");
            let at = |f: &str| self.field_line(l, f);
            let track = tracks[k].clone();
            let t = self.line_time(l, f.clone(), previous_end)?;
            previous_end = t + track.duration();
            let ramp = self.seconds(
                l,
                &format!("{f}.afterglowRamp"),
                ld.afterglow_ramp.unwrap_or(0.5),
                60.0,
            )?;
            let hold = match ld.afterglow_hold {
                None => f32::INFINITY,
                Some(h) => self.seconds(l, &format!("{f}.afterglowHold"), h, 3600.0)?,
            };
            let release = self.seconds(
                l,
                &format!("{f}.afterglowRelease"),
                ld.afterglow_release.unwrap_or(0.5),
                60.0,
            )?;
            let afterglow = names.weights(&at, &format!("{f}.afterglow"), &ld.afterglow, true)?;
            let then = names.weights(&at, &format!("{f}.then"), &ld.then, false)?;
            if ld.wait {
                let wait = Wait {
                    t: t + track.duration(),
                    hold: self.seconds(l, &format!("{f}.hold"), ld.hold.unwrap_or(1.0), 3600.0)?,
                };
                let field = format!("{f}.wait");
                waits.push((wait, (self.field_line(l, &field), field)));
            } else if ld.hold.is_some() {
                return Err(self.err(
                    l,
                    format!("{f}.hold"),
                    "only a line with `wait = true` holds",
                ));
            }
            spans.push((t, t + track.duration(), k));
            let (clip, audio) = match &sources[k] {
                VoiceSource::Audio(p) => (file_name(p), Some(p.clone())),
                VoiceSource::Lipsync(p) => (file_name(p), None),
            };
            lines_info.push(LoadedLine {
                t,
                clip,
                audio,
                track: track.clone(),
            });
            lines.push(VoiceLine {
                t,
                track,
                afterglow,
                afterglow_ramp_s: ramp,
                afterglow_hold_s: hold,
                afterglow_release_s: release,
                then,
            });
        }
        self.check_overlaps(c, field, &mut spans)?;
        lines_info.sort_by(|a, b| a.t.total_cmp(&b.t));
        Ok((lines_info, waits))
    }

    /// A line's start: its `t`, or `after` seconds after the previous line's end.
    fn line_time(
        &self,
        l: &Spanned<LineDesc>,
        f: String,
        previous_end: f32,
    ) -> Result<f32, SceneFileError> {
        let ld = l.get_ref();
        match (ld.t, ld.after) {
            (Some(t), None) => self.time(l, &format!("{f}.t"), t),
            (None, Some(gap)) => {
                let gap = self.seconds(l, &format!("{f}.after"), gap, 3600.0)?;
                self.time(l, &format!("{f}.after"), previous_end + gap)
            }
            _ => Err(self.err(
                l,
                f,
                "give `t` (a time) or `after` (seconds after the previous line), one of them",
            )),
        }
    }

    /// No line of a character may start while another of its lines plays; `spans` are
    /// the lines' (start, end, index), sorted here by start.
    fn check_overlaps(
        &self,
        c: &Spanned<CharacterDesc>,
        field: &str,
        spans: &mut [(f32, f32, usize)],
    ) -> Result<(), SceneFileError> {
        let d = c.get_ref();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in spans.windows(2) {
            if w[1].0 < w[0].1 - 1e-4 {
                let (later, earlier) = (w[1].2, w[0].2);
                return Err(self.err(
                    &d.line[later],
                    format!("{field}.line[{later}].t"),
                    format!(
                        "starts at {} s, while line[{earlier}] of `{}` still plays (until {:.3} s): one character speaks one line at a time",
                        w[1].0, d.id, w[0].1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Where character `i`'s gaze key `g` (field `f`) looks: `at` a character (by id),
    /// the camera, forward or auto, or a direction.
    fn gaze_target(
        &self,
        g: &Spanned<GazeDesc>,
        f: String,
        i: usize,
        ids: &HashMap<&str, usize>,
    ) -> Result<GazeTarget, SceneFileError> {
        let gd = g.get_ref();
        let target = match (&gd.at, gd.point, gd.yaw, gd.pitch) {
            (Some(at), None, None, None) => {
                match GazeTarget::from_name(at, |id| ids.get(id).copied()) {
                    Some(GazeTarget::Character(j)) if j == i => {
                        return Err(self.err(
                            g,
                            format!("{f}.at"),
                            "a character cannot look at itself",
                        ));
                    }
                    Some(target) => target,
                    None => {
                        return Err(self.err(
                            g,
                            format!("{f}.at"),
                            format!("`{}` is neither a character of this scene nor camera, forward or auto", at.escape_debug()),
                        ));
                    }
                }
            }
            (None, Some(p), None, None) => {
                if !p.iter().all(|v| v.is_finite()) {
                    return Err(self.err(
                        g,
                        format!("{f}.point"),
                        "must be three finite numbers [x, y, z] in metres",
                    ));
                }
                GazeTarget::Point(Vec3::from_array(p))
            }
            (None, None, yaw, pitch) if yaw.is_some() || pitch.is_some() => {
                let (yaw, pitch) = (yaw.unwrap_or(0.0), pitch.unwrap_or(0.0));
                if !(yaw.is_finite()
                    && pitch.is_finite()
                    && yaw.abs() <= 90.0
                    && pitch.abs() <= 90.0)
                {
                    return Err(self.err(g, f, "yaw and pitch must be degrees from -90 to 90"));
                }
                GazeTarget::Direction {
                    yaw_deg: yaw,
                    pitch_deg: pitch,
                }
            }
            _ => {
                return Err(self.err(g, f, "give one of `at`, `point`, or `yaw` and `pitch`"));
            }
        };
        Ok(target)
    }

    /// An eye-mode key (field `f`): `auto` or a mode's name.
    fn eye_mode_key(&self, e: &Spanned<EyesDesc>, f: &str) -> Result<EyeModeKey, SceneFileError> {
        let ed = e.get_ref();
        let t = self.time(e, &format!("{f}.t"), ed.t)?;
        let Some(mode) = EyeModeChoice::from_name(&ed.mode) else {
            return Err(self.err(
                e,
                format!("{f}.mode"),
                format!(
                    "`{}` is not an eye mode (idle, talking, listening, focused, auto)",
                    ed.mode.escape_debug()
                ),
            ));
        };
        Ok(EyeModeKey {
            t,
            mode: mode.keyed(),
        })
    }
}

/// A character's rig and the file's `names` for its expressions: expression names
/// and weights checked against them.
struct RigNames<'a> {
    loader: &'a Loader<'a>,
    rig: &'a Rig,
    names: &'a BTreeMap<String, String>,
}

impl RigNames<'_> {
    /// The channel `name` (through `names`) is; `at` gives the file line of a field,
    /// `f` the field.
    fn channel(
        &self,
        at: &dyn Fn(&str) -> usize,
        f: &str,
        name: &str,
    ) -> Result<ChannelId, SceneFileError> {
        let rig = self.rig;
        let target = self.names.get(name).map_or(name, String::as_str);
        rig.channel(target).ok_or_else(|| {
            let via = if target == name {
                String::new()
            } else {
                format!(" (named `{target}` by `names`)")
            };
            SceneFileError::at(
                self.loader.path,
                at(f),
                f,
                format!(
                    "the rig `{}` has no expression `{}`{via}",
                    rig.name(),
                    name.escape_debug()
                ),
            )
        })
    }

    /// `map`'s expressions as channels with weights from 0 to 1 (-1 to 1 when
    /// `signed`); `at` gives the file line of a field, `f` the field.
    fn weights(
        &self,
        at: &dyn Fn(&str) -> usize,
        f: &str,
        map: &BTreeMap<String, f32>,
        signed: bool,
    ) -> Result<Vec<(ChannelId, f32)>, SceneFileError> {
        map.iter()
            .map(|(name, &w)| {
                let ok = w.is_finite()
                    && if signed {
                        w.abs() <= 1.0
                    } else {
                        (0.0..=1.0).contains(&w)
                    };
                if !ok {
                    let range = if signed { "-1 to 1" } else { "0 to 1" };
                    let field = format!("{f}.{name}");
                    return Err(SceneFileError::at(
                        self.loader.path,
                        at(&field),
                        field,
                        format!("{} is not a weight from {range}", f32_text(w)),
                    ));
                }
                Ok((self.channel(at, &format!("{f}.{name}"), name)?, w))
            })
            .collect()
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The key a field path ends in: `happy` of `character[0].acting[1].set.happy`, `t` of
/// `character[0].line[2].t`.
fn last_key(field: &str) -> &str {
    let last = field.rsplit('.').next().unwrap_or(field);
    last.split('[').next().unwrap_or(last)
}

/// A table's text from where its span starts: a `[header]` table's span is its header
/// alone, so its keys run to the next header (a line that starts `[` and a name); an
/// inline table is its span.
fn table_text(from: &str, span_len: usize) -> &str {
    if !from.starts_with('[') {
        return from.get(..span_len).unwrap_or(from);
    }
    let mut end = from.find('\n').map_or(from.len(), |n| n + 1);
    for line in from[end..].split_inclusive('\n') {
        let head = line.trim_start().trim_start_matches('[');
        if line.trim_start().starts_with('[')
            && head.starts_with(|c: char| c.is_ascii_alphabetic() || c == '"' || c == '\'')
        {
            break;
        }
        end += line.len();
    }
    &from[..end]
}

/// Where `key = …` starts in a table's text, outside strings and comments: a bare key
/// at the start of a line or after `{` or `,` (an inline table's).
fn key_offset(body: &str, key: &str) -> Option<usize> {
    if key.is_empty() {
        return None;
    }
    let bytes = body.as_bytes();
    let (mut in_string, mut in_comment) = (None::<u8>, false);
    let mut boundary = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_comment {
            in_comment = b != b'\n';
            boundary = b == b'\n';
        } else if let Some(q) = in_string {
            if b == b'\\' && q == b'"' {
                i += 1;
            } else if b == q {
                in_string = None;
            }
        } else if b == b'"' || b == b'\'' {
            in_string = Some(b);
            boundary = false;
        } else if b == b'#' {
            in_comment = true;
        } else if b.is_ascii_whitespace() {
            boundary |= b == b'\n';
        } else if boundary && body[i..].starts_with(key) {
            let rest = body[i + key.len()..].trim_start_matches([' ', '\t']);
            if rest.starts_with('=') {
                return Some(i);
            }
            boundary = false;
        } else {
            boundary = b == b'{' || b == b',';
        }
        i += 1;
    }
    None
}

/// A number of a field read as `f32`, as [`number_text`] says it. One too large for an
/// `f32` (1e300) was read as infinity: "inf" alone would not be what the file says.
fn f32_text(v: f32) -> String {
    if v.is_infinite() {
        format!("{v} (or a number too large: beyond ±3.4e38)")
    } else if v != 0.0 && v.is_finite() && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A number for a message: tiny and huge ones in exponent form (`1e-300`, not 300 zeros).
fn number_text(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}
