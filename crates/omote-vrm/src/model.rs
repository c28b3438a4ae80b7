//! The VRM model: what omote reads from a `.vrm` (1.0 or 0.x), and the reader.

use std::path::Path;

use gltf_json::Root;
use omote_core::{Rig, rig::LookAtDesc};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::document::Document;
use crate::error::VrmError;
use crate::expressions::{self, Expression};
use crate::glb;
use crate::humanoid::{self, HumanBone, Humanoid};
use crate::look_at;
use crate::meta::Meta;
use crate::schema::{vrm0, vrmc_vrm};

/// Which VRM a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VrmVersion {
    /// `extensions.VRMC_vrm`.
    V1,
    /// `extensions.VRM`.
    V0,
}

impl VrmVersion {
    /// `"1.0"` or `"0.x"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::V1 => "1.0",
            Self::V0 => "0.x",
        }
    }
}

/// A VRM avatar as omote sees it: expressions with their binds, gaze settings, humanoid
/// bones and meta, in VRM 1.0 terms whatever the file's version.
#[derive(Clone, Debug, PartialEq)]
pub struct VrmModel {
    /// The file name used in errors (or a label for in-memory data).
    pub file: String,
    /// 1.0 or 0.x.
    pub version: VrmVersion,
    /// The extension's `specVersion` as written (`"1.0"`, `"0.0"`, …).
    pub spec_version: String,
    /// Name, authors, licence.
    pub meta: Meta,
    /// Expressions: 1.0 presets then customs in file order; 0.x groups in file order.
    pub expressions: Vec<Expression>,
    /// Gaze settings (`None` when the file has none).
    pub look_at: Option<LookAtDesc>,
    /// Humanoid bones.
    pub humanoid: Humanoid,
    /// Things skipped while reading (unknown preset names, duplicate 0.x groups, …).
    pub warnings: Vec<String>,
}

/// How strictly the reader treats files that break a rule other readers enforce.
///
/// The default is strict, as three-vrm is; [`VrmModel::read`] and
/// [`VrmModel::from_slice`] use it.
///
/// ```
/// use omote_vrm::VrmReadOptions;
/// let lenient = VrmReadOptions { allow_missing_head: true };
/// assert!(!VrmReadOptions::default().allow_missing_head);
/// # let _ = lenient;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VrmReadOptions {
    /// Accept a VRM 1.0 file whose humanoid has no `head` bone: the missing bone is then
    /// listed in [`VrmModel::warnings`] (with the other missing required bones) instead
    /// of failing with [`VrmError::MissingBone`]. The model has no head bone then
    /// (`humanoid.face_bones().head` is `None`).
    pub allow_missing_head: bool,
}

/// Just the root extensions, kept raw so each VRM extension is parsed on its own (a
/// file may carry both, and a broken one we do not use must not stop us).
#[derive(Deserialize)]
struct ExtensionsOnly<'a> {
    #[serde(borrow, default)]
    extensions: Option<RootExtensions<'a>>,
}

#[derive(Deserialize)]
struct RootExtensions<'a> {
    #[serde(borrow, rename = "VRMC_vrm", default)]
    vrmc_vrm: Option<&'a RawValue>,
    #[serde(borrow, rename = "VRM", default)]
    vrm0: Option<&'a RawValue>,
    #[serde(borrow, rename = "VRMC_vrm_animation", default)]
    vrma: Option<&'a RawValue>,
}

/// Parse JSON; on failure, parse again tracking the path so the error names the field
/// (path tracking allocates per key, so the valid, common case goes without it).
fn parse<'de, T: Deserialize<'de>>(
    json: &'de [u8],
    file: &str,
    prefix: &str,
) -> Result<T, VrmError> {
    if let Ok(value) = serde_json::from_slice(json) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(json);
    let value: T =
        serde_path_to_error::deserialize(&mut de).map_err(|e| json_error(file, prefix, &e))?;
    de.end().map_err(|e| VrmError::Json {
        file: file.to_string(),
        field: prefix_or_dot(prefix),
        message: e.to_string(),
    })?;
    Ok(value)
}

