//! `omote demo`: the built-in character acts a built-in 8-second timeline.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use omote_core::{
    AnimEvent, AnimRecorder, CameraAngle, CameraCorrection, Clip, ClipDesc, DriverInputs,
    ExpressionPreset, EyeMode, Face, FaceConfig, FaceDriver, Keyframe, MotionMap, MotionMapDesc,
    Quat, ResponseCurve, Rig, Vec3,
};
use omote_plot::{Panel, Series};

use crate::output::{anim_plot, ensure_dir, write_anim};

/// Arguments of `omote demo`.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// Output folder.
    #[arg(long, default_value = "demo-out")]
    pub out: PathBuf,
    /// Frames per second of the written anim.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f32,
    /// Seed of the character's procedural behaviour.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Length of the built-in timeline in seconds.
pub const DEMO_SECONDS: f32 = 8.0;

/// Run the demo.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.fps.is_finite() && (1.0..=1000.0).contains(&args.fps),
        "--fps must be between 1 and 1000, got {}",
        args.fps
    );
    ensure_dir(&args.out)?;
    // The built-in character is the generated test avatar (18 presets + 52 ARKit shapes).
    let avatar = omote_vrm::avatar::model();
    let rig = Arc::new(omote_vrm::avatar::rig());
    let timeline = DemoTimeline::new(&rig)?;
    // The camera circles the character once; the motion map corrects the face for it.
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), args.seed)
        .with_camera(demo_camera_correction(&rig)?);
    let mut rec = AnimRecorder::new(&rig, args.fps);
    for (t, name) in DemoTimeline::MARKERS {
        rec.event(AnimEvent::Marker {
            t,
            name: name.to_string(),
        });
    }
    let dt = 1.0 / args.fps;
    let frames = (DEMO_SECONDS * args.fps).round() as usize;
    // The demo's spoken line is a keyed clip on the mouth layer.
    driver.face_mut().layer_mut(Face::MOUTH).set_weight(1.0);
    let mut camera_track = Vec::with_capacity(frames);
    timeline.cue(driver.face_mut());
    for i in 0..frames {
        let t = i as f32 * dt;
        timeline.drive(&mut driver, t);
        let inputs = DriverInputs {
            camera: Some(orbit_camera(t)),
            ..timeline.inputs(t)
        };
        rec.record(driver.update(dt, &inputs));
        if let Some((angle, fade)) = driver.report().camera {
            camera_track.push((t, angle, fade));
        }
    }
    let anim = rec.finish();
    let anim_path = args.out.join("demo.anim.json");
    write_anim(&anim, &anim_path)?;
    let png = args.out.join("demo.png");
    let mut plot = anim_plot(
        &anim,
        "omote demo: built-in character, built-in timeline, orbiting camera",
        &[
            (
                "emotions",
                &["happy", "surprised", "relaxed", "sad", "angry"],
            ),
            ("mouth (after overrides)", &ExpressionPreset::VOWEL_NAMES),
            ("eyes", &ExpressionPreset::BLINK_NAMES),
            (
                "camera correction (additive)",
                &[
                    "mouthSmileLeft",
                    "mouthSmileRight",
                    "cheekSquintLeft",
                    "browInnerUp",
                    "mouthLeft",
                    "mouthRight",
                ],
            ),
        ],
    );
    let track =
        |f: fn(&(f32, CameraAngle, f32)) -> f32| camera_track.iter().map(|c| (c.0, f(c))).collect();
    plot.panels.push(
        Panel::new("camera around the face (degrees; α > 0 the avatar's left, β > 0 from above)")
            .series(Series::new("α", track(|c| c.1.alpha_deg as f32)))
            .series(Series::new("β", track(|c| c.1.beta_deg as f32)))
            .series(Series::new("correction fade × 100", track(|c| c.2 * 100.0))),
    );
    crate::output::write_png(&plot, &png)?;
    let avatar_path = args.out.join("avatar.vrm");
    crate::output::write_file(&avatar_path, &omote_vrm::avatar::generate())
        .with_context(|| format!("cannot write {}", avatar_path.display()))?;
    let vrma_path = args.out.join("demo.vrma");
    let vrma =
        omote_vrm::write_vrma(&anim, &avatar).context("writing the demo as VRM Animation")?;
    crate::output::write_file(&vrma_path, &vrma)
        .with_context(|| format!("cannot write {}", vrma_path.display()))?;
    println!(
        "wrote {} ({} frames at {} fps)",
        anim_path.display(),
        anim.frames(),
        args.fps
    );
    println!("wrote {}", png.display());
    println!(
        "wrote {} (plays on {})",
        vrma_path.display(),
        avatar_path.display()
    );
    Ok(())
}

/// The example motion map shipped in `examples/maps/`, compiled in so the demo needs no files.
const DEMO_MAP: &str = include_str!("../../../../examples/maps/anime-face.toml");

fn demo_camera_correction(rig: &Rig) -> anyhow::Result<CameraCorrection> {
    let path = std::path::Path::new("examples/maps/anime-face.toml");
    let desc: MotionMapDesc = omote_config::parse(DEMO_MAP, omote_config::Format::Toml, path)?;
    let map = MotionMap::new(&desc).map_err(|e| omote_config::motion_map_error(path, &e))?;
    CameraCorrection::new(map, rig).map_err(|e| omote_config::motion_map_error(path, &e).into())
}

