//! Scenes: a dialogue scene file (or its text, with the host resolving the files it
//! names) played frame by frame — every character's weights and rotations, the frame's
//! events, advance and skip — or baked; and anims (a bake, a recording) written as anim
//! JSON and VRMA into the caller's buffers.

use std::ffi::{c_char, c_void};
use std::path::Path;

use omote_embed::{Anim, BakeOptions, SceneEventInfo, SceneFiles, ScenePlayer, VrmModel};

use crate::avatar::AVATARS;
use crate::character::CHARACTERS;
use crate::handle::{Kind, Registry};
use crate::ptr;
use crate::status::{FfiError, FfiResult, guard};
use crate::{OmoteAnims, OmoteAvatar, OmoteCharacter, OmoteScene, OmoteStatus};

pub(crate) static SCENES: Registry<ScenePlayer> = Registry::new(Kind::Scene);
pub(crate) static ANIMS: Registry<Anims> = Registry::new(Kind::Anims);

/// Anims to write: one per character of a bake or a recording.
pub(crate) struct Anims {
    items: Vec<AnimItem>,
}

/// One anim to write, with what its VRMA needs.
struct AnimItem {
    /// The character's id.
    id: String,
    anim: Anim,
    /// Its VRM's model, when it has one.
    model: Option<VrmModel>,
    /// The neck's share of the head's turn in its VRMA (a tracked recording's own).
    neck_share: f32,
}

impl Anims {
    /// A scene's anims: each character's with its model, the default neck share.
    fn of_scene(baked: Vec<omote_embed::BakedCharacter>, p: &ScenePlayer) -> Self {
        let items = baked
            .into_iter()
            .enumerate()
            .map(|(i, b)| AnimItem {
                id: b.id,
                anim: b.anim,
                model: p.loaded().characters[i].model.clone(),
                neck_share: omote_core::tracking::NECK_SHARE,
            })
            .collect();
        Self { items }
    }
}

/// Where a file's bytes go when the host's resolver reads it
/// (`omote_file_sink_write`).
pub struct OmoteFileSink {
    bytes: Vec<u8>,
}

/// A host's resolver for the files a scene names (voices, VRMs, rig files, motion maps,
/// lip sync tracks), with `path` as the scene names it joined to the scene's folder.
/// With `sink` null it is asked whether the file exists; otherwise it writes the file's
/// bytes with `omote_file_sink_write`. It returns 0 when the file is there, anything
/// else when it is not. Called on the thread that loads the scene, during the call.
pub type OmoteReadFile = Option<
    unsafe extern "C" fn(user: *mut c_void, path: *const c_char, sink: *mut OmoteFileSink) -> i32,
>;

/// One event of a scene's last update. Times are the scene's wall time in seconds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct OmoteSceneEvent {
    /// 0 a voice line started (play its audio from `t`), 1 a line was cut (stop its
    /// audio), 2 an expression key started, 3 the timeline reached a wait, 4 the player
    /// advanced, 5 the player skipped (from `from` to `to` on the timeline).
    pub kind: u32,
    /// The character's index (voice, cut, expression); -1 for the scene's own events.
    pub character: i32,
    /// Voice and cut: the line's index (`omote_scene_line_clip`); expression: the
    /// channel's id; wait: the wait's index; -1 otherwise.
    pub index: i32,
    /// Expression: the weight it moves to; 0 otherwise.
    pub weight: f32,
    /// Expression: 1 for a picture key (the additive layer), 0 for acting.
    pub picture: u32,
    /// Expression: 1 if it changes the eye area.
    pub eye_area: u32,
    /// Voice: 1 if the line has voice (`voiced_start`/`voiced_end` are set).
    pub voiced: u32,
    /// When it happened.
    pub t: f64,
    /// Voice: when its voice starts.
    pub voiced_start: f64,
    /// Voice: when its voice ends.
    pub voiced_end: f64,
    /// Skip: the timeline time before the jump.
    pub from: f32,
    /// Skip: the timeline time after the jump.
    pub to: f32,
}

