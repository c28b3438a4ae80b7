//! The scene file as written: TOML tables mirrored as plain structs (schema in
//! `docs/scene-format.md`). Every table keeps its byte span so errors can name the line.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

/// A whole scene file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Frames per second a bake uses unless told otherwise.
    pub fps: Option<Spanned<f32>>,
    /// The characters.
    #[serde(default)]
    pub character: Vec<Spanned<CharacterDesc>>,
    /// The camera path.
    #[serde(default)]
    pub camera: Vec<Spanned<CameraKeyDesc>>,
    /// Wait points.
    #[serde(default)]
    pub wait: Vec<Spanned<WaitDesc>>,
}

/// One `[[character]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CharacterDesc {
    /// Its id (gaze targets and output files use it).
    pub id: String,
    /// `"builtin"` (the generated avatar), `"builtin:second"` (the same in other
    /// colours), a `.vrm` model, or a rig file (`.json` / `.toml`). Default `"builtin"`.
    pub rig: Option<String>,
    /// Seed of its procedural behaviour (blinks, saccades). Default: its position in
    /// the file, plus one.
    pub seed: Option<u64>,
    /// Head position in scene space, metres, `[x, y, z]` (+Y up, +Z toward a camera in
    /// front). Default `[0, 1.4, 0]`.
    pub position: Option<[f32; 3]>,
    /// Degrees about +Y; 0 faces +Z.
    pub facing: Option<f32>,
    /// The share of a gaze turn the head takes, 0–1. Default 0.3.
    pub head_share: Option<f32>,
    /// A camera motion map (JSON) for camera-angle face correction.
    pub motion_map: Option<String>,
    /// Scene expression name → this rig's channel name.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Acting keys (base layer).
    #[serde(default)]
    pub acting: Vec<Spanned<KeyDesc>>,
    /// Picture-making keys (additive layer).
    #[serde(default)]
    pub picture: Vec<Spanned<KeyDesc>>,
    /// Voice lines.
    #[serde(default)]
    pub line: Vec<Spanned<LineDesc>>,
    /// Gaze keys.
    #[serde(default)]
    pub gaze: Vec<Spanned<GazeDesc>>,
    /// Eye mode keys.
    #[serde(default)]
    pub eyes: Vec<Spanned<EyesDesc>>,
}

/// One acting or picture key: several expressions moving together.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyDesc {
    /// Scene time (s).
    pub t: f32,
    /// Expression name → weight.
    pub set: BTreeMap<String, f32>,
    /// Seconds the move takes. Default 0.25 (0 for picture keys is allowed).
    pub fade: Option<f32>,
    /// `"smooth"` (default), `"linear"` or `"step"`.
    pub curve: Option<String>,
    /// Override whether this key changes the eye area (default: from the rig).
    pub eye_area: Option<bool>,
}

/// One voice line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LineDesc {
    /// Scene time the clip starts (s).
    pub t: Option<f32>,
    /// Or: seconds after this character's previous line (in file order) ends; the first
    /// line counts from 0.
    pub after: Option<f32>,
    /// An audio file (WAV, FLAC, OGG, MP3).
    pub audio: Option<String>,
    /// Or a precomputed `omote lipsync --format json` track.
    pub lipsync: Option<String>,
    /// The afterglow mouth: expression name → value.
    #[serde(default)]
    pub afterglow: BTreeMap<String, f32>,
    /// Seconds the afterglow takes to ramp in. Default 0.5.
    pub afterglow_ramp: Option<f32>,
    /// The expression the acting moves to at the hand-over: name → weight.
    #[serde(default)]
    pub then: BTreeMap<String, f32>,
    /// Hold the timeline at the end of the clip until the player advances.
    #[serde(default)]
    pub wait: bool,
    /// How long an unattended bake holds that wait (s). Default 1.
    pub hold: Option<f32>,
}

/// One gaze key: `at` a target or a direction (`yaw`, `pitch`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GazeDesc {
    /// Scene time (s).
    pub t: f32,
    /// A character id, `"camera"`, `"forward"` or `"auto"`.
    pub at: Option<String>,
    /// Degrees, > 0 to the character's left (with `pitch`, instead of `at`).
    pub yaw: Option<f32>,
    /// Degrees, > 0 down.
    pub pitch: Option<f32>,
}

/// One eye mode key.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EyesDesc {
    /// Scene time (s).
    pub t: f32,
    /// `"idle"`, `"talking"`, `"listening"`, `"focused"` or `"auto"`.
    pub mode: String,
}

/// One camera key.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraKeyDesc {
    /// Scene time (s).
    pub t: f32,
    /// Position `[x, y, z]` in metres.
    pub position: [f32; 3],
    /// How the camera moves from the previous key: `"smooth"` (default), `"linear"`,
    /// `"step"`.
    pub curve: Option<String>,
}

/// One wait point.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitDesc {
    /// Scene time (s).
    pub t: f32,
    /// How long an unattended bake holds here (s). Default 1.
    pub hold: Option<f32>,
}
