//! Bad input gives a clear error naming the file and the field, never a panic.

use omote_vrm::{VrmError, VrmModel, VrmReadOptions, glb};
use serde_json::{Value, json};

/// A small valid VRM 1.0 document: 2 nodes (node 1 has mesh 0 with 2 morph targets),
/// one material, required bones all on node 0, one expression of each bind kind.
fn base() -> Value {
    let bones: serde_json::Map<String, Value> = omote_vrm::humanoid::REQUIRED_HUMAN_BONES
        .iter()
        .map(|b| (b.to_string(), json!({"node": 0})))
        .collect();
    json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm"],
        "nodes": [{"name": "root", "children": [1]}, {"name": "face", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 0}, {"POSITION": 0}]}]}],
        "materials": [{"name": "skin"}],
        "accessors": [{"componentType": 5126, "count": 1, "type": "VEC3", "min": [0,0,0], "max": [0,0,0]}],
        "extensions": {"VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {"name": "t", "authors": ["me"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
            "humanoid": {"humanBones": bones},
            "lookAt": {"type": "bone", "rangeMapHorizontalInner": {"inputMaxValue": 90, "outputScale": 8}},
            "expressions": {
                "preset": {"happy": {
                    "morphTargetBinds": [{"node": 1, "index": 1, "weight": 1}],
                    "materialColorBinds": [{"material": 0, "type": "color", "targetValue": [1,0,0,1]}],
                    "textureTransformBinds": [{"material": 0, "offset": [0.5, 0]}],
                    "overrideBlink": "block"
                }},
                "custom": {"smirk": {"isBinary": true}}
            }
        }}
    })
}

fn glb_of(v: &Value) -> Vec<u8> {
    glb::join(serde_json::to_string(v).unwrap().as_bytes(), &[], "t.vrm").unwrap()
}

fn read(v: &Value) -> Result<VrmModel, VrmError> {
    VrmModel::from_slice(&glb_of(v), "t.vrm")
}

fn err(v: &Value) -> String {
    let e = read(v).expect_err("must fail");
    let s = e.to_string();
    assert!(s.starts_with("t.vrm: "), "error must name the file: {s}");
    s
}

#[test]
fn base_document_is_valid() {
    let m = read(&base()).unwrap();
    let happy = m.expression("happy").unwrap();
    assert_eq!(happy.morph_target_binds[0].mesh, 0);
    assert_eq!(happy.morph_target_binds[0].node, Some(1));
    assert_eq!(happy.texture_transform_binds[0].scale, [1.0, 1.0]);
    assert_eq!(happy.override_blink, omote_core::rig::OverrideMode::Block);
    let smirk = m.expression("smirk").unwrap();
    assert!(smirk.preset.is_none() && smirk.is_binary);
    // Defaults for absent range maps: 90 → 10 (bone).
    let la = m.look_at.unwrap();
    assert_eq!(la.range_map_horizontal_inner.output_scale, 8.0);
    assert_eq!(la.range_map_vertical_up.output_scale, 10.0);
    assert_eq!(la.offset_from_head_bone, [0.0, 0.06, 0.0]);
}

