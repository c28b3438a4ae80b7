//! `Face::update`, `FaceDriver::update` and `Scene::update` allocate nothing: checked
//! with a counting global allocator — the core's one, for every no-allocation test.
//!
//! This file is its own test binary, so the allocator only wraps these tests.
#![allow(unsafe_code)] // a GlobalAlloc impl is unsafe by definition

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use omote_core::mix::BlendMode;
use omote_core::rig::LookAtDesc;
use omote_core::{EyeMode, Face, FaceConfig, FaceInputs, Quat, Rig, RigDesc};

struct Counting;

thread_local! {
    // Per thread, so the test harness and other tests running in parallel don't count.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn count() {
    // `try_with`: the slot may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn update_allocates_nothing() {
    // Both gaze types, smoothing on, every layer active.
    let expression_rig = Rig::from_desc(&RigDesc {
        presets: true,
        arkit: true,
        look_at: Some(LookAtDesc::default_expression()),
        ..RigDesc::default()
    })
    .unwrap();
    for rig in [Rig::standard(), expression_rig] {
        let rig = Arc::new(rig);
        let config = FaceConfig {
            expression_half_life: 0.05,
            ..FaceConfig::default()
        };
        let mut face = Face::new(rig.clone(), config, 11);
        let extra = face.add_layer("extra", BlendMode::Additive);
        for layer in [Face::MOUTH, Face::EYES, Face::ADDITIVE, extra] {
            face.layer_mut(layer).fade_to(1.0, 0.3);
        }
        let happy = rig.channel("happy").unwrap();
        let before = allocations();
        let mut sum = 0.0;
        for i in 0..2_000 {
            let t = i as f32 / 60.0;
            face.layer_mut(Face::BASE).set(happy, (t * 3.0).sin().abs());
            let inputs = FaceInputs {
                head: Quat::from_rotation_y(t.sin()),
                gaze_yaw_deg: (t * 2.0).sin() * 30.0,
                gaze_pitch_deg: (t * 3.0).cos() * 20.0,
            };
            sum += face.update(1.0 / 60.0, &inputs).expressions[0];
        }
        let after = allocations();
        assert!(sum.is_finite());
        assert_eq!(
            after - before,
            0,
            "Face::update allocated {} times",
            after - before
        );
    }
}

#[test]
fn the_driver_with_every_source_allocates_nothing() {
    use omote_core::camera::{MotionMapDesc, MotionPointDesc};
    use omote_core::speech::SpeechConfig;
    use omote_core::{
        CameraCorrection, DriverInputs, FaceDriver, MotionMap, MouthPolicy, RetargetConfig,
        SpeechTrack, TrackedFace, Vec3, VoiceFrame,
    };
    let rig = Arc::new(Rig::standard());
    let desc = MotionMapDesc::new(vec![
        MotionPointDesc::new("front", 0.0, 0.0).with("happy", 0.1),
        MotionPointDesc::new("left", 90.0, 0.0).with("mouthLeft", 0.4),
        MotionPointDesc::new("right", -90.0, 0.0).with("mouthRight", 0.4),
        MotionPointDesc::new("high", 0.0, 60.0),
        MotionPointDesc::new("low", 0.0, -60.0),
    ]);
    let correction = CameraCorrection::new(MotionMap::new(&desc).unwrap(), &rig).unwrap();
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap()
        .with_voice(MouthPolicy::VoiceFirst)
        .with_speech(SpeechConfig::default())
        .with_camera(correction);
    let mut tracked = TrackedFace::default();
    tracked.blendshapes.set("jawOpen", 0.4);
    tracked.head = Some(omote_core::Quat::from_rotation_y(0.3));
    let line = Arc::new(
        SpeechTrack::new(
            100.0,
            vec![[0.5, 0.0, 0.0, 0.0, 0.1]; 100],
            Some((0.2, 0.8)),
        )
        .unwrap(),
    );
    let smile = rig.channel("mouthSmileLeft").unwrap();
    // Warm up once through every branch (the first `say` stores the afterglow list).
    driver.say(line.clone(), &[(smile, 0.3)]).unwrap();
    let before = allocations();
    for i in 0..1200 {
        if i % 300 == 0 {
            driver.say(line.clone(), &[(smile, 0.3)]).unwrap();
        }
        let t = i as f32 / 60.0;
        let inputs = DriverInputs {
            tracking: ((i / 100) % 2 == 0).then_some(&tracked),
            voice: Some(VoiceFrame {
                vowels: [0.4, 0.0, 0.0, 0.0, 0.0],
                voiced: (i / 50) % 2 == 0,
            }),
            camera: Some(Vec3::new(t.sin(), 0.2, t.cos())),
            ..DriverInputs::default()
        };
        driver.update(1.0 / 60.0, &inputs);
    }
    assert_eq!(allocations() - before, 0, "the driver allocated");
}

