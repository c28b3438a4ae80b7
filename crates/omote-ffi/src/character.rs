//! Characters: one face each, driven frame by frame — inputs set between updates, then
//! `omote_character_update` (or `omote_character_step`, the update and the reads in one
//! call), then its outputs read into the caller's arrays.

use std::ffi::c_char;

use omote_core::{ChannelId, EyeMode, Quat, Rig, Vec3};
use omote_embed::{Character, Gaze};

use crate::avatar::{AVATARS, channel_index};
use crate::handle::{Held, Kind, Registry};
use crate::ptr;
use crate::status::{FfiError, FfiResult, guard};
use crate::voice::{STREAMS, TRACKS};
use crate::{OmoteAvatar, OmoteCharacter, OmoteStatus, OmoteTrack, OmoteVoiceStream};

pub(crate) static CHARACTERS: Registry<Character> = Registry::new(Kind::Character);

/// An expression channel and a weight (an afterglow mouth's entries).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct OmoteWeight {
    /// The channel's id (its index in the avatar's channels).
    pub channel: u32,
    /// Its weight, 0–1.
    pub weight: f32,
}

/// What happened in a character's last update.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OmoteFrameEvents {
    /// Blinks that started (0 or 1, rarely more).
    pub blinks: u32,
    /// Saccades that started.
    pub saccades: u32,
    /// 1 if a voice line's voice started (the mouth opened with it).
    pub voice_started: u32,
    /// 1 if a voice line handed the mouth over to the acting (0.2 s before its end, or
    /// at a cut).
    pub handed_over: u32,
}

/// Runs `body` on the character behind `handle`.
fn with<R>(
    handle: OmoteCharacter,
    body: impl FnOnce(&mut Character) -> FfiResult<R>,
) -> FfiResult<R> {
    let held: Held<Character> = CHARACTERS.get(handle)?;
    let mut c = held.lock("the character")?;
    body(&mut c)
}

/// Channel `id` of `rig`.
pub(crate) fn channel_at(rig: &Rig, id: u32) -> FfiResult<ChannelId> {
    rig.channels()
        .nth(id as usize)
        .map(|(c, _)| c)
        .ok_or_else(|| {
            FfiError::argument(format!(
                "channel {id}: the avatar has {} (0–{})",
                rig.len(),
                rig.len().saturating_sub(1)
            ))
        })
}

/// Copies `from` into the caller's `len` floats, which must be exactly as many.
///
/// # Safety
/// `out` points at `len` writable floats.
unsafe fn copy_out(from: &[f32], out: *mut f32, len: u32, what: &str) -> FfiResult {
    if len as usize != from.len() {
        return Err(FfiError::argument(format!(
            "`{what}` has room for {len} numbers; this character has {}",
            from.len()
        )));
    }
    // SAFETY: the caller's promise.
    unsafe { ptr::slice_mut(out, len, what)? }.copy_from_slice(from);
    Ok(())
}

/// A character for `avatar` (which may be freed afterwards), its blinks and saccades
/// seeded with `seed`: the same avatar, seed and calls give the same frames, to the bit.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_new(
    avatar: OmoteAvatar,
    seed: u64,
    out: *mut OmoteCharacter,
) -> OmoteStatus {
    guard("omote_character_new", || {
        ptr::check_out(out, "out")?;
        let held = AVATARS.get(avatar)?;
        let character = Character::from_avatar(&*held.lock("the avatar")?, seed)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, CHARACTERS.insert(character), "out") }
    })
}

/// Frees a character.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_free(character: OmoteCharacter) -> OmoteStatus {
    guard("omote_character_free", || CHARACTERS.remove(character))
}

/// The number of channels: the length of its weight arrays.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_channel_count(
    character: OmoteCharacter,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_character_channel_count", || {
        let n = with(character, |c| Ok(c.channel_names().len() as u32))?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, n, "out") }
    })
}

/// The id of the channel called `name`.
///
/// # Safety
/// `name` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_channel_id(
    character: OmoteCharacter,
    name: *const c_char,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_character_channel_id", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        let id = with(character, |c| channel_index(c.rig(), name))?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, id, "out") }
    })
}

