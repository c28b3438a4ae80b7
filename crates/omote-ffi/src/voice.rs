//! Lip sync: a clip analysed into a track (alone, or against its speaker's other
//! lines), a speaker, and a live stream at any rate and chunk size.

use std::ffi::c_char;

use omote_embed::{
    Speaker, VOICE_FRAME_STRIDE, VOICE_SEED_LEN, VoiceAnalysis, VoiceStream, analyse_voice,
    analyse_voice_with_profile, builtin_voice_profile, calibrate_voice_from_card,
};

use crate::handle::{Kind, Registry};
use crate::ptr;
use crate::status::{FfiError, guard};
use crate::{OmoteSpeaker, OmoteStatus, OmoteTrack, OmoteVoiceStream};

pub(crate) static TRACKS: Registry<Track> = Registry::new(Kind::Track);

/// A track, and the warning its file's reading gave (`omote_analyse_voice_file`; none for
/// samples or frames).
pub(crate) struct Track {
    pub analysis: VoiceAnalysis,
    pub warning: Option<String>,
}

impl From<VoiceAnalysis> for Track {
    fn from(analysis: VoiceAnalysis) -> Self {
        Self {
            analysis,
            warning: None,
        }
    }
}
pub(crate) static SPEAKERS: Registry<Speaker> = Registry::new(Kind::Speaker);
pub(crate) static STREAMS: Registry<VoiceStream> = Registry::new(Kind::VoiceStream);

/// Numbers per frame of a track: A I U E O N.
pub const OMOTE_TRACK_STRIDE: u32 = 6;
/// Numbers per frame of a voice stream: A I U E O N, volume, voiced (0/1).
pub const OMOTE_STREAM_STRIDE: u32 = 8;
/// Numbers in a speaker's voice seed.
pub const OMOTE_VOICE_SEED_LEN: u32 = 13;

// The header's numbers are literals (cbindgen cannot follow another crate's constants);
// these fail the build if the embedding API's ever differ.
const _: () = assert!(OMOTE_STREAM_STRIDE as usize == VOICE_FRAME_STRIDE);
const _: () = assert!(OMOTE_VOICE_SEED_LEN as usize == VOICE_SEED_LEN);

/// Analyses a clip alone (mono, −1..1, `count` samples at `sample_rate` Hz, 4–384 kHz)
/// into a track; a character's line reads better against its others
/// (`omote_speaker_analyse`).
///
/// # Safety
/// `samples` points at `count` floats; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_analyse_voice(
    samples: *const f32,
    count: u32,
    sample_rate: f64,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_analyse_voice", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        let analysis = analyse_voice(samples, sample_rate)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(analysis.into()), "out") }
    })
}

/// A track from frames: `count` numbers, 6 per frame (A I U E O N, each 0–1) at `fps`;
/// `has_voiced` 1: the voiced span `voiced_start_s`–`voiced_end_s` (a track read from a
/// lip sync file); 2: the whole track is voiced (a mouth track from another tool; the
/// span numbers are ignored); 0: no speech (the mouth never moves).
///
/// # Safety
/// `frames` points at `count` floats; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_track_from_frames(
    frames: *const f32,
    count: u32,
    fps: f32,
    has_voiced: u32,
    voiced_start_s: f64,
    voiced_end_s: f64,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_track_from_frames", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let frames = unsafe { ptr::slice(frames, count, "frames")? };
        let voiced = match has_voiced {
            0 => None,
            1 => Some((voiced_start_s, voiced_end_s)),
            2 => VoiceAnalysis::whole_span(frames.len(), fps),
            n => {
                return Err(FfiError::argument(format!(
                    "has_voiced is {n}: 0 (no speech), 1 (the span given) or 2 (the whole track)"
                )));
            }
        };
        let analysis = VoiceAnalysis::from_frames(frames, fps, voiced)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(analysis.into()), "out") }
    })
}

/// Frees a track (characters saying it keep their copy).
#[unsafe(no_mangle)]
pub extern "C" fn omote_track_free(track: OmoteTrack) -> OmoteStatus {
    guard("omote_track_free", || TRACKS.remove(track))
}

