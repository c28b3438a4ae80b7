//! `omote retarget`: a tracking sequence drives the rig; writes an anim and a plot.

use std::path::{Path, PathBuf};

use anyhow::Context;
use omote_avatar::{Avatar, AvatarSource};
use omote_config::{HeadSource, SequenceFrame};
use omote_core::anim::AnimRecorder;
use omote_core::{DriverInputs, ExpressionPreset, FaceConfig, FaceDriver, MouthPolicy, VoiceFrame};
use omote_plot::{Panel, Series, TimePlot};

use crate::limits;
use crate::output::{ensure_dir, gaze_panel, head_panel, load_retarget_config, write_anim};

/// Arguments of `omote retarget`.
#[derive(clap::Args)]
pub struct RetargetArgs {
    /// Tracking sequence: JSON lines, one frame per line (`omote track --out SEQ.jsonl`).
    pub sequence: PathBuf,
    /// What the lines are: MediaPipe FaceLandmarker frames or ARKit-52 frames.
    #[arg(long, value_enum, default_value_t = InputKind::Mediapipe)]
    pub input: InputKind,
    /// Where a MediaPipe frame's head rotation comes from: the transform matrix when
    /// present (`auto`), only the matrix, or only four landmarks (the method of docs/design.md § Tracking).
    #[arg(long, value_enum, default_value_t = HeadArg::Auto)]
    pub head: HeadArg,
    /// The avatar: a VRM model (.vrm) or a rig file (.toml / .json); the built-in avatar
    /// when absent. With a VRM (the built-in one too) `retarget.vrma` is written as well.
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
    #[arg(long, default_value_t = 0.5, allow_negative_numbers = true, value_parser = limits::unit)]
    pub mouth_blend: f32,
    /// Frame rate when the frames carry no `t` (1–1000; timestamps must give a rate in
    /// the same range).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = limits::fps_f32)]
    pub fps: f32,
    /// Output folder.
    #[arg(
        short = 'o',
        long,
        visible_alias = "output",
        default_value = "retarget-out"
    )]
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

/// Where the head rotation of MediaPipe frames comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeadArg {
    /// The transform matrix when present, else landmarks.
    Auto,
    /// Only the transform matrix.
    Transform,
    /// Only landmarks.
    Landmarks,
}

