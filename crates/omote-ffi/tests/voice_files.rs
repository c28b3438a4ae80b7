//! Voice files through the C ABI: a shared recording decodes to the embedding API's
//! samples and analyses to its track, bit for bit; a WAV cut short is read with a warning
//! that names it; a missing or non-audio file fails with its status and its name.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char};
use std::path::Path;

use omote_ffi::*;

fn c_path(p: &Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

fn last_error() -> String {
    // SAFETY: the library's own NUL-terminated message.
    unsafe { CStr::from_ptr(omote_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Loads `path`: the status, and the handle when it worked.
fn load(path: &Path) -> (OmoteStatus, OmoteVoiceFile) {
    let mut file = 0;
    // SAFETY: a live string and out-pointer.
    let status = unsafe { omote_voice_file_load(c_path(path).as_ptr(), &mut file) };
    (status, file)
}

fn samples(file: OmoteVoiceFile) -> (Vec<f32>, f64) {
    let (mut n, mut rate) = (0, 0.0);
    // SAFETY: live out-pointers; the buffer holds the count asked for.
    unsafe {
        assert_eq!(
            omote_voice_file_info(file, &mut n, &mut rate, std::ptr::null_mut()),
            OmoteStatus::Ok
        );
        let mut out = vec![f32::NAN; n as usize];
        assert_eq!(
            omote_voice_file_samples(file, out.as_mut_ptr(), n),
            OmoteStatus::Ok
        );
        (out, rate)
    }
}

fn warning(file: OmoteVoiceFile) -> String {
    let mut len = 0;
    // SAFETY: a zero-capacity buffer is never written; `len` is live.
    let s = unsafe { omote_voice_file_warning(file, std::ptr::null_mut(), 0, &mut len) };
    assert_eq!(s, OmoteStatus::BufferTooSmall, "{}", last_error());
    let mut buf = vec![0 as c_char; len as usize + 1];
    // SAFETY: a buffer of the length asked for.
    let s = unsafe { omote_voice_file_warning(file, buf.as_mut_ptr(), len + 1, &mut len) };
    assert_eq!(s, OmoteStatus::Ok);
    let bytes: Vec<u8> = buf[..len as usize].iter().map(|c| *c as u8).collect();
    String::from_utf8(bytes).unwrap()
}

fn track_frames(track: OmoteTrack) -> Vec<f32> {
    let mut frames = 0;
    // SAFETY: live out-pointers; the buffer holds the count asked for.
    unsafe {
        let null = std::ptr::null_mut::<f64>();
        assert_eq!(
            omote_track_info(track, &mut frames, null.cast(), null.cast(), null, null),
            OmoteStatus::Ok
        );
        let mut out = vec![f32::NAN; frames as usize * 6];
        assert_eq!(
            omote_track_frames(track, out.as_mut_ptr(), frames * 6),
            OmoteStatus::Ok
        );
        out
    }
}

#[test]
fn a_shared_recording_reads_and_analyses_as_the_embedding_api_does() {
    let Some(files) = omote_testdata::shared_files("speech", "wav") else {
        return;
    };
    // A real reader (LibriVox, 16 kHz) and a synthetic one (48 kHz, resampled).
    for name in ["en_librivox_0870.wav", "ja_ojt_001.wav"] {
        let path = files.iter().find(|f| f.ends_with(name)).unwrap();
        let expected = omote_embed::load_voice(path).unwrap();
        let (status, file) = load(path);
        assert_eq!(status, OmoteStatus::Ok, "{}", last_error());
        let (got, rate) = samples(file);
        assert_eq!(rate, 16_000.0);
        assert!(got.len() > 16_000, "{name}: {} samples", got.len());
        assert!(
            got.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits())
                && got.len() == expected.len(),
            "{name}: the samples differ from omote_embed::load_voice's"
        );
        assert_eq!(warning(file), "", "{name}");

        let mut track = 0;
        // SAFETY: the samples' own length; a live out-pointer.
        let s = unsafe { omote_analyse_voice(got.as_ptr(), got.len() as u32, rate, &mut track) };
        assert_eq!(s, OmoteStatus::Ok, "{}", last_error());
        let rust = omote_embed::analyse_voice(&expected, rate).unwrap();
        assert_eq!(track_frames(track), rust.frames, "{name}");
        assert!(rust.voiced().is_some(), "{name}: no speech heard");
        assert_eq!(omote_track_free(track), OmoteStatus::Ok);
        assert_eq!(omote_voice_file_free(file), OmoteStatus::Ok);
        // A second free names the kind.
        assert_eq!(omote_voice_file_free(file), OmoteStatus::InvalidHandle);
        assert!(last_error().contains("a voice file"), "{}", last_error());
    }
}

#[test]
fn a_wav_cut_short_is_read_as_far_as_it_goes_with_a_warning_that_names_it() {
    let dir = omote_testdata::Scratch::new("ffi", "voice-files-cut");
    let whole = omote_testdata::wav16(&omote_testdata::buzz(16_000, 1.0, 0.2..0.8), 16_000, 1);
    let path = dir.join("cut.wav");
    std::fs::write(&path, &whole[..whole.len() - 8_000]).unwrap();
    let (status, file) = load(&path);
    assert_eq!(status, OmoteStatus::Ok, "{}", last_error());
    let (got, _) = samples(file);
    assert_eq!(got.len(), 12_000, "4000 samples of 16 000 were cut off");
    let mut has_warning = 0;
    // SAFETY: a live out-pointer; the others null.
    let s = unsafe {
        omote_voice_file_info(
            file,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut has_warning,
        )
    };
    assert_eq!((s, has_warning), (OmoteStatus::Ok, 1));
    let w = warning(file);
    assert!(w.contains("cut.wav"), "{w}");

    // The wrong count is refused, and the buffer is left alone.
    let mut out = vec![7.0f32; 11_999];
    // SAFETY: the buffer holds 11 999 floats.
    let s = unsafe { omote_voice_file_samples(file, out.as_mut_ptr(), 11_999) };
    assert_eq!(s, OmoteStatus::InvalidArgument);
    assert!(last_error().contains("12000"), "{}", last_error());
    assert!(out.iter().all(|v| *v == 7.0));
    assert_eq!(omote_voice_file_free(file), OmoteStatus::Ok);
}

#[test]
fn missing_and_non_audio_files_fail_with_their_status_and_name() {
    let dir = omote_testdata::Scratch::new("ffi", "voice-files-bad");
    let missing = dir.join("no-such-line.wav");
    let (status, file) = load(&missing);
    assert_eq!((status, file), (OmoteStatus::NotFound, 0));
    let e = last_error();
    assert!(
        e.starts_with("omote_voice_file_load") && e.contains("no-such-line.wav"),
        "{e}"
    );

    let text = dir.join("notes.wav");
    std::fs::write(&text, "this is a text file, not a recording\n").unwrap();
    let (status, _) = load(&text);
    assert_eq!(status, OmoteStatus::LoadFailed);
    assert!(last_error().contains("notes.wav"), "{}", last_error());

    let mut out = 0;
    // SAFETY: a null path is the case under test.
    let s = unsafe { omote_voice_file_load(std::ptr::null(), &mut out) };
    assert_eq!(s, OmoteStatus::NullPointer);
    // A speaker's handle is not a voice file's.
    let mut speaker = 0;
    // SAFETY: a live out-pointer.
    assert_eq!(unsafe { omote_speaker_new(&mut speaker) }, OmoteStatus::Ok);
    // SAFETY: null outputs are allowed.
    let s = unsafe {
        let null = std::ptr::null_mut::<u32>();
        omote_voice_file_info(speaker, null, null.cast(), null)
    };
    assert_eq!(s, OmoteStatus::InvalidHandle);
    assert!(
        last_error().contains("a speaker, not a voice file"),
        "{}",
        last_error()
    );
    assert_eq!(omote_speaker_free(speaker), OmoteStatus::Ok);
}

#[test]
fn live_objects_count_voice_files_and_still_answer_abi_1_1_callers() {
    let dir = omote_testdata::Scratch::new("ffi", "voice-files-live");
    let path = dir.join("line.wav");
    let buzz = omote_testdata::buzz(16_000, 0.5, 0.1..0.4);
    std::fs::write(&path, omote_testdata::wav16(&buzz, 16_000, 1)).unwrap();
    let (status, file) = load(&path);
    assert_eq!(status, OmoteStatus::Ok, "{}", last_error());
    let mut eight = [0u32; 8];
    let mut seven = [u32::MAX; 8];
    // SAFETY: buffers at least as long as the counts given.
    unsafe {
        assert_eq!(omote_live_objects(eight.as_mut_ptr(), 8), OmoteStatus::Ok);
        assert_eq!(omote_live_objects(seven.as_mut_ptr(), 7), OmoteStatus::Ok);
        assert_eq!(
            omote_live_objects(eight.as_mut_ptr(), 6),
            OmoteStatus::InvalidArgument
        );
    }
    // Other tests run beside this one: at least this file is alive.
    assert!(eight[7] >= 1, "{eight:?}");
    // An ABI 1.1 caller's 7 numbers are written, and nothing past them.
    assert!(seven[..7].iter().all(|n| *n != u32::MAX), "{seven:?}");
    assert_eq!(
        seven[7],
        u32::MAX,
        "an eighth number was written for a caller of 7"
    );
    assert_eq!(omote_voice_file_free(file), OmoteStatus::Ok);
}

fn analyse_file(
    path: &Path,
    speaker: OmoteSpeaker,
    profile: Option<&CStr>,
) -> (OmoteStatus, OmoteTrack) {
    let mut track = 0;
    let profile = profile.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: live strings (or null for the profile) and out-pointer.
    let status =
        unsafe { omote_analyse_voice_file(c_path(path).as_ptr(), speaker, profile, &mut track) };
    (status, track)
}

fn track_warning(track: OmoteTrack) -> String {
    let mut buf = vec![0 as c_char; 512];
    let mut len = 0;
    // SAFETY: a buffer of 512 bytes and a live `len`.
    let s = unsafe { omote_track_warning(track, buf.as_mut_ptr(), 512, &mut len) };
    assert_eq!(s, OmoteStatus::Ok, "{}", last_error());
    let bytes: Vec<u8> = buf[..len as usize].iter().map(|c| *c as u8).collect();
    String::from_utf8(bytes).unwrap()
}

/// A file analysed through the C ABI is the embedding API's `analyse_voice_file`: whole
/// when short, streamed from the speaker's lines when over 10 minutes; its reading's
/// warning stays on the track; bad input fails with its status and its name.
#[test]
fn a_voice_file_analyses_as_the_cli_reads_it_long_ones_streamed() {
    let dir = omote_testdata::Scratch::new("ffi", "voice-files-analyse");
    let long = dir.join("long.wav");
    let pcm = omote_testdata::repeated_buzz(16_000, omote_embed::LONG_VOICE_S + 20.0, 3.0);
    std::fs::write(&long, omote_testdata::wav16(&pcm, 16_000, 1)).unwrap();
    let line = dir.join("line.wav");
    let short = omote_testdata::buzz(16_000, 2.0, 0.3..1.5);
    std::fs::write(&line, omote_testdata::wav16(&short, 16_000, 1)).unwrap();

    let mut speaker = 0;
    let (samples, _) = {
        let (s, f) = load(&line);
        assert_eq!(s, OmoteStatus::Ok);
        let out = samples(f);
        assert_eq!(omote_voice_file_free(f), OmoteStatus::Ok);
        out
    };
    // SAFETY: live out-pointer and samples.
    unsafe {
        assert_eq!(omote_speaker_new(&mut speaker), OmoteStatus::Ok);
        assert_eq!(
            omote_speaker_add_line(speaker, samples.as_ptr(), samples.len() as u32, 16_000.0),
            OmoteStatus::Ok
        );
    }
    let mut embed_speaker = omote_embed::Speaker::new();
    embed_speaker.add_line(&samples, 16_000.0).unwrap();
    for (path, with_speaker) in [(&long, false), (&long, true), (&line, true)] {
        let (status, track) = analyse_file(path, if with_speaker { speaker } else { 0 }, None);
        assert_eq!(status, OmoteStatus::Ok, "{}", last_error());
        let want =
            omote_embed::analyse_voice_file(path, with_speaker.then_some(&embed_speaker), None)
                .unwrap();
        assert_eq!(want.streamed, path == &long);
        assert_eq!(
            track_frames(track),
            want.analysis.frames,
            "{path:?} {with_speaker}"
        );
        assert_eq!(track_warning(track), "");
        assert_eq!(omote_track_free(track), OmoteStatus::Ok);
    }

    // A WAV cut short: read, with the warning on the track.
    let cut = dir.join("cut.wav");
    let whole = omote_testdata::wav16(&short, 16_000, 1);
    std::fs::write(&cut, &whole[..whole.len() - 8_000]).unwrap();
    let (status, track) = analyse_file(&cut, 0, None);
    assert_eq!(status, OmoteStatus::Ok, "{}", last_error());
    let w = track_warning(track);
    assert!(w.contains("cut.wav") && w.contains("early"), "{w}");
    assert_eq!(omote_track_free(track), OmoteStatus::Ok);

    // Missing, not audio, a bad profile, a freed speaker.
    let (status, _) = analyse_file(&dir.join("gone.wav"), 0, None);
    assert_eq!(status, OmoteStatus::NotFound);
    assert!(
        last_error().starts_with("omote_analyse_voice_file") && last_error().contains("gone.wav"),
        "{}",
        last_error()
    );
    let text = dir.join("notes.wav");
    std::fs::write(&text, "not a recording\n").unwrap();
    assert_eq!(analyse_file(&text, 0, None).0, OmoteStatus::LoadFailed);
    assert!(last_error().contains("notes.wav"), "{}", last_error());
    let bad = CString::new("{}").unwrap();
    assert_eq!(
        analyse_file(&line, 0, Some(&bad)).0,
        OmoteStatus::InvalidArgument
    );
    assert_eq!(omote_speaker_free(speaker), OmoteStatus::Ok);
    assert_eq!(
        analyse_file(&line, speaker, None).0,
        OmoteStatus::InvalidHandle
    );
}
