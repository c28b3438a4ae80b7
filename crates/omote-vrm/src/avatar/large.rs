//! A large model for benchmarks and allocation tests: the avatar grown to a given file
//! size with what makes real VRMs big (a big binary buffer, many nodes, meshes,
//! accessors, materials, custom expressions with many binds).

use serde_json::{Value, json};

use crate::glb;

/// The generated avatar grown to at least `min_bytes` (e.g. 20 MB): 400 extra nodes with
/// meshes and materials, 200 custom expressions with 24 morph-target binds each, and the
/// rest as binary payload behind one accessor per extra mesh.
pub fn generate_large(min_bytes: usize) -> Vec<u8> {
    let bytes = super::generate();
    let chunks = glb::split(&bytes, "avatar").expect("avatar is a GLB");
    let mut json: Value = serde_json::from_slice(chunks.json).expect("avatar JSON");
    let mut bin = chunks.bin.unwrap_or_default().to_vec();
    let extra_nodes = 400usize;
    let payload = min_bytes.saturating_sub(bytes.len()).max(extra_nodes * 12);
    let per_mesh = (payload / extra_nodes / 12).max(1);
    let face_node = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "face")
        .expect("face node");
    let n_accessors = json["accessors"].as_array().unwrap().len();
    let n_views = json["bufferViews"].as_array().unwrap().len();
    let n_meshes = json["meshes"].as_array().unwrap().len();
    let n_nodes = json["nodes"].as_array().unwrap().len();
    let n_materials = json["materials"].as_array().unwrap().len();
    for i in 0..extra_nodes {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let offset = bin.len();
        bin.extend((0..per_mesh * 3).flat_map(|k| ((k % 97) as f32 * 0.001).to_le_bytes()));
        json["bufferViews"].as_array_mut().unwrap().push(json!({
            "buffer": 0, "byteOffset": offset, "byteLength": per_mesh * 12
        }));
        json["accessors"].as_array_mut().unwrap().push(json!({
            "bufferView": n_views + i, "componentType": 5126, "count": per_mesh, "type": "VEC3",
            "min": [0, 0, 0], "max": [0.1, 0.1, 0.1]
        }));
        json["materials"].as_array_mut().unwrap().push(json!({
            "name": format!("extra{i}"), "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.5, 0.5, 1]}
        }));
        json["meshes"].as_array_mut().unwrap().push(json!({
            "name": format!("extra{i}"),
            "primitives": [{"attributes": {"POSITION": n_accessors + i}, "material": n_materials + i, "mode": 0}]
        }));
        json["nodes"].as_array_mut().unwrap().push(json!({
            "name": format!("extra{i}"), "mesh": n_meshes + i, "translation": [0, 0, 0]
        }));
    }
    let hips = &mut json["nodes"][0]["children"];
    for i in 0..extra_nodes {
        hips.as_array_mut().unwrap().push(json!(n_nodes + i));
    }
    let custom = json["extensions"]["VRMC_vrm"]["expressions"]["custom"]
        .as_object_mut()
        .unwrap();
    for i in 0..200 {
        let binds: Vec<Value> = (0..24)
            .map(|k| json!({"node": face_node, "index": (i + k) % 54, "weight": 0.5}))
            .collect();
        custom.insert(
            format!("extra{i}"),
            json!({"morphTargetBinds": binds, "overrideBlink": "blend", "isBinary": i % 7 == 0}),
        );
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    json["buffers"][0]["byteLength"] = json!(bin.len());
    let text = serde_json::to_vec(&json).expect("serialise");
    glb::join(&text, &bin, "large.vrm").expect("join")
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_model_reads() {
        let bytes = super::generate_large(2_000_000);
        assert!(bytes.len() >= 2_000_000);
        let m = crate::VrmModel::from_slice(&bytes, "large.vrm").unwrap();
        assert_eq!(m.expressions.len(), 270);
        assert_eq!(m.expression("extra3").unwrap().morph_target_binds.len(), 24);
    }
}
