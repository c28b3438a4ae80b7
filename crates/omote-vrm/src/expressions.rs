//! Expressions: names (VRM 0.x names normalised to 1.0), override settings, and what each
//! one drives (morph targets, material colours, texture transforms).

use omote_core::{
    ExpressionPreset,
    rig::{ExpressionDesc, OverrideMode},
};
use serde::Serialize;

use crate::document::Document;
use crate::error::VrmError;
use crate::schema::{OrderedMap, vrm0, vrmc_vrm};

/// One expression of a model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expression {
    /// VRM 1.0 name (`happy`, `blinkLeft`, or a custom name).
    pub name: String,
    /// The preset, if the name is one of the 18.
    pub preset: Option<ExpressionPreset>,
    /// Output is rounded (> 0.5 → 1).
    pub is_binary: bool,
    /// Effect on blink expressions.
    pub override_blink: OverrideMode,
    /// Effect on gaze.
    pub override_look_at: OverrideMode,
    /// Effect on mouth expressions.
    pub override_mouth: OverrideMode,
    /// Morph targets driven.
    pub morph_target_binds: Vec<MorphTargetBind>,
    /// Material colours driven.
    pub material_color_binds: Vec<MaterialColorBind>,
    /// Texture offsets/scales driven.
    pub texture_transform_binds: Vec<TextureTransformBind>,
    /// How far its own morph targets close the eyes, against the model's blink (0–1;
    /// 0 for the blinks themselves and on a model with no blink shapes): the automatic
    /// blink adds only what it leaves open.
    pub eye_closure: f32,
}

/// A morph target an expression drives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MorphTargetBind {
    /// The node (VRM 1.0 binds name nodes; `None` for 0.x, which names meshes).
    pub node: Option<usize>,
    /// The mesh.
    pub mesh: usize,
    /// Morph target index in the mesh.
    pub index: usize,
    /// Morph weight at expression weight 1, 0..1 (0.x's 0–100 is scaled by 0.01).
    pub weight: f32,
}

/// Which material colour a [`MaterialColorBind`] drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub enum MaterialColorType {
    Color,
    EmissionColor,
    ShadeColor,
    MatcapColor,
    RimColor,
    OutlineColor,
}

impl MaterialColorType {
    /// All types with their VRM 1.0 names.
    pub const ALL: [(Self, &'static str); 6] = [
        (Self::Color, "color"),
        (Self::EmissionColor, "emissionColor"),
        (Self::ShadeColor, "shadeColor"),
        (Self::MatcapColor, "matcapColor"),
        (Self::RimColor, "rimColor"),
        (Self::OutlineColor, "outlineColor"),
    ];

    /// From the VRM 1.0 name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    /// From a VRM 0.x (MToon / Unity) shader property, as three-vrm maps them.
    pub fn from_v0_property(property: &str) -> Option<Self> {
        Some(match property {
            "_Color" => Self::Color,
            "_EmissionColor" => Self::EmissionColor,
            "_ShadeColor" => Self::ShadeColor,
            "_RimColor" => Self::RimColor,
            "_OutlineColor" => Self::OutlineColor,
            _ => return None,
        })
    }
}

/// A material colour an expression drives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialColorBind {
    /// Material index.
    pub material: usize,
    /// Which colour.
    #[serde(rename = "type")]
    pub kind: MaterialColorType,
    /// RGBA at expression weight 1.
    pub target_value: [f32; 4],
}

/// A texture transform (KHR_texture_transform) an expression drives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextureTransformBind {
    /// Material index.
    pub material: usize,
    /// UV scale at expression weight 1.
    pub scale: [f32; 2],
    /// UV offset at expression weight 1.
    pub offset: [f32; 2],
}

impl Expression {
    /// A plain expression with no binds.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            preset: ExpressionPreset::from_name(&name),
            name,
            is_binary: false,
            override_blink: OverrideMode::None,
            override_look_at: OverrideMode::None,
            override_mouth: OverrideMode::None,
            morph_target_binds: Vec::new(),
            material_color_binds: Vec::new(),
            texture_transform_binds: Vec::new(),
            eye_closure: 0.0,
        }
    }

    /// The core's description of this expression (settings and eye closure, no binds).
    pub fn to_desc(&self) -> ExpressionDesc {
        ExpressionDesc::new(self.name.clone())
            .eye_closure(self.eye_closure)
            .binary(self.is_binary)
            .overrides(
                self.override_blink,
                self.override_look_at,
                self.override_mouth,
            )
    }
}

