//! Cost of the automatic blink and saccades: `Face::update` on `Rig::standard()` with
//! and without them (same filters otherwise), their paired difference, and each
//! generator alone.
//!
//! `eyes_overhead/paired` runs the two faces in alternating blocks of 64 frames and
//! reports (time with eyes − time without) per frame, so that load from other processes
//! falls on both alike; the target is ≤ 50 ns.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    for (name, config) in [
        ("without_eyes", without.clone()),
        ("with_eyes", with.clone()),
    ] {
        let mut f = face(&rig, config);
        let mut frame = 0u32;
        group.bench_function(name, |b| {
            b.iter(|| {
                frame = frame.wrapping_add(1);
                black_box(f.update(black_box(DT), &inputs(frame)).expressions[0])
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("eyes_overhead");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(2));
    let (mut a, mut b) = (face(&rig, with), face(&rig, without));
    let mut frame = 0u32;
    group.bench_function("paired", |bench| {
        bench.iter_custom(|iters| {
            const BLOCK: u64 = 64;
            let (mut with_ns, mut without_ns) = (0u128, 0u128);
            for _ in 0..iters.div_ceil(BLOCK) {
                let start = Instant::now();
                for i in 0..BLOCK as u32 {
                    black_box(a.update(DT, &inputs(frame + i)).expressions[0]);
                }
                with_ns += start.elapsed().as_nanos();
                let start = Instant::now();
                for i in 0..BLOCK as u32 {
                    black_box(b.update(DT, &inputs(frame + i)).expressions[0]);
                }
                without_ns += start.elapsed().as_nanos();
                frame = frame.wrapping_add(BLOCK as u32);
            }
            let added = with_ns.saturating_sub(without_ns) * u128::from(iters)
                / u128::from(iters.div_ceil(BLOCK) * BLOCK);
            // Criterion rejects a zero sample; when noise hides the overhead completely,
            // report 1 ns for the whole sample.
            Duration::from_nanos((added as u64).max(1))
        })
    });
    group.finish();
}

/// A slowly wandering gaze target, as from a scene or a tracker.
fn inputs(frame: u32) -> FaceInputs {
    FaceInputs {
        gaze_yaw_deg: ((frame % 600) as f32 * 0.01).sin() * 5.0,
        ..FaceInputs::default()
    }
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
