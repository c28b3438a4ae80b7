//! The generated test avatar: a small VRM 1.0 model that exercises everything omote
//! drives. A humanoid skeleton (the 15 required bones plus chest, neck and eyes, see
//! [`crate::skeleton`]); a stylised head whose morph targets implement the 18 presets
//! and the 52 ARKit shapes (lids that close over the eyes, a mouth that opens into five
//! vowel shapes, brows, cheeks, nose, tongue); eyeballs on the eye bones; lookAt of type
//! bone; CC0 licence meta that allows redistribution (it is omote's own work).
//!
//! ```
//! let bytes = omote_vrm::avatar::generate();
//! let model = omote_vrm::VrmModel::from_slice(&bytes, "avatar.vrm").unwrap();
//! assert_eq!(model.expressions.len(), 18 + 52);
//! ```

pub mod face;
mod large;
pub mod shapes;

use std::f32::consts::{PI, TAU};

use glam::{Quat, Vec3};
use gltf_json::buffer::Target;
use gltf_json::material::{AlphaMode, PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor};
use gltf_json::mesh::{Mode, MorphTarget, Primitive, Semantic};
use gltf_json::validation::Checked;
use gltf_json::{Index, Material, Mesh, Node};
use omote_core::{
    ExpressionPreset,
    rig::{LookAtDesc, LookAtRangeMap, LookAtType},
    tracking::ARKIT_52,
};
use serde_json::{Map, json};

use crate::gltf_writer::{GltfBuilder, named_node};
use crate::model::VrmModel;
use crate::schema::{OrderedMap, vrmc_vrm};
use crate::skeleton::{EYE_OFFSET, HEAD, LEFT_EYE, RIGHT_EYE, SKELETON};
use face::EYE_RADIUS;
use shapes::{Bind, EYE_TARGETS, EyeLook};

pub use large::generate_large;

/// The avatar's display name.
pub const NAME: &str = "omote test face";

/// The avatar's gaze settings: bone gaze, eyes between the eye bones.
pub const LOOK_AT: LookAtDesc = LookAtDesc {
    kind: LookAtType::Bone,
    offset_from_head_bone: [0.0, EYE_OFFSET[1], EYE_OFFSET[2]],
    range_map_horizontal_inner: LookAtRangeMap::new(90.0, 12.0),
    range_map_horizontal_outer: LookAtRangeMap::new(90.0, 15.0),
    range_map_vertical_down: LookAtRangeMap::new(90.0, 10.0),
    range_map_vertical_up: LookAtRangeMap::new(90.0, 12.0),
};

/// Materials, in index order: name and base colour.
const MATERIALS: [(&str, [f32; 4]); 8] = [
    ("skin", [1.0, 0.84, 0.74, 1.0]),
    ("lips", [0.86, 0.42, 0.45, 1.0]),
    ("mouth", [0.28, 0.05, 0.09, 1.0]),
    ("tongue", [0.93, 0.48, 0.55, 1.0]),
    ("brows", [0.2, 0.13, 0.12, 1.0]),
    ("hair", [0.27, 0.2, 0.38, 1.0]),
    ("eye", [1.0, 1.0, 1.0, 1.0]),
    ("clothes", [0.28, 0.44, 0.72, 1.0]),
];
const SKIN: usize = 0;
const HAIR: usize = 5;
const EYE: usize = 6;
const CLOTHES: usize = 7;

/// How a generated avatar looks: its name and the colours that tell two apart. The
/// geometry, shapes and rig are the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvatarStyle {
    /// Display name (VRM meta name).
    pub name: &'static str,
    /// Hair colour (linear RGBA).
    pub hair: [f32; 4],
    /// Clothes colour.
    pub clothes: [f32; 4],
}

impl AvatarStyle {
    /// The test avatar: violet hair, blue clothes.
    pub const DEFAULT: Self = Self {
        name: NAME,
        hair: MATERIALS[HAIR].1,
        clothes: MATERIALS[CLOTHES].1,
    };
    /// A second character for scenes: red hair, green clothes.
    pub const SECOND: Self = Self {
        name: "omote test face (second)",
        hair: [0.62, 0.12, 0.1, 1.0],
        clothes: [0.2, 0.5, 0.3, 1.0],
    };
}

