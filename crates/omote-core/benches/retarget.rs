//! One frame of tracking → avatar mapping on real MediaPipe output (478 landmarks,
//! 52 blendshapes, transform), standard rig with perfect sync.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::{BlendMode, HeadSource, Layer, RetargetConfig, Retargeter, Rig, TrackingFrame};

fn frame() -> TrackingFrame {
    let path = omote_testdata::path("tracking/obama.mediapipe.json");
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).expect("valid tracking JSON"),
        Err(_) => {
            eprintln!("shared data not found; benchmarking a synthetic frame");
            let mut f = omote_core::TrackedFace {
                landmarks: vec![[0.5, 0.5, 0.0]; 478],
                transform: Some([
                    1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., -50., 0., 0., 0., 1.,
                ]),
                ..Default::default()
            };
            f.blendshapes.set("jawOpen", 0.3);
            TrackingFrame {
                width: 640,
                height: 480,
                faces: vec![f],
                ..Default::default()
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let rig = Rig::standard();
    let frame = frame();
    for (name, source) in [
        ("transform", HeadSource::Transform),
        ("landmarks", HeadSource::Landmarks),
    ] {
        let config = RetargetConfig {
            head_source: source,
            ..RetargetConfig::default()
        };
        let mut rt = Retargeter::new(&rig, config).unwrap();
        let mut layer = Layer::new("tracking", BlendMode::Override, rig.len());
        c.bench_function(&format!("retarget/one_frame_{name}"), |b| {
            b.iter(|| black_box(rt.update(black_box(1.0 / 60.0), black_box(&frame), &mut layer)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
