//! An avatar from where it is named — a VRM (file or bytes), a rig file, or a built-in
//! one — as the core's [`Rig`] and, when it has one, its VRM: the one loader every
//! command, scene and binding uses, so every caller gets the same defaults (the README
//! has the table).
//!
//! ```
//! use omote_avatar::{Avatar, AvatarSource};
//! let avatar = Avatar::load(&AvatarSource::Builtin).unwrap();
//! assert!(avatar.rig.channel("happy").is_some());
//! assert!(avatar.vrm.is_some());
//! ```

#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use omote_core::Rig;
use omote_vrm::VrmModel;
use omote_vrm::avatar::AvatarStyle;

/// Where an avatar comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AvatarSource {
    /// The generated test avatar (the default when nothing is named).
    Builtin,
    /// The generated avatar in its second style (a scene's other character).
    BuiltinSecond,
    /// The standard rig (18 presets + ARKit-52), with no model.
    Standard,
    /// A file: `.vrm` or `.glb` (any case) is a VRM, `.toml` or `.json` a rig file.
    File(PathBuf),
}

impl AvatarSource {
    /// The source a `--rig` option names: the built-in avatar when absent.
    pub fn from_option(path: Option<&Path>) -> Self {
        path.map_or(Self::Builtin, |p| Self::File(p.to_path_buf()))
    }

    /// The source a scene's `rig = "…"` names (`builtin`, `builtin:second`, `standard`,
    /// or a path, relative to `base`); the built-in avatar when absent.
    pub fn from_scene(text: Option<&str>, base: &Path) -> Self {
        match text.unwrap_or("builtin") {
            "builtin" => Self::Builtin,
            "builtin:second" => Self::BuiltinSecond,
            "standard" => Self::Standard,
            p => Self::File(base.join(p)),
        }
    }
}

/// An avatar: its rig and, when it is a VRM, the model and the file's bytes.
#[derive(Clone, Debug)]
pub struct Avatar {
    /// The rig every face of this avatar is driven with.
    pub rig: Arc<Rig>,
    /// The VRM's model (for VRMA output, names on the wire), when it is one.
    pub model: Option<VrmModel>,
    /// The VRM's bytes (to serve to a browser or write out), when it is one.
    pub vrm: Option<Arc<[u8]>>,
    /// What it is called in messages: the path, or "the built-in avatar".
    pub name: String,
}

/// Why an avatar could not be loaded; every message names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AvatarError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The VRM could not be read, or its expressions do not make a rig.
    #[error(transparent)]
    Vrm(#[from] omote_vrm::VrmError),
    /// The rig file could not be read.
    #[error(transparent)]
    Rig(#[from] omote_config::ConfigError),
    /// The path names no kind of avatar file omote reads.
    #[error(
        "{file}: not an avatar file (a .vrm or .glb, or a rig file: .toml or .json){}",
        builtin_hint(file)
    )]
    NotAvatarFile {
        /// The file (`(an empty path)` when there was none).
        file: String,
    },
}

/// For a name that looks meant as a built-in avatar (`builtin:third`, a scene's
/// `rig = "Builtin"`), the names there are.
fn builtin_hint(file: &str) -> &'static str {
    let name = Path::new(file)
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().to_ascii_lowercase());
    if name.starts_with("builtin") || name == "standard" {
        "; the built-in ones are `builtin`, `builtin:second` and `standard`"
    } else {
        ""
    }
}

impl AvatarError {
    /// The file, when the error is that it is not there (a binding reports it as a
    /// missing file, not as a file it could not read).
    pub fn missing_file(&self) -> Option<&Path> {
        match self {
            AvatarError::Read { file, source } if source.kind() == std::io::ErrorKind::NotFound => {
                Some(Path::new(file.as_str()))
            }
            AvatarError::Rig(e) => e.missing_file(),
            _ => None,
        }
    }
}

