//! Fuzz the VRM reader. Input starting with `glTF` is used as a whole file (container
//! parsing); anything else is wrapped as the JSON chunk of a valid GLB, so the fuzzer
//! also reaches the glTF / VRM JSON paths. Every error must be a `VrmError`, never a
//! panic; a model that reads must also build a rig and an inspect report.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wrapped;
    let bytes = if data.starts_with(b"glTF") {
        data
    } else {
        wrapped = omote_vrm::glb::join(data, &[], "fuzz.vrm").expect("join");
        &wrapped
    };
    if let Ok(model) = omote_vrm::VrmModel::from_slice(bytes, "fuzz.vrm") {
        let _ = model.to_rig();
        let _ = omote_vrm::InspectReport::new(&model).to_json();
    }
});
