//! `Face` as a whole: determinism, frame-rate independence, robustness.

use std::sync::Arc;

use omote_core::anim::AnimRecorder;
use omote_core::mix::BlendMode;
use omote_core::{Face, FaceConfig, FaceInputs, FaceState, Pcg32, Quat, Rig};

/// A busy input stream: every layer written, head and gaze moving, from `seed`.
fn drive(face: &mut Face, frames: usize, dt: f32, seed: u64) -> Vec<FaceState> {
    let rig = face.rig().clone();
    let mut rng = Pcg32::new(seed);
    let extra = face.add_layer("extra", BlendMode::Additive);
    face.layer_mut(Face::MOUTH).set_weight(1.0);
    face.layer_mut(Face::EYES).set_weight(1.0);
    face.layer_mut(Face::ADDITIVE).set_weight(0.5);
    let mut out = Vec::with_capacity(frames);
    for i in 0..frames {
        let t = i as f32 * dt;
        for (id, _) in rig.channels() {
            for layer in [Face::BASE, Face::MOUTH, Face::EYES, Face::ADDITIVE, extra] {
                face.layer_mut(layer).set(id, rng.next_f32());
            }
        }
        let inputs = FaceInputs {
            head: Quat::from_euler(
                omote_core::glam::EulerRot::YXZ,
                (t * 0.9).sin() * 0.4,
                (t * 1.3).sin() * 0.2,
                0.1,
            ),
            gaze_yaw_deg: rng.range_f32(-30.0, 30.0),
            gaze_pitch_deg: rng.range_f32(-20.0, 20.0),
        };
        out.push(face.update(dt, &inputs).clone());
    }
    out
}

fn bits(s: &FaceState) -> Vec<u32> {
    let mut v: Vec<u32> = s.expressions.iter().map(|x| x.to_bits()).collect();
    for q in [s.head, s.left_eye, s.right_eye] {
        v.extend(q.to_array().map(f32::to_bits));
    }
    v.push(s.look_at_yaw_deg.to_bits());
    v.push(s.look_at_pitch_deg.to_bits());
    v
}

#[test]
fn same_seed_and_inputs_give_bit_identical_output() {
    let rig = Arc::new(Rig::standard());
    let config = FaceConfig {
        expression_half_life: 0.05,
        ..FaceConfig::default()
    };
    let mut a = Face::new(rig.clone(), config.clone(), 99);
    let mut b = Face::new(rig.clone(), config.clone(), 99);
    let sa = drive(&mut a, 600, 1.0 / 60.0, 5);
    let sb = drive(&mut b, 600, 1.0 / 60.0, 5);
    for (i, (x, y)) in sa.iter().zip(&sb).enumerate() {
        assert_eq!(bits(x), bits(y), "frame {i}");
    }
    // And a different input stream does change the output (the comparison has teeth).
    let mut c = Face::new(rig, config, 99);
    let sc = drive(&mut c, 600, 1.0 / 60.0, 6);
    assert_ne!(bits(&sa[300]), bits(&sc[300]));
}

#[test]
fn outputs_stay_in_range_and_finite_under_garbage_input() {
    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 1);
    let happy = rig.channel("happy").unwrap();
    face.layer_mut(Face::BASE).set(happy, f32::NAN);
    face.layer_mut(Face::ADDITIVE)
        .values_mut()
        .fill(f32::INFINITY);
    let bad = [f32::NAN, f32::INFINITY, -f32::INFINITY, 1e30, -1e30];
    for (i, &x) in bad.iter().cycle().take(50).enumerate() {
        let inputs = FaceInputs {
            head: Quat::from_xyzw(x, 0.0, 0.0, 1.0),
            gaze_yaw_deg: x,
            gaze_pitch_deg: -x,
        };
        let dt = if i % 7 == 0 {
            f32::NAN
        } else if i % 5 == 0 {
            -1.0
        } else {
            1.0 / 60.0
        };
        let s = face.update(dt, &inputs);
        assert!(
            s.expressions.iter().all(|w| (0.0..=1.0).contains(w)),
            "frame {i}"
        );
        for q in [s.head, s.left_eye, s.right_eye] {
            assert!(q.is_finite() && q.is_normalized(), "frame {i}: {q}");
        }
        assert!(s.look_at_yaw_deg.is_finite() && s.look_at_pitch_deg.is_finite());
        assert!(s.time.is_finite());
    }
}