/// Sets an acted expression (the base layer; the host's own expressions go here too),
/// clamped to 0–1; NaN is refused.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_expression(
    character: OmoteCharacter,
    id: u32,
    weight: f32,
) -> OmoteStatus {
    guard("omote_character_set_expression", || {
        with(character, |c| {
            Ok(c.set_expression(channel_at(c.rig(), id)?, weight)?)
        })
    })
}

/// [`omote_character_set_expression`] by name.
///
/// # Safety
/// `name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_set_expression_named(
    character: OmoteCharacter,
    name: *const c_char,
    weight: f32,
) -> OmoteStatus {
    guard("omote_character_set_expression_named", || {
        // SAFETY: the caller's promise.
        let name = unsafe { ptr::text(name, "name")? };
        with(character, |c| Ok(c.set_expression_named(name, weight)?))
    })
}

/// Moves an acted expression from its weight now to `weight` over `seconds` (0–60; 0: at
/// once), eased in and out as a scene key's fade: an emotion that changes rather than
/// jumps. A later fade of the same expression starts from where this one got to;
/// `omote_character_set_expression` ends it.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_fade_expression(
    character: OmoteCharacter,
    id: u32,
    weight: f32,
    seconds: f32,
) -> OmoteStatus {
    guard("omote_character_fade_expression", || {
        with(character, |c| {
            Ok(c.fade_expression(channel_at(c.rig(), id)?, weight, seconds)?)
        })
    })
}

/// Sets a picture-making adjustment (the additive layer, on top of everything).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_picture(
    character: OmoteCharacter,
    id: u32,
    weight: f32,
) -> OmoteStatus {
    guard("omote_character_set_picture", || {
        with(character, |c| {
            Ok(c.set_picture(channel_at(c.rig(), id)?, weight)?)
        })
    })
}

/// Sets the acted gaze in degrees (yaw > 0: toward the avatar's left; pitch > 0: down),
/// clamped to ±90°; saccades play around it.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_gaze(
    character: OmoteCharacter,
    yaw_deg: f32,
    pitch_deg: f32,
) -> OmoteStatus {
    guard("omote_character_set_gaze", || {
        with(
            character,
            |c| Ok(c.set_gaze(Gaze::new(yaw_deg, pitch_deg))?),
        )
    })
}

/// Points the gaze at a target given in the head bone's local frame (+Z ahead, +X the
/// avatar's left, +Y up): turn the target's world position into the animated head's
/// space each frame and the eyes follow it while the host's animation turns the head.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_gaze_target(
    character: OmoteCharacter,
    x: f32,
    y: f32,
    z: f32,
) -> OmoteStatus {
    guard("omote_character_set_gaze_target", || {
        with(character, |c| Ok(c.set_gaze_target(Vec3::new(x, y, z))?))
    })
}

/// Sets the acted head rotation (`x y z w`, VRM frame, relative to the rest pose).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_head(
    character: OmoteCharacter,
    x: f32,
    y: f32,
    z: f32,
    w: f32,
) -> OmoteStatus {
    guard("omote_character_set_head", || {
        with(character, |c| Ok(c.set_head(Quat::from_xyzw(x, y, z, w))?))
    })
}

/// Sets the eye mode: 0 idle, 1 talking, 2 listening, 3 focused (blink rate and gaze
/// behaviour; while a line plays the face is talking anyway).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_eye_mode(
    character: OmoteCharacter,
    mode: u32,
) -> OmoteStatus {
    guard("omote_character_set_eye_mode", || {
        let Some(&mode) = EyeMode::ALL.get(mode as usize) else {
            return Err(FfiError::argument(format!(
                "eye mode {mode}: 0 idle, 1 talking, 2 listening, 3 focused"
            )));
        };
        with(character, |c| {
            c.set_eye_mode(mode);
            Ok(())
        })
    })
}

/// Asks for a blink `delay_s` seconds from now (0: as soon as the eyes are free); a
/// negative, NaN or infinite delay is an error.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_request_blink(
    character: OmoteCharacter,
    delay_s: f32,
) -> OmoteStatus {
    guard("omote_character_request_blink", || {
        with(character, |c| Ok(c.request_blink(delay_s)?))
    })
}

/// Announces an eye-area change (a surprised key, eyes shut) `in_s` seconds ahead on the
/// host's own timeline: no automatic blink starts shortly before it. A negative or NaN
/// time, or a full queue (16 waiting), is an error.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_announce_eye_change(
    character: OmoteCharacter,
    in_s: f32,
) -> OmoteStatus {
    guard("omote_character_announce_eye_change", || {
        with(character, |c| Ok(c.announce_eye_change(in_s)?))
    })
}