/// A track's frame count, frame rate (100 for an analysis) and voiced span (`has_voiced`
/// 0 for a clip with no speech). Any output may be null.
///
/// # Safety
/// Each non-null pointer is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_track_info(
    track: OmoteTrack,
    frames: *mut u32,
    fps: *mut f32,
    has_voiced: *mut u32,
    voiced_start_s: *mut f64,
    voiced_end_s: *mut f64,
) -> OmoteStatus {
    guard("omote_track_info", || {
        let held = TRACKS.get(track)?;
        let held = held.lock("the track")?;
        let a = &held.analysis;
        let voiced = a.voiced();
        // SAFETY: the caller's promise for each non-null output.
        unsafe {
            if let Some(o) = ptr::optional_mut(frames, 1) {
                o[0] = a.len() as u32;
            }
            if let Some(o) = ptr::optional_mut(fps, 1) {
                o[0] = a.fps;
            }
            if let Some(o) = ptr::optional_mut(has_voiced, 1) {
                o[0] = u32::from(voiced.is_some());
            }
            if let Some(o) = ptr::optional_mut(voiced_start_s, 1) {
                o[0] = voiced.map_or(0.0, |v| v.0);
            }
            if let Some(o) = ptr::optional_mut(voiced_end_s, 1) {
                o[0] = voiced.map_or(0.0, |v| v.1);
            }
        }
        Ok(())
    })
}

/// A track's frames: `count` = 6 × its frame count (A I U E O N per frame).
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_track_frames(
    track: OmoteTrack,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_track_frames", || {
        let held = TRACKS.get(track)?;
        let held = held.lock("the track")?;
        let a = &held.analysis;
        if count as usize != a.frames.len() {
            return Err(FfiError::argument(format!(
                "`out` has room for {count} numbers; the track has {} (6 × {} frames)",
                a.frames.len(),
                a.len()
            )));
        }
        // SAFETY: the caller's promise.
        unsafe { ptr::slice_mut(out, count, "out")? }.copy_from_slice(&a.frames);
        Ok(())
    })
}

/// A speaker: one character's voice lines, each read against the others.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_speaker_new(out: *mut OmoteSpeaker) -> OmoteStatus {
    guard("omote_speaker_new", || {
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, SPEAKERS.insert(Speaker::new()), "out") }
    })
}

/// Frees a speaker.
#[unsafe(no_mangle)]
pub extern "C" fn omote_speaker_free(speaker: OmoteSpeaker) -> OmoteStatus {
    guard("omote_speaker_free", || SPEAKERS.remove(speaker))
}

/// Adds one of the character's lines (mono, at `sample_rate` Hz) to its voice.
///
/// # Safety
/// `samples` points at `count` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_speaker_add_line(
    speaker: OmoteSpeaker,
    samples: *const f32,
    count: u32,
    sample_rate: f64,
) -> OmoteStatus {
    guard("omote_speaker_add_line", || {
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        let held = SPEAKERS.get(speaker)?;
        held.lock("the speaker")?.add_line(samples, sample_rate)?;
        Ok(())
    })
}

/// Analyses a line against the speaker's lines (add it first for the batch's numbers).
///
/// # Safety
/// `samples` points at `count` floats; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_speaker_analyse(
    speaker: OmoteSpeaker,
    samples: *const f32,
    count: u32,
    sample_rate: f64,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_speaker_analyse", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        let held = SPEAKERS.get(speaker)?;
        let analysis = held.lock("the speaker")?.analyse(samples, sample_rate)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(analysis.into()), "out") }
    })
}

/// The speaker's voice seed (`OMOTE_VOICE_SEED_LEN` numbers), to start a live stream
/// from this voice in another session.
///
/// # Safety
/// `out` points at `count` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_speaker_voice_seed(
    speaker: OmoteSpeaker,
    out: *mut f32,
    count: u32,
) -> OmoteStatus {
    guard("omote_speaker_voice_seed", || {
        if count != OMOTE_VOICE_SEED_LEN {
            return Err(FfiError::argument(format!(
                "`out` has room for {count} numbers; a voice seed is {OMOTE_VOICE_SEED_LEN}"
            )));
        }
        let seed = SPEAKERS.get(speaker)?.lock("the speaker")?.voice_seed();
        // SAFETY: the caller's promise.
        unsafe { ptr::slice_mut(out, count, "out")? }.copy_from_slice(&seed);
        Ok(())
    })
}

