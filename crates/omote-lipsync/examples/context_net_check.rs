//! Research aid: trains a [`ContextNet`] in Rust on dumped training frames and prints its
//! vowel / closed figures on dumped groups, to check the trainer against
//! `tools/lipsync/mlp_proto.py` (`REAL_W=0 PAST=4 FUTURE=1`, alpha 1). Not part of the product.
//!
//! `cargo run --release -p omote-lipsync --example context_net_check -- TRAIN.f32 GROUP.f32...`
//! (files from the `dump_features` example: rows of `clip, frame, voiced, class, phone,
//! level, 12 normalised ceps, 12 raw ceps`).

use omote_lipsync::{ContextNet, N_CEPS, NetOptions, NetSequence};

const ROW: usize = 30;

/// One sequence per clip: every frame's normalised cepstra, the class of the voiced
/// labelled ones (0..5).
fn sequences(path: &str) -> Result<Vec<NetSequence>, Box<dyn std::error::Error>> {
    let bytes = std::fs::read(path)?;
    let vals: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut out: Vec<NetSequence> = Vec::new();
    let mut clip = f32::NAN;
    for row in vals.chunks_exact(ROW) {
        if row[0] != clip {
            clip = row[0];
            out.push(NetSequence {
                weight: 1.0,
                ..NetSequence::default()
            });
        }
        let seq = out.last_mut().ok_or("no rows")?;
        let mut x = [0f32; N_CEPS];
        x.copy_from_slice(&row[6..6 + N_CEPS]);
        seq.frames.push(x);
        let teaches = row[2] > 0.5 && row[3] < 6.0;
        seq.targets.push(teaches.then_some(row[3] as u8));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let train = sequences(&args[0])?;
    let t = std::time::Instant::now();
    // No closed-mouth logit: the N offsets below are the prototype's, added by hand.
    let options = NetOptions {
        closed_logit: 0.0,
        ..NetOptions::default()
    };
    let net = ContextNet::train(&train, &options)?;
    eprintln!("trained in {:.1} s", t.elapsed().as_secs_f32());
    for path in &args[1..] {
        let group = sequences(path)?;
        let mut line = format!("{path}:");
        for n_bias in [-1.0f32, -2.0, -3.0] {
            let (mut vr, mut vt, mut cr, mut ct) = (0, 0, 0, 0);
            for seq in &group {
                for (f, target) in seq.targets.iter().enumerate() {
                    let Some(k) = *target else { continue };
                    let mut lp = net.log_posteriors_at(&seq.frames, f);
                    lp[5] += n_bias;
                    let best = (0..6).max_by(|&a, &b| lp[a].total_cmp(&lp[b])).unwrap_or(0);
                    if k < 5 {
                        vt += 1;
                        vr += usize::from(best == usize::from(k));
                    } else {
                        ct += 1;
                        cr += usize::from(best == 5);
                    }
                }
            }
            line += &format!(
                "  N {n_bias}: {:.1}/{:.1}",
                100.0 * vr as f32 / vt.max(1) as f32,
                100.0 * cr as f32 / ct.max(1) as f32
            );
        }
        println!("{line}");
    }
    Ok(())
}
