//! The scene player: played frame by frame at 1/60 s it gives what the bake gives at
//! 60 fps, bit for bit; the scene's files from memory give the same frames as from
//! disk; a missing file is named; presses change what plays; a step that is no step
//! changes nothing; no number is ever NaN.

use std::path::{Path, PathBuf};

use omote_embed::{EmbedError, SceneEventKind, ScenePlayer, anim_json};
use omote_scene::{BakeOptions, FsFiles, LoadOptions, MemoryFiles, SceneFiles};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/demo/scene.toml")
}

/// The demo scene's voice files, in memory under the paths the loader asks for.
fn demo_in_memory() -> MemoryFiles {
    let dir = demo().parent().unwrap().to_path_buf();
    let mut files = MemoryFiles::new();
    for name in ["aoi_1.wav", "aoi_2.wav", "beni_1.wav", "beni_2.wav"] {
        let path = dir.join("voice").join(name);
        files.insert(path.clone(), std::fs::read(&path).unwrap());
    }
    files
}

/// Every character's weights (after and before the rules) and rotations, this frame.
fn frame(p: &ScenePlayer) -> Vec<f32> {
    let mut out = Vec::new();
    for i in 0..p.len() {
        out.extend_from_slice(p.weights(i));
        out.extend_from_slice(p.input_weights(i));
        out.extend_from_slice(&p.rotations(i));
    }
    out
}

fn assert_finite(p: &ScenePlayer) {
    for i in 0..p.len() {
        assert!(
            p.weights(i)
                .iter()
                .chain(p.input_weights(i))
                .chain(&p.rotations(i))
                .all(|v| v.is_finite()),
            "a NaN or infinite output at {} s",
            p.time()
        );
    }
    for e in p.events() {
        assert!(
            [e.t, e.voiced_start, e.voiced_end]
                .iter()
                .all(|v| v.is_finite())
                && [e.weight, e.from, e.to].iter().all(|v| v.is_finite()),
            "{e:?}"
        );
    }
}

#[test]
fn played_at_60_fps_it_is_the_bake_frame_for_frame() {
    let mut player = ScenePlayer::load(demo()).unwrap();
    // A bake without presses lets each wait hold for its own `hold`.
    let baked = player.bake(&BakeOptions::default()).unwrap();
    player.set_auto_advance(true);
    let frames = baked[0].anim.frames();
    assert!(frames > 60 * 15, "{frames} frames");
    let (mut worst, mut differing) = (0.0f32, 0usize);
    let mut voices = 0;
    for f in 0..frames {
        player.update(1.0 / 60.0);
        assert_finite(&player);
        voices += player
            .events()
            .iter()
            .filter(|e| e.kind == SceneEventKind::Voice)
            .count();
        for (i, b) in baked.iter().enumerate() {
            assert_eq!(player.id(i), b.id);
            let names = player.channel_names(i);
            let applied = b.anim.applied_expressions.as_ref().unwrap();
            for (c, name) in names.iter().enumerate() {
                let played = (player.weights(i)[c], player.input_weights(i)[c]);
                let baked = (
                    applied.get(name).unwrap()[f],
                    b.anim.expressions.get(name).unwrap()[f],
                );
                for (p, q) in [(played.0, baked.0), (played.1, baked.1)] {
                    let d = (p - q).abs();
                    worst = worst.max(d);
                    if p.to_bits() != q.to_bits() {
                        differing += 1;
                    }
                }
            }
            let r = player.rotations(i);
            assert_eq!(r[0..4], b.anim.head[f], "{} head, frame {f}", b.id);
            assert_eq!(r[4..8], b.anim.left_eye[f], "{} left eye, frame {f}", b.id);
            assert_eq!(
                r[8..12],
                b.anim.right_eye[f],
                "{} right eye, frame {f}",
                b.id
            );
        }
    }
    println!(
        "{frames} frames × {} characters: largest weight difference {worst:e}, {differing} values not bit-identical",
        baked.len()
    );
    assert!(worst <= 1e-6, "largest difference {worst}");
    assert_eq!(differing, 0, "the player and the bake differ in bits");
    assert_eq!(voices, 4, "the demo's four lines start");
}

