//! The `omote` binary end to end.

use std::path::PathBuf;
use std::process::Command;

fn omote() -> Command {
    Command::new(env!("CARGO_BIN_EXE_omote"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omote-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn demo_writes_a_valid_anim_and_a_plot() {
    let out = scratch("demo");
    let status = omote().args(["demo", "--out"]).arg(&out).status().unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(out.join("demo.anim.json")).unwrap();
    let anim: omote_core::Anim = serde_json::from_str(&text).unwrap();
    anim.validate().unwrap();
    assert_eq!(anim.fps, 60.0);
    assert_eq!(anim.frames(), 480);
    // Every channel of the built-in rig is present, one value per frame.
    assert_eq!(anim.expressions.0.len(), omote_core::Rig::standard().len());
    // The acting shows: a full smile, a spoken line, blinks, a glance.
    let max = |name: &str| {
        anim.expressions
            .get(name)
            .unwrap()
            .iter()
            .copied()
            .fold(0.0, f32::max)
    };
    assert!(max("happy") > 0.99);
    for vowel in ["aa", "ih", "ou", "ee", "oh"] {
        assert!(max(vowel) > 0.5, "{vowel} never opens");
    }
    assert!(max("blink") > 0.99);
    assert!(anim.look_at.iter().any(|g| g[0] > 15.0));
    // Overrides hold: while fully surprised (overrideMouth blend) the mouth is shut.
    let surprised = anim.expressions.get("surprised").unwrap();
    for (i, s) in surprised.iter().enumerate() {
        if *s > 0.999 {
            for vowel in ["aa", "ih", "ou", "ee", "oh"] {
                assert_eq!(anim.expressions.get(vowel).unwrap()[i], 0.0);
            }
        }
    }
    let png = std::fs::read(out.join("demo.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn demo_is_deterministic() {
    let (a, b) = (scratch("det-a"), scratch("det-b"));
    for dir in [&a, &b] {
        assert!(
            omote()
                .args(["demo", "--seed", "3", "--out"])
                .arg(dir)
                .status()
                .unwrap()
                .success()
        );
    }
    let ja = std::fs::read(a.join("demo.anim.json")).unwrap();
    let jb = std::fs::read(b.join("demo.anim.json")).unwrap();
    assert_eq!(ja, jb);
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fps must be between"));
    let out = omote()
        .args(["demo", "--out", "/proc/omote-cannot-write-here"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/proc/omote-cannot-write-here"), "{err}");
}

fn shared_tracking() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/tracking"
    ));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIP: {} not found", dir.display());
        None
    }
}

#[test]
fn retarget_writes_anim_and_plot_from_a_real_sequence() {
    let Some(dir) = shared_tracking() else { return };
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
