//! What `omote inspect` prints: a summary of a [`VrmModel`] as JSON or text. The JSON
//! shape is documented field by field in the crate README.

use std::fmt::Write as _;

use omote_core::rig::LookAtDesc;
use serde::Serialize;

use crate::humanoid::HumanBone;
use crate::meta::{License, Meta};
use crate::model::VrmModel;

/// The inspect summary (serialise it with serde_json for `--json`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectReport<'a> {
    /// `"1.0"` or `"0.x"`.
    pub version: &'static str,
    /// The extension's `specVersion` as written.
    pub spec_version: &'a str,
    /// Name, authors, licence fields (in the file's version's vocabulary).
    pub meta: &'a Meta,
    /// Every expression, in model order.
    pub expressions: Vec<ExpressionSummary<'a>>,
    /// Gaze settings (`null` when the file has none).
    pub look_at: Option<&'a LookAtDesc>,
    /// All humanoid bones, VRM 1.0 names, in file order.
    pub human_bones: Vec<&'static str>,
    /// The face bones with node and rest pose.
    pub face_bones: FaceBonesSummary,
    /// What the reader skipped.
    pub warnings: &'a [String],
}

/// One expression in the summary.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ExpressionSummary<'a> {
    pub name: &'a str,
    /// Whether the name is one of the 18 presets.
    pub preset: bool,
    pub is_binary: bool,
    pub override_blink: &'static str,
    pub override_look_at: &'static str,
    pub override_mouth: &'static str,
    pub morph_target_binds: usize,
    pub material_color_binds: usize,
    pub texture_transform_binds: usize,
    /// How far its own shapes close the eyes, against the blink (0–1).
    pub eye_closure: f32,
}

/// The face bones (absent bones are `null`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct FaceBonesSummary {
    pub head: Option<HumanBone>,
    pub neck: Option<HumanBone>,
    pub left_eye: Option<HumanBone>,
    pub right_eye: Option<HumanBone>,
    pub jaw: Option<HumanBone>,
}

impl<'a> InspectReport<'a> {
    /// Summarise a model.
    pub fn new(m: &'a VrmModel) -> Self {
        let f = m.humanoid.face_bones();
        Self {
            version: m.version.name(),
            spec_version: &m.spec_version,
            meta: &m.meta,
            expressions: m
                .expressions
                .iter()
                .map(|e| ExpressionSummary {
                    name: &e.name,
                    preset: e.preset.is_some(),
                    is_binary: e.is_binary,
                    override_blink: e.override_blink.name(),
                    override_look_at: e.override_look_at.name(),
                    override_mouth: e.override_mouth.name(),
                    morph_target_binds: e.morph_target_binds.len(),
                    material_color_binds: e.material_color_binds.len(),
                    texture_transform_binds: e.texture_transform_binds.len(),
                    eye_closure: e.eye_closure,
                })
                .collect(),
            look_at: m.look_at.as_ref(),
            human_bones: m.humanoid.bones.iter().map(|b| b.name).collect(),
            face_bones: FaceBonesSummary {
                head: f.head,
                neck: f.neck,
                left_eye: f.left_eye,
                right_eye: f.right_eye,
                jaw: f.jaw,
            },
            warnings: &m.warnings,
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A human-readable report.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let m = self.meta;
        let _ = writeln!(
            s,
            "VRM {} (specVersion {})",
            self.version, self.spec_version
        );
        // Every name from the file is echoed (escaped, capped): one short line each.
        let echo = omote_fs::echo;
        let _ = writeln!(s, "name:    {}", echo(&m.name));
        let authors: Vec<String> = m.authors.iter().take(20).map(|a| echo(a)).collect();
        let more = m.authors.len().saturating_sub(authors.len());
        let _ = write!(s, "authors: {}", authors.join(", "));
        let _ = if more > 0 {
            writeln!(s, " … ({more} more)")
        } else {
            writeln!(s)
        };
        if let Some(v) = &m.version {
            let _ = writeln!(s, "version: {}", echo(v));
        }
        match &m.license {
            License::Vrm1(l) => {
                let _ = writeln!(s, "licence: {}", echo(&l.license_url));
                let _ = writeln!(
                    s,
                    "  avatarPermission {}, commercialUsage {}, creditNotation {}, allowRedistribution {}, modification {}",
                    l.avatar_permission,
                    l.commercial_usage,
                    l.credit_notation,
                    l.allow_redistribution,
                    l.modification
                );
            }
            License::Vrm0(l) => {
                let o = |v: &Option<String>| v.as_deref().map_or_else(|| "-".into(), echo);
                let _ = writeln!(s, "licence: {}", o(&l.license_name));
                let _ = writeln!(
                    s,
                    "  allowedUserName {}, commercialUssageName {}, violentUssageName {}, sexualUssageName {}",
                    o(&l.allowed_user_name),
                    o(&l.commercial_ussage_name),
                    o(&l.violent_ussage_name),
                    o(&l.sexual_ussage_name)
                );
            }
        }
        let _ = writeln!(s, "\nexpressions ({}):", self.expressions.len());
        let _ = writeln!(
            s,
            "  {:<24} {:<7} {:<6} {:<6} {:<7} {:<6} {:>5} {:>5} {:>5} {:>5}",
            "name", "kind", "binary", "blink", "lookAt", "mouth", "morph", "color", "uv", "eyes"
        );
        for e in &self.expressions {
            let _ = writeln!(
                s,
                "  {:<24} {:<7} {:<6} {:<6} {:<7} {:<6} {:>5} {:>5} {:>5} {:>5.2}",
                echo(e.name),
                if e.preset { "preset" } else { "custom" },
                e.is_binary,
                e.override_blink,
                e.override_look_at,
                e.override_mouth,
                e.morph_target_binds,
                e.material_color_binds,
                e.texture_transform_binds,
                e.eye_closure
            );
        }
        match self.look_at {
            None => {
                let _ = writeln!(s, "\nlookAt: none");
            }
            Some(l) => {
                let o = l.offset_from_head_bone;
                let _ = writeln!(
                    s,
                    "\nlookAt: {}, offsetFromHeadBone [{}, {}, {}]",
                    l.kind.name(),
                    o[0],
                    o[1],
                    o[2]
                );
                for (name, m) in l.range_maps() {
                    let _ = writeln!(
                        s,
                        "  {name:<24} {} -> {}",
                        m.input_max_value, m.output_scale
                    );
                }
            }
        }
        let _ = writeln!(s, "\nface bones:");
        let fb = &self.face_bones;
        for (name, b) in [
            ("head", fb.head),
            ("neck", fb.neck),
            ("leftEye", fb.left_eye),
            ("rightEye", fb.right_eye),
            ("jaw", fb.jaw),
        ] {
            match b {
                Some(b) => {
                    let r = b.rest_rotation;
                    let _ = writeln!(
                        s,
                        "  {name:<9} node {:<4} rest rotation [{:.4}, {:.4}, {:.4}, {:.4}]",
                        b.node, r[0], r[1], r[2], r[3]
                    );
                }
                None => {
                    let _ = writeln!(s, "  {name:<9} -");
                }
            }
        }
        let _ = writeln!(s, "humanoid: {} bones", self.human_bones.len());
        for w in self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }
}
