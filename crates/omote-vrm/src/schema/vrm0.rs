//! `extensions.VRM` (VRM 0.x): the parts omote reads.
//! Field names follow `specification/0.0/schema/vrm.*.schema.json` (including the
//! original spellings such as `commercialUssageName`).

use serde::{Deserialize, Serialize};

/// `VRM`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Vrm {
    /// E.g. `"0.0"`.
    #[serde(default)]
    pub spec_version: Option<String>,
    /// Licence and authorship.
    #[serde(default)]
    pub meta: Option<Meta>,
    /// Humanoid bones.
    #[serde(default)]
    pub humanoid: Option<Humanoid>,
    /// First person and lookAt settings.
    #[serde(default)]
    pub first_person: Option<FirstPerson>,
    /// Expressions ("blend shape groups").
    #[serde(default)]
    pub blend_shape_master: Option<BlendShapeMaster>,
}

/// `VRM.meta` (every field optional in 0.x).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Meta {
    pub title: Option<String>,
    pub version: Option<String>,
    pub author: Option<String>,
    pub contact_information: Option<String>,
    pub reference: Option<String>,
    /// `OnlyAuthor` | `ExplicitlyLicensedPerson` | `Everyone`.
    pub allowed_user_name: Option<String>,
    /// `Disallow` | `Allow`.
    pub violent_ussage_name: Option<String>,
    pub sexual_ussage_name: Option<String>,
    pub commercial_ussage_name: Option<String>,
    pub other_permission_url: Option<String>,
    /// `Redistribution_Prohibited` | `CC0` | `CC_BY` | … | `Other`.
    pub license_name: Option<String>,
    pub other_license_url: Option<String>,
}

/// `VRM.humanoid`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Humanoid {
    /// The bones, in file order.
    #[serde(default)]
    pub human_bones: Vec<HumanBone>,
}

/// `VRM.humanoid.humanBones[]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct HumanBone {
    /// 0.x bone name (`hips`, `leftThumbIntermediate`, …).
    pub bone: Option<String>,
    /// glTF node index.
    pub node: Option<usize>,
}

/// `VRM.firstPerson`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct FirstPerson {
    pub first_person_bone_offset: Option<Vec3>,
    /// `Bone` | `BlendShape`.
    pub look_at_type_name: Option<String>,
    pub look_at_horizontal_inner: Option<DegreeMap>,
    pub look_at_horizontal_outer: Option<DegreeMap>,
    pub look_at_vertical_down: Option<DegreeMap>,
    pub look_at_vertical_up: Option<DegreeMap>,
}

/// `{x, y, z}` (0.x writes vectors as objects).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[allow(missing_docs)]
pub struct Vec3 {
    pub x: Option<f32>,
    pub y: Option<f32>,
    pub z: Option<f32>,
}

/// `VRM.firstPerson.lookAt*` degree map.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DegreeMap {
    /// A Unity AnimationCurve, dropped (VRM 1.0 has none; three-vrm ignores it too).
    pub curve: Option<Vec<f32>>,
    /// Input maximum, degrees (→ `inputMaxValue`; default 90).
    pub x_range: Option<f32>,
    /// Output at the maximum (→ `outputScale`; default 10 for Bone, 1 for BlendShape).
    pub y_range: Option<f32>,
}

/// `VRM.blendShapeMaster`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlendShapeMaster {
    /// The groups (expressions), in file order.
    #[serde(default)]
    pub blend_shape_groups: Vec<BlendShapeGroup>,
}

/// `VRM.blendShapeMaster.blendShapeGroups[]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct BlendShapeGroup {
    pub name: Option<String>,
    /// 0.x preset (`a`, `joy`, `blink_l`, `unknown`, …).
    pub preset_name: Option<String>,
    #[serde(default)]
    pub binds: Vec<Bind>,
    #[serde(default)]
    pub material_values: Vec<MaterialValue>,
    pub is_binary: Option<bool>,
}

/// `VRM.blendShapeMaster.blendShapeGroups[].binds[]`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub struct Bind {
    /// Mesh index (0.x binds name meshes, not nodes).
    pub mesh: Option<usize>,
    /// Morph target index.
    pub index: Option<usize>,
    /// 0–100 (default 100).
    pub weight: Option<f32>,
}

/// `VRM.blendShapeMaster.blendShapeGroups[].materialValues[]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialValue {
    /// Material, by name.
    pub material_name: Option<String>,
    /// Unity shader property (`_Color`, `_MainTex_ST`, …).
    pub property_name: Option<String>,
    /// Four numbers.
    pub target_value: Option<Vec<f32>>,
}
