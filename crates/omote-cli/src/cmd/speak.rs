//! `omote speak`: a dialogue of voice lines on one character, the game-scene path of
//! docs/design.md § Voice lines — lip sync from the voice files, the mouth starting with the voice, handing
//! over 0.2 s before each line's trailing silence to the expression that comes next, an
//! additive afterglow mouth ramping in from there, talking eyes while speaking and
//! listening eyes between lines, automatic blinks and saccades throughout.
//!
//! ```text
//! omote speak line1.wav line2.wav --gap 0.6 --expression relaxed=0.4 \
//!     --then happy=1 --afterglow mouthSmileLeft=0.3 --afterglow mouthSmileRight=0.3 \
//!     [--rig MODEL.vrm] --out demo-out/speak
//! ```
//! writes `speak.anim.json`, `speak.png` and, with a VRM, `speak.vrma`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use omote_core::{
    AnimEvent, AnimRecorder, ChannelId, DriverInputs, ExpressionPreset, EyeMode, FaceConfig,
    FaceDriver, Rig, SpeechConfig, SpeechTrack,
};
use omote_lipsync::{Analyser, SAMPLE_RATE};

use crate::args::{load_profile, parse_expression};
use crate::output::{anim_plot, ensure_dir, load_avatar, write_anim};

/// Arguments of `omote speak`.
#[derive(clap::Args, Debug, Clone)]
pub struct SpeakArgs {
    /// Voice lines, played one after another.
    #[arg(required = true)]
    pub voices: Vec<PathBuf>,
    /// Seconds of silence between the end of one file and the start of the next.
    #[arg(long, default_value_t = 0.5)]
    pub gap: f32,
    /// The character's expression while speaking (repeatable NAME=WEIGHT).
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub expression: Vec<(String, f32)>,
    /// The expression the scene asks for after the last line (repeatable NAME=WEIGHT);
    /// the mouth blends into it from 0.2 s before the voice ends.
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub then: Vec<(String, f32)>,
    /// Additive afterglow mouth (余韻口) that ramps in as each line ends (repeatable
    /// NAME=WEIGHT, e.g. mouthSmileLeft=0.3).
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub afterglow: Vec<(String, f32)>,
    /// Seconds the afterglow takes to ramp in.
    #[arg(long, default_value_t = 0.5)]
    pub afterglow_ramp: f32,
    /// The avatar: a VRM model (then `speak.vrma` is written too) or a rig file; the
    /// built-in 18 presets + ARKit-52 rig when absent.
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Lip sync profile JSON (default: built-in).
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Seed of the face's random numbers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Frames per second of the anim.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// Output folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// `--flag NAME=W` pairs resolved against the rig.
fn resolve(rig: &Rig, flag: &str, pairs: &[(String, f32)]) -> Result<Vec<(ChannelId, f32)>> {
    pairs
        .iter()
        .map(|(name, w)| {
            rig.channel(name).map(|c| (c, *w)).with_context(|| {
                format!(
                    "--{flag} {name}: the rig `{}` has no such expression",
                    rig.name()
                )
            })
        })
        .collect()
}

/// Lip sync of one voice file as a core speech track.
fn speech_track(path: &Path, analyser: &mut Analyser) -> Result<SpeechTrack> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE)?;
    let track = analyser.analyse(&audio.samples);
    let vowels = track
        .frames
        .iter()
        .map(|f| {
            [
                f.weights[0],
                f.weights[1],
                f.weights[2],
                f.weights[3],
                f.weights[4],
            ]
        })
        .collect();
    let voiced = track.voiced_span.map(|s| {
        (
            s.start_s as f32,
            (s.end_s as f32).min(track.duration_s as f32),
        )
    });
    SpeechTrack::new(track.fps, vowels, voiced)
        .with_context(|| format!("{}: lip sync track", path.display()))
}