impl From<&SceneEventInfo> for OmoteSceneEvent {
    fn from(e: &SceneEventInfo) -> Self {
        Self {
            kind: e.kind as u32,
            character: e.character,
            index: e.index,
            weight: e.weight,
            picture: u32::from(e.picture),
            eye_area: u32::from(e.eye_area),
            voiced: u32::from(e.voiced),
            t: e.t,
            voiced_start: e.voiced_start,
            voiced_end: e.voiced_end,
            from: e.from,
            to: e.to,
        }
    }
}

/// The host's resolver as the loader's `SceneFiles`.
struct HostFiles {
    read: unsafe extern "C" fn(*mut c_void, *const c_char, *mut OmoteFileSink) -> i32,
    user: *mut c_void,
}

impl HostFiles {
    fn call(&self, path: &Path, sink: *mut OmoteFileSink) -> bool {
        let Ok(c) = std::ffi::CString::new(path.to_string_lossy().as_bytes()) else {
            return false;
        };
        // SAFETY: the host's function, called as its contract says, with a live
        // NUL-terminated path and a sink (or null) valid for the call.
        unsafe { (self.read)(self.user, c.as_ptr(), sink) == 0 }
    }
}

impl SceneFiles for HostFiles {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let mut sink = OmoteFileSink { bytes: Vec::new() };
        if self.call(path, &mut sink) {
            Ok(sink.bytes)
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} (the host's resolver has none)", omote_fs::NO_SUCH_FILE),
            ))
        }
    }

    fn exists(&self, path: &Path) -> bool {
        self.call(path, std::ptr::null_mut())
    }
}

/// Appends `len` bytes to a file the resolver is reading (call it any number of times).
///
/// # Safety
/// `sink` is the one the resolver was given; `bytes` points at `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_file_sink_write(
    sink: *mut OmoteFileSink,
    bytes: *const u8,
    len: u32,
) -> OmoteStatus {
    guard("omote_file_sink_write", || {
        // SAFETY: the caller's promise.
        let bytes = unsafe { ptr::slice(bytes, len, "bytes")? };
        if sink.is_null() {
            return Err(FfiError::new(OmoteStatus::NullPointer, "`sink` is null"));
        }
        // SAFETY: non-null, and the sink the resolver was handed for this call.
        unsafe { (*sink).bytes.extend_from_slice(bytes) };
        Ok(())
    })
}

/// Loads a scene file (TOML, `docs/scene-format.md`); the files it names are read
/// relative to its folder. The error names the file, the line and the field.
///
/// # Safety
/// `path` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_load(
    path: *const c_char,
    out: *mut OmoteScene,
) -> OmoteStatus {
    guard("omote_scene_load", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let path = unsafe { ptr::path(path, "path")? };
        let player = ScenePlayer::load(path).map_err(FfiError::loading)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, SCENES.insert(player), "out") }
    })
}

/// A scene from its text; `name` stands for it in errors and its folder is where the
/// files it names are looked up — through `read` (with `user` passed back) when it is
/// not null, else on the filesystem.
///
/// # Safety
/// `text` and `name` are NUL-terminated; `read`, if not null, follows
/// [`OmoteReadFile`]'s contract; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_from_text(
    text: *const c_char,
    name: *const c_char,
    read: OmoteReadFile,
    user: *mut c_void,
    out: *mut OmoteScene,
) -> OmoteStatus {
    guard("omote_scene_from_text", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let text = match unsafe { ptr::text(text, "text") } {
            // A null text is said first, as every call says its first bad argument.
            Err(e) if e.status == OmoteStatus::NullPointer => return Err(e),
            text => text,
        };
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        // Text that is not UTF-8 (a WAV or an image read as a scene) is named by its file.
        let text = text.map_err(|mut e| {
            e.message = format!("{name}: {} (a scene is TOML text)", e.message);
            e
        })?;
        let player = match read {
            Some(read) => ScenePlayer::from_text(text, Path::new(name), &HostFiles { read, user }),
            None => ScenePlayer::from_text(text, Path::new(name), &omote_embed::FsFiles),
        }
        .map_err(FfiError::loading)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, SCENES.insert(player), "out") }
    })
}

