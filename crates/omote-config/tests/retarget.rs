//! Tracking → avatar on real MediaPipe output (`../shared/data/tracking`): MediaPipe
//! files → the core's `TrackedFace` (head from the matrix or the landmarks) → retargeter
//! and driver.

use std::path::PathBuf;
use std::sync::Arc;

use omote_config::{HeadSource, MediaPipeFrame};
use omote_core::glam::EulerRot;
use omote_core::tracking::Retargeter;
use omote_core::{DriverInputs, FaceConfig, FaceDriver, Quat, RetargetConfig, Rig, TrackedFace};

fn data_dir() -> Option<PathBuf> {
    omote_testdata::shared_data("tracking")
}

fn load(dir: &std::path::Path, name: &str) -> MediaPipeFrame {
    omote_config::load_tracking_frame(&dir.join(format!("{name}.mediapipe.json"))).unwrap()
}

/// The first face of a photo with its head from `source`.
fn face(frame: &MediaPipeFrame, source: HeadSource) -> TrackedFace {
    frame.tracked(source).expect("a face in the photo")
}

/// The head's tilt as the camera sees it: the angle of its up vector in the image
/// plane, degrees, + = counter-clockwise on screen (the atan2 roll of docs/design.md § Tracking). An in-plane
/// image rotation by θ changes exactly this by θ, whatever the yaw and pitch.
fn in_plane_roll(q: Quat) -> f32 {
    let up = q * omote_core::Vec3::Y;
    (-up.x).atan2(up.y).to_degrees()
}

/// (yaw, pitch, roll) in degrees.
fn angles(q: Quat) -> (f32, f32, f32) {
    let (y, x, z) = q.to_euler(EulerRot::YXZ);
    (y.to_degrees(), x.to_degrees(), z.to_degrees())
}

fn retargeter() -> Retargeter {
    Retargeter::new(&Rig::standard(), RetargetConfig::default()).unwrap()
}

const BASES: [&str; 4] = ["astronaut", "obama", "obama2", "messihead"];

#[test]
fn rotated_photos_give_the_applied_roll() {
    let Some(dir) = data_dir() else { return };
    for source in [HeadSource::Transform, HeadSource::Landmarks] {
        let rt = retargeter();
        let mut worst: f32 = 0.0;
        for base in BASES {
            let b = load(&dir, base);
            let roll0 = in_plane_roll(rt.head_pose(&face(&b, source)).unwrap());
            for rot in [15.0f32, -15.0, 30.0, -30.0] {
                let f = load(&dir, &format!("{base}_rot{rot:+}"));
                let roll = in_plane_roll(rt.head_pose(&face(&f, source)).unwrap()) - roll0;
                let err = (roll - rot).abs();
                worst = worst.max(err);
                if source == HeadSource::Transform {
                    assert!(err < 3.0, "{source:?} {base} rot {rot}: roll {roll:.2}");
                }
            }
        }
        eprintln!(
            "{source:?}: worst roll error over {} rotated photos: {worst:.2}°",
            BASES.len() * 4
        );
        // Seed 000's four-landmark method is rougher but must still be in the right place.
        assert!(worst < 4.0, "{source:?}: {worst}");
    }
}

#[test]
fn mirrored_photos_flip_yaw_and_roll() {
    let Some(dir) = data_dir() else { return };
    let rt = retargeter();
    for base in BASES {
        let b = load(&dir, base);
        let m = load(&dir, &format!("{base}_mirror"));
        let (by, bp, br) = angles(rt.head_pose(&face(&b, HeadSource::Auto)).unwrap());
        let (my, mp, mr) = angles(rt.head_pose(&face(&m, HeadSource::Auto)).unwrap());
        assert!(
            (by + my).abs() < 3.0,
            "{base}: yaw {by:.1} vs mirrored {my:.1}"
        );
        assert!(
            (br + mr).abs() < 3.0,
            "{base}: roll {br:.1} vs mirrored {mr:.1}"
        );
        assert!(
            (bp - mp).abs() < 3.0,
            "{base}: pitch {bp:.1} vs mirrored {mp:.1}"
        );
        // The mirror option undoes it.
        let mirrored = Retargeter::new(
            &Rig::standard(),
            RetargetConfig {
                mirror: true,
                ..RetargetConfig::default()
            },
        )
        .unwrap();
        let (y2, _, r2) = angles(mirrored.head_pose(&face(&m, HeadSource::Auto)).unwrap());
        assert!(
            (y2 - by).abs() < 3.0 && (r2 - br).abs() < 3.0,
            "{base}: mirror option"
        );
    }
}