/// Turns tracking on (the default retargeting): tracked faces set with
/// [`omote_character_set_tracked`] drive the face over the acting; a lost face fades back.
/// [`omote_character_enable_tracking_with`] takes settings.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_enable_tracking(character: OmoteCharacter) -> OmoteStatus {
    guard("omote_character_enable_tracking", || {
        with(character, |c| Ok(c.enable_tracking(Default::default())?))
    })
}

/// [`omote_character_enable_tracking`] with tracking settings: `settings_json` is JSON
/// text with any of the fields of a tracking settings file (docs/tracking-format.md),
/// e.g. `{"mirror": true}` for a selfie camera, or null for the defaults; an unknown
/// field or a number out of range is refused by name and changes nothing. Calling it
/// again starts tracking afresh with the new settings (calibration and the fade-in
/// start over). (ABI minor 5.)
///
/// # Safety
/// `settings_json` is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_enable_tracking_with(
    character: OmoteCharacter,
    settings_json: *const c_char,
) -> OmoteStatus {
    guard("omote_character_enable_tracking_with", || {
        let settings = if settings_json.is_null() {
            Default::default()
        } else {
            // SAFETY: the caller's promise.
            omote_embed::tracking_settings(unsafe { ptr::text(settings_json, "settings_json")? })?
        };
        with(character, |c| Ok(c.enable_tracking(settings)?))
    })
}

/// Turns the camera-angle face correction on (once): with `motion_map_toml` a motion map
/// (`docs/motion-map.md`) as TOML text, or omote's built-in anime-face map when null
/// (it drives ARKit blendshapes: an avatar with some gets those, one with none is
/// refused, and needs a map of its own expressions).
/// Then `omote_character_set_camera` says where the camera is.
///
/// # Safety
/// `motion_map_toml` is null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_enable_camera(
    character: OmoteCharacter,
    motion_map_toml: *const c_char,
) -> OmoteStatus {
    guard("omote_character_enable_camera", || {
        let map = if motion_map_toml.is_null() {
            None
        } else {
            // SAFETY: the caller's promise.
            Some(unsafe { ptr::text(motion_map_toml, "motion_map_toml")? })
        };
        with(character, |c| {
            let correction = omote_embed::camera_correction(c.rig(), map)?;
            Ok(c.enable_camera(correction)?)
        })
    })
}

/// Where the camera is for the next updates: `x y z` in metres relative to the head's
/// centre, in the body's frame (VRM: +Y up, +Z the avatar's front); the face turns it
/// into the camera angle with this frame's head. Null keeps the last correction.
///
/// # Safety
/// `position` is null or points at 3 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_set_camera(
    character: OmoteCharacter,
    position: *const f32,
) -> OmoteStatus {
    guard("omote_character_set_camera", || {
        // SAFETY: the caller's promise.
        let position = unsafe { ptr::optional_array::<f32, 3>(position) }.map(Vec3::from_array);
        with(character, |c| Ok(c.set_camera(position)?))
    })
}

/// The tracked face for the next updates: `count` must be 52 ARKit scores in ARKit's
/// order (`omote_arkit_name`), `head` null or 4 numbers (`x y z w`, relative to the
/// camera, VRM frame). Needs [`omote_character_enable_tracking`].
///
/// # Safety
/// `scores` points at `count` floats; `head` is null or points at 4 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_set_tracked(
    character: OmoteCharacter,
    scores: *const f32,
    count: u32,
    head: *const f32,
) -> OmoteStatus {
    guard("omote_character_set_tracked", || {
        // SAFETY: the caller's promise.
        let scores = unsafe { ptr::slice(scores, count, "scores")? };
        // SAFETY: the caller's promise.
        let head = unsafe { ptr::optional_array::<f32, 4>(head) }.map(Quat::from_array);
        with(character, |c| Ok(c.set_tracked_arkit(scores, head)?))
    })
}