#[test]
fn the_counter_sees_allocations() {
    // Control: the allocator really counts (otherwise the test above proves nothing).
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(vec![1, 2, 3]);
    assert!(allocations() > before);
    drop(v);
}

#[test]
fn motion_map_queries_and_camera_correction_allocate_nothing() {
    use omote_core::camera::{CameraAngle, FadeDesc, MotionMapDesc, MotionPointDesc};
    use omote_core::clip::{Clip, ClipDesc};
    use omote_core::mix::Layer;
    use omote_core::{CameraCorrection, MotionMap};
    let rig = Rig::standard();
    let clip_desc: ClipDesc = serde_json::from_str(
        r#"{"tracks":{"sad":{"keys":[{"t":0,"v":0,"interp":"linear"},{"t":1,"v":1}]}}}"#,
    )
    .unwrap();
    let clip = Clip::new(&clip_desc, &rig).unwrap();
    let mut desc = MotionMapDesc::new(vec![
        MotionPointDesc::new("front", 0.0, 0.0).with("happy", 0.1),
        MotionPointDesc::new("left", 90.0, 0.0).with("mouthLeft", 0.4),
        MotionPointDesc::new("right", -90.0, 0.0).with("mouthRight", 0.4),
        MotionPointDesc::new("high", 0.0, 60.0).with("eyeWideLeft", 0.2),
        MotionPointDesc::new("low", 0.0, -60.0).with("jawOpen", -0.2),
    ]);
    desc.points[1].clip = Some("lean".into());
    desc.fade = Some(FadeDesc {
        start: 120.0,
        end: 170.0,
    });
    let map = MotionMap::new(&desc).unwrap();
    let mut correction =
        CameraCorrection::with_clips(map.clone(), &rig, |n| (n == "lean").then_some(&clip))
            .unwrap();
    let mut layer = Layer::new("camera", BlendMode::Additive, rig.len());
    let mut weights = [0.0f64; 5];
    let before = allocations();
    let mut sum = 0.0;
    for i in 0..5_000 {
        let t = f64::from(i) * 0.01;
        let angle = CameraAngle::new((t * 37.0) % 360.0 - 180.0, (t * 1.3).sin() * 90.0);
        map.weights_into(angle.alpha_deg, angle.beta_deg, &mut weights);
        sum += weights[0] + map.blend(angle.alpha_deg, angle.beta_deg).weight(1);
        correction.update(1.0 / 60.0);
        sum += correction.apply_into(angle, &mut layer);
    }
    let after = allocations();
    assert!(sum.is_finite());
    assert_eq!(
        after - before,
        0,
        "queries allocated {} times",
        after - before
    );
}

#[test]
fn voice_lines_allocate_nothing_per_frame() {
    use omote_core::{
        SpeechTrack,
        speech::{SpeechConfig, SpeechPlayer},
    };
    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 3);
    let glow = face.add_layer("afterglow", BlendMode::Additive);
    let mut speech = SpeechPlayer::new(&rig, SpeechConfig::default());
    let frames = (0..300)
        .map(|i| [((i as f32) * 0.1).sin().abs(), 0.1, 0.0, 0.2, 0.0])
        .collect();
    let line = Arc::new(SpeechTrack::new(100.0, frames, Some((0.4, 2.6))).unwrap());
    let smile = [(rig.channel("mouthSmileLeft").unwrap(), 0.3)];
    // Warm up once: the first `say` may size the afterglow buffer.
    speech.say(line.clone(), &smile);
    let before = allocations();
    let mut sum = 0.0;
    for k in 0..5 {
        if k > 0 {
            speech.say(line.clone(), &smile);
        }
        for _ in 0..200 {
            speech.advance(1.0 / 60.0, face.layer_mut(Face::MOUTH));
            speech.apply_afterglow(face.layer_mut(glow));
            sum += face.update(1.0 / 60.0, &FaceInputs::default()).expressions[0];
        }
    }
    assert!(sum.is_finite());
    assert_eq!(allocations() - before, 0, "voice lines allocated");
}

