//! Research aid: where the streaming analyser loses accuracy against the offline one.
//! Not part of the product.
//!
//! `cargo run --release -p omote-lipsync --example stream_gap -- DIR [DIR ...]`
//!
//! For every labelled directory (`NAME.wav` + `NAME.lab.tsv`) it runs the offline analyser
//! with each of the streaming analyser's causal parts swapped in, alone and together:
//!
//! * `C` — the running cepstral mean (starts at the profile's global mean, weight
//!   [`CMN_PRIOR_FRAMES`], memory [`CMN_FRAMES`]) instead of the clip's mean;
//! * `V` — [`StreamVoicing`] (minimum statistics over the last 1.5 s) instead of the
//!   clip's voicing;
//! * `S` — the streaming smoothing ([`ClassSmoother`]: the class filter with the held
//!   frame's look-ahead and one-frame blip filter) instead of the centred smoothing and
//!   the short-run filter.
//!
//! `--lowest-latency` takes [`AnalyserConfig::lowest_latency`] (no held frame).
//!
//! With all three (`CVS`) it matches `omote lipsync eval --stream` on clean clips; the
//! streaming noise estimate (a running one, not the clip's) is not swapped in.

use omote_lipsync::labels::parse_labels;
use omote_lipsync::score::{ScoreCounts, score_clip};
use omote_lipsync::{
    Analyser, AnalyserConfig, CMN_FRAMES, CMN_PRIOR_FRAMES, ClassScorer, ClassSmoother,
    ClipFeatures, FRAME_RATE, Profile, SAMPLE_RATE, StreamVoicing, VowelTrack,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let profile = Profile::builtin();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = if args.iter().any(|a| a == "--lowest-latency") {
        AnalyserConfig::lowest_latency()
    } else {
        AnalyserConfig::default()
    };
    let scorer = ClassScorer::new(&profile);
    let mut analyser = Analyser::with_config(profile.clone(), config);
    let variants = ["offline", "C", "V", "S", "CV", "CS", "VS", "CVS"];
    for dir in args.iter().filter(|a| !a.starts_with("--")) {
        let mut wavs: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "wav"))
            .collect();
        wavs.sort();
        let mut totals = vec![ScoreCounts::default(); variants.len()];
        for wav in &wavs {
            let lab = wav.with_extension("lab.tsv");
            let Ok(text) = std::fs::read_to_string(&lab) else {
                continue;
            };
            let labels = parse_labels(&text, &lab.display().to_string())?;
            let samples = omote_audio::load_mono(wav, SAMPLE_RATE)?.samples;
            let offline = analyser.features(&samples);
            for (v, total) in variants.iter().zip(&mut totals) {
                let mut feats = offline.clone();
                if v.contains('V') {
                    let mut voicing = StreamVoicing::new(config.voicing);
                    feats.voicing.voiced = feats
                        .frames
                        .iter()
                        .map(|f| voicing.update(f.level_db))
                        .collect();
                }
                if v.contains('C') {
                    causal_mean(&mut feats, &profile);
                }
                let track = if v.contains('S') {
                    causal_smoothing(&feats, &scorer, &config, samples.len())
                } else {
                    analyser.classify(&feats, samples.len())
                };
                total.add(&score_clip(&track, &labels));
            }
        }
        println!("{dir}");
        for (v, t) in variants.iter().zip(&totals) {
            println!(
                "  {v:8} vowel {:5.1} %  silence {:5.1} %  changes {:.2} × labels",
                100.0 * t.vowel_accuracy().unwrap_or(0.0),
                100.0 * t.silence_accuracy().unwrap_or(0.0),
                t.change_ratio().unwrap_or(0.0)
            );
        }
    }
    Ok(())
}

/// The streaming analyser's running cepstral mean over the voiced frames so far.
fn causal_mean(feats: &mut ClipFeatures, profile: &Profile) {
    let mut mean = profile.global_mean;
    let mut n = CMN_PRIOR_FRAMES;
    for ((x, f), voiced) in feats
        .normalised
        .iter_mut()
        .zip(&feats.frames)
        .zip(&feats.voicing.voiced)
    {
        *x = f.ceps;
        if *voiced {
            n = (n + 1.0).min(CMN_FRAMES);
            for (m, c) in mean.iter_mut().zip(&f.ceps) {
                *m += (c - *m) / n;
            }
        }
        for (v, m) in x.iter_mut().zip(&mean) {
            *v -= m;
        }
    }
}

/// The streaming analyser's smoothing ([`ClassSmoother`]: the class filter with the held
/// frame's look-ahead and blip filter) over the clip's voiced frames.
fn causal_smoothing(
    feats: &ClipFeatures,
    scorer: &ClassScorer,
    config: &AnalyserConfig,
    len_samples: usize,
) -> VowelTrack {
    let mut smoother = ClassSmoother::new(config);
    let mut frames = Vec::with_capacity(feats.normalised.len());
    for (x, voiced) in feats.normalised.iter().zip(&feats.voicing.voiced) {
        if *voiced {
            smoother.push_voiced(&scorer.log_scores(x), 1.0, 1.0, &mut frames);
        } else {
            smoother.push_silent(0.0, &mut frames);
        }
    }
    smoother.flush(&mut frames);
    let mut track = VowelTrack {
        fps: FRAME_RATE,
        frames,
        voiced_span: None,
        duration_s: len_samples as f64 / f64::from(SAMPLE_RATE),
    };
    track.update_voiced_span();
    track
}