/// Generate the avatar as `.vrm` bytes (deterministic: the same bytes every time).
pub fn generate() -> Vec<u8> {
    generate_styled(&AvatarStyle::DEFAULT)
}

/// Generate the avatar in another style (deterministic).
///
/// ```
/// use omote_vrm::avatar::{AvatarStyle, generate_styled};
/// let bytes = generate_styled(&AvatarStyle::SECOND);
/// let model = omote_vrm::VrmModel::from_slice(&bytes, "second.vrm").unwrap();
/// assert_eq!(model.meta.name, AvatarStyle::SECOND.name);
/// ```
pub fn generate_styled(style: &AvatarStyle) -> Vec<u8> {
    build(style).expect("the built-in avatar always serialises")
}

/// The generated avatar, read back as a model.
pub fn model() -> VrmModel {
    VrmModel::from_slice(&generate(), "omote-avatar.vrm").expect("the built-in avatar is valid")
}

/// The avatar's rig: [`model`]'s rig with each expression's `eyeClosure` taken from its
/// shape (how far its upper lids come down), so blinks add only what is left.
pub fn rig() -> omote_core::Rig {
    rig_of(&model())
}

/// [`rig`] for a generated avatar already read (any [`AvatarStyle`]: the styles share
/// geometry and shapes).
pub fn rig_of(model: &VrmModel) -> omote_core::Rig {
    let targets = shapes::face_targets();
    let descs = model
        .expressions
        .iter()
        .map(|e| {
            let closure = shapes::preset_binds(&e.name)
                .iter()
                .filter_map(|b| match b {
                    Bind::Face(n) => targets.iter().find(|(t, _)| t == n),
                    Bind::Eye(..) => None,
                })
                .filter(|(n, _)| !n.starts_with("eyeBlink"))
                .map(|(_, p)| ((p.lid_upper[0] + p.lid_upper[1]) / 2.0).clamp(0.0, 1.0))
                .fold(0.0f32, f32::max);
            e.to_desc().eye_closure(closure)
        })
        .collect();
    omote_core::Rig::new(NAME, descs, LOOK_AT).expect("the built-in avatar's rig is valid")
}

struct Geometry {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Option<Vec<[f32; 3]>>,
    indices: Vec<u32>,
}