/// An avatar file from the filesystem: a regular file within its kind's limit (a VRM's,
/// a rig file's), by its extension.
fn avatar_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let limit = match omote_fs::Limit::for_path(path) {
        omote_fs::Limit::VRM => omote_fs::Limit::VRM,
        _ => omote_fs::Limit::CONFIG,
    };
    omote_fs::read(path, limit)
}

impl Avatar {
    /// The avatar `source` names.
    pub fn load(source: &AvatarSource) -> Result<Self, AvatarError> {
        Self::load_with(source, &avatar_file)
    }

    /// [`Avatar::load`] with a file's bytes from `read` (an engine's assets, an archive,
    /// memory) instead of the filesystem; errors are [`Avatar::load`]'s, word for word.
    pub fn load_with(
        source: &AvatarSource,
        read: omote_config::ReadFile<'_>,
    ) -> Result<Self, AvatarError> {
        match source {
            AvatarSource::Builtin => Ok(Self::builtin(&AvatarStyle::DEFAULT)),
            AvatarSource::BuiltinSecond => Ok(Self::builtin(&AvatarStyle::SECOND)),
            AvatarSource::Standard => Ok(Self::standard()),
            AvatarSource::File(path) => Self::from_file_with(path, read),
        }
    }

    /// The generated avatar in `style`, with each expression's `eyeClosure` from its
    /// shape (so a smile's blink adds only what the smile leaves open).
    pub fn builtin(style: &AvatarStyle) -> Self {
        let bytes = omote_vrm::avatar::generate_styled(style);
        let model = VrmModel::from_slice(&bytes, "builtin.vrm").expect("the built-in avatar reads");
        Self {
            rig: Arc::new(omote_vrm::avatar::rig_of(&model)),
            model: Some(model),
            vrm: Some(bytes.into()),
            name: "the built-in avatar".into(),
        }
    }

    /// Whether the face's gaze turns eye bones: the rig's lookAt is of the bone kind and
    /// the VRM maps an eye bone (a VRM 0.x file may say "Bone" with no eyes to turn).
    /// Without a VRM to ask, the lookAt kind alone.
    pub fn moves_eye_bones(&self) -> bool {
        let bones = self.rig.look_at().kind == omote_core::rig::LookAtType::Bone;
        bones
            && self.model.as_ref().is_none_or(|m| {
                let face = m.humanoid.face_bones();
                face.left_eye.is_some() || face.right_eye.is_some()
            })
    }

    /// The standard rig, with no model.
    pub fn standard() -> Self {
        Self {
            rig: Arc::new(Rig::standard()),
            model: None,
            vrm: None,
            name: "the standard rig".into(),
        }
    }

    /// A VRM file (`.vrm` or `.glb`, any case) or a rig file (`.toml` or `.json`).
    pub fn from_file(path: &Path) -> Result<Self, AvatarError> {
        Self::from_file_with(path, &avatar_file)
    }

    /// [`Avatar::from_file`] with the file's bytes from `read`.
    pub fn from_file_with(
        path: &Path,
        read: omote_config::ReadFile<'_>,
    ) -> Result<Self, AvatarError> {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let is = |e: &str| extension.eq_ignore_ascii_case(e);
        let name = path.display().to_string();
        if !(is("vrm") || is("glb") || is("toml") || is("json")) {
            return Err(AvatarError::NotAvatarFile {
                file: if name.is_empty() {
                    "(an empty path)".into()
                } else {
                    name
                },
            });
        }
        if is("vrm") || is("glb") {
            let bytes = read(path).map_err(|source| AvatarError::Read {
                file: name.clone(),
                source,
            })?;
            Self::from_vrm_bytes(bytes, name)
        } else {
            Ok(Self {
                rig: Arc::new(omote_config::load_rig_with(path, read)?),
                model: None,
                vrm: None,
                name,
            })
        }
    }