#[test]
fn recording_what_is_played_at_60_fps_writes_the_bakes_anims() {
    let mut player = ScenePlayer::load(demo()).unwrap();
    let baked = player.bake(&BakeOptions::default()).unwrap();
    player.set_auto_advance(true);
    player.record(60.0).unwrap();
    for _ in 0..baked[0].anim.frames() {
        player.update(1.0 / 60.0);
    }
    let recorded = player.finish_recording();
    assert_eq!(recorded.len(), baked.len());
    for (r, b) in recorded.iter().zip(&baked) {
        assert_eq!(r.id, b.id);
        assert_eq!(anim_json(&r.anim).unwrap(), anim_json(&b.anim).unwrap());
        let vrma = player.vrma(player.index(&r.id).unwrap(), &r.anim).unwrap();
        assert_eq!(&vrma[..4], b"glTF");
    }
    assert!(player.finish_recording().is_empty(), "the recording ended");
}

#[test]
fn the_scene_from_memory_plays_as_from_disk() {
    let text = std::fs::read_to_string(demo()).unwrap();
    let mut from_disk = ScenePlayer::load(demo()).unwrap();
    let mut from_memory = ScenePlayer::from_text(&text, &demo(), &demo_in_memory()).unwrap();
    for _ in 0..600 {
        from_disk.update(1.0 / 60.0);
        from_memory.update(1.0 / 60.0);
        assert_eq!(frame(&from_disk), frame(&from_memory));
        assert_eq!(from_disk.events(), from_memory.events());
    }
    // The scene file itself from memory too.
    let mut files = demo_in_memory();
    files.insert(demo(), text.into_bytes());
    let mut all_in_memory = ScenePlayer::load_with(&demo(), &files).unwrap();
    all_in_memory.update(1.0 / 60.0);
    let mut again = ScenePlayer::load(demo()).unwrap();
    again.update(1.0 / 60.0);
    assert_eq!(frame(&all_in_memory), frame(&again));
}

#[test]
fn a_missing_file_is_named_with_its_line_and_field() {
    let text = std::fs::read_to_string(demo()).unwrap();
    let mut files = demo_in_memory();
    let dir = demo().parent().unwrap().to_path_buf();
    // beni's second line's audio is not there.
    let mut without = MemoryFiles::new();
    for name in ["aoi_1.wav", "aoi_2.wav", "beni_1.wav"] {
        let p = dir.join("voice").join(name);
        without.insert(p.clone(), files.read(&p).unwrap());
    }
    let e = ScenePlayer::from_text(&text, &demo(), &without).unwrap_err();
    // A missing file, as every binding reports it (C NotFound, Python FileNotFoundError).
    let EmbedError::FileNotFound(message) = &e else {
        panic!("{e:?}")
    };
    assert!(message.contains("scene.toml:"), "{message}");
    assert!(message.contains("character[1].line[1].audio"), "{message}");
    assert!(message.contains("beni_2.wav: no such file"), "{message}");
    // The same words as from disk.
    let renamed = text.replace("voice/beni_2.wav", "voice/nowhere.wav");
    let from_disk = ScenePlayer::from_text(&renamed, &demo(), &FsFiles).unwrap_err();
    let from_memory = ScenePlayer::from_text(&renamed, &demo(), &files).unwrap_err();
    assert_eq!(from_disk, from_memory);
    assert!(from_disk.to_string().contains("nowhere.wav"), "{from_disk}");
    // A file that is there but unreadable: the reader's own error, with the field.
    files.insert(dir.join("voice/beni_2.wav"), Vec::<u8>::new());
    let e = ScenePlayer::from_text(&text, &demo(), &files).unwrap_err();
    assert!(
        e.to_string().contains("character[1].line[1].audio") && e.to_string().contains("empty"),
        "{e}"
    );
    // The scene file itself.
    let e = ScenePlayer::load("/nowhere/scene.toml").unwrap_err();
    assert!(e.to_string().contains("/nowhere/scene.toml"), "{e}");
}

