//! `omote view SCENE.toml`: the scene server (the scene, each character's VRM and
//! anim, the voice files of the table built at load, bakes with a press script; nothing
//! else, no traversal, the loopback `Host` check), clear errors for bad scenes, and the
//! page in headless Chromium through `tools/viewer-check/scene.mjs` (both VRMs load,
//! play schedules the voices, the mouths move during a voiced span as the anim says, a
//! wait shows, Advance and Skip bake again, the camera follows the scene's path framing
//! the speaker, the free-camera toggle). The browser test needs Node, `npm ci` in
//! `tools/viewer-check` and `/usr/bin/chromium`; without them it prints SKIP and
//! passes, except under `CI`, where it fails.

use std::process::Command;

use serde_json::Value;
use support::{Server, browser_tools, demo_scene, header, repo, scratch, view_fails_naming};

mod support;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn serves_the_scene_its_models_anims_voices_and_bakes_and_nothing_else() {
    let server = Server::start_scene(&demo_scene());
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );

    let (status, head, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(
        header(&head, "content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains(r#"src="/scene.js""#), "the scene page");
    for path in [
        "/scene.js",
        "/common.js",
        "/vrm-applier.js",
        "/vendor/three-vrm/three-vrm.module.min.js",
    ] {
        let (status, head, _) = server.get(path);
        assert_eq!(status, 200, "{path}");
        assert!(
            header(&head, "content-type")
                .unwrap()
                .starts_with("text/javascript")
        );
    }

    // The scene: two characters on the two built-in avatars, each line's audio route.
    let info = server.json("/scene.json");
    let chars = info["characters"].as_array().unwrap();
    let ids: Vec<&str> = chars.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["aoi", "beni"]);
    assert_eq!(info["fps"], 60.0);
    assert_eq!(info["waits"].as_array().unwrap().len(), 1);
    let styles = [
        omote_vrm::avatar::AvatarStyle::DEFAULT,
        omote_vrm::avatar::AvatarStyle::SECOND,
    ];
    let voice_dir = repo().join("examples/scenes/demo/voice");
    let mut routes = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        let (status, head, glb) = server.get(c["vrm"].as_str().unwrap());
        assert_eq!(status, 200);
        assert_eq!(header(&head, "content-type"), Some("model/gltf-binary"));
        assert_eq!(
            glb,
            omote_vrm::avatar::generate_styled(&styles[i]),
            "{}",
            c["id"]
        );
        omote_vrm::VrmModel::from_slice(&glb, "served").unwrap();
        // Its anim of the default bake, with its voice events.
        let (status, _, body) = server.get(c["anim"].as_str().unwrap());
        assert_eq!(status, 200);
        let anim: omote_core::Anim = serde_json::from_slice(&body).unwrap();
        assert!(anim.frames() > 60 * 10, "{} frames", anim.frames());
        let voices = anim
            .events
            .iter()
            .filter(|e| matches!(e, omote_core::anim::AnimEvent::Voice { .. }))
            .count();
        assert_eq!(voices, 2, "{}", c["id"]);
        // Each line's voice file, byte for byte.
        for line in c["lines"].as_array().unwrap() {
            let route = line["audio"].as_str().unwrap();
            let (status, head, wav) = server.get(route);
            assert_eq!(status, 200, "{route}");
            assert_eq!(header(&head, "content-type"), Some("audio/wav"));
            let clip = line["clip"].as_str().unwrap();
            assert_eq!(wav, std::fs::read(voice_dir.join(clip)).unwrap(), "{clip}");
            routes.push(route.to_string());
        }
    }
    routes.sort();
    routes.dedup();
    assert_eq!(routes.len(), 4);
    assert_eq!(info["audio"], 4);

    // The default bake: the four voices with their routes, none cut; the wait held for
    // its `hold` (0.3 s) and moved on by itself.
    let bake = server.json("/bake");
    assert_eq!(bake["advances"], serde_json::json!([]));
    let voices = bake["voices"].as_array().unwrap();
    assert_eq!(voices.len(), 4);
    for v in voices {
        assert!(v["cut"].is_null(), "{v}");
        assert!(routes.contains(&v["audio"].as_str().unwrap().to_string()));
        assert!(f(&v["voicedStart"]) > f(&v["t"]) && f(&v["voicedEnd"]) > f(&v["voicedStart"]));
    }
    let holds = bake["holds"].as_array().unwrap();
    assert_eq!(holds.len(), 1, "{holds:?}");
    let (from, to) = (f(&holds[0]["from"]), f(&holds[0]["to"]));
    assert!((to - from - 0.3).abs() < 0.03, "held {from}..{to}");
    let duration = f(&bake["duration"]);
    assert!((duration - f(&info["duration"])).abs() < 1e-6);
    // The same presses (none) give the same bake.
    assert_eq!(server.json("/bake?advance=&skip="), bake);

    // A bake with the player advancing 2 s into the wait: held until then, then the
    // rest plays 1.7 s later than unattended.
    let press = from + 2.0;
    let pressed = server.json(&format!("/bake?advance={press:.4}"));
    assert_eq!(pressed["advances"].as_array().unwrap().len(), 1);
    let held = &pressed["holds"].as_array().unwrap()[0];
    assert!((f(&held["from"]) - from).abs() < 1e-6);
    assert!((f(&held["to"]) - press).abs() < 1.5 / 60.0, "{held}");
    let late = f(&pressed["voices"][3]["t"]) - f(&voices[3]["t"]);
    assert!((late - 1.7).abs() < 0.05, "the last line moved by {late} s");
    assert!((f(&pressed["duration"]) - duration - 1.7).abs() < 0.05);
    // A skip in aoi's first line cuts it there.
    let first = &voices[0];
    let cut_at = (f(&first["voicedStart"]) + f(&first["voicedEnd"])) / 2.0;
    let skipped = server.json(&format!("/bake?skip={cut_at:.4}"));
    let cut = f(&skipped["voices"][0]["cut"]);
    assert!(
        (cut - cut_at).abs() < 1.5 / 60.0,
        "cut at {cut}, skipped at {cut_at}"
    );
    assert_eq!(skipped["skips"].as_array().unwrap().len(), 1);

    // Press scripts are parsed strictly and bounded.
    for query in [
        "advance=abc",
        "advance=-1",
        "advance=1e3",
        "advance=NaN",
        "advance=1,,x",
        "advance=99999",
        "advance=1&advance=2",
        "next=1",
        "advance=1%2C2",
    ] {
        let (status, _, body) = server.get(&format!("/bake?{query}"));
        assert_eq!(status, 400, "{query}: {}", String::from_utf8_lossy(&body));
    }
    let many = vec!["1"; 257].join(",");
    assert_eq!(server.get(&format!("/bake?skip={many}")).0, 400);

    // Anything else: 404 — traversal, audio paths not in the table, characters the
    // scene does not have, the anim player's routes.
    for path in [
        "/audio/4",
        "/audio/01",
        "/audio/-1",
        "/audio/",
        "/audio/voice/aoi_1.wav",
        "/audio/../voice/aoi_1.wav",
        "/audio/%2e%2e/scene.toml",
        "/voice/aoi_1.wav",
        "/examples/scenes/demo/voice/aoi_1.wav",
        "/scene.toml",
        "/../scene.toml",
        "/vrm/2.vrm",
        "/vrm/0",
        "/vrm/../0.vrm",
        "/anim/2.json",
        "/anim/00.json",
        "/anim.json",
        "/model.vrm",
        "/viewer.js",
        "/bake/",
        "/scene.json/..",
    ] {
        let (status, _, body) = server.get(path);
        assert_eq!(status, 404, "{path}");
        assert_eq!(body, b"not found\n", "{path}");
    }
    // Foreign Host names are refused, bakes included.
    let rebinding = "GET /bake?advance=1 HTTP/1.1\r\nHost: attacker.example\r\n\r\n";
    assert_eq!(server.raw(rebinding).0, 403);
    let rebinding = "GET /audio/0 HTTP/1.1\r\nHost: attacker.example\r\n\r\n";
    assert_eq!(server.raw(rebinding).0, 403);
}

