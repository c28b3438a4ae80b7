//! A decoder panic caught by `decode_bytes` reaches no panic hook; every other panic
//! still does. Its own test binary: it installs a process-wide hook.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use omote_audio::{AudioError, decode_bytes};

static REPORTED: AtomicUsize = AtomicUsize::new(0);

/// A 16-bit mono PCM WAV header declaring `rate`, with a little data.
fn wav_bytes(rate: u32) -> Vec<u8> {
    let samples: Vec<i16> = (0..1600).map(|i| (i * 37 % 2000) as i16).collect();
    omote_testdata::wav16(&samples, rate, 1)
}

#[test]
fn caught_decoder_panics_are_silent_and_other_panics_are_not() {
    // Installed before the first decode, so the crate's hook wraps this one.
    std::panic::set_hook(Box::new(|_| {
        REPORTED.fetch_add(1, Ordering::SeqCst);
    }));
    // Sample rate 0 makes symphonia 0.5 assert; the panic is caught and not reported.
    for _ in 0..3 {
        let e = decode_bytes(wav_bytes(0), Some("wav"), Path::new("rate-zero.wav")).unwrap_err();
        assert!(matches!(e, AudioError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains("rate-zero.wav"), "{e}");
    }
    assert_eq!(
        REPORTED.load(Ordering::SeqCst),
        0,
        "a caught decoder panic was reported"
    );
    // A good file still decodes.
    let ok = decode_bytes(wav_bytes(16_000), Some("wav"), Path::new("ok.wav")).unwrap();
    assert_eq!(ok.samples.len(), 1600);
    // Outside the decoder (after it, and on other threads) panics reach the hook.
    let _ = std::panic::catch_unwind(|| panic!("a real bug"));
    assert_eq!(REPORTED.load(Ordering::SeqCst), 1);
    let worker = std::thread::spawn(|| {
        let e = decode_bytes(wav_bytes(0), None, Path::new("t.wav")).unwrap_err();
        assert!(matches!(e, AudioError::Corrupt { .. }), "{e}");
        panic!("a real bug on a worker");
    });
    assert!(worker.join().is_err());
    assert_eq!(REPORTED.load(Ordering::SeqCst), 2);
}