#[test]
fn smoothed_face_is_frame_rate_independent() {
    // A smooth acting curve and a head turn, sampled at 30, 60 and 144 fps: the smoothed
    // outputs agree at shared instants.
    let rig = Arc::new(Rig::standard());
    let happy = rig.channel("happy").unwrap();
    let config = FaceConfig {
        expression_half_life: 0.08,
        // Saccades jump several degrees in a few ms: samples one frame apart (below)
        // would differ by design.
        saccade: None,
        ..FaceConfig::default()
    };
    let run = |fps: u32| -> Vec<(f32, Quat, f32)> {
        let mut face = Face::new(rig.clone(), config.clone(), 3);
        let dt = 1.0 / fps as f32;
        let per = fps / 6;
        let mut out = Vec::new();
        for i in 0..=(fps * 4) {
            let t = i as f32 * dt;
            face.layer_mut(Face::BASE)
                .set(happy, 0.5 + 0.5 * (t * 2.0).sin());
            let inputs = FaceInputs {
                head: Quat::from_rotation_y((t * 1.5).sin() * 0.6),
                gaze_yaw_deg: (t * 2.5).sin() * 25.0,
                gaze_pitch_deg: 0.0,
            };
            let s = face.update(dt, &inputs);
            if i % per == 0 {
                out.push((s.weight(happy), s.head, s.look_at_yaw_deg));
            }
        }
        out
    };
    let (a, b) = (run(30), run(144));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            (x.0 - y.0).abs() < 0.01,
            "happy at sample {i}: {} vs {}",
            x.0,
            y.0
        );
        assert!(
            x.1.angle_between(y.1).to_degrees() < 0.3,
            "head at sample {i}"
        );
        assert!(
            (x.2 - y.2).abs() < 0.3,
            "gaze at sample {i}: {} vs {}",
            x.2,
            y.2
        );
    }
}

#[test]
fn layer_fades_are_frame_rate_independent() {
    let rig = Arc::new(Rig::standard());
    let sad = rig.channel("sad").unwrap();
    let run = |fps: u32| {
        let mut face = Face::new(rig.clone(), FaceConfig::raw(), 0);
        let id = face.add_layer("sad-pose", BlendMode::Override);
        face.layer_mut(id).set(sad, 1.0);
        face.layer_mut(id).set_weight(0.0);
        face.layer_mut(id).fade_to(1.0, 1.0);
        let dt = 1.0 / fps as f32;
        let frames = (0.5 * fps as f32).round() as usize; // whole frames at 30, 60, 144
        let mut w = 0.0;
        for _ in 0..frames {
            w = face.update(dt, &FaceInputs::default()).weight(sad);
        }
        w
    };
    for fps in [30, 60, 144] {
        // The mixer applies the fade before mixing, so after 0.5 s of a 1 s fade it is 0.5.
        assert!((run(fps) - 0.5).abs() < 1e-4, "{fps} fps: {}", run(fps));
    }
}

#[test]
fn recorder_writes_one_value_per_frame_and_validates() {
    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 2);
    let mut rec = AnimRecorder::new(&rig, 60.0);
    for s in drive(&mut face, 120, 1.0 / 60.0, 1) {
        rec.record(&s);
    }
    let anim = rec.finish();
    anim.validate().unwrap();
    assert_eq!(anim.frames(), 120);
    assert_eq!(anim.duration, 2.0);
    assert_eq!(anim.expressions.0.len(), rig.len());
    assert_eq!(anim.expressions.0[0].0, "happy");
    let json = serde_json::to_string(&anim).unwrap();
    assert!(
        json.starts_with(r#"{"format":"omote-anim","version":2,"fps":60.0"#),
        "{}",
        &json[..80]
    );
    let back: omote_core::Anim = serde_json::from_str(&json).unwrap();
    assert_eq!(back, anim);
}

