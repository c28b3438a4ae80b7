//! The scene runtime: voice timing, hand-over, afterglow, skips, waits, blinks that keep
//! clear of eye-area changes, and a smiling character that still blinks.

use std::sync::Arc;

use omote_core::eyes::BlinkCause;
use omote_core::scene::{
    CharacterSetup, ExpressionKey, EyeModeChoice, GazeKey, GazeTarget, KeyCurve, SceneEvent,
    SceneSetup, VoiceLine, Wait, is_eye_area,
};
use omote_core::{
    EyeMode, FaceConfig, FaceDriver, FaceEvent, Pcg32, Rig, Scene, SpeechTrack, Vec3,
};

const FPS: f32 = 60.0;
const DT: f32 = 1.0 / FPS;

/// A line of `len` s at 100 fps, voiced (alternating "a" and "o") from `on` to `off` s.
fn line(len: f32, on: f32, off: f32) -> Arc<SpeechTrack> {
    let n = (len * 100.0).round() as usize;
    let frames = (0..n)
        .map(|i| {
            let t = (i as f32 + 0.5) / 100.0;
            if t < on || t > off {
                [0.0; 5]
            } else if ((t * 4.0) as u32).is_multiple_of(2) {
                [0.8, 0.0, 0.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 0.0, 0.0, 0.6]
            }
        })
        .collect();
    Arc::new(SpeechTrack::new(100.0, frames, Some((on, off))).unwrap())
}

fn voice(t: f32, track: Arc<SpeechTrack>) -> VoiceLine {
    VoiceLine {
        t,
        track,
        afterglow: Vec::new(),
        afterglow_ramp_s: 0.5,
        afterglow_hold_s: f32::INFINITY,
        afterglow_release_s: 0.5,
        then: Vec::new(),
    }
}

fn key(rig: &Rig, t: f32, name: &str, weight: f32, fade: f32) -> ExpressionKey {
    let channel = rig.channel(name).unwrap();
    ExpressionKey {
        t,
        channel,
        weight,
        fade,
        curve: KeyCurve::Smooth,
        eye_area: is_eye_area(rig, channel),
    }
}

fn character(rig: &Arc<Rig>, id: &str, seed: u64, x: f32) -> CharacterSetup {
    CharacterSetup::new(
        id,
        FaceDriver::new(rig.clone(), FaceConfig::default(), seed),
        Vec3::new(x, 1.4, 0.0),
    )
}

/// Character `i`'s head yaw in degrees (> 0 toward its left): the gaze's share the
/// head carries, settled within 0.4 s (the eyes add the rest and their saccades).
fn head_yaw(scene: &Scene, i: usize) -> f32 {
    let (y, _, _) = scene
        .state(i)
        .head
        .to_euler(omote_core::glam::EulerRot::YXZ);
    y.to_degrees()
}

/// Mouth output (sum of the five vowels, after overrides) per frame for `frames` frames.
fn mouth(scene: &mut Scene, who: usize, frames: usize) -> Vec<f32> {
    let rig = scene.driver(who).rig().clone();
    let vowels: Vec<_> = ["aa", "ih", "ou", "ee", "oh"]
        .iter()
        .map(|n| rig.channel(n).unwrap())
        .collect();
    (0..frames)
        .map(|_| {
            scene.update(DT);
            vowels.iter().map(|&c| scene.state(who).weight(c)).sum()
        })
        .collect()
}