#[test]
fn advance_and_skip_change_what_plays() {
    let mut waiting = ScenePlayer::load(demo()).unwrap();
    // Without auto advance the demo holds at beni's wait.
    let mut held = 0;
    for _ in 0..60 * 14 {
        waiting.update(1.0 / 60.0);
        if waiting.is_waiting() {
            held += 1;
        }
    }
    assert!(held > 60, "held {held} frames");
    assert!(waiting.is_waiting());
    let timeline = waiting.timeline_time();
    let mut pressed = waiting.clone();
    pressed.advance();
    pressed.update(1.0 / 60.0);
    waiting.update(1.0 / 60.0);
    assert!(
        pressed
            .events()
            .iter()
            .any(|e| e.kind == SceneEventKind::Advance),
        "{:?}",
        pressed.events()
    );
    assert!(!pressed.is_waiting() && waiting.is_waiting());
    assert_eq!(waiting.timeline_time(), timeline, "the timeline holds");
    for _ in 0..120 {
        pressed.update(1.0 / 60.0);
        waiting.update(1.0 / 60.0);
    }
    assert!(pressed.timeline_time() > timeline + 1.9);
    assert_eq!(waiting.timeline_time(), timeline);
    assert_ne!(
        frame(&pressed),
        frame(&waiting),
        "aoi answers only when pressed"
    );

    // A skip in aoi's first line cuts it and jumps on.
    let mut a = ScenePlayer::load(demo()).unwrap();
    for _ in 0..90 {
        a.update(1.0 / 60.0);
    }
    let mut b = a.clone();
    b.skip();
    b.update(1.0 / 60.0);
    a.update(1.0 / 60.0);
    let kinds: Vec<SceneEventKind> = b.events().iter().map(|e| e.kind).collect();
    assert!(kinds.contains(&SceneEventKind::Cut), "{kinds:?}");
    let skip = b
        .events()
        .iter()
        .find(|e| e.kind == SceneEventKind::Skip)
        .unwrap();
    assert!(skip.to > skip.from, "{skip:?}");
    assert!(b.timeline_time() > a.timeline_time() + 1.0);
    for _ in 0..30 {
        a.update(1.0 / 60.0);
        b.update(1.0 / 60.0);
        assert_finite(&b);
    }
    assert_ne!(frame(&a), frame(&b));
}

#[test]
fn a_step_that_is_no_step_changes_nothing() {
    let mut p = ScenePlayer::load(demo()).unwrap();
    let mut q = p.clone();
    for k in 0..400 {
        p.update(1.0 / 60.0);
        q.update(1.0 / 60.0);
        if k % 50 == 7 {
            let (before, events, t) = (frame(&q), q.events().to_vec(), q.time());
            for dt in [0.0, f32::NAN, -1.0, f32::NEG_INFINITY, f32::INFINITY, -0.0] {
                q.update(dt);
                assert_eq!(frame(&q), before, "dt = {dt}");
                assert_eq!(q.events(), events, "dt = {dt}");
                assert_eq!(q.time(), t, "dt = {dt}");
            }
        }
        assert_eq!(frame(&p), frame(&q), "frame {k}");
    }
}

#[test]
fn a_long_step_is_one_exact_step() {
    let mut p = ScenePlayer::load(demo()).unwrap();
    p.update(5.0);
    assert_eq!(p.time(), 5.0);
    assert_finite(&p);
    assert!(
        p.events().iter().any(|e| e.kind == SceneEventKind::Voice),
        "aoi's first line started within the step: {:?}",
        p.events()
    );
}

#[test]
fn load_options_and_the_loaded_scene_are_reachable() {
    let loaded = omote_scene::load_scene(&demo(), &LoadOptions::default(), &mut |_, _| {}).unwrap();
    let p = ScenePlayer::new(loaded);
    assert_eq!(p.len(), 2);
    assert_eq!(p.id(0), "aoi");
    assert_eq!(p.line_count(0), 2);
    assert_eq!(p.clip(0, 0), Some("aoi_1.wav"));
    assert!(p.audio_path(1, 1).unwrap().ends_with("voice/beni_2.wav"));
    assert!(p.builtin_vrm(0).is_some());
    assert_eq!(p.position(0), [-0.65, 1.4, 0.0]);
    assert!(
        p.bake(&BakeOptions {
            fps: f32::NAN,
            ..BakeOptions::default()
        })
        .is_err()
    );
}

/// The host acts a scene's character (a branch the player chose): an expression the
/// scene never keys is set or faded and stays; one the scene keys is refused by name (the
/// scene writes it every frame); a bad character, name, weight or time is refused.
#[test]
fn the_host_acts_what_the_scene_does_not_key() {
    let mut p = ScenePlayer::load(demo()).unwrap();
    let aoi = p.index("aoi").unwrap();
    let e = p.set_expression(aoi, "happy", 1.0).unwrap_err().to_string();
    assert!(e.contains("`happy` is keyed by the scene"), "{e}");
    let angry = p
        .channel_names(aoi)
        .iter()
        .position(|n| n == "angry")
        .unwrap();
    p.fade_expression(aoi, "angry", 1.0, 0.5).unwrap();
    let mut seen = Vec::new();
    for _ in 0..60 {
        p.update(1.0 / 60.0);
        seen.push(p.input_weights(aoi)[angry]);
    }
    assert!(
        (seen[14] - 0.5).abs() < 0.05,
        "half way at 0.25 s: {}",
        seen[14]
    );
    assert_eq!(seen[29], 1.0);
    assert_eq!(seen[59], 1.0, "the host's expression stays");
    p.set_expression(aoi, "angry", 0.25).unwrap();
    p.update(1.0 / 60.0);
    assert_eq!(p.input_weights(aoi)[angry], 0.25);
    assert!(p.set_expression(9, "angry", 1.0).is_err());
    assert!(matches!(
        p.set_expression(aoi, "nope", 1.0),
        Err(EmbedError::UnknownExpression(_))
    ));
    assert!(p.set_expression(aoi, "angry", f32::NAN).is_err());
    assert!(p.fade_expression(aoi, "angry", 1.0, -1.0).is_err());
}