fn build(style: &AvatarStyle) -> Result<Vec<u8>, crate::VrmError> {
    let mut g = GltfBuilder::new("omote avatar generator");
    for (i, (name, c)) in MATERIALS.into_iter().enumerate() {
        let c = match i {
            HAIR => style.hair,
            CLOTHES => style.clothes,
            _ => c,
        };
        g.root.push(Material {
            name: Some(name.to_string()),
            pbr_metallic_roughness: PbrMetallicRoughness {
                base_color_factor: PbrBaseColorFactor(c),
                metallic_factor: StrengthFactor(0.0),
                roughness_factor: StrengthFactor(0.85),
                ..Default::default()
            },
            alpha_mode: Checked::Valid(AlphaMode::Opaque),
            double_sided: true,
            ..Default::default()
        });
    }

    // Skeleton: node i is SKELETON[i].
    let bones: Vec<Index<Node>> = SKELETON
        .iter()
        .map(|b| {
            g.node(Node {
                translation: Some(b.translation),
                ..named_node(b.name)
            })
        })
        .collect();
    for (i, b) in SKELETON.iter().enumerate() {
        if let Some(p) = b.parent {
            g.add_child(bones[p], bones[i]);
        }
    }
    g.root.push(gltf_json::Scene {
        extensions: None,
        extras: None,
        name: Some("avatar".into()),
        nodes: vec![bones[0]],
    });
    g.root.scene = Some(Index::new(0));

    // Face.
    let targets = shapes::face_targets();
    let target_names: Vec<&str> = targets.iter().map(|(n, _)| *n).collect();
    let parts = face::build([0, 1, 2, 3, 4]);
    let mut primitives = Vec::new();
    for part in &parts {
        let rest = part.rest();
        let geometry = Geometry {
            positions: rest.iter().map(|v| v.to_array()).collect(),
            normals: part.normals.iter().map(|v| v.to_array()).collect(),
            colors: None,
            indices: part.indices.clone(),
        };
        let morphs = targets
            .iter()
            .map(|(_, p)| part.offsets(p, &rest))
            .collect::<Vec<_>>();
        primitives.push(primitive(&mut g, &geometry, part.material, &morphs));
    }
    let face_mesh = mesh(&mut g, "face", primitives, &target_names);
    let face_node = g.node(Node {
        mesh: Some(face_mesh),
        ..named_node("face")
    });
    g.add_child(bones[HEAD], face_node);

    // Eyeballs on the eye bones, with four look targets each.
    let mut eye_nodes = [face_node; 2];
    for (side, bone) in [(0usize, LEFT_EYE), (1, RIGHT_EYE)] {
        let geo = eyeball();
        let morphs: Vec<_> = [EyeLook::Up, EyeLook::Down, EyeLook::In, EyeLook::Out]
            .iter()
            .map(|l| eye_offsets(&geo.positions, side, *l))
            .collect();
        let prim = primitive(&mut g, &geo, EYE, &morphs);
        let m = mesh(
            &mut g,
            if side == 0 { "eyeLeft" } else { "eyeRight" },
            vec![prim],
            &EYE_TARGETS,
        );
        let n = g.node(Node {
            mesh: Some(m),
            ..named_node(if side == 0 {
                "eyeballLeft"
            } else {
                "eyeballRight"
            })
        });
        g.add_child(bones[bone], n);
        eye_nodes[side] = n;
    }

    // Static parts: hair, neck, body, limbs.
    let hair = hair();
    let prim = primitive(&mut g, &hair, HAIR, &[]);
    let m = mesh(&mut g, "hair", vec![prim], &[]);
    let n = g.node(Node {
        mesh: Some(m),
        ..named_node("hair")
    });
    g.add_child(bones[HEAD], n);
    for (i, b) in SKELETON.iter().enumerate() {
        let (lo, hi, material) = match b.name {
            "hips" => ([-0.14, -0.08, -0.08], [0.14, 0.45, 0.08], CLOTHES),
            "neck" => ([-0.03, -0.02, -0.03], [0.03, 0.09, 0.03], SKIN),
            "leftUpperArm" => ([0.0, -0.035, -0.035], [0.26, 0.035, 0.035], CLOTHES),
            "rightUpperArm" => ([-0.26, -0.035, -0.035], [0.0, 0.035, 0.035], CLOTHES),
            "leftLowerArm" => ([0.0, -0.03, -0.03], [0.24, 0.03, 0.03], SKIN),
            "rightLowerArm" => ([-0.24, -0.03, -0.03], [0.0, 0.03, 0.03], SKIN),
            "leftHand" => ([0.0, -0.012, -0.04], [0.14, 0.012, 0.04], SKIN),
            "rightHand" => ([-0.14, -0.012, -0.04], [0.0, 0.012, 0.04], SKIN),
            "leftUpperLeg" | "rightUpperLeg" => ([-0.06, -0.41, -0.06], [0.06, 0.0, 0.06], CLOTHES),
            "leftLowerLeg" | "rightLowerLeg" => {
                ([-0.045, -0.4, -0.045], [0.045, 0.0, 0.045], CLOTHES)
            }
            "leftFoot" | "rightFoot" => ([-0.045, -0.06, -0.05], [0.045, 0.0, 0.16], CLOTHES),
            _ => continue,
        };
        let geo = cuboid(lo, hi);
        let prim = primitive(&mut g, &geo, material, &[]);
        let m = mesh(&mut g, &format!("{}Mesh", b.name), vec![prim], &[]);
        let n = g.node(Node {
            mesh: Some(m),
            ..named_node(&format!("{}Mesh", b.name))
        });
        g.add_child(bones[i], n);
    }

    let vrm = vrmc_vrm(&bones, face_node, eye_nodes, &target_names, style.name);
    let mut ext = Map::new();
    ext.insert(
        "VRMC_vrm".into(),
        serde_json::to_value(&vrm).map_err(|e| crate::VrmError::Write {
            file: "avatar".into(),
            message: e.to_string(),
        })?,
    );
    g.finish(ext, &["VRMC_vrm"], "avatar")
}

