//! The face driver: tracking in its own layer, the fixed per-frame order, voice and
//! voice lines on the mouth, camera correction — synthetic inputs, exact expectations.

use std::sync::Arc;

use omote_core::glam::EulerRot;
use omote_core::mix::{BlendMode, Layer};
use omote_core::speech::{NoSpeech, SpeechConfig};
use omote_core::tracking::Retargeter;
use omote_core::{
    DriverInputs, Face, FaceConfig, FaceDriver, FaceInputs, MouthPolicy, Quat, RetargetConfig, Rig,
    SpeechTrack, TrackedFace, Vec3, VoiceFrame,
};

#[test]
fn same_motion_at_30_and_60_fps_gives_the_same_curves() {
    // A smooth synthetic performance (head turn, jaw, smile, gaze) sampled at both rates.
    let rig = Rig::standard();
    let perform = |t: f32| {
        let mut f = omote_core::TrackedFace::default();
        let q = Quat::from_euler(
            EulerRot::YXZ,
            (t * 1.2).sin() * 0.5,
            (t * 0.8).sin() * 0.2,
            (t * 0.5).sin() * 0.2,
        );
        f.head = Some(q);
        f.blendshapes.set("jawOpen", 0.3 + 0.3 * (t * 3.0).sin());
        f.blendshapes
            .set("mouthSmileLeft", 0.5 + 0.4 * (t * 0.7).sin());
        f.blendshapes
            .set("mouthSmileRight", 0.5 + 0.4 * (t * 0.7).sin());
        f.blendshapes
            .set("eyeLookOutLeft", 0.4 + 0.4 * (t * 1.1).sin());
        f.blendshapes
            .set("eyeLookInRight", 0.4 + 0.4 * (t * 1.1).sin());
        f
    };
    let run = |fps: u32| {
        let mut rt = Retargeter::new(&rig, RetargetConfig::default()).unwrap();
        let mut layer = Layer::new("t", BlendMode::Override, rig.len());
        let dt = 1.0 / fps as f32;
        let per = fps / 10;
        let mut out = Vec::new();
        for i in 0..=(fps * 6) {
            let o = rt.update(dt, Some(&perform(i as f32 * dt)), &mut layer);
            if i % per == 0 {
                out.push((o.head, o.gaze_yaw_deg, layer.values().to_vec()));
            }
        }
        out
    };
    let (a, b) = (run(30), run(60));
    // Skip the first second: the tracking weight eases in from 0 at a per-frame rate.
    for (i, (x, y)) in a.iter().zip(&b).enumerate().skip(10) {
        assert!(
            x.0.angle_between(y.0).to_degrees() < 0.5,
            "head at sample {i}"
        );
        assert!(
            (x.1 - y.1).abs() < 1.0,
            "gaze at sample {i}: {} vs {}",
            x.1,
            y.1
        );
        for (c, (u, v)) in x.2.iter().zip(&y.2).enumerate() {
            assert!(
                (u - v).abs() < 0.03,
                "{} at sample {i}: {u} vs {v}",
                rig.channels()
                    .nth(c)
                    .map_or("?", |(id, _)| rig.channel_name(id))
            );
        }
    }
}