/// The game's camera replaces the scene's camera path: seen from above and from below,
/// the camera-angle correction draws other faces; `None` gives the path back; a camera
/// that is not three finite numbers is refused and changes nothing.
#[test]
fn the_games_camera_replaces_the_scenes_path() {
    let play = |camera: Option<[f32; 3]>, frames: usize| {
        let mut p = ScenePlayer::load(demo()).unwrap();
        p.set_camera(camera).unwrap();
        for _ in 0..frames {
            p.update(1.0 / 60.0);
        }
        assert_finite(&p);
        p
    };
    let path = play(None, 120);
    let above = play(Some([-0.65, 2.6, 1.0]), 120);
    let below = play(Some([-0.65, 0.6, 1.0]), 120);
    assert_eq!(above.camera_position(), Some([-0.65, 2.6, 1.0]));
    let on_path = path.camera_position().expect("the demo has a camera path");
    assert_ne!(on_path, [-0.65, 2.6, 1.0]);
    assert_ne!(frame(&above), frame(&below));
    assert_ne!(frame(&above), frame(&path));

    let mut back = play(Some([-0.65, 2.6, 1.0]), 60);
    back.set_camera(None).unwrap();
    for _ in 0..60 {
        back.update(1.0 / 60.0);
    }
    assert_eq!(back.camera_position(), Some(on_path));

    let e = back.set_camera(Some([0.0, f32::NAN, 1.0])).unwrap_err();
    assert!(e.to_string().contains("not three finite numbers"), "{e}");
    assert_eq!(back.camera_position(), Some(on_path));

    // In a scene with no camera path, taking the game's camera away takes its correction
    // away too: the faces are those of a scene that never had a camera.
    let text = std::fs::read_to_string(demo()).unwrap();
    let no_path = &text[..text.find("# The camera circles").unwrap()];
    let play_without_path = |camera_for: usize, frames: usize| {
        let mut p = ScenePlayer::from_text(no_path, &demo(), &FsFiles).unwrap();
        for k in 0..frames {
            let camera = (k < camera_for).then_some([-0.65, 2.6, 1.0]);
            p.set_camera(camera).unwrap();
            p.update(1.0 / 60.0);
        }
        assert_finite(&p);
        p
    };
    let never = play_without_path(0, 240);
    let cleared = play_without_path(60, 240);
    let kept = play_without_path(240, 240);
    assert_eq!(never.camera_position(), None);
    assert_eq!(cleared.camera_position(), None);
    assert_ne!(frame(&kept), frame(&never));
    assert_eq!(frame(&cleared), frame(&never));
}

