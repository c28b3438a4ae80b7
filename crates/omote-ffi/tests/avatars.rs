//! Avatars through the C ABI: every shared VRM (0.x and 1.0) loads by path and from its
//! bytes with the channels the Rust loader gives, in the same order; a character of it
//! steps with finite weights.

#![allow(unsafe_code)]

use std::ffi::{CString, c_char};

use omote_embed::Avatar;
use omote_ffi::*;

fn names(avatar: OmoteAvatar) -> Vec<String> {
    let mut n = 0;
    // SAFETY: a live out-pointer.
    assert_eq!(
        unsafe { omote_avatar_channel_count(avatar, &mut n) },
        OmoteStatus::Ok
    );
    (0..n)
        .map(|id| {
            let mut buf = [0 as c_char; 128];
            let mut len = 0;
            // SAFETY: a 128-byte buffer and a live length.
            let s =
                unsafe { omote_avatar_channel_name(avatar, id, buf.as_mut_ptr(), 128, &mut len) };
            assert_eq!(s, OmoteStatus::Ok);
            let bytes: Vec<u8> = buf[..len as usize].iter().map(|c| *c as u8).collect();
            String::from_utf8(bytes).unwrap()
        })
        .collect()
}

#[test]
fn shared_vrms_load_by_path_and_from_bytes() {
    let Some(files) = omote_testdata::shared_files("vrm", "vrm") else {
        return;
    };
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        let rust = Avatar::from_file(&file).unwrap();
        let expected: Vec<String> = rust
            .rig
            .channels()
            .map(|(id, _)| rust.rig.channel_name(id).to_owned())
            .collect();
        let path = CString::new(file.to_str().unwrap()).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        let (mut by_path, mut by_bytes) = (0, 0);
        // SAFETY: live strings, buffers and out-pointers.
        unsafe {
            assert_eq!(
                omote_avatar_load(path.as_ptr(), &mut by_path),
                OmoteStatus::Ok
            );
            let s = omote_avatar_from_vrm(
                bytes.as_ptr(),
                bytes.len() as u32,
                path.as_ptr(),
                &mut by_bytes,
            );
            assert_eq!(s, OmoteStatus::Ok, "{}", file.display());
        }
        assert_eq!(names(by_path), expected, "{}", file.display());
        assert_eq!(names(by_bytes), expected, "{}", file.display());
        let mut face = 0;
        let mut weights = vec![0.0f32; expected.len()];
        // SAFETY: live out-pointers and a buffer of the channel count.
        unsafe {
            let made = omote_character_new(by_bytes, 1, &mut face);
            if expected.is_empty() {
                // A VRM with no expressions has nothing to drive: refused, and said so.
                assert_eq!(made, OmoteStatus::LoadFailed);
                let msg = std::ffi::CStr::from_ptr(omote_last_error()).to_string_lossy();
                assert!(msg.contains("no expressions"), "{msg}");
                assert_eq!(omote_avatar_free(by_path), OmoteStatus::Ok);
                assert_eq!(omote_avatar_free(by_bytes), OmoteStatus::Ok);
                continue;
            }
            assert_eq!(made, OmoteStatus::Ok, "{}", file.display());
            for _ in 0..120 {
                let s = omote_character_step(
                    face,
                    1.0 / 60.0,
                    weights.as_mut_ptr(),
                    std::ptr::null_mut(),
                    weights.len() as u32,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                );
                assert_eq!(s, OmoteStatus::Ok);
                assert!(weights.iter().all(|w| (0.0..=1.0).contains(w)));
            }
            assert_eq!(omote_character_free(face), OmoteStatus::Ok);
            assert_eq!(omote_avatar_free(by_path), OmoteStatus::Ok);
            assert_eq!(omote_avatar_free(by_bytes), OmoteStatus::Ok);
        }
    }
}

/// On Unix a file name is bytes: a path that is not UTF-8 (`r\xf6bot.toml`, Latin-1)
/// loads like any other (the C trial's engine could not open its own asset).
#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_loads_on_unix() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::env::temp_dir().join(format!("omote-ffi-latin1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"r\xf6bot.toml");
    let file = dir.join(name);
    std::fs::write(&file, "name = \"robot\"\npresets = true\n").unwrap();
    let path = CString::new(file.as_os_str().as_bytes()).unwrap();
    let mut avatar = 0;
    // SAFETY: a live string and out-pointer.
    let status = unsafe { omote_avatar_load(path.as_ptr(), &mut avatar) };
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(status, OmoteStatus::Ok);
    assert!(names(avatar).contains(&"aa".to_string()));
    assert_eq!(omote_avatar_free(avatar), OmoteStatus::Ok);
}