#[test]
fn the_mouth_opens_at_the_voiced_onset_and_hands_over_0_2_s_before_its_end() {
    let rig = Arc::new(Rig::standard());
    // Lines starting between frames, voiced spans labelled.
    for (start, on, off) in [(0.513, 0.31, 1.77), (1.0, 0.0, 1.2), (2.29, 0.62, 2.05)] {
        let mut c = character(&rig, "a", 1, 0.0);
        c.driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1);
        c.lines.push(voice(start, line(off + 0.5, on, off)));
        let mut scene = Scene::new(SceneSetup {
            characters: vec![c],
            ..SceneSetup::default()
        })
        .unwrap();
        let m = mouth(&mut scene, 0, ((start + off + 1.0) * FPS) as usize);
        // Frame i shows time (i + 1) / FPS.
        let first_open = m.iter().position(|&w| w > 0.0).unwrap();
        let expected_open = ((start + on) * FPS).ceil() as usize - 1;
        assert!(
            first_open.abs_diff(expected_open) <= 1,
            "start {start}: opens at frame {first_open}, voice at {expected_open}"
        );
        // The hand-over: the mouth layer's weight leaves 1 at voiced end − 0.2 s.
        let handover = start + off - 0.2;
        let peak_frame = ((handover) * FPS) as usize;
        let closed = m.iter().rposition(|&w| w > 0.0).unwrap();
        let expected_closed = ((handover + 0.2) * FPS).ceil() as usize - 1;
        assert!(
            closed.abs_diff(expected_closed) <= 1,
            "start {start}: mouth closes at frame {closed}, expected {expected_closed}"
        );
        // Before the hand-over the mouth follows the track; during it, it falls steadily.
        assert!(
            m[peak_frame - 2] > 0.5,
            "start {start}: {:?}",
            &m[peak_frame - 4..]
        );
        for w in m[peak_frame + 1..=closed].windows(2) {
            assert!(w[1] <= w[0] + 1e-5, "start {start}: not falling {w:?}");
        }
    }
}

#[test]
fn the_afterglow_is_0_before_the_hand_over_1_after_its_ramp_and_monotonic_between() {
    let rig = Arc::new(Rig::standard());
    let smile = rig.channel("mouthSmileLeft").unwrap();
    let mut c = character(&rig, "a", 1, 0.0);
    c.driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1);
    let mut l = voice(0.4, line(2.0, 0.3, 1.5));
    l.afterglow = vec![(smile, 0.5)];
    l.afterglow_ramp_s = 0.8;
    c.lines.push(l);
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap();
    let handover = 0.4 + 1.5 - 0.2;
    let mut prev = 0.0;
    for i in 0..(4.0 * FPS) as usize {
        scene.update(DT);
        let t = (i + 1) as f32 * DT;
        let g = scene.state(0).weight(smile) / 0.5;
        if t < handover - 1e-3 {
            assert_eq!(g, 0.0, "t={t}");
        } else if t > handover + 0.8 + 1e-3 {
            assert!((g - 1.0).abs() < 1e-5, "t={t}: {g}");
        } else {
            assert!(g >= prev - 1e-6, "t={t}: {prev} → {g}");
            let linear = (t - handover) / 0.8;
            assert!((g - linear).abs() < 0.03, "t={t}: {g} vs {linear}");
        }
        prev = g;
    }
}

/// A line's afterglow hold and release: full from the line's end for the hold, then
/// down to 0 over the release; the next line starts from a clean afterglow.
#[test]
fn a_scene_lines_afterglow_holds_then_releases() {
    let rig = Arc::new(Rig::standard());
    let smile = rig.channel("mouthSmileLeft").unwrap();
    let mut c = character(&rig, "a", 1, 0.0);
    c.driver = FaceDriver::new(rig.clone(), FaceConfig::raw(), 1);
    let mut l = voice(0.4, line(2.0, 0.3, 1.5));
    l.afterglow = vec![(smile, 0.5)];
    l.afterglow_hold_s = 1.0;
    l.afterglow_release_s = 0.5;
    c.lines.push(l);
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap();
    // Hand-over at 1.7 s; the line ends at 2.2 s (the 0.5 s ramp); held to 3.2 s;
    // released by 3.7 s.
    let mut at = Vec::new();
    for i in 0..(5.0 * FPS) as usize {
        scene.update(DT);
        at.push(((i + 1) as f32 * DT, scene.state(0).weight(smile)));
    }
    let g = |t: f32| {
        at.iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .unwrap()
            .1
    };
    assert!((g(2.5) - 0.5).abs() < 1e-5, "{}", g(2.5));
    assert!((g(3.1) - 0.5).abs() < 1e-5, "{}", g(3.1));
    assert!((g(3.45) - 0.25).abs() < 0.03, "{}", g(3.45));
    assert_eq!(g(3.8), 0.0);
    assert_eq!(g(5.0), 0.0);
    // A negative hold is refused, naming the line.
    let mut c = character(&rig, "b", 1, 0.0);
    let mut l = voice(0.4, line(2.0, 0.3, 1.5));
    l.afterglow_hold_s = -1.0;
    c.lines.push(l);
    let e = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .err()
    .unwrap();
    assert!(e.to_string().contains("afterglowHold"), "{e}");
}

