//! `omote view SCENE.toml`: the scene player's content and routes.
//!
//! The scene is loaded once (every file it names checked, the voices analysed) and
//! baked once with the default options (waits move on after their `hold`). Every
//! table below is built at load; a request only ever picks an entry by its number:
//!
//! | route | content |
//! |---|---|
//! | `/` | the page (`assets/viewer/scene.html`), `/scene.js` its player |
//! | `/scene.json` | the characters (id, model, VRM route, lines with their audio route), waits, fps |
//! | `/vrm/N.vrm` | character N's VRM: the `.vrm` the scene names, a built-in avatar, or — for a plain rig file — the generated avatar |
//! | `/anim/N.json` | character N's anim from the default bake |
//! | `/audio/K` | voice file K of the table built at load (only files the scene names), its bytes read once at load |
//! | `/bake` | the default bake: every anim, the voices, the waits |
//! | `/bake?advance=T1,T2&skip=T3` | a fresh bake of the loaded scene with that press script (times: seconds of the baked timeline) |
//!
//! A bake's answer (`/bake`): `{advances, skips, fps, duration, characters: [{id,
//! anim}], voices: [{character, t, voicedStart, voicedEnd, clip, audio, cut}], holds:
//! [{wait, from, to}], camera}` — `voices` are the anims' voice events with the audio route of
//! their clip and the time a skip cut them (`null`: played out); `holds` the times the
//! timeline sat at a wait (`to: null`: nobody advanced before the bake ended);
//! `camera` the scene camera's position at every frame of the bake (`[[x, y, z], …]`,
//! frame k at k / fps like the anims; `null`: the scene has no camera) — sampled here
//! from the same path the faces' camera correction saw, waits and skips included, so
//! the page only interpolates between frames. Each anim of a bake's answer carries only
//! what the page plays (`fps`, `duration`, `appliedExpressions`, `head`, `leftEye`,
//! `rightEye`), numbers at fixed precision ([`compact`]); `/anim/N.json` is the whole anim.
//!
//! Bakes are bounded, since any local process can ask for one: a viewer bake is at most
//! [`MAX_VIEW_BAKE_VALUES`] numbers (on top of the bake limit every bake has), one runs
//! at a time with at most [`MAX_WAITING_BAKES`] waiting (others: 503), and an answer is
//! shared by every request with the same presses while any of them is still being sent,
//! a new bake refused (503) while the answers in flight hold [`MAX_BAKE_BYTES_IN_FLIGHT`]:
//! clients that do not read cannot pin more than that.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use anyhow::Context;
use omote_core::{Scene, anim::AnimEvent};
use omote_scene::{BakeOptions, BakedCharacter, LoadOptions, LoadedScene};

/// A bake: the characters and the camera position at each frame (`None`: no camera).
struct Baked {
    characters: Vec<BakedCharacter>,
    camera: Option<Vec<[f32; 3]>>,
}
use omote_serve::{Body, Response};
use serde_json::{Value, json};

use crate::output::escape_terminal;
use crate::viewer_assets::{JSON, VRM};

/// The most presses of each kind a bake request may script.
pub(super) const MAX_PRESSES: usize = 256;
/// Presses may lie this far past the end of the default bake (s): the player may sit
/// at waits, which a scripted bake holds for.
pub(super) const PRESS_SLACK_S: f64 = 600.0;
/// Most numbers a viewer bake may record (16 M, 64 MiB as `f32`; the demo's longest
/// press script needs about 10 M): below the bake limit of every bake, since the
/// answer is also held as JSON while it is sent.
pub(super) const MAX_VIEW_BAKE_VALUES: u64 = 16 << 20;
/// Bake requests that may wait while another bakes; more are answered 503.
pub(super) const MAX_WAITING_BAKES: usize = 4;
/// Bytes of bake answers still being sent above which a new bake is refused (503).
pub(super) const MAX_BAKE_BYTES_IN_FLIGHT: usize = 48 << 20;

