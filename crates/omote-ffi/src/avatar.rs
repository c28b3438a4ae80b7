//! Avatars: a rig (and a VRM's model) from a VRM file or bytes, a rig file, a rig
//! description as JSON, or one of the built-in ones; their channel names and ids.

use std::ffi::c_char;
use std::sync::Arc;

use omote_embed::{Avatar, AvatarSource};

use crate::OmoteAvatar;
use crate::handle::{Kind, Registry};
use crate::ptr;
use crate::status::{FfiError, OmoteStatus, guard};

pub(crate) static AVATARS: Registry<Avatar> = Registry::new(Kind::Avatar);

/// Loads an avatar from a file: `.vrm` (VRM 0.x or 1.0, any case) or a rig file (TOML or
/// JSON). `path`: UTF-8, or on Unix any bytes (a file name need not be UTF-8).
///
/// # Safety
/// `path` is a NUL-terminated string; `out` points at a writable handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_load(
    path: *const c_char,
    out: *mut OmoteAvatar,
) -> OmoteStatus {
    guard("omote_avatar_load", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let path = unsafe { ptr::path(path, "path")? };
        let avatar = Avatar::load(&AvatarSource::File(path.into())).map_err(FfiError::loading)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, AVATARS.insert(avatar), "out") }
    })
}

/// An avatar from a VRM's bytes (0.x or 1.0), as an engine has them from its asset
/// system; `name` (may be null) stands for it in messages.
///
/// # Safety
/// `bytes` points at `len` bytes; `name` is null or NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_from_vrm(
    bytes: *const u8,
    len: u32,
    name: *const c_char,
    out: *mut OmoteAvatar,
) -> OmoteStatus {
    guard("omote_avatar_from_vrm", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let bytes = unsafe { ptr::slice(bytes, len, "bytes")? };
        let name = if name.is_null() {
            "the VRM bytes"
        } else {
            // SAFETY: the caller's promise.
            unsafe { ptr::text(name, "name")? }
        };
        let avatar = Avatar::from_vrm_bytes(bytes, name).map_err(FfiError::loading)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, AVATARS.insert(avatar), "out") }
    })
}

/// An avatar from a rig description as JSON (the rig file's fields: `name`, `presets`,
/// `arkit`, `expressions`…; `{"presets": true}` is the 18 VRM presets).
///
/// # Safety
/// `json` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_from_rig_json(
    json: *const c_char,
    out: *mut OmoteAvatar,
) -> OmoteStatus {
    guard("omote_avatar_from_rig_json", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let json = unsafe { ptr::text(json, "json")? };
        let rig = omote_embed::rig_from_json(json)?;
        let avatar = Avatar {
            rig,
            model: None,
            vrm: None,
            name: "the rig description".into(),
        };
        // SAFETY: checked above.
        unsafe { ptr::write(out, AVATARS.insert(avatar), "out") }
    })
}

/// The built-in avatars: 0 the generated test avatar (a VRM), 1 the same in its second
/// style, 2 the standard rig (18 presets + ARKit-52, no model).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_builtin(which: u32, out: *mut OmoteAvatar) -> OmoteStatus {
    guard("omote_avatar_builtin", || {
        ptr::check_out(out, "out")?;
        let source = match which {
            0 => AvatarSource::Builtin,
            1 => AvatarSource::BuiltinSecond,
            2 => AvatarSource::Standard,
            n => {
                return Err(FfiError::argument(format!(
                    "built-in avatar {n}: there are 0 (builtin), 1 (builtin, second style) and 2 (standard rig)"
                )));
            }
        };
        let avatar = Avatar::load(&source).map_err(FfiError::loading)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, AVATARS.insert(avatar), "out") }
    })
}

/// Frees an avatar (characters made from it keep their rig).
#[unsafe(no_mangle)]
pub extern "C" fn omote_avatar_free(avatar: OmoteAvatar) -> OmoteStatus {
    guard("omote_avatar_free", || AVATARS.remove(avatar))
}

/// The number of expression channels (the length of every weight array of its
/// characters).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_channel_count(
    avatar: OmoteAvatar,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_avatar_channel_count", || {
        let held = AVATARS.get(avatar)?;
        let n = held.lock("the avatar")?.rig.len() as u32;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// Channel `id`'s name (0 ≤ id < count), NUL-terminated UTF-8 into `buf` of `cap` bytes;
/// `len` gets its length without the NUL, also when `buf` is too small
/// (`OMOTE_STATUS_BUFFER_TOO_SMALL`).
///
/// # Safety
/// `buf` points at `cap` writable bytes (may be null when `cap` is 0); `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_channel_name(
    avatar: OmoteAvatar,
    id: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_avatar_channel_name", || {
        let held = AVATARS.get(avatar)?;
        let a = held.lock("the avatar")?;
        let rig: &Arc<omote_core::Rig> = &a.rig;
        let Some((channel, _)) = rig.channels().nth(id as usize) else {
            return Err(FfiError::argument(format!(
                "channel {id}: the avatar has {} (0–{})",
                rig.len(),
                rig.len().saturating_sub(1)
            )));
        };
        // SAFETY: the caller's promise.
        unsafe { ptr::write_text(rig.channel_name(channel), buf, cap, len) }
    })
}

/// The id of the channel called `name` (`OMOTE_STATUS_NOT_FOUND` if the avatar has none).
///
/// # Safety
/// `name` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_avatar_channel_id(
    avatar: OmoteAvatar,
    name: *const c_char,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_avatar_channel_id", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        let held = AVATARS.get(avatar)?;
        let a = held.lock("the avatar")?;
        let id = channel_index(&a.rig, name)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, id, "out") }
    })
}

/// The index of `name` among `rig`'s channels.
pub(crate) fn channel_index(rig: &omote_core::Rig, name: &str) -> Result<u32, FfiError> {
    rig.channels()
        .position(|(id, _)| rig.channel_name(id) == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            FfiError::new(
                OmoteStatus::NotFound,
                format!("the avatar has no expression `{name}`"),
            )
        })
}
