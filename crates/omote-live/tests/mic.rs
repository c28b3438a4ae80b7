//! The microphone (`mic` feature) on whatever machine runs the tests: one without an
//! input device gets the "no input device" error, listing the devices there are; one
//! with a device opens it, and dropping the voice closes it.
#![cfg(feature = "mic")]

use omote_lipsync::Profile;
use std::time::Duration;

use omote_live::{LiveError, MicVoice, Overflow, ThreadedVoice, VoiceMeter, input_device_names};

#[test]
fn the_default_microphone_opens_or_says_there_is_none() {
    let inputs = input_device_names().unwrap_or_default();
    match MicVoice::open(None, Profile::builtin()) {
        Ok(mic) => {
            let meter = mic.meter();
            assert!(
                meter.channels() >= 1 && meter.rate() > 0,
                "{}",
                mic.format()
            );
            assert!(!mic.device_name().is_empty());
            drop(mic);
        }
        Err(e) => {
            let text = e.to_string();
            eprintln!("MicVoice::open(None): {text}");
            assert!(
                matches!(e, LiveError::NoInputDevice { .. } | LiveError::Mic { .. }),
                "{e:?}"
            );
            if let LiveError::NoInputDevice { host, .. } = &e {
                assert!(
                    text.contains("no microphone") && text.contains(host.as_str()),
                    "{text}"
                );
                assert!(text.contains("devices there:"), "{text}");
            }
        }
    }
    eprintln!("input devices: {inputs:?}");
}

#[test]
fn a_device_name_that_matches_nothing_lists_the_inputs() {
    let wanted = "no such microphone 7f3a";
    let e = MicVoice::open(Some(wanted), Profile::builtin())
        .err()
        .expect("no device matches");
    let text = e.to_string();
    eprintln!("{text}");
    match e {
        LiveError::MicNotFound { inputs, .. } => {
            assert!(text.contains(wanted), "{text}");
            for name in &inputs {
                assert!(text.contains(name.as_str()), "{text}");
            }
        }
        LiveError::NoInputDevice { .. } => assert!(text.contains("no microphone"), "{text}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn alsa_null_device_captures_silence_through_the_whole_path() {
    // ALSA's `null` device "captures" zeros: the stream, the callback, the ring and the
    // lip sync all run. Skipped where there is no such device (not ALSA).
    let mic = match MicVoice::open(Some("null"), Profile::builtin()) {
        Ok(mic) => mic,
        Err(e @ (LiveError::MicNotFound { .. } | LiveError::NoInputDevice { .. })) => {
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    eprintln!("{}: {}", mic.device_name(), mic.format());
    let meter = mic.meter();
    let voice = ThreadedVoice::spawn(mic, 1000, Overflow::DropOldest, "null mic");
    let frame = voice
        .frame_at(20, Duration::from_secs(10))
        .expect("frames arrive");
    assert!(frame.silent, "{frame:?}");
    assert!(voice.buffer().received() > 20);
    assert!(meter.received_samples() > 0);
    assert_eq!(meter.level_dbfs(), VoiceMeter::FLOOR_DBFS);
    assert_eq!(meter.non_finite_samples(), 0);
    assert!(!voice.is_finished());
    drop(voice);
}
