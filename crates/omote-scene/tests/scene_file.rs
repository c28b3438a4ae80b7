//! Scene files: the demo scene loads and bakes deterministically with its events; bad
//! files name the file, line and field; a name map plays one scene on two rigs; real
//! labelled speech lands its voiced onset and hand-over on the right frames.

use std::path::{Path, PathBuf};

use omote_core::{Anim, anim::AnimEvent};
use omote_scene::{BakeOptions, LoadOptions, bake, load_scene, parse_scene};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/demo/scene.toml")
}

fn scratch(name: &str) -> omote_testdata::Scratch {
    omote_testdata::Scratch::new("scene", name)
}

/// When each of an anim's voice lines starts.
fn voice_starts(anim: &Anim) -> Vec<f32> {
    anim.events
        .iter()
        .filter_map(|e| match e {
            AnimEvent::Voice { t, .. } => Some(*t),
            _ => None,
        })
        .collect()
}

fn bake_file(path: &Path, options: &BakeOptions) -> Vec<(String, Anim)> {
    let mut loaded = load_scene(path, &LoadOptions::default(), &mut |_, _| {}).unwrap();
    let clips = loaded.clip_names();
    bake(&mut loaded.scene, &clips, options, |_, _| {})
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c.anim))
        .collect()
}

#[test]
fn the_demo_scene_bakes_the_same_bytes_twice_with_voice_expression_and_blink_events() {
    let a = bake_file(&demo(), &BakeOptions::default());
    let b = bake_file(&demo(), &BakeOptions::default());
    assert_eq!(a.len(), 2);
    for ((ida, x), (idb, y)) in a.iter().zip(&b) {
        assert_eq!(ida, idb);
        assert_eq!(
            serde_json::to_string(x).unwrap(),
            serde_json::to_string(y).unwrap(),
            "{ida}: not byte-identical"
        );
    }
    for (id, anim) in &a {
        anim.validate().unwrap();
        let voices: Vec<_> = anim
            .events
            .iter()
            .filter_map(|e| match e {
                AnimEvent::Voice {
                    t,
                    voiced_start,
                    voiced_end,
                    clip,
                } => Some((*t, voiced_start.unwrap(), voiced_end.unwrap(), clip.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(voices.len(), 2, "{id}: {voices:?}");
        for (t, s, e, clip) in &voices {
            assert!(clip.starts_with(id.as_str()), "{clip}");
            // espeak's lines start after 0.3 s of padding and end 0.4 s before the clip.
            assert!(
                (s - t - 0.3).abs() < 0.08,
                "{id} {clip}: voice at +{}",
                s - t
            );
            assert!(e > s);
        }
        let blinks = anim
            .events
            .iter()
            .filter(|e| matches!(e, AnimEvent::Blink { .. }))
            .count();
        assert!(blinks >= 3, "{id}: {blinks} blinks in {} s", anim.duration);
        assert!(
            anim.events
                .iter()
                .any(|e| matches!(e, AnimEvent::Expression { eye_area: true, .. }))
        );
        assert!(
            anim.events
                .iter()
                .any(|e| matches!(e, AnimEvent::Marker { name, .. } if name == "wait 0"))
        );
    }
    // The second line of aoi waits for beni's line and the player: it starts after the
    // wait's hold.
    let aoi = &a.iter().find(|(id, _)| id == "aoi").unwrap().1;
    let second = voice_starts(aoi)[1];
    assert!(
        (second - (9.6 + 0.3)).abs() < 0.05,
        "aoi's second line at {second}"
    );
}

#[test]
fn a_scripted_skip_cuts_the_line_and_the_bake_waits_for_the_scripted_advance() {
    let options = BakeOptions {
        skips: vec![6.0],
        advances: vec![8.0],
        ..BakeOptions::default()
    };
    let baked = bake_file(&demo(), &options);
    let aoi = &baked.iter().find(|(id, _)| id == "aoi").unwrap().1;
    let beni = &baked.iter().find(|(id, _)| id == "beni").unwrap().1;
    assert!(beni.events.iter().any(
        |e| matches!(e, AnimEvent::Marker { name, t } if name == "cut" && (*t - 6.0).abs() < 0.02)
    ));
    let second = voice_starts(aoi)[1];
    // Skipped at 6 s to the wait at the end of beni's line (9.26 s on the timeline),
    // advanced at 8 s: aoi's line (timeline 9.6 s) starts 0.34 s later.
    assert!(
        (second - (8.0 + 9.6 - 9.2607)).abs() < 0.05,
        "aoi's second line at {second}"
    );
    // beni's mouth settles without a jump after the cut.
    let aa = beni.applied().get("aa").unwrap();
    let f = (6.0 * beni.fps) as usize;
    for w in aa[f..f + 30].windows(2) {
        assert!((w[1] - w[0]).abs() < 0.15, "jump {w:?}");
    }
}

fn write_scene(dir: &Path, text: &str) -> PathBuf {
    let voice = dir.join("v.wav");
    let samples = omote_testdata::buzz(16_000, 1.5, 0.3..1.2);
    std::fs::write(&voice, omote_testdata::wav16(&samples, 16_000, 1)).unwrap();
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn load_error(name: &str, text: &str) -> String {
    let dir = scratch(name);
    let path = write_scene(&dir, text);
    let mut analysed = 0;
    let e = load_scene(&path, &LoadOptions::default(), &mut |done, _| {
        analysed = done
    })
    .unwrap_err();
    let s = e.to_string();
    eprintln!("{name}: {s}");
    assert!(s.starts_with(&path.display().to_string()), "{s}");
    if name == "missing-audio" {
        assert_eq!(
            analysed, 0,
            "a missing file is reported before any voice is analysed"
        );
    }
    s
}

#[test]
fn bad_scene_files_name_the_file_the_line_and_the_field() {
    // The line is the field's own (`t = nan` on line 5, not its table's header on 4);
    // a weight's is the line of the inline table that holds it.
    let base = "[[character]]\nid = \"a\"\n\n";
    let cases: &[(&str, String, &str, &str)] = &[
        (
            "unknown-character",
            format!("{base}[[character.gaze]]\nt = 1\nat = \"nobody\"\n"),
            ":6:",
            "character[0].gaze[0].at",
        ),
        (
            "nan-point",
            format!("{base}[[character.gaze]]\nt = 1\npoint = [0, nan, 1]\n"),
            ":6:",
            "character[0].gaze[0].point: must be three finite numbers",
        ),
        (
            "wait-in-a-line",
            format!("{base}[[character.line]]\nt = 0\naudio = \"v.wav\"\n\n[[wait]]\nt = 0.6\n"),
            ":9:",
            "wait[0].t: a wait at 0.6 s falls while character `a`'s line 0 speaks",
        ),
        (
            "unused-name-to-nothing",
            "[[character]]\nid = \"a\"\nnames = { smile = \"hapy\" }\n".to_string(),
            ":3:",
            "character[0].names.smile: the rig `omote test face` has no expression `hapy`",
        ),
        (
            "four-numbers",
            format!("{base}[[character.gaze]]\nt = 1\npoint = [1.5, 1.0, 0.5, 2]\n"),
            ":6:",
            "character[0].gaze[0].point: invalid length 4, expected three numbers [x, y, z]",
        ),
        (
            "far-position",
            "[[character]]\nid = \"a\"\nposition = [0, inf, 1e30]\n".to_string(),
            ":3:",
            "character[0].position: [0, inf (or a number too large: beyond ±3.4e38), 1e30] is not a position: three numbers of metres, each within ±10000",
        ),
        (
            "four-numbers-position",
            "[[character]]\nid = \"a\"\nposition = [0, 1.4, 0, 0]\n".to_string(),
            ":3:",
            "character[0].position: invalid length 4, expected three numbers [x, y, z]",
        ),
        (
            "point-and-at",
            format!("{base}[[character.gaze]]\nt = 1\nat = \"camera\"\npoint = [0, 1, 1]\n"),
            ":4:",
            "character[0].gaze[0]: give one of `at`, `point`, or `yaw` and `pitch`",
        ),
        (
            "missing-audio",
            format!(
                "{base}[[character.line]]\nt = 0\naudio = \"v.wav\"\n\n[[character.line]]\nt = 50\naudio = \"nope.wav\"\n"
            ),
            ":10:",
            "character[0].line[1].audio",
        ),
        (
            "overlap",
            format!(
                "{base}[[character.line]]\nt = 0\naudio = \"v.wav\"\n\n[[character.line]]\nt = 1.0\naudio = \"v.wav\"\n"
            ),
            ":9:",
            "character[0].line[1].t",
        ),
        (
            "nan-time",
            format!("{base}[[character.acting]]\nt = nan\nset = {{ happy = 1 }}\n"),
            ":5:",
            "character[0].acting[0].t",
        ),
        (
            "key-in-comment",
            format!(
                "{base}[[character.acting]]  # t = 3 in a comment\nset = {{ happy = 1 }} # t = 9\ncurve = \"t = 2\"\nt = nan\n"
            ),
            ":7:",
            "character[0].acting[0].t",
        ),
        (
            "string-for-number",
            format!("{base}[[character.acting]]\nt = 1\nset = {{ happy = 1 }}\nfade = \"0.4\"\n"),
            ":7:",
            "character[0].acting[0].fade: invalid type: string \"0.4\", expected a number",
        ),
        (
            "word-for-seed",
            "[[character]]\nid = \"a\"\nseed = \"one\"\n".to_string(),
            ":3:",
            "character[0].seed: invalid type: string \"one\", expected a whole number, 0 or more",
        ),
        (
            "huge-weight",
            format!("{base}[[character.acting]]\nt = 1\nset = {{ happy = 1e300 }}\n"),
            ":6:",
            "character[0].acting[0].set.happy: inf (or a number too large: beyond ±3.4e38) is not a weight",
        ),
        (
            "tiny-fade",
            format!("{base}[[character.acting]]\nt = 1\nset = {{ happy = 1 }}\nfade = -1e-9\n"),
            ":7:",
            "character[0].acting[0].fade: -1e-9 is not a duration",
        ),
        (
            "unknown-expression",
            format!("{base}[[character.acting]]\nt = 1\nset = {{ hapy = 1 }}\n"),
            ":6:",
            "character[0].acting[0].set.hapy",
        ),
        (
            "bad-toml",
            format!("{base}[[character.acting]]\nt = \n"),
            ":5",
            "",
        ),
        (
            "unknown-field",
            format!("{base}[[character.acting]]\nt = 1\nset = {{ happy = 1 }}\nweigth = 2\n"),
            ":",
            "weigth",
        ),
    ];
    for (name, text, line, field) in cases {
        let e = load_error(name, text);
        assert!(e.contains(line), "{name}: {e}");
        assert!(e.contains(field), "{name}: {e}");
    }
}

#[test]
fn a_name_map_plays_one_scene_on_two_rigs_with_different_custom_names() {
    let dir = scratch("names");
    // Two rigs whose smile is a custom expression named differently.
    for (file, smile) in [("rig-a.json", "Smile_A"), ("rig-b.json", "grin")] {
        let rig = format!(
            r#"{{"name":"{file}","presets":true,"expressions":[{{"name":"{smile}","eyeClosure":0.2}}]}}"#
        );
        std::fs::write(dir.join(file), rig).unwrap();
    }
    let text = r#"
[[character]]
id = "a"
rig = "rig-a.json"
names = { smile = "Smile_A" }
  [[character.acting]]
  t = 0.5
  set = { smile = 0.8 }
  fade = 0.2

[[character]]
id = "b"
rig = "rig-b.json"
position = [1.0, 1.4, 0.0]
names = { smile = "grin" }
  [[character.acting]]
  t = 0.5
  set = { smile = 0.8 }
  fade = 0.2
"#;
    let path = write_scene(&dir, text);
    let baked = bake_file(&path, &BakeOptions::default());
    let a = baked[0].1.applied().get("Smile_A").unwrap();
    let b = baked[1].1.applied().get("grin").unwrap();
    assert_eq!(a.len(), b.len());
    assert_eq!(a, b, "the same key plays the same curve on both rigs");
    assert!((a[a.len() - 1] - 0.8).abs() < 1e-6);
    // Without the map the scene's name is unknown on the rig, and the error says so.
    let e = parse_scene(
        &text.replace("names = { smile = \"grin\" }", ""),
        &path,
        &LoadOptions::default(),
        &mut |_, _| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("has no expression `smile`"), "{e}");
}

/// Real speech with phone labels: the mouth opens at the voice onset (as the analyser finds
/// it, which must be close to the label) and hands over 0.2 s before the labelled end.
#[test]
fn labelled_speech_opens_the_mouth_at_its_voice_and_hands_over_before_its_end() {
    let Some(files) = omote_testdata::shared_files("speech", "wav") else {
        return;
    };
    let dir = scratch("labelled");
    let mut checked = 0;
    for wav in files.iter().filter(|p| {
        let n = p.file_name().unwrap().to_string_lossy();
        n.starts_with("en_espeak_00") || n.starts_with("ja_ojt_00")
    }) {
        let labels = std::fs::read_to_string(wav.with_extension("lab.tsv")).unwrap();
        let rows: Vec<(f32, f32, String)> = labels
            .lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (
                    c[0].parse().unwrap(),
                    c[1].parse().unwrap(),
                    c[2].to_string(),
                )
            })
            .collect();
        let on = rows.iter().find(|r| r.2 != "S").unwrap().0;
        let off = rows.iter().rev().find(|r| r.2 != "S").unwrap().1;
        let start = 0.25;
        let text = format!(
            "[[character]]\nid = \"a\"\nrig = \"standard\"\n[[character.line]]\nt = {start}\naudio = \"{}\"\n",
            wav.display()
        );
        let path = dir.join("scene.toml");
        std::fs::write(&path, &text).unwrap();
        let mut loaded = load_scene(&path, &LoadOptions::default(), &mut |_, _| {}).unwrap();
        let (s, e) = loaded.characters[0].lines[0].track.voiced().unwrap();
        // A line that opens on a stop is labelled from its closure, which is silent in any
        // voice: the voice may be found up to 0.1 s later, at the burst (Open JTalk's
        // `ja_ojt_005`: 1.32 s against 1.24), never more than 0.05 s earlier.
        assert!(
            (-0.05..=0.1).contains(&(s - on)),
            "{}: voice found at {s}, labelled {on}",
            wav.display()
        );
        assert!(
            (e - off).abs() <= 0.08,
            "{}: voice ends at {e}, labelled {off}",
            wav.display()
        );
        let fps = 60.0;
        let clips = loaded.clip_names();
        let options = BakeOptions {
            fps,
            ..BakeOptions::default()
        };
        let anim = bake(&mut loaded.scene, &clips, &options, |_, _| {})
            .unwrap()
            .remove(0)
            .anim;
        // The mouth layer: the sum of the vowels the face shows.
        let vowels: Vec<&[f32]> = ["aa", "ih", "ou", "ee", "oh"]
            .iter()
            .map(|n| anim.applied().get(n).unwrap())
            .collect();
        let mouth: Vec<f32> = (0..anim.frames())
            .map(|i| vowels.iter().map(|v| v[i]).sum())
            .collect();
        let opened = mouth.iter().position(|&w| w > 0.0).unwrap();
        let expect_open = ((start + s) * fps).ceil() as usize - 1;
        assert!(
            opened.abs_diff(expect_open) <= 1,
            "{}: opens at frame {opened}, voice at {expect_open}",
            wav.display()
        );
        let closed = mouth.iter().rposition(|&w| w > 0.0).unwrap();
        let expect_closed = ((start + e) * fps).ceil() as usize - 1;
        assert!(
            closed.abs_diff(expect_closed) <= 1,
            "{}: closes at {closed}, expected {expect_closed}",
            wav.display()
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} labelled clips");
}

/// The fuzz target's property on stable Rust: thousands of mutations of the demo scene
/// (numbers turned into nan, inf, huge or negative values, lines dropped, characters
/// flipped) load or fail with an error naming the file — never a panic — and a scene
/// that loads runs without NaN in its output.
#[test]
fn mutated_scene_files_never_panic_and_never_produce_nan() {
    let text = std::fs::read_to_string(demo()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut rng = omote_core::Pcg32::new(77);
    let nasty = [
        "nan", "inf", "-inf", "1e30", "-1", "0", "1e-40", "\"x\"", "[]", "{}",
    ];
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..600 {
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        for _ in 0..1 + rng.next_u32() % 3 {
            let i = (rng.next_u32() as usize) % out.len();
            match rng.next_u32() % 4 {
                0 => {
                    out.remove(i);
                }
                1 => {
                    if let Some(eq) = out[i].find('=') {
                        let v = nasty[(rng.next_u32() as usize) % nasty.len()];
                        out[i] = format!("{} {v}", &out[i][..=eq]);
                    }
                }
                2 => {
                    let j = (rng.next_u32() as usize) % out.len();
                    out.swap(i, j);
                }
                _ => {
                    let mut b = out[i].clone().into_bytes();
                    if !b.is_empty() {
                        let k = (rng.next_u32() as usize) % b.len();
                        b[k] = b"0123456789.-=[]{}\" a"[(rng.next_u32() % 20) as usize];
                    }
                    out[i] = String::from_utf8_lossy(&b).into_owned();
                }
            }
        }
        let mutated = out.join("\n");
        match parse_scene(&mutated, &demo(), &LoadOptions::default(), &mut |_, _| {}) {
            Ok(mut loaded) => {
                ok += 1;
                for _ in 0..40 {
                    loaded.scene.update(1.0 / 20.0);
                    for i in 0..loaded.scene.len() {
                        let s = loaded.scene.state(i);
                        assert!(
                            s.expressions.iter().all(|v| v.is_finite()),
                            "NaN from:\n{mutated}"
                        );
                        assert!(s.head.is_finite());
                    }
                }
            }
            Err(e) => {
                failed += 1;
                assert!(e.to_string().contains("scene.toml"), "{e}");
            }
        }
    }
    assert!(ok > 50 && failed > 50, "{ok} loaded, {failed} refused");
}

/// A character's audio lines are one speaker's: each is lip-synced with the mean cepstrum
/// of all that character's lines, so the same file reads differently for a character
/// with other lines, and for a character with only that line exactly as alone.
#[test]
fn a_characters_lines_share_the_speakers_mean() {
    let Some(speech) = omote_testdata::shared_data("speech") else {
        return;
    };
    let dir = scratch("speaker-mean");
    let (one, two) = (speech.join("ja_ojt_001.wav"), speech.join("ja_ojt_002.wav"));
    let text = format!(
        "[[character]]\nid = \"a\"\nrig = \"standard\"\n\
         [[character.line]]\nt = 0\naudio = \"{one}\"\n\
         [[character.line]]\nt = 10\naudio = \"{two}\"\n\
         [[character]]\nid = \"b\"\nrig = \"standard\"\n\
         [[character.line]]\nt = 0\naudio = \"{one}\"\n",
        one = one.display(),
        two = two.display()
    );
    let path = write_scene(&dir, &text);
    let loaded = load_scene(&path, &LoadOptions::default(), &mut |_, _| {}).unwrap();
    let alone = omote_scene::analyse_file(
        &one,
        &mut omote_lipsync::Analyser::new(omote_lipsync::Profile::builtin()),
    )
    .unwrap()
    .speech_track()
    .unwrap();
    let (a, b) = (&loaded.characters[0], &loaded.characters[1]);
    assert_eq!(*b.lines[0].track, alone, "b has no other line");
    assert_ne!(*a.lines[0].track, alone, "a's two lines share a mean");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 37's low items: ids that differ only in case and over-long ids are refused at
/// load (before a bake), a frame rate of 1e-300 is reported as written, and a UTF-8 byte
/// order mark is skipped.
#[test]
fn ids_frame_rates_and_a_byte_order_mark() {
    let e = load_error(
        "case",
        "[[character]]\nid = \"Aoi\"\n\n[[character]]\nid = \"aoi\"\n",
    );
    assert!(
        e.contains("character[1].id") && e.contains("differ only in case"),
        "{e}"
    );
    let long = "a".repeat(65);
    let e = load_error("long-id", &format!("[[character]]\nid = \"{long}\"\n"));
    assert!(
        e.contains("65 bytes long") && e.contains("at most 64"),
        "{e}"
    );
    let e = load_error("tiny-fps", "fps = 1e-300\n\n[[character]]\nid = \"a\"\n");
    assert!(e.contains("1e-300 is not a frame rate"), "{e}");
    let dir = scratch("bom");
    let path = write_scene(&dir, "\u{feff}fps = 30\n\n[[character]]\nid = \"a\"\n");
    let loaded = load_scene(&path, &LoadOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(loaded.fps, Some(30.0));
}

/// The built-in motion map drives ARKit blendshapes: an avatar with only some of them is
/// corrected with those (and nothing else moves), one with none is refused by name with a
/// way out; a rig with all of them gets the whole map.
#[test]
fn the_builtin_motion_map_uses_what_the_avatar_has_of_its_channels() {
    use omote_core::camera::CameraAngle;
    use omote_core::rig::{ExpressionDesc, Rig, RigDesc};
    let rig = |names: &[&str]| {
        Rig::from_desc(&RigDesc {
            name: "t".into(),
            presets: true,
            arkit: false,
            expressions: names.iter().map(|n| ExpressionDesc::new(*n)).collect(),
            look_at: None,
        })
        .unwrap()
    };
    let presets_only = rig(&[]);
    let e = omote_scene::anime_face_correction(&presets_only)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("builtin:anime-face: the avatar has none of the channels")
            && e.contains("mouthLeft")
            && e.contains("a motion map of its own"),
        "{e}"
    );
    let some = rig(&["mouthLeft", "mouthRight"]);
    let mut correction = omote_scene::anime_face_correction(&some).unwrap();
    let mut weights = vec![0.0; some.len()];
    correction.write_into(CameraAngle::new(75.0, 0.0), &mut weights);
    let right = some.channel("mouthRight").unwrap();
    assert!((weights[right.index()] - 0.35).abs() < 1e-3, "{weights:?}");
    let moved = weights.iter().filter(|w| **w != 0.0).count();
    assert_eq!(moved, 1, "only the channels it has: {weights:?}");
    assert!(omote_scene::anime_face_correction(&Rig::standard()).is_ok());
}

/// A scene that is not there, or not text (an audio file given as the scene), is said in
/// words every binding shares, naming the file.
#[test]
fn a_missing_or_binary_scene_file_is_said_in_words() {
    let dir = scratch("unreadable");
    let missing = dir.join("none.toml");
    let e = load_scene(&missing, &LoadOptions::default(), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!("{}: cannot read the scene: no such file", missing.display())
    );
    let wav = dir.join("voice.wav");
    std::fs::write(&wav, omote_testdata::wav16(&[0, 1000, -1000], 16_000, 1)).unwrap();
    let e = load_scene(&wav, &LoadOptions::default(), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("cannot read the scene: not UTF-8 text"), "{e}");
}
