//! The VRMA writer: an [`Anim`] as a `.vrma` file (`VRMC_vrm_animation` 1.0).
//!
//! What goes in (facts from the VRMA 1.0 specification):
//! - a humanoid rest skeleton in VRM T-pose ([`crate::skeleton`], identity rotations),
//!   every bone VRM 1.0 requires, and never `leftEye` / `rightEye` (the spec forbids
//!   animating them: gaze goes through the lookAt node);
//! - one node per expression the anim moves; the x of its translation is the weight
//!   (clamped to 0..1). One at 0 in every frame is left out, so a player's own blink or
//!   lip sync on it is not held at 0 (and the file is smaller: the demo's 18 s went from
//!   953 KB to 372 KB).
//!   `lookUp` / `lookDown` / `lookLeft` / `lookRight` are never written (the spec
//!   forbids them; gaze goes through the lookAt node). Only expressions the target model
//!   has are written;
//! - a lookAt node (child of the head, at `offsetFromHeadBone`) whose rotation is the
//!   gaze before the lookAt override multiplier (the anim's `lookAtInput`: the player
//!   applies `overrideLookAt` itself): `rotY(yaw) · rotX(pitch)` (extrinsic ZXY with no roll; yaw > 0 looks to the
//!   avatar's left, pitch > 0 down);
//! - the head's rotation; when the model has a neck, the anim's head orientation (which
//!   is relative to the body) is split between them: the neck takes
//!   [`NECK_SHARE`](omote_core::tracking::NECK_SHARE) of it (half: neck = head = its
//!   square root), or the share [`write_vrma_with_neck_share`] is given;
//! - one LINEAR key per anim frame at `frame / fps` seconds.
//!
//! The expression values written are the anim's `expressions`: the weights *before* the
//! VRM 1.0 override rules (version 2 anims), because a VRMA player applies the rules
//! itself. What the player then shows is the anim's `appliedExpressions`
//! (`tests/it/three_vrm.rs` checks this in `@pixiv/three-vrm-animation`). A version-1
//! anim has only the weights after the rules; written from one, `blend`-overridden
//! expressions are attenuated a second time by the player.

use glam::Quat;
use gltf_json::animation::{Channel, Interpolation, Property, Sampler, Target};
use gltf_json::validation::Checked;
use gltf_json::{Accessor, Animation, Index, Node};
use omote_core::rig::ExpressionCategory;
use omote_core::{Anim, ExpressionPreset};
use serde_json::Map;

use crate::error::VrmError;
use crate::gltf_writer::{GltfBuilder, named_node};
use crate::look_at::DEFAULT_OFFSET_FROM_HEAD_BONE;
use crate::model::VrmModel;
use crate::schema::{OrderedMap, vrmc_vrm_animation as schema};
use crate::skeleton::{HEAD, LEFT_EYE, NECK, RIGHT_EYE, SKELETON};

/// The label used in errors of [`write_vrma`].
const LABEL: &str = "<vrma>";

/// The gaze rotation of the VRMA lookAt node for a yaw and pitch in degrees.
pub fn look_at_rotation(yaw_deg: f32, pitch_deg: f32) -> Quat {
    Quat::from_rotation_y(yaw_deg.to_radians()) * Quat::from_rotation_x(pitch_deg.to_radians())
}

/// The expressions of `anim` that [`write_vrma`] leaves out because `model` has no
/// expression of that name (an anim recorded on another avatar), in the anim's order.
/// The gaze expressions (`lookUp` …) are not among them: a VRMA never carries those.
pub fn expressions_not_on<'a>(anim: &'a Anim, model: &VrmModel) -> Vec<&'a str> {
    anim.expressions
        .0
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !is_gaze(name) && model_expression(model, name).is_none())
        .collect()
}

/// What a caller tells the user when [`expressions_not_on`] names any: "MODEL has no
/// expression named a, b; not written" (the CLI's note, a binding's warning).
pub fn expressions_not_on_note(anim: &Anim, model: &VrmModel) -> Option<String> {
    let missing = expressions_not_on(anim, model);
    (!missing.is_empty()).then(|| {
        format!(
            "{} has no expression named {}; not written",
            model.file,
            missing.join(", ")
        )
    })
}

