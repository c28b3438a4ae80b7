//! `omote simulate`: a face with nothing but its automatic eyes (blink, saccades) for a
//! while, written as an anim file and a timeline plot.
//!
//! ```text
//! omote simulate --seconds 60 --mode talking --seed 3 --out demo-out/sim
//! ```
//! writes `demo-out/sim/simulate.anim.json` (every expression, the gaze, and one event
//! per blink and saccade) and `demo-out/sim/simulate.png`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use omote_avatar::{Avatar, AvatarSource};
use omote_core::anim::{AnimEvent, AnimRecorder};
use omote_core::eyes::{BlinkCause, SaccadeDirection};
use omote_core::{Anim, DriverInputs, ExpressionPreset, EyeMode, FaceConfig, FaceDriver};
use omote_plot::{Panel, Series, TimePlot};

use crate::args::parse_expression;
use crate::limits;
use crate::output::{ensure_dir, write_anim};

/// Arguments of `omote simulate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Simulated time in seconds (at most 86400; the anim must also fit the size limit,
    /// about 4 hours at 60 fps on the built-in rig).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = limits::seconds_f32)]
    pub seconds: f32,
    /// Eye mode: idle, talking, listening or focused.
    #[arg(long, default_value_t = EyeMode::Idle)]
    pub mode: EyeMode,
    /// Seed of the face's random numbers (same seed, same output).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The avatar: a VRM model or a rig file (TOML or JSON); the built-in avatar when
    /// absent.
    #[arg(long, value_name = "FILE")]
    pub rig: Option<PathBuf>,
    /// Frames per second (1–1000).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = limits::fps_f32)]
    pub fps: f32,
    /// Hold an expression during the whole run, e.g. `--expression happy=0.5`
    /// (repeatable): blinks follow its eye closure, overrides and blink motion.
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub expression: Vec<(String, f32)>,
    /// Output folder (created if missing).
    #[arg(short = 'o', long, visible_alias = "output", value_name = "DIR")]
    pub out: PathBuf,
}

/// Run `omote simulate`.
pub fn run(args: SimulateArgs) -> Result<()> {
    let rig = Avatar::load(&AvatarSource::from_option(args.rig.as_deref()))?.rig;
    let frames = (f64::from(args.seconds) * f64::from(args.fps))
        .round()
        .max(1.0) as u64;
    limits::check_anim_size(
        frames,
        rig.len(),
        &format!("--seconds {} at --fps {}", args.seconds, args.fps),
    )?;
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), args.seed);
    driver.set_eye_mode(args.mode);
    for (name, weight) in &args.expression {
        let Some(id) = rig.channel(name) else {
            bail!(
                "--expression {name}: the rig `{}` has no such expression",
                rig.name()
            );
        };
        driver.acting_mut().set(id, *weight);
    }
    let mut recorder = AnimRecorder::new(&rig, args.fps);
    let dt = 1.0 / args.fps;
    let inputs = DriverInputs::default();
    for _ in 0..frames {
        recorder.record(driver.update(dt, &inputs));
    }
    let anim = recorder.finish();

    ensure_dir(&args.out)?;
    let anim_path = args.out.join("simulate.anim.json");
    write_anim(&anim, &anim_path)?;
    let blinks = count(&anim, |e| matches!(e, AnimEvent::Blink { .. }));
    let saccades = count(&anim, |e| matches!(e, AnimEvent::Saccade { .. }));
    let title = format!(
        "omote simulate: {} mode, seed {}, {:.0} s, rig {}: {blinks} blinks ({:.1}/min), {saccades} saccades",
        args.mode,
        args.seed,
        anim.duration,
        rig.name(),
        blinks as f32 * 60.0 / anim.duration,
    );
    let png = args.out.join("simulate.png");
    crate::output::write_png(&timeline_plot(&anim, &title), &png)?;
    println!("{title}");
    println!("wrote {}", anim_path.display());
    println!("wrote {}", png.display());
    Ok(())
}

fn count(anim: &Anim, pred: impl Fn(&AnimEvent) -> bool) -> usize {
    anim.events.iter().filter(|e| pred(e)).count()
}

/// Blink weight with a marker per blink start; gaze with a marker per saccade; and any
/// other channel that moved (held expressions, blink motions).
fn timeline_plot(anim: &Anim, title: &str) -> TimePlot {
    let dt = 1.0 / anim.fps;
    // What the face shows: the weights after the override rules.
    let track = |name: &str| -> Option<Vec<(f32, f32)>> {
        anim.applied().get(name).map(|v| {
            v.iter()
                .enumerate()
                .map(|(i, w)| (i as f32 * dt, *w))
                .collect()
        })
    };
    let mut blink =
        Panel::new("blink after overrides (markers: blink starts; 2× double)").y_range(-0.02, 1.08);
    for name in ExpressionPreset::BLINK_NAMES {
        if let Some(points) = track(name).filter(|p| p.iter().any(|x| x.1 != 0.0)) {
            blink = blink.series(Series::new(name, points));
        }
    }
    let mut gaze = Panel::new("gaze in degrees, yaw > 0 left, pitch > 0 down (markers: saccades)")
        .series(Series::new(
            "yaw",
            anim.look_at
                .iter()
                .enumerate()
                .map(|(i, g)| (i as f32 * dt, g[0]))
                .collect(),
        ))
        .series(Series::new(
            "pitch",
            anim.look_at
                .iter()
                .enumerate()
                .map(|(i, g)| (i as f32 * dt, g[1]))
                .collect(),
        ));
    for e in &anim.events {
        match e {
            AnimEvent::Blink { t, cause, .. } => {
                blink = blink.marker(*t, cause_label(*cause));
            }
            AnimEvent::Saccade { t, direction, .. } => {
                gaze = gaze.marker(*t, direction_label(*direction));
            }
            AnimEvent::Marker { t, name } => blink = blink.marker(*t, name.clone()),
            // A simulation has no voice lines or scene keys.
            AnimEvent::Voice { .. } | AnimEvent::Expression { .. } => {}
        }
    }
    let mut plot = TimePlot::new(title).panel(blink).panel(gaze);
    plot.width = 1600;
    plot.panel_height = 280;
    let skip = |n: &str| n.starts_with("blink") || n.starts_with("look");
    let mut others = Panel::new("other channels that moved (held expressions, blink motions)")
        .y_range(-0.02, 1.05);
    for (name, values) in &anim.applied().0 {
        if !skip(name)
            && values.iter().any(|v| *v != 0.0)
            && let Some(points) = track(name)
        {
            others = others.series(Series::new(name.clone(), points));
        }
    }
    if !others.series.is_empty() {
        plot = plot.panel(others);
    }
    plot
}

fn cause_label(cause: BlinkCause) -> &'static str {
    match cause {
        BlinkCause::Spontaneous => "",
        BlinkCause::Double => "2×",
        BlinkCause::Gaze => "gaze",
        BlinkCause::Requested => "req",
    }
}

fn direction_label(d: SaccadeDirection) -> &'static str {
    match d {
        SaccadeDirection::Left => "L",
        SaccadeDirection::UpLeft => "UL",
        SaccadeDirection::Up => "U",
        SaccadeDirection::UpRight => "UR",
        SaccadeDirection::Right => "R",
        SaccadeDirection::DownRight => "DR",
        SaccadeDirection::Down => "D",
        SaccadeDirection::DownLeft => "DL",
    }
}
