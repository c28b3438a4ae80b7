//! # omote-ffi
//!
//! omote's C ABI: the embedding API ([`omote_embed`]) for game engines and any language
//! with a C FFI (Unity's C# through P/Invoke, Godot's GDExtension, Unreal's C++, Python's
//! ctypes). It translates handles, arrays, statuses and messages; every rule lives in
//! `omote-embed` and below. The header is `include/omote.h`, generated from this crate
//! (`tests/header.rs` fails when it is stale; `OMOTE_BLESS=1` rewrites it).
//!
//! ## The contract
//!
//! - **Statuses**: every call returns an [`OmoteStatus`]; anything but
//!   `OMOTE_STATUS_OK` changed nothing, and [`omote_last_error`] holds the message
//!   (per thread, naming the call and what was wrong). No panic crosses the boundary.
//! - **Warnings**: what loads but not whole (a scene's voice WAV cut short of what its
//!   header declares: what is there is used) succeeds and keeps its warnings on the
//!   object ([`omote_scene_warning_count`], [`omote_scene_warning`]; a voice file's:
//!   [`omote_voice_file_warning`]), never lost.
//! - **Handles**, not pointers: 64-bit numbers, each with its kind and a generation, so
//!   a zero, freed, foreign or wrong-kind handle — and a second free — is
//!   `OMOTE_STATUS_INVALID_HANDLE`, never undefined behaviour.
//! - **Arrays** are a pointer and a `uint32_t` count, checked against what the call
//!   needs (a weight array's count is the channel count); outputs are filled in place,
//!   so a frame allocates nothing on the caller's side. Text is NUL-terminated UTF-8.
//! - **Threads**: a handle is used by one thread at a time (different handles on
//!   different threads run in parallel). Each object has its own lock, so a broken rule
//!   is serialised, not a data race. Messages are per thread.
//! - **Time**: `dt` as `omote_character_update` says (the embedding API's contract):
//!   finite and positive up to 0.25 s is one exact step; a longer one (the game was
//!   paused, a breakpoint) is one normal frame, so the face resumes without a jump;
//!   0, negative, NaN or infinite lets no time pass.
//! - **Composition**: expressions the host wants go in as acting or picture weights;
//!   head and eye rotations are relative to the rest pose, to be multiplied onto the
//!   host's animated local rotations; the gaze can follow a target given in the head's
//!   frame. Weights come after the VRM override rules and before them (for UniVRM 1.0's
//!   `SetWeight`, which applies them itself).
//! - **ABI**: fixed-width integers, `float`/`double`, pointers and `repr(C)` structs —
//!   no `size_t`.

// The C boundary is the crate's job: its functions are `unsafe extern "C"` and take raw
// pointers. Pointers become references only in `ptr.rs`; every unsafe block says why
// it holds.
#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod avatar;
mod character;
mod handle;
mod ptr;
mod scene;
mod status;
mod voice;
mod voice_file;

pub use avatar::*;
pub use character::*;
pub use scene::*;
pub use status::{OmoteStatus, omote_last_error, omote_last_error_length};
pub use voice::*;
pub use voice_file::*;

/// An avatar: a rig and, for a VRM, its model.
pub type OmoteAvatar = u64;
/// One character's face.
pub type OmoteCharacter = u64;
/// A voice line's lip sync.
pub type OmoteTrack = u64;
/// One character's voice lines, read together.
pub type OmoteSpeaker = u64;
/// A live lip sync stream.
pub type OmoteVoiceStream = u64;
/// A dialogue scene, played frame by frame.
pub type OmoteScene = u64;
/// Anims (a scene's bake, a recording), to write as anim JSON or VRMA.
pub type OmoteAnims = u64;
/// An audio file's samples, decoded for lip sync.
pub type OmoteVoiceFile = u64;

/// The ABI's version: bumped on every change that breaks a caller built against an
/// older header (a function removed, or its arguments or types changed). Check at
/// start-up that the library's equals the header's and that its
/// [`OMOTE_ABI_MINOR`] is at least the header's.
pub const OMOTE_ABI_VERSION: u32 = 1;

