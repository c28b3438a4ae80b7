//! The one bake-size check: every bake's size is known before it runs, and a bake too
//! long or too large is refused with the reason, before anything is allocated; a key
//! past the longest bake is refused at load, naming its line (it would never happen).

use std::path::Path;

use omote_scene::{
    BakeError, BakeOptions, LoadOptions, LoadedScene, MAX_BAKE_S, MemoryFiles, bake, bake_size,
    parse_scene_with,
};

fn scene(text: &str) -> Result<LoadedScene, String> {
    let path = Path::new("/scenes/long.toml");
    let mut files = MemoryFiles::new();
    files.insert(
        Path::new("/scenes/rig.json").to_path_buf(),
        br#"{"name":"a","presets":true}"#.to_vec(),
    );
    parse_scene_with(text, path, &LoadOptions::default(), &files, &mut |_, _| {})
        .map_err(|e| e.to_string())
}

fn acting_at(t: f64) -> String {
    format!(
        "[[character]]\nid = \"a\"\nrig = \"rig.json\"\n  [[character.acting]]\n  t = 1.0\n  set = {{ happy = 0.5 }}\n  [[character.acting]]\n  t = {t}\n  set = {{ happy = 1.0 }}\n"
    )
}

#[test]
fn a_key_past_the_longest_bake_is_refused_at_load_naming_its_line() {
    let err = scene(&acting_at(5.0 * 3600.0)).unwrap_err();
    assert!(
        err.contains("long.toml:8: character[0].acting[1].t"),
        "{err}"
    );
    assert!(err.contains("the longest bake"), "{err}");
    // Just before it loads.
    scene(&acting_at(f64::from(MAX_BAKE_S) - 10.0)).unwrap();
}

#[test]
fn a_bake_too_large_is_refused_before_it_runs() {
    // Keys to nearly four hours at 1000 fps: 14 M frames, about 2 G values.
    let mut loaded = scene(&acting_at(3.9 * 3600.0)).unwrap();
    let clips = loaded.clip_names();
    let options = BakeOptions {
        fps: 1000.0,
        ..BakeOptions::default()
    };
    let err = bake(&mut loaded.scene, &clips, &options, |_, _| {}).unwrap_err();
    assert!(matches!(err, BakeError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("lower the frame rate"), "{err}");
    // At 10 fps the same scene fits, and its size says how large it is.
    let size = bake_size(
        &loaded.scene,
        &BakeOptions {
            fps: 10.0,
            ..options
        },
    )
    .unwrap();
    assert!(size.seconds > 3.9 * 3600.0 && size.seconds < 3.9 * 3600.0 + 3.0);
    assert_eq!(size.values, size.frames * size.per_frame);
}

#[test]
fn waits_holding_past_the_longest_bake_are_refused_not_cut_short() {
    let mut text = acting_at(100.0);
    for k in 0..5 {
        text.push_str(&format!("[[wait]]\nt = {}\nhold = 3500\n", 10 * (k + 1)));
    }
    let loaded = scene(&text).unwrap();
    let err = bake_size(&loaded.scene, &BakeOptions::default()).unwrap_err();
    assert!(matches!(err, BakeError::TooLong { .. }), "{err}");
    assert!(err.to_string().contains("waits holding 17500 s"), "{err}");
    // With a press script the waits hold until pressed: the same scene bakes.
    let pressed = BakeOptions {
        fps: 10.0,
        advances: vec![11.0, 21.0, 31.0, 41.0, 51.0],
        ..BakeOptions::default()
    };
    let mut loaded = loaded;
    let clips = loaded.clip_names();
    let baked = bake(&mut loaded.scene, &clips, &pressed, |_, _| {}).unwrap();
    assert!(baked[0].anim.duration > 100.0);
}

#[test]
fn bad_options_are_refused_with_the_reason() {
    let loaded = scene(&acting_at(10.0)).unwrap();
    let check = |o: BakeOptions| bake_size(&loaded.scene, &o).unwrap_err().to_string();
    let base = BakeOptions::default;
    assert!(
        check(BakeOptions {
            fps: f32::NAN,
            ..base()
        })
        .contains("frame rate NaN")
    );
    assert!(check(BakeOptions { fps: 0.0, ..base() }).contains("frame rate 0"));
    assert!(
        check(BakeOptions {
            max_s: 1e9,
            ..base()
        })
        .contains("at most 14400")
    );
    let nan = check(BakeOptions {
        advances: vec![f64::NAN],
        ..base()
    });
    assert!(nan.contains("an advance at NaN s"), "{nan}");
    let late = check(BakeOptions {
        skips: vec![1e6],
        ..base()
    });
    assert!(late.contains("a skip at 1000000 s"), "{late}");
    let many = check(BakeOptions {
        skips: vec![1.0; 10_001],
        ..base()
    });
    assert!(many.contains("10001 skip times"), "{many}");
}

/// A press script that stops before the last wait no longer stops the bake there: the
/// waits after its last press move on by their own hold, and the scene plays to its
/// end (a key at 40 s, behind two waits, is in the bake).
#[test]
fn waits_after_the_scripts_last_press_move_on_by_their_hold() {
    let mut text = acting_at(40.0);
    text.push_str("[[wait]]\nt = 10\nhold = 2\n[[wait]]\nt = 20\nhold = 3\n");
    let mut loaded = scene(&text).unwrap();
    let clips = loaded.clip_names();
    let options = BakeOptions {
        fps: 10.0,
        advances: vec![10.5],
        ..BakeOptions::default()
    };
    let size = bake_size(&loaded.scene, &options).unwrap();
    let baked = bake(&mut loaded.scene, &clips, &options, |_, _| {}).unwrap();
    let anim = &baked[0].anim;
    // 10 s, the press at 10.5, 10 s more, the second wait's 3 s hold, 20 s, the tail.
    assert!(
        (anim.duration - 44.5).abs() < 0.3,
        "{} s (size {} s)",
        anim.duration,
        size.seconds
    );
    assert!(size.seconds >= f64::from(anim.duration));
}