#[test]
fn two_lines_joined_by_a_non_neutral_mouth_never_drop_to_a_closed_mouth() {
    let rig = Arc::new(Rig::standard());
    let mut c = character(&rig, "a", 3, 0.0);
    // The acting holds a slightly open "ih" smile between the lines.
    c.acting.push(key(&rig, 0.0, "ih", 0.25, 0.0));
    c.acting.push(key(&rig, 0.0, "happy", 0.6, 0.0));
    c.lines.push(voice(0.2, line(1.6, 0.3, 1.3)));
    c.lines.push(voice(1.9, line(1.6, 0.25, 1.4)));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap();
    let m = mouth(&mut scene, 0, (4.0 * FPS) as usize);
    let lowest = m.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(lowest > 0.2, "the mouth dropped to {lowest}");
}

#[test]
fn a_skip_mid_line_settles_the_mouth_within_the_hand_over_without_a_jump() {
    let rig = Arc::new(Rig::standard());
    let mut c = character(&rig, "a", 5, 0.0);
    c.acting.push(key(&rig, 0.0, "relaxed", 0.5, 0.0));
    c.lines.push(voice(0.0, line(6.0, 0.2, 5.5)));
    let mut other = character(&rig, "b", 6, 1.0);
    other.acting.push(key(&rig, 3.0, "surprised", 1.0, 0.3));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c, other],
        waits: vec![Wait { t: 6.0, hold: 1.0 }],
        ..SceneSetup::default()
    })
    .unwrap();
    let before = mouth(&mut scene, 0, (1.5 * FPS) as usize);
    let max_voice_step = before
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f32::max);
    scene.skip();
    let mut after = mouth(&mut scene, 0, 1);
    let reported: Vec<_> = scene.events().iter().copied().collect();
    assert!(
        reported
            .iter()
            .any(|e| matches!(e, SceneEvent::Skip { .. }))
            && reported
                .iter()
                .any(|e| matches!(e, SceneEvent::Wait { wait: 0, .. }))
            && reported
                .iter()
                .any(|e| matches!(e, SceneEvent::Cut { character: 0, .. })),
        "{reported:?}"
    );
    after.extend(mouth(&mut scene, 0, (1.0 * FPS) as usize - 1));
    assert!(scene.is_waiting(), "held at the wait after the skip");
    // Settled (the mouth layer let go) within the hand-over time.
    let settle = (0.2 * FPS).ceil() as usize + 1;
    assert!(after[settle..].iter().all(|&w| w == 0.0), "{after:?}");
    // The normal fade step: the open mouth (≤ 1.4) over 0.2 s.
    let fade_step = before[before.len() - 1] / (0.2 * FPS) + 1e-4;
    let mut prev = *before.last().unwrap();
    for &w in &after {
        assert!(
            (w - prev).abs() <= fade_step.max(max_voice_step),
            "jump {prev} → {w}"
        );
        prev = w;
    }
    // The other character's acting crossed into the jumped-to state without a snap.
    let surprised = scene.driver(1).rig().channel("surprised").unwrap();
    assert_eq!(scene.state(1).weight(surprised), 1.0);
}

/// A press during the last line: the scene is not finished before the frame that
/// reports its cut and skip, nor before the cut mouth has settled — so a host's loop
/// `while !is_finished() { update }` sees the events and leaves no mouth open.
#[test]
fn a_press_in_the_last_line_finishes_the_scene_once_reported_and_the_mouth_is_shut() {
    let rig = Arc::new(Rig::standard());
    let mut c = character(&rig, "a", 5, 0.0);
    c.lines.push(voice(0.0, line(4.0, 0.2, 3.5)));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap();
    let open = mouth(&mut scene, 0, FPS as usize);
    assert!(*open.last().unwrap() > 0.3, "{open:?}");
    scene.advance();
    assert!(!scene.is_finished(), "finished before its cut was reported");
    let mut events = Vec::new();
    let mut last = 1.0;
    let mut frames = 0;
    while !scene.is_finished() {
        last = mouth(&mut scene, 0, 1)[0];
        events.extend(scene.events().iter().copied());
        frames += 1;
        assert!(frames < 10 * FPS as usize, "never finished");
    }
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SceneEvent::Cut { character: 0, .. }))
            && events.iter().any(|e| matches!(e, SceneEvent::Skip { .. })),
        "{events:?}"
    );
    assert_eq!(
        last, 0.0,
        "the mouth is still open when the scene says it finished"
    );
    // Settled within the hand-over (0.2 s) and a frame.
    assert!(frames <= (0.2 * FPS).ceil() as usize + 2, "{frames} frames");
}

