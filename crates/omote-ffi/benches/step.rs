//! What the C ABI adds to a frame: the built-in avatar's character stepped and read
//! through the embedding API (`Character::update`, then its weights before and after
//! the rules and its rotations copied out) against the same through
//! `omote_character_step` (a handle lookup, a lock, the length checks, the copies).
//! The target: the C ABI adds ≤ 10 %.

// The C calls are unsafe by nature (raw out-pointers), as in the crate itself.
#![allow(unsafe_code)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_embed::{Avatar, AvatarSource, Character};
use omote_ffi::{OmoteFrameEvents, OmoteStatus, omote_avatar_builtin, omote_avatar_free};

const DT: f32 = 1.0 / 60.0;

fn bench(c: &mut Criterion) {
    let avatar = Avatar::load(&AvatarSource::Builtin).unwrap();
    let mut face = Character::from_avatar(&avatar, 7).unwrap();
    face.set_expression_named("happy", 0.4).unwrap();
    let n = face.weights().len();
    let (mut weights, mut input) = (vec![0.0f32; n], vec![0.0f32; n]);
    let mut rotations = [0.0f32; 12];
    let mut group = c.benchmark_group("character_step");
    group.bench_function("rust_embed", |b| {
        b.iter(|| {
            face.update(black_box(DT));
            weights.copy_from_slice(face.weights());
            input.copy_from_slice(face.input_weights());
            rotations.copy_from_slice(&face.rotations());
            black_box((&weights, &input, &rotations));
        })
    });

    let mut handle = 0u64;
    let mut character = 0u64;
    // SAFETY: valid out-pointers, arrays of the lengths passed.
    unsafe {
        assert_eq!(omote_avatar_builtin(0, &mut handle), OmoteStatus::Ok);
        assert_eq!(
            omote_ffi::omote_character_new(handle, 7, &mut character),
            OmoteStatus::Ok
        );
        assert_eq!(
            omote_ffi::omote_character_set_expression_named(character, c"happy".as_ptr(), 0.4),
            OmoteStatus::Ok
        );
    }
    let mut events = OmoteFrameEvents::default();
    group.bench_function("c_abi_step", |b| {
        b.iter(|| {
            // SAFETY: the arrays hold `n` and 12 floats; `events` is writable.
            let status = unsafe {
                omote_ffi::omote_character_step(
                    character,
                    black_box(DT),
                    weights.as_mut_ptr(),
                    input.as_mut_ptr(),
                    n as u32,
                    rotations.as_mut_ptr(),
                    &mut events,
                )
            };
            black_box((status, &weights, &input, &rotations));
        })
    });
    group.finish();
    omote_ffi::omote_character_free(character);
    omote_avatar_free(handle);
}

criterion_group!(benches, bench);
criterion_main!(benches);