/// The model's expression an anim track `name` plays: the one of that name, or for one
/// of ARKit's 52 the model's clip in any spelling (`JawOpen` for `jawOpen`: a VRM 0.x
/// perfect-sync model, recorded from a VMC performer that spells it either way).
fn model_expression<'m>(model: &'m VrmModel, name: &str) -> Option<&'m str> {
    if let Some(e) = model.expression(name) {
        return Some(&e.name);
    }
    let i = omote_core::rig::arkit_index_any_spelling(name)?;
    model
        .expressions
        .iter()
        .find(|e| omote_core::rig::arkit_index_any_spelling(&e.name) == Some(i))
        .map(|e| e.name.as_str())
}

/// A `lookUp` / `lookDown` / `lookLeft` / `lookRight` expression (the lookAt node's).
fn is_gaze(name: &str) -> bool {
    ExpressionPreset::from_name(name).and_then(ExpressionPreset::category)
        == Some(ExpressionCategory::LookAt)
}

/// Write `anim` as VRMA bytes for playback on `model` (the expressions
/// [`expressions_not_on`] names are left out).
pub fn write_vrma(anim: &Anim, model: &VrmModel) -> Result<Vec<u8>, VrmError> {
    write_vrma_with_neck_share(anim, model, omote_core::tracking::NECK_SHARE)
}

/// [`write_vrma`] with the neck taking `neck_share` (0–1, clamped) of the head's turn
/// where the model has a neck (a live session's `neckShare`).
pub fn write_vrma_with_neck_share(
    anim: &Anim,
    model: &VrmModel,
    neck_share: f32,
) -> Result<Vec<u8>, VrmError> {
    anim.validate().map_err(|source| VrmError::Anim {
        file: LABEL.into(),
        source,
    })?;
    let frames = anim.frames();
    if frames == 0 {
        return Err(VrmError::Write {
            file: LABEL.into(),
            message: "the anim has no frames".into(),
        });
    }
    let mut g = GltfBuilder::new(concat!("omote ", env!("CARGO_PKG_VERSION")));

    let skeleton = RestSkeleton::write(&mut g);
    let mut scene_nodes = vec![skeleton.hips];

    let offset = model
        .look_at
        .map_or(DEFAULT_OFFSET_FROM_HEAD_BONE, |l| l.offset_from_head_bone);
    let look_at = g.node(Node {
        translation: Some(offset),
        ..named_node("lookAt")
    });
    g.add_child(skeleton.head, look_at);

    // Shared key times.
    let times: Vec<[f32; 1]> = (0..frames).map(|i| [i as f32 / anim.fps]).collect();
    let input = g.floats_accessor(&times, None);
    let mut tracks = Tracks {
        input,
        channels: Vec::new(),
        samplers: Vec::new(),
    };
    let (preset, custom) = write_expressions(&mut g, anim, model, &mut tracks, &mut scene_nodes);
    let split = HeadSplit {
        neck_share: (model.humanoid.bone("neck").is_some()).then_some(neck_share),
    };
    write_gaze_and_head(&mut g, anim, split, &mut tracks, look_at, &skeleton);

    g.root.push(Animation {
        extensions: None,
        extras: None,
        channels: tracks.channels,
        name: Some("omote".into()),
        samplers: tracks.samplers,
    });
    g.root.push(gltf_json::Scene {
        extensions: None,
        extras: None,
        name: Some("vrma".into()),
        nodes: scene_nodes,
    });
    g.root.scene = Some(Index::new(0));

    let ext = schema::VrmAnimation {
        spec_version: "1.0".into(),
        humanoid: Some(schema::Humanoid {
            human_bones: skeleton.human_bones,
        }),
        expressions: Some(schema::Expressions {
            preset: Some(preset),
            custom: Some(custom),
        }),
        look_at: Some(schema::LookAt {
            node: look_at.value(),
            offset_from_head_bone: Some(offset),
        }),
    };
    let mut map = Map::new();
    map.insert(
        "VRMC_vrm_animation".into(),
        serde_json::to_value(&ext).map_err(|e| VrmError::Write {
            file: LABEL.into(),
            message: e.to_string(),
        })?,
    );
    g.finish(map, &["VRMC_vrm_animation"], LABEL)
}

