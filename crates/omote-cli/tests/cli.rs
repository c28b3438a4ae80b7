//! The `omote` binary end to end.

use std::path::{Path, PathBuf};

use omote_testdata::shared_data;
use support::{
    demo_scene, free_udp_port, omote, raw_frames, read_json, repo, run_with_paced_stdin,
    run_with_stdin, scratch, write_wav16,
};

mod support;

#[test]
fn demo_bakes_the_built_in_scene_for_both_characters() {
    let out = scratch("demo");
    let o = omote().args(["demo", "--out"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("omote view"), "{stdout}");
    // The scene and its voices, so `omote view` and `omote bake` can play it again.
    assert!(out.join("scene.toml").is_file());
    for v in ["aoi_1", "aoi_2", "beni_1", "beni_2"] {
        assert!(out.join("voice").join(format!("{v}.wav")).is_file(), "{v}");
    }
    let avatar_rig = omote_vrm::avatar::rig();
    let mut first_blinks = Vec::new();
    for id in ["aoi", "beni"] {
        let text = std::fs::read_to_string(out.join(format!("{id}.anim.json"))).unwrap();
        let anim: omote_core::Anim = serde_json::from_str(&text).unwrap();
        anim.validate().unwrap();
        assert_eq!(anim.fps, 60.0);
        assert!(anim.duration > 15.0, "{id}: {} s", anim.duration);
        // Every channel of the avatar's rig, one value per frame.
        assert_eq!(anim.expressions.0.len(), avatar_rig.len());
        let applied = anim.applied();
        let max = |name: &str| {
            applied
                .get(name)
                .unwrap()
                .iter()
                .copied()
                .fold(0.0, f32::max)
        };
        // Two voiced lines each: every vowel opens.
        for vowel in ["aa", "ih", "ou", "ee", "oh"] {
            assert!(max(vowel) > 0.5, "{id}: {vowel} never opens");
        }
        let voices = anim
            .events
            .iter()
            .filter(|e| matches!(e, omote_core::anim::AnimEvent::Voice { .. }))
            .count();
        assert_eq!(voices, 2, "{id}");
        // Blinks show (on the blink preset or, under a smile, on the lids).
        assert!(
            max("blink").max(max("eyeBlinkLeft")) > 0.5,
            "{id}: no blink shows"
        );
        first_blinks.push(anim.events.iter().find_map(|e| match e {
            omote_core::anim::AnimEvent::Blink { t, .. } => Some(*t),
            _ => None,
        }));
        // They look at each other: large gaze turns, the head taking part.
        let head_yaw = anim.head.iter().map(|q| {
            let (y, _, _) =
                omote_core::Quat::from_array(*q).to_euler(omote_core::glam::EulerRot::YXZ);
            y.to_degrees().abs()
        });
        assert!(
            head_yaw.fold(0.0, f32::max) > 20.0,
            "{id}: the head never turns"
        );
        // The orbiting camera's correction shows.
        assert!(
            max("mouthLeft").max(max("mouthRight")) > 0.02,
            "{id}: no camera correction"
        );
        let png = std::fs::read(out.join(format!("{id}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let model = omote_vrm::VrmModel::read(out.join(format!("{id}.vrm"))).unwrap();
        assert_eq!(model.expressions.len(), anim.expressions.0.len());
        let vrma = std::fs::read(out.join(format!("{id}.vrma"))).unwrap();
        assert_eq!(&vrma[0..4], b"glTF");
    }
    assert_ne!(
        first_blinks[0], first_blinks[1],
        "the two characters blink on their own"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn demo_is_deterministic() {
    let (a, b) = (scratch("det-a"), scratch("det-b"));
    for dir in [&a, &b] {
        assert!(
            omote()
                .args(["demo", "--out"])
                .arg(dir)
                .status()
                .unwrap()
                .success()
        );
    }
    for f in ["aoi.anim.json", "beni.anim.json", "aoi.vrma"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    std::fs::remove_dir_all(&a).ok();
    std::fs::remove_dir_all(&b).ok();
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let out = omote()
        .args(["demo", "--fps", "0", "--out"])
        .arg(scratch("bad"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fps") && err.contains("between 1 and 1000"),
        "{err}"
    );
    let out = omote()
        .args(["demo", "--out", "/proc/omote-cannot-write-here"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/proc/omote-cannot-write-here"), "{err}");
}

/// A VRM 1.0 without the required `head` bone: refused by `inspect` (and `--rig`) with
/// an error naming the file and the bone; `inspect --lenient` reads it with a warning.
#[test]
fn inspect_refuses_a_headless_vrm_unless_lenient() {
    let dir = scratch("headless");
    std::fs::create_dir_all(&dir).unwrap();
    let avatar = omote_vrm::avatar::generate();
    let chunks = omote_vrm::glb::split(&avatar, "avatar").unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
    json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object_mut()
        .unwrap()
        .remove("head")
        .expect("the avatar has a head");
    let json = serde_json::to_vec(&json).unwrap();
    let bytes = omote_vrm::glb::join(&json, chunks.bin.unwrap_or_default(), "headless").unwrap();
    let model = dir.join("headless.vrm");
    std::fs::write(&model, bytes).unwrap();

    let o = omote().arg("inspect").arg(&model).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("headless.vrm") && err.contains("`head`") && err.contains("--lenient"),
        "{err}"
    );
    let voice = dir.join("line.wav");
    write_wav16(&voice, 16_000, &buzz(16_000, 1.0, 0.2..0.8));
    let o = omote()
        .arg("speak")
        .arg(&voice)
        .arg("--rig")
        .arg(&model)
        .arg("--out")
        .arg(dir.join("speak"))
        .output()
        .unwrap();
    assert!(!o.status.success(), "--rig stays strict");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("headless.vrm") && err.contains("`head`"),
        "{err}"
    );

    let o = omote()
        .args(["inspect", "--json", "--lenient"])
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report["faceBones"]["head"].is_null());
    assert!(
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("head")),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn retarget_writes_anim_and_plot_from_a_real_sequence() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let out = scratch("retarget");
    let status = omote()
        .arg("retarget")
        .arg(dir.join("astronaut_sequence.jsonl"))
        .args(["--calibrate", "1", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let anim: omote_core::Anim =
        serde_json::from_str(&std::fs::read_to_string(out.join("retarget.anim.json")).unwrap())
            .unwrap();
    anim.validate().unwrap();
    assert_eq!(anim.frames(), 300);
    assert_eq!(anim.fps, 30.0);
    // The astronaut smiles throughout.
    let happy = anim.expressions.get("happy").unwrap();
    assert!(happy[100] > 0.9, "{}", happy[100]);
    std::fs::remove_dir_all(&out).ok();

    // With a VRM model, the rig is the model's and a VRMA is written for it.
    let avatar = out.join("avatar.vrm");
    std::fs::create_dir_all(&out).unwrap();
    assert!(
        omote()
            .args(["avatar", "-o"])
            .arg(&avatar)
            .status()
            .unwrap()
            .success()
    );
    let status = omote()
        .arg("retarget")
        .arg(dir.join("astronaut_sequence.jsonl"))
        .arg("--rig")
        .arg(&avatar)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        &std::fs::read(out.join("retarget.vrma")).unwrap()[0..4],
        b"glTF"
    );
    let png = std::fs::read(out.join("retarget.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn retarget_reports_bad_input_with_file_and_line() {
    let out = scratch("retarget-bad");
    std::fs::create_dir_all(&out).unwrap();
    let seq = out.join("bad.jsonl");
    std::fs::write(
        &seq,
        "{\"width\":640,\"height\":480,\"faces\":[]}\nnot json\n",
    )
    .unwrap();
    let o = omote()
        .arg("retarget")
        .arg(&seq)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.jsonl") && err.contains("line 2"), "{err}");
    let o = omote()
        .args(["retarget", "/nonexistent.jsonl"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent.jsonl"));
    // No face at all: calibration has nothing to work with, and says so.
    let empty = out.join("empty.jsonl");
    std::fs::write(&empty, "{\"width\":640,\"height\":480,\"faces\":[]}\n").unwrap();
    let o = omote()
        .arg("retarget")
        .arg(&empty)
        .args(["--calibrate", "5", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("no frame with a face"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn retarget_reads_arkit_frames() {
    let out = scratch("arkit");
    std::fs::create_dir_all(&out).unwrap();
    let seq = out.join("arkit.jsonl");
    let mut text = String::new();
    for i in 0..60 {
        let t = i as f32 / 30.0;
        let yaw = (t * 2.0).sin() * 0.3;
        let (s, c) = (yaw / 2.0).sin_cos();
        text.push_str(&format!(
            "{{\"t\":{t},\"blendshapes\":{{\"jawOpen\":0.5,\"mouthSmileLeft\":0.9,\"mouthSmileRight\":0.9}},\"head\":[0,{s},0,{c}]}}\n"
        ));
    }
    std::fs::write(&seq, text).unwrap();
    let status = omote()
        .arg("retarget")
        .arg(&seq)
        .args(["--input", "arkit", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let anim: omote_core::Anim =
        serde_json::from_str(&std::fs::read_to_string(out.join("retarget.anim.json")).unwrap())
            .unwrap();
    assert_eq!(anim.frames(), 60);
    assert!(anim.expressions.get("happy").unwrap()[59] > 0.9);
    assert!(anim.expressions.get("aa").unwrap()[59] > 0.3);
    // The head turns: yaw follows the input within the smoothing lag.
    let yaws: Vec<f32> = anim.head.iter().map(|q| 2.0 * q[1].atan2(q[3])).collect();
    assert!(
        yaws.iter().any(|y| *y > 0.2) && yaws.iter().any(|y| *y < -0.1),
        "{yaws:?}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn motion_map_prints_weights_queries_and_plots() {
    let map = repo().join("examples/maps/anime-face.toml");
    let motion_map = |args: &[&str]| {
        omote()
            .arg("motion-map")
            .arg(&map)
            .args(args)
            .output()
            .unwrap()
    };
    let o = motion_map(&["--alpha", "0", "--beta", "0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        (v["weights"]["front"].as_f64().unwrap() - 1.0).abs() < 1e-9,
        "{v}"
    );
    // Far to the avatar's left only left-side motions take part, and weights sum to 1.
    let o = motion_map(&["--alpha", "100", "--beta", "5"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let w = v["weights"].as_object().unwrap();
    let sum: f64 = w.values().map(|x| x.as_f64().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-9);
    assert!(w["left"].as_f64().unwrap() > 0.5);
    assert_eq!(w["right"].as_f64().unwrap(), 0.0);
    // α goes round (460° is 100°) and β beyond ±90° is no direction: refused, named.
    let o = motion_map(&["--alpha", "460", "--beta", "5"]);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(),
        v
    );
    let o = motion_map(&["--alpha", "10", "--beta", "95"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--alpha 10 --beta 95") && err.contains("beta"),
        "{err}"
    );

    let out = scratch("motion-map");
    std::fs::create_dir_all(&out).unwrap();
    let q = out.join("angles.tsv");
    std::fs::write(&q, "0\t0\n-45\t-20\n").unwrap();
    let query = q.to_str().unwrap();
    let o = motion_map(&["--query", query]);
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("alpha\tbeta\tfront\tleft\tright")
    );
    assert_eq!(lines.count(), 2);
    std::fs::write(&q, "0\tabc\n").unwrap();
    let o = motion_map(&["--query", query]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("angles.tsv:1"));

    let png = out.join("map.png");
    assert!(
        motion_map(&["--plot", png.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn simulate_writes_blink_and_saccade_events() {
    let out = scratch("simulate");
    let status = omote()
        .args([
            "simulate",
            "--seconds",
            "60",
            "--mode",
            "talking",
            "--seed",
            "9",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(out.join("simulate.anim.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = v["events"].as_array().unwrap();
    let blinks: Vec<_> = events.iter().filter(|e| e["kind"] == "blink").collect();
    let saccades: Vec<_> = events.iter().filter(|e| e["kind"] == "saccade").collect();
    // Talking: one blink every ~2.3 s on average, saccades every few seconds.
    assert!(
        (15..=45).contains(&blinks.len()),
        "{} blinks in 60 s",
        blinks.len()
    );
    assert!(saccades.len() >= 8, "{} saccades", saccades.len());
    for b in &blinks {
        for field in [
            "t",
            "closeDuration",
            "holdDuration",
            "openDuration",
            "depth",
            "cause",
        ] {
            assert!(!b[field].is_null(), "blink event lacks {field}: {b}");
        }
        assert!(b["closeDuration"].as_f64().unwrap() < b["openDuration"].as_f64().unwrap());
    }
    for s in &saccades {
        for field in ["t", "duration", "yaw", "pitch", "direction"] {
            assert!(!s[field].is_null(), "saccade event lacks {field}: {s}");
        }
    }
    assert_eq!(
        &std::fs::read(out.join("simulate.png")).unwrap()[1..4],
        b"PNG"
    );
    std::fs::remove_dir_all(&out).ok();
}

use omote_testdata::buzz;

#[test]
fn lipsync_calibrates_from_sustained_recordings() {
    let out = scratch("lipsync-calibrate");
    std::fs::create_dir_all(&out).unwrap();
    // Held "a" with no silence at all (the clip-adaptive silence detector would find
    // no voice in it), at 44.1 kHz.
    let a = out.join("a.wav");
    write_wav16(&a, 44_100, &buzz(44_100, 2.0, 0.0..2.0));
    let short = out.join("i.wav");
    write_wav16(&short, 16_000, &buzz(16_000, 0.3, 0.05..0.25));
    let profile = out.join("me.json");
    let o = omote()
        .args(["lipsync", "calibrate", "--a"])
        .arg(&a)
        .arg("-o")
        .arg(&profile)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json = std::fs::read_to_string(&profile).unwrap();
    assert!(json.contains("calibrated on sustained A"), "{json}");
    // The profile is usable.
    let o = omote()
        .args(["lipsync", "--profile"])
        .arg(&profile)
        .arg(&a)
        .args(["--format", "tsv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Too short a recording is named with the problem.
    let o = omote()
        .args(["lipsync", "calibrate", "--a"])
        .arg(&a)
        .arg("--i")
        .arg(&short)
        .arg("-o")
        .arg(out.join("no.json"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("i.wav") && err.contains("voiced frames"),
        "{err}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// `calibrate --build --with-variants` learns each labelled clip four more times (noisy,
/// quiet, hum), which is how the built-in profile is made.
#[test]
fn lipsync_builds_a_profile_with_recording_variants() {
    let Some(dir) = shared_data("speech") else {
        return;
    };
    let out = scratch("lipsync-build-variants");
    std::fs::create_dir_all(&out).unwrap();
    let frames = |variants: bool, by_name: bool| -> (u64, String) {
        let profile = out.join(format!("variants-{variants}-{by_name}.json"));
        let mut cmd = omote();
        cmd.args(["lipsync", "calibrate", "--build"]);
        if variants {
            cmd.arg("--with-variants");
        }
        if by_name {
            cmd.arg("--speaker-from-name");
        }
        for name in (1..=12)
            .map(|i| format!("ja_ojt_{i:03}"))
            .chain(["en_espeak_001".to_string()])
        {
            cmd.arg("--labelled")
                .arg(dir.join(format!("{name}.wav")))
                .arg(dir.join(format!("{name}.lab.tsv")));
        }
        let o = cmd.arg("-o").arg(&profile).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json = std::fs::read_to_string(&profile).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let total = v["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_u64().unwrap())
            .sum();
        (total, json)
    };
    let (plain, plain_json) = frames(false, false);
    let (varied, varied_json) = frames(true, false);
    // Five copies of each clip; the noisy ones may voice a few frames less or more.
    assert!(
        varied > 4 * plain && varied < 6 * plain,
        "{plain} frames plain, {varied} with variants"
    );
    assert_ne!(plain_json, varied_json);
    // Learnt with each voice's mean (ja_ojt_*: one voice): the same frames, other means.
    let (grouped, grouped_json) = frames(true, true);
    assert_eq!(grouped, varied);
    let means = |json: &str| -> Vec<f64> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["means"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
            .collect()
    };
    let (a, b) = (means(&varied_json), means(&grouped_json));
    assert_eq!(a.len(), b.len());
    assert!(b.iter().all(|x| x.is_finite()));
    assert!(a.iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-3));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn lipsync_analyses_a_file_and_reports_a_bad_one() {
    let out = scratch("lipsync");
    std::fs::create_dir_all(&out).unwrap();
    // A synthetic "voice": 0.3 s silence, 0.6 s of a vowel-like buzz, 0.3 s silence.
    let wav = out.join("voice.wav");
    write_wav16(&wav, 16_000, &buzz(16_000, 1.2, 0.3..0.9));
    let bad = out.join("broken.wav");
    std::fs::write(&bad, b"RIFF....WAVEjunk").unwrap();
    let o = omote()
        .arg("lipsync")
        .arg(&wav)
        .arg(&bad)
        .args(["--format", "tsv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "a failed input makes the exit status non-zero"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("broken.wav"));
    let tsv = std::fs::read_to_string(out.join("voice.lipsync.tsv")).unwrap();
    let mut lines = tsv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time\tA\tI\tU\tE\tO\tN\tvolume\tsilent"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let silent_at = |t: f32| {
        let r = rows.iter().min_by(|a, b| {
            let da = (a[0].parse::<f32>().unwrap() - t).abs();
            let db = (b[0].parse::<f32>().unwrap() - t).abs();
            da.total_cmp(&db)
        });
        r.unwrap()[8] == "1" || r.unwrap()[8] == "true"
    };
    assert!(silent_at(0.1) && silent_at(1.1), "the padding is silence");
    assert!(!silent_at(0.6), "the buzz is voiced");
    std::fs::remove_dir_all(&out).ok();
}

/// `omote lipsync` normalises the files of one folder with their speaker's mean
/// (`--speaker folder`, the default): a file alone in its folder comes out as with
/// `--speaker file`, files that share a folder do not, and `--speaker all` pools every input.
#[test]
fn lipsync_groups_a_folders_files_as_one_speaker() {
    let Some(speech) = shared_data("speech") else {
        return;
    };
    let dir = scratch("lipsync-speaker");
    let (x, y) = (dir.join("x"), dir.join("y"));
    std::fs::create_dir_all(&x).unwrap();
    std::fs::create_dir_all(&y).unwrap();
    for (folder, clip) in [
        (&x, "ja_ojt_001"),
        (&x, "en_espeak_002"),
        (&y, "ja_ojt_003"),
    ] {
        std::fs::copy(
            speech.join(format!("{clip}.wav")),
            folder.join(format!("{clip}.wav")),
        )
        .unwrap();
    }
    // The three files' results and the summary line, for `omote lipsync x y ARGS`.
    let run = |args: &[&str]| -> (Vec<String>, String) {
        let out = dir.join(format!("out-{}", args.join("")));
        let o = omote()
            .arg("lipsync")
            .arg(&x)
            .arg(&y)
            .args(["--format", "tsv"])
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        let tracks = ["ja_ojt_001", "en_espeak_002", "ja_ojt_003"]
            .iter()
            .map(|c| std::fs::read_to_string(out.join(format!("{c}.lipsync.tsv"))).unwrap())
            .collect();
        (tracks, err)
    };
    let speaker = |groups: &str| run(&["--speaker", groups]).0;
    let (folder, file, all) = (speaker("folder"), speaker("file"), speaker("all"));
    assert_eq!(folder[2], file[2], "alone in its folder: its own mean");
    assert_ne!(folder[0], file[0], "x's two files share a mean");
    assert_ne!(folder[1], file[1]);
    assert_ne!(all[2], folder[2], "--speaker all pools y's file with x's");
    // Streamed: each file's stream starts from its folder's other files.
    let streamed = |groups: &str| run(&["--speaker", groups, "--stream"]).0;
    let (folder_streamed, file_streamed) = (streamed("folder"), streamed("file"));
    assert_eq!(
        folder_streamed[2], file_streamed[2],
        "no other file: a cold stream"
    );
    assert_ne!(folder_streamed[0], file_streamed[0]);
    // The default is `folder`, and the summary says how the files were grouped.
    let (default, err) = run(&[]);
    assert_eq!(default, folder);
    assert!(
        err.contains("3 of 3 files analysed, 0 failed; 2 speakers (one per folder"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--speaker name`: two characters' lines in one folder (the demo's `aoi_1.wav`,
/// `aoi_2.wav`, `beni_1.wav`, `beni_2.wav`) read as two speakers, each file exactly as
/// with its character's lines alone in a folder.
#[test]
fn lipsync_groups_lines_by_name_within_a_folder() {
    let voice = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/demo/voice");
    let dir = scratch("lipsync-speaker-name");
    let (mixed, aoi, beni) = (dir.join("mixed"), dir.join("aoi"), dir.join("beni"));
    let names = ["aoi_1", "aoi_2", "beni_1", "beni_2"];
    for name in names {
        let own = if name.starts_with("aoi") { &aoi } else { &beni };
        for folder in [&mixed, own] {
            std::fs::create_dir_all(folder).unwrap();
            std::fs::copy(
                voice.join(format!("{name}.wav")),
                folder.join(format!("{name}.wav")),
            )
            .unwrap();
        }
    }
    let run = |inputs: &[&Path], args: &[&str], out: &Path| -> String {
        let o = omote()
            .arg("lipsync")
            .args(inputs)
            .args(["--format", "tsv"])
            .args(args)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        err
    };
    let by_name = dir.join("by-name");
    let said = run(&[&mixed], &["--speaker", "name"], &by_name);
    assert!(
        said.contains("4 of 4 files analysed, 0 failed; 2 speakers (one per name"),
        "{said}"
    );
    let apart = dir.join("apart");
    run(&[&aoi, &beni], &[], &apart);
    let by_folder = dir.join("by-folder");
    let said = run(&[&mixed], &[], &by_folder);
    assert!(
        said.contains("1 speaker (one per folder; --speaker name"),
        "{said}"
    );
    let read = |out: &Path, name: &str| {
        std::fs::read_to_string(out.join(format!("{name}.lipsync.tsv"))).unwrap()
    };
    for name in names {
        assert_eq!(read(&by_name, name), read(&apart, name), "{name}");
    }
    // Read as one speaker, the mixed folder gives other tracks.
    assert!(names.iter().any(|n| read(&by_folder, n) != read(&apart, n)));
    std::fs::remove_dir_all(&dir).ok();
}

/// A WAV declaring sample rate 0 makes symphonia assert; `omote-audio` catches that. In
/// a batch (on worker threads) the user sees one error naming the file and no panic
/// text, and the other files are still analysed.
#[test]
fn lipsync_batch_with_a_decoder_panic_prints_no_panic() {
    let out = scratch("lipsync-rate-zero");
    let inputs = out.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    write_wav16(
        &inputs.join("good.wav"),
        16_000,
        &buzz(16_000, 1.2, 0.3..0.9),
    );
    write_wav16(
        &inputs.join("rate-zero.wav"),
        0,
        &buzz(16_000, 0.1, 0.0..0.1),
    );
    let o = omote()
        .arg("lipsync")
        .arg(&inputs)
        .args(["--jobs", "2", "--format", "tsv", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "a failed input exits 1: {err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("error: ") && l.contains("rate-zero.wav")),
        "{err}"
    );
    assert!(
        !err.contains("panicked"),
        "panic text reached the user: {err}"
    );
    assert!(err.contains("1 of 2 files analysed, 1 failed"), "{err}");
    let tsv = std::fs::read_to_string(out.join("good.lipsync.tsv")).unwrap();
    assert!(tsv.starts_with("time\tA\tI\tU\tE\tO\tN\tvolume\tsilent"));
    assert!(!out.join("rate-zero.lipsync.tsv").exists());
    std::fs::remove_dir_all(&out).ok();
}

/// `lipsync eval` on a small labelled folder: a line per source, then calibration.
/// `eval --by-phone` takes each source's vowel measure apart by labelled phone, frame
/// for frame: on the shared Japanese and English speech, a class's phones add up to its
/// row of the confusion matrix (Japanese: "a" is all of A, and so on).
#[test]
fn lipsync_eval_by_phone_adds_up_to_the_confusion() {
    let Some(speech) = shared_data("speech") else {
        return;
    };
    let dir = scratch("lipsync-eval-by-phone");
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = String::from("clip\tlanguage\tsource\n");
    for (clip, language, source) in [
        ("ja_ojt_001", "ja", "open_jtalk"),
        ("ja_ojt_002", "ja", "open_jtalk"),
        ("ja_ojt_003", "ja", "open_jtalk"),
        ("en_espeak_001", "en", "espeak-ng"),
        ("en_espeak_002", "en", "espeak-ng"),
    ] {
        for ext in ["wav", "lab.tsv"] {
            let file = format!("{clip}.{ext}");
            std::fs::copy(speech.join(&file), dir.join(&file)).unwrap();
        }
        manifest.push_str(&format!("{clip}\t{language}\t{source}\n"));
    }
    std::fs::write(dir.join("manifest.tsv"), manifest).unwrap();
    let o = omote()
        .args([
            "lipsync",
            "eval",
            "--no-variants",
            "--confusion",
            "--by-phone",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut sources = 0;
    let mut lines = out.lines().skip(1).peekable();
    while let Some(head) = lines.next() {
        sources += 1;
        let vowel_frames: u64 = head
            .split(" fr)")
            .next()
            .and_then(|s| s.rsplit('(').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{head}"));
        // The confusion matrix: counts per labelled class.
        assert!(lines.next().unwrap().contains("label\\pred"), "{out}");
        let confusion: Vec<(char, Vec<u64>)> = (0..5)
            .map(|_| {
                let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
                let counts = row[1..].iter().map(|v| v.parse().unwrap()).collect();
                (row[0].chars().next().unwrap(), counts)
            })
            .collect();
        assert!(
            lines.next().unwrap().contains("phone      class  frames"),
            "{out}"
        );
        let mut by_class = std::collections::BTreeMap::<char, u64>::new();
        let mut phone_frames = Vec::new();
        while let Some(row) = lines.next_if(|l| l.starts_with("    ")) {
            let cells: Vec<&str> = row.split_whitespace().collect();
            let (phone, class, frames) = (cells[0], cells[1].chars().next().unwrap(), cells[2]);
            let frames: u64 = frames.parse().unwrap();
            *by_class.entry(class).or_default() += frames;
            phone_frames.push(frames);
            if head.starts_with("ja/") {
                assert_eq!(phone.to_uppercase(), class.to_string(), "{row}");
            }
        }
        assert!(
            phone_frames.is_sorted_by(|a, b| a >= b),
            "most frames first: {out}"
        );
        assert_eq!(by_class.values().sum::<u64>(), vowel_frames, "{out}");
        for (class, counts) in &confusion {
            assert_eq!(
                by_class.get(class).copied().unwrap_or(0),
                counts.iter().sum::<u64>(),
                "{class}: {out}"
            );
        }
    }
    assert_eq!(sources, 2, "{out}");
    let o = omote()
        .args(["lipsync", "eval", "--syllables", "--by-phone"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--by-phone"));
}

#[test]
fn lipsync_eval_scores_a_labelled_folder() {
    let dir = scratch("lipsync-eval");
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = String::from("clip\tlanguage\tsource\ttext\n");
    for (name, source) in [("a1", "synth"), ("a2", "synth"), ("b1", "other")] {
        write_wav16(
            &dir.join(format!("{name}.wav")),
            16_000,
            &buzz(16_000, 1.2, 0.3..0.9),
        );
        std::fs::write(
            dir.join(format!("{name}.lab.tsv")),
            "start\tend\tclass\tphone\n0\t0.3\tS\tsil\n0.3\t0.9\tA\ta\n0.9\t1.2\tS\tsil\n",
        )
        .unwrap();
        manifest.push_str(&format!("{name}.wav\tja\t{source}\tあ\n"));
    }
    std::fs::write(dir.join("manifest.tsv"), manifest).unwrap();
    let o = omote()
        .args(["lipsync", "eval"])
        .arg(&dir)
        .args(["--calibrate-first", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    // Each source, then its four recording-condition variants, then calibration.
    assert_eq!(lines.len(), 13, "{out}");
    assert!(lines[0].starts_with("omote lipsync eval (offline, profile: built-in"));
    assert!(lines[1].starts_with("ja/other  ") && lines[1].contains(" vowel "));
    for (i, variant) in ["band300-3400", "hum50Hz", "pink-snr15", "quiet-22/-60dBFS"]
        .iter()
        .enumerate()
    {
        assert!(
            lines[2 + i].starts_with(&format!("ja/other +{variant} ")),
            "{out}"
        );
        assert!(
            lines[7 + i].starts_with(&format!("ja/synth +{variant} ")),
            "{out}"
        );
        assert!(lines[7 + i].contains(" × labels"), "{out}");
    }
    assert!(lines[6].starts_with("ja/synth  ") && lines[6].contains(" silence "));
    assert!(lines[6].contains(" changes ") && lines[6].contains(" × labels"));
    assert_eq!(
        lines[11],
        "calibration: per source, calibrate on the first 1 clips, score the rest"
    );
    assert!(lines[12].starts_with("ja/synth  "), "{out}");
    // Without the variants: the sources as recorded only.
    let o = omote()
        .args(["lipsync", "eval", "--no-variants"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[1].starts_with("ja/other  ") && lines[2].starts_with("ja/synth  "));
    assert!(lines[1].contains(" closed "), "{out}");
    // As a live session: one stream per source; --stream and --session exclude each other.
    let o = omote()
        .args(["lipsync", "eval", "--no-variants", "--session"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("omote lipsync eval (streaming session, "),
        "{out}"
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    let o = omote()
        .args(["lipsync", "eval", "--stream", "--session"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--session"));
    // A broken manifest is named.
    std::fs::write(dir.join("manifest.tsv"), "clip\tsource\n").unwrap();
    let o = omote()
        .args(["lipsync", "eval"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("manifest.tsv: manifest needs columns clip, language, source"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lipsync_eval_scores_a_folder_of_syllables() {
    let dir = scratch("lipsync-syllables");
    let (sp1, sp2) = (dir.join("sp1"), dir.join("sp2"));
    std::fs::create_dir_all(&sp1).unwrap();
    std::fs::create_dir_all(&sp2).unwrap();
    let voice = buzz(16_000, 1.0, 0.2..0.8);
    // sp1 has a vowel map; sp2's vowels come from the names.
    for f in ["B.wav", "KA.wav"] {
        write_wav16(&sp1.join(f), 16_000, &voice);
    }
    std::fs::write(
        sp1.join("vowels.tsv"),
        "file\ttext\tvowel\nB.wav\tB\tE\nKA.wav\tKA\tA\n",
    )
    .unwrap();
    for f in ["ba.wav", "ki.wav", "silence.wav"] {
        let samples = if f == "silence.wav" {
            vec![0; 8000]
        } else {
            voice.clone()
        };
        write_wav16(&sp2.join(f), 16_000, &samples);
    }
    std::fs::rename(sp2.join("silence.wav"), sp2.join("o.wav")).unwrap();
    let o = omote()
        .args(["lipsync", "eval", "--syllables"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    assert!(lines[0].contains("each folder as one speaker"), "{out}");
    assert!(
        lines[1].starts_with("sp1 ") && lines[1].contains("2 files)"),
        "{out}"
    );
    assert!(lines[2].starts_with("sp2 ") && lines[2].contains("3 files, 1 without voice"));
    assert!(lines[3].starts_with("all ") && lines[3].contains("5 files, 1 without voice"));
    // The same voice is scored as A twice, E, I: every row that has frames adds to 100 %,
    // and O (the silent file) has none.
    assert!(lines[4].contains("vowel\\read"), "{out}");
    assert!(
        lines[9].starts_with("    O ") && lines[9].contains("% of 0 fr"),
        "{out}"
    );
    for row in &lines[5..9] {
        if row.starts_with("    U ") {
            continue;
        }
        let cells: f64 = row
            .split_whitespace()
            .skip(1)
            .take(6)
            .map(|c| c.parse::<f64>().unwrap())
            .sum();
        assert!((cells - 100.0).abs() < 0.5, "{row}");
    }
    let file = omote()
        .args(["lipsync", "eval", "--syllables", "--clip-mean"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&file.stdout).contains("each file alone"));
    // Streamed and as a live session: the same files and frames counted, in that reading.
    for (flag, name) in [
        ("--stream", "(streaming, "),
        ("--session", "(streaming session, "),
    ] {
        let o = omote()
            .args(["lipsync", "eval", "--syllables", flag])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let live = String::from_utf8_lossy(&o.stdout);
        let live: Vec<&str> = live.lines().collect();
        assert!(live[0].contains(name), "{}", live[0]);
        assert!(
            live[3].starts_with("all ") && live[3].contains("5 files"),
            "{}",
            live[3]
        );
    }
    // Nothing is silently left out: a file the map lacks, or a name without one vowel.
    write_wav16(&sp1.join("X.wav"), 16_000, &voice);
    let o = omote()
        .args(["lipsync", "eval", "--syllables"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("vowels.tsv: has no row for X.wav"), "{err}");
    std::fs::remove_file(sp1.join("X.wav")).unwrap();
    write_wav16(&sp2.join("bao.wav"), 16_000, &voice);
    let o = omote()
        .args(["lipsync", "eval", "--syllables"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("bao.wav: no vowels.tsv"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A speaker's own syllables, its text naming each one's vowel, calibrate the profile to
/// that speaker: on KLettres' Russian speaker (73 files), each half of the files read with
/// the profile `calibrate --syllables` makes from the other half scores far above the
/// built-in profile, and `eval --calibrate-halves` is exactly those two readings.
#[test]
fn a_speakers_own_syllables_calibrate_the_profile_to_it() {
    let dir = scratch("lipsync-syllable-calibration");
    let all = dir.join("all");
    if omote_testdata::klettres_syllables(&all, &["ru"]).is_none() {
        return;
    }
    let ru = all.join("ru");
    // The files in name order (as the measure lists them), and their vowel map rows.
    let map = std::fs::read_to_string(ru.join("vowels.tsv")).unwrap();
    let mut rows: Vec<&str> = map.lines().skip(1).collect();
    rows.sort_by_key(|r| r.split('\t').next().unwrap().to_string());
    let half = |h: usize| -> PathBuf {
        let to = dir.join(format!("half{h}"));
        std::fs::create_dir_all(&to).unwrap();
        let mut tsv = format!("{}\n", map.lines().next().unwrap());
        for row in rows.iter().skip(h).step_by(2) {
            let file = row.split('\t').next().unwrap();
            std::fs::copy(ru.join(file), to.join(file)).unwrap();
            tsv.push_str(row);
            tsv.push('\n');
        }
        std::fs::write(to.join("vowels.tsv"), tsv).unwrap();
        to
    };
    // (share of frames read right, frames) of `eval --syllables` on `data`.
    let score = |data: &Path, extra: &[&str]| -> (f64, f64) {
        let o = omote()
            .args(["lipsync", "eval", "--syllables"])
            .arg(data)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let all = out.lines().find(|l| l.starts_with("all ")).unwrap();
        let mut words = all.split_whitespace().skip(2);
        let share = words.next().unwrap().trim_end_matches('%').parse().unwrap();
        let frames = words
            .next()
            .unwrap()
            .trim_start_matches('(')
            .parse()
            .unwrap();
        (share, frames)
    };
    let (mut right, mut frames, mut blind_right) = (0.0, 0.0, 0.0);
    let mut by_half = [0.0; 2];
    for (h, half_share) in by_half.iter_mut().enumerate() {
        let (taught, scored) = (half(1 - h), half(h));
        let profile = dir.join(format!("calibrated{h}.json"));
        let o = omote()
            .args(["lipsync", "calibrate", "--syllables"])
            .arg(&taught)
            .arg("-o")
            .arg(&profile)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let profile = profile.to_str().unwrap();
        let (share, n) = score(&scored, &["--profile", profile]);
        let (blind, n_blind) = score(&scored, &[]);
        assert_eq!(n, n_blind, "the same frames are scored");
        *half_share = share;
        right += share * n;
        blind_right += blind * n;
        frames += n;
    }
    let (calibrated, blind) = (right / frames, blind_right / frames);
    println!(
        "ru syllables: {blind:.1} % with the built-in profile, {calibrated:.1} % calibrated on the other half"
    );
    assert!(calibrated > blind + 5.0, "{blind} -> {calibrated}");
    let (halves, n) = score(&ru, &["--calibrate-halves"]);
    assert_eq!(n, frames);
    assert!(
        (halves - calibrated).abs() < 0.1,
        "{halves} vs {calibrated}"
    );
    // The same syllables read as one take, a pause after each: a calibration card.
    let card = dir.join("card.wav");
    let (mut take, mut text) = (Vec::new(), Vec::new());
    for row in rows.iter().skip(1).step_by(2) {
        let cells: Vec<&str> = row.split('\t').collect();
        let samples = omote_audio::load_mono(&ru.join(cells[0]), 16_000)
            .unwrap()
            .samples;
        take.extend(samples.iter().map(|&x| (x * 32767.0) as i16));
        take.extend(std::iter::repeat_n(0i16, 6400));
        text.push(cells[2].to_lowercase());
    }
    write_wav16(&card, 16_000, &take);
    let card_calibration = |text: &str| {
        omote()
            .args(["lipsync", "calibrate", "--card"])
            .arg(&card)
            .args(["--card-text", text, "-o"])
            .arg(dir.join("card.json"))
            .output()
            .unwrap()
    };
    let o = card_calibration(&text.join(" "));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let card_json = dir.join("card.json");
    let (from_card, _) = score(
        &dir.join("half0"),
        &["--profile", card_json.to_str().unwrap()],
    );
    println!(
        "ru: the first half read with a card of the second: {from_card:.1} % (from its files: {:.1} %)",
        by_half[0]
    );
    assert!(
        (from_card - by_half[0]).abs() < 2.0,
        "{from_card} vs {}",
        by_half[0]
    );
    let o = card_calibration(&format!("{} a", text.join(" ")));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "card.wav: heard {} syllables, the card has {}",
            text.len(),
            text.len() + 1
        )),
        "{err}"
    );
    let o = card_calibration("ka xyz");
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"xyz\" has no single vowel"));
    // One speaker at a time, and something to learn from.
    let calibrate_refuses = |folder: &Path| -> String {
        let o = omote()
            .args(["lipsync", "calibrate", "--syllables"])
            .arg(folder)
            .arg("-o")
            .arg(dir.join("x.json"))
            .output()
            .unwrap();
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let two = dir.join("two");
    std::fs::create_dir_all(&two).unwrap();
    std::fs::rename(dir.join("half0"), two.join("a")).unwrap();
    std::fs::rename(dir.join("half1"), two.join("b")).unwrap();
    let err = calibrate_refuses(&two);
    assert!(err.contains("calibrates to one speaker"), "{err}");
    let silent = dir.join("silent");
    std::fs::create_dir_all(&silent).unwrap();
    write_wav16(&silent.join("ka.wav"), 16_000, &vec![0; 8000]);
    let err = calibrate_refuses(&silent);
    assert!(
        err.contains("no voiced vowel frames in 1 audio files"),
        "{err}"
    );
    let o = omote()
        .args(["lipsync", "eval", "--calibrate-halves"])
        .arg(&ru)
        .output()
        .unwrap();
    assert!(!o.status.success(), "--calibrate-halves needs --syllables");
    std::fs::remove_dir_all(&dir).ok();
}

/// `calibrate --build --real-syllables` on real recordings: each vowel gets its real-voice
/// Gaussian at the given share, and the speakers it learnt are read far better than by the
/// same build without them (the mechanism end to end: loading, the vowel frames, the
/// weights, the scorer; the held-out figures are in the lipsync README and EVALUATION.md); with
/// `--context-net` the profile carries a net that reads them better still.
#[test]
fn real_syllables_teach_each_vowel_a_real_voice_gaussian() {
    let Some(speech) = shared_data("speech") else {
        return;
    };
    let dir = scratch("lipsync-real-voices");
    let syllables = dir.join("syllables");
    if omote_testdata::klettres_syllables(&syllables, &["cs", "uk"]).is_none() {
        return;
    }
    // A small synthetic profile to start from: the Japanese clips' labels.
    // Japanese lines `lines` of the shared speech, copied into `dir/name`.
    let japanese_lines = |name: &str, lines: std::ops::RangeInclusive<u32>| -> PathBuf {
        let to = dir.join(name);
        std::fs::create_dir_all(&to).unwrap();
        for i in lines {
            for ext in ["wav", "lab.tsv"] {
                let file = format!("ja_ojt_{i:03}.{ext}");
                std::fs::copy(speech.join(&file), to.join(&file)).unwrap();
            }
        }
        to
    };
    let labelled = japanese_lines("labelled", 1..=20);
    let build = |out: &str, extra: &[&str]| -> serde_json::Value {
        let path = dir.join(out);
        let o = omote()
            .args(["lipsync", "calibrate", "--build", "--labelled-dir"])
            .arg(&labelled)
            .args(extra)
            .arg("-o")
            .arg(&path)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        read_json(&path)
    };
    let syl = syllables.to_str().unwrap();
    let plain = build("plain.json", &[]);
    let real = build("real.json", &["--real-syllables", syl]);
    let real_u = build(
        "real-u.json",
        &["--real-syllables", syl, "--real-share", "U=0.5"],
    );
    let real_weight = |p: &serde_json::Value, class: &str| -> Option<f64> {
        // A profile with one Gaussian per class has no subclasses at all.
        p["subclasses"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|s| {
                (s["class"] == class && s["phone"] == "real voices")
                    .then(|| s["log_weight"].as_f64().unwrap().exp())
            })
    };
    for (class, share) in ["A", "I", "U", "E", "O"]
        .iter()
        .zip(omote_lipsync::DEFAULT_REAL_SHARES)
    {
        assert_eq!(real_weight(&plain, class), None);
        let got = real_weight(&real, class).unwrap_or_else(|| panic!("{class}: none"));
        assert!((got - f64::from(share)).abs() < 1e-4, "{class}: {got}");
    }
    assert_eq!(
        real_weight(&real, "N"),
        None,
        "the closed mouth learns no real voice"
    );
    assert!((real_weight(&real_u, "U").unwrap() - 0.5).abs() < 1e-4);
    let score = |profile: &str| -> f64 {
        let o = omote()
            .args(["lipsync", "eval", "--syllables"])
            .arg(&syllables)
            .arg("--profile")
            .arg(dir.join(profile))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let all = out.lines().find(|l| l.starts_with("all ")).unwrap();
        all.split_whitespace()
            .nth(2)
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    let (before, after) = (score("plain.json"), score("real.json"));
    println!("cs + uk syllables: {before:.1} % without real voices, {after:.1} % with");
    assert!(after > before + 5.0, "{before} -> {after}");
    // A context net learns the same syllables beside the Gaussians, and eval reads it.
    let net = build("net.json", &["--real-syllables", syl, "--context-net"]);
    assert_eq!(net["context_net"]["past"], 4);
    assert_eq!(
        net["context_net"]["hidden_weights"]["values"]
            .as_array()
            .map(Vec::len),
        Some(6 * 12 * 48)
    );
    assert!(real.get("context_net").is_none());
    let with_net = score("net.json");
    println!("with a context net: {with_net:.1} %");
    assert!(with_net > after, "{after} -> {with_net}");
    // Clips for the net alone move no Gaussian; the net reads no future frame when told,
    // and learns each clip as a stream normalises it too.
    let net_only = japanese_lines("net-only", 21..=30);
    let net_only_dir = net_only.to_str().unwrap();
    let extra = build(
        "net-extra.json",
        &[
            "--real-syllables",
            syl,
            "--context-net",
            "--net-labelled-dir",
            net_only_dir,
            "--net-future",
            "0",
            "--net-streamed",
        ],
    );
    for key in ["means", "precision", "subclasses", "global_mean"] {
        assert_eq!(
            extra[key], net[key],
            "{key}: moved by clips for the net alone"
        );
    }
    assert_eq!(extra["context_net"]["future"], 0);
    assert_ne!(extra["context_net"], net["context_net"]);
    let with_extra = score("net-extra.json");
    println!("with the net also taught 10 more lines, streamed: {with_extra:.1} %");
    assert!(with_extra > after, "{after} -> {with_extra}");
    // With the variants, --net-band teaches the net alone every clip through a narrow
    // channel too: the Gaussians are those of the same build without it.
    let variants = build("net-variants.json", &["--context-net", "--with-variants"]);
    let band = build(
        "net-band.json",
        &["--context-net", "--with-variants", "--net-band"],
    );
    for key in ["means", "precision", "subclasses", "global_mean"] {
        assert_eq!(band[key], variants[key], "{key}: moved by the net's band");
    }
    assert_ne!(band["context_net"], variants["context_net"]);
    // Calibrate with `args` is refused with a message that holds `says`.
    let refused = |args: &[&str], says: &str| {
        let o = omote()
            .args(["lipsync", "calibrate"])
            .args(args)
            .arg("-o")
            .arg(dir.join("x.json"))
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let lab = labelled.to_str().unwrap();
    refused(
        &[
            "--build",
            "--context-net",
            "--net-band",
            "--labelled-dir",
            lab,
        ],
        "--with-variants",
    );
    refused(
        &["--build", "--net-streamed", "--labelled-dir", lab],
        "--context-net",
    );
    refused(
        &["--context-net", "--labelled-dir", lab],
        "--context-net trains a net for a profile --build makes",
    );
    // Real voices teach --build only, and a bad share is named.
    refused(&["--real-syllables", syl], "teach a profile --build makes");
    refused(
        &["--build", "--real-share", "Y=0.1"],
        "`Y` is not one of the vowels",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn retarget_mixes_a_voice_into_the_mouth() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let Some(speech) = shared_data("speech") else {
        return;
    };
    let voice = speech.join("ja_ojt_001.wav");
    let vowels = |mix: &str| -> f32 {
        let out = scratch(&format!("voice-{mix}"));
        let status = omote()
            .arg("retarget")
            .arg(dir.join("astronaut_sequence.jsonl"))
            .arg("--voice")
            .arg(&voice)
            .args(["--mouth", mix, "--out"])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        let anim: omote_core::Anim =
            serde_json::from_str(&std::fs::read_to_string(out.join("retarget.anim.json")).unwrap())
                .unwrap();
        std::fs::remove_dir_all(&out).ok();
        ["aa", "ih", "ou", "ee", "oh"]
            .iter()
            .map(|v| {
                anim.expressions
                    .get(v)
                    .unwrap()
                    .iter()
                    .copied()
                    .fold(0.0, f32::max)
            })
            .fold(0.0, f32::max)
    };
    // The astronaut keeps her mouth shut; the voice opens it.
    assert!(vowels("tracking") < 0.15);
    assert!(vowels("voice-first") > 0.5);
}

#[test]
fn track_then_retarget_a_photo() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let out = scratch("track");
    let o = omote()
        .arg("track")
        .arg(dir.join("astronaut.png"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frame = omote_config::load_tracking_frame(&out.join("astronaut.json")).unwrap();
    assert_eq!(frame.faces.len(), 1);
    assert_eq!(frame.faces[0].landmarks.len(), 478);
    // Our tracker's output is what retarget reads: the smile comes through.
    assert!(frame.faces[0].blendshapes.get("mouthSmileLeft") > 0.7);
    let track_missing_into = |dir: &Path| {
        omote()
            .args(["track", "/nonexistent.png", "--out"])
            .arg(dir)
            .output()
            .unwrap()
    };
    let o = track_missing_into(&out);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent.png"));
    // Into a new folder: nothing tracked leaves no empty folder behind.
    let fresh = out.join("fresh");
    assert!(!track_missing_into(&fresh).status.success());
    assert!(!fresh.exists(), "an empty output folder was left");
    // An output "folder" that is a file is refused by name.
    let o = track_missing_into(&out.join("astronaut.json"));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        e.contains("astronaut.json: cannot be the output folder"),
        "{e}"
    );
    // A new .jsonl "folder" is video's output file mistaken for one: refused, not made.
    let o = track_missing_into(&out.join("faces.jsonl"));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        e.contains("faces.jsonl: images write one NAME.json each"),
        "{e}"
    );
    assert!(!out.join("faces.jsonl").exists());
    std::fs::remove_dir_all(&out).ok();
}

/// A batch of photos goes through the decode-ahead and write-behind threads: every
/// result equals the photo tracked alone, a broken file in the middle is reported by
/// name and counted while the others are still written, and overlays come out too.
#[test]
fn track_a_batch_of_photos_with_a_broken_one() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let out = scratch("track-batch");
    std::fs::create_dir_all(&out).unwrap();
    let broken = out.join("broken.png");
    std::fs::write(&broken, b"\x89PNG\r\n\x1a\n not really").unwrap();
    let names = [
        "astronaut",
        "messi",
        "astronaut_rot+15",
        "messi_dark",
        "astronaut_mirror",
    ];
    let mut args: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.png"))).collect();
    args.insert(2, broken.clone());
    let batch = out.join("batch");
    let o = omote()
        .arg("track")
        .args(&args)
        .arg("--overlay")
        .arg("--out")
        .arg(&batch)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("broken.png"), "{err}");
    assert!(err.contains("1 of 6 images failed"), "{err}");
    assert!(err.contains("5 of 6 images tracked, a face in "), "{err}");
    assert!(!batch.join("broken.json").exists());
    for n in names {
        let alone = out.join(format!("alone-{n}"));
        let o = omote()
            .arg("track")
            .arg(dir.join(format!("{n}.png")))
            .arg("--out")
            .arg(&alone)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json = format!("{n}.json");
        assert_eq!(
            std::fs::read(batch.join(&json)).unwrap(),
            std::fs::read(alone.join(&json)).unwrap(),
            "{n}: the batch result differs from the photo tracked alone"
        );
        let overlay = image::open(batch.join(format!("{n}.overlay.png"))).unwrap();
        let photo = image::open(dir.join(format!("{n}.png"))).unwrap();
        assert_eq!(
            (overlay.width(), overlay.height()),
            (photo.width(), photo.height())
        );
        let faces = omote_config::load_tracking_frame(&batch.join(&json))
            .unwrap()
            .faces
            .len();
        let drawn = overlay.to_rgb8() != photo.to_rgb8();
        assert_eq!(drawn, faces > 0, "{n}: {faces} faces, drawn: {drawn}");
    }
    // No temporary files left behind by the writers.
    for e in std::fs::read_dir(&batch).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains("partial"), "{name}");
    }
    // A video's frames as a folder, one of them broken: the frame is named, not the
    // output as if writing it had failed, and no partial file is left.
    let frames = out.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    std::fs::copy(dir.join("astronaut.png"), frames.join("000001.png")).unwrap();
    std::fs::copy(&broken, frames.join("000002.png")).unwrap();
    let seq = out.join("seq.jsonl");
    let o = omote()
        .args(["track", "--frames"])
        .arg(&frames)
        .args(["--fps", "30", "--out"])
        .arg(&seq)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("000002.png"), "{err}");
    assert!(!err.contains("cannot write"), "{err}");
    assert!(!seq.exists());
    std::fs::remove_dir_all(&out).ok();
}

/// Runs `omote lipsync live ARGS` with `stdin_bytes` piped in; returns (status, stdout).
fn lipsync_live(args: &[&str], stdin_bytes: Vec<u8>) -> (std::process::ExitStatus, String) {
    use std::io::Write;
    let mut child = omote()
        .args(["lipsync", "live"])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Feed in 10 ms pieces from another thread, like a capture tool would.
    let feeder = std::thread::spawn(move || {
        for piece in stdin_bytes.chunks(1764) {
            if stdin.write_all(piece).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (o.status, String::from_utf8(o.stdout).unwrap())
}

#[test]
fn lipsync_live_reads_raw_pcm_from_stdin() {
    // 1.2 s at 44.1 kHz, stereo s16le: silence, a buzz from 0.3 to 0.9 s, silence.
    let mono = buzz(44_100, 1.2, 0.3..0.9);
    let bytes: Vec<u8> = mono
        .iter()
        .flat_map(|s| {
            let b = s.to_le_bytes();
            [b[0], b[1], b[0], b[1]]
        })
        .collect();
    let (_, tsv) = lipsync_live(&["--rate", "44100", "--channels", "2"], bytes);
    let mut lines = tsv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "time\tA\tI\tU\tE\tO\tN\tvolume\tsilent"
    );
    let rows: Vec<(f64, bool)> = lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 9, "{l}");
            (c[0].parse().unwrap(), c[8] == "1")
        })
        .collect();
    assert!(
        (118..=121).contains(&rows.len()),
        "one row per 10 ms: {}",
        rows.len()
    );
    let voiced: Vec<f64> = rows.iter().filter(|r| !r.1).map(|r| r.0).collect();
    let (first, last) = (voiced[0], *voiced.last().unwrap());
    assert!((first - 0.3).abs() < 0.05, "voice starts at {first}");
    assert!((last - 0.9).abs() < 0.06, "voice ends at {last}");

    // JSON Lines: every line parses, weights sum to at most 1.
    let bytes: Vec<u8> = mono.iter().flat_map(|s| s.to_le_bytes()).collect();
    let (_, jsonl) = lipsync_live(&["--rate", "44100", "--format", "jsonl"], bytes);
    for l in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let sum: f64 = v["w"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .sum();
        assert!(sum <= 1.0 + 1e-3, "{l}");
    }
}

#[test]
fn lipsync_live_finds_the_voice_in_real_speech() {
    let Some(dir) = shared_data("speech") else {
        return;
    };
    let wav = std::fs::read(dir.join("ja_ojt_001.wav")).unwrap();
    // The PCM after the "data" chunk header (48 kHz mono s16le).
    let at = wav.windows(4).position(|w| w == b"data").unwrap() + 8;
    let (_, tsv) = lipsync_live(&["--rate", "48000"], wav[at..].to_vec());
    let labels = std::fs::read_to_string(dir.join("ja_ojt_001.lab.tsv")).unwrap();
    let speech: Vec<(f64, f64)> = labels
        .lines()
        .skip(1)
        .filter(|l| !l.contains("\tS\t"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[0].parse().unwrap(), c[1].parse().unwrap())
        })
        .collect();
    let voiced: Vec<f64> = tsv
        .lines()
        .skip(1)
        .filter(|l| l.ends_with("\t0"))
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    let start = speech[0].0;
    assert!(
        (voiced[0] - start).abs() < 0.05,
        "live voice starts at {}, labels at {start}",
        voiced[0]
    );
    assert!(*voiced.last().unwrap() <= speech.last().unwrap().1 + 0.05);
}

/// `omote vmc listen` recording into `rec` at `fps` until `idle` seconds without
/// packets; returns once it has had time to bind.
fn spawn_vmc_listener(addr: &str, fps: &str, idle: &str, rec: &Path) -> std::process::Child {
    let child = omote()
        .args([
            "vmc", "listen", "--bind", addr, "--fps", fps, "--idle", idle,
        ])
        .args(["--seconds", "60", "--record"])
        .arg(rec)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child
}

/// `omote vmc send DEMO ARGS` into a recording `omote vmc listen`: what it recorded.
fn vmc_round_trip(out: &Path, demo: &Path, args: &[&str]) -> serde_json::Value {
    let port = free_udp_port();
    let addr = format!("127.0.0.1:{port}");
    let rec = out.join(format!("rec-{port}.anim.json"));
    let listener = spawn_vmc_listener(&addr, "60", "1.5", &rec);
    let o = omote()
        .args(["vmc", "send"])
        .arg(demo)
        .args(["--to", &addr, "--speed", "4"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let l = listener.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&l.stderr);
    assert!(l.status.success(), "{err}");
    // The summary says which bones came, beside the blend shapes.
    assert!(err.contains("bones: Head"), "{err}");
    serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap()
}

/// How many of `got`'s values equal `want`'s, in all values and in those where `want`
/// and `other` differ (the frames that tell which of the two was sent).
fn equal_values(
    want: &serde_json::Value,
    other: &serde_json::Value,
    got: &serde_json::Value,
) -> ((usize, usize), (usize, usize)) {
    let (want, other, got) = (
        want.as_object().unwrap(),
        other.as_object().unwrap(),
        got.as_object().unwrap(),
    );
    assert_eq!(want.len(), got.len());
    let (mut all, mut telling) = ((0, 0), (0, 0));
    for (name, track) in want {
        let back = got[name]
            .as_array()
            .unwrap_or_else(|| panic!("{name} missing"));
        let others = other[name].as_array().unwrap();
        for ((a, b), o) in track.as_array().unwrap().iter().zip(back).zip(others) {
            let (a, b, o) = (
                a.as_f64().unwrap(),
                b.as_f64().unwrap(),
                o.as_f64().unwrap(),
            );
            let same = usize::from((a - b).abs() < 1e-6);
            all = (all.0 + same, all.1 + 1);
            if (a - o).abs() > 1e-3 {
                telling = (telling.0 + same, telling.1 + 1);
            }
        }
    }
    (all, telling)
}

/// An anim that blinks under an emotion with the ARKit lids alone (the built-in
/// avatar's way) is sent with a warning: a model without those clips does not blink
/// there. One that blinks with the VRM presets is sent without.
#[test]
fn vmc_send_warns_when_blinks_live_on_the_arkit_lids_alone() {
    let out = scratch("vmc-lids");
    std::fs::create_dir_all(&out).unwrap();
    let o = omote().arg("demo").arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let idle = out.join("idle.anim.json");
    let o = omote()
        .args(["simulate", "--seconds", "20", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::rename(out.join("simulate.anim.json"), &idle).unwrap();
    let sink = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = sink.local_addr().unwrap().to_string();
    let send = |anim: &Path| {
        let o = omote()
            .args(["vmc", "send"])
            .arg(anim)
            .args(["--to", &to, "--speed", "16"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        err
    };
    let err = send(&out.join("aoi.anim.json"));
    assert!(
        err.contains("blinks with ARKit eyeBlinkLeft/Right alone"),
        "{err}"
    );
    let err = send(&idle);
    assert!(!err.contains("warning"), "{err}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn vmc_send_to_listen_round_trips_the_demo() {
    let out = scratch("vmc");
    std::fs::create_dir_all(&out).unwrap();
    let o = omote().arg("demo").arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // beni speaks a line under mock surprise: the override rules narrow her mouth.
    let demo = out.join("beni.anim.json");
    let got = vmc_round_trip(&out, &demo, &[]);
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&demo).unwrap()).unwrap();
    let n = sent["head"].as_array().unwrap().len();
    let m = got["head"].as_array().unwrap().len();
    assert!(m + 2 >= n && m <= n, "recorded {m} of {n} frames");
    // Every expression comes back under its VRM 1.0 name, frame for frame (UDP on
    // loopback may drop a packet under load: then that frame holds the previous value).
    // With VRM 0.x names (the default) the weights are what the face shows, after the
    // override rules (0.x models have none); with VRM 1.0 names the input before them
    // (1.0 models apply the rules).
    let (input, applied) = (&sent["expressions"], &sent["appliedExpressions"]);
    let enough = |(equal, total): (usize, usize), what: &str| {
        assert!(
            equal as f64 >= 0.98 * total as f64,
            "{what}: {equal} of {total} values equal"
        );
    };
    let (all, telling) = equal_values(applied, input, &got["expressions"]);
    enough(all, "vrm0 names, applied");
    enough(
        telling,
        "vrm0 names, applied where it differs from the input",
    );
    assert!(telling.1 >= 20, "only {} telling values", telling.1);
    let got1 = vmc_round_trip(&out, &demo, &["--names", "vrm1"]);
    let (all, telling) = equal_values(input, applied, &got1["expressions"]);
    enough(all, "vrm1 names, input");
    enough(
        telling,
        "vrm1 names, input where it differs from the applied",
    );
    let got2 = vmc_round_trip(&out, &demo, &["--weights", "input"]);
    enough(
        equal_values(input, applied, &got2["expressions"]).1,
        "vrm0 names, --weights input",
    );
    // The head comes back through the Unity axis conversion and out again.
    let (sh, gh) = (&sent["head"][n / 2], &got["head"][n / 2]);
    let dot: f64 = (0..4)
        .map(|k| sh[k].as_f64().unwrap() * gh[k].as_f64().unwrap())
        .sum();
    assert!(dot.abs() > 1.0 - 1e-5, "head {sh} vs {gh}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn vmc_listen_reports_a_busy_port_and_send_a_bad_anim() {
    let busy = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let o = omote()
        .args(["vmc", "listen", "--bind", &addr, "--seconds", "1"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains(&addr));
    let out = scratch("vmc-bad");
    std::fs::create_dir_all(&out).unwrap();
    let bad = out.join("bad.anim.json");
    std::fs::write(&bad, "{\"format\": \"omote-anim\"").unwrap();
    let o = omote()
        .args(["vmc", "send"])
        .arg(&bad)
        .args(["--to", "127.0.0.1:9"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.anim.json"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn lipsync_live_drives_a_vmc_marionette() {
    let out = scratch("live-vmc");
    std::fs::create_dir_all(&out).unwrap();
    let addr = format!("127.0.0.1:{}", free_udp_port());
    let rec = out.join("mouth.anim.json");
    let listener = spawn_vmc_listener(&addr, "100", "1", &rec);
    let bytes: Vec<u8> = buzz(16_000, 1.2, 0.3..0.9)
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    lipsync_live(&["--vmc", &addr], bytes);
    let l = listener.wait_with_output().unwrap();
    assert!(l.status.success(), "{}", String::from_utf8_lossy(&l.stderr));
    let got: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let x = got["expressions"].as_object().unwrap();
    let names: Vec<&str> = x.keys().map(String::as_str).collect();
    for v in ["aa", "ih", "ou", "ee", "oh"] {
        assert!(names.contains(&v), "{v} not received: {names:?}");
    }
    let mouth = |i: usize| -> f64 {
        ["aa", "ih", "ou", "ee", "oh"]
            .iter()
            .map(|v| x[*v][i].as_f64().unwrap())
            .sum()
    };
    let frames = got["head"].as_array().unwrap().len();
    assert!((115..=121).contains(&frames), "{frames} frames");
    assert_eq!(mouth(10), 0.0, "silence keeps the mouth shut");
    assert!(mouth(60) > 0.3, "the buzz opens the mouth: {}", mouth(60));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn speak_hands_the_mouth_over_and_ramps_the_afterglow() {
    let out = scratch("speak");
    std::fs::create_dir_all(&out).unwrap();
    // Voice from 0.3 to 0.9 s of the file; the scene starts the file at 0.3 s.
    let wav = out.join("line.wav");
    write_wav16(&wav, 22_050, &buzz(22_050, 1.2, 0.3..0.9));
    let o = omote()
        .arg("speak")
        .arg(&wav)
        .args(["--expression", "relaxed=0.5", "--then", "happy=1"])
        .args(["--afterglow", "mouthSmileLeft=0.3", "--fps", "100", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("speak.png").is_file());
    // No --rig: the built-in avatar, every command's default, which is a VRM.
    assert!(
        out.join("speak.vrma").is_file(),
        "the built-in avatar's VRMA"
    );
    let anim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("speak.anim.json")).unwrap())
            .unwrap();
    let track = |name: &str| -> Vec<f64> {
        anim["expressions"][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let vowels: Vec<Vec<f64>> = ["aa", "ih", "ou", "ee", "oh"].map(track).to_vec();
    let mouth = |i: usize| vowels.iter().map(|v| v[i]).sum::<f64>();
    let (smile, happy, relaxed) = (track("mouthSmileLeft"), track("happy"), track("relaxed"));
    let at = |t: f64| (t * 100.0).round() as usize;
    // Closed before the voice (scene 0.6 s), open while it is voiced.
    assert_eq!(mouth(at(0.5)), 0.0);
    assert!(mouth(at(0.8)) > 0.3, "{}", mouth(at(0.8)));
    // Hand-over from 0.2 s before the voice ends (scene 1.2 s): still open at 1.05 s,
    // gone by 1.25 s, never a jump (the layer fades over 0.2 s).
    assert!(mouth(at(1.05)) > 0.1);
    assert!(mouth(at(1.25)) < 1e-3);
    for i in at(0.95)..at(1.3) {
        assert!(
            (mouth(i + 1) - mouth(i)).abs() < 0.08,
            "jump at {} s: {} -> {}",
            i as f64 / 100.0,
            mouth(i),
            mouth(i + 1)
        );
    }
    // The acting crossfades relaxed → happy over the hand-over.
    assert!((relaxed[at(0.8)] - 0.5).abs() < 1e-3 && happy[at(0.8)] < 1e-3);
    assert!(happy[at(1.25)] > 0.99 && relaxed[at(1.25)] < 1e-3);
    // The afterglow is 0 until the hand-over, ramps over 0.5 s, then holds its value.
    assert_eq!(smile[at(0.95)], 0.0);
    assert!(smile[at(1.25)] > 0.05 && smile[at(1.25)] < 0.25);
    assert!((smile[anim["head"].as_array().unwrap().len() - 1] - 0.3).abs() < 1e-3);
    // An unknown expression is named.
    let o = omote()
        .arg("speak")
        .arg(&wav)
        .args(["--then", "smug=1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("smug"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn live_on_stdin_tracks_as_omote_track_does_and_records_the_face() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let out = scratch("live");
    std::fs::create_dir_all(&out).unwrap();
    let frames = raw_frames(&dir.join("astronaut.png"), 12, 9);
    let seq = out.join("seq.jsonl");
    let o = run_with_stdin(
        omote()
            .args(["track", "--stdin", "640x480", "--fps", "30", "--out"])
            .arg(&seq),
        frames.clone(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // An empty pipe is an error, not an empty sequence.
    let empty = out.join("empty.jsonl");
    let o = run_with_stdin(
        omote()
            .args(["track", "--stdin", "640x480", "--fps", "30", "--out"])
            .arg(&empty),
        Vec::new(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("no frames came in"), "{err}");
    assert!(!empty.exists());
    let live = out.join("live.anim.json");
    let live_seq = out.join("live.jsonl");
    let port = free_udp_port();
    // Paced as a camera pipe delivers (30 fps): the recording follows the wall clock, and
    // twelve frames written at once are tracked in a ~0.1 s burst in which the smoothed
    // head barely turns.
    let o = run_with_paced_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--fps", "30", "--record"])
            .arg(&live)
            .arg("--record-tracking")
            .arg(&live_seq)
            .args(["--vmc", &format!("127.0.0.1:{port}")]),
        frames,
        640 * 480 * 3,
        std::time::Duration::from_millis(33),
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // Every frame tracked, in order, exactly as `omote track` does (so `omote retarget`
    // of the live tracking gives the offline result).
    assert_eq!(
        std::fs::read_to_string(&seq).unwrap(),
        std::fs::read_to_string(&live_seq).unwrap()
    );
    assert!(
        stderr.contains("input stdin: 12 results (9 with a face)"),
        "{stderr}"
    );
    // The face turned the head while tracked; the recording is finite throughout.
    let anim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&live).unwrap()).unwrap();
    let heads = anim["head"].as_array().unwrap();
    assert!(!heads.is_empty());
    assert!(
        // About 12° here; 3.6° is cos(θ/2) = 0.9995.
        heads.iter().any(|q| q[3].as_f64().unwrap() < 0.9995),
        "head did not move"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn live_takes_a_microphone_for_the_mouth() {
    let Some(dir) = shared_data("tracking") else {
        return;
    };
    let out = scratch("live-voice");
    std::fs::create_dir_all(&out).unwrap();
    // 0.6 s of camera (18 frames at 30 fps) and a "voice" from 0.2 to 0.45 s.
    let frames = raw_frames(&dir.join("astronaut.png"), 18, 18);
    let pcm = out.join("mic.raw");
    let voice: Vec<u8> = buzz(16_000, 0.6, 0.2..0.45)
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    std::fs::write(&pcm, voice).unwrap();
    let rec = out.join("live.anim.json");
    // One second of session at 30 recorded frames per second, whatever the tracker's pace.
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--fps", "30", "--voice"])
            .arg(&pcm)
            .args(["--seconds", "1", "--record-fps", "30", "--record"])
            .arg(&rec),
        frames,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let anim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let mouth = |i: usize| -> f64 {
        ["aa", "ih", "ou", "ee", "oh"]
            .iter()
            .map(|v| anim["expressions"][*v][i].as_f64().unwrap())
            .sum()
    };
    println!("mouth: {:.3} {:.3} {:.3}", mouth(3), mouth(11), mouth(22));
    // Before the voice the mouth is (almost) shut; while the voice sounds it opens;
    // after it, it closes again.
    assert!(mouth(3) < 0.1, "before the voice: {}", mouth(3));
    assert!(mouth(11) > 0.3, "during the voice: {}", mouth(11));
    assert!(
        mouth(22) < mouth(11) * 0.5,
        "after the voice: {}",
        mouth(22)
    );
    // --voice-profile is the profile the voice is read with: one whose closed mouth
    // always wins keeps the mouth shut through the same voice; a missing one is named.
    let mut shut = read_json(&repo().join("crates/omote-lipsync/assets/default_profile.json"));
    shut["bias"][5] = serde_json::json!(50.0);
    let shut_path = out.join("shut.json");
    std::fs::write(&shut_path, shut.to_string()).unwrap();
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--fps", "30", "--voice"])
            .arg(&pcm)
            .arg("--voice-profile")
            .arg(&shut_path)
            .args(["--seconds", "1", "--record-fps", "30", "--record"])
            .arg(&rec),
        raw_frames(&dir.join("astronaut.png"), 18, 18),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let anim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let shut_mouth: f64 = ["aa", "ih", "ou", "ee", "oh"]
        .iter()
        .map(|v| anim["expressions"][*v][11].as_f64().unwrap())
        .sum();
    assert!(shut_mouth < 0.05, "with the shut profile: {shut_mouth}");
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--voice"])
            .arg(&pcm)
            .arg("--voice-profile")
            .arg(out.join("missing.json")),
        Vec::new(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.json: cannot read profile"));
    // A profile with no voice to read is a mistake, not ignored.
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--voice-profile"])
            .arg(&shut_path),
        Vec::new(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--voice-profile reads a voice"));
    // A voice file that is not there is named.
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "640x480", "--voice"])
            .arg(out.join("missing.raw")),
        Vec::new(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.raw"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn convert_notes_that_a_version_1_anim_is_after_the_override_rules() {
    let out = scratch("convert-v1");
    std::fs::create_dir_all(&out).unwrap();
    let o = omote().arg("demo").arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let demo = out.join("aoi.anim.json");
    let mut v1: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&demo).unwrap()).unwrap();
    let applied = v1["appliedExpressions"].take();
    v1["expressions"] = applied;
    v1.as_object_mut().unwrap().remove("appliedExpressions");
    v1["version"] = 1.into();
    let v1_path = out.join("v1.anim.json");
    std::fs::write(&v1_path, serde_json::to_vec(&v1).unwrap()).unwrap();
    for (anim, noted) in [(&demo, false), (&v1_path, true)] {
        let o = omote()
            .arg("convert")
            .arg(anim)
            .arg("-o")
            .arg(out.join("out.vrma"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert_eq!(err.contains("version-1 anim"), noted, "{err}");
        assert!(!err.contains("no expression named"), "{err}");
    }
    // Onto a VRM with two expressions: the others are named once, and left out.
    if let Some(small) = shared_data("vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm") {
        let o = omote()
            .arg("convert")
            .arg(&demo)
            .arg("--rig")
            .arg(&small)
            .arg("-o")
            .arg(out.join("small.vrma"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains("isBinary_Overrides.vrm has no expression named aa, ")
                && !err.contains("lookUp")
                && err.contains("; not written"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bake_writes_every_character_the_same_bytes_twice_and_follows_the_press_script() {
    let (a, b, c) = (scratch("bake-a"), scratch("bake-b"), scratch("bake-c"));
    for dir in [&a, &b] {
        let o = omote()
            .arg("bake")
            .arg(demo_scene())
            .arg("--out")
            .arg(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in [
        "aoi.anim.json",
        "beni.anim.json",
        "aoi.vrma",
        "beni.vrma",
        "aoi.png",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // The player sits on beni's line for 3 s before pressing: everything after moves.
    let o = omote()
        .arg("bake")
        .arg(demo_scene())
        .args(["--advance", "12.5", "--fps", "30", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let anim: omote_core::Anim =
        serde_json::from_str(&std::fs::read_to_string(c.join("aoi.anim.json")).unwrap()).unwrap();
    assert_eq!(anim.fps, 30.0);
    let second = anim
        .events
        .iter()
        .filter_map(|e| match e {
            omote_core::anim::AnimEvent::Voice { t, .. } => Some(*t),
            _ => None,
        })
        .nth(1)
        .unwrap();
    // Timeline: the wait at 9.26 s, aoi's line at 9.6 s; pressed at 12.5 s.
    assert!(
        (second - (12.5 + 0.34)).abs() < 0.06,
        "aoi's second line at {second}"
    );
    for dir in [&a, &b, &c] {
        std::fs::remove_dir_all(dir).ok();
    }
}

#[test]
fn bake_refuses_bad_scenes_and_presses_with_the_file_line_and_field() {
    let dir = scratch("bake-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("bad.toml");
    std::fs::write(
        &scene,
        "[[character]]\nid = \"x\"\n[[character.line]]\nt = 0\naudio = \"gone.wav\"\n",
    )
    .unwrap();
    let o = omote()
        .arg("bake")
        .arg(&scene)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml:5") && err.contains("gone.wav") && err.contains("line[0].audio"),
        "{err}"
    );
    assert!(
        !dir.join("out").exists(),
        "nothing is written for a bad scene"
    );
    let o = omote()
        .arg("bake")
        .arg(demo_scene())
        .args(["--advance", "nan", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--advance"));
    // A word where a time goes is named as the viewer's `/bake?advance=` names it.
    let o = omote()
        .arg("bake")
        .arg(demo_scene())
        .args(["--skip", "3,abc", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("`abc` is not a time in seconds"), "{err}");
    // The scene itself given as the output folder is named as such, before any work.
    let copy = dir.join("scene.toml");
    std::fs::copy(demo_scene(), &copy).unwrap();
    let o = omote()
        .arg("bake")
        .arg(demo_scene())
        .arg("--out")
        .arg(&copy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("scene.toml: cannot be the output folder: it exists and is not a folder"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