/// Frees a scene.
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_free(scene: OmoteScene) -> OmoteStatus {
    guard("omote_scene_free", || SCENES.remove(scene))
}

fn with<R>(scene: OmoteScene, body: impl FnOnce(&mut ScenePlayer) -> FfiResult<R>) -> FfiResult<R> {
    let held = SCENES.get(scene)?;
    let mut s = held.lock("the scene")?;
    body(&mut s)
}

fn character(p: &ScenePlayer, i: u32) -> FfiResult<usize> {
    p.check_character(i as usize)?;
    Ok(i as usize)
}

/// 1: waits move on by themselves after their `hold` (an unattended preview); 0 (the
/// default): a wait holds until `omote_scene_advance`; other values are refused.
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_set_auto_advance(scene: OmoteScene, on: u32) -> OmoteStatus {
    guard("omote_scene_set_auto_advance", || {
        let on = ptr::flag(on, "on")?;
        with(scene, |p| {
            p.set_auto_advance(on);
            Ok(())
        })
    })
}

/// Advances the scene by `dt` seconds (finite and positive: one exact step; 0,
/// negative or NaN: nothing changes) and computes every character's frame.
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_update(scene: OmoteScene, dt: f32) -> OmoteStatus {
    guard("omote_scene_update", || {
        with(scene, |p| {
            p.update(dt);
            Ok(())
        })
    })
}

/// The player presses "next": a wait moves on, a line that plays is cut.
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_advance(scene: OmoteScene) -> OmoteStatus {
    guard("omote_scene_advance", || {
        with(scene, |p| {
            p.advance();
            Ok(())
        })
    })
}

/// The player skips to the next wait (or the end).
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_skip(scene: OmoteScene) -> OmoteStatus {
    guard("omote_scene_skip", || {
        with(scene, |p| {
            p.skip();
            Ok(())
        })
    })
}

/// Character `i`'s acted expression `name` set by the host (a branch the player chose,
/// the game's state), 0–1; it stays until changed. Only an expression the scene's acting
/// keys never move (those it writes every frame): one it keys is refused, naming it.
///
/// # Safety
/// `name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_expression(
    scene: OmoteScene,
    i: u32,
    name: *const c_char,
    weight: f32,
) -> OmoteStatus {
    guard("omote_scene_set_expression", || {
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        with(scene, |p| Ok(p.set_expression(i as usize, name, weight)?))
    })
}

/// Where the game's camera is, in the scene's frame (`x y z` metres, the frame of the
/// scene file's character `position`s: +Y up), for the next updates: it replaces the
/// scene's camera path — each character's camera-angle correction and `at = "camera"`
/// gaze follow it. Null gives the scene's path back. A bake replays the path. (ABI
/// minor 5.)
///
/// # Safety
/// `position` is null or points at 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_camera(
    scene: OmoteScene,
    position: *const f32,
) -> OmoteStatus {
    guard("omote_scene_set_camera", || {
        // SAFETY: the caller's promise.
        let position = unsafe { ptr::optional_array::<f32, 3>(position) };
        with(scene, |p| Ok(p.set_camera(position)?))
    })
}

/// Where character `i` looks from the next update on, over the scene's gaze keys (the
/// game's direction of a scene): `at` names the target as a scene file's gaze key does —
/// `"auto"`, `"camera"`, `"forward"` or another character's id. Null gives the keys
/// back. A bake replays the scene file alone. (ABI minor 6.)
///
/// # Safety
/// `at` is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_gaze(
    scene: OmoteScene,
    i: u32,
    at: *const c_char,
) -> OmoteStatus {
    guard("omote_scene_set_gaze", || {
        // SAFETY: the caller's promise.
        let at = unsafe { ptr::optional_text(at, "at")? };
        with(scene, |p| Ok(p.set_gaze(i as usize, at)?))
    })
}