/// The VRM 1.0 preset name of a VRM 0.x `presetName` (`None` for `unknown` and anything
/// not in the 0.x list).
pub fn preset_from_v0(preset_name: &str) -> Option<ExpressionPreset> {
    use ExpressionPreset as P;
    Some(match preset_name {
        "neutral" => P::Neutral,
        "a" => P::Aa,
        "i" => P::Ih,
        "u" => P::Ou,
        "e" => P::Ee,
        "o" => P::Oh,
        "blink" => P::Blink,
        "joy" => P::Happy,
        "angry" => P::Angry,
        "sorrow" => P::Sad,
        "fun" => P::Relaxed,
        "lookup" => P::LookUp,
        "lookdown" => P::LookDown,
        "lookleft" => P::LookLeft,
        "lookright" => P::LookRight,
        "blink_l" => P::BlinkLeft,
        "blink_r" => P::BlinkRight,
        _ => return None,
    })
}

fn override_mode(
    doc: &Document,
    field: String,
    v: &Option<String>,
) -> Result<OverrideMode, VrmError> {
    match v.as_deref() {
        None | Some("none") => Ok(OverrideMode::None),
        Some("block") => Ok(OverrideMode::Block),
        Some("blend") => Ok(OverrideMode::Blend),
        Some(other) => Err(doc.bad_name(field, other, "is not one of none, block, blend".into())),
    }
}

