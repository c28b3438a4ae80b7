//! Fuzz the lip sync profile reader (`omote_lipsync::Profile::from_json`): any text is an
//! error or a profile, never a panic; a profile that loads analyses a voiced buzz and
//! noise into finite weights summing to at most 1 (offline and streaming) — a profile of
//! finite but huge numbers must be refused, never turned into NaN rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use omote_lipsync::{Analyser, AnalyserConfig, Profile, StreamAnalyser};

fn signals() -> Vec<Vec<f32>> {
    let buzz: Vec<f32> = (0..8_000)
        .map(|i| {
            let t = i as f32 / 16_000.0;
            (1..20)
                .map(|k| (std::f32::consts::TAU * 140.0 * k as f32 * t).sin() / k as f32)
                .sum::<f32>()
                * 0.3
        })
        .collect();
    let mut x = 7u32;
    let noise = (0..8_000)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1 << 23) as f32 - 1.0
        })
        .collect();
    vec![buzz, noise]
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(profile) = Profile::from_json(text, "fuzz.json") else {
        return;
    };
    for samples in signals() {
        for track in [
            Analyser::new(profile.clone()).analyse(&samples),
            StreamAnalyser::analyse_in_chunks(
                profile.clone(),
                AnalyserConfig::default(),
                &samples,
                160,
            ),
        ] {
            for f in &track.frames {
                assert!(f.weights.iter().all(|w| w.is_finite() && *w >= 0.0));
                assert!(f.weights.iter().sum::<f32>() <= 1.0 + 1e-4);
                assert!(f.volume.is_finite());
            }
        }
    }
});