#[test]
fn waits_hold_the_timeline_while_the_faces_keep_blinking_and_advance_moves_on() {
    let rig = Arc::new(Rig::standard());
    let mut c = character(&rig, "a", 9, 0.0);
    c.lines.push(voice(0.5, line(1.5, 0.2, 1.2)));
    c.lines.push(voice(2.5, line(1.5, 0.2, 1.2)));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        waits: vec![Wait { t: 2.2, hold: 1.0 }],
        ..SceneSetup::default()
    })
    .unwrap();
    let mut blinks = 0;
    let mut voices = 0;
    for _ in 0..(20.0 * FPS) as usize {
        scene.update(DT);
        blinks += scene
            .state(0)
            .events()
            .iter()
            .filter(|e| matches!(e, FaceEvent::Blink(_)))
            .count();
        voices += scene
            .events()
            .iter()
            .filter(|e| matches!(e, SceneEvent::Voice { .. }))
            .count();
    }
    assert!(scene.is_waiting());
    assert_eq!(scene.timeline_time(), 2.2);
    assert_eq!(voices, 1, "the second line waits for the player");
    assert!(blinks >= 3, "idle while waiting: {blinks} blinks in 20 s");
    scene.advance();
    let mut advances = 0;
    for i in 0..(1.0 * FPS) as usize {
        scene.update(DT);
        if i == 0 {
            // The press came before this frame: the timeline moves on in it.
            assert!(scene.timeline_time() > 2.2, "{}", scene.timeline_time());
        }
        voices += scene
            .events()
            .iter()
            .filter(|e| matches!(e, SceneEvent::Voice { .. }))
            .count();
        advances += scene
            .events()
            .iter()
            .filter(|e| matches!(e, SceneEvent::Advance { .. }))
            .count();
    }
    assert_eq!(voices, 2);
    assert_eq!(advances, 1, "one press, one Advance event");
    assert!(!scene.is_waiting());
}

#[test]
fn no_blink_starts_in_the_window_before_an_eye_area_change_over_a_long_scene() {
    let rig = Arc::new(Rig::standard());
    let names = [
        "happy",
        "surprised",
        "sad",
        "relaxed",
        "browInnerUp",
        "blink",
    ];
    let mut rng = Pcg32::new(11);
    let mut chars = Vec::new();
    for who in 0..3 {
        let mut c = character(&rig, &format!("c{who}"), 100 + who as u64, who as f32);
        let mut t = 0.5;
        while t < 600.0 {
            let name = names[(rng.next_u32() % names.len() as u32) as usize];
            let w = (rng.next_u32() % 100) as f32 / 100.0;
            let fade = (rng.next_u32() % 60) as f32 / 100.0;
            c.acting.push(key(&rig, t, name, w, fade));
            t += 1.0 + (rng.next_u32() % 400) as f32 / 100.0;
        }
        chars.push(c);
    }
    let spans: Vec<Vec<(f64, f64)>> = chars
        .iter()
        .map(|c| {
            c.acting
                .iter()
                .map(|k| (f64::from(k.t), f64::from(k.t + k.fade)))
                .collect()
        })
        .collect();
    let mut scene = Scene::new(SceneSetup {
        characters: chars,
        ..SceneSetup::default()
    })
    .unwrap();
    let window = scene
        .driver(0)
        .face()
        .eyes()
        .blink()
        .unwrap()
        .suppress_window();
    let mut blinks = 0;
    for _ in 0..(600.0 * FPS) as usize {
        scene.update(DT);
        for (who, spans) in spans.iter().enumerate() {
            for e in scene.state(who).events().iter() {
                let FaceEvent::Blink(b) = e else { continue };
                assert_ne!(b.cause, BlinkCause::Requested);
                blinks += 1;
                for &(a, z) in spans {
                    assert!(
                        !(b.t >= a - window + 1e-3 && b.t <= z - 1e-3),
                        "character {who}: blink at {} inside the window of the change {a}..{z}: {b:?} {:?}",
                        b.t,
                        scene
                            .driver(who)
                            .face()
                            .eyes()
                            .blink()
                            .unwrap()
                            .eye_changes()
                    );
                }
            }
        }
    }
    assert!(blinks > 300, "{blinks} blinks in 3 × 10 min");
}

