//! Audio files for lip sync: a voice line's file decoded to the mono samples the
//! analysis reads, so a C or C# host need not carry its own decoder to bake lines.

use std::ffi::c_char;

use omote_embed::{ANALYSIS_RATE, EmbedError, analyse_voice_file, load_voice_with_warning};

use crate::handle::{Kind, Registry};
use crate::ptr;
use crate::status::{FfiError, OmoteStatus, guard};
use crate::voice::{SPEAKERS, TRACKS, Track};
use crate::{OmoteSpeaker, OmoteTrack, OmoteVoiceFile};

// The docs below say 16 kHz.
const _: () = assert!(ANALYSIS_RATE == 16_000.0);

pub(crate) static VOICE_FILES: Registry<VoiceFile> = Registry::new(Kind::VoiceFile);

/// A decoded file: its samples at [`ANALYSIS_RATE`], and the warning its reading gave.
pub(crate) struct VoiceFile {
    samples: Vec<f32>,
    warning: Option<String>,
}

/// Loads an audio file (WAV, FLAC, OGG or MP3, told by its content; `path`: UTF-8, or on Unix any bytes)
/// as mono samples at 16 kHz, decoded and resampled as `omote lipsync` reads its inputs,
/// so its track is the CLI's to the bit. Read them with `omote_voice_file_info` and
/// `omote_voice_file_samples`, then give them to `omote_analyse_voice`,
/// `omote_speaker_add_line` or a stream. A WAV cut short of what its header declares is
/// read as far as it goes, with a warning (`omote_voice_file_warning`).
///
/// # Safety
/// `path` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_file_load(
    path: *const c_char,
    out: *mut OmoteVoiceFile,
) -> OmoteStatus {
    guard("omote_voice_file_load", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let path = unsafe { ptr::path(path, "path")? };
        let (samples, warning) = load_voice_with_warning(path).map_err(FfiError::loading)?;
        if u32::try_from(samples.len()).is_err() {
            return Err(FfiError::new(
                OmoteStatus::LoadFailed,
                format!(
                    "{}: {} samples are more than one call can hand over (74 hours at 16 kHz)",
                    path.display(),
                    samples.len()
                ),
            ));
        }
        let file = VoiceFile { samples, warning };
        // SAFETY: checked above.
        unsafe { ptr::write(out, VOICE_FILES.insert(file), "out") }
    })
}

/// Frees a voice file.
#[unsafe(no_mangle)]
pub extern "C" fn omote_voice_file_free(file: OmoteVoiceFile) -> OmoteStatus {
    guard("omote_voice_file_free", || VOICE_FILES.remove(file))
}

/// A voice file's sample count, its sample rate (16000) and whether its reading gave a
/// warning (1) or not (0). Any output may be null.
///
/// # Safety
/// Each non-null pointer is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_file_info(
    file: OmoteVoiceFile,
    samples: *mut u32,
    sample_rate: *mut f64,
    has_warning: *mut u32,
) -> OmoteStatus {
    guard("omote_voice_file_info", || {
        let held = VOICE_FILES.get(file)?;
        let f = held.lock("the voice file")?;
        // SAFETY: the caller's promise for each non-null output.
        unsafe {
            if let Some(o) = ptr::optional_mut(samples, 1) {
                o[0] = f.samples.len() as u32;
            }
            if let Some(o) = ptr::optional_mut(sample_rate, 1) {
                o[0] = ANALYSIS_RATE;
            }
            if let Some(o) = ptr::optional_mut(has_warning, 1) {
                o[0] = u32::from(f.warning.is_some());
            }
        }
        Ok(())
    })
}

/// A voice file's samples: `count` is its sample count (`omote_voice_file_info`).
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_file_samples(
    file: OmoteVoiceFile,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_voice_file_samples", || {
        let held = VOICE_FILES.get(file)?;
        let f = held.lock("the voice file")?;
        if count as usize != f.samples.len() {
            return Err(FfiError::argument(format!(
                "`out` has room for {count} samples; the file has {}",
                f.samples.len()
            )));
        }
        // SAFETY: the caller's promise.
        unsafe { ptr::slice_mut(out, count, "out")? }.copy_from_slice(&f.samples);
        Ok(())
    })
}

/// The warning the file's reading gave (naming the file), like
/// `omote_avatar_channel_name`; the empty text when there is none.
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_file_warning(
    file: OmoteVoiceFile,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_voice_file_warning", || {
        let held = VOICE_FILES.get(file)?;
        let f = held.lock("the voice file")?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write_text(f.warning.as_deref().unwrap_or(""), buf, cap, len) }
    })
}

/// Analyses an audio file (WAV, FLAC, OGG or MP3, told by its content; `path` as for
/// `omote_voice_file_load`) into a track as `omote lipsync FILE` does: read whole when it
/// is short; longer than 10 minutes, streamed (memory flat in its length, as
/// `omote lipsync --stream` reads), so hours of audio need no buffer of samples. With a
/// speaker (`speaker` not 0), read against its lines, as the CLI reads a folder's files;
/// `profile`: a lip sync profile's NUL-terminated JSON, or null for the built-in one. The
/// reading's warning (a WAV cut short, samples that are not numbers) stays on the track:
/// `omote_track_warning`.
///
/// # Safety
/// `path` is a NUL-terminated string; `profile` is null or NUL-terminated; `out` is
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_analyse_voice_file(
    path: *const c_char,
    speaker: OmoteSpeaker,
    profile: *const c_char,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_analyse_voice_file", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let path = unsafe { ptr::path(path, "path")? };
        // SAFETY: the caller's promise.
        let profile = unsafe { ptr::optional_text(profile, "profile")? };
        // The speaker's voice copied out (exactly: its numbers), so a long file's minutes
        // of reading never hold the speaker from the host's other threads.
        let voice = match speaker {
            0 => None,
            s => {
                let held = SPEAKERS.get(s)?;
                let numbers = held.lock("the speaker")?.to_numbers();
                Some(omote_embed::Speaker::from_numbers(&numbers)?)
            }
        };
        let read = analyse_voice_file(path, voice.as_ref(), profile).map_err(|e| match e {
            // A file that is not audio is a load failure; a bad profile an argument.
            EmbedError::AudioFile(_) => FfiError::loading(e),
            e => FfiError::from(e),
        })?;
        let track = Track {
            analysis: read.analysis,
            warning: read.warning,
        };
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(track), "out") }
    })
}

/// The warning the track's file gave when it was read (`omote_analyse_voice_file`,
/// naming the file), like `omote_voice_file_warning`; the empty text when there is none
/// (and for a track made from samples or frames).
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_track_warning(
    track: OmoteTrack,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_track_warning", || {
        let held = TRACKS.get(track)?;
        let t = held.lock("the track")?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write_text(t.warning.as_deref().unwrap_or(""), buf, cap, len) }
    })
}
