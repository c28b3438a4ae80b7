//! Offline analysis speed on one core: ×real time = audio seconds / analysis seconds.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use omote_lipsync::{Analyser, AnalyserConfig, Profile, SAMPLE_RATE, StreamAnalyser};

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
}

criterion_group!(benches, bench);
criterion_main!(benches);
