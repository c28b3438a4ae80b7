//! Reading a VRM: a 20 MB generated model (the avatar grown with a big binary buffer,
//! 400 extra meshes and 200 expressions) and the small avatar, from memory and from a
//! file. Target: a 20 MB file in under 50 ms.

use criterion::{Criterion, criterion_group, criterion_main};
use omote_vrm::VrmModel;
use std::hint::black_box;

fn read(c: &mut Criterion) {
    let large = omote_vrm::avatar::generate_large(20_000_000);
    let small = omote_vrm::avatar::generate();
    let path = std::env::temp_dir().join(format!("omote-bench-{}.vrm", std::process::id()));
    std::fs::write(&path, &large).unwrap();
    eprintln!("large model: {} bytes", large.len());
    let mut g = c.benchmark_group("read_vrm");
    g.bench_function("from_slice 20MB", |b| {
        b.iter(|| VrmModel::from_slice(black_box(&large), "large.vrm").unwrap())
    });
    g.bench_function("read file 20MB", |b| {
        b.iter(|| VrmModel::read(black_box(&path)).unwrap())
    });
    g.bench_function("from_slice avatar", |b| {
        b.iter(|| VrmModel::from_slice(black_box(&small), "avatar.vrm").unwrap())
    });
    g.bench_function("to_rig avatar", |b| {
        let m = VrmModel::from_slice(&small, "avatar.vrm").unwrap();
        b.iter(|| black_box(&m).to_rig().unwrap())
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, read);
criterion_main!(benches);