/// A character on a `.vrm` file gets that file; one on a plain rig (no model) the
/// generated avatar; a line with only a lip sync file has no audio route.
#[test]
fn serves_vrm_files_and_the_generated_avatar_for_plain_rigs() {
    let dir = scratch("models");
    let model = omote_vrm::avatar::generate_styled(&omote_vrm::avatar::AvatarStyle::SECOND);
    std::fs::write(dir.join("model.vrm"), &model).unwrap();
    let voice = repo().join("examples/scenes/demo/voice/aoi_1.wav");
    std::fs::copy(&voice, dir.join("hello.wav")).unwrap();
    let scene = dir.join("scene.toml");
    std::fs::write(
        &scene,
        r#"
[[character]]
id = "file"
rig = "model.vrm"

  [[character.line]]
  t = 0.5
  audio = "hello.wav"

[[character]]
id = "plain"
rig = "standard"
"#,
    )
    .unwrap();
    let server = Server::start_scene(&scene);
    let info = server.json("/scene.json");
    let chars = info["characters"].as_array().unwrap();
    assert_eq!(chars.len(), 2);
    let (status, _, glb) = server.get("/vrm/0.vrm");
    assert_eq!(status, 200);
    assert_eq!(glb, model);
    assert!(chars[0]["model"].as_str().unwrap().ends_with("model.vrm"));
    let (status, _, glb) = server.get("/vrm/1.vrm");
    assert_eq!(status, 200);
    assert_eq!(glb, omote_vrm::avatar::generate());
    assert!(
        chars[1]["model"]
            .as_str()
            .unwrap()
            .contains("built-in avatar")
    );
    let route = chars[0]["lines"][0]["audio"].as_str().unwrap();
    assert_eq!(server.get(route).2, std::fs::read(&voice).unwrap());
    assert_eq!(info["audio"], 1);
    assert_eq!(server.get("/audio/1").0, 404);
    let bake = server.json("/bake");
    assert_eq!(bake["voices"].as_array().unwrap().len(), 1);
    assert_eq!(bake["holds"], serde_json::json!([]));
    // Each anim has its own rig's channels.
    let plain: omote_core::Anim = serde_json::from_slice(&server.get("/anim/1.json").2).unwrap();
    assert!(
        plain.expressions.get("jawOpen").is_some(),
        "the standard rig's ARKit channels"
    );
}

