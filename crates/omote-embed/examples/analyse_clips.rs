//! The Rust side of the Python binding's overhead benchmark (`bindings/python/bench.py`):
//! each clip decoded once (at its own rate, as Python reads a WAV into an array), then
//! `analyse_voice` on those samples (resampling included) timed `RUNS` times; prints
//! `path<TAB>best seconds<TAB>median seconds` per clip.
//!
//! cargo run --release -p omote-embed --example analyse_clips -- RUNS CLIP...

use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args
        .next()
        .ok_or("usage: analyse_clips RUNS CLIP...")?
        .parse()?;
    for clip in args {
        let audio = omote_audio::decode_file(Path::new(&clip))?;
        let rate = f64::from(audio.sample_rate);
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs.max(1) {
            let started = Instant::now();
            let analysis = omote_embed::analyse_voice(&audio.samples, rate)?;
            times.push(started.elapsed().as_secs_f64());
            std::hint::black_box(analysis);
        }
        times.sort_by(f64::total_cmp);
        println!("{clip}\t{:.9}\t{:.9}", times[0], times[times.len() / 2]);
    }
    Ok(())
}
