//! Issue 37: a raw PCM voice input is a regular file or a FIFO (a microphone fed by
//! `arecord`); a device such as `/dev/zero` (an endless stream read as fast as it goes)
//! or a directory is refused, naming the file, before it is opened.

#![cfg(unix)]

use omote_lipsync::Profile;
use omote_live::{PcmVoice, SampleFormat, open_pcm_input};
use std::path::Path;

#[test]
fn a_device_or_a_directory_is_refused_as_a_pcm_voice() {
    let e = PcmVoice::open(
        Path::new("/dev/zero"),
        SampleFormat::S16le,
        1,
        16_000,
        Profile::builtin(),
    )
    .err()
    .expect("/dev/zero refused")
    .to_string();
    assert!(e.contains("/dev/zero"), "{e}");
    assert!(
        e.contains("not a regular file (it is a character device)"),
        "{e}"
    );
    let dir = std::env::temp_dir();
    let e = open_pcm_input(&dir, "the voice input")
        .unwrap_err()
        .to_string();
    assert!(e.contains("it is a directory"), "{e}");
    assert!(e.contains("the voice input"), "{e}");
}

#[test]
fn a_regular_file_and_a_fifo_are_opened() {
    let dir = std::env::temp_dir().join(format!("omote-live-pcm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("voice.pcm");
    std::fs::write(&file, [0u8; 320]).unwrap();
    assert!(open_pcm_input(&file, "the voice input").is_ok());
    let fifo = dir.join("mic.pcm");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    // A writer first, so opening the FIFO for reading does not wait.
    let writer = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::write(&fifo, [0u8; 32])
    });
    let mut pipe = open_pcm_input(&fifo, "the voice input").unwrap();
    // Read to the end, so the writer is never left writing into a closed pipe.
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut pipe, &mut got).unwrap();
    assert_eq!(got.len(), 32);
    writer.join().unwrap().unwrap();
}

/// An audio file given where raw samples are read (`omote lipsync live voice.wav`, `omote
/// live --voice voice.wav`, `cat voice.wav | …`) would play its header as samples at the
/// wrong rate: it is refused by what its header says, naming the stream and the commands
/// that read the file. Raw samples go through, whatever they start with.
#[test]
fn an_audio_file_is_refused_where_raw_pcm_is_read() {
    use omote_live::{LiveError, PcmLipsync, VoiceSource};
    let read = |bytes: Vec<u8>| {
        let pipeline =
            PcmLipsync::new("voice", SampleFormat::S16le, 1, 16_000, Profile::builtin()).unwrap();
        let mut voice = PcmVoice::new(std::io::Cursor::new(bytes), "voice.wav", pipeline);
        let mut frames = Vec::new();
        loop {
            match voice.next_frames(&mut frames) {
                Ok(true) => {}
                Ok(false) => return Ok(frames.len()),
                Err(e) => return Err(e),
            }
        }
    };
    let mut headers: Vec<(Vec<u8>, &str)> = vec![
        (b"OggS\0\x02\0\0\0\0\0\0".to_vec(), "an Ogg file"),
        (b"fLaC\0\0\0\x22\0\0\0\0".to_vec(), "a FLAC file"),
        (b"ID3\x03\0\0\0\0\0\0\0\0".to_vec(), "an MP3 file"),
        (b"FORM\0\0\0\0AIFF".to_vec(), "an AIFF file"),
    ];
    if let Some(speech) = omote_testdata::shared_data("speech") {
        let wav = std::fs::read(speech.join("ja_ojt_001.wav")).unwrap();
        headers.push((wav, "a WAV file"));
    } else {
        headers.push((b"RIFF\x24\0\0\0WAVEfmt ".to_vec(), "a WAV file"));
    }
    for (mut bytes, kind) in headers {
        bytes.resize(bytes.len().max(32_000), 0);
        let e = read(bytes).expect_err(kind);
        assert!(matches!(e, LiveError::NotRawPcm { .. }), "{e}");
        let e = e.to_string();
        assert!(
            e.starts_with(&format!("voice.wav: {kind}, not raw PCM")),
            "{e}"
        );
        assert!(e.contains("omote lipsync FILE"), "{e}");
    }
    // One second of raw samples (a quiet tone) is read whole: 100 frames.
    let raw: Vec<u8> = (0..16_000)
        .flat_map(|i| ((1000.0 * (i as f32 * 0.05).sin()) as i16).to_le_bytes())
        .collect();
    assert_eq!(read(raw).unwrap(), 100);
}