/// The tracked face for the next updates from named scores, as trackers report them
/// (MediaPipe's `faceBlendshapes`: ARKit names in any spelling, `jawOpen`, `JawOpen`,
/// `eyeBlink_L`; names that are not ARKit's, like MediaPipe's `_neutral`, are skipped;
/// missing ones are 0) and, unless `head_row_major` is null, the head as a row-major 4×4
/// transform (an ARKit face anchor's; MediaPipe's facial transformation matrix is
/// column-major: transpose it). Needs [`omote_character_enable_tracking`].
/// `omote_arkit_index` maps names once, for hosts that fill the 52 scores themselves.
///
/// # Safety
/// `names` points at `count` NUL-terminated strings, `scores` at `count` floats;
/// `head_row_major` is null or points at 16 floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_set_tracked_named(
    character: OmoteCharacter,
    names: *const *const c_char,
    scores: *const f32,
    count: u32,
    head_row_major: *const f32,
) -> OmoteStatus {
    guard("omote_character_set_tracked_named", || {
        // SAFETY: the caller's promise.
        let pointers = unsafe { ptr::slice(names, count, "names")? };
        // SAFETY: the caller's promise.
        let scores = unsafe { ptr::slice(scores, count, "scores")? };
        let mut texts = Vec::with_capacity(pointers.len());
        for (i, &p) in pointers.iter().enumerate() {
            if p.is_null() {
                return Err(FfiError::argument(format!("`names[{i}]` is null")));
            }
            // SAFETY: the caller's promise: each is NUL-terminated.
            texts.push(unsafe { ptr::text(p, "a name")? });
        }
        // SAFETY: the caller's promise.
        let head = unsafe { ptr::optional_array::<f32, 16>(head_row_major) };
        with(character, |c| {
            Ok(c.set_tracked_named(&texts, scores, head.as_ref().map(|m| &m[..]))?)
        })
    })
}

/// Takes the user's neutral head pose from the next `seconds` of tracked faces (0: the
/// next face): what a "calibrate" button does while the user looks straight at the
/// screen. Needs [`omote_character_enable_tracking`].
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_calibrate_tracking(
    character: OmoteCharacter,
    seconds: f32,
) -> OmoteStatus {
    guard("omote_character_calibrate_tracking", || {
        with(character, |c| Ok(c.calibrate_tracking(seconds)?))
    })
}

/// The tracker lost the face: the face fades back to the acting.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_tracking_lost(character: OmoteCharacter) -> OmoteStatus {
    guard("omote_character_set_tracking_lost", || {
        with(character, |c| {
            c.set_tracked(None);
            Ok(())
        })
    })
}

/// Says a voice line now (a track from `omote_analyse_voice` or `omote_speaker_analyse`),
/// with an afterglow mouth after it (`afterglow_count` entries, may be 0). The mouth
/// starts with the voice and hands over into the acting 0.2 s before its end.
///
/// # Safety
/// `afterglow` points at `afterglow_count` entries (may be null when 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_say(
    character: OmoteCharacter,
    track: OmoteTrack,
    afterglow: *const OmoteWeight,
    afterglow_count: u32,
) -> OmoteStatus {
    guard("omote_character_say", || {
        // SAFETY: the caller's promise, passed on.
        unsafe { say_at(character, track, afterglow, afterglow_count, 0.0) }
    })
}

/// [`omote_character_say`] with the line already `elapsed_s` seconds in when the next
/// update starts: a line whose audio started earlier, or a line put back on its audio
/// after a hitch (a `dt` over 0.25 s is one frame for the face while the mixer played
/// on: after that update, say the line again at the sound's playback position; the next
/// update moves on from there).
///
/// # Safety
/// `afterglow` points at `afterglow_count` entries (may be null when 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_say_at(
    character: OmoteCharacter,
    track: OmoteTrack,
    afterglow: *const OmoteWeight,
    afterglow_count: u32,
    elapsed_s: f32,
) -> OmoteStatus {
    guard("omote_character_say_at", || {
        // SAFETY: the caller's promise, passed on.
        unsafe { say_at(character, track, afterglow, afterglow_count, elapsed_s) }
    })
}