/// A press script as a key: the times' bits.
type PressKey = (Vec<u64>, Vec<u64>);

/// The scene player's content.
pub(super) struct SceneSite {
    path: PathBuf,
    /// The loaded scene at time 0: each bake runs a clone. The lock also keeps bakes
    /// one at a time.
    scene: Mutex<Scene>,
    clips: Vec<Vec<String>>,
    fps: f32,
    characters: Vec<CharacterSite>,
    /// The voice files, in the order first named: `/audio/K` is `audio[K]`.
    audio: Vec<AudioFile>,
    /// `/scene.json`.
    info: Vec<u8>,
    /// `/bake` without presses.
    default_bake: Arc<[u8]>,
    /// Length of the default bake (s).
    duration: f64,
    /// Bake requests running or waiting for the lock.
    bake_requests: AtomicUsize,
    /// The answers given, while anyone still holds them (being sent): one per press
    /// script, shared by every request for it.
    answers: Mutex<Vec<(PressKey, Weak<[u8]>)>>,
}

struct CharacterSite {
    id: String,
    /// What its VRM is, in words.
    model_name: String,
    vrm: Arc<[u8]>,
    /// `/anim/N.json` of the default bake.
    anim: Vec<u8>,
    /// Clip name → index into `SceneSite::audio`.
    audio_of_clip: HashMap<String, usize>,
}

struct AudioFile {
    path: PathBuf,
    content_type: &'static str,
    /// Read once at load: a request never touches the disk.
    bytes: Arc<[u8]>,
}

/// The content type of a voice file, by its extension (the browser decodes it).
fn audio_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "wav" | "wave" => "audio/wav",
        "mp3" => "audio/mpeg",
        "ogg" | "oga" | "opus" => "audio/ogg",
        "flac" => "audio/flac",
        _ => "application/octet-stream",
    }
}