/// Read `VRMC_vrm.expressions`: presets first, then customs, each in file order. Unknown
/// preset names and custom expressions that use a preset name are skipped with a warning
/// (as three-vrm does).
pub(crate) fn from_v1(
    doc: &Document,
    schema: Option<&vrmc_vrm::Expressions>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Expression>, VrmError> {
    let mut out = Vec::new();
    let Some(schema) = schema else {
        return Ok(out);
    };
    let empty = OrderedMap::default();
    for (group, map) in [
        ("preset", schema.preset.as_ref().unwrap_or(&empty)),
        ("custom", schema.custom.as_ref().unwrap_or(&empty)),
    ] {
        for (name, e) in map.iter() {
            let base = format!("VRMC_vrm.expressions.{group}.{name}");
            let preset = ExpressionPreset::from_name(name);
            if group == "preset" && preset.is_none() {
                warnings.push(format!("{base}: unknown preset name, expression ignored"));
                continue;
            }
            if group == "custom" && preset.is_some() {
                warnings.push(format!(
                    "{base}: a custom expression may not use a preset name, ignored"
                ));
                continue;
            }
            if name.is_empty() {
                warnings.push(format!("{base}: empty custom name, expression ignored"));
                continue;
            }
            out.push(expression_v1(doc, &base, name, e)?);
        }
    }
    Ok(out)
}

fn expression_v1(
    doc: &Document,
    base: &str,
    name: &str,
    e: &vrmc_vrm::Expression,
) -> Result<Expression, VrmError> {
    let mut x = Expression::new(name);
    x.is_binary = e.is_binary.unwrap_or(false);
    x.override_blink = override_mode(doc, format!("{base}.overrideBlink"), &e.override_blink)?;
    x.override_look_at = override_mode(doc, format!("{base}.overrideLookAt"), &e.override_look_at)?;
    x.override_mouth = override_mode(doc, format!("{base}.overrideMouth"), &e.override_mouth)?;
    for (i, b) in e.morph_target_binds.iter().enumerate() {
        let f = format!("{base}.morphTargetBinds[{i}]");
        let mesh = doc.mesh_of_node(&format!("{f}.node"), b.node)?;
        doc.morph_target(&format!("{f}.index"), mesh, b.index)?;
        doc.finite(&format!("{f}.weight"), &[b.weight])?;
        x.morph_target_binds.push(MorphTargetBind {
            node: Some(b.node),
            mesh,
            index: b.index,
            weight: b.weight,
        });
    }
    for (i, b) in e.material_color_binds.iter().enumerate() {
        let f = format!("{base}.materialColorBinds[{i}]");
        doc.material(&format!("{f}.material"), b.material)?;
        let kind = MaterialColorType::from_name(&b.kind).ok_or_else(|| {
            doc.bad_name(
                format!("{f}.type"),
                &b.kind,
                "is not one of color, emissionColor, shadeColor, matcapColor, rimColor, outlineColor".into(),
            )
        })?;
        doc.finite(&format!("{f}.targetValue"), &b.target_value)?;
        x.material_color_binds.push(MaterialColorBind {
            material: b.material,
            kind,
            target_value: b.target_value,
        });
    }
    for (i, b) in e.texture_transform_binds.iter().enumerate() {
        let f = format!("{base}.textureTransformBinds[{i}]");
        doc.material(&format!("{f}.material"), b.material)?;
        let scale = b.scale.unwrap_or([1.0, 1.0]);
        let offset = b.offset.unwrap_or([0.0, 0.0]);
        doc.finite(&format!("{f}.scale"), &scale)?;
        doc.finite(&format!("{f}.offset"), &offset)?;
        x.texture_transform_binds.push(TextureTransformBind {
            material: b.material,
            scale,
            offset,
        });
    }
    Ok(x)
}

/// Read `VRM.blendShapeMaster` (0.x): preset names mapped to 1.0 (`unknown` and other
/// names keep the group's `name`), bind weights ×0.01, `materialValues` split into
/// colour and `_MainTex_ST` texture-transform binds. Nameless and duplicate groups are
/// skipped with a warning (as three-vrm does).
pub(crate) fn from_v0(
    doc: &Document,
    schema: Option<&vrm0::BlendShapeMaster>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Expression>, VrmError> {
    let mut out: Vec<Expression> = Vec::new();
    let Some(schema) = schema else {
        return Ok(out);
    };
    for (gi, g) in schema.blend_shape_groups.iter().enumerate() {
        let base = format!("VRM.blendShapeMaster.blendShapeGroups[{gi}]");
        let preset = g.preset_name.as_deref().and_then(preset_from_v0);
        let name = match (preset, &g.name) {
            (Some(p), _) => p.name().to_string(),
            (None, Some(n)) if !n.is_empty() => n.clone(),
            _ => {
                warnings.push(format!("{base}: no preset and no name, group ignored"));
                continue;
            }
        };
        if out.iter().any(|e| e.name == name) {
            warnings.push(format!("{base}: `{name}` appears twice, group ignored"));
            continue;
        }
        let mut x = Expression::new(name);
        x.is_binary = g.is_binary.unwrap_or(false);
        for (i, b) in g.binds.iter().enumerate() {
            let f = format!("{base}.binds[{i}]");
            let (Some(mesh), Some(index)) = (b.mesh, b.index) else {
                warnings.push(format!("{f}: no mesh or index, bind ignored"));
                continue;
            };
            doc.mesh(&format!("{f}.mesh"), mesh)?;
            doc.morph_target(&format!("{f}.index"), mesh, index)?;
            let w = b.weight.unwrap_or(100.0);
            doc.finite(&format!("{f}.weight"), &[w])?;
            x.morph_target_binds.push(MorphTargetBind {
                node: None,
                mesh,
                index,
                weight: w * 0.01,
            });
        }
        for (i, m) in g.material_values.iter().enumerate() {
            let f = format!("{base}.materialValues[{i}]");
            let (Some(material_name), Some(property), Some(value)) =
                (&m.material_name, &m.property_name, &m.target_value)
            else {
                warnings.push(format!(
                    "{f}: materialName, propertyName or targetValue missing, ignored"
                ));
                continue;
            };
            doc.finite(&format!("{f}.targetValue"), value)?;
            let materials = doc.materials_named(material_name);
            if materials.is_empty() {
                return Err(doc.bad_name(
                    format!("{f}.materialName"),
                    material_name,
                    format!("names no material ({} materials)", doc.root.materials.len()),
                ));
            }
            if property == "_MainTex_ST" {
                let [sx, sy, ox, oy] = match value.as_slice() {
                    [a, b, c, d, ..] => [*a, *b, *c, *d],
                    _ => {
                        warnings.push(format!(
                            "{f}.targetValue: _MainTex_ST needs 4 numbers, ignored"
                        ));
                        continue;
                    }
                };
                for material in materials {
                    x.texture_transform_binds.push(TextureTransformBind {
                        material,
                        scale: [sx, sy],
                        offset: [ox, oy],
                    });
                }
            } else if let Some(kind) = MaterialColorType::from_v0_property(property) {
                let mut target_value = [0.0, 0.0, 0.0, 1.0];
                for (t, v) in target_value.iter_mut().zip(value) {
                    *t = *v;
                }
                for material in materials {
                    x.material_color_binds.push(MaterialColorBind {
                        material,
                        kind,
                        target_value,
                    });
                }
            } else {
                warnings.push(format!(
                    "{f}.propertyName `{property}` has no VRM 1.0 equivalent, ignored"
                ));
            }
        }
        out.push(x);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v0_presets_map_to_v1() {
        for (v0, v1) in [
            ("a", "aa"),
            ("i", "ih"),
            ("u", "ou"),
            ("e", "ee"),
            ("o", "oh"),
            ("joy", "happy"),
            ("sorrow", "sad"),
            ("fun", "relaxed"),
            ("blink_l", "blinkLeft"),
            ("blink_r", "blinkRight"),
            ("lookup", "lookUp"),
            ("lookright", "lookRight"),
            ("angry", "angry"),
            ("neutral", "neutral"),
        ] {
            assert_eq!(preset_from_v0(v0).map(|p| p.name()), Some(v1), "{v0}");
        }
        assert_eq!(preset_from_v0("unknown"), None);
        assert_eq!(preset_from_v0("surprised"), None);
        assert_eq!(
            MaterialColorType::from_name("rimColor"),
            Some(MaterialColorType::RimColor)
        );
        assert_eq!(MaterialColorType::from_v0_property("_MainTex_ST"), None);
    }
}