/// Run `omote speak`.
pub fn run(args: SpeakArgs) -> Result<()> {
    if !(args.gap.is_finite() && (0.0..=60.0).contains(&args.gap)) {
        bail!("--gap must be between 0 and 60 seconds");
    }
    if !(args.fps.is_finite() && (1.0..=1000.0).contains(&args.fps)) {
        bail!("--fps must be between 1 and 1000, got {}", args.fps);
    }
    if !(args.afterglow_ramp.is_finite() && (0.0..=10.0).contains(&args.afterglow_ramp)) {
        bail!("--afterglow-ramp must be between 0 and 10 seconds");
    }
    let (rig, model) = load_avatar(args.rig.as_deref())?;
    let expression = resolve(&rig, "expression", &args.expression)?;
    let then = resolve(&rig, "then", &args.then)?;
    let afterglow = resolve(&rig, "afterglow", &args.afterglow)?;

    let profile = load_profile(args.profile.as_deref())?;
    let mut analyser = Analyser::new(profile);
    let lines: Vec<Arc<SpeechTrack>> = args
        .voices
        .iter()
        .map(|p| speech_track(p, &mut analyser).map(Arc::new))
        .collect::<Result<_>>()?;

    let config = SpeechConfig {
        afterglow_ramp_s: args.afterglow_ramp,
        ..SpeechConfig::default()
    };
    // Talking eyes while a line speaks (the driver's rule), listening eyes between lines.
    let mut driver =
        FaceDriver::new(rig.clone(), FaceConfig::default(), args.seed).with_speech(config);
    driver.set_eye_mode(EyeMode::Listening);
    for &(c, w) in &expression {
        driver.acting_mut().set(c, w);
    }
    // The scene: line k starts at starts[k]; the "then" expression fades in from the last
    // line's hand-over.
    let mut starts = Vec::with_capacity(lines.len());
    let mut t = 0.3f32;
    for l in &lines {
        starts.push(t);
        t += l.duration() + args.gap;
    }
    let last = lines.len() - 1;
    let then_at = lines[last]
        .voiced()
        .map_or(starts[last] + lines[last].duration(), |(_, e)| {
            starts[last] + e - config.end_lead_s
        });
    // Run on until the afterglow has fully ramped in, and a little longer.
    let total = t - args.gap + (args.afterglow_ramp + 0.5).max(1.5);

    let dt = 1.0 / args.fps;
    let frames = (total * args.fps).ceil() as usize;
    let mut recorder = AnimRecorder::new(&rig, args.fps);
    let mut next_line = 0;
    let mut then_started = false;
    let inputs = DriverInputs::default();
    for i in 0..frames {
        let now = i as f32 * dt;
        if next_line < lines.len() && now >= starts[next_line] {
            driver.say(lines[next_line].clone(), &afterglow);
            next_line += 1;
            recorder.event(AnimEvent::Marker {
                t: now,
                name: format!("line {next_line}"),
            });
        }
        if !then_started && now >= then_at && !then.is_empty() {
            then_started = true;
            recorder.event(AnimEvent::Marker {
                t: now,
                name: "then".into(),
            });
        }
        if then_started {
            // The acting crossfades to the next expression while the mouth layer hands
            // over to it.
            let k = ((now - then_at) / config.end_blend_s.max(dt)).clamp(0.0, 1.0);
            let base = driver.acting_mut();
            for &(c, w) in &expression {
                base.set(c, w * (1.0 - k));
            }
            for &(c, w) in &then {
                let from = expression.iter().find(|e| e.0 == c).map_or(0.0, |e| e.1);
                base.set(c, from + (w - from) * k);
            }
        }
        recorder.record(driver.update(dt, &inputs));
    }
    let anim = recorder.finish();

    ensure_dir(&args.out)?;
    let anim_path = args.out.join("speak.anim.json");
    write_anim(&anim, &anim_path)?;
    let mut mouth: Vec<&str> = ExpressionPreset::VOWEL_NAMES.to_vec();
    let named: Vec<String> = args
        .afterglow
        .iter()
        .chain(&args.then)
        .chain(&args.expression)
        .map(|(n, _)| n.clone())
        .collect();
    let extra: Vec<&str> = named.iter().map(String::as_str).collect();
    mouth.retain(|n| rig.channel(n).is_some());
    let title = format!(
        "omote speak: {} line(s), {:.1} s, rig {}",
        lines.len(),
        anim.duration,
        rig.name()
    );
    let png = args.out.join("speak.png");
    let plot = anim_plot(
        &anim,
        &title,
        &[
            ("vowels (lip sync on the mouth layer)", &mouth),
            ("acting, then-expression and afterglow", &extra),
            ("eyes (blink)", &["blink"]),
        ],
    );
    crate::output::write_png(&plot, &png)?;
    println!("{title}");
    for (k, (l, s)) in lines.iter().zip(&starts).enumerate() {
        match l.voiced() {
            Some((a, b)) => println!(
                "line {}: {} voiced {:.2}..{:.2} s (scene {:.2}..{:.2} s)",
                k + 1,
                args.voices[k].display(),
                a,
                b,
                s + a,
                s + b
            ),
            None => println!("line {}: {} has no voice", k + 1, args.voices[k].display()),
        }
    }
    println!("wrote {}", anim_path.display());
    println!("wrote {}", png.display());
    if let Some(model) = &model {
        let vrma = args.out.join("speak.vrma");
        let bytes = omote_vrm::write_vrma(&anim, model).context("writing the VRM Animation")?;
        crate::output::write_file(&vrma, &bytes)
            .with_context(|| format!("cannot write {}", vrma.display()))?;
        println!("wrote {}", vrma.display());
    }
    Ok(())
}