impl SceneSite {
    /// Load and bake the scene at `path`; errors name the file and line.
    pub(super) fn load(path: &Path) -> anyhow::Result<SceneSite> {
        eprintln!("loading {}…", escape_terminal(&path.display().to_string()));
        let loaded = omote_scene::load_scene(path, &LoadOptions::default(), &mut |_, _| {})
            // Its errors name the file, the line and the field.
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        crate::scene_output::warn(&loaded);
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let clips = loaded.clip_names();
        let fps = loaded.fps.unwrap_or(BakeOptions::default().fps);

        // The models, each file read once.
        let mut generated: Option<Arc<[u8]>> = None;
        let mut files: HashMap<PathBuf, Arc<[u8]>> = HashMap::new();
        let mut audio: Vec<AudioFile> = Vec::new();
        let mut audio_index: HashMap<PathBuf, usize> = HashMap::new();
        let mut characters = Vec::new();
        for c in &loaded.characters {
            let (vrm, model_name) = match (&c.builtin_vrm, &c.model) {
                (Some(bytes), _) => (Arc::clone(bytes), c.rig_source.clone()),
                (None, Some(_)) => {
                    let file = base.join(&c.rig_source);
                    let bytes = match files.get(&file) {
                        Some(b) => Arc::clone(b),
                        None => {
                            let b: Arc<[u8]> = std::fs::read(&file)
                                .with_context(|| {
                                    format!(
                                        "character `{}`: cannot read its model {}",
                                        c.id,
                                        file.display()
                                    )
                                })?
                                .into();
                            files.insert(file.clone(), Arc::clone(&b));
                            b
                        }
                    };
                    (bytes, file.display().to_string())
                }
                (None, None) => (
                    Arc::clone(
                        generated.get_or_insert_with(|| omote_vrm::avatar::generate().into()),
                    ),
                    format!(
                        "the built-in avatar (the rig {} has no model)",
                        c.rig_source
                    ),
                ),
            };
            let mut audio_of_clip: HashMap<String, usize> = HashMap::new();
            for line in &c.lines {
                let Some(file) = &line.audio else { continue };
                let k = match audio_index.get(file) {
                    Some(&k) => k,
                    None => {
                        let bytes: Arc<[u8]> = std::fs::read(file)
                            .with_context(|| {
                                format!(
                                    "character `{}`: cannot read its voice file {}",
                                    c.id,
                                    file.display()
                                )
                            })?
                            .into();
                        audio.push(AudioFile {
                            path: file.clone(),
                            content_type: audio_type(file),
                            bytes,
                        });
                        audio_index.insert(file.clone(), audio.len() - 1);
                        audio.len() - 1
                    }
                };
                if let Some(&other) = audio_of_clip.get(&line.clip)
                    && other != k
                {
                    let msg = format!(
                        "warning: character `{}`: two voice files are named {}; the viewer plays {} for both",
                        c.id,
                        line.clip,
                        audio[other].path.display(),
                    );
                    eprintln!("{}", escape_terminal(&msg));
                    continue;
                }
                audio_of_clip.insert(line.clip.clone(), k);
            }
            characters.push(CharacterSite {
                id: c.id.clone(),
                model_name,
                vrm,
                anim: Vec::new(),
                audio_of_clip,
            });
        }

        let mut site = SceneSite {
            path: path.to_path_buf(),
            scene: Mutex::new(loaded.scene.clone()),
            clips,
            fps,
            characters,
            audio,
            info: Vec::new(),
            default_bake: Arc::from(Vec::new()),
            duration: 0.0,
            bake_requests: AtomicUsize::new(0),
            answers: Mutex::new(Vec::new()),
        };
        let baked = site
            .bake(&[], &[], None)
            .with_context(|| format!("cannot play the scene {}", path.display()))?;
        site.duration = baked
            .characters
            .first()
            .map_or(0.0, |b| f64::from(b.anim.duration));
        for (c, b) in site.characters.iter_mut().zip(&baked.characters) {
            c.anim = serde_json::to_vec(&b.anim).context("serialising an anim")?;
        }
        site.default_bake = site.bundle(&[], &[], &baked).into();
        site.info = serde_json::to_vec(&site.info_json(&loaded)).context("serialising")?;
        Ok(site)
    }

    /// One line for the terminal.
    pub(super) fn summary(&self) -> String {
        let who: Vec<String> = self
            .characters
            .iter()
            .map(|c| format!("{} on {}", c.id, c.model_name))
            .collect();
        format!(
            "playing {} ({:.1} s, {} voice files): {}",
            self.path.display(),
            self.duration,
            self.audio.len(),
            who.join(", ")
        )
    }

    fn info_json(&self, loaded: &LoadedScene) -> Value {
        let characters: Vec<Value> = self
            .characters
            .iter()
            .zip(&loaded.characters)
            .enumerate()
            .map(|(i, (c, l))| {
                let lines: Vec<Value> = l
                    .lines
                    .iter()
                    .map(|line| {
                        json!({
                            "t": line.t,
                            "clip": line.clip,
                            "audio": self.audio_route(i, &line.clip),
                        })
                    })
                    .collect();
                json!({
                    "id": c.id,
                    "rig": l.rig_source,
                    "position": l.position,
                    "facing": l.facing_deg,
                    "model": c.model_name,
                    "vrm": format!("/vrm/{i}.vrm"),
                    "anim": format!("/anim/{i}.json"),
                    "lines": lines,
                })
            })
            .collect();
        let waits: Vec<Value> = loaded
            .scene
            .waits()
            .iter()
            .map(|w| json!({ "t": w.t, "hold": w.hold }))
            .collect();
        json!({
            "scene": self.path.display().to_string(),
            "fps": self.fps,
            "duration": self.duration,
            "characters": characters,
            "waits": waits,
            "audio": self.audio.len(),
            "maxPresses": MAX_PRESSES,
            "maxPressTime": self.max_press_time(),
        })
    }

