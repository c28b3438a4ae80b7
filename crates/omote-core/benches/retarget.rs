//! One frame of tracking → avatar mapping (52 ARKit scores and a head rotation),
//! standard rig with perfect sync.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::mix::{BlendMode, Layer};
use omote_core::tracking::Retargeter;
use omote_core::{Quat, RetargetConfig, Rig, TrackedFace};

fn face() -> TrackedFace {
    let mut f = TrackedFace {
        head: Some(Quat::from_euler(
            omote_core::glam::EulerRot::YXZ,
            0.2,
            -0.1,
            0.05,
        )),
        ..TrackedFace::default()
    };
    // Scores like a talking, smiling webcam user.
    for (i, v) in f.blendshapes.0.iter_mut().enumerate() {
        *v = (i as f32 * 0.37).sin().abs() * 0.6;
    }
    f
}

fn bench(c: &mut Criterion) {
    let rig = Rig::standard();
    let face = face();
    let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
    let mut layer = Layer::new("tracking", BlendMode::Override, rig.len());
    c.bench_function("retarget/one_frame", |b| {
        b.iter(|| black_box(rt.update(black_box(1.0 / 60.0), Some(black_box(&face)), &mut layer)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