/// Blinks per minute of a character talking for `seconds` while holding `expression`.
fn talking_blinks(rig: &Arc<Rig>, expression: Option<&str>, seed: u64, seconds: f32) -> (f32, f32) {
    let mut c = character(rig, "a", seed, 0.0);
    if let Some(e) = expression {
        c.acting.push(key(rig, 0.0, e, 1.0, 0.0));
    }
    // One long line: talking eyes throughout.
    c.lines
        .push(voice(0.0, line(seconds + 1.0, 0.0, seconds + 0.5)));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap();
    let lid = rig.channel("eyeBlinkLeft").unwrap();
    let blink = rig.channel("blink").unwrap();
    let mut n = 0;
    let mut deepest: f32 = 0.0;
    for _ in 0..(seconds * FPS) as usize {
        scene.update(DT);
        assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Talking);
        n += scene
            .state(0)
            .events()
            .iter()
            .filter(|e| matches!(e, FaceEvent::Blink(_)))
            .count();
        let s = scene.state(0);
        deepest = deepest.max(s.weight(lid).max(s.weight(blink)));
    }
    (n as f32 / seconds * 60.0, deepest)
}

#[test]
fn a_smiling_character_blinks_at_the_talking_rate_and_the_lids_close() {
    let rig = Arc::new(Rig::standard());
    let (plain, plain_depth) = talking_blinks(&rig, None, 21, 300.0);
    assert!(plain_depth > 0.9, "{plain_depth}");
    for e in ["happy", "relaxed"] {
        let (rate, depth) = talking_blinks(&rig, Some(e), 21, 300.0);
        assert!(
            (rate - plain).abs() <= 0.25 * plain,
            "{e}: {rate:.1} blinks/min talking vs {plain:.1} with no expression"
        );
        // The expression's own blink closes what the expression leaves open.
        let closure = rig.info(rig.channel(e).unwrap()).desc.eye_closure;
        assert!(
            depth >= 0.8 * (1.0 - closure),
            "{e}: the lids reach only {depth}"
        );
    }
}

#[test]
fn same_seed_same_scene_bit_identical() {
    let rig = Arc::new(Rig::standard());
    let build = || {
        let mut a = character(&rig, "a", 1, -0.5);
        a.lines.push(voice(0.3, line(1.5, 0.2, 1.2)));
        a.acting.push(key(&rig, 1.0, "happy", 1.0, 0.3));
        let b = character(&rig, "b", 2, 0.5);
        Scene::new(SceneSetup {
            characters: vec![a, b],
            ..SceneSetup::default()
        })
        .unwrap()
    };
    let (mut s1, mut s2) = (build(), build());
    for _ in 0..300 {
        s1.update(DT);
        s2.update(DT);
        for i in 0..2 {
            assert_eq!(s1.state(i).expressions, s2.state(i).expressions);
            assert_eq!(s1.state(i).head, s2.state(i).head);
        }
    }
}

#[test]
fn listeners_look_at_the_speaker_and_the_speaker_at_whom_it_answers() {
    let rig = Arc::new(Rig::standard());
    let mut a = character(&rig, "a", 1, -1.0);
    a.lines.push(voice(0.2, line(3.0, 0.2, 2.8)));
    a.lines.push(voice(6.0, line(3.0, 0.2, 2.8)));
    let mut b = character(&rig, "b", 2, 1.0);
    b.lines.push(voice(3.5, line(2.0, 0.2, 1.8)));
    let mut scene = Scene::new(SceneSetup {
        characters: vec![a, b],
        ..SceneSetup::default()
    })
    .unwrap();
    let yaw = |s: &Scene, i: usize| {
        let (y, _, _) = s.state(i).head.to_euler(omote_core::glam::EulerRot::YXZ);
        y.to_degrees() + s.state(i).look_at_yaw_deg
    };
    for _ in 0..(2.0 * FPS) as usize {
        scene.update(DT);
    }
    // b (at +x) looks toward a (at −x): to its right, about 90° (clamped to 70°), the
    // head taking what the eyes cannot.
    assert_eq!(scene.driver(1).face().eye_mode(), EyeMode::Listening);
    assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Talking);
    assert!(yaw(&scene, 1) < -50.0, "b: {}", yaw(&scene, 1));
    assert!(
        scene.state(1).look_at_yaw_deg.abs() <= 25.5,
        "eyes within their limit"
    );
    // Before anyone answered, a speaks to its nearest neighbour, b (to its left).
    assert!(yaw(&scene, 0) > 50.0, "a: {}", yaw(&scene, 0));
    for _ in 0..(5.5 * FPS) as usize {
        scene.update(DT);
    }
    // a speaks again, answering b: a looks at b (to its left), b at a.
    assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Talking);
    assert!(yaw(&scene, 0) > 50.0, "a: {}", yaw(&scene, 0));
    assert!(yaw(&scene, 1) < -50.0, "b: {}", yaw(&scene, 1));
}