/// `happy` 0.6 and `surprised` 0.2 (both `overrideBlink: blend`, surprised also
/// `overrideMouth: blend` on the standard rig) over a closed blink and an open `aa`: the
/// state keeps the player's input (1.0) and what the face shows (1.0 × (1 − 0.8) for the
/// blink, 1.0 × (1 − 0.2) for the mouth); the recorder writes both.
#[test]
fn state_and_anim_keep_the_input_before_and_the_weights_after_the_overrides() {
    let rig = Arc::new(Rig::standard());
    let ch = |n: &str| rig.channel(n).unwrap();
    let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
    let base = face.layer_mut(Face::BASE);
    base.set(ch("happy"), 0.6);
    base.set(ch("surprised"), 0.2);
    base.set(ch("blink"), 1.0);
    base.set(ch("aa"), 1.5); // clamped in both
    base.set(ch("oh"), f32::NAN); // 0 in both
    let mut rec = AnimRecorder::new(&rig, 60.0);
    let s = face.update(1.0 / 60.0, &FaceInputs::default());
    assert_eq!(s.input_weight(ch("blink")), 1.0);
    assert!(
        (s.weight(ch("blink")) - 0.2).abs() < 1e-6,
        "{}",
        s.weight(ch("blink"))
    );
    assert_eq!(s.input_weight(ch("aa")), 1.0);
    assert!((s.weight(ch("aa")) - 0.8).abs() < 1e-6);
    assert_eq!((s.input_weight(ch("oh")), s.weight(ch("oh"))), (0.0, 0.0));
    // Overriders themselves are not changed by the rules.
    assert_eq!(s.input_weight(ch("happy")), 0.6);
    assert_eq!(s.weight(ch("happy")), 0.6);
    rec.record(s);
    let anim = rec.finish();
    anim.validate().unwrap();
    assert_eq!(anim.expressions.get("blink"), Some(&[1.0][..]));
    let applied = anim.applied().get("blink").unwrap()[0];
    assert!((applied - 0.2).abs() < 1e-6);
    assert_eq!(anim.applied().get("happy"), Some(&[0.6][..]));
}

/// An expression with `overrideLookAt: blend` at 0.5 halves the gaze the face shows; the
/// recorder keeps the gaze before it (`lookAtInput`, what a VRMA carries, since the player
/// applies the override itself) — and writes none where no override changed the gaze.
#[test]
fn the_anim_keeps_the_gaze_before_the_look_at_override_only_where_one_changed_it() {
    use omote_core::rig::{ExpressionDesc, OverrideMode};
    let desc = omote_core::RigDesc {
        name: "test".into(),
        presets: true,
        arkit: false,
        expressions: vec![ExpressionDesc::new("dreamy").overrides(
            OverrideMode::None,
            OverrideMode::Blend,
            OverrideMode::None,
        )],
        look_at: None,
    };
    let rig = Arc::new(Rig::from_desc(&desc).unwrap());
    let record = |weight: f32| {
        let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
        let dreamy = rig.channel("dreamy").unwrap();
        face.layer_mut(Face::BASE).set(dreamy, weight);
        let inputs = FaceInputs {
            gaze_yaw_deg: 20.0,
            gaze_pitch_deg: -8.0,
            ..FaceInputs::default()
        };
        let mut rec = AnimRecorder::new(&rig, 60.0);
        for _ in 0..3 {
            let s = face.update(1.0 / 60.0, &inputs);
            rec.record(s);
        }
        rec.finish()
    };
    let anim = record(0.5);
    anim.validate().unwrap();
    let (shown, input) = (anim.look_at[2], anim.look_at_input()[2]);
    assert!(input[0] > 1.0, "the face looks aside: {input:?}");
    assert!(
        (shown[0] - 0.5 * input[0]).abs() < 1e-5,
        "{shown:?} {input:?}"
    );
    assert!(
        (shown[1] - 0.5 * input[1]).abs() < 1e-5,
        "{shown:?} {input:?}"
    );
    let json = serde_json::to_string(&anim).unwrap();
    assert!(json.contains("\"lookAtInput\":"), "{json}");
    let back: omote_core::Anim = serde_json::from_str(&json).unwrap();
    assert_eq!(back, anim);
    // No override in force: one gaze, written once.
    let plain = record(0.0);
    assert_eq!(plain.look_at_input, None);
    assert_eq!(plain.look_at_input(), &plain.look_at[..]);
    assert!(
        !serde_json::to_string(&plain)
            .unwrap()
            .contains("lookAtInput")
    );
}

/// A blink asked of a face without the automatic blink is refused as such; a full queue
/// says so, and nothing is lost silently.
#[test]
fn eye_requests_say_why_they_are_refused() {
    use omote_core::eyes::EyeRequestError;
    let rig = Arc::new(Rig::standard());
    let mut raw = Face::new(rig.clone(), FaceConfig::raw(), 1);
    assert_eq!(raw.request_blink(), Err(EyeRequestError::BlinkOff));
    assert_eq!(raw.schedule_eye_change(1.0), Err(EyeRequestError::BlinkOff));
    let mut face = Face::new(rig, FaceConfig::default(), 1);
    assert_eq!(
        face.schedule_eye_change(f32::NAN),
        Err(EyeRequestError::NotFinite)
    );
    let results: Vec<_> = (0..1000).map(|_| face.request_blink_in(5.0)).collect();
    assert!(results[0].is_ok());
    assert_eq!(results[999], Err(EyeRequestError::QueueFull));
}