fn vrmc_vrm(
    bones: &[Index<Node>],
    face: Index<Node>,
    eyes: [Index<Node>; 2],
    targets: &[&str],
    name: &str,
) -> vrmc_vrm::Vrm {
    let bind = |b: &Bind| match b {
        Bind::Face(name) => vrmc_vrm::MorphTargetBind {
            node: face.value(),
            index: targets
                .iter()
                .position(|t| t == name)
                .expect("target exists"),
            weight: 1.0,
        },
        Bind::Eye(side, look) => vrmc_vrm::MorphTargetBind {
            node: eyes[*side].value(),
            index: *look as usize,
            weight: 1.0,
        },
    };
    let expression = |binds: Vec<Bind>| vrmc_vrm::Expression {
        morph_target_binds: binds.iter().map(bind).collect(),
        ..Default::default()
    };
    let mut preset = OrderedMap::default();
    for p in ExpressionPreset::ALL {
        let mut e = expression(shapes::preset_binds(p.name()));
        // Typical VRM settings: emotions blend out blink; surprise also the mouth.
        if matches!(
            p,
            ExpressionPreset::Happy
                | ExpressionPreset::Angry
                | ExpressionPreset::Sad
                | ExpressionPreset::Relaxed
                | ExpressionPreset::Surprised
        ) {
            e.override_blink = Some("blend".into());
        }
        if p == ExpressionPreset::Surprised {
            e.override_mouth = Some("blend".into());
        }
        preset.0.push((p.name().to_string(), e));
    }
    let mut custom = OrderedMap::default();
    for n in ARKIT_52 {
        let binds = match shapes::arkit_eye_bind(n) {
            Some(b) => vec![b],
            None => vec![Bind::Face(n)],
        };
        custom.0.push((n.to_string(), expression(binds)));
    }
    let mut human_bones = OrderedMap::default();
    for (i, b) in SKELETON.iter().enumerate() {
        human_bones.0.push((
            b.name.to_string(),
            vrmc_vrm::HumanBone {
                node: bones[i].value(),
            },
        ));
    }
    let map = |m: LookAtRangeMap| vrmc_vrm::RangeMap {
        input_max_value: Some(m.input_max_value),
        output_scale: Some(m.output_scale),
    };
    vrmc_vrm::Vrm {
        spec_version: "1.0".into(),
        meta: vrmc_vrm::Meta {
            name: name.into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
            authors: vec!["omote contributors".into()],
            copyright_information: Some(
                "Generated by omote; dedicated to the public domain (CC0 1.0)".into(),
            ),
            license_url: "https://vrm.dev/licenses/1.0/".into(),
            avatar_permission: Some("everyone".into()),
            allow_excessively_violent_usage: Some(true),
            allow_excessively_sexual_usage: Some(false),
            commercial_usage: Some("corporation".into()),
            allow_political_or_religious_usage: Some(true),
            allow_antisocial_or_hate_usage: Some(false),
            credit_notation: Some("unnecessary".into()),
            allow_redistribution: Some(true),
            modification: Some("allowModificationRedistribution".into()),
            other_license_url: Some("https://creativecommons.org/publicdomain/zero/1.0/".into()),
            ..Default::default()
        },
        humanoid: vrmc_vrm::Humanoid { human_bones },
        look_at: Some(vrmc_vrm::LookAt {
            offset_from_head_bone: Some(LOOK_AT.offset_from_head_bone),
            kind: Some("bone".into()),
            range_map_horizontal_inner: Some(map(LOOK_AT.range_map_horizontal_inner)),
            range_map_horizontal_outer: Some(map(LOOK_AT.range_map_horizontal_outer)),
            range_map_vertical_down: Some(map(LOOK_AT.range_map_vertical_down)),
            range_map_vertical_up: Some(map(LOOK_AT.range_map_vertical_up)),
        }),
        expressions: Some(vrmc_vrm::Expressions {
            preset: Some(preset),
            custom: Some(custom),
        }),
    }
}