/// One slow orbit: the camera starts in front, passes the avatar's left, the back and
/// its right, rising above the head and dipping below it on the way.
fn orbit_camera(t: f32) -> Vec3 {
    let around = std::f32::consts::TAU * t / DEMO_SECONDS;
    let elevation = 0.5 * (2.0 * around).sin();
    1.2 * Vec3::new(
        around.sin() * elevation.cos(),
        elevation.sin(),
        around.cos() * elevation.cos(),
    )
}

/// The built-in acting: emotions on the base layer, a spoken line on the mouth layer,
/// head sway and glances as inputs. Blinks and saccades are the face's own.
struct DemoTimeline {
    base: Clip,
    mouth: Clip,
}

impl DemoTimeline {
    /// Cues, for the anim's events and the plot.
    const MARKERS: [(f32, &'static str); 4] = [
        (0.8, "smile"),
        (2.0, "talk"),
        (5.0, "surprise"),
        (6.4, "relax"),
    ];

    fn new(rig: &Rig) -> anyhow::Result<Self> {
        let base = ClipDesc {
            tracks: [
                (
                    "happy",
                    smooth(&[
                        (0.8, 0.0),
                        (1.3, 1.0),
                        (2.2, 1.0),
                        (2.7, 0.35),
                        (4.8, 0.35),
                        (5.1, 0.0),
                    ])?,
                ),
                (
                    "surprised",
                    smooth(&[(5.0, 0.0), (5.2, 1.0), (5.8, 1.0), (6.3, 0.0)])?,
                ),
                ("relaxed", smooth(&[(6.4, 0.0), (7.0, 0.8), (8.0, 0.8)])?),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        };
        let mouth = ClipDesc {
            tracks: speech(2.0, "o.niiaoeNieua")?
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        };
        Ok(Self {
            base: Clip::new(&base, rig).context("built-in timeline")?,
            mouth: Clip::new(&mouth, rig).context("built-in timeline")?,
        })
    }

    /// Seconds of speech (the eyes switch to their talking behaviour).
    const TALKING: (f32, f32) = (2.0, 4.6);

    /// What the face is told before the timeline starts: one explicit blink, and the
    /// look-ahead of every eye-area expression change, so that no automatic blink fights
    /// them (docs/design.md § Blink).
    fn cue(&self, face: &mut Face) {
        face.request_blink_in(0.45);
        for (t, _) in Self::MARKERS {
            if t != Self::TALKING.0 {
                face.schedule_eye_change(t);
            }
        }
    }

    fn drive(&self, driver: &mut FaceDriver, t: f32) {
        let talking = (Self::TALKING.0..Self::TALKING.1).contains(&t);
        driver.set_eye_mode(if talking {
            EyeMode::Talking
        } else {
            EyeMode::Idle
        });
        self.base.sample_into(t, driver.acting_mut().values_mut());
        self.mouth
            .sample_into(t, driver.face_mut().layer_mut(Face::MOUTH).values_mut());
    }

    fn inputs(&self, t: f32) -> DriverInputs<'static> {
        // Slow sway, a nod while talking, a glance left then down-right.
        let talking = ((t - 2.0) / 2.6).clamp(0.0, 1.0);
        let yaw = (t * 0.8).sin() * 0.12;
        let pitch = (t * 7.0).sin() * 0.05 * (talking * (1.0 - talking) * 4.0) + 0.03;
        let roll = (t * 0.5).sin() * 0.05;
        let glance = |from: f32, to: f32| {
            ((t - from) * 8.0).clamp(0.0, 1.0) * ((to - t) * 8.0).clamp(0.0, 1.0)
        };
        DriverInputs {
            head: Quat::from_euler(omote_core::glam::EulerRot::YXZ, yaw, pitch, roll),
            gaze_yaw_deg: 25.0 * glance(1.4, 2.0) - 20.0 * glance(5.4, 6.2),
            gaze_pitch_deg: 15.0 * glance(5.4, 6.2),
            ..DriverInputs::default()
        }
    }
}

/// A curve through `(t, v)` points with flat tangents (eases in and out of each key).
fn smooth(points: &[(f32, f32)]) -> anyhow::Result<ResponseCurve> {
    Ok(ResponseCurve::new(
        points
            .iter()
            .map(|&(t, v)| Keyframe::new(t, v, 0.0))
            .collect(),
    )?)
}

/// A spoken line from `start`: one syllable every 0.2 s; `a i u e o` open that vowel,
/// `N` closes the mouth, `.` is a short pause.
fn speech(start: f32, vowels: &str) -> anyhow::Result<Vec<(&'static str, ResponseCurve)>> {
    const SYLLABLE: f32 = 0.2;
    let channels = [
        ('a', "aa"),
        ('i', "ih"),
        ('u', "ou"),
        ('e', "ee"),
        ('o', "oh"),
    ];
    let mut out = Vec::new();
    for (letter, channel) in channels {
        let mut keys = vec![Keyframe::new(0.0, 0.0, 0.0)];
        for (k, c) in vowels.chars().enumerate() {
            if c != letter {
                continue;
            }
            let t0 = start + k as f32 * SYLLABLE;
            for (dt, v) in [(0.0, 0.0), (0.07, 0.85), (0.13, 0.7), (0.2, 0.0)] {
                let t = t0 + dt;
                let last = keys.last_mut().expect("starts with a key");
                if t <= last.t + 1e-4 {
                    last.v = last.v.max(v);
                } else {
                    keys.push(Keyframe::new(t, v, 0.0));
                }
            }
        }
        out.push((channel, ResponseCurve::new(keys)?));
    }
    Ok(out)
}