#[test]
fn container_errors() {
    let good = glb_of(&base());
    let e = VrmModel::from_slice(b"{\"asset\":{}}", "t.vrm").unwrap_err();
    assert!(matches!(e, VrmError::NotGlb { .. }), "{e}");
    assert!(e.to_string().contains("it starts with \"{\\\"as\""), "{e}");
    let e = VrmModel::from_slice(b"", "empty.vrm").unwrap_err();
    assert_eq!(
        e.to_string(),
        "empty.vrm: not a GLB (binary glTF) file: it is empty (0 bytes)"
    );
    let e = VrmModel::from_slice(&good[..good.len() - 10], "t.vrm").unwrap_err();
    assert!(
        matches!(e, VrmError::Truncated { part: "header", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("truncated"), "{e}");
    let e = VrmModel::read("/nonexistent/x.vrm").unwrap_err();
    assert!(matches!(e, VrmError::Io { .. }) && e.to_string().contains("/nonexistent/x.vrm"));
}

#[test]
fn truncated_bin_chunk() {
    let mut v = base();
    v["buffers"] = json!([{"byteLength": 64}]);
    let bytes = glb::join(
        serde_json::to_string(&v).unwrap().as_bytes(),
        &[0; 16],
        "t.vrm",
    )
    .unwrap();
    let e = VrmModel::from_slice(&bytes, "t.vrm").unwrap_err();
    assert!(
        matches!(
            e,
            VrmError::Truncated {
                part: "BIN chunk",
                declared: 64,
                available: 16,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn bad_json_names_the_field() {
    let bytes = glb::join(b"{\"asset\": {\"version\": \"2.0\"", &[], "t.vrm").unwrap();
    let e = VrmModel::from_slice(&bytes, "t.vrm").unwrap_err();
    assert!(matches!(e, VrmError::Json { .. }), "{e}");
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"]["isBinary"] = json!("yes");
    let s = err(&v);
    assert!(
        s.contains("extensions.VRMC_vrm.expressions.preset.happy.isBinary"),
        "{s}"
    );
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["meta"]
        .as_object_mut()
        .unwrap()
        .remove("licenseUrl");
    let s = err(&v);
    assert!(
        s.contains("extensions.VRMC_vrm.meta") && s.contains("licenseUrl"),
        "{s}"
    );
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"]["morphTargetBinds"][0]["node"] =
        json!(-1);
    let s = err(&v);
    assert!(s.contains("morphTargetBinds[0].node"), "{s}");
}

#[test]
fn no_vrm_extension() {
    let mut v = base();
    v.as_object_mut().unwrap().remove("extensions");
    assert!(matches!(read(&v), Err(VrmError::NoVrmExtension { .. })));
    let mut v = base();
    v["extensions"] = json!({"KHR_other": {}});
    let s = err(&v);
    assert!(s.contains("VRMC_vrm") && s.contains("VRM"), "{s}");
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["specVersion"] = json!("2.0");
    assert!(matches!(read(&v), Err(VrmError::SpecVersion { .. })));
}

#[test]
fn dangling_binds() {
    let happy = "/extensions/VRMC_vrm/expressions/preset/happy";
    let cases: [(&str, Value, &str); 5] = [
        (
            "/morphTargetBinds/0/node",
            json!(7),
            "morphTargetBinds[0].node = 7 points at a node",
        ),
        ("/morphTargetBinds/0/node", json!(0), "node with a mesh"),
        (
            "/morphTargetBinds/0/index",
            json!(2),
            "morphTargetBinds[0].index = 2 points at a morph target that does not exist (2 available)",
        ),
        (
            "/materialColorBinds/0/material",
            json!(3),
            "materialColorBinds[0].material = 3 points at a material",
        ),
        (
            "/textureTransformBinds/0/material",
            json!(1),
            "textureTransformBinds[0].material = 1 points at a material",
        ),
    ];
    for (ptr, value, want) in cases {
        let mut v = base();
        *v.pointer_mut(&format!("{happy}{ptr}")).unwrap() = value;
        let s = err(&v);
        assert!(s.contains(want), "{ptr}: {s}");
        assert!(s.contains("VRMC_vrm.expressions.preset.happy."), "{s}");
    }
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["head"]["node"] = json!(99);
    assert!(err(&v).contains("VRMC_vrm.humanoid.humanBones.head.node = 99"));
    let mut v = base();
    *v.pointer_mut(&format!("{happy}/overrideMouth"))
        .unwrap_or(&mut Value::Null) = json!(0);
    v["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"]["overrideMouth"] =
        json!("sometimes");
    assert!(err(&v).contains("overrideMouth = `sometimes`"));
}

/// VRM 1.0 requires `head` and three-vrm refuses a file without it; so do we, unless
/// asked to be lenient (then it is a warning, as the other missing required bones are).
#[test]
fn v1_without_head_is_refused_unless_lenient() {
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object_mut()
        .unwrap()
        .remove("head");
    let e = read(&v).expect_err("strict by default");
    assert!(
        matches!(&e, VrmError::MissingBone { bone: "head", .. }),
        "{e}"
    );
    assert_eq!(e.file(), "t.vrm");
    let s = err(&v);
    assert!(s.contains("VRMC_vrm.humanoid.humanBones"), "{s}");
    assert!(s.contains("`head`"), "{s}");
    // The same through a file: the error names the path.
    let path = std::env::temp_dir().join(format!("omote-vrm-{}-no-head.vrm", std::process::id()));
    std::fs::write(&path, glb_of(&v)).unwrap();
    let e = VrmModel::read(&path).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!("{}: ", path.display())),
        "{e}"
    );
    // Lenient: read, with a warning naming the bone, and no head.
    let lenient = VrmReadOptions {
        allow_missing_head: true,
    };
    let m = VrmModel::read_with(&path, lenient).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(m.humanoid.face_bones().head.is_none());
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("required bones missing: head")),
        "{:?}",
        m.warnings
    );
    let m2 = VrmModel::from_slice_with(&glb_of(&v), "t.vrm", lenient).unwrap();
    assert_eq!(m2.warnings, m.warnings);
    m2.to_rig().unwrap();
    // Another missing required bone stays a warning, in strict mode too.
    let mut v = base();
    v["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object_mut()
        .unwrap()
        .remove("leftFoot");
    let m = read(&v).unwrap();
    assert!(
        m.warnings.iter().any(|w| w.contains("leftFoot")),
        "{:?}",
        m.warnings
    );
}

#[test]
fn bad_range_maps() {
    for (value, want) in [
        (json!(-1.0), "must not be negative"),
        (json!(1e39), "must be finite"),
    ] {
        for key in ["inputMaxValue", "outputScale"] {
            let mut v = base();
            v["extensions"]["VRMC_vrm"]["lookAt"]["rangeMapVerticalUp"] = json!({ key: value });
            let s = err(&v);
            assert!(
                s.contains(&format!("VRMC_vrm.lookAt.rangeMapVerticalUp.{key}")),
                "{s}"
            );
            assert!(s.contains(want), "{s}");
        }
    }
    // NaN cannot be written in JSON; a literal is a JSON error naming where it is.
    let json = serde_json::to_string(&base())
        .unwrap()
        .replace("\"outputScale\":8", "\"outputScale\":NaN");
    let bytes = glb::join(json.as_bytes(), &[], "t.vrm").unwrap();
    assert!(matches!(
        VrmModel::from_slice(&bytes, "t.vrm"),
        Err(VrmError::Json { .. })
    ));
}

#[test]
fn v0_errors_and_normalisation() {
    let v = json!({
        "asset": {"version": "2.0"},
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 0}]}]}],
        "materials": [{"name": "face"}, {"name": "face (Outline)"}],
        "accessors": [{"componentType": 5126, "count": 1, "type": "VEC3"}],
        "extensions": {"VRM": {
            "meta": {"title": "old", "author": "someone", "licenseName": "CC_BY"},
            "humanoid": {"humanBones": [{"bone": "head", "node": 0}, {"bone": "leftThumbIntermediate", "node": 0}]},
            "firstPerson": {"lookAtTypeName": "BlendShape", "firstPersonBoneOffset": {"x": 0, "y": 0.1, "z": 0.02},
                            "lookAtHorizontalOuter": {"curve": [0,0,0,1,1,1,1,0], "xRange": 45, "yRange": 0.5}},
            "blendShapeMaster": {"blendShapeGroups": [
                {"name": "Joy", "presetName": "joy", "binds": [{"mesh": 0, "index": 0, "weight": 50}],
                 "materialValues": [{"materialName": "face", "propertyName": "_Color", "targetValue": [1,0,0,1]},
                                    {"materialName": "face", "propertyName": "_MainTex_ST", "targetValue": [1,1,0.25,0]},
                                    {"materialName": "face", "propertyName": "_Cutoff", "targetValue": [0.5,0,0,0]}]},
                {"name": "Wink", "presetName": "unknown", "isBinary": true},
                {"name": "Joy2", "presetName": "joy"}
            ]}
        }}
    });
    let m = read(&v).unwrap();
    assert_eq!(m.version, omote_vrm::VrmVersion::V0);
    let names: Vec<&str> = m.expressions.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["happy", "Wink"]);
    let happy = &m.expressions[0];
    assert!((happy.morph_target_binds[0].weight - 0.5).abs() < 1e-6);
    // Matched by name, including the UniVRM outline copy.
    assert_eq!(happy.material_color_binds.len(), 2);
    assert_eq!(happy.texture_transform_binds[0].offset, [0.25, 0.0]);
    assert!(m.expressions[1].is_binary && m.expressions[1].preset.is_none());
    assert_eq!(m.warnings.len(), 3, "{:?}", m.warnings); // _Cutoff, duplicate joy, missing bones
    let la = m.look_at.unwrap();
    assert_eq!(la.kind, omote_core::rig::LookAtType::Expression);
    assert_eq!(la.range_map_horizontal_outer.input_max_value, 45.0);
    assert_eq!(la.range_map_horizontal_outer.output_scale, 0.5);
    assert_eq!(la.range_map_vertical_down.output_scale, 1.0); // BlendShape default
    assert_eq!(la.offset_from_head_bone, [0.0, 0.1, -0.02]);
    assert!(m.humanoid.bone("leftThumbProximal").is_some());
    assert_eq!(m.meta.authors, ["someone"]);

    let mut bad = v.clone();
    bad["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"][0]["binds"][0]["mesh"] =
        json!(4);
    assert!(
        err(&bad).contains(
            "VRM.blendShapeMaster.blendShapeGroups[0].binds[0].mesh = 4 points at a mesh"
        )
    );
    let mut bad = v.clone();
    bad["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"][0]["binds"][0]["index"] =
        json!(1);
    assert!(err(&bad).contains("binds[0].index = 1 points at a morph target"));
    let mut bad = v.clone();
    bad["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"][0]["materialValues"][0]["materialName"] =
        json!("hair");
    assert!(err(&bad).contains("materialValues[0].materialName = `hair` names no material"));
    let mut bad = v;
    bad["extensions"]["VRM"]["firstPerson"]["lookAtVerticalUp"] = json!({"xRange": -3});
    assert!(err(&bad).contains("VRM.firstPerson.lookAtVerticalUp.xRange = -3"));
}

/// Inputs that once broke a reader (found by the fuzzer or by reading dependencies'
/// code): each must give an error (or a model), never a panic. Like the fuzz target,
/// a file not starting with `glTF` is wrapped as the JSON chunk of a GLB.
#[test]
fn fuzz_regressions() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz"));
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let bytes = if data.starts_with(b"glTF") {
            data
        } else {
            glb::join(&data, &[], "f").unwrap()
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        match VrmModel::from_slice(&bytes, name.clone()) {
            Ok(m) => {
                let _ = m.to_rig();
                let _ = omote_vrm::InspectReport::new(&m).to_json();
            }
            Err(e) => assert!(e.to_string().starts_with(&format!("{name}: ")), "{e}"),
        }
        n += 1;
    }
    assert!(n >= 6, "regression inputs missing");
}
