//! Runs `Face::update` many times on a busy standard-rig face, for profilers
//! (`valgrind --tool=callgrind target/release/examples/update_loop`).

use std::sync::Arc;

use omote_core::mix::BlendMode;
use omote_core::{Face, FaceConfig, FaceInputs, Pcg32, Quat, Rig};

fn main() {
    let rig = Arc::new(Rig::standard());
    let config = FaceConfig {
        expression_half_life: 0.05,
        ..FaceConfig::default()
    };
    let mut face = Face::new(rig, config, 1);
    let extra = face.add_layer("correction", BlendMode::Additive);
    let mut rng = Pcg32::new(1);
    for layer in [Face::BASE, Face::MOUTH, Face::EYES, Face::ADDITIVE, extra] {
        face.layer_mut(layer).set_weight(0.8);
        for v in face.layer_mut(layer).values_mut() {
            *v = rng.next_f32() * 0.5;
        }
    }
    let frames: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut acc = 0.0;
    for i in 0..frames {
        let t = i as f32 / 60.0;
        let inputs = FaceInputs {
            head: Quat::from_rotation_y((t * 0.7).sin() * 0.3),
            gaze_yaw_deg: (t * 2.0).sin() * 20.0,
            gaze_pitch_deg: (t * 1.3).cos() * 10.0,
        };
        acc += face.update(1.0 / 60.0, &inputs).expressions[3];
    }
    println!("{acc}");
}
