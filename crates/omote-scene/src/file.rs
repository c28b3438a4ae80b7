//! The scene file as written: TOML tables mirrored as plain structs (schema in
//! `docs/scene-format.md`). Every table keeps its byte span so errors can name the line.
//!
//! The same structs write a scene ([`SceneFile::to_toml`]): a program that makes a scene
//! (`omote speak`) builds them, with [`unspanned`] values, and never spells a key itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toml::Spanned;

/// A value built in code rather than read from a file: it has no place in a file, so
/// its span is empty.
pub fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Three numbers `[x, y, z]`, exactly: serde reads an array into `[f32; 3]` by its first
/// three items and drops any more, so a fourth would be lost without a word.
mod xyz {
    use serde::de::{Deserialize, Deserializer, Error};

    fn three<E: Error>(v: Vec<f32>) -> Result<[f32; 3], E> {
        <[f32; 3]>::try_from(v.as_slice())
            .map_err(|_| E::invalid_length(v.len(), &"three numbers [x, y, z]"))
    }

    pub fn required<'de, D: Deserializer<'de>>(d: D) -> Result<[f32; 3], D::Error> {
        three(Vec::deserialize(d)?)
    }

    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f32; 3]>, D::Error> {
        Option::<Vec<f32>>::deserialize(d)?.map(three).transpose()
    }
}

impl SceneFile {
    /// The scene as TOML text: keys in alphabetical order (values before tables), absent
    /// and empty fields left out, and each number written as the shortest decimal that
    /// reads back as the same `f32` (`0.3`, not the `f64` widening
    /// `0.30000001192092896`). Fails only for a seed above `i64::MAX`, which TOML cannot
    /// hold.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        let mut table = toml::Table::try_from(self)?;
        shortest_floats(&mut table);
        toml::to_string(&table)
    }
}

/// Respells every float of a table that came from the schema's `f32` fields (all of them
/// do) as the shortest decimal of that `f32`.
fn shortest_floats(table: &mut toml::Table) {
    fn value(v: &mut toml::Value) {
        match v {
            toml::Value::Float(f) => {
                let single = *f as f32;
                *f = single.to_string().parse().unwrap_or(*f);
            }
            toml::Value::Array(items) => items.iter_mut().for_each(value),
            toml::Value::Table(t) => shortest_floats(t),
            _ => {}
        }
    }
    table.iter_mut().for_each(|(_, v)| value(v));
}

/// A whole scene file.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Frames per second a bake uses unless told otherwise (read as `f64` so a value
    /// such as `1e-300` is reported as written, not as the `0` an `f32` makes of it).
    pub fps: Option<Spanned<f64>>,
    /// The characters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub character: Vec<Spanned<CharacterDesc>>,
    /// The camera path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub camera: Vec<Spanned<CameraKeyDesc>>,
    /// Wait points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wait: Vec<Spanned<WaitDesc>>,
}

/// One `[[character]]`.
#[derive(Debug, Default, Deserialize, Serialize)]
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
    #[serde(default, deserialize_with = "xyz::optional")]
    pub position: Option<[f32; 3]>,
    /// Degrees about +Y; 0 faces +Z.
    pub facing: Option<f32>,
    /// The share of a gaze turn the head takes, 0–1. Default 0.3.
    pub head_share: Option<f32>,
    /// A camera motion map (JSON) for camera-angle face correction.
    pub motion_map: Option<String>,
    /// Scene expression name → this rig's channel name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: BTreeMap<String, String>,
    /// Acting keys (base layer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acting: Vec<Spanned<KeyDesc>>,
    /// Picture-making keys (additive layer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub picture: Vec<Spanned<KeyDesc>>,
    /// Voice lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub line: Vec<Spanned<LineDesc>>,
    /// Gaze keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaze: Vec<Spanned<GazeDesc>>,
    /// Eye mode keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eyes: Vec<Spanned<EyesDesc>>,
}

/// One acting or picture key: several expressions moving together.
#[derive(Debug, Deserialize, Serialize)]
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
#[derive(Debug, Default, Deserialize, Serialize)]
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
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub afterglow: BTreeMap<String, f32>,
    /// Seconds the afterglow takes to ramp in. Default 0.5.
    pub afterglow_ramp: Option<f32>,
    /// Seconds the afterglow stays at full once the line has ended. Default: until the
    /// character's next line.
    pub afterglow_hold: Option<f32>,
    /// Seconds it then takes to release. Default 0.5.
    pub afterglow_release: Option<f32>,
    /// The expression the acting moves to at the hand-over: name → weight.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub then: BTreeMap<String, f32>,
    /// Hold the timeline at the end of the clip until the player advances.
    #[serde(default, skip_serializing_if = "is_false")]
    pub wait: bool,
    /// How long an unattended bake holds that wait (s). Default 1.
    pub hold: Option<f32>,
}

