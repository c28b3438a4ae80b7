//! `omote retarget`: a tracking sequence drives the rig; writes an anim and a plot.

use std::path::{Path, PathBuf};

use anyhow::Context;
use omote_core::{AnimRecorder, Face, FaceConfig, FaceInputs, RetargetConfig, Retargeter};
use omote_plot::{Panel, Series, TimePlot};

use crate::output::{VoiceMouth, ensure_dir, gaze_panel, head_panel, write_anim};

/// Arguments of `omote retarget`.
#[derive(clap::Args)]
pub struct RetargetArgs {
    /// Tracking sequence: JSON lines, one frame per line (`omote track --out SEQ.jsonl`).
    pub sequence: PathBuf,
    /// What the lines are: MediaPipe FaceLandmarker frames or ARKit-52 frames.
    #[arg(long, value_enum, default_value_t = InputKind::Mediapipe)]
    pub input: InputKind,
    /// The avatar: a VRM model (.vrm; then `retarget.vrma` is written too) or a rig file
    /// (.toml / .json); the built-in 18 presets + ARKit-52 rig when absent.
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Retarget settings file (.toml / .json, fields of `RetargetConfig`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Take the mean head pose of the first N frames with a face as the neutral pose.
    #[arg(long, default_value_t = 0)]
    pub calibrate: usize,
    /// Mirror the user: their left drives the avatar's right.
    #[arg(long)]
    pub mirror: bool,
    /// A voice recording played with the sequence: its lip sync drives the mouth
    /// according to `--mouth`.
    #[arg(long)]
    pub voice: Option<PathBuf>,
    /// Who drives the vowels when there is a voice: `voice-first` (the voice while it is
    /// voiced, the tracked mouth in its silences), `voice`, `tracking`, or `blend`.
    #[arg(long, value_enum, default_value_t = MouthMix::VoiceFirst)]
    pub mouth: MouthMix,
    /// With `--mouth blend`: the voice's share of the vowels, 0–1.
    #[arg(long, default_value_t = 0.5)]
    pub mouth_blend: f32,
    /// Frame rate when the frames carry no `t`.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Output folder.
    #[arg(long, default_value = "retarget-out")]
    pub out: PathBuf,
}

/// The kind of tracking lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InputKind {
    /// `{"width", "height", "faces": [{"landmarks", "blendshapes", "transform"}]}`.
    Mediapipe,
    /// `{"t", "blendshapes": {name: score}, "head": [x, y, z, w]}`.
    Arkit,
}

/// Who drives the mouth's vowels when a voice is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MouthMix {
    /// The voice while it is voiced; the tracked mouth in its silences (eased over 0.1 s).
    VoiceFirst,
    /// Always the voice.
    Voice,
    /// Always the tracked mouth.
    Tracking,
    /// A fixed mix: `--mouth-blend` of the voice.
    Blend,
}

/// Run it.
pub fn run(args: RetargetArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.fps.is_finite() && args.fps > 0.0,
        "--fps must be positive, got {}",
        args.fps
    );
    let frames = match args.input {
        InputKind::Mediapipe => omote_config::load_tracking_sequence(&args.sequence)?,
        InputKind::Arkit => omote_config::load_arkit_sequence(&args.sequence)?,
    };
    let (rig, model) = crate::output::load_avatar(args.rig.as_deref())?;
    let mut config: RetargetConfig = match &args.config {
        Some(path) => omote_config::load(path)?,
        None => RetargetConfig::default(),
    };
    config.mirror |= args.mirror;
    let mut retargeter = Retargeter::new(&rig, config).with_context(|| match &args.config {
        Some(p) => format!("{}: invalid retarget settings", p.display()),
        None => "invalid retarget settings".to_string(),
    })?;
    if args.calibrate > 0 {
        let faces = frames
            .iter()
            .filter_map(|f| {
                f.faces
                    .first()
                    .map(|face| (face, f.width as f32 / f.height as f32))
            })
            .take(args.calibrate);
        let used = retargeter.calibrate(faces);
        anyhow::ensure!(
            used > 0,
            "--calibrate {}: no frame with a face to calibrate on",
            args.calibrate
        );
        eprintln!("calibrated the neutral pose on {used} frames");
    }
    // The retargeter smooths head and gaze itself; the face must not filter them again.
    // Tracking drives blinks and gaze, so no automatic blink or saccades either.
    // The automatic blink and saccades stay on: they show as the tracking weight falls
    // (`set_procedural_eyes` below), so a lost face keeps blinking and looking around.
    let face_config = FaceConfig {
        head_filter: None,
        gaze_filter: None,
        ..FaceConfig::default()
    };
    let mut face = Face::new(rig.clone(), face_config, 1);
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.mouth_blend),
        "--mouth-blend must be between 0 and 1, got {}",
        args.mouth_blend
    );
    let voice = match &args.voice {
        Some(path) => {
            let audio = omote_audio::load_mono(path, omote_lipsync::SAMPLE_RATE)?;
            let track = omote_lipsync::Analyser::new(omote_lipsync::Profile::builtin())
                .analyse(&audio.samples);
            eprintln!(
                "{}: {:.1} s of voice analysed",
                path.display(),
                track.duration_s
            );
            Some(track)
        }
        None => None,
    };
    let mut voice_mouth = VoiceMouth::new(&rig);
    let fps = sequence_fps(&frames).unwrap_or(args.fps);
    let mut rec = AnimRecorder::new(&rig, fps);
    let mut weights = Vec::with_capacity(frames.len());
    let mut prev_t: Option<f64> = None;
    for (i, frame) in frames.iter().enumerate() {
        let t = frame.t.unwrap_or(i as f64 / f64::from(fps));
        let dt = prev_t.map_or(1.0 / fps, |p| (t - p) as f32);
        prev_t = Some(t);
        let out = retargeter.update(dt, frame, face.layer_mut(Face::BASE));
        if let Some(track) = &voice {
            // The voice goes to the mouth layer (masked to the vowels) over the tracked mouth.
            let k = ((t * f64::from(track.fps)) as usize).min(track.frames.len().saturating_sub(1));
            let v = track
                .frames
                .get(k)
                .copied()
                .unwrap_or(omote_lipsync::VowelFrame::SILENT);
            let mouth = face.layer_mut(Face::MOUTH);
            voice_mouth.set_vowels(mouth, &v);
            let voiced = !v.silent && t <= track.duration_s;
            match args.mouth {
                MouthMix::VoiceFirst => voice_mouth.follow_voicing(mouth, voiced),
                MouthMix::Voice => mouth.set_weight(1.0),
                MouthMix::Tracking => mouth.set_weight(0.0),
                MouthMix::Blend => mouth.set_weight(args.mouth_blend),
            }
        }
        face.set_procedural_eyes(1.0 - out.tracking_weight);
        let inputs = FaceInputs {
            head: out.head,
            gaze_yaw_deg: out.gaze_yaw_deg,
            gaze_pitch_deg: out.gaze_pitch_deg,
        };
        rec.record(face.update(dt, &inputs));
        weights.push((out.face_present, out.tracking_weight));
    }
    let anim = rec.finish();
    ensure_dir(&args.out)?;
    let anim_path = args.out.join("retarget.anim.json");
    write_anim(&anim, &anim_path)?;
    let png = args.out.join("retarget.png");
    plot(&anim, &weights, &args.sequence, &png)?;
    if let Some(model) = &model {
        let vrma_path = args.out.join("retarget.vrma");
        let bytes = omote_vrm::write_vrma(&anim, model).context("writing the VRM Animation")?;
        std::fs::write(&vrma_path, bytes)
            .with_context(|| format!("cannot write {}", vrma_path.display()))?;
        println!("wrote {}", vrma_path.display());
    }
    let lost = weights.iter().filter(|w| !w.0).count();
    println!(
        "wrote {} ({} frames at {fps} fps; {lost} frames without a face)",
        anim_path.display(),
        anim.frames()
    );
    println!("wrote {}", png.display());
    Ok(())
}