#[test]
fn automatic_eyes_take_over_when_the_face_is_lost() {
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 4)
        .with_tracking(RetargetConfig::default())
        .unwrap();
    let open_eyes = TrackedFace::default();
    let blink = rig.channel("blink").unwrap();
    let dt = 1.0 / 60.0;
    let (mut tracked_blinks, mut lost_blinks, mut lost_peak) = (0, 0, 0.0f32);
    let mut lost_gaze: Vec<f32> = Vec::new();
    for i in 0..(60 * 40) {
        let tracking = i < 60 * 20;
        let inputs = DriverInputs {
            tracking: tracking.then_some(&open_eyes),
            ..DriverInputs::default()
        };
        let s = driver.update(dt, &inputs);
        let blinks = s
            .events()
            .iter()
            .filter(|e| matches!(e, omote_core::FaceEvent::Blink(_)))
            .count();
        if tracking && i > 60 {
            // The tracked eyes are open and the tracker owns them: no automatic blinks.
            tracked_blinks += blinks;
            assert_eq!(s.weight(blink), 0.0, "frame {i}");
        } else if !tracking && i > 60 * 22 {
            lost_blinks += blinks;
            lost_peak = lost_peak.max(s.weight(blink));
            lost_gaze.push(s.look_at_yaw_deg);
        }
    }
    assert_eq!(tracked_blinks, 0);
    assert!(
        lost_blinks >= 2,
        "only {lost_blinks} automatic blinks in 18 s without a face"
    );
    assert!(
        lost_peak > 0.5,
        "automatic blinks must be visible: {lost_peak}"
    );
    let moved = lost_gaze.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        - lost_gaze.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(
        moved > 1.0,
        "saccades move the gaze while the face is lost: {moved}"
    );
}

/// A smiling tracked face.
fn smiling() -> TrackedFace {
    let mut f = TrackedFace::default();
    f.blendshapes.set("mouthSmileLeft", 0.9);
    f.blendshapes.set("mouthSmileRight", 0.9);
    f.head = Some(Quat::from_rotation_y(0.4));
    f
}

#[test]
fn losing_the_face_fades_tracking_out_and_the_acting_stays() {
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap();
    let (happy, relaxed) = (
        rig.channel("happy").unwrap(),
        rig.channel("relaxed").unwrap(),
    );
    // The acting: a slight smile and relaxed; the head acted a little to the right.
    driver.acting_mut().set(happy, 0.3);
    driver.acting_mut().set(relaxed, 0.5);
    let acted_head = Quat::from_rotation_y(-0.2);
    let face = smiling();
    let dt = 1.0 / 60.0;
    for i in 0..240 {
        let inputs = DriverInputs {
            tracking: (i < 120).then_some(&face),
            head: acted_head,
            ..DriverInputs::default()
        };
        let s = driver.update(dt, &inputs);
        if (60..120).contains(&i) {
            // Tracked: the tracked smile replaces the acted one; relaxed (not a tracked
            // channel) is the acting's; the head is the tracked one.
            assert!(s.weight(happy) > 0.9, "frame {i}: {}", s.weight(happy));
            assert_eq!(s.weight(relaxed), 0.5, "frame {i}");
            assert!(
                s.head.angle_between(Quat::from_rotation_y(0.4)) < 0.02,
                "frame {i}"
            );
        }
    }
    // Lost for two seconds: tracking has faded out and the acting is back, whole.
    let s = driver.state();
    assert_eq!(driver.report().tracking_weight, 0.0);
    assert!(!driver.report().face_present);
    assert_eq!(s.weight(happy), 0.3);
    assert_eq!(s.weight(relaxed), 0.5);
    assert!(s.head.angle_between(acted_head) < 1e-4);
}

#[test]
fn a_driver_without_sources_is_exactly_its_face() {
    let rig = Arc::new(Rig::standard());
    let happy = rig.channel("happy").unwrap();
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 9);
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 9);
    face.layer_mut(Face::BASE).set(happy, 0.7);
    driver.acting_mut().set(happy, 0.7);
    for i in 0..600 {
        let t = i as f32 / 60.0;
        let head = Quat::from_rotation_y((t * 0.7).sin() * 0.3);
        let a = face
            .update(
                1.0 / 60.0,
                &FaceInputs {
                    head,
                    gaze_yaw_deg: 10.0 * t.sin(),
                    gaze_pitch_deg: 0.0,
                },
            )
            .clone();
        let b = driver.update(
            1.0 / 60.0,
            &DriverInputs {
                head,
                gaze_yaw_deg: 10.0 * t.sin(),
                ..DriverInputs::default()
            },
        );
        assert_eq!(&a, b, "frame {i}");
    }
}