#[test]
fn a_scene_frame_allocates_nothing() {
    use omote_core::scene::{
        CameraKey, CharacterSetup, ExpressionKey, GazeKey, GazeTarget, KeyCurve, SceneSetup,
        VoiceLine, Wait,
    };
    use omote_core::{FaceDriver, Scene, SpeechTrack, Vec3};
    let rig = Arc::new(Rig::standard());
    let line = Arc::new(
        SpeechTrack::new(
            100.0,
            vec![[0.5, 0.0, 0.0, 0.0, 0.1]; 150],
            Some((0.2, 1.3)),
        )
        .unwrap(),
    );
    let happy = rig.channel("happy").unwrap();
    let smile = rig.channel("mouthSmileLeft").unwrap();
    let mut characters = Vec::new();
    for i in 0..3 {
        let mut c = CharacterSetup::new(
            format!("c{i}"),
            FaceDriver::new(rig.clone(), FaceConfig::default(), i),
            Vec3::new(i as f32 - 1.0, 1.4, 0.0),
        );
        for k in 0..40 {
            let t = k as f32 * 0.5 + 0.1 * i as f32;
            c.acting.push(ExpressionKey {
                t,
                channel: happy,
                weight: (k % 3) as f32 / 2.0,
                fade: 0.3,
                curve: KeyCurve::Smooth,
                eye_area: true,
            });
            c.picture.push(ExpressionKey {
                t,
                channel: smile,
                weight: 0.1,
                fade: 0.2,
                curve: KeyCurve::Linear,
                eye_area: false,
            });
        }
        for k in 0..6 {
            c.lines.push(VoiceLine {
                t: i as f32 * 1.6 + k as f32 * 5.0,
                track: line.clone(),
                afterglow: vec![(smile, 0.2)],
                afterglow_ramp_s: 0.4,
                // Held and released between lines: the release runs allocation-free.
                afterglow_hold_s: 1.0,
                afterglow_release_s: 0.5,
                then: vec![(happy, 0.5)],
            });
        }
        c.gaze.push(GazeKey {
            t: 3.0,
            target: GazeTarget::Camera,
        });
        characters.push(c);
    }
    let mut scene = Scene::new(SceneSetup {
        characters,
        camera: vec![
            CameraKey {
                t: 0.0,
                position: Vec3::new(0.0, 1.5, 2.0),
                curve: KeyCurve::Linear,
            },
            CameraKey {
                t: 20.0,
                position: Vec3::new(2.0, 1.6, 1.0),
                curve: KeyCurve::Smooth,
            },
        ],
        waits: vec![Wait { t: 8.0, hold: 0.5 }, Wait { t: 16.5, hold: 0.5 }],
    })
    .unwrap();
    scene.set_auto_advance(true);
    // Warm up through the first lines (each `say` stores its afterglow list once).
    for _ in 0..400 {
        scene.update(1.0 / 60.0);
    }
    let before = allocations();
    for i in 0..1600 {
        if i == 300 {
            scene.skip();
        }
        if i == 900 {
            scene.advance();
        }
        scene.update(1.0 / 60.0);
    }
    assert_eq!(allocations() - before, 0, "a scene frame allocated");
    assert!(scene.events().dropped() == 0);
}

/// Through blinks, double blinks, motions, saccades, requests and mode changes, frame
/// after frame.
#[test]
fn face_update_with_eyes_allocates_nothing() {
    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 3);
    face.layer_mut(Face::BASE)
        .set(rig.channel("happy").unwrap(), 0.4);
    let mut events = 0;
    let before = allocations();
    for i in 0..60 * 600 {
        if i % 600 == 0 {
            face.set_eye_mode(EyeMode::ALL[(i / 600) % 4]);
            face.request_blink().unwrap();
            face.schedule_eye_change(1.0).unwrap();
        }
        let inputs = FaceInputs {
            gaze_yaw_deg: if (i / 240) % 2 == 0 { 0.0 } else { 40.0 },
            ..FaceInputs::default()
        };
        events += face.update(1.0 / 60.0, &inputs).events().len();
    }
    assert_eq!(allocations() - before, 0);
    assert!(events > 300, "{events}");
}