/// One gaze key: `at` a target, a `point`, or a direction (`yaw`, `pitch`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GazeDesc {
    /// Scene time (s).
    pub t: f32,
    /// A character id, `"camera"`, `"forward"` or `"auto"`.
    pub at: Option<String>,
    /// A point in the scene, metres (instead of `at`).
    #[serde(default, deserialize_with = "xyz::optional")]
    pub point: Option<[f32; 3]>,
    /// Degrees, > 0 to the character's left (with `pitch`, instead of `at`).
    pub yaw: Option<f32>,
    /// Degrees, > 0 down.
    pub pitch: Option<f32>,
}

/// One eye mode key.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EyesDesc {
    /// Scene time (s).
    pub t: f32,
    /// `"idle"`, `"talking"`, `"listening"`, `"focused"` or `"auto"`.
    pub mode: String,
}

/// One camera key.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CameraKeyDesc {
    /// Scene time (s).
    pub t: f32,
    /// Position `[x, y, z]` in metres.
    #[serde(deserialize_with = "xyz::required")]
    pub position: [f32; 3],
    /// How the camera moves from the previous key: `"smooth"` (default), `"linear"`,
    /// `"step"`.
    pub curve: Option<String>,
}

/// One wait point.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WaitDesc {
    /// Scene time (s).
    pub t: f32,
    /// How long an unattended bake holds here (s). Default 1.
    pub hold: Option<f32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a program builds is what the file reads back, number for number.
    #[test]
    fn a_built_scene_reads_back_as_built() {
        let line = LineDesc {
            t: Some(0.3),
            audio: Some("a.wav".into()),
            afterglow: [("happy".to_string(), 0.3)].into(),
            afterglow_ramp: Some(0.7),
            afterglow_hold: Some(2.0),
            wait: true,
            ..LineDesc::default()
        };
        let scene = SceneFile {
            fps: Some(unspanned(59.94)),
            character: vec![unspanned(CharacterDesc {
                id: "a".into(),
                seed: Some(7),
                line: vec![unspanned(line)],
                ..CharacterDesc::default()
            })],
            ..SceneFile::default()
        };
        let text = scene.to_toml().unwrap();
        assert!(text.contains("fps = 59.94\n"), "{text}");
        assert!(text.contains("happy = 0.3\n"), "{text}");
        assert!(
            !text.contains("picture") && !text.contains("names"),
            "{text}"
        );
        let back: SceneFile = toml::from_str(&text).unwrap();
        assert_eq!(*back.fps.unwrap().get_ref(), 59.94);
        let c = back.character[0].get_ref();
        assert_eq!((c.id.as_str(), c.seed), ("a", Some(7)));
        let l = c.line[0].get_ref();
        assert_eq!(
            (l.t, l.afterglow_ramp, l.wait),
            (Some(0.3), Some(0.7), true)
        );
        assert_eq!(l.afterglow["happy"], 0.3);
        assert_eq!((l.afterglow_hold, l.afterglow_release), (Some(2.0), None));
        assert!(text.contains("afterglowHold = 2"), "{text}");
    }

    /// The shortest spelling of an `f32` reads back as that `f32` (through TOML's
    /// `f64`), over a sweep of weights, times and odd bit patterns.
    #[test]
    fn every_number_reads_back_to_the_bit() {
        let mut values: Vec<f32> = (0..=20_000).map(|i| i as f32 / 1000.0).collect();
        values.extend((0..20_000u32).map(|i| f32::from_bits(0x3a00_0000 + i * 40_503)));
        for v in values {
            let mut table = toml::Table::new();
            table.insert("v".into(), toml::Value::Float(f64::from(v)));
            shortest_floats(&mut table);
            let text = toml::to_string(&table).unwrap();
            #[derive(Deserialize)]
            struct V {
                v: f32,
            }
            let back: V = toml::from_str(&text).unwrap();
            assert_eq!(back.v.to_bits(), v.to_bits(), "{v}: {text}");
        }
    }
}