/// Character `i` looks at `point` (`x y z` metres in the scene's frame, the frame of
/// the scene file's character `position`s: +Y up) from the next update on, over the
/// scene's gaze keys: the player's avatar, a prop. Null gives the keys back. (ABI
/// minor 6.)
///
/// # Safety
/// `point` is null or points at 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_gaze_point(
    scene: OmoteScene,
    i: u32,
    point: *const f32,
) -> OmoteStatus {
    guard("omote_scene_set_gaze_point", || {
        // SAFETY: the caller's promise.
        let point = unsafe { ptr::optional_array::<f32, 3>(point) };
        with(scene, |p| Ok(p.set_gaze_point(i as usize, point)?))
    })
}

/// Puts character `i`'s head at `position` (`x y z` metres in the scene's frame, as the
/// scene file's `position`) with its body turned `facing_deg` about +Y (0 faces +Z),
/// from the next update on: a game whose characters walk. Its gaze, the others' gaze at
/// it and its camera correction follow. A bake plays the file's placement. (ABI
/// minor 6.)
///
/// # Safety
/// `position` points at 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_placement(
    scene: OmoteScene,
    i: u32,
    position: *const f32,
    facing_deg: f32,
) -> OmoteStatus {
    guard("omote_scene_set_placement", || {
        // SAFETY: the caller's promise.
        let position = unsafe { ptr::slice(position, 3, "position")? };
        let position = [position[0], position[1], position[2]];
        with(scene, |p| {
            Ok(p.set_placement(i as usize, position, facing_deg)?)
        })
    })
}

/// How character `i`'s eyes behave while it is not speaking, from the next update on,
/// over the scene's eye-mode keys: `mode` as a scene file's `eyes` key names it —
/// `"idle"`, `"talking"`, `"listening"`, `"focused"` or `"auto"`. Null gives the keys
/// back. While the character speaks its eyes talk, as always. (ABI minor 6.)
///
/// # Safety
/// `mode` is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_set_eye_mode(
    scene: OmoteScene,
    i: u32,
    mode: *const c_char,
) -> OmoteStatus {
    guard("omote_scene_set_eye_mode", || {
        // SAFETY: the caller's promise.
        let mode = unsafe { ptr::optional_text(mode, "mode")? };
        with(scene, |p| Ok(p.set_eye_mode(i as usize, mode)?))
    })
}

/// The camera the faces follow, in the scene's frame (`x y z` metres): the game's
/// (`omote_scene_set_camera`) while it gives one, else the scene's path at the
/// timeline's time — a game can move its own camera along the authored path. `has` gets
/// 1 and `position` the three numbers, or 0 (and `position` is left alone) when the
/// scene has no camera. (ABI minor 5.)
///
/// # Safety
/// `position` points at room for 3 floats; `has` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_camera_position(
    scene: OmoteScene,
    position: *mut f32,
    has: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_camera_position", || {
        ptr::check_out(position, "position")?;
        ptr::check_out(has, "has")?;
        let camera = with(scene, |p| Ok(p.camera_position()))?;
        // SAFETY: the caller's promise, checked above.
        unsafe {
            if let Some(c) = camera {
                ptr::write(position.cast::<[f32; 3]>(), c, "position")?;
            }
            ptr::write(has, u32::from(camera.is_some()), "has")
        }
    })
}

