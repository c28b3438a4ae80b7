//! Research aid (issue 39): where in level a profile's readings differ. For every labelled
//! vowel frame of DIR's clips under one `eval` degradation (or clean), the leading class of
//! each profile's per-frame log-scores (Gaussians plus any context net; no smoothing, each
//! clip with its own mean), bucketed by the frame's level under the clip's speech level.
//! Not part of the product.
//!
//! Also, for each profile with a context net, how often the net alone and the Gaussians
//! alone lead with the same class over every voiced frame (labels or not): what a gate
//! that trusts the net per speaker could read.
//!
//! `cargo run --release -p omote-lipsync --example net_level_check -- DIR CONDITION A.json B.json`
//! (CONDITION: clean, quiet, noisy, hum, telephone).

use omote_lipsync::degrade::Degradation;
use omote_lipsync::labels::{parse_labels, training_frames};
use omote_lipsync::{Analyser, ClassScorer, Profile};

const EDGES: [f32; 5] = [-6.0, -12.0, -18.0, -24.0, -30.0];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::Path::new(&args[0]);
    let condition = match args[1].as_str() {
        "clean" => None,
        "quiet" => Some(Degradation::Quiet),
        "noisy" => Some(Degradation::Noisy),
        "hum" => Some(Degradation::Hum),
        "telephone" => Some(Degradation::Telephone),
        other => return Err(format!("unknown condition {other}").into()),
    };
    let profiles: Vec<Profile> = args[2..]
        .iter()
        .map(|p| Profile::from_json(&std::fs::read_to_string(p)?, p).map_err(Into::into))
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let scorers: Vec<ClassScorer> = profiles.iter().map(ClassScorer::new).collect();
    let mut analyser = Analyser::new(profiles[0].clone());
    let mut wavs: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wav"))
        .collect();
    wavs.sort();
    // [bucket][profile] = (right, frames)
    let mut tally = vec![vec![(0u64, 0u64); scorers.len()]; EDGES.len() + 1];
    // [profile] = (net and Gaussians agree, voiced frames)
    let mut agree = vec![(0u64, 0u64); scorers.len()];
    for (i, wav) in wavs.iter().enumerate() {
        let lab = wav.with_extension("lab.tsv");
        let labels = match std::fs::read_to_string(&lab) {
            Ok(text) => parse_labels(&text, &lab.display().to_string())?,
            Err(_) => Vec::new(),
        };
        let mut samples = omote_audio::load_mono(wav, 16_000)?.samples;
        if let Some(d) = condition {
            samples = d.apply(&samples, i as u64);
        }
        let feats = analyser.features(&samples);
        let speech = feats.voicing.speech_db;
        let lead = |sc: &[f32; 6]| (0..6).max_by(|a, b| sc[*a].total_cmp(&sc[*b])).unwrap();
        for (s, scorer) in scorers.iter().enumerate() {
            let Some(net) = scorer.context_net() else {
                continue;
            };
            for f in (0..feats.frames.len()).filter(|f| feats.voicing.voiced[*f]) {
                let g = scorer.log_scores(&feats.normalised[f]);
                let n = net.logits_at(&feats.normalised, f);
                agree[s].1 += 1;
                agree[s].0 += u64::from(lead(&g) == lead(&n));
            }
        }
        for (f, class) in training_frames(&labels, feats.frames.len(), 0.015) {
            let Some(class) = class else { continue };
            if class.index() == 5 || !feats.voicing.voiced[f] {
                continue;
            }
            let below = feats.frames[f].level_db - speech;
            let b = EDGES.iter().position(|e| below > *e).unwrap_or(EDGES.len());
            for (s, scorer) in scorers.iter().enumerate() {
                let read = lead(&scorer.log_scores_at(&feats.normalised, f));
                tally[b][s].1 += 1;
                tally[b][s].0 += u64::from(read == class.index());
            }
        }
    }
    let mut lo = 0.0;
    for (b, row) in tally.iter().enumerate() {
        let hi = EDGES.get(b).copied().unwrap_or(-99.0);
        print!("{lo:>4}..{hi:>4} dB  {:>6} fr", row[0].1);
        for (r, n) in row {
            print!("  {:5.1} %", 100.0 * *r as f64 / (*n).max(1) as f64);
        }
        println!();
        lo = hi;
    }
    for (s, (same, n)) in agree.iter().enumerate().filter(|(_, (_, n))| *n > 0) {
        let share = 100.0 * *same as f64 / *n as f64;
        println!("profile {s}: net and Gaussians agree on {share:.1} % of {n} voiced frames");
    }
    Ok(())
}
