//! Research aid: where the streaming analyser loses accuracy against the offline one.
//! Not part of the product.
//!
//! `cargo run --release -p omote-lipsync --example stream_gap -- DIR [DIR ...]`
//!
//! For every labelled directory (`NAME.wav` + `NAME.lab.tsv`) it runs the offline analyser
//! with each of the streaming analyser's causal parts swapped in, alone and together:
//!
//! * `C` — the stream's cepstral mean ([`StreamCepstralMean`]: it starts at the profile's
//!   global mean, restarts at each utterance from the voice heard so far) instead of the
//!   clip's mean;
//! * `V` — [`StreamVoicing`] (minimum statistics over the last 1.5 s) instead of the
//!   clip's voicing;
//! * `S` — the streaming smoothing ([`ClassSmoother`]: the class filter with the held
//!   frame's look-ahead and one-frame blip filter, the stream's nucleus vote and the decay
//!   hold) instead of the offline smoothing, short-run filter, vote and hold.
//!
//! `--lowest-latency` takes [`AnalyserConfig::lowest_latency`] (no held frame).
//! `--no-stream-vote` turns the stream's nucleus vote off
//! ([`AnalyserConfig::stream_nucleus_vote`]), to see what it does.
//! `--by-count` also prints offline's and C's vowel accuracy by how many voiced frames the
//! clip had before each frame (where the running mean is still cold).
//! `--speaker-mean W` starts C's mean from the *other* clips of the folder (the speaker's
//! mean, as `eval --stream` starts each clip) as `W` frames of that voice, of which the
//! stream counts at most [`SPEAKER_PRIOR_FRAMES`](omote_lipsync::SPEAKER_PRIOR_FRAMES),
//! instead of the profile's global mean alone.
//!
//! `--degrade NAME` records each clip under a [`Degradation`] first (`quiet`, `pink`, `hum`,
//! `band`: the start of its name), seeded by the clip's position as `omote lipsync eval`
//! seeds its variant groups.
//!
//! With all three (`CVS`) it matches `omote lipsync eval --stream` on clean clips; the
//! streaming noise estimate (a running one, not the clip's) is not swapped in.

use omote_lipsync::degrade::Degradation;
use omote_lipsync::labels::{LabelSegment, parse_labels};
use omote_lipsync::score::{ScoreCounts, score_clip};
use omote_lipsync::{
    Analyser, AnalyserConfig, CepstralMean, ClassScorer, ClassSmoother, ClipFeatures, FRAME_RATE,
    Profile, SAMPLE_RATE, StreamCepstralMean, StreamVoicing, Viseme, VowelTrack,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let profile = Profile::builtin();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut config = if args.iter().any(|a| a == "--lowest-latency") {
        AnalyserConfig::lowest_latency()
    } else {
        AnalyserConfig::default()
    };
    if args.iter().any(|a| a == "--no-stream-vote") {
        config.stream_nucleus_vote.ratio = f32::INFINITY;
    }
    let scorer = ClassScorer::new(&profile);
    let mut analyser = Analyser::with_config(profile.clone(), config);
    let by_count = args.iter().any(|a| a == "--by-count");
    let weight_at = args
        .iter()
        .position(|a| a == "--speaker-mean")
        .map(|i| i + 1);
    let speaker_weight = weight_at.and_then(|i| args.get(i)?.parse::<f32>().ok());
    let degrade_at = args.iter().position(|a| a == "--degrade").map(|i| i + 1);
    let degradation = match degrade_at.and_then(|i| args.get(i)) {
        Some(name) => Some(
            Degradation::ALL
                .into_iter()
                .find(|d| d.name().starts_with(name.as_str()))
                .ok_or_else(|| format!("--degrade {name}: not quiet, pink, hum or band"))?,
        ),
        None => None,
    };
    let load = |wav: &std::path::Path, i: usize| -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        let samples = omote_audio::load_mono(wav, SAMPLE_RATE)?.samples;
        Ok(match degradation {
            Some(d) => d.apply(&samples, i as u64),
            None => samples,
        })
    };
    let variants = ["offline", "C", "V", "S", "CV", "CS", "VS", "CVS"];
    let dirs = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && Some(*i) != weight_at && Some(*i) != degrade_at)
        .map(|(_, a)| a);
    for dir in dirs {
        let mut wavs: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "wav"))
            .collect();
        wavs.sort();
        let mut totals = vec![ScoreCounts::default(); variants.len()];
        // [bin][offline, C] = (right, vowel frames)
        let mut bins = [[(0u64, 0u64); 2]; COUNT_BINS.len() - 1];
        // --speaker-mean: the folder's voiced cepstra summed (a first pass over its clips),
        // so each clip's "other clips" mean is this without its own.
        let mut folder = CepstralMean::default();
        if speaker_weight.is_some() {
            for (i, wav) in wavs.iter().enumerate() {
                folder.add_clip(&analyser.features(&load(wav, i)?));
            }
        }
        for (i, wav) in wavs.iter().enumerate() {
            let lab = wav.with_extension("lab.tsv");
            let Ok(text) = std::fs::read_to_string(&lab) else {
                continue;
            };
            let labels = parse_labels(&text, &lab.display().to_string())?;
            let samples = load(wav, i)?;
            let offline = analyser.features(&samples);
            // Where the stream's mean starts: the profile's global mean, and with
            // --speaker-mean the other clips' mean as W frames.
            let mut start = StreamCepstralMean::new(profile.global_mean);
            if let Some(weight) = speaker_weight
                && let Some(others) = folder.without_clip(&offline).mean()
            {
                start.start_from_speaker(&CepstralMean::from_mean(&others, weight as u64));
            }
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
                    causal_mean(&mut feats, start);
                }
                let track = if v.contains('S') {
                    causal_smoothing(&feats, &scorer, &config, samples.len())
                } else {
                    analyser.classify(&feats, samples.len())
                };
                total.add(&score_clip(&track, &labels));
                if by_count && (*v == "offline" || *v == "C") {
                    add_by_count(&mut bins, usize::from(*v == "C"), &track, &feats, &labels);
                }
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
        if by_count {
            for (edges, b) in COUNT_BINS.windows(2).zip(&bins) {
                let pct = |(ok, n): (u64, u64)| 100.0 * ok as f64 / n.max(1) as f64;
                println!(
                    "  voiced frames before {:>4}..{:<4}: offline {:5.1} %  C {:5.1} %  ({} vowel frames)",
                    edges[0],
                    edges[1],
                    pct(b[0]),
                    pct(b[1]),
                    b[0].1
                );
            }
        }
    }
    Ok(())
}