/// [`omote_scene_set_expression`] eased over `seconds` (0–60) from the weight now, as
/// `omote_character_fade_expression`; it moves with the scene's updates.
///
/// # Safety
/// `name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_fade_expression(
    scene: OmoteScene,
    i: u32,
    name: *const c_char,
    weight: f32,
    seconds: f32,
) -> OmoteStatus {
    guard("omote_scene_fade_expression", || {
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        with(scene, |p| {
            Ok(p.fade_expression(i as usize, name, weight, seconds)?)
        })
    })
}

/// Where the scene is: its wall time (s), its timeline time (s, stops at waits),
/// whether it waits for the player and whether everything has played (1/0). Any output
/// may be null.
///
/// # Safety
/// Each non-null pointer is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_info(
    scene: OmoteScene,
    time_s: *mut f64,
    timeline_s: *mut f32,
    waiting: *mut u32,
    finished: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_info", || {
        with(scene, |p| {
            // SAFETY: the caller's promise for each non-null output.
            unsafe {
                if let Some(o) = ptr::optional_mut(time_s, 1) {
                    o[0] = p.time();
                }
                if let Some(o) = ptr::optional_mut(timeline_s, 1) {
                    o[0] = p.timeline_time();
                }
                if let Some(o) = ptr::optional_mut(waiting, 1) {
                    o[0] = u32::from(p.is_waiting());
                }
                if let Some(o) = ptr::optional_mut(finished, 1) {
                    o[0] = u32::from(p.is_finished());
                }
            }
            Ok(())
        })
    })
}

/// The number of characters.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_character_count(
    scene: OmoteScene,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_character_count", || {
        let n = with(scene, |p| Ok(p.len() as u32))?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// Character `i`'s id (as the scene file names it), like `omote_avatar_channel_name`.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_character_id(
    scene: OmoteScene,
    i: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_character_id", || {
        with(scene, |p| {
            let i = character(p, i)?;
            // SAFETY: the caller's promise.
            unsafe { ptr::write_text(p.id(i), buf, cap, len) }
        })
    })
}

/// The number of warnings the scene's loading gave: what it read but not whole (a voice
/// WAV cut short of what its header declares; what is there is used). Read each with
/// `omote_scene_warning`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_warning_count(
    scene: OmoteScene,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_warning_count", || {
        let n = with(scene, |p| Ok(p.warnings().len() as u32))?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// Warning `k` of the scene's loading (naming the scene's line and the file), like
/// `omote_avatar_channel_name`.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_warning(
    scene: OmoteScene,
    k: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_warning", || {
        with(scene, |p| {
            let warnings = p.warnings();
            let Some(w) = warnings.get(k as usize) else {
                return Err(FfiError::argument(format!(
                    "warning {k}: the scene has {}",
                    warnings.len()
                )));
            };
            // SAFETY: the caller's promise.
            unsafe { ptr::write_text(w, buf, cap, len) }
        })
    })
}

/// Character `i`'s channel count (its weight arrays' length).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_channel_count(
    scene: OmoteScene,
    i: u32,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_channel_count", || {
        let n = with(
            scene,
            |p| Ok(p.channel_names(character(p, i)?).len() as u32),
        )?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// Character `i`'s channel `id`'s name.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_channel_name(
    scene: OmoteScene,
    i: u32,
    id: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_channel_name", || {
        with(scene, |p| {
            let names = p.channel_names(character(p, i)?);
            let Some(name) = names.get(id as usize) else {
                return Err(FfiError::argument(format!(
                    "channel {id}: character {i} has {}",
                    names.len()
                )));
            };
            // SAFETY: the caller's promise.
            unsafe { ptr::write_text(name, buf, cap, len) }
        })
    })
}

/// The clip name of character `i`'s line `line` (the file name a voice event's audio
/// is, in the order the lines play).
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_line_clip(
    scene: OmoteScene,
    i: u32,
    line: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_line_clip", || {
        with(scene, |p| {
            let i = character(p, i)?;
            let Some(clip) = p.clip(i, line as usize) else {
                return Err(FfiError::argument(format!(
                    "line {line}: character {i} has {}",
                    p.line_count(i)
                )));
            };
            // SAFETY: the caller's promise.
            unsafe { ptr::write_text(clip, buf, cap, len) }
        })
    })
}

