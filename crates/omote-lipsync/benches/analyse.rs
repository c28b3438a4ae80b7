//! Speed on one core: ×real time = audio seconds / seconds taken.
//!
//! `lipsync`: the analyser alone on 10 s at 16 kHz. `classify`: its classifier alone.
//! `end_to_end`: what `omote lipsync` does per file after reading it — WAV bytes → decode → resample to 16 kHz → analyse →
//! JSON text — on real clips at 48, 22.05 and 16 kHz (a synthetic 48 kHz clip when the
//! shared data is absent). Throughput is counted in 16 kHz output samples, so
//! elements/s ÷ 16 000 is ×real time. `cargo bench -p omote-lipsync`, or with
//! `taskset -c 0` to pin it to one core.

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use omote_lipsync::{
    Analyser, AnalyserConfig, ClassScorer, Profile, SAMPLE_RATE, StreamAnalyser, export,
};

/// Ten seconds of a synthetic voice-like signal (harmonics with a moving formant and
/// pauses) at 16 kHz: the analysis cost does not depend on what is said.
fn voice(seconds: usize) -> Vec<f32> {
    let n = SAMPLE_RATE as usize * seconds;
    let mut x: u32 = 1;
    (0..n)
        .map(|i| {
            let t = i as f32 / SAMPLE_RATE as f32;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let env = if (t * 2.0).fract() < 0.8 { 1.0 } else { 0.0 };
            let f0 = 120.0 + 20.0 * (t * 1.3).sin();
            let s: f32 = (1..20)
                .map(|h| {
                    let f = f0 * h as f32;
                    let formant = 700.0 + 400.0 * (t * 2.1).sin();
                    (1.0 / (1.0 + ((f - formant) / 300.0).powi(2)))
                        * (2.0 * std::f32::consts::PI * f * t).sin()
                })
                .sum();
            0.1 * env * s + 0.0005 * (x as f32 / u32::MAX as f32 - 0.5)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let samples = voice(10);
    let mut g = c.benchmark_group("lipsync");
    g.throughput(Throughput::Elements(samples.len() as u64));
    let mut analyser = Analyser::new(Profile::builtin());
    g.bench_function("offline_10s_16k", |b| {
        b.iter(|| analyser.analyse(std::hint::black_box(&samples)))
    });
    g.bench_function("stream_10s_16k_10ms_chunks", |b| {
        b.iter(|| {
            StreamAnalyser::analyse_in_chunks(
                Profile::builtin(),
                AnalyserConfig::default(),
                &samples,
                160,
            )
        })
    });
    g.finish();
    // The classifier alone: 1000 voiced frames (10 s of speech) against the built-in
    // profile's phone subclasses, in the fast form and straight from the formula.
    let profile = Profile::builtin();
    let feats = Analyser::new(profile.clone()).features(&samples);
    let frames: Vec<[f32; 12]> = feats
        .normalised
        .iter()
        .cycle()
        .take(1000)
        .copied()
        .collect();
    let scorer = ClassScorer::new(&profile);
    let mut g = c.benchmark_group("classify");
    g.throughput(Throughput::Elements(frames.len() as u64));
    bench_scores(&mut g, "class_scorer_1000_frames", &frames, |x| {
        scorer.log_scores(x)
    });
    bench_scores(&mut g, "profile_formula_1000_frames", &frames, |x| {
        profile.log_scores(x)
    });
    g.finish();
}

/// Times `score` over `frames`. Generic, not `dyn`: a call through a vtable keeps the
/// scorer from being inlined into the loop and more than doubled its measured time.
fn bench_scores(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    frames: &[[f32; 12]],
    score: impl Fn(&[f32; 12]) -> [f32; 6],
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            frames
                .iter()
                .map(|x| score(std::hint::black_box(x))[0])
                .sum::<f32>()
        })
    });
}

/// `(name, WAV bytes)`: one real clip per common rate, or a synthetic one.
fn clips() -> Vec<(String, Vec<u8>)> {
    let dir = omote_testdata::path("speech");
    let real: Vec<(String, Vec<u8>)> = ["ja_ojt_001", "en_espeak_001", "en_librivox_0870"]
        .iter()
        .filter_map(|name| {
            let bytes = std::fs::read(dir.join(format!("{name}.wav"))).ok()?;
            Some((name.to_string(), bytes))
        })
        .collect();
    if !real.is_empty() {
        return real;
    }
    eprintln!("end_to_end: shared speech clips not found, using a synthetic 48 kHz clip");
    let at48: Vec<i16> = voice(10)
        .iter()
        .flat_map(|s| [(s * 32_767.0) as i16; 3])
        .collect();
    vec![(
        "synthetic_48k".into(),
        omote_testdata::wav16(&at48, 48_000, 1),
    )]
}

fn end_to_end(c: &mut Criterion) {
    let mut g = c.benchmark_group("end_to_end");
    let mut loader = omote_audio::Loader::new(SAMPLE_RATE).unwrap();
    let mut analyser = Analyser::new(Profile::builtin());
    let mut text = String::new();
    for (name, bytes) in clips() {
        let path = Path::new(&name);
        let n = loader.load_bytes(&bytes, path).unwrap().len();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(&name, |b| {
            b.iter(|| {
                let samples = loader
                    .load_bytes(std::hint::black_box(&bytes), path)
                    .unwrap();
                let track = analyser.analyse(samples);
                text.clear();
                export::write_json(&mut text, &track, &name);
                text.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, end_to_end);
criterion_main!(benches);
