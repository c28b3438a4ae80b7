//! The one error type of this crate. Every variant names the file it is about and, where
//! there is one, the JSON field (in VRM terms, e.g. `VRMC_vrm.expressions.preset.happy.
//! morphTargetBinds[0].node`).

use thiserror::Error;

/// Why a VRM could not be read, or a VRMA / avatar could not be written.
#[derive(Debug, Error)]
pub enum VrmError {
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The data does not start with the GLB magic `glTF` (or is empty).
    #[error("{file}: not a GLB (binary glTF) file: {}", what_it_starts_with(.magic))]
    NotGlb {
        /// The file.
        file: String,
        /// The first bytes found (at most four).
        magic: String,
    },
    /// The GLB container version is not 2.
    #[error("{file}: GLB version {version} is not supported (only 2)")]
    GlbVersion {
        /// The file.
        file: String,
        /// The version in the header.
        version: u32,
    },
    /// A length in the GLB header or a chunk header runs past the end of the data.
    #[error(
        "{file}: truncated GLB: {part} declares {declared} bytes but only {available} are there"
    )]
    Truncated {
        /// The file.
        file: String,
        /// `header`, `JSON chunk` or `BIN chunk`.
        part: &'static str,
        /// The length the header declares.
        declared: u64,
        /// The bytes actually present.
        available: u64,
    },
    /// The chunks are not JSON then (optionally) BIN.
    #[error("{file}: malformed GLB: {detail}")]
    BadChunk {
        /// The file.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// The JSON chunk is not valid JSON, or a field has the wrong type.
    #[error("{file}: bad JSON at `{field}`: {message}")]
    Json {
        /// The file.
        file: String,
        /// The JSON path of the offending field (`.` when unknown).
        field: String,
        /// What serde said.
        message: String,
    },
    /// Neither `VRMC_vrm` (1.0) nor `VRM` (0.x) is in the root `extensions`.
    #[error(
        "{file}: no VRM extension: the glTF has neither `extensions.VRMC_vrm` (VRM 1.0) nor `extensions.VRM` (VRM 0.x)"
    )]
    NoVrmExtension {
        /// The file.
        file: String,
    },
    /// The file is a VRM Animation (`VRMC_vrm_animation`), not an avatar.
    #[error("{file}: this is a VRM Animation (.vrma, `VRMC_vrm_animation`), not a VRM model")]
    IsVrma {
        /// The file.
        file: String,
    },
    /// `VRMC_vrm.specVersion` is not one this crate knows.
    #[error("{file}: VRMC_vrm.specVersion `{version}` is not supported (expected 1.0)")]
    SpecVersion {
        /// The file.
        file: String,
        /// The version given.
        version: String,
    },
    /// An index points at a node, mesh, morph target or material that does not exist.
    #[error("{file}: {field} = {index} points at a {what} that does not exist ({count} available)")]
    BadReference {
        /// The file.
        file: String,
        /// The JSON path of the index.
        field: String,
        /// The index given.
        index: u64,
        /// `node`, `mesh`, `morph target` or `material`.
        what: &'static str,
        /// How many of those there are (for a morph target: on that mesh).
        count: usize,
    },
    /// A name (material name, enum value) that does not match anything allowed.
    #[error("{file}: {field} = `{name}` {reason}")]
    BadName {
        /// The file.
        file: String,
        /// The JSON path of the name.
        field: String,
        /// The name given.
        name: String,
        /// What is wrong, e.g. `names no material` or `is not one of none, block, blend`.
        reason: String,
    },
    /// A number is NaN, infinite, or outside its allowed range.
    #[error("{file}: {field} = {value} is invalid: {reason}")]
    InvalidValue {
        /// The file.
        file: String,
        /// The JSON path of the number.
        field: String,
        /// The value given.
        value: f64,
        /// What it must be.
        reason: &'static str,
    },
    /// A humanoid bone the reader insists on is not mapped: a VRM 1.0 file without
    /// `head` (three-vrm refuses such a file too). Read it anyway with
    /// [`VrmReadOptions::allow_missing_head`](crate::VrmReadOptions::allow_missing_head).
    #[error(
        "{file}: {field} has no `{bone}` bone: VRM 1.0 requires it (three-vrm refuses such a file too)"
    )]
    MissingBone {
        /// The file.
        file: String,
        /// The JSON path of the bone map (`VRMC_vrm.humanoid.humanBones`).
        field: String,
        /// The VRM 1.0 name of the missing bone.
        bone: &'static str,
    },
    /// The model could not be turned into a rig (e.g. too many expressions).
    #[error("{file}: {source}")]
    Rig {
        /// The file.
        file: String,
        /// The core's reason.
        source: omote_core::rig::RigError,
    },
    /// An anim handed to the VRMA writer is not valid.
    #[error("{file}: cannot write VRMA: {source}")]
    Anim {
        /// The anim's file (or a label).
        file: String,
        /// Why the anim is invalid.
        source: omote_core::anim::AnimError,
    },
    /// Writing the glTF failed (serialisation of the JSON chunk).
    #[error("{file}: cannot write glTF: {message}")]
    Write {
        /// The output file (or a label).
        file: String,
        /// What failed.
        message: String,
    },
}

impl VrmError {
    /// Wrap an I/O error with its file.
    pub fn io(file: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            file: file.into(),
            source,
        }
    }

    /// The file this error is about.
    pub fn file(&self) -> &str {
        match self {
            Self::Io { file, .. }
            | Self::NotGlb { file, .. }
            | Self::GlbVersion { file, .. }
            | Self::Truncated { file, .. }
            | Self::BadChunk { file, .. }
            | Self::Json { file, .. }
            | Self::NoVrmExtension { file }
            | Self::IsVrma { file }
            | Self::SpecVersion { file, .. }
            | Self::BadReference { file, .. }
            | Self::BadName { file, .. }
            | Self::InvalidValue { file, .. }
            | Self::MissingBone { file, .. }
            | Self::Rig { file, .. }
            | Self::Anim { file, .. }
            | Self::Write { file, .. } => file,
        }
    }
}

/// What a file that is not a GLB holds at its start, for [`VrmError::NotGlb`].
fn what_it_starts_with(magic: &str) -> String {
    if magic.is_empty() {
        "it is empty (0 bytes)".to_string()
    } else {
        format!("it starts with {magic:?}, expected \"glTF\"")
    }
}
