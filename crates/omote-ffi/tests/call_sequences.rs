//! The fuzz target's property on stable Rust (`fuzz/fuzz_targets/ffi_calls.rs` runs the
//! same program under libFuzzer): thousands of random call sequences on the C API —
//! wrong handles, freed handles, NaN, wrong lengths — never reach an internal error,
//! always name the failing call, and never give a non-finite output.

#[path = "support/call_program.rs"]
mod call_program;

/// A small xorshift: the programs are the same on every run.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

#[test]
fn random_call_sequences_fail_cleanly() {
    let mut stepped = 0;
    for seed in 0..600u64 {
        let len = 32 + (seed as usize * 37) % 400;
        let mut program = bytes(seed, len);
        if seed % 2 == 0 {
            // Half the programs start from a face (the built-in avatar, a character).
            program.splice(0..0, [0, 0, 2, 0, 5]);
        }
        stepped += call_program::run(&program);
    }
    // The programs get past the checks: faces are made and stepped.
    assert!(stepped > 200, "only {stepped} frames were stepped");
}

#[test]
fn a_program_that_builds_a_face_and_steps_it_runs() {
    // The builtin avatar, a character of it, three steps of 1/60 s with full weight
    // arrays (op, then its choices).
    let program = [0u8, 0, 2, 0, 5, 19, 0, 6, 3, 19, 0, 6, 3, 19, 0, 6, 3];
    assert!(call_program::run(&program) >= 1);
}