fn parse_raw<T: DeserializeOwned>(raw: &RawValue, file: &str, prefix: &str) -> Result<T, VrmError> {
    parse(raw.get().as_bytes(), file, prefix)
}

fn prefix_or_dot(prefix: &str) -> String {
    if prefix.is_empty() {
        ".".into()
    } else {
        prefix.into()
    }
}

fn json_error(
    file: &str,
    prefix: &str,
    e: &serde_path_to_error::Error<serde_json::Error>,
) -> VrmError {
    let path = e.path().to_string();
    let field = match (prefix.is_empty(), path.as_str()) {
        (true, p) => p.to_string(),
        (false, ".") => prefix.to_string(),
        (false, p) => format!("{prefix}.{p}"),
    };
    // Hostile nesting makes paths huge; keep the start and the end.
    let field = if field.chars().count() > 160 {
        let head: String = field.chars().take(80).collect();
        let tail: String = field
            .chars()
            .rev()
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("{head}…{tail}")
    } else {
        field
    };
    VrmError::Json {
        file: file.to_string(),
        field,
        message: e.inner().to_string(),
    }
}

/// The JSON chunk without the trailing padding (spaces per the spec; some writers pad
/// with NULs).
fn trim_json(json: &[u8]) -> &[u8] {
    let end = json
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0))
        .map_or(0, |i| i + 1);
    &json[..end]
}

impl VrmModel {
    /// Humanoid bone `name`'s rest translation relative to its parent node, in the VRM
    /// 1.0 frame (+Z forward): a 0.x file's, whose model faces −Z, is turned half round
    /// (x and z negated). What a VMC performer sends as the bone's position.
    pub fn bone_rest_translation(&self, name: &str) -> Option<[f32; 3]> {
        let [x, y, z] = self.humanoid.bone(name)?.rest_translation;
        Some(match self.version {
            VrmVersion::V1 => [x, y, z],
            VrmVersion::V0 => [-x, y, -z],
        })
    }

