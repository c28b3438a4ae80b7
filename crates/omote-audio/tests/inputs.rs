//! Issue 37: a voice file is a regular file; anything else is refused by what it is,
//! naming the file, before a byte is read (no hang on a FIFO, no memory growth on
//! `/dev/zero`).

#![cfg(unix)]

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

fn scratch(name: &str) -> omote_testdata::Scratch {
    omote_testdata::Scratch::new("audio", name)
}

/// Runs `f` on a thread and gives its answer within 10 s (a FIFO opened for reading with
/// no writer would otherwise block the test forever).
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("reading the file hung (it should be refused before it is opened)")
}

fn refused(path: &Path, needle: &str) {
    let p = path.to_path_buf();
    let e = within_10s(move || omote_audio::decode_file(&p).unwrap_err().to_string());
    assert!(e.contains(needle), "{e}");
    assert!(e.contains(&path.display().to_string()), "{e}");
    let p = path.to_path_buf();
    let e = within_10s(move || {
        let mut loader = omote_audio::Loader::new(16_000).unwrap();
        loader.load(&p).map(|_| ()).unwrap_err().to_string()
    });
    assert!(e.contains(needle), "{e}");
    assert!(e.contains(&path.display().to_string()), "{e}");
    let p = path.to_path_buf();
    let e = within_10s(move || omote_audio::load_mono(&p, 16_000).unwrap_err().to_string());
    assert!(e.contains(needle), "{e}");
}

#[test]
fn a_device_is_refused_not_read() {
    refused(
        Path::new("/dev/zero"),
        "not a regular file (it is a character device)",
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = scratch("fifo");
    let fifo = dir.join("voice.wav");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    refused(&fifo, "not a regular file (it is a FIFO)");
}

#[test]
fn a_directory_is_refused_by_name() {
    let dir = scratch("dir");
    refused(&dir, "not a regular file (it is a directory)");
}
