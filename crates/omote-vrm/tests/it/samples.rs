//! Every sample in `shared/data/vrm` read and checked against what three-vrm 3.5.5
//! reports (`three-vrm-output/*.json`) and what the README / `summary.json` list.

use omote_testdata::shared_data;
use omote_vrm::{InspectReport, License, MaterialColorType, VrmModel, VrmVersion};
use serde_json::Value;

fn load_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn approx(a: &Value, b: &Value, what: &str) {
    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    assert!((a - b).abs() < 1e-5, "{what}: {a} vs {b}");
}

/// `omote inspect --json` for each sample agrees with three-vrm: version, expression
/// names (in order), preset/custom, isBinary, the three overrides, bind counts, lookAt
/// type, offset and range maps, humanoid bone names and the eye/jaw flags.
#[test]
fn inspect_matches_three_vrm() {
    let Some(dir) = shared_data("vrm") else {
        return;
    };
    let files = omote_testdata::shared_files("vrm", "vrm").unwrap();
    assert_eq!(files.len(), 5, "expected the five sample models");
    for path in files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let model = VrmModel::read(&path).unwrap_or_else(|e| panic!("{e}"));
        let ours: Value = serde_json::from_str(&InspectReport::new(&model).to_json()).unwrap();
        let theirs = load_json(&dir.join("three-vrm-output").join(format!("{name}.json")));

        let version = match theirs["metaVersion"].as_str().unwrap() {
            "1" => "1.0",
            "0" => "0.x",
            v => panic!("{name}: metaVersion {v}"),
        };
        assert_eq!(ours["version"], version, "{name}");

        let oe = ours["expressions"].as_array().unwrap();
        let te = theirs["expressions"].as_array().unwrap();
        let names = |v: &[Value]| {
            v.iter()
                .map(|e| e["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(oe), names(te), "{name}: expression names");
        for (o, t) in oe.iter().zip(te) {
            let what = format!("{name}: {}", t["name"]);
            assert_eq!(o["preset"], t["kind"] == "preset", "{what} kind");
            for k in [
                "isBinary",
                "overrideBlink",
                "overrideLookAt",
                "overrideMouth",
            ] {
                assert_eq!(o[k], t[k], "{what} {k}");
            }
            assert_eq!(
                o["morphTargetBinds"], t["binds"]["morphTarget"],
                "{what} morph binds"
            );
            assert_eq!(
                o["materialColorBinds"], t["binds"]["materialColor"],
                "{what} colour binds"
            );
            assert_eq!(
                o["textureTransformBinds"], t["binds"]["textureTransform"],
                "{what} uv binds"
            );
        }

        match (&ours["lookAt"], &theirs["lookAt"]) {
            (Value::Null, Value::Null) => {}
            (o, t) => {
                assert_eq!(o["type"], t["type"], "{name}: lookAt type");
                for i in 0..3 {
                    approx(
                        &o["offsetFromHeadBone"][i],
                        &t["offsetFromHeadBone"][i],
                        &format!("{name} offset"),
                    );
                }
                for m in [
                    "rangeMapHorizontalInner",
                    "rangeMapHorizontalOuter",
                    "rangeMapVerticalDown",
                    "rangeMapVerticalUp",
                ] {
                    for k in ["inputMaxValue", "outputScale"] {
                        approx(&o[m][k], &t[m][k], &format!("{name} {m}.{k}"));
                    }
                }
            }
        }

        let mut ob: Vec<&str> = ours["humanBones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        let mut tb: Vec<&str> = theirs["humanoid"]["bones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        ob.sort();
        tb.sort();
        assert_eq!(ob, tb, "{name}: human bones");
        assert_eq!(
            ob.len() as u64,
            theirs["humanoid"]["count"].as_u64().unwrap()
        );
        for (k, f) in [
            ("hasLeftEye", "leftEye"),
            ("hasRightEye", "rightEye"),
            ("hasJaw", "jaw"),
        ] {
            assert_eq!(
                theirs["humanoid"][k].as_bool().unwrap(),
                !ours["faceBones"][f].is_null(),
                "{name}: {k}"
            );
        }
        assert!(model.warnings.is_empty(), "{name}: {:?}", model.warnings);
    }
}

/// Bone node indices, meta and binds agree with `summary.json` (read from the raw JSON).
#[test]
fn models_match_summary_json() {
    let Some(dir) = shared_data("vrm") else {
        return;
    };
    let summary = load_json(&dir.join("summary.json"));
    for entry in summary.as_array().unwrap() {
        let file = entry["file"].as_str().unwrap();
        if !file.ends_with(".vrm") {
            continue;
        }
        let model = VrmModel::read(dir.join(file)).unwrap();
        for (bone, node) in entry["humanBones"].as_object().unwrap() {
            let b = model
                .humanoid
                .bone(bone)
                .unwrap_or_else(|| panic!("{file}: no {bone}"));
            assert_eq!(b.node as u64, node.as_u64().unwrap(), "{file}: {bone}");
        }
        assert_eq!(
            model.humanoid.bones.len(),
            entry["humanBones"].as_object().unwrap().len()
        );
        let meta = &entry["meta"];
        match &model.meta.license {
            License::Vrm1(l) => {
                assert_eq!(model.version, VrmVersion::V1);
                assert_eq!(model.meta.name, meta["name"].as_str().unwrap());
                assert_eq!(
                    model.meta.authors,
                    vec![meta["authors"][0].as_str().unwrap().to_string()]
                );
                assert_eq!(l.license_url, meta["licenseUrl"].as_str().unwrap());
                assert_eq!(
                    l.allow_redistribution,
                    meta["allowRedistribution"].as_bool().unwrap()
                );
                assert_eq!(l.modification, meta["modification"].as_str().unwrap());
                assert_eq!(
                    l.commercial_usage,
                    meta["commercialUsage"].as_str().unwrap()
                );
                assert_eq!(
                    l.allow_antisocial_or_hate_usage,
                    meta["allowAntisocialOrHateUsage"].as_bool().unwrap()
                );
                assert_eq!(
                    l.copyright_information.as_deref(),
                    meta["copyrightInformation"].as_str()
                );
            }
            License::Vrm0(l) => {
                assert_eq!(model.version, VrmVersion::V0);
                assert_eq!(model.meta.name, meta["title"].as_str().unwrap());
                assert_eq!(
                    model.meta.authors,
                    vec![meta["author"].as_str().unwrap().to_string()]
                );
                assert_eq!(l.license_name.as_deref(), meta["licenseName"].as_str());
                assert_eq!(
                    l.allowed_user_name.as_deref(),
                    meta["allowedUserName"].as_str()
                );
                assert_eq!(
                    l.commercial_ussage_name.as_deref(),
                    meta["commercialUssageName"].as_str()
                );
            }
        }
        assert!(
            model.meta.allows_redistribution(),
            "{file}: samples are all redistributable"
        );
        // Expression order and bind counts from the raw JSON.
        let exprs = entry["expressions"].as_array().unwrap();
        assert_eq!(model.expressions.len(), exprs.len(), "{file}");
        for (m, e) in model.expressions.iter().zip(exprs) {
            assert_eq!(
                m.morph_target_binds.len() as u64,
                e["binds"]["morphTarget"].as_u64().unwrap()
            );
            assert_eq!(
                m.texture_transform_binds.len() as u64,
                e["binds"]["textureTransform"].as_u64().unwrap()
            );
            assert_eq!(m.is_binary, e["isBinary"].as_bool().unwrap());
        }
    }
}

/// The details the README singles out.
#[test]
fn readme_facts() {
    let Some(dir) = shared_data("vrm") else {
        return;
    };
    // VRM 0.x: `A` → aa, bind mesh 0 target 0 weight 100 → 1.0; no `surprised` in 0.x.
    let m = VrmModel::read(dir.join("simple_morph.vrm")).unwrap();
    assert_eq!(m.version, VrmVersion::V0);
    assert_eq!(m.expressions.len(), 17);
    let aa = m.expression("aa").unwrap();
    assert_eq!(aa.morph_target_binds.len(), 1);
    let b = aa.morph_target_binds[0];
    assert_eq!((b.node, b.mesh, b.index), (None, 0, 0));
    assert!((b.weight - 1.0).abs() < 1e-6);
    for n in [
        "happy",
        "sad",
        "relaxed",
        "blinkLeft",
        "blinkRight",
        "lookUp",
        "neutral",
    ] {
        assert!(m.expression(n).is_some(), "{n}");
    }
    assert!(m.expression("surprised").is_none());
    let la = m.look_at.unwrap();
    assert_eq!(la.kind, omote_core::rig::LookAtType::Bone);
    assert_eq!(la.range_map_horizontal_inner.output_scale, 8.0);
    assert_eq!(la.range_map_horizontal_outer.output_scale, 12.0);
    assert_eq!(la.range_map_vertical_down.input_max_value, 90.0);
    let rig = m.to_rig().unwrap();
    assert_eq!(rig.len(), 17);
    assert_eq!(rig.look_at().range_map_horizontal_outer.output_scale, 12.0);

    // isBinary + override pair.
    let m = VrmModel::read(dir.join("VRMC_vrm_expressions_isBinary_Overrides.vrm")).unwrap();
    let happy = m.expression("happy").unwrap();
    assert!(happy.is_binary);
    assert_eq!(happy.override_blink, omote_core::rig::OverrideMode::Blend);
    assert_eq!(happy.texture_transform_binds.len(), 2);
    assert!(m.humanoid.face_bones().left_eye.is_none());
    assert_eq!(
        m.look_at.unwrap().kind,
        omote_core::rig::LookAtType::Expression
    );
    let rig = m.to_rig().unwrap();
    let h = rig.channel("happy").unwrap();
    assert!(rig.info(h).desc.is_binary);

    // No expressions, no lookAt, eyes present.
    let m = VrmModel::read(dir.join("VRMC_materials_mtoon_UV_Animation_Test.vrm")).unwrap();
    assert!(m.expressions.is_empty());
    assert!(m.look_at.is_none());
    let f = m.humanoid.face_bones();
    assert_eq!(f.left_eye.unwrap().node, 0);
    assert_eq!(f.head.unwrap().node, 2);
    assert!(f.jaw.is_none());
    assert_eq!(m.humanoid.bones.len(), 53);
    // Absent lookAt: the rig falls back to bone gaze.
    assert_eq!(
        m.to_rig().unwrap().look_at().kind,
        omote_core::rig::LookAtType::Bone
    );

    // debug_robot: 18 empty presets, bone lookAt 90→10, offset non-zero.
    let m = VrmModel::read(dir.join("debug_robot.vrm")).unwrap();
    assert_eq!(m.expressions.len(), 18);
    assert!(
        m.expressions
            .iter()
            .all(|e| e.preset.is_some() && e.morph_target_binds.is_empty())
    );
    let la = m.look_at.unwrap();
    assert!((la.offset_from_head_bone[0] - 0.03).abs() < 1e-6);
    assert!(
        la.range_maps()
            .iter()
            .all(|(_, r)| r.input_max_value == 90.0 && r.output_scale == 10.0)
    );
    let _ = MaterialColorType::Color;

    // The VRMA is not a VRM.
    let e = VrmModel::read(dir.join("test.vrma")).unwrap_err();
    assert!(matches!(e, omote_vrm::VrmError::IsVrma { .. }), "{e}");
    assert!(e.to_string().contains("test.vrma"));
}

/// A bone's rest translation in the VRM 1.0 frame: a 1.0 file's as written (the robot's
/// left eye on +X, the avatar's left), a 0.x file's turned half round (it faces −Z).
#[test]
fn bone_rest_translations_are_in_the_vrm_1_frame() {
    let Some(dir) = shared_data("vrm") else {
        return;
    };
    let robot = VrmModel::read(dir.join("debug_robot.vrm")).unwrap();
    assert_eq!(robot.version, VrmVersion::V1);
    assert_eq!(
        robot.bone_rest_translation("leftEye"),
        Some([0.125, 0.1875, 0.0])
    );
    assert_eq!(robot.bone_rest_translation("head"), Some([0.0, 0.125, 0.0]));
    assert_eq!(robot.bone_rest_translation("jaw"), None);
    let morph = VrmModel::read(dir.join("simple_morph.vrm")).unwrap();
    assert_eq!(morph.version, VrmVersion::V0);
    let raw = morph.humanoid.bone("head").unwrap().rest_translation;
    assert_eq!(
        morph.bone_rest_translation("head"),
        Some([-raw[0], raw[1], -raw[2]])
    );
    assert!(raw[2] != 0.0, "the test needs a z to see turned: {raw:?}");
}