    /// Read a `.vrm` file. The file is read into memory once; the chunks are borrowed
    /// from that buffer and the binary chunk is never copied.
    ///
    /// Strict: a VRM 1.0 file without the `head` bone is an error
    /// ([`VrmError::MissingBone`]); see [`VrmModel::read_with`] to accept it.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, VrmError> {
        Self::read_with(path, VrmReadOptions::default())
    }

    /// [`VrmModel::read`] with explicit [`VrmReadOptions`].
    pub fn read_with(path: impl AsRef<Path>, options: VrmReadOptions) -> Result<Self, VrmError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let data =
            omote_fs::read(path, omote_fs::Limit::VRM).map_err(|e| VrmError::io(&file, e))?;
        Self::from_slice_with(&data, file, options)
    }

    /// Read VRM (GLB) bytes; `file` names the source in errors. Strict, like
    /// [`VrmModel::read`].
    pub fn from_slice(data: &[u8], file: impl Into<String>) -> Result<Self, VrmError> {
        Self::from_slice_with(data, file, VrmReadOptions::default())
    }

    /// [`VrmModel::from_slice`] with explicit [`VrmReadOptions`].
    pub fn from_slice_with(
        data: &[u8],
        file: impl Into<String>,
        options: VrmReadOptions,
    ) -> Result<Self, VrmError> {
        let file = file.into();
        let chunks = glb::split(data, &file)?;
        let json = trim_json(chunks.json);
        let root: Root = parse(json, &file, "")?;
        let doc = Document {
            file: &file,
            root: &root,
        };
        check_bin(&doc, chunks.bin)?;
        let ext: ExtensionsOnly = parse(json, &file, "")?;
        let ext = ext
            .extensions
            .ok_or_else(|| VrmError::NoVrmExtension { file: file.clone() })?;
        let mut warnings = Vec::new();
        if let Some(raw) = ext.vrmc_vrm {
            let vrm: vrmc_vrm::Vrm = parse_raw(raw, &file, "extensions.VRMC_vrm")?;
            if !matches!(vrm.spec_version.as_str(), "1.0" | "1.0-beta") {
                return Err(VrmError::SpecVersion {
                    file: file.clone(),
                    version: vrm.spec_version,
                });
            }
            let mut expressions =
                expressions::from_v1(&doc, vrm.expressions.as_ref(), &mut warnings)?;
            measure_eye_closures(&root, chunks.bin, &mut expressions, &mut warnings);
            let look_at = look_at::from_v1(&doc, vrm.look_at.as_ref())?;
            let humanoid = humanoid_v1(&doc, &vrm.humanoid, &mut warnings)?;
            if !options.allow_missing_head && humanoid.bone("head").is_none() {
                return Err(VrmError::MissingBone {
                    file,
                    field: "VRMC_vrm.humanoid.humanBones".into(),
                    bone: "head",
                });
            }
            let meta = Meta::from_v1(&vrm.meta);
            Ok(Self {
                file,
                version: VrmVersion::V1,
                spec_version: vrm.spec_version,
                meta,
                expressions,
                look_at,
                humanoid,
                warnings,
            })
        } else if let Some(raw) = ext.vrm0 {
            let vrm: vrm0::Vrm = parse_raw(raw, &file, "extensions.VRM")?;
            let mut expressions =
                expressions::from_v0(&doc, vrm.blend_shape_master.as_ref(), &mut warnings)?;
            measure_eye_closures(&root, chunks.bin, &mut expressions, &mut warnings);
            let look_at = look_at::from_v0(&doc, vrm.first_person.as_ref())?;
            let humanoid = humanoid_v0(&doc, vrm.humanoid.as_ref(), &mut warnings)?;
            let meta = Meta::from_v0(vrm.meta.as_ref());
            Ok(Self {
                spec_version: vrm.spec_version.unwrap_or_else(|| "0.0".into()),
                file,
                version: VrmVersion::V0,
                meta,
                expressions,
                look_at,
                humanoid,
                warnings,
            })
        } else if ext.vrma.is_some() {
            Err(VrmError::IsVrma { file })
        } else {
            Err(VrmError::NoVrmExtension { file })
        }
    }

    /// The expression with this (VRM 1.0) name.
    pub fn expression(&self, name: &str) -> Option<&Expression> {
        self.expressions.iter().find(|e| e.name == name)
    }

    /// The core rig for this model: one channel per expression in model order with its
    /// isBinary and override settings; the model's lookAt, or bone gaze with 90° → 10°
    /// maps when the file has none. Fails only if the core rejects the rig (e.g. more
    /// than [`omote_core::rig::MAX_CHANNELS`] expressions).
    pub fn to_rig(&self) -> Result<Rig, VrmError> {
        Rig::new(
            self.meta.name.clone(),
            self.expressions.iter().map(Expression::to_desc).collect(),
            self.look_at.unwrap_or_else(LookAtDesc::default_bone),
        )
        .map_err(|source| VrmError::Rig {
            file: self.file.clone(),
            source,
        })
    }
}

/// Each expression's `eye_closure` from its shapes ([`crate::eye_closure`]); a model
/// too large to measure keeps 0 and says so.
fn measure_eye_closures(
    root: &Root,
    bin: Option<&[u8]>,
    expressions: &mut [Expression],
    warnings: &mut Vec<String>,
) {
    match crate::eye_closure::eye_closures(root, bin, expressions) {
        Some(closures) => {
            for (e, c) in expressions.iter_mut().zip(closures) {
                e.eye_closure = c;
            }
        }
        None => warnings.push(format!(
            "eyeClosure not measured: the expressions' morph targets hold more than {} \
             vertices; blinks keep their full depth on every expression",
            crate::eye_closure::MAX_TOTAL_VERTICES
        )),
    }
}

