//! `omote view`: the HTTP server (routes, 404s, no traversal, loopback `Host` check,
//! clear errors for bad inputs), the vendored modules against the pinned npm packages,
//! and the page itself in headless Chromium through `tools/viewer-check/check.mjs`
//! (three-vrm's values compared with the anim). The browser test needs Node,
//! `npm ci` in `tools/viewer-check` and `/usr/bin/chromium`; without them it prints
//! SKIP and passes, except under `CI`, where it fails.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{Server, browser_tools, header, omote, repo, scratch, view_fails_naming};

mod support;

/// `omote demo --out DIR`: one character's anim (`beni.anim.json`, beside `beni.vrm`):
/// beni speaks a line under mock surprise, whose overrideMouth blend narrows her mouth.
fn demo(dir: &Path) -> PathBuf {
    let out = omote().args(["demo", "--out"]).arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("beni.anim.json")
}

#[test]
fn serves_the_page_the_anim_the_model_and_the_modules_and_nothing_else() {
    let dir = scratch("routes");
    let anim_path = demo(&dir);
    let server = Server::start(&[anim_path.as_os_str()]);
    assert!(server.url.ends_with('/'));

    let (status, head, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(
        header(&head, "content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains(r#"<script type="importmap">"#));
    assert!(page.contains("/vendor/three-vrm/three-vrm.module.min.js"));

    // The anim as served is the file's anim, validated.
    let (status, head, body) = server.get("/anim.json");
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-type"), Some("application/json"));
    let served: omote_core::Anim = serde_json::from_slice(&body).unwrap();
    let file = omote_config::load_anim(&anim_path).unwrap();
    assert_eq!(served.frames(), file.frames());
    assert_eq!(served.expressions.0, file.expressions.0);
    assert_eq!(served.applied(), file.applied());
    assert!(served.applied_expressions.is_some());
    assert_eq!(served.head, file.head);

    // Without --model: the built-in avatar, a GLB that reads as VRM 1.0.
    let (status, _, glb) = server.get("/model.vrm");
    assert_eq!(status, 200);
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(glb, omote_vrm::avatar::generate());
    let vrm = omote_vrm::VrmModel::from_slice(&glb, "served").unwrap();
    assert_eq!(vrm.expressions.len(), file.expressions.0.len());

    // Every module the page imports, with a JavaScript type (browsers refuse others).
    for path in [
        "/viewer.js",
        "/vendor/three/three.module.min.js",
        "/vendor/three/three.core.min.js",
        "/vendor/three/examples/jsm/loaders/GLTFLoader.js",
        "/vendor/three/examples/jsm/utils/BufferGeometryUtils.js",
        "/vendor/three-vrm/three-vrm.module.min.js",
    ] {
        let (status, head, body) = server.get(path);
        assert_eq!(status, 200, "{path}");
        assert!(
            header(&head, "content-type")
                .unwrap()
                .starts_with("text/javascript"),
            "{path}: {head}"
        );
        assert!(body.len() > 1000, "{path}");
    }
    let (status, _, body) = server.get("/vendor/three-vrm/LICENSE");
    assert_eq!(status, 200);
    assert!(String::from_utf8(body).unwrap().contains("MIT License"));
    // The query string does not matter.
    assert_eq!(server.get("/anim.json?t=1").0, 200);
    // HEAD: the head only.
    let (status, head, body) = server.raw(&format!(
        "HEAD /model.vrm HTTP/1.1\r\nHost: localhost:{}\r\n\r\n",
        server.port
    ));
    assert_eq!(status, 200);
    assert_eq!(
        header(&head, "content-length").unwrap(),
        glb.len().to_string()
    );
    assert!(body.is_empty());

    // Anything else: 404, traversal included; no file is ever read from a request path.
    for path in [
        "/nope",
        "/index.html",
        "/../Cargo.toml",
        "/%2e%2e/",
        "/%2e%2e/Cargo.toml",
        "/vendor/../../Cargo.toml",
        "/vendor/",
        "/vendor/three/",
        "/viewer.js/",
        "//etc/passwd",
        "/anim.json/..",
    ] {
        let (status, _, body) = server.get(path);
        assert_eq!(status, 404, "{path}");
        assert_eq!(body, b"not found\n", "{path}");
    }
    // Other methods, bad requests and foreign Host names are refused.
    let port = server.port;
    let (status, head, _) = server.raw(&format!(
        "POST /anim.json HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n"
    ));
    assert_eq!(status, 405);
    assert_eq!(header(&head, "allow"), Some("GET, HEAD"));
    assert_eq!(server.raw("nonsense\r\n\r\n").0, 400);
    assert_eq!(server.raw("GET / HTTP/1.1\r\n\r\n").0, 400, "no Host");
    let rebinding = "GET /anim.json HTTP/1.1\r\nHost: attacker.example\r\n\r\n";
    assert_eq!(server.raw(rebinding).0, 403);
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(40_000));
    assert_eq!(server.raw(&huge).0, 431);
    // A client that connects and says nothing does not block others.
    let _idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    assert_eq!(server.get("/").0, 200);
}

#[test]
fn the_anim_is_reread_on_every_request_and_a_broken_one_is_a_500_naming_it() {
    let dir = scratch("reread");
    let anim_path = demo(&dir);
    let server = Server::start(&[anim_path.as_os_str()]);
    assert_eq!(server.get("/anim.json").0, 200);
    std::fs::write(&anim_path, b"{ not json").unwrap();
    let (status, _, body) = server.get("/anim.json");
    assert_eq!(status, 500);
    let msg = String::from_utf8(body).unwrap();
    assert!(msg.contains("beni.anim.json"), "{msg}");
    // The rest still works.
    assert_eq!(server.get("/").0, 200);
}

#[test]
fn serves_a_given_model() {
    let dir = scratch("model");
    let anim_path = demo(&dir);
    let model = dir.join("beni.vrm");
    let server = Server::start(&[anim_path.as_os_str(), "--model".as_ref(), model.as_os_str()]);
    let (status, _, glb) = server.get("/model.vrm");
    assert_eq!(status, 200);
    assert_eq!(glb, std::fs::read(&model).unwrap());
    let (_, _, info) = server.get("/info.json");
    let info: serde_json::Value = serde_json::from_slice(&info).unwrap();
    assert!(info["model"].as_str().unwrap().ends_with("beni.vrm"));
}

/// The address forms people type first: `localhost:PORT` and a bare port both listen on
/// 127.0.0.1 and serve; a bad one is a usage error naming the option, the value and
/// the forms taken.
#[test]
fn bind_takes_localhost_and_a_bare_port() {
    let dir = scratch("bind-forms");
    let anim_path = demo(&dir);
    for addr in ["localhost:0", "0"] {
        let server = Server::start_at(&[anim_path.as_os_str()], addr);
        assert_eq!(server.get("/").0, 200, "--bind {addr}");
        assert_eq!(server.get("/anim.json").0, 200, "--bind {addr}");
    }
    for bad in ["localhost", "localhost:99999", "::1:8080"] {
        let out = omote()
            .arg("view")
            .arg(&anim_path)
            .args(["--bind", bad])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--bind {bad}: {err}");
        assert!(out.stdout.is_empty(), "--bind {bad}");
        assert!(
            err.contains("--bind") && err.contains(bad) && err.contains("PORT"),
            "--bind {bad}: {err}"
        );
    }
}

#[test]
fn bad_inputs_fail_with_errors_naming_the_file() {
    let dir = scratch("bad");
    let anim_path = demo(&dir);
    let bad = dir.join("broken.anim.json");
    std::fs::write(
        &bad,
        br#"{"format": "omote-anim", "version": 1, "fps": 60}"#,
    )
    .unwrap();
    view_fails_naming(&[bad.as_os_str()], &["broken.anim.json"]);
    let missing = dir.join("missing.anim.json");
    view_fails_naming(&[missing.as_os_str()], &["missing.anim.json"]);
    // Valid JSON, but one track is a frame short: `Anim::validate` refuses it.
    let mut anim: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&anim_path).unwrap()).unwrap();
    anim["head"].as_array_mut().unwrap().pop();
    let short = dir.join("short.anim.json");
    std::fs::write(&short, serde_json::to_vec(&anim).unwrap()).unwrap();
    view_fails_naming(&[short.as_os_str()], &["short.anim.json"]);
    // Valid, but no frames: nothing to play, said so (not a page posing from nothing).
    for key in ["head", "leftEye", "rightEye", "lookAt"] {
        anim[key] = serde_json::json!([]);
    }
    for key in ["expressions", "appliedExpressions"] {
        if let Some(tracks) = anim[key].as_object_mut() {
            for v in tracks.values_mut() {
                *v = serde_json::json!([]);
            }
        }
    }
    anim["events"] = serde_json::json!([]);
    anim["duration"] = serde_json::json!(0.0);
    let empty = dir.join("empty.anim.json");
    std::fs::write(&empty, serde_json::to_vec(&anim).unwrap()).unwrap();
    view_fails_naming(&[empty.as_os_str()], &["empty.anim.json", "no frames"]);
    // Models: not a VRM, not there.
    let not_vrm = dir.join("not-a-model.vrm");
    std::fs::write(&not_vrm, b"hello").unwrap();
    view_fails_naming(
        &[
            anim_path.as_os_str(),
            "--model".as_ref(),
            not_vrm.as_os_str(),
        ],
        &["not-a-model.vrm"],
    );
    let gone = dir.join("gone.vrm");
    view_fails_naming(
        &[anim_path.as_os_str(), "--model".as_ref(), gone.as_os_str()],
        &["gone.vrm"],
    );
}