/// The game directs a character's gaze and eyes with the scene file's own names: a point
/// to its left turns its head left and one to its right turns it right; a host's point is
/// what the same point keyed in the file plays, frame for frame; `None` gives the keys
/// back; bad names and numbers are refused with what was given.
#[test]
fn the_game_directs_gaze_and_eyes_by_the_scene_files_names() {
    let mut p = ScenePlayer::load(demo()).unwrap();
    let aoi = p.index("aoi").unwrap();
    // A point 1 m ahead of aoi and 1 m to its left or right, in the scene's frame.
    let (pos, f) = (p.position(aoi), p.facing_deg(aoi).to_radians());
    let side = |s: f32| {
        [
            pos[0] + f.sin() + s * f.cos(),
            pos[1],
            pos[2] + f.cos() - s * f.sin(),
        ]
    };
    let head_y_after = |point: [f32; 3]| {
        let mut p = ScenePlayer::load(demo()).unwrap();
        p.set_gaze_point(aoi, Some(point)).unwrap();
        for _ in 0..60 {
            p.update(1.0 / 60.0);
        }
        assert_finite(&p);
        p.rotations(aoi)[1]
    };
    let (left, right) = (head_y_after(side(1.0)), head_y_after(side(-1.0)));
    assert!(
        left > 0.05 && right < -0.05,
        "head y: left {left}, right {right}"
    );

    // The file's glance at the camera (aoi, 11.0–12.4 s) turned into a point, against
    // the original file with the game giving that point at 11.0 s.
    let point = side(1.0);
    let text = std::fs::read_to_string(demo()).unwrap();
    let keyed_text = text.replacen(
        "  at = \"camera\"",
        &format!("  point = [{}, {}, {}]", point[0], point[1], point[2]),
        1,
    );
    assert_ne!(keyed_text, text);
    let mut keyed = ScenePlayer::from_text(&keyed_text, &demo(), &FsFiles).unwrap();
    let mut hosted = ScenePlayer::from_text(&text, &demo(), &FsFiles).unwrap();
    let mut untouched = ScenePlayer::from_text(&text, &demo(), &FsFiles).unwrap();
    for s in [&mut keyed, &mut hosted, &mut untouched] {
        s.set_auto_advance(true);
    }
    let mut differed = false;
    for _ in 0..(12.3f32 * 60.0) as usize {
        if hosted.timeline_time() + 1.0 / 60.0 >= 11.0 && hosted.scene().host_gaze(aoi).is_none() {
            hosted.set_gaze_point(aoi, Some(point)).unwrap();
        }
        for s in [&mut keyed, &mut hosted, &mut untouched] {
            s.update(1.0 / 60.0);
        }
        assert_eq!(frame(&hosted), frame(&keyed), "at {} s", keyed.time());
        differed |= frame(&hosted) != frame(&untouched);
    }
    assert!(differed, "the point changed nothing");
    hosted.set_gaze(aoi, None).unwrap();
    assert_eq!(hosted.scene().host_gaze(aoi), None);

    // Eyes: the mode the game names, until given back.
    p.set_eye_mode(aoi, Some("focused")).unwrap();
    p.update(1.0 / 60.0);
    assert_eq!(
        p.scene().driver(aoi).face().eye_mode(),
        omote_core::EyeMode::Focused
    );
    p.set_eye_mode(aoi, None).unwrap();
    p.update(1.0 / 60.0);
    assert_ne!(
        p.scene().driver(aoi).face().eye_mode(),
        omote_core::EyeMode::Focused
    );

    // Refused, naming what was given.
    let err = |r: Result<(), EmbedError>| r.unwrap_err().to_string();
    assert!(err(p.set_gaze(9, Some("camera"))).contains("character 9: the scene has 2 characters"));
    assert!(err(p.set_gaze(aoi, Some("nobody"))).contains("`nobody` is neither a character"));
    assert!(err(p.set_gaze(aoi, Some("aoi"))).contains("cannot look at itself"));
    assert!(
        err(p.set_gaze_point(aoi, Some([0.0, f32::NAN, 1.0]))).contains("not three finite numbers")
    );
    assert!(err(p.set_eye_mode(aoi, Some("sleepy"))).contains("`sleepy` is not an eye mode"));
    assert_eq!(p.scene().host_gaze(aoi), None);
}

/// The game places a character (one that walks): from the first update on it plays what
/// the scene file with that placement plays, frame for frame; the player reads the place
/// back; a number that is not finite is refused.
#[test]
fn the_games_placement_plays_as_the_file_placed_there() {
    let text = std::fs::read_to_string(demo()).unwrap();
    let placed = text
        .replacen(
            "position = [-0.65, 1.4, 0.0]",
            "position = [-0.9, 1.45, 0.2]",
            1,
        )
        .replacen("facing = 20.0", "facing = 35.0", 1);
    assert_ne!(placed, text);
    let mut file = ScenePlayer::from_text(&placed, &demo(), &FsFiles).unwrap();
    let mut hosted = ScenePlayer::from_text(&text, &demo(), &FsFiles).unwrap();
    let aoi = hosted.index("aoi").unwrap();
    hosted.set_placement(aoi, [-0.9, 1.45, 0.2], 35.0).unwrap();
    assert_eq!(
        (hosted.position(aoi), hosted.facing_deg(aoi)),
        ([-0.9, 1.45, 0.2], 35.0)
    );
    for s in [&mut file, &mut hosted] {
        s.set_auto_advance(true);
    }
    for _ in 0..(16.0f32 * 60.0) as usize {
        file.update(1.0 / 60.0);
        hosted.update(1.0 / 60.0);
        assert_eq!(frame(&hosted), frame(&file), "at {} s", file.time());
    }
    let e = hosted
        .set_placement(aoi, [0.0, 1.4, 0.0], f32::NAN)
        .unwrap_err();
    assert!(e.to_string().contains("not four finite numbers"), "{e}");
    assert!(hosted.set_placement(5, [0.0, 1.4, 0.0], 0.0).is_err());
    assert_eq!(hosted.position(aoi), [-0.9, 1.45, 0.2]);
}
