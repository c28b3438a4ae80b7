//! Research aid: writes every frame's features and label of a labelled directory
//! (`NAME.wav` + `NAME.lab.tsv`) as little-endian f32 rows, for classifier experiments
//! outside Rust. Not part of the product.
//!
//! `cargo run --release -p omote-lipsync --example dump_features -- DIR OUT [--variants]`
//! writes `OUT.f32` (rows of `clip, frame, voiced, class, phone, level, 12 normalised
//! ceps, 12 raw ceps`; class 0..5 = A I U E O N, 6 = silence, 7 = too near a boundary),
//! `OUT.clips.txt` and `OUT.phones.txt`. With `--variants` every clip is also written
//! under each `degrade::TrainingCondition` (clip index = 5·i + condition + 1); with
//! `--degraded`, under each of `eval`'s `degrade::Degradation`s instead (the same layout).

use std::io::Write;

use omote_lipsync::degrade::{Degradation, TrainingCondition};
use omote_lipsync::labels::{parse_labels, training_frames};
use omote_lipsync::{Analyser, Profile};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, out) = (std::path::Path::new(&args[0]), &args[1]);
    let degraded = args.iter().any(|a| a == "--degraded");
    let variants = degraded || args.iter().any(|a| a == "--variants");
    let mut wavs: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wav"))
        .collect();
    wavs.sort();
    let mut analyser = Analyser::new(Profile::builtin());
    let mut phones: Vec<String> = Vec::new();
    let mut rows = std::io::BufWriter::new(std::fs::File::create(format!("{out}.f32"))?);
    let mut clips = String::new();
    for (i, wav) in wavs.iter().enumerate() {
        let lab = wav.with_extension("lab.tsv");
        let Ok(text) = std::fs::read_to_string(&lab) else {
            continue;
        };
        let labels = parse_labels(&text, &lab.display().to_string())?;
        let samples = omote_audio::load_mono(wav, 16_000)?.samples;
        clips.push_str(&format!("{}\n", wav.display()));
        let mut versions = vec![samples.clone()];
        if degraded {
            for d in Degradation::ALL {
                versions.push(d.apply(&samples, i as u64));
            }
        } else if variants {
            for c in TrainingCondition::ALL {
                versions.push(c.apply(&samples, i as u64));
            }
        }
        for (v, s) in versions.iter().enumerate() {
            let feats = analyser.features(s);
            let n = feats.frames.len();
            let mut class = vec![7f32; n];
            for (f, c) in training_frames(&labels, n, 0.015) {
                class[f] = c.map_or(6.0, |v| v.index() as f32);
            }
            for (f, &class) in class.iter().enumerate() {
                let t = f as f64 * 0.01 + 0.005;
                let phone = labels
                    .iter()
                    .find(|s| s.start_s <= t && t < s.end_s)
                    .map_or("?", |s| s.phone.as_str());
                let pid = match phones.iter().position(|p| p == phone) {
                    Some(p) => p,
                    None => {
                        phones.push(phone.to_string());
                        phones.len() - 1
                    }
                };
                let clip = if variants { i * 5 + v } else { i };
                let mut row = vec![
                    clip as f32,
                    f as f32,
                    f32::from(u8::from(feats.voicing.voiced[f])),
                    class,
                    pid as f32,
                    feats.frames[f].level_db,
                ];
                row.extend_from_slice(&feats.normalised[f]);
                row.extend_from_slice(&feats.frames[f].ceps);
                for x in row {
                    rows.write_all(&x.to_le_bytes())?;
                }
            }
        }
    }
    std::fs::write(format!("{out}.clips.txt"), clips)?;
    std::fs::write(format!("{out}.phones.txt"), phones.join("\n") + "\n")?;
    Ok(())
}