#[test]
fn vendored_modules_equal_the_pinned_npm_packages() {
    let nm = repo().join("tools/three-vrm/node_modules");
    if !nm.join("three/package.json").is_file() {
        if std::env::var_os("CI").is_some() {
            panic!("{} is missing under CI (run `npm ci` there)", nm.display());
        }
        eprintln!("SKIP vendored-module check: {} is missing", nm.display());
        return;
    }
    let vendor = repo().join("crates/omote-cli/assets/viewer/vendor");
    for (ours, theirs) in [
        (
            "three/three.module.min.js",
            "three/build/three.module.min.js",
        ),
        ("three/three.core.min.js", "three/build/three.core.min.js"),
        (
            "three/examples/jsm/loaders/GLTFLoader.js",
            "three/examples/jsm/loaders/GLTFLoader.js",
        ),
        (
            "three/examples/jsm/utils/BufferGeometryUtils.js",
            "three/examples/jsm/utils/BufferGeometryUtils.js",
        ),
        ("three/LICENSE", "three/LICENSE"),
        (
            "three-vrm/three-vrm.module.min.js",
            "@pixiv/three-vrm/lib/three-vrm.module.min.js",
        ),
        ("three-vrm/LICENSE", "@pixiv/three-vrm/LICENSE"),
    ] {
        let a = std::fs::read(vendor.join(ours)).unwrap();
        let b = std::fs::read(nm.join(theirs)).unwrap();
        assert!(a == b, "vendored {ours} differs from node_modules/{theirs}");
    }
}

