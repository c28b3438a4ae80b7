//! `omote simulate`: a face with nothing but its automatic eyes (blink, saccades) for a
//! while, written as an anim file and a timeline plot.
//!
//! ```text
//! omote simulate --seconds 60 --mode talking --seed 3 --out demo-out/sim
//! ```
//! writes `demo-out/sim/simulate.anim.json` (every expression, the gaze, and one event
//! per blink and saccade) and `demo-out/sim/simulate.png`.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use omote_core::{AnimEvent, AnimRecorder, EyeMode, Face, FaceConfig, FaceInputs, Rig, RigDesc};

mod plot;

/// Longest simulation accepted (one day).
const MAX_SECONDS: f32 = 86_400.0;

/// Simulate the automatic blink and saccades of a neutral face.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Simulated time in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub seconds: f32,
    /// Eye mode: idle, talking, listening or focused.
    #[arg(long, default_value_t = EyeMode::Idle)]
    pub mode: EyeMode,
    /// Seed of the face's random numbers (same seed, same output).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rig file (JSON rig description); the built-in standard rig when absent.
    #[arg(long, value_name = "FILE")]
    pub rig: Option<PathBuf>,
    /// Frames per second.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// Hold an expression during the whole run, e.g. `--expression happy=0.5`
    /// (repeatable): blinks follow its eye closure, overrides and blink motion.
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub expression: Vec<(String, f32)>,
    /// Output folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Run `omote simulate`.
pub fn run(args: SimulateArgs) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= MAX_SECONDS) {
        bail!(
            "--seconds must be between 0 and {MAX_SECONDS}, got {}",
            args.seconds
        );
    }
    if !(args.fps.is_finite() && args.fps >= 1.0 && args.fps <= 1000.0) {
        bail!("--fps must be between 1 and 1000, got {}", args.fps);
    }
    let rig = Arc::new(match &args.rig {
        Some(path) => load_rig(path)?,
        None => Rig::standard(),
    });
    let mut face = Face::new(rig.clone(), FaceConfig::default(), args.seed);
    face.set_eye_mode(args.mode);
    for (name, weight) in &args.expression {
        let Some(id) = rig.channel(name) else {
            bail!(
                "--expression {name}: the rig `{}` has no such expression",
                rig.name()
            );
        };
        face.layer_mut(Face::BASE).set(id, *weight);
    }
    let mut recorder = AnimRecorder::new(&rig, args.fps);
    let frames = (args.seconds * args.fps).round().max(1.0) as usize;
    let dt = 1.0 / args.fps;
    let inputs = FaceInputs::default();
    for _ in 0..frames {
        recorder.record(face.update(dt, &inputs));
    }
    let anim = recorder.finish();

    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output folder {}", args.out.display()))?;
    let json_path = args.out.join("simulate.anim.json");
    let file = fs::File::create(&json_path)
        .with_context(|| format!("cannot create {}", json_path.display()))?;
    let mut writer = BufWriter::new(file);
    serde_json::to_writer(&mut writer, &anim)
        .and_then(|()| writer.flush().map_err(serde_json::Error::io))
        .with_context(|| format!("cannot write {}", json_path.display()))?;

    let blinks = anim
        .events
        .iter()
        .filter(|e| matches!(e, AnimEvent::Blink { .. }))
        .count();
    let saccades = anim
        .events
        .iter()
        .filter(|e| matches!(e, AnimEvent::Saccade { .. }))
        .count();
    let minutes = anim.duration / 60.0;
    let title = format!(
        "omote simulate: {} mode, seed {}, {:.0} s, rig {}: {blinks} blinks ({:.1}/min), {saccades} saccades",
        args.mode,
        args.seed,
        anim.duration,
        rig.name(),
        blinks as f32 / minutes,
    );
    let png_path = args.out.join("simulate.png");
    plot::timeline(&anim, &title, &png_path)
        .with_context(|| format!("cannot draw {}", png_path.display()))?;
    println!("{title}");
    println!("wrote {} and {}", json_path.display(), png_path.display());
    Ok(())
}

/// `NAME=WEIGHT` with a weight in [0, 1].
fn parse_expression(s: &str) -> Result<(String, f32), String> {
    let (name, weight) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=WEIGHT"))?;
    let weight: f32 = weight
        .parse()
        .map_err(|_| format!("`{weight}` is not a number"))?;
    if !(0.0..=1.0).contains(&weight) {
        return Err(format!("weight {weight} is not between 0 and 1"));
    }
    Ok((name.to_string(), weight))
}

/// Read a JSON rig description.
// TODO: switch to `omote_config::load_rig(path)` once omote-config has it (TOML too,
// errors naming the field).
fn load_rig(path: &Path) -> Result<Rig> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read rig {}", path.display()))?;
    let desc: RigDesc = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a valid rig description", path.display()))?;
    Rig::from_desc(&desc).with_context(|| format!("invalid rig {}", path.display()))
}
