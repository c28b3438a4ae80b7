//! Cost of encoding one face frame as VMC bundles (70 channels: 18 presets + ARKit 52,
//! in packets of at most 1472 bytes) and of applying them.

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
            black_box(
                w.write(t, black_box(&weights), &pose)
                    .map(<[u8]>::len)
                    .sum::<usize>(),
            )
        })
    });
    let packets: Vec<Vec<u8>> = w.write(0.0, &weights, &pose).map(<[u8]>::to_vec).collect();
    let sizes: Vec<usize> = packets.iter().map(Vec::len).collect();
    println!("packets per frame: {} of {sizes:?} bytes", packets.len());
    let mut r = VmcReceiver::new();
    c.bench_function("vmc_parse_and_apply_70_channels", |b| {
        b.iter(|| {
            for p in &packets {
                let m = parse_packet(black_box(p)).unwrap();
                black_box(r.apply(&m).all_used().unwrap());
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