/// The rest skeleton's nodes the animation drives, and its humanoid bones.
struct RestSkeleton {
    hips: Index<Node>,
    head: Index<Node>,
    neck: Index<Node>,
    human_bones: OrderedMap<schema::NodeRef>,
}

impl RestSkeleton {
    /// Rest skeleton without the eyes.
    fn write(g: &mut GltfBuilder) -> Self {
        let mut bone_nodes: Vec<Option<Index<Node>>> = vec![None; SKELETON.len()];
        let mut human_bones = OrderedMap::default();
        for (i, b) in SKELETON.iter().enumerate() {
            if i == LEFT_EYE || i == RIGHT_EYE {
                continue;
            }
            let n = g.node(Node {
                translation: Some(b.translation),
                ..named_node(b.name)
            });
            if let Some(p) = b.parent.and_then(|p| bone_nodes[p]) {
                g.add_child(p, n);
            }
            bone_nodes[i] = Some(n);
            human_bones
                .0
                .push((b.name.to_string(), schema::NodeRef { node: n.value() }));
        }
        Self {
            hips: bone_nodes[0].expect("hips"),
            head: bone_nodes[HEAD].expect("head"),
            neck: bone_nodes[NECK].expect("neck"),
            human_bones,
        }
    }
}

/// The animation's channels and samplers, all keyed at the shared `input` times.
struct Tracks {
    input: Index<Accessor>,
    channels: Vec<Channel>,
    samplers: Vec<Sampler>,
}

impl Tracks {
    /// A LINEAR track of `node`'s `path` with the values in `output`.
    fn add(&mut self, node: Index<Node>, path: Property, output: Index<Accessor>) {
        let sampler = Index::new(self.samplers.len() as u32);
        self.samplers.push(Sampler {
            extensions: None,
            extras: None,
            input: self.input,
            interpolation: Checked::Valid(Interpolation::Linear),
            output,
        });
        self.channels.push(Channel {
            sampler,
            target: Target {
                extensions: None,
                extras: None,
                node,
                path: Checked::Valid(path),
            },
            extensions: None,
            extras: None,
        });
    }
}

/// Expressions: the player's input (it applies the override rules itself). One node
/// per expression the model has, added to `scene_nodes`; returns the preset and custom
/// expressions' nodes.
fn write_expressions(
    g: &mut GltfBuilder,
    anim: &Anim,
    model: &VrmModel,
    tracks: &mut Tracks,
    scene_nodes: &mut Vec<Index<Node>>,
) -> (OrderedMap<schema::NodeRef>, OrderedMap<schema::NodeRef>) {
    let mut preset = OrderedMap::default();
    let mut custom = OrderedMap::default();
    let mut written: Vec<&str> = Vec::new();
    for (track_name, track) in &anim.expressions.0 {
        let Some(name) = model_expression(model, track_name).filter(|_| !is_gaze(track_name))
        else {
            continue;
        };
        // An expression the anim never moves is left to the player: a track of zeros
        // would hold it at 0 and override the app's own blink or lip sync. One the anim
        // has twice (spelt two ways) is written once.
        if track.iter().all(|w| *w <= 0.0) || written.contains(&name) {
            continue;
        }
        written.push(name);
        let p = ExpressionPreset::from_name(name);
        let node = g.node(named_node(&format!("expression:{name}")));
        scene_nodes.push(node);
        let values: Vec<[f32; 3]> = track
            .iter()
            .map(|w| [w.clamp(0.0, 1.0), 0.0, 0.0])
            .collect();
        let out = g.floats_accessor(&values, None);
        tracks.add(node, Property::Translation, out);
        let entry = (name.to_owned(), schema::NodeRef { node: node.value() });
        if p.is_some() {
            preset.0.push(entry);
        } else {
            custom.0.push(entry);
        }
    }
    (preset, custom)
}