#[test]
fn bad_setups_are_refused_with_the_character_and_field() {
    let rig = Arc::new(Rig::standard());
    let mut c = character(&rig, "hero", 1, 0.0);
    c.lines.push(voice(0.0, line(2.0, 0.1, 1.5)));
    c.lines.push(voice(1.0, line(2.0, 0.1, 1.5)));
    let e = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap_err();
    assert!(
        e.to_string().contains("hero") && e.to_string().contains("line 1"),
        "{e}"
    );
    let mut c = character(&rig, "hero", 1, 0.0);
    c.acting.push(key(&rig, f32::NAN, "happy", 1.0, 0.0));
    let e = Scene::new(SceneSetup {
        characters: vec![c],
        ..SceneSetup::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("acting[0].t"), "{e}");
}

/// The game directs a character's gaze over the scene's keys: a point to its left (a
/// prop, the player) turns head and eyes there, another character or a keyed direction
/// is taken over while set, and clearing gives the keys back. Targets that cannot be
/// looked at are refused and change nothing.
#[test]
fn the_games_gaze_replaces_the_keys_until_cleared() {
    let rig = Arc::new(Rig::standard());
    let mut a = character(&rig, "a", 1, 0.0);
    // Keyed: a looks 30° to its right from the start.
    a.gaze.push(GazeKey {
        t: 0.0,
        target: GazeTarget::Direction {
            yaw_deg: -30.0,
            pitch_deg: 0.0,
        },
    });
    let b = character(&rig, "b", 2, -2.0);
    let mut scene = Scene::new(SceneSetup {
        characters: vec![a, b],
        ..SceneSetup::default()
    })
    .unwrap();
    let yaw = |s: &Scene| head_yaw(s, 0);
    let run = |s: &mut Scene, seconds: f32| {
        for _ in 0..(seconds * FPS) as usize {
            s.update(DT);
        }
    };
    // What a keyed direction of `deg` shows after `seconds`, for comparison.
    let keyed_at = |deg: f32, seconds: f32| {
        let mut a = character(&rig, "a", 1, 0.0);
        a.gaze.push(GazeKey {
            t: 0.0,
            target: GazeTarget::Direction {
                yaw_deg: deg,
                pitch_deg: 0.0,
            },
        });
        let mut s = Scene::new(SceneSetup {
            characters: vec![a, character(&rig, "b", 2, -2.0)],
            ..SceneSetup::default()
        })
        .unwrap();
        run(&mut s, seconds);
        yaw(&s)
    };
    run(&mut scene, 1.5);
    let keyed = yaw(&scene);
    assert!(keyed < -3.0, "keyed: {keyed}");

    // A prop 1 m ahead and 1 m to a's left (+x is its left: it faces +z): 45°.
    scene
        .set_gaze(0, Some(GazeTarget::Point(Vec3::new(1.0, 1.4, 1.0))))
        .unwrap();
    run(&mut scene, 1.5);
    let at_45 = keyed_at(45.0, 3.0);
    assert!(at_45 > 10.0, "{at_45}");
    assert!(
        (yaw(&scene) - at_45).abs() < 0.5,
        "point: {} vs {at_45}",
        yaw(&scene)
    );
    assert_eq!(
        scene.host_gaze(0),
        Some(GazeTarget::Point(Vec3::new(1.0, 1.4, 1.0)))
    );
    // b stands at −x: to a's right, 90° (clamped to 70°).
    scene.set_gaze(0, Some(GazeTarget::Character(1))).unwrap();
    run(&mut scene, 1.5);
    let at_b = yaw(&scene);
    assert!(at_b < at_45 - 40.0, "at b: {at_b}, at 45° {at_45}");

    // Refused, and nothing changes: itself, a character the scene lacks, NaN, 120°.
    for bad in [
        GazeTarget::Character(0),
        GazeTarget::Character(7),
        GazeTarget::Point(Vec3::new(f32::NAN, 0.0, 0.0)),
        GazeTarget::Direction {
            yaw_deg: 120.0,
            pitch_deg: 0.0,
        },
    ] {
        let e = scene.set_gaze(0, Some(bad)).unwrap_err();
        assert!(e.to_string().starts_with("character `a`: "), "{e}");
    }
    assert_eq!(scene.host_gaze(0), Some(GazeTarget::Character(1)));

    scene.set_gaze(0, None).unwrap();
    run(&mut scene, 1.5);
    let again = keyed_at(-30.0, 6.0);
    assert!(
        (yaw(&scene) - again).abs() < 0.5,
        "keys again: {} vs {again}",
        yaw(&scene)
    );
    assert_eq!(scene.host_gaze(0), None);
}

/// The game sets a character's eye mode over the scene's keys: focused blinks far less
/// than talking-rate idle; cleared, the keyed mode is back; while it speaks, its eyes
/// talk whatever the game set.
#[test]
fn the_games_eye_mode_replaces_the_keys_until_cleared() {
    let rig = Arc::new(Rig::standard());
    let blinks = |choice: Option<EyeModeChoice>| {
        let mut a = character(&rig, "a", 5, 0.0);
        a.eye_modes.push(omote_core::scene::EyeModeKey {
            t: 0.0,
            mode: Some(EyeMode::Listening),
        });
        a.lines.push(voice(200.0, line(3.0, 0.2, 2.8)));
        let mut scene = Scene::new(SceneSetup {
            characters: vec![a],
            ..SceneSetup::default()
        })
        .unwrap();
        scene.set_eye_mode(0, choice);
        assert_eq!(scene.host_eye_mode(0), choice);
        let mut n = 0;
        for _ in 0..(180.0 * FPS) as usize {
            scene.update(DT);
            n += scene
                .state(0)
                .events()
                .iter()
                .filter(|e| matches!(e, FaceEvent::Blink(_)))
                .count();
        }
        let mode = choice.map_or(EyeMode::Listening, |c| match c {
            EyeModeChoice::Auto => EyeMode::Idle,
            EyeModeChoice::Mode(m) => m,
        });
        assert_eq!(scene.driver(0).face().eye_mode(), mode);
        // Its line at 200 s: talking, whatever was set.
        for _ in 0..(21.0 * FPS) as usize {
            scene.update(DT);
        }
        assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Talking);
        // Cleared after the line: the keyed mode.
        scene.set_eye_mode(0, None);
        for _ in 0..(3.0 * FPS) as usize {
            scene.update(DT);
        }
        assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Listening);
        n
    };
    let focused = blinks(Some(EyeModeChoice::Mode(EyeMode::Focused)));
    let talking = blinks(Some(EyeModeChoice::Mode(EyeMode::Talking)));
    let keyed = blinks(None);
    let auto = blinks(Some(EyeModeChoice::Auto));
    assert!(
        (focused as f32) < 0.6 * talking as f32,
        "focused {focused} vs talking {talking} blinks in 3 min"
    );
    assert!(
        keyed != talking && auto != keyed,
        "{keyed} {talking} {auto}"
    );
}