    fn audio_route(&self, character: usize, clip: &str) -> Option<String> {
        self.characters[character]
            .audio_of_clip
            .get(clip)
            .map(|k| format!("/audio/{k}"))
    }

    fn max_press_time(&self) -> f64 {
        self.duration + PRESS_SLACK_S
    }

    /// A bake of a fresh clone of the loaded scene with these presses.
    /// Refused, before any work, when the bake is larger than a bake may be
    /// ([`omote_scene::bake_size`], the check every bake runs).
    fn bake(
        &self,
        advances: &[f64],
        skips: &[f64],
        max_s: Option<f32>,
    ) -> Result<Baked, omote_scene::BakeError> {
        let scene = self.scene.lock().unwrap_or_else(|e| e.into_inner());
        // The lock is held through the bake: bakes run one at a time.
        self.bake_locked(&scene, &self.options(advances, skips, max_s))
    }

    /// The options of a bake with these presses.
    fn options(&self, advances: &[f64], skips: &[f64], max_s: Option<f32>) -> BakeOptions {
        let defaults = BakeOptions::default();
        BakeOptions {
            fps: self.fps,
            advances: advances.to_vec(),
            skips: skips.to_vec(),
            max_s: max_s.unwrap_or(defaults.max_s),
            ..defaults
        }
    }

    /// A bake of a clone of `scene` (the loaded one, its lock held).
    fn bake_locked(
        &self,
        scene: &Scene,
        options: &BakeOptions,
    ) -> Result<Baked, omote_scene::BakeError> {
        let mut run = scene.clone();
        let has_camera = run.camera_position().is_some();
        let mut camera = Vec::new();
        let characters = omote_scene::bake_observed(
            &mut run,
            &self.clips,
            options,
            |_, _| {},
            |s| {
                if let Some(p) = s.camera_position() {
                    camera.push(p.to_array());
                }
            },
        )?;
        Ok(Baked {
            characters,
            camera: has_camera.then_some(camera),
        })
    }

