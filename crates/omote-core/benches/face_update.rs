//! One `Face::update` on the standard rig (18 presets + 52 ARKit channels) with every
//! layer active, and a frame of 1,000 faces.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use omote_core::mix::BlendMode;
use omote_core::{DriverInputs, Face, FaceConfig, FaceDriver, FaceInputs, Pcg32, Quat, Rig};

/// A face with all standard layers plus an extra additive one, all at non-zero weight
/// and filled with values, smoothing on.
fn busy_face(rig: &Arc<Rig>, seed: u64) -> Face {
    let config = FaceConfig {
        expression_half_life: 0.05,
        ..FaceConfig::default()
    };
    let mut face = Face::new(rig.clone(), config, seed);
    let extra = face.add_layer("correction", BlendMode::Additive);
    let mut rng = Pcg32::new(seed);
    for layer in [Face::BASE, Face::MOUTH, Face::EYES, Face::ADDITIVE, extra] {
        face.layer_mut(layer).set_weight(0.8);
        for v in face.layer_mut(layer).values_mut() {
            *v = rng.next_f32() * 0.5;
        }
    }
    face
}

fn inputs(i: u32) -> FaceInputs {
    let t = i as f32 / 60.0;
    FaceInputs {
        head: Quat::from_rotation_y((t * 0.7).sin() * 0.3),
        gaze_yaw_deg: (t * 2.0).sin() * 20.0,
        gaze_pitch_deg: (t * 1.3).cos() * 10.0,
    }
}

fn bench(c: &mut Criterion) {
    let rig = Arc::new(Rig::standard());
    let mut face = busy_face(&rig, 1);
    let mut i = 0u32;
    c.bench_function("face_update/standard_rig_70ch", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            black_box(face.update(black_box(1.0 / 60.0), &inputs(i)).expressions[0])
        })
    });

    let mut faces: Vec<Face> = (0..1000).map(|s| busy_face(&rig, s)).collect();
    let mut group = c.benchmark_group("face_update");
    group.throughput(Throughput::Elements(faces.len() as u64));
    group.bench_function("1000_faces_one_frame", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            let inp = inputs(i);
            let mut acc = 0.0;
            for f in &mut faces {
                acc += f.update(1.0 / 60.0, &inp).expressions[5];
            }
            black_box(acc)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches, extra);

fn pieces(c: &mut Criterion) {
    let rig = Arc::new(Rig::standard());
    let mut raw = Face::new(rig.clone(), FaceConfig::raw(), 1);
    let mut i = 0u32;
    c.bench_function("face_update/raw_config_base_only", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            black_box(raw.update(black_box(1.0 / 60.0), &inputs(i)).expressions[0])
        })
    });
    c.bench_function("inputs_only", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            black_box(inputs(i))
        })
    });
}
criterion_group!(extra, pieces, driver);

/// The driver around the same busy face: its own per-frame cost on top of
/// `Face::update` (no sources, acting inputs only), then with the tracking layer on too.
fn driver(c: &mut Criterion) {
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::from_face(busy_face(&rig, 1));
    let mut i = 0u32;
    c.bench_function("driver/standard_rig_70ch", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            let f = inputs(i);
            let d = DriverInputs {
                head: f.head,
                gaze_yaw_deg: f.gaze_yaw_deg,
                gaze_pitch_deg: f.gaze_pitch_deg,
                ..DriverInputs::default()
            };
            black_box(driver.update(black_box(1.0 / 60.0), &d).expressions[0])
        })
    });
    let mut face = busy_face(&rig, 1);
    face.layer_mut(Face::TRACKING).set_weight(0.8);
    c.bench_function("face_update/standard_rig_70ch_plus_tracking_layer", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            black_box(face.update(black_box(1.0 / 60.0), &inputs(i)).expressions[0])
        })
    });
}