/// Run `check.mjs` against a server (at `frames`, or its default frames when empty); its
/// report (after asserting it found no failure).
fn browser_check(
    tool: &Path,
    server: &Server,
    anim: &Path,
    png: &Path,
    frames: &[usize],
) -> serde_json::Value {
    let out = Command::new("node")
        .arg(tool.join("check.mjs"))
        .arg(&server.url)
        .arg(anim)
        .arg(png)
        .args(frames.iter().map(|f| f.to_string()))
        .current_dir(tool)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check.mjs printed no report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success() && report["failures"].as_array().unwrap().is_empty(),
        "viewer check failed: {:#}\n{}",
        report["failures"],
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

#[test]
fn three_vrm_in_chromium_shows_the_anim() {
    let Some(tool) = browser_tools("viewer browser check") else {
        return;
    };
    let dir = scratch("browser");
    let anim_path = demo(&dir);
    let server = Server::start(&[anim_path.as_os_str()]);
    let png = dir.join("viewer.png");
    let report = browser_check(&tool, &server, &anim_path, &png, &[]);
    // The demo's channels are all the avatar's, and the eyes and neck are driven.
    assert_eq!(report["info"]["unknown"], serde_json::json!([]));
    let frames = omote_config::load_anim(&anim_path).unwrap().frames();
    assert_eq!(report["info"]["frames"], frames);
    assert_eq!(report["info"]["eyesMove"], true);
    assert_eq!(report["info"]["neck"], true);
    // Not vacuous: several frames, every channel compared, many moving morph targets
    // compared (some that the override rules damp: three-vrm shows them as
    // `appliedExpressions` has them), bones compared, the eyes turned.
    let frames = report["frames"].as_array().unwrap();
    assert!(frames.len() >= 5, "{frames:?}");
    let sum = |key: &str| frames.iter().map(|f| f[key].as_u64().unwrap()).sum::<u64>();
    assert!(frames.iter().all(|f| f["weightsCompared"] == 70));
    assert!(sum("morphsNonZero") >= 100, "{}", sum("morphsNonZero"));
    assert!(
        sum("morphsOverridden") > 0,
        "no frame where the override rules change the face"
    );
    assert!(
        frames
            .iter()
            .all(|f| f["overridesOn"] == serde_json::json!([])),
        "three-vrm's own override rules must be off"
    );
    let max = |key: &str| {
        frames
            .iter()
            .map(|f| f[key].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    for key in ["weightMaxErr", "morphMaxErr", "headErr", "eyeErr"] {
        assert!(max(key) <= 1e-3, "{key} = {}", max(key));
    }
    let eye_yaw = frames
        .iter()
        .filter_map(|f| f["eyeYawDeg"].as_f64())
        .fold(0.0, |m: f64, y| m.max(y.abs()));
    assert!(eye_yaw > 1.0, "the eyes never turn ({eye_yaw}°)");
    assert_eq!(report["screenshotsDiffer"], true);
    let png = std::fs::read(&png).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

/// Other models from the shared samples: a VRM 1.0 robot whose eye bones have a rotated
/// rest pose and no ARKit shapes, and a VRM 0.x model (three-vrm turns it to face +Z;
/// the viewer mirrors the rotations to match).
#[test]
fn three_vrm_in_chromium_plays_on_shared_models() {
    let Some(shared) = omote_testdata::shared_data("vrm") else {
        return;
    };
    let Some(tool) = browser_tools("viewer browser check") else {
        return;
    };
    let dir = scratch("browser-shared");
    let anim_path = demo(&dir);
    for (file, meta_version, eyes) in [
        ("debug_robot.vrm", "1", true),
        ("simple_morph.vrm", "0", false),
    ] {
        let model = shared.join(file);
        let server = Server::start(&[anim_path.as_os_str(), "--model".as_ref(), model.as_os_str()]);
        let png = dir.join(format!("{file}.png"));
        let report = browser_check(&tool, &server, &anim_path, &png, &[]);
        assert_eq!(report["info"]["metaVersion"], meta_version, "{file}");
        // The ARKit channels are not in these models: listed, not fatal.
        assert!(
            report["info"]["unknown"].as_array().unwrap().len() >= 52,
            "{file}"
        );
        let frames = report["frames"].as_array().unwrap();
        let turned = frames
            .iter()
            .filter_map(|f| f["eyeYawDeg"].as_f64())
            .any(|y| y.abs() > 1.0);
        assert_eq!(turned, eyes, "{file}: eyes turned");
        assert!(
            frames
                .iter()
                .all(|f| f["headErr"].as_f64().unwrap() <= 1e-3)
        );
    }
}

/// A version-1 anim (only `expressions`, which there are the weights after the override
/// rules) shows those weights as they are: at frames where `happy` (`overrideBlink:
/// blend`) and a blink are both on, three-vrm's blink morph targets equal the file's
/// blink. (Fed to three-vrm with its override rules on, as the page did before, the
/// blink is damped a second time, blink × (1 − happy): measured, the eyelid morph
/// targets came out 0.356 instead of 0.548 at frame 208 of the demo, off by up to 0.19,
/// and this check failed; the version-2 demo then failed the weight comparison too,
/// three-vrm holding the input blink 0.84 where the face shows 0.55.)
#[test]
fn three_vrm_in_chromium_shows_a_version_1_anim_as_it_is() {
    let Some(tool) = browser_tools("viewer browser check") else {
        return;
    };
    let dir = scratch("browser-v1");
    let demo = omote_config::load_anim(&demo(&dir)).unwrap();
    let mut v1 = demo.clone();
    v1.version = 1;
    v1.expressions = demo.applied().clone();
    v1.applied_expressions = None;
    let anim_path = dir.join("v1.anim.json");
    std::fs::write(&anim_path, serde_json::to_vec(&v1).unwrap()).unwrap();
    // Frames where an override rule acts: the mouth under `surprised` (overrideMouth
    // blend), or a blink under `happy` (overrideBlink blend).
    let e = |name: &str| v1.expressions.get(name).unwrap();
    let (happy, blink, surprised) = (e("happy"), e("blink"), e("surprised"));
    let mouth = |i: usize| {
        ["aa", "ih", "ou", "ee", "oh"]
            .iter()
            .map(|v| e(v)[i])
            .fold(0.0, f32::max)
    };
    let both: Vec<usize> = (0..v1.frames())
        .filter(|&i| (happy[i] > 0.2 && blink[i] > 0.2) || (surprised[i] > 0.2 && mouth(i) > 0.2))
        .collect();
    assert!(
        !both.is_empty(),
        "the demo has no frame where an override rule acts"
    );
    let picked: Vec<usize> = both
        .iter()
        .step_by(both.len().div_ceil(4))
        .copied()
        .collect();
    let server = Server::start(&[anim_path.as_os_str()]);
    let report = browser_check(&tool, &server, &anim_path, &dir.join("v1.png"), &picked);
    let frames = report["frames"].as_array().unwrap();
    assert_eq!(frames.len(), picked.len());
    for f in frames {
        assert!(f["morphsNonZero"].as_u64().unwrap() > 0);
        assert!(f["morphMaxErr"].as_f64().unwrap() <= 1e-3, "{f}");
    }
}