    /// A bake's answer (see the module docs), written straight to bytes: a tree of
    /// JSON values would take tens of bytes per number.
    fn bundle(&self, advances: &[f64], skips: &[f64], bake: &Baked) -> Vec<u8> {
        let baked = &bake.characters;
        let mut voices = Vec::new();
        for (i, b) in baked.iter().enumerate() {
            voices.extend(voice_events(&b.anim.events).into_iter().map(|v| {
                json!({
                    "character": i,
                    "t": v.t,
                    "voicedStart": v.voiced_start,
                    "voicedEnd": v.voiced_end,
                    "clip": v.clip,
                    "audio": self.audio_route(i, &v.clip),
                    "cut": v.cut,
                })
            }));
        }
        let t = |v: &Value| v["t"].as_f64().unwrap_or(0.0);
        voices.sort_by(|a, b| t(a).total_cmp(&t(b)));
        let holds: Vec<Value> = baked
            .first()
            .map(|b| holds(&b.anim.events))
            .unwrap_or_default()
            .into_iter()
            .map(|(wait, from, to)| json!({ "wait": wait, "from": from, "to": to }))
            .collect();
        let small = json!({
            "advances": advances,
            "skips": skips,
            "fps": self.fps,
            "duration": baked.first().map_or(0.0, |b| b.anim.duration),
            "voices": voices,
            "holds": holds,
        });
        // Everything but the per-frame numbers as JSON values, then those written in.
        // Room for every number at its longest (pages never written are never resident;
        // growing by doubling would hold twice the answer at the end).
        let numbers: usize = baked
            .iter()
            .map(|b| b.anim.frames() * (b.anim.applied().0.len() + 12))
            .sum::<usize>()
            + bake.camera.as_ref().map_or(0, |c| 3 * c.len());
        let mut out = String::with_capacity(numbers * 10 + 4096);
        out.push_str(&small.to_string());
        out.pop(); // the closing brace
        out.push_str(",\"characters\":[");
        for (i, b) in baked.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"id\":{},\"anim\":", json!(b.id));
            compact::anim(&mut out, &b.anim);
            out.push('}');
        }
        out.push_str("],\"camera\":");
        match &bake.camera {
            Some(frames) => compact::rows(&mut out, frames, 4),
            None => out.push_str("null"),
        }
        out.push('}');
        out.into_bytes()
    }

    /// `/bake?advance=…&skip=…`.
    fn bake_response(&self, query: &str) -> Response {
        if query.is_empty() {
            return Response::ok(JSON, Body::Shared(Arc::clone(&self.default_bake)));
        }
        let (advances, skips) =
            match omote_scene::parse_press_query(query, self.max_press_time(), MAX_PRESSES) {
                Ok(p) => p,
                Err(msg) => return Response::text(400, msg),
            };
        if advances.is_empty() && skips.is_empty() {
            return Response::ok(JSON, Body::Shared(Arc::clone(&self.default_bake)));
        }
        let key: PressKey = (
            advances.iter().map(|t| t.to_bits()).collect(),
            skips.iter().map(|t| t.to_bits()).collect(),
        );
        if let Some(body) = self.answer_in_flight(&key).0 {
            return Response::ok(JSON, Body::Shared(body));
        }
        // After the last press, no more than the whole scene is left to play.
        let last = advances.iter().chain(&skips).fold(0.0f64, |m, &t| m.max(t));
        let max_s = (last + self.duration + 2.0 * f64::from(BakeOptions::default().tail_s)) as f32;
        let options = self.options(&advances, &skips, Some(max_s));
        // One bake at a time, a few waiting; the rest are told to come back.
        let waiting = self.bake_requests.fetch_add(1, Ordering::SeqCst);
        let _leave = Leave(&self.bake_requests);
        if waiting > MAX_WAITING_BAKES {
            return busy("bakes are queued already");
        }
        let scene = self.scene.lock().unwrap_or_else(|e| e.into_inner());
        // Asked for by another request while this one waited?
        let (shared, in_flight) = self.answer_in_flight(&key);
        if let Some(body) = shared {
            return Response::ok(JSON, Body::Shared(body));
        }
        if let Err(msg) = view_bake_size(&scene, &options) {
            return Response::text(400, msg);
        }
        if in_flight > MAX_BAKE_BYTES_IN_FLIGHT {
            return busy("the answers being sent hold too much");
        }
        let baked = match self.bake_locked(&scene, &options) {
            Ok(b) => b,
            Err(e) => return Response::text(400, format!("cannot bake: {e}")),
        };
        let bytes = self.bundle(&advances, &skips, &baked);
        drop(baked);
        let body: Arc<[u8]> = bytes.into();
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.push((key, Arc::downgrade(&body)));
        drop(answers);
        drop(scene);
        Response::ok(JSON, Body::Shared(body))
    }

    /// The answer to `key` if one is still being sent, and the bytes of all those that
    /// are (the ones no longer held are forgotten).
    fn answer_in_flight(&self, key: &PressKey) -> (Option<Arc<[u8]>>, usize) {
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.retain(|(_, w)| w.strong_count() > 0);
        let mut found = None;
        let mut bytes = 0;
        for (k, w) in answers.iter() {
            if let Some(body) = w.upgrade() {
                bytes += body.len();
                if k == key {
                    found = Some(body);
                }
            }
        }
        (found, bytes)
    }

    /// The scene player's own routes; `None`: not one of them.
    pub(super) fn route(&self, path: &str, query: &str) -> Option<Response> {
        Some(match path {
            "/scene.json" => Response::ok(JSON, Body::Owned(self.info.clone())),
            "/bake" => self.bake_response(query),
            _ => {
                if let Some(n) = numbered(path, "/vrm/", ".vrm") {
                    let c = self.characters.get(n)?;
                    Response::ok(VRM, Body::Shared(Arc::clone(&c.vrm)))
                } else if let Some(n) = numbered(path, "/anim/", ".json") {
                    let c = self.characters.get(n)?;
                    Response::ok(JSON, Body::Owned(c.anim.clone()))
                } else if let Some(k) = numbered(path, "/audio/", "") {
                    let file = self.audio.get(k)?;
                    Response::ok(file.content_type, Body::Shared(Arc::clone(&file.bytes)))
                } else {
                    return None;
                }
            }
        })
    }
}