    /// A VRM (0.x or 1.0) from its bytes; `name` stands for it in errors.
    pub fn from_vrm_bytes(
        bytes: impl Into<Arc<[u8]>>,
        name: impl Into<String>,
    ) -> Result<Self, AvatarError> {
        let bytes = bytes.into();
        let name = name.into();
        let model = VrmModel::from_slice(&bytes, name.clone())?;
        Ok(Self {
            rig: Arc::new(model.to_rig()?),
            model: Some(model),
            vrm: Some(bytes),
            name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_another_kind_is_named_and_a_glb_is_a_vrm() {
        for (path, named) in [
            ("voice.wav", "voice.wav: "),
            ("/scenes/builtin:third", "/scenes/builtin:third: "),
            ("", "(an empty path): "),
            ("dir/", "dir/: "),
        ] {
            let e = Avatar::from_file(Path::new(path)).unwrap_err().to_string();
            assert!(
                e.starts_with(named) && e.contains("not an avatar file (a .vrm or .glb"),
                "{e}"
            );
        }
        let e = Avatar::from_file(Path::new("/scenes/builtin:third"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the built-in ones are `builtin`, `builtin:second`"),
            "{e}"
        );
        let e = Avatar::from_file(Path::new("voice.wav"))
            .unwrap_err()
            .to_string();
        assert!(!e.contains("built-in"), "{e}");
        let vrm = Avatar::builtin(&AvatarStyle::DEFAULT).vrm.unwrap();
        let read = |_: &Path| -> std::io::Result<Vec<u8>> { Ok(vrm.to_vec()) };
        let glb = Avatar::from_file_with(Path::new("model.GLB"), &read).unwrap();
        assert!(glb.model.is_some());
    }

    #[test]
    fn the_builtin_avatar_has_its_eye_closure_and_its_bytes() {
        let a = Avatar::load(&AvatarSource::from_option(None)).unwrap();
        let happy = a.rig.channel("happy").unwrap();
        assert!(
            a.rig.info(happy).desc.eye_closure > 0.0,
            "a smile closes the lids some way"
        );
        let reread = Avatar::from_vrm_bytes(a.vrm.clone().unwrap(), "again.vrm").unwrap();
        assert_eq!(reread.rig.len(), a.rig.len());
    }

    /// A VRM 0.x file may say its lookAt is "Bone" and map no eye bone (simple_morph):
    /// nothing should then be sent to a receiver for eyes it does not have.
    #[test]
    fn eye_bones_move_only_where_the_vrm_has_them() {
        assert!(Avatar::builtin(&AvatarStyle::DEFAULT).moves_eye_bones());
        assert!(Avatar::standard().moves_eye_bones());
        let Some(dir) = omote_testdata::shared_data("vrm") else {
            return;
        };
        for (file, moves) in [
            ("simple_morph.vrm", false),
            ("debug_robot.vrm", true),
            ("VRMC_vrm_expressions_isBinary_Overrides.vrm", false),
        ] {
            let a = Avatar::from_file(&dir.join(file)).unwrap();
            assert_eq!(a.moves_eye_bones(), moves, "{file}");
        }
    }

    #[test]
    fn scene_names_and_paths() {
        let base = Path::new("/scenes");
        assert_eq!(AvatarSource::from_scene(None, base), AvatarSource::Builtin);
        assert_eq!(
            AvatarSource::from_scene(Some("standard"), base),
            AvatarSource::Standard
        );
        assert_eq!(
            AvatarSource::from_scene(Some("a.vrm"), base),
            AvatarSource::File(PathBuf::from("/scenes/a.vrm"))
        );
        assert!(Avatar::load(&AvatarSource::Standard).unwrap().vrm.is_none());
    }

    #[test]
    fn a_missing_or_broken_file_is_named() {
        let e = Avatar::load(&AvatarSource::File("/nope/x.vrm".into())).unwrap_err();
        assert!(e.to_string().starts_with("/nope/x.vrm:"), "{e}");
        let e = Avatar::from_vrm_bytes(vec![1, 2, 3], "junk.vrm").unwrap_err();
        assert!(e.to_string().contains("junk.vrm"), "{e}");
        let e = Avatar::load(&AvatarSource::File("/nope/x.toml".into())).unwrap_err();
        assert!(e.to_string().contains("/nope/x.toml"), "{e}");
    }
}
