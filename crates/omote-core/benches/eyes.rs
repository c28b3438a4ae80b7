//! Cost of the automatic blink and saccades: `Face::update` on `Rig::standard()` with
//! and without them (same filters otherwise), their paired difference, and each
//! generator alone.
//!
//! `eyes_overhead/paired` runs the two faces in alternating blocks of 64 frames and
//! reports the mean of (time with eyes − time without) per frame, leaving out block pairs
//! hit by preemption, so that load from other processes falls on both alike; the target
//! is ≤ 50 ns.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::eyes::{BlinkConfig, BlinkGenerator, BlinkInput, SaccadeConfig, SaccadeGenerator};
use omote_core::{Face, FaceConfig, FaceInputs, Pcg32, Rig};

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
    // `control` pairs faces without eyes with faces without eyes: the method's zero.
    for (name, with_config) in [("paired", with), ("control", without.clone())] {
        // Several faces per side, created alternately, so that where the allocator puts
        // them does not favour one side.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..FACES {
            a.push(face(&rig, with_config.clone()));
            b.push(face(&rig, without.clone()));
        }
        paired(&mut group, name, a, b);
    }
    group.finish();
}

/// Faces per side in the paired benchmark; frame `i` of a block updates face `i % FACES`.
const FACES: usize = 4;

/// Benchmark (time of `a` − time of `b`) per frame, see the module docs.
fn paired(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut a: Vec<Face>,
    mut b: Vec<Face>,
) {
    let mut frame = 0u32;
    group.bench_function(name, |bench| {
        bench.iter_custom(|iters| {
            // Per pair of blocks: time with eyes and without (alternating which runs
            // first). Pairs where either block took over twice its median were hit by
            // preemption and are left out; the rest give the mean difference per frame.
            const BLOCK: u32 = 64;
            let blocks = iters.div_ceil(u64::from(BLOCK));
            let mut pairs: Vec<(u64, u64)> = Vec::with_capacity(blocks as usize);
            let run = |faces: &mut [Face], frame: u32| {
                let start = Instant::now();
                for i in 0..BLOCK {
                    let face = &mut faces[i as usize % FACES];
                    black_box(face.update(DT, &inputs(frame + i)).expressions[0]);
                }
                start.elapsed().as_nanos() as u64
            };
            for k in 0..blocks {
                pairs.push(if k % 2 == 0 {
                    let w = run(&mut a, frame);
                    (w, run(&mut b, frame))
                } else {
                    let wo = run(&mut b, frame);
                    (run(&mut a, frame), wo)
                });
                frame = frame.wrapping_add(BLOCK);
            }
            let median = |f: fn(&(u64, u64)) -> u64| {
                let mut v: Vec<u64> = pairs.iter().map(f).collect();
                v.sort_unstable();
                v[v.len() / 2]
            };
            let (mw, mwo) = (median(|p| p.0), median(|p| p.1));
            let kept: Vec<&(u64, u64)> = pairs
                .iter()
                .filter(|p| p.0 <= 2 * mw && p.1 <= 2 * mwo)
                .collect();
            let diff: i128 = kept.iter().map(|p| i128::from(p.0) - i128::from(p.1)).sum();
            let per_frame = diff as f64 / (kept.len() as f64 * f64::from(BLOCK));
            // Criterion rejects a zero sample; report at least 1 ns for the whole sample.
            Duration::from_nanos(((per_frame * iters as f64) as u64).max(1))
        })
    });
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