/// Whether a bake of `scene` with `options` is one the viewer makes: within every
/// bake's limit and [`MAX_VIEW_BAKE_VALUES`].
fn view_bake_size(scene: &Scene, options: &BakeOptions) -> Result<(), String> {
    let size = omote_scene::bake_size(scene, options).map_err(|e| format!("cannot bake: {e}"))?;
    if size.values > MAX_VIEW_BAKE_VALUES {
        return Err(format!(
            "cannot bake: {} frames × {} values = {} values, over the viewer's limit of \
             {MAX_VIEW_BAKE_VALUES} (bake it with `omote bake` instead)",
            size.frames, size.per_frame, size.values
        ));
    }
    Ok(())
}

/// Counts a bake request out when it ends, however it ends.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `503`: come back in a moment.
fn busy(why: &str) -> Response {
    Response::text(503, format!("busy: {why}; try again in a moment"))
        .with_header("Retry-After", "1")
}

/// The bake's anims as the page takes them: only what it plays, at fixed precision.
mod compact {
    use std::fmt::Write as _;

    use omote_core::Anim;

    /// Decimals of a weight (0–1; 1e-4 is far below what a face shows).
    const WEIGHT_DECIMALS: usize = 4;
    /// Decimals of a rotation's quaternion components (1e-5 ≈ 0.001°).
    const ROTATION_DECIMALS: usize = 5;

    /// `x` with at most `decimals` decimals, trailing zeros dropped; never NaN (the
    /// core's numbers are finite; a non-finite one is written as 0).
    pub(super) fn number(out: &mut String, x: f32, decimals: usize) {
        let x = if x.is_finite() { x } else { 0.0 };
        let start = out.len();
        let _ = write!(out, "{x:.decimals$}");
        if out[start..].contains('.') {
            while out.ends_with('0') {
                out.pop();
            }
            if out.ends_with('.') {
                out.pop();
            }
        }
        if &out[start..] == "-0" {
            out.truncate(start);
            out.push('0');
        }
    }

    /// `[[a, b, …], …]`.
    pub(super) fn rows<const N: usize>(out: &mut String, rows: &[[f32; N]], decimals: usize) {
        out.push('[');
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            for (j, &x) in row.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                number(out, x, decimals);
            }
            out.push(']');
        }
        out.push(']');
    }

    /// `{fps, duration, appliedExpressions, head, leftEye, rightEye}` of `anim`.
    pub(super) fn anim(out: &mut String, anim: &Anim) {
        let _ = write!(
            out,
            "{{\"fps\":{},\"duration\":{},\"appliedExpressions\":{{",
            serde_json::json!(anim.fps),
            serde_json::json!(anim.duration)
        );
        for (i, (name, track)) in anim.applied().0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}:[", serde_json::json!(name));
            for (k, &x) in track.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                number(out, x, WEIGHT_DECIMALS);
            }
            out.push(']');
        }
        out.push_str("},\"head\":");
        rows(out, &anim.head, ROTATION_DECIMALS);
        out.push_str(",\"leftEye\":");
        rows(out, &anim.left_eye, ROTATION_DECIMALS);
        out.push_str(",\"rightEye\":");
        rows(out, &anim.right_eye, ROTATION_DECIMALS);
        out.push('}');
    }
}