/// A live lip sync stream for mono samples at `sample_rate` Hz (a whole number, 4–384
/// kHz); `hold` 1 holds each frame back 10 ms to remove one-frame flickers (0: not;
/// other values are refused).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_stream_new(
    sample_rate: f64,
    hold: u32,
    out: *mut OmoteVoiceStream,
) -> OmoteStatus {
    guard("omote_voice_stream_new", || {
        ptr::check_out(out, "out")?;
        let stream = VoiceStream::with_hold(sample_rate, ptr::flag(hold, "hold")?)?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, STREAMS.insert(stream), "out") }
    })
}

/// Frees a voice stream.
#[unsafe(no_mangle)]
pub extern "C" fn omote_voice_stream_free(stream: OmoteVoiceStream) -> OmoteStatus {
    guard("omote_voice_stream_free", || STREAMS.remove(stream))
}

/// Starts the stream from a speaker's voice (before the first push).
#[unsafe(no_mangle)]
pub extern "C" fn omote_voice_stream_start_from_speaker(
    stream: OmoteVoiceStream,
    speaker: OmoteSpeaker,
) -> OmoteStatus {
    guard("omote_voice_stream_start_from_speaker", || {
        let seed = SPEAKERS.get(speaker)?.lock("the speaker")?.voice_seed();
        STREAMS
            .get(stream)?
            .lock("the voice stream")?
            .start_from_speaker(&seed)?;
        Ok(())
    })
}

/// The stream's latency in seconds (a frame's centre to the moment it is out).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_stream_latency(
    stream: OmoteVoiceStream,
    out: *mut f64,
) -> OmoteStatus {
    guard("omote_voice_stream_latency", || {
        let l = STREAMS.get(stream)?.lock("the voice stream")?.latency_s();
        // SAFETY: the caller's promise.
        unsafe { ptr::write(out, l, "out") }
    })
}

/// The most frames a push of `samples` samples can complete: size `frames` for it.
fn max_frames(rate: u32, samples: u32) -> u64 {
    u64::from(samples) * 100 / u64::from(rate.max(1)) + 2
}

/// Pushes `count` samples; the frames they complete (`OMOTE_STREAM_STRIDE` numbers each:
/// A I U E O N, volume, voiced) go into `frames` (room for `capacity` numbers, at least
/// `OMOTE_STREAM_STRIDE` × (count × 100 / rate + 2)), their count into `frames_written`.
/// A NaN sample or too small a buffer is refused before anything is pushed.
///
/// # Safety
/// `samples` points at `count` floats; `frames` at `capacity` writable floats;
/// `frames_written` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_stream_push(
    stream: OmoteVoiceStream,
    samples: *const f32,
    count: u32,
    frames: *mut f32,
    capacity: u32,
    frames_written: *mut u32,
) -> OmoteStatus {
    guard("omote_voice_stream_push", || {
        ptr::check_out(frames_written, "frames_written")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        // SAFETY: the caller's promise.
        let out = unsafe { ptr::slice_mut(frames, capacity, "frames")? };
        let held = STREAMS.get(stream)?;
        let mut s = held.lock("the voice stream")?;
        let need = max_frames(s.sample_rate(), count) * u64::from(OMOTE_STREAM_STRIDE);
        if u64::from(capacity) < need {
            return Err(FfiError::new(
                OmoteStatus::BufferTooSmall,
                format!("`frames` has room for {capacity} numbers; {count} samples need {need}"),
            ));
        }
        let pushed = s.push(samples)?;
        out[..pushed.len()].copy_from_slice(pushed);
        let n = (pushed.len() / VOICE_FRAME_STRIDE) as u32;
        // SAFETY: checked above.
        unsafe { ptr::write(frames_written, n, "frames_written") }
    })
}