/// Copies one of character `i`'s outputs into the caller's `count` floats, without
/// allocating (a host reads these every frame): `pick` lends the output, or fills the
/// scratch array with one that is made by value (the rotations) and lends that.
///
/// # Safety
/// `out` points at `count` writable floats.
unsafe fn read(
    scene: OmoteScene,
    i: u32,
    out: *mut f32,
    count: u32,
    pick: impl for<'p> FnOnce(&'p ScenePlayer, usize, &'p mut [f32; 12]) -> &'p [f32],
) -> FfiResult {
    with(scene, |p| {
        let i = character(p, i)?;
        let mut scratch = [0.0; 12];
        let values = pick(p, i, &mut scratch);
        if values.len() != count as usize {
            return Err(FfiError::argument(format!(
                "`out` has room for {count} numbers; character {i} gives {}",
                values.len()
            )));
        }
        // SAFETY: the caller's promise.
        unsafe { ptr::slice_mut(out, count, "out")? }.copy_from_slice(values);
        Ok(())
    })
}

/// Character `i`'s weights after the VRM override rules (`count` = its channel count).
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_weights(
    scene: OmoteScene,
    i: u32,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    // SAFETY: the caller's promise, passed on.
    guard("omote_scene_weights", || unsafe {
        read(scene, i, out, count, |p, i, _| p.weights(i))
    })
}

/// Character `i`'s weights before the override rules.
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_input_weights(
    scene: OmoteScene,
    i: u32,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    // SAFETY: the caller's promise, passed on.
    guard("omote_scene_input_weights", || unsafe {
        read(scene, i, out, count, |p, i, _| p.input_weights(i))
    })
}

/// Character `i`'s head, left eye and right eye rotations (12 floats, `x y z w` each,
/// VRM frame, relative to the rest pose).
///
/// # Safety
/// `out` points at `count` (12) writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_rotations(
    scene: OmoteScene,
    i: u32,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    // SAFETY: the caller's promise, passed on.
    guard("omote_scene_rotations", || unsafe {
        read(scene, i, out, count, |p, i, scratch| {
            *scratch = p.rotations(i);
            scratch
        })
    })
}

/// Character `i`'s gaze after smoothing and saccades, degrees (yaw > 0: toward the
/// avatar's left; pitch > 0: down) — for players that turn the eyes through their own
/// look-at (UniVRM's yaw/pitch). It is the eyes' turn in the head (at most 25° each
/// way): where the character looks is this on top of the head's rotation
/// (`omote_scene_rotations`), which carries the rest of a larger turn.
///
/// # Safety
/// `yaw_deg` and `pitch_deg` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_gaze(
    scene: OmoteScene,
    i: u32,
    yaw_deg: *mut f32,
    pitch_deg: *mut f32,
) -> OmoteStatus {
    guard("omote_scene_gaze", || {
        ptr::check_out(yaw_deg, "yaw_deg")?;
        ptr::check_out(pitch_deg, "pitch_deg")?;
        let g = with(scene, |p| Ok(p.gaze(character(p, i)?)))?;
        // SAFETY: the caller's promise, checked above.
        unsafe {
            ptr::write(yaw_deg, g.yaw_deg, "yaw_deg")?;
            ptr::write(pitch_deg, g.pitch_deg, "pitch_deg")
        }
    })
}

