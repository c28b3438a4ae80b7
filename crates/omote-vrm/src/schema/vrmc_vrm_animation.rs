//! `extensions.VRMC_vrm_animation` (VRMA 1.0), as written by [`crate::write_vrma`].
//! Field names follow `specification/VRMC_vrm_animation-1.0/schema/*.schema.json`.

use serde::{Deserialize, Serialize};

use super::OrderedMap;

/// `VRMC_vrm_animation`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VrmAnimation {
    /// Always `"1.0"`.
    pub spec_version: String,
    /// Humanoid bone → node (every bone required by VRMC_vrm; never the eyes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub humanoid: Option<Humanoid>,
    /// Expression → node; the node's translation x is the weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expressions: Option<Expressions>,
    /// The gaze node; its rotation is the gaze direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_at: Option<LookAt>,
}

/// `VRMC_vrm_animation.humanoid`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Humanoid {
    /// Bone name → node.
    pub human_bones: OrderedMap<NodeRef>,
}

/// `{ "node": N }`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct NodeRef {
    /// glTF node index.
    pub node: usize,
}

/// `VRMC_vrm_animation.expressions`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Expressions {
    /// Preset name → node (never lookUp/Down/Left/Right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<OrderedMap<NodeRef>>,
    /// Custom name → node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<OrderedMap<NodeRef>>,
}

/// `VRMC_vrm_animation.lookAt`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookAt {
    /// The gaze node.
    pub node: usize,
    /// Eye position from the head bone, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_from_head_bone: Option<[f32; 3]>,
}