/// A target behind a character is looked at over one shoulder and stays there while it
/// wobbles about straight behind (a player standing behind an NPC); it changes shoulder
/// only once the target is clearly on the other side. A target at the head counts as
/// ahead, not as a full turn toward a 0.1 mm offset.
#[test]
fn a_target_behind_is_looked_at_over_one_shoulder_without_swinging() {
    let rig = Arc::new(Rig::standard());
    let mut scene = Scene::new(SceneSetup {
        characters: vec![character(&rig, "a", 1, 0.0)],
        ..SceneSetup::default()
    })
    .unwrap();
    let look = |s: &mut Scene, x: f32, z: f32, frames: usize| {
        s.set_gaze(0, Some(GazeTarget::Point(Vec3::new(x, 1.4, z))))
            .unwrap();
        let mut range = (f32::INFINITY, f32::NEG_INFINITY);
        for _ in 0..frames {
            s.update(DT);
            range = (range.0.min(head_yaw(s, 0)), range.1.max(head_yaw(s, 0)));
        }
        range
    };
    // Behind, a little to its left (+x): over the left shoulder.
    look(&mut scene, 0.3, -2.0, 60);
    assert!(head_yaw(&scene, 0) > 30.0, "{}", head_yaw(&scene, 0));
    // Wobbling 2 cm either side of straight behind for 3 s: it stays there.
    for k in 0..30 {
        let x = if k % 2 == 0 { -0.02 } else { 0.02 };
        let (low, _) = look(&mut scene, x, -2.0, 6);
        assert!(low > 30.0, "swung to {low} at wobble {k}");
    }
    // Clearly to its right and behind (124° round): the right shoulder.
    look(&mut scene, -1.5, -1.0, 60);
    assert!(head_yaw(&scene, 0) < -30.0, "{}", head_yaw(&scene, 0));
    // At the head, a hair to the side: ahead.
    look(&mut scene, 1e-4, 0.0, 90);
    assert!(head_yaw(&scene, 0).abs() < 1.0, "{}", head_yaw(&scene, 0));
}

