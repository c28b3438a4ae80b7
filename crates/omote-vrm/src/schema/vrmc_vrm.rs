//! `extensions.VRMC_vrm` (VRM 1.0): the parts omote reads.
//! Field names and optionality follow `specification/VRMC_vrm-1.0/schema/*.schema.json`.

use serde::{Deserialize, Serialize};

use super::OrderedMap;

/// `VRMC_vrm`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Vrm {
    /// Must be `"1.0"` (three-vrm also accepts `"1.0-beta"`).
    pub spec_version: String,
    /// Licence and authorship (required).
    pub meta: Meta,
    /// Humanoid bone → node (required).
    pub humanoid: Humanoid,
    /// Gaze settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_at: Option<LookAt>,
    /// Expressions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expressions: Option<Expressions>,
}

/// `VRMC_vrm.meta`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Meta {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub authors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copyright_information: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_information: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub third_party_licenses: Option<String>,
    pub license_url: String,
    /// `onlyAuthor` (default) | `onlySeparatelyLicensedPerson` | `everyone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar_permission: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_excessively_violent_usage: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_excessively_sexual_usage: Option<bool>,
    /// `personalNonProfit` (default) | `personalProfit` | `corporation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commercial_usage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_political_or_religious_usage: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_antisocial_or_hate_usage: Option<bool>,
    /// `required` (default) | `unnecessary`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit_notation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_redistribution: Option<bool>,
    /// `prohibited` (default) | `allowModification` | `allowModificationRedistribution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modification: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_license_url: Option<String>,
}

/// `VRMC_vrm.humanoid`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Humanoid {
    /// Bone name (`hips`, `head`, …) → node, in file order.
    pub human_bones: OrderedMap<HumanBone>,
}

/// `VRMC_vrm.humanoid.humanBones.<name>`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct HumanBone {
    /// glTF node index.
    pub node: usize,
}

/// `VRMC_vrm.lookAt`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookAt {
    /// Eye position from the head bone, metres (default `[0, 0.06, 0]` in three-vrm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_from_head_bone: Option<[f32; 3]>,
    /// `bone` | `expression` (absent: bone).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[allow(missing_docs)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_map_horizontal_inner: Option<RangeMap>,
    #[allow(missing_docs)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_map_horizontal_outer: Option<RangeMap>,
    #[allow(missing_docs)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_map_vertical_down: Option<RangeMap>,
    #[allow(missing_docs)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_map_vertical_up: Option<RangeMap>,
}

/// `VRMC_vrm.lookAt.rangeMap*`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RangeMap {
    /// Degrees (default 90).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_max_value: Option<f32>,
    /// Degrees (bone) or weight (expression); default 10 / 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_scale: Option<f32>,
}

/// `VRMC_vrm.expressions`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Expressions {
    /// Preset name → expression, in file order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<OrderedMap<Expression>>,
    /// Custom name → expression, in file order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<OrderedMap<Expression>>,
}

/// `VRMC_vrm.expressions.expression`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Expression {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub morph_target_binds: Vec<MorphTargetBind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub material_color_binds: Vec<MaterialColorBind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texture_transform_binds: Vec<TextureTransformBind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_binary: Option<bool>,
    /// `none` | `block` | `blend`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_blink: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_look_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_mouth: Option<String>,
}

/// `VRMC_vrm.expressions.expression.morphTargetBind`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct MorphTargetBind {
    /// Node whose mesh has the morph target.
    pub node: usize,
    /// Morph target index in that mesh.
    pub index: usize,
    /// Weight at expression weight 1.
    pub weight: f32,
}

/// `VRMC_vrm.expressions.expression.materialColorBind`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialColorBind {
    /// Material index.
    pub material: usize,
    /// `color` | `emissionColor` | `shadeColor` | `matcapColor` | `rimColor` | `outlineColor`.
    #[serde(rename = "type")]
    pub kind: String,
    /// RGBA at expression weight 1.
    pub target_value: [f32; 4],
}

/// `VRMC_vrm.expressions.expression.textureTransformBind`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct TextureTransformBind {
    /// Material index.
    pub material: usize,
    /// UV scale (default `[1, 1]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f32; 2]>,
    /// UV offset (default `[0, 0]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<[f32; 2]>,
}