impl From<HeadArg> for HeadSource {
    fn from(h: HeadArg) -> Self {
        match h {
            HeadArg::Auto => HeadSource::Auto,
            HeadArg::Transform => HeadSource::Transform,
            HeadArg::Landmarks => HeadSource::Landmarks,
        }
    }
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
    let (frames, warnings): (Vec<SequenceFrame>, _) = match args.input {
        InputKind::Mediapipe => {
            let seq = omote_config::load_tracking_sequence(&args.sequence)?;
            let frames = seq.frames.iter();
            (
                frames
                    .map(|f| f.to_sequence_frame(args.head.into()))
                    .collect(),
                seq.warnings,
            )
        }
        InputKind::Arkit => {
            let seq = omote_config::load_arkit_sequence(&args.sequence)?;
            let frames = seq.frames.iter();
            (
                frames
                    .map(omote_config::ArkitFrame::to_sequence_frame)
                    .collect(),
                seq.warnings,
            )
        }
    };
    warnings.iter().for_each(|w| crate::output::warn(w));
    let avatar = Avatar::load(&AvatarSource::from_option(args.rig.as_deref()))?;
    let (rig, model) = (avatar.rig, avatar.model);
    let config = load_retarget_config(args.config.as_deref(), args.mirror)?;
    let neck_share = config.neck_share;
    // The automatic blink and saccades stay on: the driver shows them as the tracking
    // weight falls, so a lost face keeps blinking and looking around.
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(config)
        .with_context(|| match &args.config {
            Some(p) => format!("{}: invalid retarget settings", p.display()),
            None => "invalid retarget settings".to_string(),
        })?;
    if args.calibrate > 0 {
        let faces = frames
            .iter()
            .filter_map(|f| f.face.as_ref())
            .take(args.calibrate);
        let used = driver
            .retargeter_mut()
            .expect("tracking is on")
            .calibrate(faces);
        anyhow::ensure!(
            used > 0,
            "--calibrate {}: no frame with a face (and a head pose) to calibrate on",
            args.calibrate
        );
        eprintln!("calibrated the neutral pose on {used} frames");
    }
    let voice = match &args.voice {
        Some(path) => {
            let samples = crate::voice_input::load_16k(path)?;
            let track =
                omote_lipsync::Analyser::new(omote_lipsync::Profile::builtin()).analyse(&samples);
            eprintln!(
                "{}: {:.1} s of voice analysed",
                path.display(),
                track.duration_s
            );
            Some(track)
        }
        None => None,
    };
    if voice.is_some() {
        driver = driver.with_voice(match args.mouth {
            MouthMix::VoiceFirst => MouthPolicy::VoiceFirst,
            MouthMix::Voice => MouthPolicy::Voice,
            MouthMix::Tracking => MouthPolicy::Tracking,
            MouthMix::Blend => MouthPolicy::Blend(args.mouth_blend),
        });
    }
    let fps = match sequence_fps(&frames) {
        Some(fps) if !(limits::MIN_FPS..=limits::MAX_FPS).contains(&f64::from(fps)) => {
            anyhow::bail!(
                "{}: the frames' timestamps step at {fps} fps, outside {}–{} fps",
                args.sequence.display(),
                limits::MIN_FPS,
                limits::MAX_FPS
            )
        }
        Some(fps) => fps,
        None => args.fps,
    };
    limits::check_anim_size(
        frames.len() as u64,
        rig.len(),
        &format!("{}", args.sequence.display()),
    )?;
    let mut rec = AnimRecorder::new(&rig, fps);
    let mut weights = Vec::with_capacity(frames.len());
    let mut prev_t: Option<f64> = None;
    for (i, frame) in frames.iter().enumerate() {
        let t = frame.t.unwrap_or(i as f64 / f64::from(fps));
        let dt = prev_t.map_or(1.0 / fps, |p| (t - p) as f32);
        prev_t = Some(t);
        // The voice's lip sync frame at this time (the mouth layer, over the tracked mouth).
        let voice_frame = voice.as_ref().map(|track| {
            let k = ((t * f64::from(track.fps)) as usize).min(track.frames.len().saturating_sub(1));
            let v = track.frames.get(k).copied();
            let v = v.unwrap_or(omote_lipsync::VowelFrame::SILENT).voice_frame();
            VoiceFrame {
                voiced: v.voiced && t <= track.duration_s,
                ..v
            }
        });
        let inputs = DriverInputs {
            tracking: frame.face.as_ref(),
            voice: voice_frame,
            ..DriverInputs::default()
        };
        rec.record(driver.update(dt, &inputs));
        let report = driver.report();
        weights.push((report.face_present, report.tracking_weight));
    }
    let anim = rec.finish();
    ensure_dir(&args.out)?;
    let anim_path = args.out.join("retarget.anim.json");
    write_anim(&anim, &anim_path)?;
    let png = args.out.join("retarget.png");
    plot(&anim, &weights, &args.sequence, &png)?;
    if let Some(model) = &model {
        let vrma_path = args.out.join("retarget.vrma");
        let bytes = omote_vrm::write_vrma_with_neck_share(&anim, model, neck_share)
            .context("writing the VRM Animation")?;
        crate::output::write_file(&vrma_path, &bytes)
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
fn sequence_fps(frames: &[SequenceFrame]) -> Option<f32> {
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
    for n in ExpressionPreset::BLINK_NAMES {
        eyes.series.extend(series(n));
    }
    for n in ExpressionPreset::VOWEL_NAMES {
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
    crate::output::write_png(&plot, png)
}
