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