#[test]
fn bad_scenes_fail_naming_the_file_and_the_line() {
    let dir = scratch("bad");
    let scene = dir.join("broken.toml");
    std::fs::write(
        &scene,
        "[[character]]\nid = \"a\"\n\n  [[character.line]]\n  t = 1.0\n  audio = \"gone.wav\"\n",
    )
    .unwrap();
    view_fails_naming(&[scene.as_os_str()], &["broken.toml:6", "gone.wav"]);
    let missing = dir.join("missing.toml");
    view_fails_naming(&[missing.as_os_str()], &["missing.toml"]);
    view_fails_naming(
        &[
            demo_scene().as_os_str(),
            "--model".as_ref(),
            "x.vrm".as_ref(),
        ],
        &["--model", "scene.toml"],
    );
}

#[test]
fn the_scene_plays_in_chromium_with_its_voices() {
    let Some(tool) = browser_tools("scene viewer browser check") else {
        return;
    };
    let dir = scratch("browser");
    let server = Server::start_scene(&demo_scene());
    let png = dir.join("scene.png");
    let out = Command::new("node")
        .arg(tool.join("scene.mjs"))
        .arg(&server.url)
        .arg(&png)
        .current_dir(&tool)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "scene.mjs printed no report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success() && report["failures"].as_array().unwrap().is_empty(),
        "scene viewer check failed: {:#}\n{}",
        report["failures"],
        String::from_utf8_lossy(&out.stderr)
    );
    // Not vacuous: both models loaded, the voices decoded and scheduled on the audio
    // clock, the mouth compared during a voiced span and moving there, the wait shown,
    // two presses baked.
    let loaded: Vec<&Value> = report["status"]["characters"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(loaded.len(), 2);
    assert!(loaded.iter().all(|c| c["loaded"] == true));
    assert_eq!(report["status"]["decoded"], 4);
    assert_eq!(report["play"]["clock"], "audio");
    assert!(report["play"]["scheduledVoices"].as_u64().unwrap() >= 1);
    assert!(report["play"]["samples"].as_u64().unwrap() >= 3);
    assert!(f(&report["play"]["mouthMax"]) > 0.1);
    assert!(f(&report["play"]["mouthMaxErr"]) <= 1e-3);
    assert_eq!(report["wait"]["waiting"], true);
    assert_eq!(report["advance"]["advances"].as_array().unwrap().len(), 1);
    assert!(report["skip"]["cut"].is_number());
    let png = std::fs::read(&png).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(report["cameraToggle"], serde_json::json!(["free", "scene"]));
    scene_camera_matches_the_path(&report["camera"]);
}