/// messihead is left out: its face is 70 px wide at 0.6×, and MediaPipe's own output
/// for it (landmarks and matrix alike) changes pitch by 4.8° between the two scales, so no
/// mapping of that input could keep the angles within 2°. The other three faces are
/// 100–200 px wide.
#[test]
fn scale_does_not_change_the_angles() {
    let Some(dir) = data_dir() else { return };
    let rt = retargeter();
    for base in ["astronaut", "obama", "obama2"] {
        let b = load(&dir, base);
        let s = load(&dir, &format!("{base}_scale0.6"));
        let q0 = rt.head_pose(&face(&b, HeadSource::Auto)).unwrap();
        let q1 = rt.head_pose(&face(&s, HeadSource::Auto)).unwrap();
        let (a, c) = (angles(q0), angles(q1));
        for (x, y, axis) in [(a.0, c.0, "yaw"), (a.1, c.1, "pitch"), (a.2, c.2, "roll")] {
            assert!((x - y).abs() < 2.0, "{base} {axis}: {x:.2} vs {y:.2}");
        }
    }
}

#[test]
fn smiling_photos_make_a_happy_face_with_open_eyes() {
    let Some(dir) = data_dir() else { return };
    let rig = Arc::new(Rig::standard());
    for name in ["astronaut", "obama"] {
        let tracked = face(&load(&dir, name), HeadSource::Auto);
        let mut driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1)
            .with_tracking(RetargetConfig::default())
            .unwrap();
        let inputs = DriverInputs {
            tracking: Some(&tracked),
            ..DriverInputs::default()
        };
        for _ in 0..60 {
            driver.update(1.0 / 30.0, &inputs);
        }
        let s = driver.state();
        let w = |n: &str| s.weight(rig.channel(n).unwrap());
        assert!(w("happy") >= 0.5, "{name}: happy {}", w("happy"));
        for eye in ["blink", "blinkLeft", "blinkRight"] {
            assert!(w(eye) < 0.1, "{name}: {eye} {}", w(eye));
        }
        assert!(w("angry") < 0.2 && w("sad") < 0.2, "{name}");
    }
}

fn load_sequence(dir: &std::path::Path) -> Vec<Option<TrackedFace>> {
    omote_config::load_tracking_sequence(&dir.join("astronaut_sequence.jsonl"))
        .unwrap()
        .frames
        .iter()
        .map(|f| f.tracked(HeadSource::Auto))
        .collect()
}