/// The sequence's frame rate from its timestamps (median step), if it has them.
fn sequence_fps(frames: &[omote_core::TrackingFrame]) -> Option<f32> {
    let mut steps: Vec<f64> = frames
        .windows(2)
        .filter_map(|w| Some(w[1].t? - w[0].t?))
        .filter(|d| *d > 0.0)
        .collect();
    if steps.is_empty() {
        return None;
    }
    steps.sort_by(f64::total_cmp);
    let fps = 1.0 / steps[steps.len() / 2];
    // Timestamps are often rounded (0.033333): snap to a whole rate when that close.
    Some(if (fps - fps.round()).abs() < 0.01 {
        fps.round()
    } else {
        fps
    } as f32)
}

fn plot(
    anim: &omote_core::Anim,
    weights: &[(bool, f32)],
    source: &Path,
    png: &Path,
) -> anyhow::Result<()> {
    let dt = 1.0 / anim.fps;
    let t = |i: usize| i as f32 * dt;
    // Spans without a face, shaded in every panel.
    let mut spans = Vec::new();
    let mut start = None;
    for (i, (present, _)) in weights.iter().enumerate() {
        match (present, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                spans.push((t(s), t(i)));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((t(s), t(weights.len())));
    }
    // What the face shows: the weights after the override rules.
    let series = |name: &str| {
        anim.applied().get(name).map(|v| {
            Series::new(
                name,
                v.iter().enumerate().map(|(i, x)| (t(i), *x)).collect(),
            )
        })
    };
    let head = head_panel(anim, "head (degrees; shaded: no face)");
    let mut eyes = Panel::new("eyes").y_range(-0.02, 1.05);
    let mut mouth = Panel::new("mouth").y_range(-0.02, 1.05);
    let mut emotion = Panel::new("emotions and tracking weight").y_range(-0.02, 1.05);
    for n in ["blink", "blinkLeft", "blinkRight"] {
        eyes.series.extend(series(n));
    }
    for n in ["aa", "ih", "ou", "ee", "oh"] {
        mouth.series.extend(series(n));
    }
    for n in ["happy", "angry", "sad", "surprised"] {
        emotion.series.extend(series(n));
    }
    emotion.series.push(
        Series::new(
            "tracking weight",
            weights
                .iter()
                .enumerate()
                .map(|(i, w)| (t(i), w.1))
                .collect(),
        )
        .color([0, 0, 0]),
    );
    let gaze = gaze_panel(anim);
    let mut panels = vec![head, eyes, mouth, emotion, gaze];
    for p in &mut panels {
        p.spans = spans.clone();
    }
    let title = format!(
        "omote retarget: {}",
        source.file_name().map_or_else(
            || source.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    let mut plot = TimePlot::new(title);
    plot.panels = panels;
    plot.render_png(png)
        .with_context(|| format!("drawing {}", png.display()))
}