/// The page's camera at three times (wall time of the unattended bake) against the
/// scene's own camera path: the scene stepped at 60 fps, waits moving on by themselves
/// as in that bake, to the page's frame (frame k of a bake is the scene after k + 1
/// steps). Within 1° of the path seen from the speaker's head, looking at that head,
/// and the face at least a third of the frame high.
fn scene_camera_matches_the_path(checks: &Value) {
    let checks = checks.as_array().expect("the report's camera checks");
    assert_eq!(checks.len(), 3, "{checks:#?}");
    let loaded = omote_scene::load_scene(
        &demo_scene(),
        &omote_scene::LoadOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let vec = |v: &Value| {
        let a: Vec<f32> = v
            .as_array()
            .unwrap_or_else(|| panic!("not a vector: {v}"))
            .iter()
            .map(|x| f(x) as f32)
            .collect();
        omote_core::Vec3::new(a[0], a[1], a[2])
    };
    let mut speakers = Vec::new();
    for check in checks {
        let t = f(&check["t"]);
        let mut scene = loaded.scene.clone();
        scene.set_auto_advance(true);
        for _ in 0..=(t * 60.0).round() as usize {
            scene.update(1.0 / 60.0);
        }
        let want = scene.camera_position().expect("the demo has a camera");
        let c = check["character"].as_u64().unwrap() as usize;
        let head = omote_core::Vec3::from(loaded.characters[c].position);
        let cam = &check["camera"];
        let (pos, dir) = (vec(&cam["position"]), vec(&cam["direction"]));
        let seen = (pos - head).angle_between(want - head).to_degrees();
        assert!(
            seen <= 1.0,
            "t {t}: camera at {pos}, the path at {want}: {seen}° apart"
        );
        assert!(
            ((pos - head).length() / (want - head).length() - 1.0).abs() < 0.02,
            "t {t}: camera at {pos}, the path at {want}"
        );
        let look = dir.angle_between(head - want).to_degrees();
        assert!(look <= 1.0, "t {t}: looking {look}° off the speaker's head");
        let face = &check["face"];
        assert_eq!(face["character"].as_u64(), Some(c as u64), "{check}");
        let height = f(&face["height"]);
        assert!(
            height >= 1.0 / 3.0,
            "t {t}: the face is {height} of the frame"
        );
        assert!(
            f(&face["top"]) <= 1.0 && f(&face["bottom"]) >= -1.0,
            "in frame: {face}"
        );
        speakers.push(check["id"].as_str().unwrap().to_string());
    }
    // Both characters framed; the last after the wait (the path keeps its time there).
    assert_eq!(speakers, ["aoi", "beni", "beni"]);
}

/// A scene whose bake would not fit in memory is refused at start with the reason (the
/// check every bake runs), as `omote bake` refuses it — not baked until memory runs out.
#[test]
fn a_scene_too_large_to_bake_is_refused_at_start() {
    let dir = scratch("too-large");
    let scene = dir.join("long.toml");
    std::fs::write(
        &scene,
        "fps = 1000\n[[character]]\nid = \"a\"\n  [[character.acting]]\n  t = 14000.0\n  set = { happy = 1.0 }\n",
    )
    .unwrap();
    view_fails_naming(&[scene.as_os_str()], &["long.toml", "lower the frame rate"]);
    let out = support::omote()
        .args(["bake", scene.to_str().unwrap(), "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("long.toml") && err.contains("lower the frame rate"),
        "{err}"
    );
    assert!(
        !dir.join("out").exists(),
        "refused before the output folder is made"
    );
}

/// The viewer's bakes are bounded and compact: the voices come from the bytes read at
/// load (a file changed or gone afterwards changes nothing); a bake's answer carries
/// only what the page plays, smaller than the whole anims; the longest allowed press
/// script of a 1000 fps scene is refused with the viewer's limit, not baked.
#[test]
fn viewer_bakes_are_bounded_and_compact_and_voices_are_read_once() {
    let dir = scratch("bounded");
    let demo = demo_scene();
    let from = demo.parent().unwrap();
    std::fs::create_dir_all(dir.join("voice")).unwrap();
    for e in std::fs::read_dir(from.join("voice")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join("voice").join(p.file_name().unwrap())).unwrap();
    }
    std::fs::copy(&demo, dir.join("scene.toml")).unwrap();
    let server = Server::start_scene(&dir.join("scene.toml"));
    let info = server.json("/scene.json");
    let route = info["characters"][0]["lines"][0]["audio"]
        .as_str()
        .unwrap()
        .to_string();
    let clip = info["characters"][0]["lines"][0]["clip"]
        .as_str()
        .unwrap()
        .to_string();
    let wav = std::fs::read(dir.join("voice").join(&clip)).unwrap();
    std::fs::write(dir.join("voice").join(&clip), b"changed").unwrap();
    let (status, _, body) = server.get(&route);
    assert_eq!(status, 200);
    assert_eq!(body, wav, "served from what was loaded");
    std::fs::remove_dir_all(dir.join("voice")).unwrap();
    assert_eq!(server.get(&route).2, wav);

    // The longest press script the viewer takes: compact, shared while it is sent.
    let last = f(&info["maxPressTime"]);
    let query = format!("/bake?advance={last:.1}");
    let (status, _, body) = server.get(&query);
    assert_eq!(
        status,
        200,
        "{}",
        String::from_utf8_lossy(&body[..body.len().min(300)])
    );
    let bake: Value = serde_json::from_slice(&body).unwrap();
    let anim = &bake["characters"][0]["anim"];
    let frames = anim["head"].as_array().unwrap().len();
    assert!(f(&bake["duration"]) > last, "{}", bake["duration"]);
    for key in [
        "appliedExpressions",
        "head",
        "leftEye",
        "rightEye",
        "fps",
        "duration",
    ] {
        assert!(!anim[key].is_null(), "{key}");
    }
    for key in ["expressions", "lookAt", "events"] {
        assert!(anim[key].is_null(), "{key} is not sent");
    }
    // Per frame, well under half of what the whole anims take (`/anim/N.json`).
    let mut whole = 0;
    let mut whole_frames = 0;
    for c in info["characters"].as_array().unwrap() {
        let anim = server.get(c["anim"].as_str().unwrap()).2;
        whole_frames = serde_json::from_slice::<Value>(&anim).unwrap()["head"]
            .as_array()
            .unwrap()
            .len();
        whole += anim.len();
    }
    let (per_frame, whole_per_frame) = (body.len() / frames, whole / whole_frames);
    assert!(
        per_frame * 2 < whole_per_frame,
        "{per_frame} bytes a frame, the whole anims {whole_per_frame}"
    );
    let x = f(&anim["head"][frames / 2][3]);
    assert!((-1.0..=1.0).contains(&x));

    // A scene at 1000 fps: its longest press script is over the viewer's limit.
    let fast = dir.join("fast.toml");
    std::fs::write(
        &fast,
        "fps = 1000\n[[character]]\nid = \"a\"\n  [[character.acting]]\n  t = 1.0\n  set = { happy = 1.0 }\n",
    )
    .unwrap();
    let server = Server::start_scene(&fast);
    let last = f(&server.json("/scene.json")["maxPressTime"]);
    let (status, _, body) = server.get(&format!("/bake?skip={last:.1}"));
    let msg = String::from_utf8_lossy(&body);
    assert_eq!(status, 400, "{msg}");
    assert!(msg.contains("over the viewer's limit"), "{msg}");
}