/// The last update's events into `out` (room for `capacity`); `count` gets how many
/// there are, also when `out` is too small (`OMOTE_STATUS_BUFFER_TOO_SMALL`).
///
/// # Safety
/// `out` points at `capacity` writable events; `count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_events(
    scene: OmoteScene,
    out: *mut OmoteSceneEvent,
    capacity: u32,
    count: *mut u32,
) -> OmoteStatus {
    guard("omote_scene_events", || {
        ptr::check_out(count, "count")?;
        with(scene, |p| {
            let events = p.events();
            // SAFETY: checked above.
            unsafe { ptr::write(count, events.len() as u32, "count")? };
            if events.len() > capacity as usize {
                return Err(FfiError::new(
                    OmoteStatus::BufferTooSmall,
                    format!(
                        "`out` has room for {capacity} events; there are {}",
                        events.len()
                    ),
                ));
            }
            // SAFETY: the caller's promise.
            let out = unsafe { ptr::slice_mut(out, capacity, "out")? };
            for (o, e) in out.iter_mut().zip(events) {
                *o = e.into();
            }
            Ok(())
        })
    })
}

/// Bakes the scene from its start (a copy: the scene playing is not touched) at `fps`
/// with the player pressing "next" at the wall times `advances` and skipping at
/// `skips` (seconds; with no advances each wait holds for its own `hold`); one anim per
/// character into `out`, to write with `omote_anims_json` and `omote_anims_vrma`.
///
/// # Safety
/// `advances` and `skips` point at their counts of doubles; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_bake(
    scene: OmoteScene,
    fps: f32,
    advances: *const f64,
    advance_count: u32,
    skips: *const f64,
    skip_count: u32,
    out: *mut OmoteAnims,
) -> OmoteStatus {
    guard("omote_scene_bake", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let (advances, skips) = unsafe {
            (
                ptr::slice(advances, advance_count, "advances")?,
                ptr::slice(skips, skip_count, "skips")?,
            )
        };
        let anims = with(scene, |p| {
            let options = BakeOptions {
                fps,
                advances: advances.to_vec(),
                skips: skips.to_vec(),
                ..BakeOptions::default()
            };
            let baked = p.bake(&options)?;
            Ok(Anims::of_scene(baked, p))
        })?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, ANIMS.insert(anims), "out") }
    })
}

/// Starts recording a character: from its next update, each update with a step adds a
/// frame to an anim at `fps` (update at steps of `1 / fps` for the anim's timing).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_record(character: OmoteCharacter, fps: f32) -> OmoteStatus {
    guard("omote_character_record", || {
        let held = CHARACTERS.get(character)?;
        held.lock("the character")?.record(fps)?;
        Ok(())
    })
}

/// Ends a character's recording: its anim into `out` (one item, named `character`),
/// with `avatar`'s VRM for VRMA output (0: none).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_finish_recording(
    character: OmoteCharacter,
    avatar: OmoteAvatar,
    out: *mut OmoteAnims,
) -> OmoteStatus {
    guard("omote_character_finish_recording", || {
        ptr::check_out(out, "out")?;
        let model = if avatar == 0 {
            None
        } else {
            AVATARS.get(avatar)?.lock("the avatar")?.model.clone()
        };
        let held = CHARACTERS.get(character)?;
        let mut c = held.lock("the character")?;
        let Some(anim) = c.finish_recording() else {
            return Err(FfiError::argument(
                "the character is not recording (omote_character_record)",
            ));
        };
        let anims = Anims {
            items: vec![AnimItem {
                id: "character".into(),
                anim,
                model,
                neck_share: c.neck_share(),
            }],
        };
        // SAFETY: checked above.
        unsafe { ptr::write(out, ANIMS.insert(anims), "out") }
    })
}

/// Starts recording the scene as it plays (every character, with its events).
#[unsafe(no_mangle)]
pub extern "C" fn omote_scene_record(scene: OmoteScene, fps: f32) -> OmoteStatus {
    guard("omote_scene_record", || with(scene, |p| Ok(p.record(fps)?)))
}

