//! Fuzz the settings readers of omote-config: retarget settings (every number checked
//! on load), rigs and motion maps, from TOML or JSON. The first byte picks the reader and
//! the format, the rest is the file. Errors are fine; panics are not, and settings that
//! load must drive a face without a non-finite number.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use omote_config::Format;
use omote_core::{Rig, TrackedFace, mix::{BlendMode, Layer}, tracking::Retargeter};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let format = if pick & 1 == 0 { Format::Toml } else { Format::Json };
    let path = Path::new("fuzz.settings");
    match (pick >> 1) % 3 {
        0 => {
            let Ok(config) = omote_config::parse_retarget_config(text, format, path) else {
                return;
            };
            // Checked settings never panic and never produce a non-finite weight.
            let rig = Rig::standard();
            let Ok(mut rt) = Retargeter::new(&rig, config) else {
                return;
            };
            let mut layer = Layer::new("tracking", BlendMode::Override, rig.len());
            let mut face = TrackedFace::default();
            face.blendshapes.set("jawOpen", 0.7);
            face.blendshapes.set("eyeBlinkLeft", 0.9);
            for i in 0..20 {
                let seen = (i % 7 != 3).then_some(&face);
                let out = rt.update(1.0 / 30.0, seen, &mut layer);
                assert!(out.head.is_finite() && out.gaze_yaw_deg.is_finite());
                assert!(out.tracking_weight.is_finite());
            }
            assert!(layer.values().iter().all(|v| v.is_finite()));
        }
        1 => {
            if let Ok(desc) = omote_config::parse::<omote_core::RigDesc>(text, format, path) {
                let _ = Rig::from_desc(&desc);
            }
        }
        _ => {
            if let Ok(desc) = omote_config::parse::<omote_core::camera::MotionMapDesc>(text, format, path)
                && let Ok(map) = omote_core::MotionMap::new(&desc)
            {
                for (a, b) in [(0.0, 0.0), (90.0, 45.0), (-180.0, -90.0), (1e9, f64::NAN)] {
                    let w = map.weights(a, b);
                    assert!(w.iter().all(|x| x.is_finite()));
                }
            }
        }
    }
});