/// A line of "a" voiced from 0.3 to 0.8 s in a 1 s clip.
fn line() -> Arc<SpeechTrack> {
    let frames = (0..100)
        .map(|i| {
            if (30..80).contains(&i) {
                [0.8, 0.0, 0.0, 0.0, 0.0]
            } else {
                [0.0; 5]
            }
        })
        .collect();
    Arc::new(SpeechTrack::new(100.0, frames, Some((0.3, 0.8))).unwrap())
}

#[test]
fn voice_lines_open_with_the_voice_hand_over_and_leave_an_afterglow() {
    let rig = Arc::new(Rig::standard());
    let (aa, oh, smile) = (
        rig.channel("aa").unwrap(),
        rig.channel("oh").unwrap(),
        rig.channel("mouthSmileLeft").unwrap(),
    );
    let mut driver =
        FaceDriver::new(rig.clone(), FaceConfig::raw(), 1).with_speech(SpeechConfig::default());
    // The acting asks for an "o" mouth after the line: the hand-over goes there.
    driver.acting_mut().set(oh, 0.4);
    assert_eq!(driver.say(line(), &[(smile, 0.3)]), Ok(()));
    let dt = 0.01;
    let mut talking = Vec::new();
    for i in 1..=150 {
        driver.update(dt, &DriverInputs::default());
        let t = i as f32 * dt;
        talking.push((t, driver.report().speaking, driver.face().eye_mode()));
        let s = driver.state();
        if t < 0.29 {
            assert_eq!(s.weight(aa), 0.0, "t={t}: the mouth waits for the voice");
        }
        if (0.35..0.59).contains(&t) {
            assert!((s.weight(aa) - 0.8).abs() < 0.02, "t={t}: {}", s.weight(aa));
            assert_eq!(s.weight(smile), 0.0, "t={t}");
        }
        if t > 0.82 {
            // Handed over to the acting's mouth, never through a closed mouth.
            assert_eq!(s.weight(aa), 0.0, "t={t}");
            assert!((s.weight(oh) - 0.4).abs() < 1e-5, "t={t}");
        }
    }
    let s = driver.state();
    assert!((s.weight(smile) - 0.3).abs() < 1e-5, "afterglow at full");
    // Talking eyes from the voice start to the hand-over only.
    for (t, speaking, mode) in talking {
        let want = (0.305..0.595).contains(&t);
        if (t - 0.3).abs() > 0.011 && (t - 0.6).abs() > 0.011 {
            assert_eq!(speaking, want, "t={t}");
            assert_eq!(mode == omote_core::EyeMode::Talking, want, "t={t}");
        }
    }
}

#[test]
fn a_driver_without_speech_says_no_line() {
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::new(rig, FaceConfig::raw(), 1);
    assert_eq!(driver.say(line(), &[]), Err(NoSpeech));
    assert_eq!(driver.say_at(line(), &[], 0.5, 0.0), Err(NoSpeech));
    driver.update(0.01, &DriverInputs::default());
    assert!(!driver.report().speaking);
}

#[test]
fn a_skipped_line_lets_the_mouth_go_at_once() {
    let rig = Arc::new(Rig::standard());
    let aa = rig.channel("aa").unwrap();
    let mut driver =
        FaceDriver::new(rig.clone(), FaceConfig::raw(), 1).with_speech(SpeechConfig::default());
    driver.say(line(), &[]).unwrap();
    for _ in 0..50 {
        driver.update(0.01, &DriverInputs::default());
    }
    assert!(driver.state().weight(aa) > 0.7);
    driver.stop_speech();
    let s = driver.update(0.01, &DriverInputs::default());
    assert_eq!(s.weight(aa), 0.0);
    assert!(!driver.report().speaking);
}