/// A primitive with sparse morph targets `(vertices, offsets)`.
fn primitive(
    g: &mut GltfBuilder,
    geo: &Geometry,
    material: usize,
    morphs: &[(Vec<u32>, Vec<[f32; 3]>)],
) -> Primitive {
    let mut attributes = std::collections::BTreeMap::new();
    let pos = g.floats_accessor(&geo.positions, Some(Target::ArrayBuffer));
    let nrm = g.floats_accessor(&geo.normals, Some(Target::ArrayBuffer));
    attributes.insert(Checked::Valid(Semantic::Positions), pos);
    attributes.insert(Checked::Valid(Semantic::Normals), nrm);
    if let Some(c) = &geo.colors {
        let col = g.floats_accessor(c, Some(Target::ArrayBuffer));
        attributes.insert(Checked::Valid(Semantic::Colors(0)), col);
    }
    let indices = g.index_accessor(&geo.indices);
    let targets: Vec<MorphTarget> = morphs
        .iter()
        .map(|(idx, val)| MorphTarget {
            positions: Some(g.sparse_vec3_accessor(geo.positions.len(), idx, val)),
            normals: None,
            tangents: None,
        })
        .collect();
    Primitive {
        attributes,
        extensions: None,
        extras: None,
        indices: Some(indices),
        material: Some(Index::new(material as u32)),
        mode: Checked::Valid(Mode::Triangles),
        targets: if targets.is_empty() {
            None
        } else {
            Some(targets)
        },
    }
}

fn mesh(
    g: &mut GltfBuilder,
    name: &str,
    primitives: Vec<Primitive>,
    target_names: &[&str],
) -> Index<Mesh> {
    let extras = if target_names.is_empty() {
        None
    } else {
        serde_json::value::to_raw_value(&json!({ "targetNames": target_names })).ok()
    };
    g.root.push(Mesh {
        extensions: None,
        extras,
        name: Some(name.to_string()),
        primitives,
        weights: if target_names.is_empty() {
            None
        } else {
            Some(vec![0.0; target_names.len()])
        },
    })
}

/// An eyeball around the origin (the eye bone), iris and pupil facing +Z, as vertex
/// colours on rings of constant angle from +Z so their edges are crisp.
fn eyeball() -> Geometry {
    const IRIS: [f32; 3] = [0.24, 0.42, 0.72];
    const PUPIL: [f32; 3] = [0.05, 0.05, 0.08];
    const WHITE: [f32; 3] = [0.97, 0.97, 0.97];
    // (angle from +Z in degrees, colour)
    let rings: [(f32, [f32; 3]); 13] = [
        (0.0, PUPIL),
        (10.9, PUPIL),
        (11.1, IRIS),
        (18.0, IRIS),
        (25.9, IRIS),
        (26.1, WHITE),
        (40.0, WHITE),
        (60.0, WHITE),
        (85.0, WHITE),
        (110.0, WHITE),
        (140.0, WHITE),
        (165.0, WHITE),
        (180.0, WHITE),
    ];
    let n = 28usize;
    let mut geo = Geometry {
        positions: Vec::new(),
        normals: Vec::new(),
        colors: Some(Vec::new()),
        indices: Vec::new(),
    };
    for (theta, color) in rings {
        let t = theta.to_radians();
        for j in 0..=n {
            let phi = TAU * j as f32 / n as f32;
            let d = Vec3::new(t.sin() * phi.cos(), t.sin() * phi.sin(), t.cos());
            geo.positions.push((d * EYE_RADIUS).to_array());
            geo.normals.push(d.to_array());
            geo.colors.as_mut().unwrap().push(color);
        }
    }
    let w = n as u32 + 1;
    for i in 0..rings.len() as u32 - 1 {
        for j in 0..n as u32 {
            let a = i * w + j;
            geo.indices
                .extend([a, a + 1, a + w, a + 1, a + w + 1, a + w]);
        }
    }
    geo
}

/// Offsets that rotate the eyeball 25° for a look target.
fn eye_offsets(positions: &[[f32; 3]], side: usize, look: EyeLook) -> (Vec<u32>, Vec<[f32; 3]>) {
    let a = 25f32.to_radians();
    // +X is the avatar's left: the left eye looks in (toward the nose) by turning to −X.
    // Rotating about +Y by a positive angle turns +Z toward +X.
    let toward_left = Quat::from_rotation_y(a);
    let toward_right = Quat::from_rotation_y(-a);
    let q = match (look, side) {
        (EyeLook::Up, _) => Quat::from_rotation_x(-a),
        (EyeLook::Down, _) => Quat::from_rotation_x(a),
        (EyeLook::In, 0) | (EyeLook::Out, 1..) => toward_right,
        (EyeLook::Out, 0) | (EyeLook::In, _) => toward_left,
    };
    let mut idx = Vec::new();
    let mut val = Vec::new();
    for (i, p) in positions.iter().enumerate() {
        let p = Vec3::from_array(*p);
        let d = q * p - p;
        if d.length_squared() > 1e-14 {
            idx.push(i as u32);
            val.push(d.to_array());
        }
    }
    (idx, val)
}