/// A line said `elapsed_s` in: what `omote_character_say` and `_say_at` both do.
///
/// # Safety
/// `afterglow` points at `afterglow_count` entries (may be null when 0).
unsafe fn say_at(
    character: OmoteCharacter,
    track: OmoteTrack,
    afterglow: *const OmoteWeight,
    afterglow_count: u32,
    elapsed_s: f32,
) -> FfiResult {
    // SAFETY: the caller's promise.
    let glow = unsafe { ptr::slice(afterglow, afterglow_count, "afterglow")? };
    let track = TRACKS.get(track)?;
    let held = track.lock("the track")?;
    let analysis = &held.analysis;
    with(character, |c| {
        let rig = c.rig().clone();
        let glow = glow
            .iter()
            .map(|w| Ok((channel_at(&rig, w.channel)?, w.weight)))
            .collect::<FfiResult<Vec<_>>>()?;
        Ok(c.say_analysis_at(analysis, &glow, elapsed_s)?)
    })
}

/// Stops the line that plays (the mouth hands over from now, no snap).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_cut(character: OmoteCharacter) -> OmoteStatus {
    guard("omote_character_cut", || {
        with(character, |c| {
            c.cut();
            Ok(())
        })
    })
}

/// How long a line's afterglow stays at full once the line has ended, and how long it
/// then takes to release (seconds; a hold of infinity, the default: until the next
/// line). A negative or NaN time, or an infinite release, is an error.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_set_afterglow_timing(
    character: OmoteCharacter,
    hold_s: f32,
    release_s: f32,
) -> OmoteStatus {
    guard("omote_character_set_afterglow_timing", || {
        with(
            character,
            |c| Ok(c.set_afterglow_timing(hold_s, release_s)?),
        )
    })
}

/// Releases the afterglow showing now to 0 over `release_s` seconds (0: at once); a
/// line playing keeps its own. A negative, NaN or infinite time is an error.
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_clear_afterglow(
    character: OmoteCharacter,
    release_s: f32,
) -> OmoteStatus {
    guard("omote_character_clear_afterglow", || {
        with(character, |c| Ok(c.clear_afterglow(release_s)?))
    })
}

/// Whether the character speaks a voice line now (1) or not (0): from the line's voiced
/// onset until its hand-over into the acting (0.2 s before the voice ends) — not in the
/// line's leading silence nor its tail, so not "the line is still playing" (that is the
/// line's own length, `omote_track_info`).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_is_speaking(
    character: OmoteCharacter,
    out: *mut u32,
) -> OmoteStatus {
    guard("omote_character_is_speaking", || {
        let speaking = with(character, |c| Ok(c.is_speaking()))?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, u32::from(speaking), "out") }
    })
}

/// The live voice for the next update from numbers: 5 or 6 (A I U E O, N not read) and
/// whether the frame is voiced (0 or 1; other values are refused). Updates without a new frame keep the last one for
/// up to 0.1 s of updates; then the voice counts as silent and the mouth
/// closes (a sound stopped, an audio thread stalled).
///
/// # Safety
/// `vowels` points at `count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_set_live_vowels(
    character: OmoteCharacter,
    vowels: *const f32,
    count: u32,
    voiced: u32,
) -> OmoteStatus {
    guard("omote_character_set_live_vowels", || {
        // SAFETY: the caller's promise.
        let vowels = unsafe { ptr::slice(vowels, count, "vowels")? };
        let voiced = ptr::flag(voiced, "voiced")?;
        with(character, |c| Ok(c.set_live_vowels(vowels, voiced)?))
    })
}

/// Hears live samples (mono, −1..1): pushes them into `stream` (at its rate) and takes
/// the newest frame they complete as the live voice for the next update (held as
/// `omote_character_set_live_vowels` says).
///
/// # Safety
/// `samples` points at `count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_hear(
    character: OmoteCharacter,
    stream: OmoteVoiceStream,
    samples: *const f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_character_hear", || {
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        let stream = STREAMS.get(stream)?;
        let mut stream = stream.lock("the voice stream")?;
        with(character, |c| Ok(c.hear(&mut stream, samples)?))
    })
}

/// Advances the face by `dt` seconds and computes its frame. Finite and positive up to
/// 0.25 s: a step of exactly `dt`. Longer (a pause, a breakpoint): one normal frame (the
/// last step taken, 1/60 s before any), so the face resumes where it was without a
/// jump, a voice line too. 0, negative, NaN or infinite: no time passes (the frame is
/// recomputed from the inputs).
#[unsafe(no_mangle)]
pub extern "C" fn omote_character_update(character: OmoteCharacter, dt: f32) -> OmoteStatus {
    guard("omote_character_update", || {
        with(character, |c| {
            c.update(dt);
            Ok(())
        })
    })
}