/// Bin edges (voiced frames before the frame) of `--by-count`; the last bin is open.
const COUNT_BINS: [usize; 8] = [0, 25, 50, 100, 150, 200, 300, 100_000];

/// Adds each frame whose centre is labelled with a vowel to its bin, right or not.
fn add_by_count(
    bins: &mut [[(u64, u64); 2]],
    k: usize,
    track: &VowelTrack,
    feats: &ClipFeatures,
    labels: &[LabelSegment],
) {
    let mut voiced_before = 0;
    for (i, frame) in track.frames.iter().enumerate() {
        let t = (i as f64 + 0.5) / f64::from(FRAME_RATE);
        let label = labels.iter().find(|l| l.start_s <= t && t < l.end_s);
        if let Some(want) = label.and_then(|l| l.class).filter(|c| *c != Viseme::N) {
            let b = COUNT_BINS[1..]
                .iter()
                .position(|&edge| voiced_before < edge)
                .unwrap_or(bins.len() - 1);
            bins[b][k].1 += 1;
            bins[b][k].0 += u64::from(frame.class() == Some(want));
        }
        if feats.voicing.voiced.get(i).copied().unwrap_or(false) {
            voiced_before += 1;
        }
    }
}

/// The streaming analyser's cepstral mean over the frames so far, from `start`.
fn causal_mean(feats: &mut ClipFeatures, mut mean: StreamCepstralMean) {
    for ((x, f), voiced) in feats
        .normalised
        .iter_mut()
        .zip(&feats.frames)
        .zip(&feats.voicing.voiced)
    {
        *x = f.ceps;
        if *voiced {
            mean.normalise(x);
        } else {
            mean.silent();
        }
    }
}

/// The streaming analyser's smoothing ([`ClassSmoother`]: the class filter with the held
/// frame's look-ahead, blip filter, nucleus vote and decay hold) over the clip's voiced
/// frames (unfaded: the live stream fades its frames near the voicing threshold in).
fn causal_smoothing(
    feats: &ClipFeatures,
    scorer: &ClassScorer,
    config: &AnalyserConfig,
    len_samples: usize,
) -> VowelTrack {
    let mut smoother = ClassSmoother::new(config);
    let mut frames = Vec::with_capacity(feats.normalised.len());
    for ((x, voiced), f) in feats
        .normalised
        .iter()
        .zip(&feats.voicing.voiced)
        .zip(&feats.frames)
    {
        if *voiced {
            smoother.push_voiced(&scorer.log_scores(x), x, f.level_db, 1.0, 1.0, &mut frames);
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
