//! A C flag is 0 or 1: anything else is refused by name, not read as "on" (the C
//! trial's engine passed `hold` 7 and `voiced` 2 and heard nothing back).

#![allow(unsafe_code)]

use std::ffi::CStr;

use omote_ffi::*;

fn last_error() -> String {
    // SAFETY: the library's own NUL-terminated message.
    unsafe { CStr::from_ptr(omote_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn flags_other_than_0_or_1_are_refused_by_name() {
    let mut stream = 0;
    // SAFETY: a live out-pointer.
    let status = unsafe { omote_voice_stream_new(48_000.0, 7, &mut stream) };
    assert_eq!(status, OmoteStatus::InvalidArgument);
    assert!(
        last_error().contains("`hold` is 7: 0 or 1"),
        "{}",
        last_error()
    );
    // SAFETY: a live out-pointer.
    assert_eq!(
        unsafe { omote_voice_stream_new(48_000.0, 1, &mut stream) },
        OmoteStatus::Ok
    );
    assert_eq!(omote_voice_stream_free(stream), OmoteStatus::Ok);

    let (mut avatar, mut face) = (0, 0);
    // SAFETY: live out-pointers.
    unsafe {
        assert_eq!(omote_avatar_builtin(2, &mut avatar), OmoteStatus::Ok);
        assert_eq!(omote_character_new(avatar, 1, &mut face), OmoteStatus::Ok);
    }
    let vowels = [0.9f32, 0.0, 0.0, 0.0, 0.0, 0.0];
    // SAFETY: 6 live floats.
    let status = unsafe { omote_character_set_live_vowels(face, vowels.as_ptr(), 6, 2) };
    assert_eq!(status, OmoteStatus::InvalidArgument);
    assert!(
        last_error().contains("`voiced` is 2: 0 or 1"),
        "{}",
        last_error()
    );
    // SAFETY: 6 live floats.
    let status = unsafe { omote_character_set_live_vowels(face, vowels.as_ptr(), 6, 1) };
    assert_eq!(status, OmoteStatus::Ok);
    assert_eq!(omote_character_free(face), OmoteStatus::Ok);
    assert_eq!(omote_avatar_free(avatar), OmoteStatus::Ok);
}
