//! The C API under random call sequences: wrong, freed and made-up handles, NaN and
//! infinite numbers, wrong lengths. Never an internal error (a caught panic), always a
//! message naming the call, only finite outputs. The program interpreter is shared with
//! the stable test `crates/omote-ffi/tests/call_sequences.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/omote-ffi/tests/support/call_program.rs"]
mod call_program;

fuzz_target!(|data: &[u8]| {
    call_program::run(data);
});