/// A hair cap over the head: down to the brows in front, to the nape at the back.
fn hair() -> Geometry {
    let c = face::HEAD_CENTRE;
    let r = face::HEAD_RADII * Vec3::new(1.07, 1.06, 1.07);
    let (n_t, n_a) = (10usize, 48usize);
    let mut geo = Geometry {
        positions: Vec::new(),
        normals: Vec::new(),
        colors: None,
        indices: Vec::new(),
    };
    for i in 0..=n_t {
        for j in 0..=n_a {
            let az = -PI + TAU * j as f32 / n_a as f32;
            let y_min = 0.16 + (0.01 - 0.16) * (1.0 - az.cos()) / 2.0;
            let el_min = ((y_min - c.y) / r.y).clamp(-1.0, 1.0).asin();
            let t = i as f32 / n_t as f32;
            let el = PI / 2.0 + (el_min - PI / 2.0) * t;
            let d = Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos());
            let p = c + d * r;
            geo.positions.push(p.to_array());
            geo.normals
                .push(((p - c) / (r * r)).normalize_or(Vec3::Y).to_array());
        }
    }
    let w = n_a as u32 + 1;
    for i in 0..n_t as u32 {
        for j in 0..n_a as u32 {
            let a = i * w + j;
            geo.indices
                .extend([a, a + w, a + 1, a + 1, a + w, a + w + 1]);
        }
    }
    geo
}

/// An axis-aligned box.
fn cuboid(lo: [f32; 3], hi: [f32; 3]) -> Geometry {
    let (lo, hi) = (Vec3::from_array(lo), Vec3::from_array(hi));
    let mut geo = Geometry {
        positions: Vec::new(),
        normals: Vec::new(),
        colors: None,
        indices: Vec::new(),
    };
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = Vec3::ZERO;
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = geo.positions.len() as u32;
            for (a, b) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
                let mut p = Vec3::ZERO;
                p[axis] = if sign > 0.0 { hi[axis] } else { lo[axis] };
                p[u] = if a == 0 { lo[u] } else { hi[u] };
                p[v] = if b == 0 { lo[v] } else { hi[v] };
                geo.positions.push(p.to_array());
                geo.normals.push(n.to_array());
            }
            if sign > 0.0 {
                geo.indices
                    .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
            } else {
                geo.indices
                    .extend([base, base + 2, base + 1, base, base + 3, base + 2]);
            }
        }
    }
    geo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avatar_reads_back_with_every_expression() {
        let bytes = generate();
        assert_eq!(bytes, generate(), "deterministic");
        let m = VrmModel::from_slice(&bytes, "avatar.vrm").unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.expressions.len(), 70);
        for p in ExpressionPreset::ALL {
            let e = m.expression(p.name()).unwrap();
            assert_eq!(
                e.morph_target_binds.is_empty(),
                p == ExpressionPreset::Neutral
            );
        }
        for n in ARKIT_52 {
            let e = m.expression(n).unwrap();
            assert!(e.preset.is_none());
            assert_eq!(e.morph_target_binds.len(), 1, "{n}");
        }
        assert!(m.humanoid.missing_required().is_empty());
        let f = m.humanoid.face_bones();
        assert!(
            f.head.is_some() && f.neck.is_some() && f.left_eye.is_some() && f.right_eye.is_some()
        );
        assert_eq!(m.look_at, Some(LOOK_AT));
        assert!(m.meta.allows_redistribution());
        let rig = m.to_rig().unwrap();
        assert_eq!(rig.len(), 70);
        assert!(bytes.len() < 1_000_000, "small: {} bytes", bytes.len());
    }

    #[test]
    fn rig_knows_how_closed_each_expression_leaves_the_eyes() {
        let rig = rig();
        let closure = |n: &str| rig.info(rig.channel(n).unwrap()).desc.eye_closure;
        assert!((closure("happy") - 0.45).abs() < 1e-6);
        assert!((closure("relaxed") - 0.55).abs() < 1e-6);
        assert_eq!(closure("surprised"), 0.0);
        assert_eq!(closure("blink"), 0.0);
        assert_eq!(closure("aa"), 0.0);
        assert_eq!(rig.len(), 70);
    }
}