/// Ends the scene's recording: one anim per character into `out`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_scene_finish_recording(
    scene: OmoteScene,
    out: *mut OmoteAnims,
) -> OmoteStatus {
    guard("omote_scene_finish_recording", || {
        ptr::check_out(out, "out")?;
        let anims = with(scene, |p| {
            let baked = p.finish_recording();
            if baked.is_empty() {
                return Err(FfiError::argument(
                    "the scene is not recording (omote_scene_record)",
                ));
            }
            Ok(Anims::of_scene(baked, p))
        })?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, ANIMS.insert(anims), "out") }
    })
}

/// Frees anims.
#[unsafe(no_mangle)]
pub extern "C" fn omote_anims_free(anims: OmoteAnims) -> OmoteStatus {
    guard("omote_anims_free", || ANIMS.remove(anims))
}

/// How many anims there are, and anim `i`'s character id and frame count.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_anims_count(anims: OmoteAnims, out: *mut u32) -> OmoteStatus {
    guard("omote_anims_count", || {
        let n = ANIMS.get(anims)?.lock("the anims")?.items.len() as u32;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// Copies `bytes` into the caller's buffer, two-call style: `len` always gets the size;
/// a buffer that is null or too small gets `OMOTE_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
unsafe fn write_bytes(bytes: &[u8], buf: *mut u8, cap: u32, len: *mut u32) -> FfiResult {
    let Ok(n) = u32::try_from(bytes.len()) else {
        return Err(FfiError::argument(format!(
            "{} bytes do not fit a uint32_t",
            bytes.len()
        )));
    };
    // SAFETY: the caller's promise.
    unsafe { ptr::write(len, n, "len")? };
    if cap < n {
        return Err(FfiError::new(
            OmoteStatus::BufferTooSmall,
            format!("the buffer holds {cap} bytes; {n} are needed"),
        ));
    }
    // SAFETY: the caller's promise.
    let out = unsafe { ptr::slice_mut(buf, cap, "buf")? };
    out[..bytes.len()].copy_from_slice(bytes);
    Ok(())
}

fn item<R>(
    anims: OmoteAnims,
    i: u32,
    body: impl FnOnce(&AnimItem) -> FfiResult<R>,
) -> FfiResult<R> {
    let held = ANIMS.get(anims)?;
    let a = held.lock("the anims")?;
    let Some(item) = a.items.get(i as usize) else {
        return Err(FfiError::argument(format!(
            "anim {i}: there are {}",
            a.items.len()
        )));
    };
    body(item)
}

/// Anim `i`'s character id (text, like `omote_avatar_channel_name`).
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_anims_id(
    anims: OmoteAnims,
    i: u32,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_anims_id", || {
        // SAFETY: the caller's promise.
        item(anims, i, |a| unsafe {
            ptr::write_text(&a.id, buf, cap, len)
        })
    })
}

/// Anim `i` as an anim JSON file's bytes (`docs/anim-format.md`). Call with a null
/// buffer for its size first.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_anims_json(
    anims: OmoteAnims,
    i: u32,
    buf: *mut u8,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_anims_json", || {
        item(anims, i, |a| {
            let json = omote_embed::anim_json(&a.anim)?;
            // SAFETY: the caller's promise.
            unsafe { write_bytes(json.as_bytes(), buf, cap, len) }
        })
    })
}

/// Anim `i` as a VRM Animation (`.vrma`) for its character's VRM (an error when it has
/// none: a rig file or the standard rig). A tracked character's recording splits the
/// head's turn with the neck at its tracking settings' `neckShare`.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_anims_vrma(
    anims: OmoteAnims,
    i: u32,
    buf: *mut u8,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_anims_vrma", || {
        item(anims, i, |a| {
            let Some(model) = &a.model else {
                return Err(FfiError::argument(format!(
                    "`{}` has no VRM to animate",
                    a.id
                )));
            };
            let (bytes, _) = omote_embed::vrma_with_neck_share(&a.anim, model, a.neck_share)?;
            // SAFETY: the caller's promise.
            unsafe { write_bytes(&bytes, buf, cap, len) }
        })
    })
}