/// Gaze and eye-mode keys after a character's last line or acting key are part of the
/// scene: it lasts until they have played (a bake would have cut them off).
#[test]
fn gaze_and_eye_keys_after_the_last_acting_key_still_play() {
    let rig = Arc::new(Rig::standard());
    let mut a = character(&rig, "a", 1, 0.0);
    a.acting.push(key(&rig, 0.2, "happy", 1.0, 0.0));
    a.gaze.push(GazeKey {
        t: 5.0,
        target: GazeTarget::Point(Vec3::new(1.0, 1.4, 1.0)),
    });
    a.eye_modes.push(omote_core::scene::EyeModeKey {
        t: 7.0,
        mode: Some(EyeMode::Focused),
    });
    let mut scene = Scene::new(SceneSetup {
        characters: vec![a],
        ..SceneSetup::default()
    })
    .unwrap();
    assert!(scene.end_time() >= 7.0, "{}", scene.end_time());
    while !scene.is_finished() {
        scene.update(DT);
    }
    assert!(head_yaw(&scene, 0) > 10.0, "{}", head_yaw(&scene, 0));
    assert_eq!(scene.driver(0).face().eye_mode(), EyeMode::Focused);
}

/// The game places a character that walks: the others' gaze follows it there, and a
/// placement that is not finite is refused and changes nothing.
#[test]
fn the_games_placement_moves_a_character_and_the_gaze_follows() {
    let rig = Arc::new(Rig::standard());
    let mut a = character(&rig, "a", 1, 0.0);
    a.gaze.push(GazeKey {
        t: 0.0,
        target: GazeTarget::Character(1),
    });
    // b starts 2 m to a's right (−x).
    let mut scene = Scene::new(SceneSetup {
        characters: vec![a, character(&rig, "b", 2, -2.0)],
        ..SceneSetup::default()
    })
    .unwrap();
    for _ in 0..60 {
        scene.update(DT);
    }
    assert!(head_yaw(&scene, 0) < -10.0, "{}", head_yaw(&scene, 0));
    // b walks round to a's left, turned to face it.
    let there = Vec3::new(1.5, 1.4, 1.5);
    scene.set_placement(1, there, -135.0).unwrap();
    assert_eq!((scene.position(1), scene.facing_deg(1)), (there, -135.0));
    for _ in 0..60 {
        scene.update(DT);
    }
    assert!(head_yaw(&scene, 0) > 10.0, "{}", head_yaw(&scene, 0));
    let e = scene
        .set_placement(1, Vec3::new(f32::NAN, 0.0, 0.0), 0.0)
        .unwrap_err();
    assert!(
        e.to_string().contains("character `b`: the placement"),
        "{e}"
    );
    assert!(scene.set_placement(1, there, f32::INFINITY).is_err());
    assert_eq!((scene.position(1), scene.facing_deg(1)), (there, -135.0));
}
