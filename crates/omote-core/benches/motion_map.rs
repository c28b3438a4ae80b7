//! Motion-map weight queries: the per-frame cost of the camera-angle face correction.
//!
//! A 9-point map (front, left, right, high, low and the four diagonals, like
//! `examples/maps/anime-face.toml`), queried at 4096 camera angles spread over the whole
//! (α, β) domain, inside and outside the hull. Throughput is reported in queries per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use omote_core::camera::{MotionMapDesc, MotionPointDesc};
use omote_core::{MotionMap, Pcg32};

fn nine_point_map() -> MotionMap {
    let points = [
        ("front", 0.0, 0.0),
        ("left", 100.0, 0.0),
        ("right", -100.0, 0.0),
        ("high", 0.0, 60.0),
        ("low", 0.0, -55.0),
        ("high-left", 70.0, 45.0),
        ("high-right", -70.0, 45.0),
        ("low-left", 65.0, -40.0),
        ("low-right", -65.0, -40.0),
    ];
    let desc = MotionMapDesc::new(
        points
            .iter()
            .map(|&(n, a, b)| MotionPointDesc::new(n, a, b))
            .collect(),
    );
    MotionMap::new(&desc).expect("valid map")
}

fn bench(c: &mut Criterion) {
    let map = nine_point_map();
    let mut rng = Pcg32::new(9);
    let angles: Vec<(f64, f64)> = (0..4096)
        .map(|_| {
            (
                rng.next_f64() * 360.0 - 180.0,
                rng.next_f64() * 180.0 - 90.0,
            )
        })
        .collect();
    let mut out = [0.0f64; 9];
    let mut group = c.benchmark_group("motion_map");
    group.throughput(Throughput::Elements(angles.len() as u64));
    group.bench_function("weights_into_9_points", |b| {
        b.iter(|| {
            for &(a, be) in &angles {
                map.weights_into(black_box(a), black_box(be), &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("blend_9_points", |b| {
        b.iter(|| {
            for &(a, be) in &angles {
                black_box(map.blend(black_box(a), black_box(be)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