/// A BIN chunk shorter than `buffers[0].byteLength` means the file was cut short.
fn check_bin(doc: &Document, bin: Option<&[u8]>) -> Result<(), VrmError> {
    let Some(b0) = doc.root.buffers.first() else {
        return Ok(());
    };
    if b0.uri.is_some() {
        return Ok(());
    }
    let declared = b0.byte_length.0;
    let available = bin.map_or(0, <[u8]>::len) as u64;
    if declared > available {
        return Err(VrmError::Truncated {
            file: doc.file.to_string(),
            part: "BIN chunk",
            declared,
            available,
        });
    }
    Ok(())
}

fn bone(
    doc: &Document,
    field: &str,
    name: &'static str,
    node: usize,
) -> Result<HumanBone, VrmError> {
    let n = doc.node(field, node)?;
    let (rotation, translation, what) = match n.matrix {
        Some(m) => {
            doc.finite(&format!("nodes[{node}].matrix"), &m)?;
            let (_, r, t) = glam::Mat4::from_cols_array(&m).to_scale_rotation_translation();
            (r.to_array(), t.to_array(), "matrix")
        }
        None => (
            n.rotation.map_or([0.0, 0.0, 0.0, 1.0], |r| r.0),
            n.translation.unwrap_or([0.0; 3]),
            "rotation",
        ),
    };
    doc.finite(&format!("nodes[{node}].{what}"), &rotation)?;
    let what = if what == "matrix" {
        what
    } else {
        "translation"
    };
    doc.finite(&format!("nodes[{node}].{what}"), &translation)?;
    Ok(HumanBone {
        name,
        node,
        rest_rotation: rotation,
        rest_translation: translation,
    })
}

fn push_bone(h: &mut Humanoid, b: HumanBone, field: &str, warnings: &mut Vec<String>) {
    if h.bone(b.name).is_some() {
        warnings.push(format!("{field}: `{}` appears twice, ignored", b.name));
    } else {
        h.bones.push(b);
    }
}

fn humanoid_v1(
    doc: &Document,
    s: &vrmc_vrm::Humanoid,
    warnings: &mut Vec<String>,
) -> Result<Humanoid, VrmError> {
    let mut h = Humanoid::default();
    for (name, b) in s.human_bones.iter() {
        let field = format!("VRMC_vrm.humanoid.humanBones.{name}");
        let Some(v1) = humanoid::bone_name_v1(name) else {
            warnings.push(format!("{field}: unknown bone name, ignored"));
            continue;
        };
        let hb = bone(doc, &format!("{field}.node"), v1, b.node)?;
        push_bone(&mut h, hb, &field, warnings);
    }
    missing(&h, warnings);
    Ok(h)
}

fn humanoid_v0(
    doc: &Document,
    s: Option<&vrm0::Humanoid>,
    warnings: &mut Vec<String>,
) -> Result<Humanoid, VrmError> {
    let mut h = Humanoid::default();
    for (i, b) in s.map_or(&[][..], |s| &s.human_bones).iter().enumerate() {
        let field = format!("VRM.humanoid.humanBones[{i}]");
        let (Some(name), Some(node)) = (&b.bone, b.node) else {
            warnings.push(format!("{field}: no bone or node, ignored"));
            continue;
        };
        let Some(v1) = humanoid::bone_name_from_v0(name) else {
            warnings.push(format!("{field}.bone: unknown bone name `{name}`, ignored"));
            continue;
        };
        let hb = bone(doc, &format!("{field}.node"), v1, node)?;
        push_bone(&mut h, hb, &field, warnings);
    }
    missing(&h, warnings);
    Ok(h)
}

fn missing(h: &Humanoid, warnings: &mut Vec<String>) {
    let m = h.missing_required();
    if !m.is_empty() {
        warnings.push(format!(
            "humanoid: required bones missing: {}",
            m.join(", ")
        ));
    }
}
