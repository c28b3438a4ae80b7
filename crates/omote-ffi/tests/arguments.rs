//! Arguments through the C ABI as a C engine gives them: a flag is 0 or 1 (anything
//! else is refused by name, not read as "on": the C trial's engine passed `hold` 7 and
//! `voiced` 2 and heard nothing back), and tracked scores come by name as trackers
//! report them.

#![allow(unsafe_code)]

use std::ffi::CStr;

use omote_ffi::*;

fn last_error() -> String {
    // SAFETY: the library's own NUL-terminated message.
    unsafe { CStr::from_ptr(omote_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn flags_other_than_0_or_1_are_refused_by_name() {
    let mut stream = 0;
    // SAFETY: a live out-pointer.
    let status = unsafe { omote_voice_stream_new(48_000.0, 7, &mut stream) };
    assert_eq!(status, OmoteStatus::InvalidArgument);
    assert!(
        last_error().contains("`hold` is 7: 0 or 1"),
        "{}",
        last_error()
    );
    // SAFETY: a live out-pointer.
    assert_eq!(
        unsafe { omote_voice_stream_new(48_000.0, 1, &mut stream) },
        OmoteStatus::Ok
    );
    assert_eq!(omote_voice_stream_free(stream), OmoteStatus::Ok);

    let (mut avatar, mut face) = (0, 0);
    // SAFETY: live out-pointers.
    unsafe {
        assert_eq!(omote_avatar_builtin(2, &mut avatar), OmoteStatus::Ok);
        assert_eq!(omote_character_new(avatar, 1, &mut face), OmoteStatus::Ok);
    }
    let vowels = [0.9f32, 0.0, 0.0, 0.0, 0.0, 0.0];
    // SAFETY: 6 live floats.
    let status = unsafe { omote_character_set_live_vowels(face, vowels.as_ptr(), 6, 2) };
    assert_eq!(status, OmoteStatus::InvalidArgument);
    assert!(
        last_error().contains("`voiced` is 2: 0 or 1"),
        "{}",
        last_error()
    );
    // SAFETY: 6 live floats.
    let status = unsafe { omote_character_set_live_vowels(face, vowels.as_ptr(), 6, 1) };
    assert_eq!(status, OmoteStatus::Ok);
    assert_eq!(omote_character_free(face), OmoteStatus::Ok);
    assert_eq!(omote_avatar_free(avatar), OmoteStatus::Ok);
}

/// Named scores through the C ABI: the same face as the 52 scores in ARKit's order, in
/// any spelling; `omote_arkit_index` maps a name once; bad names and lengths are refused.
#[test]
fn named_tracked_scores_are_the_arkit_scores_in_any_spelling() {
    use std::ffi::CString;
    let index = |n: &str| {
        let c = CString::new(n).unwrap();
        // SAFETY: a live NUL-terminated string.
        unsafe { omote_arkit_index(c.as_ptr()) }
    };
    assert_eq!(index("jawOpen"), index("JawOpen"));
    assert_eq!(index("eyeBlink_L"), index("eyeBlinkLeft"));
    assert!(index("jawOpen") >= 0);
    assert_eq!(index("_neutral"), -1);
    // SAFETY: null is allowed.
    assert_eq!(unsafe { omote_arkit_index(std::ptr::null()) }, -1);

    let face = |named: bool| {
        let (mut avatar, mut c) = (0, 0);
        // SAFETY: live out-pointers, strings and buffers throughout.
        unsafe {
            assert_eq!(omote_avatar_builtin(2, &mut avatar), OmoteStatus::Ok);
            assert_eq!(omote_character_new(avatar, 3, &mut c), OmoteStatus::Ok);
            assert_eq!(omote_character_enable_tracking(c), OmoteStatus::Ok);
            let mut weights = vec![0.0f32; 200];
            let mut count = 0;
            omote_character_channel_count(c, &mut count);
            for _ in 0..30 {
                if named {
                    let names: Vec<CString> = ["_neutral", "JawOpen", "eyeBlink_L"]
                        .iter()
                        .map(|n| CString::new(*n).unwrap())
                        .collect();
                    let ptrs: Vec<*const std::ffi::c_char> =
                        names.iter().map(|n| n.as_ptr()).collect();
                    let scores = [0.9f32, 0.7, 0.6];
                    let s = omote_character_set_tracked_named(
                        c,
                        ptrs.as_ptr(),
                        scores.as_ptr(),
                        3,
                        std::ptr::null(),
                    );
                    assert_eq!(s, OmoteStatus::Ok);
                } else {
                    let mut scores = [0.0f32; 52];
                    scores[index("jawOpen") as usize] = 0.7;
                    scores[index("eyeBlinkLeft") as usize] = 0.6;
                    let s = omote_character_set_tracked(c, scores.as_ptr(), 52, std::ptr::null());
                    assert_eq!(s, OmoteStatus::Ok);
                }
                omote_character_update(c, 1.0 / 60.0);
            }
            omote_character_weights(c, weights.as_mut_ptr(), count);
            weights.truncate(count as usize);
            if named {
                // A null name is refused by its index.
                let ptrs = [std::ptr::null::<std::ffi::c_char>()];
                let s = omote_character_set_tracked_named(
                    c,
                    ptrs.as_ptr(),
                    [0.5f32].as_ptr(),
                    1,
                    std::ptr::null(),
                );
                assert_eq!(s, OmoteStatus::InvalidArgument);
                assert!(
                    last_error().contains("`names[0]` is null"),
                    "{}",
                    last_error()
                );
            }
            omote_character_free(c);
            omote_avatar_free(avatar);
            weights
        }
    };
    let (by_name, by_index) = (face(true), face(false));
    assert_eq!(by_name, by_index);
    assert!(
        by_name.iter().any(|&w| w > 0.5),
        "the tracked jaw moved nothing"
    );
}

/// Tracking settings cross the C ABI as JSON text: `{"mirror": true}` gives the user's
/// left wink to the avatar's right eye; an unknown field, a number out of range and text
/// that is not UTF-8 are refused by name, and the character keeps tracking as it was.
#[test]
fn tracking_settings_come_as_json_and_are_refused_by_name() {
    use std::ffi::CString;
    let blink_after = |settings: Option<&str>| {
        let (mut avatar, mut c) = (0, 0);
        let settings = settings.map(|s| CString::new(s).unwrap());
        let settings_ptr = settings.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        // SAFETY: live out-pointers, strings and buffers throughout.
        unsafe {
            assert_eq!(omote_avatar_builtin(2, &mut avatar), OmoteStatus::Ok);
            assert_eq!(omote_character_new(avatar, 3, &mut c), OmoteStatus::Ok);
            assert_eq!(
                omote_character_enable_tracking_with(c, settings_ptr),
                OmoteStatus::Ok,
                "{}",
                last_error()
            );
            let mut scores = [0.0f32; 52];
            let blink_left = CString::new("eyeBlinkLeft").unwrap();
            scores[omote_arkit_index(blink_left.as_ptr()) as usize] = 0.95;
            for _ in 0..30 {
                omote_character_set_tracked(c, scores.as_ptr(), 52, std::ptr::null());
                omote_character_update(c, 1.0 / 30.0);
            }
            let mut weights = vec![0.0f32; 200];
            let mut count = 0;
            omote_character_channel_count(c, &mut count);
            omote_character_weights(c, weights.as_mut_ptr(), count);
            let weight = |name: &str| {
                let name = CString::new(name).unwrap();
                let mut id = 0;
                assert_eq!(
                    omote_character_channel_id(c, name.as_ptr(), &mut id),
                    OmoteStatus::Ok
                );
                weights[id as usize]
            };
            let left_right = (weight("blinkLeft"), weight("blinkRight"));
            omote_character_free(c);
            omote_avatar_free(avatar);
            left_right
        }
    };
    let (left, right) = blink_after(None);
    assert!(left > 0.8 && right < 0.1, "{left} {right}");
    let (left, right) = blink_after(Some(r#"{"mirror": true}"#));
    assert!(right > 0.8 && left < 0.1, "{left} {right}");

    let (mut avatar, mut c) = (0, 0);
    // SAFETY: live out-pointers and strings.
    unsafe {
        assert_eq!(omote_avatar_builtin(2, &mut avatar), OmoteStatus::Ok);
        assert_eq!(omote_character_new(avatar, 3, &mut c), OmoteStatus::Ok);
        for (settings, words) in [
            (&b"{\"mirrorr\": true}\0"[..], "unknown field `mirrorr`"),
            (
                &b"{\"loss\": {\"grace\": 1e9}}\0"[..],
                "loss.grace = 1000000000",
            ),
            (&b"{\"mirror\": \xff}\0"[..], "`settings_json` is not UTF-8"),
        ] {
            let status = omote_character_enable_tracking_with(c, settings.as_ptr().cast());
            assert_eq!(status, OmoteStatus::InvalidArgument);
            let e = last_error();
            assert!(
                e.contains("omote_character_enable_tracking_with") && e.contains(words),
                "{e}"
            );
        }
        // Nothing half-applied: tracking is still off.
        assert_eq!(
            omote_character_calibrate_tracking(c, 1.0),
            OmoteStatus::InvalidArgument
        );
        omote_character_free(c);
        omote_avatar_free(avatar);
    }
}

/// `omote_scene_set_auto_advance` takes 0 or 1 too.
#[test]
fn auto_advance_is_0_or_1() {
    use std::ffi::CString;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/scenes/demo/scene.toml"
    );
    let path = CString::new(path).unwrap();
    let mut scene = 0;
    // SAFETY: a live string and out-pointer.
    assert_eq!(
        unsafe { omote_scene_load(path.as_ptr(), &mut scene) },
        OmoteStatus::Ok,
        "{}",
        last_error()
    );
    assert_eq!(
        omote_scene_set_auto_advance(scene, 5),
        OmoteStatus::InvalidArgument
    );
    assert!(
        last_error().contains("`on` is 5: 0 or 1"),
        "{}",
        last_error()
    );
    assert_eq!(omote_scene_set_auto_advance(scene, 1), OmoteStatus::Ok);
    assert_eq!(omote_scene_free(scene), OmoteStatus::Ok);
}

/// A scene's camera through the C ABI: the path's until the game gives one, the game's
/// then (read back as given), the path again after null; a NaN coordinate and a null
/// out-pointer are refused by name, a freed scene by its handle.
#[test]
fn a_scenes_camera_is_the_games_while_it_gives_one() {
    use std::ffi::CString;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/scenes/demo/scene.toml"
    );
    let path = CString::new(path).unwrap();
    let mut scene = 0;
    let camera = |scene| {
        let (mut at, mut has) = ([0.0f32; 3], 7u32);
        // SAFETY: live out-pointers.
        let s = unsafe { omote_scene_camera_position(scene, at.as_mut_ptr(), &mut has) };
        assert_eq!(s, OmoteStatus::Ok, "{}", last_error());
        assert!(has <= 1);
        (has == 1).then_some(at)
    };
    // SAFETY: live strings, arrays and out-pointers throughout.
    unsafe {
        assert_eq!(omote_scene_load(path.as_ptr(), &mut scene), OmoteStatus::Ok);
        let on_path = camera(scene).expect("the demo has a camera path");
        let games = [-0.65f32, 2.6, 1.0];
        assert_eq!(
            omote_scene_set_camera(scene, games.as_ptr()),
            OmoteStatus::Ok
        );
        assert_eq!(camera(scene), Some(games));
        assert_eq!(
            omote_scene_set_camera(scene, [0.0, f32::NAN, 1.0].as_ptr()),
            OmoteStatus::InvalidArgument
        );
        assert!(
            last_error().contains("omote_scene_set_camera"),
            "{}",
            last_error()
        );
        assert_eq!(camera(scene), Some(games));
        assert_eq!(
            omote_scene_set_camera(scene, std::ptr::null()),
            OmoteStatus::Ok
        );
        assert_eq!(camera(scene), Some(on_path));
        let mut has = 0;
        assert_eq!(
            omote_scene_camera_position(scene, std::ptr::null_mut(), &mut has),
            OmoteStatus::NullPointer
        );
        assert!(last_error().contains("`position`"), "{}", last_error());
        assert_eq!(omote_scene_free(scene), OmoteStatus::Ok);
        assert_eq!(
            omote_scene_set_camera(scene, games.as_ptr()),
            OmoteStatus::InvalidHandle
        );
    }
}

/// The game directs a scene character's gaze through the C ABI: a point to aoi's left
/// turns its head left (the head's rotation `y` > 0), one to its right turns it right;
/// another character's id turns it too; null gives the keys back.
#[test]
fn a_scenes_gaze_is_the_games_while_it_gives_one() {
    use std::ffi::CString;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/scenes/demo/scene.toml"
    );
    let path = CString::new(path).unwrap();
    // aoi stands at (-0.65, 1.4, 0) turned 20° (the demo file).
    let (sin, cos) = 20f32.to_radians().sin_cos();
    let head_y = |direct: &dyn Fn(OmoteScene)| {
        let mut scene = 0;
        let mut rotations = [0.0f32; 12];
        // SAFETY: live strings and arrays.
        unsafe {
            assert_eq!(omote_scene_load(path.as_ptr(), &mut scene), OmoteStatus::Ok);
            direct(scene);
            for _ in 0..60 {
                assert_eq!(omote_scene_update(scene, 1.0 / 60.0), OmoteStatus::Ok);
            }
            assert_eq!(
                omote_scene_rotations(scene, 0, rotations.as_mut_ptr(), 12),
                OmoteStatus::Ok
            );
            assert_eq!(omote_scene_free(scene), OmoteStatus::Ok);
        }
        rotations[1]
    };
    let point = |side: f32| {
        move |scene| {
            let p = [-0.65 + sin + side * cos, 1.4, cos - side * sin];
            // SAFETY: a live array of 3.
            let s = unsafe { omote_scene_set_gaze_point(scene, 0, p.as_ptr()) };
            assert_eq!(s, OmoteStatus::Ok, "{}", last_error());
        }
    };
    let named = |at: &'static str| {
        move |scene| {
            let at = CString::new(at).unwrap();
            // SAFETY: a live string.
            let s = unsafe { omote_scene_set_gaze(scene, 0, at.as_ptr()) };
            assert_eq!(s, OmoteStatus::Ok, "{}", last_error());
        }
    };
    let (left, right) = (head_y(&point(1.0)), head_y(&point(-1.0)));
    assert!(left > 0.05 && right < -0.05, "left {left}, right {right}");
    let keys = head_y(&|_| {});
    assert_ne!(head_y(&named("forward")), keys);
    let given_back = head_y(&|scene| {
        point(1.0)(scene);
        // SAFETY: null gives the keys back.
        let s = unsafe { omote_scene_set_gaze(scene, 0, std::ptr::null()) };
        assert_eq!(s, OmoteStatus::Ok);
    });
    assert_eq!(given_back, keys);
}