/// A lip sync profile calibrated to one speaker, as NUL-terminated JSON text: `samples`
/// (`count`, mono, at `sample_rate` Hz) are one take of them reading a calibration card,
/// one syllable at a time with a short pause after each; `card` is its text (NULL: the
/// default card of 30 syllables, "a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te
/// to na ni nu ne no ma mi mu me mo"); `base` the profile JSON to start from (NULL: the
/// built-in one). Two-call style: `len` always gets the text's length; a null or short
/// `buf` gets `OMOTE_STATUS_BUFFER_TOO_SMALL` (the calibration runs again on the second
/// call, and gives the same text). A take whose syllables are not heard as the card has
/// them is refused with both counts. Keep the text with the user's settings and give it
/// to `omote_voice_stream_new_with_profile` or `omote_analyse_voice_with_profile`.
///
/// # Safety
/// `samples` points at `count` floats; `card` and `base` are null or NUL-terminated;
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_calibrate_voice_from_card(
    samples: *const f32,
    count: u32,
    sample_rate: f64,
    card: *const c_char,
    base: *const c_char,
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_calibrate_voice_from_card", || {
        ptr::check_out(len, "len")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        // SAFETY: the caller's promise.
        let card = unsafe { ptr::optional_text(card, "card")? };
        // SAFETY: the caller's promise.
        let base = unsafe { ptr::optional_text(base, "base")? };
        let profile = calibrate_voice_from_card(samples, sample_rate, card, base)?;
        // SAFETY: the caller's promise.
        unsafe { ptr::write_text(&profile, buf, cap, len) }
    })
}

/// The built-in lip sync profile as NUL-terminated JSON text, two-call style (as
/// `omote_calibrate_voice_from_card`).
///
/// # Safety
/// `buf` points at `cap` writable bytes; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_builtin_voice_profile(
    buf: *mut c_char,
    cap: u32,
    len: *mut u32,
) -> OmoteStatus {
    guard("omote_builtin_voice_profile", || {
        // SAFETY: the caller's promise.
        unsafe { ptr::write_text(&builtin_voice_profile(), buf, cap, len) }
    })
}

/// As `omote_analyse_voice`, read with a lip sync profile (NUL-terminated JSON, from
/// `omote_calibrate_voice_from_card`); a text that is not one is refused.
///
/// # Safety
/// `samples` points at `count` floats; `profile` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_analyse_voice_with_profile(
    samples: *const f32,
    count: u32,
    sample_rate: f64,
    profile: *const c_char,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_analyse_voice_with_profile", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        // SAFETY: the caller's promise.
        let profile = unsafe { ptr::text(profile, "profile")? };
        let analysis = analyse_voice_with_profile(samples, sample_rate, Some(profile))?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(analysis.into()), "out") }
    })
}

/// As `omote_speaker_analyse`, read with a lip sync profile (NUL-terminated JSON).
///
/// # Safety
/// `samples` points at `count` floats; `profile` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_speaker_analyse_with_profile(
    speaker: OmoteSpeaker,
    samples: *const f32,
    count: u32,
    sample_rate: f64,
    profile: *const c_char,
    out: *mut OmoteTrack,
) -> OmoteStatus {
    guard("omote_speaker_analyse_with_profile", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let samples = unsafe { ptr::slice(samples, count, "samples")? };
        // SAFETY: the caller's promise.
        let profile = unsafe { ptr::text(profile, "profile")? };
        let held = SPEAKERS.get(speaker)?;
        let analysis =
            held.lock("the speaker")?
                .analyse_with_profile(samples, sample_rate, Some(profile))?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, TRACKS.insert(analysis.into()), "out") }
    })
}

/// As `omote_voice_stream_new`, reading the voice with a lip sync profile
/// (NUL-terminated JSON, from `omote_calibrate_voice_from_card`); a text that is not one
/// is refused.
///
/// # Safety
/// `profile` is NUL-terminated; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omote_voice_stream_new_with_profile(
    sample_rate: f64,
    hold: u32,
    profile: *const c_char,
    out: *mut OmoteVoiceStream,
) -> OmoteStatus {
    guard("omote_voice_stream_new_with_profile", || {
        ptr::check_out(out, "out")?;
        // SAFETY: the caller's promise.
        let profile = unsafe { ptr::text(profile, "profile")? };
        let stream =
            VoiceStream::with_profile(sample_rate, ptr::flag(hold, "hold")?, Some(profile))?;
        // SAFETY: checked above.
        unsafe { ptr::write(out, STREAMS.insert(stream), "out") }
    })
}