/// The weights after the VRM override rules (what the face shows), `count` = the
/// channel count: for players that apply no rules (VRM 0.x, three-vrm with its rules off).
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_weights(
    character: OmoteCharacter,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_character_weights", || {
        // SAFETY: the caller's promise.
        with(character, |c| unsafe {
            copy_out(c.weights(), out, count, "out")
        })
    })
}

/// The weights before the override rules, for players that apply them (UniVRM 1.0's
/// `SetWeight`, VRMA).
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_input_weights(
    character: OmoteCharacter,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_character_input_weights", || {
        // SAFETY: the caller's promise.
        with(character, |c| unsafe {
            copy_out(c.input_weights(), out, count, "out")
        })
    })
}

/// Head, left eye and right eye rotations, `x y z w` each (12 floats), VRM frame,
/// relative to the rest pose: multiply each onto the host's animated local rotation.
///
/// # Safety
/// `out` points at `count` (12) writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_rotations(
    character: OmoteCharacter,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_character_rotations", || {
        // SAFETY: the caller's promise.
        with(character, |c| unsafe {
            copy_out(&c.rotations(), out, count, "out")
        })
    })
}

/// The gaze after smoothing and saccades, degrees.
///
/// # Safety
/// `yaw_deg` and `pitch_deg` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_gaze(
    character: OmoteCharacter,
    yaw_deg: *mut f32,
    pitch_deg: *mut f32,
) -> OmoteStatus {
    guard("omote_character_gaze", || {
        ptr::check_out(yaw_deg, "yaw_deg")?;
        ptr::check_out(pitch_deg, "pitch_deg")?;
        let g = with(character, |c| Ok(c.gaze()))?;
        // SAFETY: the caller's promise, checked above.
        unsafe {
            ptr::write(yaw_deg, g.yaw_deg, "yaw_deg")?;
            ptr::write(pitch_deg, g.pitch_deg, "pitch_deg")
        }
    })
}

fn frame_events(c: &Character) -> OmoteFrameEvents {
    let mut e = OmoteFrameEvents::default();
    for event in c.events().iter() {
        match event {
            omote_core::FaceEvent::Blink(_) => e.blinks += 1,
            omote_core::FaceEvent::Saccade(_) => e.saccades += 1,
        }
    }
    let line = c.line_events();
    e.voice_started = u32::from(line.voice_started);
    e.handed_over = u32::from(line.handed_over);
    e
}

/// What happened in the last update.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_events(
    character: OmoteCharacter,
    out: *mut OmoteFrameEvents,
) -> OmoteStatus {
    guard("omote_character_events", || {
        let e = with(character, |c| Ok(frame_events(c)))?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, e, "out") }
    })
}

/// One frame in one call, for hosts where each call costs (C# P/Invoke): update by `dt`,
/// then fill whichever outputs are not null — `weights` (after the rules) and
/// `input_weights` (before them), `count` each — exactly the character's channel count
/// (`omote_character_channel_count`) — `rotations` (12), `events`. Lengths are checked
/// before the update, so a wrong one changes nothing.
///
/// # Safety
/// Each non-null output points at its length of writable floats / a writable struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_character_step(
    character: OmoteCharacter,
    dt: f32,
    weights: *mut f32,
    input_weights: *mut f32,
    count: u32,
    rotations: *mut f32,
    events: *mut OmoteFrameEvents,
) -> OmoteStatus {
    guard("omote_character_step", || {
        with(character, |c| {
            let n = c.channel_names().len();
            if (!weights.is_null() || !input_weights.is_null()) && count as usize != n {
                return Err(FfiError::argument(format!(
                    "`count` is {count}: it must be this character's channel count, {n} (the weight arrays hold one number per channel)"
                )));
            }
            c.update(dt);
            // SAFETY: the caller's promise for each non-null output.
            unsafe {
                if let Some(out) = ptr::optional_mut(weights, count) {
                    out.copy_from_slice(c.weights());
                }
                if let Some(out) = ptr::optional_mut(input_weights, count) {
                    out.copy_from_slice(c.input_weights());
                }
                if let Some(out) = ptr::optional_mut(rotations, 12) {
                    out.copy_from_slice(&c.rotations());
                }
                if !events.is_null() {
                    ptr::write(events, frame_events(c), "events")?;
                }
            }
            Ok(())
        })
    })
}
