//! Cost of encoding one face frame as a VMC bundle (70 channels: 18 presets + ARKit 52).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Quat;
use omote_vmc::{BlendNames, BonePose, VmcFrameWriter, VmcReceiver, osc::parse_packet};

fn bench(c: &mut Criterion) {
    let names: Vec<String> = (0..70).map(|i| format!("channel{i:02}")).collect();
    let mut w = VmcFrameWriter::new(names.iter().map(String::as_str), BlendNames::Vrm0);
    let weights: Vec<f32> = (0..70).map(|i| i as f32 / 70.0).collect();
    let pose = BonePose {
        head: Some(Quat::from_rotation_y(0.2)),
        left_eye: Some(Quat::from_rotation_x(0.05)),
        right_eye: Some(Quat::from_rotation_x(0.05)),
    };
    let mut t = 0.0f32;
    c.bench_function("vmc_write_70_channels", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            black_box(w.write(t, black_box(&weights), &pose).len())
        })
    });
    let bytes = w.write(0.0, &weights, &pose).to_vec();
    println!("bundle size: {} bytes", bytes.len());
    let mut r = VmcReceiver::new();
    c.bench_function("vmc_parse_and_apply_70_channels", |b| {
        b.iter(|| {
            let m = parse_packet(black_box(&bytes)).unwrap();
            black_box(r.apply(&m).unwrap())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
