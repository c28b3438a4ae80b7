//! Cost of the automatic blink and saccades: `Face::update` on `Rig::standard()` with
//! and without them (same filters otherwise), and each generator alone.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::{
    BlinkConfig, BlinkGenerator, BlinkInput, Face, FaceConfig, FaceInputs, Pcg32, Rig,
    SaccadeConfig, SaccadeGenerator,
};

const DT: f32 = 1.0 / 60.0;

fn face(rig: &Arc<Rig>, config: FaceConfig) -> Face {
    let mut face = Face::new(rig.clone(), config, 1);
    for (name, w) in [("happy", 0.3), ("aa", 0.5), ("jawOpen", 0.2)] {
        let id = rig.channel(name).expect("standard channel");
        face.layer_mut(Face::BASE).set(id, w);
    }
    face
}

fn bench_face(c: &mut Criterion) {
    let rig = Arc::new(Rig::standard());
    let with = FaceConfig::default();
    let without = FaceConfig {
        blink: None,
        saccade: None,
        ..FaceConfig::default()
    };
    let mut group = c.benchmark_group("face_update");
    for (name, config) in [("without_eyes", without), ("with_eyes", with)] {
        let mut f = face(&rig, config);
        let mut frame = 0u32;
        group.bench_function(name, |b| {
            b.iter(|| {
                // A slowly wandering gaze target, as from a scene or a tracker.
                frame = frame.wrapping_add(1);
                let inputs = FaceInputs {
                    gaze_yaw_deg: ((frame % 600) as f32 * 0.01).sin() * 5.0,
                    ..FaceInputs::default()
                };
                black_box(f.update(black_box(DT), &inputs).expressions[0])
            })
        });
    }
    group.finish();
}

fn bench_generators(c: &mut Criterion) {
    let mut group = c.benchmark_group("eye_generators");
    let mut blink = BlinkGenerator::new(&BlinkConfig::default());
    let mut rng = Pcg32::new(1);
    let input = BlinkInput::default();
    group.bench_function("blink_update", |b| {
        b.iter(|| black_box(blink.update(black_box(DT), &mut rng, &input).weight))
    });
    let mut saccade = SaccadeGenerator::new(&SaccadeConfig::default());
    group.bench_function("saccade_update", |b| {
        b.iter(|| black_box(saccade.update(black_box(DT), &mut rng).yaw_deg))
    });
    group.finish();
}

criterion_group!(benches, bench_face, bench_generators);
criterion_main!(benches);