/// `N` of `{prefix}N{suffix}`, N a plain decimal number (no sign, no leading zeros).
fn numbered(path: &str, prefix: &str, suffix: &str) -> Option<usize> {
    let digits = path.strip_prefix(prefix)?.strip_suffix(suffix)?;
    let plain = !digits.is_empty()
        && digits.len() <= 6
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    plain.then(|| digits.parse().ok()).flatten()
}

/// A voice event of an anim, with the time a skip cut it.
struct VoiceSpan {
    t: f32,
    voiced_start: Option<f32>,
    voiced_end: Option<f32>,
    clip: String,
    cut: Option<f32>,
}

/// The voice events of one character's anim; a `cut` marker after a voice (and before
/// the next) cuts it.
fn voice_events(events: &[AnimEvent]) -> Vec<VoiceSpan> {
    let mut out: Vec<VoiceSpan> = Vec::new();
    for e in events {
        match e {
            AnimEvent::Voice {
                t,
                voiced_start,
                voiced_end,
                clip,
            } => out.push(VoiceSpan {
                t: *t,
                voiced_start: *voiced_start,
                voiced_end: *voiced_end,
                clip: clip.clone(),
                cut: None,
            }),
            AnimEvent::Marker { t, name } if name == "cut" => {
                if let Some(last) = out.last_mut().filter(|v| v.cut.is_none() && v.t <= *t) {
                    last.cut = Some(*t);
                }
            }
            _ => {}
        }
    }
    out
}

/// The times the timeline sat at a wait: `(wait, from, to)` from each `wait N` marker to
/// the `advance` after it (`None`: never released).
fn holds(events: &[AnimEvent]) -> Vec<(usize, f32, Option<f32>)> {
    let mut out: Vec<(usize, f32, Option<f32>)> = Vec::new();
    for e in events {
        let AnimEvent::Marker { t, name } = e else {
            continue;
        };
        if let Some(n) = name.strip_prefix("wait ").and_then(|n| n.parse().ok()) {
            out.push((n, *t, None));
        } else if name == "advance"
            && let Some(open) = out.last_mut().filter(|h| h.2.is_none())
        {
            open.2 = Some(*t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_routes_take_plain_numbers_only() {
        assert_eq!(numbered("/vrm/0.vrm", "/vrm/", ".vrm"), Some(0));
        assert_eq!(numbered("/vrm/12.vrm", "/vrm/", ".vrm"), Some(12));
        assert_eq!(numbered("/audio/3", "/audio/", ""), Some(3));
        for bad in [
            "/vrm/.vrm",
            "/vrm/01.vrm",
            "/vrm/-1.vrm",
            "/vrm/+1.vrm",
            "/vrm/1.vrm/",
            "/vrm/../1.vrm",
            "/audio/1/../0",
            "/audio/9999999",
            "/audio/",
        ] {
            let got = numbered(bad, "/vrm/", ".vrm").or(numbered(bad, "/audio/", ""));
            assert_eq!(got, None, "{bad}");
        }
    }

    #[test]
    fn cuts_and_holds_are_read_from_the_markers() {
        let marker = |t: f32, name: &str| AnimEvent::Marker {
            t,
            name: name.into(),
        };
        let voice = |t: f32, clip: &str| AnimEvent::Voice {
            t,
            voiced_start: Some(t + 0.1),
            voiced_end: Some(t + 1.0),
            clip: clip.into(),
        };
        let events = vec![
            voice(0.5, "a.wav"),
            marker(1.0, "cut"),
            marker(1.0, "skip"),
            marker(2.0, "wait 0"),
            marker(3.0, "advance"),
            voice(3.5, "b.wav"),
            marker(5.0, "wait 1"),
        ];
        let v = voice_events(&events);
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].cut, v[1].cut), (Some(1.0), None));
        assert_eq!(holds(&events), vec![(0, 2.0, Some(3.0)), (1, 5.0, None)]);
    }
}