/// Additions within [`OMOTE_ABI_VERSION`]: bumped when a function is added (back to 0
/// when the version is bumped). A library with a smaller number lacks some of the
/// header's functions; one with a larger number has more, and serves this header.
/// 1: voice profiles, afterglow timing and scene warnings (2026-12).
/// 2: voice files (`omote_voice_file_load`; `omote_live_objects` counts 8 kinds).
/// 3: tracking calibration, eye-change announcements, named tracked scores
/// (`omote_character_set_tracked_named`), `omote_arkit_index`, expression fades
/// (`omote_character_fade_expression`, `omote_scene_fade_expression`), the host's acting
/// in a scene (`omote_scene_set_expression`) and lines started part way
/// (`omote_character_say_at`).
/// 4: voice files analysed as the CLI reads them, long ones streamed
/// (`omote_analyse_voice_file`, `omote_track_warning`).
/// 5: tracking settings (`omote_character_enable_tracking_with`), the game's camera in a
/// scene (`omote_scene_set_camera`) and the camera a scene follows
/// (`omote_scene_camera_position`).
/// 6: the game's direction of a scene's gaze and eyes (`omote_scene_set_gaze`,
/// `omote_scene_set_gaze_point`, `omote_scene_set_eye_mode`) and its characters' places
/// (`omote_scene_set_placement`).
pub const OMOTE_ABI_MINOR: u32 = 6;

/// The library's ABI version (compare with the header's `OMOTE_ABI_VERSION`).
#[unsafe(no_mangle)]
pub extern "C" fn omote_abi_version() -> u32 {
    OMOTE_ABI_VERSION
}

/// The library's additions within its ABI version (at least the header's
/// `OMOTE_ABI_MINOR`). A library older than this function has none: 0.
#[unsafe(no_mangle)]
pub extern "C" fn omote_abi_minor() -> u32 {
    OMOTE_ABI_MINOR
}

/// The library's version, `major.minor.patch`, NUL-terminated (static).
#[unsafe(no_mangle)]
pub extern "C" fn omote_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The number of ARKit blendshapes a tracked face carries (52).
pub const OMOTE_ARKIT_COUNT: u32 = 52;

/// ARKit blendshape `index`'s name (`eyeBlinkLeft`, …), in the order
/// `omote_character_set_tracked` reads scores; static, NUL-terminated, null when
/// `index` ≥ 52.
#[unsafe(no_mangle)]
pub extern "C" fn omote_arkit_name(index: u32) -> *const std::ffi::c_char {
    ARKIT_NAMES
        .get(index as usize)
        .map_or(std::ptr::null(), |s| s.as_ptr().cast())
}

/// The index (0–51, `omote_arkit_name`'s order) of ARKit blendshape `name` in any
/// spelling a tracker or an avatar uses (`jawOpen`, `JawOpen`, `eyeBlink_L`), or -1 for a
/// name that is not ARKit's (MediaPipe's `_neutral`) or null: a host maps its tracker's
/// names once, then fills the 52 scores `omote_character_set_tracked` takes.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_arkit_index(name: *const std::ffi::c_char) -> i32 {
    if name.is_null() {
        return -1;
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    let name = unsafe { std::ffi::CStr::from_ptr(name) };
    name.to_str()
        .ok()
        .and_then(omote_core::tracking::arkit_index_any_spelling)
        .map_or(-1, |i| i as i32)
}

/// The ARKit names NUL-terminated, built once from the core's table.
static ARKIT_NAMES: std::sync::LazyLock<Vec<std::ffi::CString>> = std::sync::LazyLock::new(|| {
    omote_core::tracking::ARKIT_52
        .iter()
        .map(|n| std::ffi::CString::new(*n).unwrap_or_default())
        .collect()
});

/// How many objects of each kind are alive: avatars, characters, tracks, speakers,
/// voice streams, scenes, anims, voice files (8 numbers; a caller built against ABI 1.1
/// asks for the first 7), for a host's leak checks.
///
/// # Safety
/// `out` points at `count` (8, or 7) writable numbers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_live_objects(out: *mut u32, count: u32) -> OmoteStatus {
    status::guard("omote_live_objects", || {
        let live = [
            avatar::AVATARS.live(),
            character::CHARACTERS.live(),
            voice::TRACKS.live(),
            voice::SPEAKERS.live(),
            voice::STREAMS.live(),
            scene::SCENES.live(),
            scene::ANIMS.live(),
            voice_file::VOICE_FILES.live(),
        ];
        // ABI 1.1 had the first 7 kinds; its callers still get theirs.
        let wanted = count as usize;
        if !(7..=live.len()).contains(&wanted) {
            return Err(status::FfiError::argument(format!(
                "`out` has room for {count} numbers; there are {} kinds (7 before ABI 1.2)",
                live.len()
            )));
        }
        // SAFETY: the caller's promise.
        unsafe { ptr::slice_mut(out, count, "out")? }.copy_from_slice(&live[..wanted]);
        Ok(())
    })
}