/// How the head's turn is written: on the head alone, or shared with the neck.
#[derive(Clone, Copy, Debug)]
struct HeadSplit {
    /// The neck's share, when the model has a neck.
    neck_share: Option<f32>,
}

/// The gaze on the lookAt node, and the head's rotation (split with the neck when the
/// model has one).
fn write_gaze_and_head(
    g: &mut GltfBuilder,
    anim: &Anim,
    split: HeadSplit,
    tracks: &mut Tracks,
    look_at: Index<Node>,
    skeleton: &RestSkeleton,
) {
    // Gaze, before the lookAt override (the player applies it, as for expressions).
    let gaze: Vec<[f32; 4]> = anim
        .look_at_input()
        .iter()
        .map(|[yaw, pitch]| look_at_rotation(*yaw, *pitch).to_array())
        .collect();
    let out = g.floats_accessor(&gaze, None);
    tracks.add(look_at, Property::Rotation, out);

    // Head (and neck): neck · head is the anim's head orientation.
    let (necks, heads): (Vec<[f32; 4]>, Vec<[f32; 4]>) = anim
        .head
        .iter()
        .map(|q| {
            // A zero quaternion (not a rotation) becomes identity rather than NaN.
            let q = glam::Vec4::from_array(*q)
                .try_normalize()
                .map_or(Quat::IDENTITY, Quat::from_vec4);
            let (neck, head) = match split.neck_share {
                Some(share) => omote_core::tracking::split_neck_head(q, share),
                None => (Quat::IDENTITY, q),
            };
            (neck.to_array(), head.to_array())
        })
        .unzip();
    let out = g.floats_accessor(&heads, None);
    tracks.add(skeleton.head, Property::Rotation, out);
    if split.neck_share.is_some() {
        let out = g.floats_accessor(&necks, None);
        tracks.add(skeleton.neck, Property::Rotation, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use omote_core::anim::AnimRecorder;
    use omote_core::{Face, FaceConfig, FaceInputs};
    use std::sync::Arc;

    /// A face's anim on `model` whose every expression moves (each rises to a weight of
    /// its own), so every one is written.
    fn anim(model: &VrmModel, frames: usize) -> Anim {
        let rig = Arc::new(model.to_rig().unwrap());
        let mut face = Face::new(rig.clone(), FaceConfig::default(), 3);
        let mut rec = AnimRecorder::new(&rig, 30.0);
        for _ in 0..frames {
            rec.record(face.update(1.0 / 30.0, &FaceInputs::default()));
        }
        let mut a = rec.finish();
        for (k, (_, track)) in a.expressions.0.iter_mut().enumerate() {
            for (f, w) in track.iter_mut().enumerate() {
                *w = (f as f32 + 1.0) / frames as f32 * (k % 7 + 1) as f32 / 7.0;
            }
        }
        a
    }

    #[test]
    fn gaze_rotation_signs() {
        // Yaw > 0 turns +Z toward +X (the avatar's left); pitch > 0 turns it down.
        let d = look_at_rotation(30.0, 0.0) * glam::Vec3::Z;
        assert!(d.x > 0.4);
        let d = look_at_rotation(0.0, 30.0) * glam::Vec3::Z;
        assert!(d.y < -0.4);
        // three-vrm reads yaw/pitch back with Euler order YXZ.
        let (y, x, _) = look_at_rotation(20.0, -10.0).to_euler(glam::EulerRot::YXZ);
        assert!((y.to_degrees() - 20.0).abs() < 1e-4 && (x.to_degrees() + 10.0).abs() < 1e-4);
    }

    #[test]
    fn writes_a_vrma_with_the_allowed_parts() {
        let model = crate::avatar::model();
        let a = anim(&model, 10);
        let bytes = write_vrma(&a, &model).unwrap();
        let chunks = crate::glb::split(&bytes, "t").unwrap();
        let v: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
        let ext = &v["extensions"]["VRMC_vrm_animation"];
        assert_eq!(ext["specVersion"], "1.0");
        let bones = ext["humanoid"]["humanBones"].as_object().unwrap();
        assert!(bones.contains_key("head") && bones.contains_key("hips"));
        assert!(!bones.contains_key("leftEye") && !bones.contains_key("rightEye"));
        let preset = ext["expressions"]["preset"].as_object().unwrap();
        assert!(preset.contains_key("blink") && !preset.contains_key("lookLeft"));
        assert_eq!(ext["expressions"]["custom"].as_object().unwrap().len(), 52);
        // 14 presets + 52 custom + lookAt + head + neck.
        assert_eq!(
            v["animations"][0]["channels"].as_array().unwrap().len(),
            14 + 52 + 3
        );
        assert_eq!(v["accessors"][0]["count"], 10);
        assert!(
            v["extensionsUsed"]
                .as_array()
                .unwrap()
                .contains(&"VRMC_vrm_animation".into())
        );
    }

    /// The last key of the rotation track of human bone `bone` (or `"lookAt"`: the
    /// lookAt node's).
    fn last_rotation(bytes: &[u8], bone: &str) -> Quat {
        let chunks = crate::glb::split(bytes, "t").unwrap();
        let v: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
        let ext = &v["extensions"]["VRMC_vrm_animation"];
        let node = if bone == "lookAt" {
            &ext["lookAt"]["node"]
        } else {
            &ext["humanoid"]["humanBones"][bone]["node"]
        };
        let anim = &v["animations"][0];
        let channel = anim["channels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| &c["target"]["node"] == node && c["target"]["path"] == "rotation")
            .unwrap();
        let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
        let accessor = &v["accessors"][sampler["output"].as_u64().unwrap() as usize];
        let view = &v["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
        let at = start + (accessor["count"].as_u64().unwrap() as usize - 1) * 16;
        let bin = chunks.bin.unwrap();
        let f = |k: usize| f32::from_le_bytes(bin[at + 4 * k..at + 4 * k + 4].try_into().unwrap());
        Quat::from_xyzw(f(0), f(1), f(2), f(3))
    }

    /// The lookAt node carries the gaze before `overrideLookAt` (the player applies the
    /// override itself, as it does the expressions'), not the shown one.
    #[test]
    fn the_gaze_written_is_the_players_input() {
        let model = crate::avatar::model();
        let mut a = anim(&model, 4);
        a.look_at = vec![[10.0, 4.0]; 4];
        let want = |yaw, pitch| look_at_rotation(yaw, pitch);
        let got = last_rotation(&write_vrma(&a, &model).unwrap(), "lookAt");
        assert!(got.angle_between(want(10.0, 4.0)) < 1e-5, "{got}");
        a.look_at_input = Some(vec![[20.0, 8.0]; 4]);
        let got = last_rotation(&write_vrma(&a, &model).unwrap(), "lookAt");
        assert!(got.angle_between(want(20.0, 8.0)) < 1e-5, "{got}");
    }

    #[test]
    fn the_neck_takes_its_share_of_the_head_turn() {
        let model = crate::avatar::model();
        let mut a = anim(&model, 5);
        let turn = Quat::from_rotation_y(40f32.to_radians());
        for q in &mut a.head {
            *q = turn.to_array();
        }
        for (share, neck_deg) in [
            (omote_core::tracking::NECK_SHARE, 20.0),
            (0.25, 10.0),
            (0.0, 0.0),
        ] {
            let bytes = write_vrma_with_neck_share(&a, &model, share).unwrap();
            let (neck, head) = (last_rotation(&bytes, "neck"), last_rotation(&bytes, "head"));
            let yaw = |q: Quat| q.to_euler(glam::EulerRot::YXZ).0.to_degrees();
            assert!(
                (yaw(neck) - neck_deg).abs() < 0.01,
                "{share}: neck {}",
                yaw(neck)
            );
            assert!(
                (yaw(head) - (40.0 - neck_deg)).abs() < 0.01,
                "{share}: head {}",
                yaw(head)
            );
            assert!((neck * head).dot(turn).abs() > 0.99999);
        }
    }

    #[test]
    fn expressions_another_model_lacks_are_named_and_left_out() {
        let model = crate::avatar::model();
        let a = anim(&model, 4);
        assert!(expressions_not_on(&a, &model).is_empty());
        assert_eq!(expressions_not_on_note(&a, &model), None);
        let mut small = model.clone();
        small.file = "small.vrm".into();
        small
            .expressions
            .retain(|e| ["blink", "happy", "lookUp"].contains(&e.name.as_str()));
        let missing = expressions_not_on(&a, &small);
        assert!(missing.contains(&"aa") && missing.contains(&"jawOpen"));
        assert!(
            !missing
                .iter()
                .any(|n| ["blink", "happy"].contains(n) || is_gaze(n))
        );
        // Every expression is either written or named.
        assert_eq!(missing.len() + 2 + 4, a.expressions.0.len());
        let note = expressions_not_on_note(&a, &small).unwrap();
        assert!(
            note.starts_with("small.vrm has no expression named aa, "),
            "{note}"
        );
        let bytes = write_vrma(&a, &small).unwrap();
        let chunks = crate::glb::split(&bytes, "t").unwrap();
        let v: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
        let preset = &v["extensions"]["VRMC_vrm_animation"]["expressions"]["preset"];
        assert_eq!(preset.as_object().unwrap().len(), 2);
    }

    /// An expression at 0 in every frame gets no node and no track: a player's own
    /// blink or lip sync on it stays the player's.
    #[test]
    fn an_expression_the_anim_never_moves_is_left_to_the_player() {
        let model = crate::avatar::model();
        let mut a = anim(&model, 5);
        for (name, track) in &mut a.expressions.0 {
            if name != "happy" && name != "aa" {
                track.iter_mut().for_each(|w| *w = 0.0);
            }
        }
        // Constant but not 0: written.
        a.expressions
            .0
            .iter_mut()
            .find(|(n, _)| n == "aa")
            .unwrap()
            .1 = vec![0.3; 5];
        let bytes = write_vrma(&a, &model).unwrap();
        let chunks = crate::glb::split(&bytes, "t").unwrap();
        let v: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
        let ext = &v["extensions"]["VRMC_vrm_animation"]["expressions"];
        let preset: Vec<&String> = ext["preset"].as_object().unwrap().keys().collect();
        assert_eq!(preset, ["aa", "happy"]);
        assert!(
            ext["custom"].as_object().is_none_or(|c| c.is_empty()),
            "{ext}"
        );
        // happy and aa, lookAt, head and neck.
        assert_eq!(v["animations"][0]["channels"].as_array().unwrap().len(), 5);
    }

    /// A track in ARKit's spelling plays the model's clip in its own (a VRM 0.x
    /// perfect-sync model's `JawOpen`).
    #[test]
    fn an_arkit_track_plays_the_models_clip_in_any_spelling() {
        let mut model = crate::avatar::model();
        let clip = model
            .expressions
            .iter_mut()
            .find(|e| e.name == "jawOpen")
            .unwrap();
        clip.name = "JawOpen".into();
        let mut a = anim(&crate::avatar::model(), 3);
        for (name, track) in &mut a.expressions.0 {
            if name != "jawOpen" {
                track.iter_mut().for_each(|w| *w = 0.0);
            }
        }
        assert!(expressions_not_on(&a, &model).is_empty());
        let bytes = write_vrma(&a, &model).unwrap();
        let chunks = crate::glb::split(&bytes, "t").unwrap();
        let v: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
        let custom = &v["extensions"]["VRMC_vrm_animation"]["expressions"]["custom"];
        let names: Vec<&String> = custom.as_object().unwrap().keys().collect();
        assert_eq!(names, ["JawOpen"]);
    }

    #[test]
    fn bad_anims_are_errors() {
        let model = crate::avatar::model();
        let mut a = anim(&model, 3);
        a.fps = 0.0;
        assert!(matches!(write_vrma(&a, &model), Err(VrmError::Anim { .. })));
        let a = anim(&model, 0);
        assert!(matches!(
            write_vrma(&a, &model),
            Err(VrmError::Write { .. })
        ));
    }
}
