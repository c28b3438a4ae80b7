//! A 10-minute scene with 20 characters on the generated avatar's rig (70 channels),
//! each acting, speaking every few seconds, glancing, under an orbiting camera with a
//! motion map: baked at 60 fps with every frame recorded (the `omote bake` work minus
//! file writing). Target: ≥ 1000× real time on one core, i.e. ≤ 0.6 s per bake.
//!
//! Also the runtime alone (`Scene::update` for all 20, no recording).

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::scene::{
    CameraKey, CharacterSetup, ExpressionKey, GazeKey, GazeTarget, KeyCurve, SceneSetup, VoiceLine,
    Wait, is_eye_area,
};
use omote_core::speech::SpeechConfig;
use omote_core::{FaceConfig, FaceDriver, Pcg32, Scene, SpeechTrack, Vec3};
use omote_scene::{BakeOptions, bake};

const SECONDS: f32 = 600.0;
const CHARACTERS: usize = 20;

fn line(rng: &mut Pcg32, len: f32) -> Arc<SpeechTrack> {
    let n = (len * 100.0) as usize;
    let frames = (0..n)
        .map(|_| {
            let k = (rng.next_u32() % 5) as usize;
            let mut f = [0.0; 5];
            f[k] = 0.3 + (rng.next_u32() % 60) as f32 / 100.0;
            f
        })
        .collect();
    Arc::new(SpeechTrack::new(100.0, frames, Some((0.2, len - 0.3))).unwrap())
}

fn scene() -> Scene {
    let rig = Arc::new(omote_vrm::avatar::rig());
    let correction = omote_scene::anime_face_correction(&rig).unwrap();
    let mut rng = Pcg32::new(5);
    let emotions = ["happy", "relaxed", "sad", "surprised", "angry"];
    let mut characters = Vec::new();
    for i in 0..CHARACTERS {
        let driver = FaceDriver::new(rig.clone(), FaceConfig::default(), i as u64)
            .with_speech(SpeechConfig::default())
            .with_camera(correction.clone());
        let x = i as f32 * 0.6 - 6.0;
        let mut c = CharacterSetup::new(format!("c{i}"), driver, Vec3::new(x, 1.4, 0.0));
        let mut t = 0.5;
        while t < SECONDS {
            let name = emotions[(rng.next_u32() % 5) as usize];
            let ch = rig.channel(name).unwrap();
            c.acting.push(ExpressionKey {
                t,
                channel: ch,
                weight: (rng.next_u32() % 100) as f32 / 100.0,
                fade: 0.3,
                curve: KeyCurve::Smooth,
                eye_area: is_eye_area(&rig, ch),
            });
            t += 2.0 + (rng.next_u32() % 300) as f32 / 100.0;
        }
        // A line every ~20 s per character, staggered.
        let mut t = 1.0 + i as f32;
        let smile = rig.channel("mouthSmileLeft").unwrap();
        let happy = rig.channel("happy").unwrap();
        while t < SECONDS - 5.0 {
            let len = 1.5 + (rng.next_u32() % 250) as f32 / 100.0;
            // No wait (every 60 s) while a line speaks: start it after the wait instead.
            let next_wait = ((t / 60.0).floor() + 1.0) * 60.0;
            if next_wait < t + len {
                t = next_wait + 0.5;
                continue;
            }
            c.lines.push(VoiceLine {
                t,
                track: line(&mut rng, len),
                afterglow: vec![(smile, 0.3)],
                afterglow_ramp_s: 0.5,
                afterglow_hold_s: f32::INFINITY,
                afterglow_release_s: 0.5,
                then: vec![(happy, 0.5)],
            });
            t += len + 16.0 + (rng.next_u32() % 800) as f32 / 100.0;
        }
        for k in 0..60 {
            c.gaze.push(GazeKey {
                t: k as f32 * 10.0,
                target: if k % 3 == 0 {
                    GazeTarget::Camera
                } else {
                    GazeTarget::Auto
                },
            });
        }
        characters.push(c);
    }
    let camera = (0..=60)
        .map(|k| {
            let a = k as f32 * 0.7;
            CameraKey {
                t: k as f32 * 10.0,
                position: Vec3::new(3.0 * a.sin(), 1.5 + 0.3 * a.cos(), 3.0 * a.cos()),
                curve: KeyCurve::Smooth,
            }
        })
        .collect();
    let waits = (1..10)
        .map(|k| Wait {
            t: k as f32 * 60.0,
            hold: 0.5,
        })
        .collect();
    Scene::new(SceneSetup {
        characters,
        camera,
        waits,
    })
    .unwrap()
}

fn benches(c: &mut Criterion) {
    let template = scene();
    let clips: Vec<Vec<String>> = (0..CHARACTERS).map(|_| Vec::new()).collect();
    let mut g = c.benchmark_group("scene");
    g.sample_size(10);
    g.bench_function("bake 10 min × 20 characters at 60 fps", |b| {
        b.iter_batched(
            || template.clone(),
            |mut s| {
                let options = BakeOptions {
                    tail_s: 0.0,
                    ..BakeOptions::default()
                };
                bake(&mut s, &clips, &options, |_, _| {}).unwrap()
            },
            criterion::BatchSize::PerIteration,
        )
    });
    g.bench_function("update 20 characters, one frame", |b| {
        let mut s = template.clone();
        s.set_auto_advance(true);
        b.iter(|| {
            s.update(1.0 / 60.0);
            s.state(0).expressions[0]
        })
    });
    g.finish();
}

criterion_group!(bake_benches, benches);
criterion_main!(bake_benches);
