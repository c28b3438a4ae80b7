//! Fuzz the audio reader (`omote_audio::decode_bytes`: Symphonia probe + decode, mono
//! mixdown) and the lip sync analyser behind it. The first byte picks the extension hint,
//! the rest is the file. Every error must be an `AudioError`, never a panic; decoded audio
//! must analyse into finite weights.
#![no_main]

use libfuzzer_sys::fuzz_target;

const HINTS: [Option<&str>; 6] = [
    None,
    Some("wav"),
    Some("flac"),
    Some("ogg"),
    Some("mp3"),
    Some("txt"),
];

fuzz_target!(
    init: {
        // libfuzzer-sys's panic hook aborts on every panic, even one `decode_bytes` catches
        // on purpose (symphonia asserts on some headers). A panic that escapes still fails
        // the run: libfuzzer-sys aborts when its own catch_unwind sees it.
        std::panic::set_hook(Box::new(|_| {}));
    },
    |data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let hint = HINTS[usize::from(pick) % HINTS.len()];
    let name = std::path::Path::new("fuzz.audio");
    let Ok(audio) = omote_audio::decode_bytes(file.to_vec(), hint, name) else {
        return;
    };
    let Ok(samples) = omote_audio::resample(&audio.samples, audio.sample_rate, 16_000) else {
        return;
    };
    // Two seconds are plenty to exercise the analyser on whatever came out.
    let samples = &samples[..samples.len().min(32_000)];
    let track = omote_lipsync::Analyser::new(omote_lipsync::Profile::builtin()).analyse(samples);
    for f in &track.frames {
        assert!(f.weights.iter().all(|w| w.is_finite() && *w >= 0.0));
        assert!(f.weights.iter().sum::<f32>() <= 1.0 + 1e-4);
        assert!(f.volume.is_finite());
    }
});