#[test]
fn voice_first_speaks_over_the_tracked_mouth_and_gives_it_back_in_silence() {
    let rig = Arc::new(Rig::standard());
    let aa = rig.channel("aa").unwrap();
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap()
        .with_voice(MouthPolicy::VoiceFirst);
    // The camera sees a wide-open jaw; the microphone hears "a" at 0.5 from 1 to 2 s.
    let mut open = TrackedFace::default();
    open.blendshapes.set("jawOpen", 0.6);
    let dt = 0.01;
    for i in 0..300 {
        let t = i as f32 * dt;
        let voiced = (1.0..2.0).contains(&t);
        let voice = VoiceFrame {
            vowels: if voiced {
                [0.5, 0.0, 0.0, 0.0, 0.0]
            } else {
                [0.0; 5]
            },
            voiced,
        };
        let s = driver.update(
            dt,
            &DriverInputs {
                tracking: Some(&open),
                voice: Some(voice),
                ..DriverInputs::default()
            },
        );
        if (0.8..0.99).contains(&t) || t > 2.2 {
            assert!(
                s.weight(aa) > 0.8,
                "t={t}: the tracked jaw shows: {}",
                s.weight(aa)
            );
        }
        let aa_now = s.weight(aa);
        if (1.15..1.99).contains(&t) {
            assert!((aa_now - 0.5).abs() < 1e-4, "t={t}: the voice: {aa_now}");
            assert!(driver.report().speaking);
        }
    }
}

#[test]
fn camera_correction_follows_the_head_the_driver_computed() {
    use omote_core::camera::{MotionMapDesc, MotionPointDesc};
    use omote_core::{CameraCorrection, MotionMap};
    let rig = Arc::new(Rig::standard());
    let desc = MotionMapDesc::new(vec![
        MotionPointDesc::new("front", 0.0, 0.0),
        MotionPointDesc::new("left", 90.0, 0.0).with("mouthLeft", 0.4),
        MotionPointDesc::new("right", -90.0, 0.0).with("mouthRight", 0.4),
        MotionPointDesc::new("high", 0.0, 60.0),
        MotionPointDesc::new("low", 0.0, -60.0),
    ]);
    let correction = CameraCorrection::new(MotionMap::new(&desc).unwrap(), &rig).unwrap();
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1).with_camera(correction);
    let left = rig.channel("mouthLeft").unwrap();
    // A camera on the avatar's left, the head straight: the left correction at full.
    let on_left = DriverInputs {
        camera: Some(Vec3::new(1.0, 0.0, 0.0)),
        ..DriverInputs::default()
    };
    let s = driver.update(1.0 / 60.0, &on_left);
    assert!((s.weight(left) - 0.4).abs() < 1e-5, "{}", s.weight(left));
    let (angle, _) = driver.report().camera.unwrap();
    assert!((angle.alpha_deg - 90.0).abs() < 1e-4);
    // The same camera, the head turned 90° to its left: the camera is now in front.
    let turned = DriverInputs {
        head: Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        ..on_left
    };
    let s = driver.update(1.0 / 60.0, &turned);
    assert!(s.weight(left) < 1e-4, "{}", s.weight(left));
}

#[test]
fn hostile_inputs_never_reach_the_output() {
    let rig = Arc::new(Rig::standard());
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 3)
        .with_tracking(RetargetConfig::default())
        .unwrap()
        .with_voice(MouthPolicy::Blend(f32::NAN));
    let mut bad = TrackedFace::default();
    bad.blendshapes.0 = [f32::NAN; 52];
    bad.blendshapes.0[3] = f32::INFINITY;
    bad.head = Some(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
    for i in 0..200 {
        let s = driver.update(
            if i % 7 == 0 { f32::NAN } else { 1.0 / 60.0 },
            &DriverInputs {
                tracking: Some(&bad),
                voice: Some(VoiceFrame {
                    vowels: [f32::NAN, f32::INFINITY, -1.0, 2.0, 0.5],
                    voiced: true,
                }),
                camera: Some(Vec3::NAN),
                head: Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0),
                gaze_yaw_deg: f32::NAN,
                gaze_pitch_deg: f32::INFINITY,
            },
        );
        assert!(
            s.expressions.iter().all(|w| (0.0..=1.0).contains(w)),
            "frame {i}"
        );
        assert!(s.head.is_finite() && s.left_eye.is_finite(), "frame {i}");
        assert!(s.look_at_yaw_deg.is_finite() && s.look_at_pitch_deg.is_finite());
    }
}