/// The applied roll per frame from the ground-truth TSV.
fn truth_roll(dir: &std::path::Path) -> Vec<f32> {
    let text = std::fs::read_to_string(dir.join("astronaut_sequence.truth.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("frame"))
        .map(|l| l.split('\t').nth(3).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn sequence_roll_follows_truth_and_loss_falls_back_smoothly() {
    let Some(dir) = data_dir() else { return };
    let frames = load_sequence(&dir);
    let truth = truth_roll(&dir);
    assert_eq!(frames.len(), truth.len());
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::new(rig, FaceConfig::default(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap();
    // Calibrate on the first frame, where the applied roll is 0.
    let rt = driver.retargeter_mut().unwrap();
    assert_eq!(rt.calibrate(frames[0].as_ref()), 1);
    let mut errors = Vec::new();
    let mut max_step: f32 = 0.0;
    let mut max_step_lost: f32 = 0.0;
    let mut prev: Option<Quat> = None;
    let mut lost_frames = 0;
    let mut min_weight: f32 = 1.0;
    for (i, f) in frames.iter().enumerate() {
        let inputs = DriverInputs {
            tracking: f.as_ref(),
            ..DriverInputs::default()
        };
        let head = driver.update(1.0 / 30.0, &inputs).head;
        let report = driver.report();
        assert!(head.is_finite() && driver.state().look_at_yaw_deg.is_finite());
        if let Some(p) = prev {
            let step = p.angle_between(head).to_degrees();
            max_step = max_step.max(step);
            if !report.face_present {
                max_step_lost = max_step_lost.max(step);
            }
        }
        prev = Some(head);
        if report.face_present && report.tracking_weight > 0.999 {
            errors.push((angles(head).2 - truth[i]).abs());
        }
        if !report.face_present {
            lost_frames += 1;
        }
        min_weight = min_weight.min(report.tracking_weight);
    }
    errors.sort_by(f32::total_cmp);
    let median = errors[errors.len() / 2];
    let p90 = errors[errors.len() * 9 / 10];
    eprintln!(
        "sequence: roll error median {median:.2}°, p90 {p90:.2}° over {} tracked frames; {lost_frames} frames without a face; \
         largest head step {max_step:.2}°/frame ({max_step_lost:.2}° while lost); lowest tracking weight {min_weight:.2}",
        errors.len()
    );
    assert!(median < 3.0, "median roll error {median}");
    assert_eq!(lost_frames, 300 - 253);
    // The long loss (frames 172–209) falls fully back to neutral...
    assert_eq!(min_weight, 0.0);
    // ...with no jumps: the head never moves more than 3° between frames (at 30 fps, the
    // applied roll itself changes by up to ~1.5° per frame).
    assert!(max_step < 3.0, "head jumped {max_step}° in one frame");
}

/// docs/tracking-format.md's example settings file reads as it says, and its table's
/// defaults are the settings' defaults (a default changed in code and not in the doc, or
/// a field renamed, fails here).
#[test]
fn the_documented_tracking_settings_read_as_documented() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/tracking-format.md"
    ))
    .unwrap();
    let section = &doc[doc.find("## Tracking settings").expect("the section")..];
    let start = section.find("```toml\n").expect("an example") + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let path = std::path::Path::new("settings.toml");
    let read =
        omote_config::parse_retarget_config(example, omote_config::Format::Toml, path).unwrap();
    let expected = RetargetConfig {
        mirror: true,
        neck_share: 0.4,
        limits: omote_core::tracking::HeadLimits {
            yaw_deg: 50.0,
            ..Default::default()
        },
        smoothing: omote_core::tracking::ShapeSmoothing {
            mouth: 0.05,
            ..Default::default()
        },
        head_filter: omote_core::smoothing::OneEuroConfig {
            min_cutoff: 1.0,
            beta: 0.05,
            derivative_cutoff: 1.0,
        },
        ..Default::default()
    };
    assert_eq!(read, expected);

    // The table's defaults, row by row as written.
    let d = RetargetConfig::default();
    let row = |field: &str| -> String {
        let line = section
            .lines()
            .find(|l| l.starts_with(&format!("| `{field}`")))
            .unwrap_or_else(|| panic!("no row for {field}"));
        line.split('|').nth(2).unwrap().trim().to_string()
    };
    assert_eq!(row("mirror"), format!("`{}`", d.mirror));
    assert_eq!(
        row("limits.yawDeg"),
        format!(
            "{}, {}, {}",
            d.limits.yaw_deg, d.limits.pitch_deg, d.limits.roll_deg
        )
    );
    assert_eq!(row("neckShare"), d.neck_share.to_string());
    assert_eq!(
        row("eyes.openBelow"),
        format!("{}, {}", d.eyes.open_below, d.eyes.closed_above)
    );
    assert_eq!(
        row("eyes.winkDifference"),
        d.eyes.wink_difference.to_string()
    );
    assert_eq!(row("eyes.maxOpenSpeed"), d.eyes.max_open_speed.to_string());
    assert_eq!(row("mouth.vowels"), format!("`{}`", d.mouth.vowels));
    assert_eq!(row("mouth.gain"), d.mouth.gain.to_string());
    assert_eq!(
        row("exclusiveEmotions"),
        format!("`{}`", d.exclusive_emotions)
    );
    assert_eq!(row("perfectSync"), format!("`{}`", d.perfect_sync));
    assert_eq!(
        row("perfectSyncReplaces"),
        format!("`{}`", d.perfect_sync_replaces)
    );
    for (field, f) in [("headFilter", d.head_filter), ("gazeFilter", d.gaze_filter)] {
        let written = format!(
            "{} Hz, {}, {} Hz",
            f.min_cutoff, f.beta, f.derivative_cutoff
        );
        assert_eq!(row(field), written, "{field}");
    }
    let s = d.smoothing;
    assert_eq!(
        row("smoothing.eyes"),
        format!(
            "{}, {}, {}, {}",
            s.eyes, s.mouth, s.emotions, s.perfect_sync
        )
    );
    assert_eq!(
        row("loss.grace"),
        format!("{}, {}", d.loss.grace, d.loss.blend_time)
    );
    assert_eq!(d.emotions.len(), 4, "the table names four emotion rules");
    for (field, curve) in [
        ("mouth.jawCurve", &d.mouth.jaw_curve),
        ("gaze.curve", &d.gaze.curve),
    ] {
        let written: omote_core::curve::ResponseCurve =
            serde_json::from_str(row(field).trim_matches('`')).unwrap();
        assert_eq!(&written, curve, "{field}");
    }
    assert_eq!(row("eyes.curve"), "`\"smoothstep\"`");
    assert_eq!(
        d.eyes.curve,
        omote_core::curve::ResponseCurve::preset("smoothstep").unwrap()
    );
}
