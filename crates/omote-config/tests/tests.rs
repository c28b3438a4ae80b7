//! Reading data files: good files load, bad files give errors naming file and field.

use std::path::{Path, PathBuf};

use omote_config::{ConfigError, load_anim, load_clip, load_curve, load_rig};
use omote_core::rig::{LookAtType, OverrideMode};
use omote_core::{ExpressionPreset, Rig};

/// A scratch directory unique to this test process.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omote-config-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn err_text(e: ConfigError) -> String {
    e.to_string()
}

#[test]
fn toml_rig_loads_with_vrm_field_names() {
    let path = write(
        "good.toml",
        r#"
name = "chibi"
presets = true
arkit = true

[[expressions]]
name = "happy"
overrideBlink = "blend"
eyeClosure = 0.3

[[expressions]]
name = "wink"
isBinary = true
overrideBlink = "block"

[lookAt]
type = "expression"
rangeMapHorizontalInner = { inputMaxValue = 90, outputScale = 1 }
rangeMapHorizontalOuter = { inputMaxValue = 90, outputScale = 1 }
rangeMapVerticalDown = { inputMaxValue = 45, outputScale = 1 }
rangeMapVerticalUp = { inputMaxValue = 45, outputScale = 1 }
"#,
    );
    let rig = load_rig(&path).unwrap();
    assert_eq!(rig.len(), 18 + 52 + 1);
    let happy = rig.info(rig.preset(ExpressionPreset::Happy).unwrap());
    assert_eq!(happy.desc.override_blink, OverrideMode::Blend);
    assert!(rig.info(rig.channel("wink").unwrap()).desc.is_binary);
    assert_eq!(rig.look_at().kind, LookAtType::Expression);
    assert_eq!(rig.look_at().range_map_vertical_up.input_max_value, 45.0);
}

#[test]
fn json_rig_round_trips_through_to_desc() {
    let rig = Rig::standard();
    let path = write(
        "standard.json",
        &serde_json::to_string_pretty(&rig.to_desc()).unwrap(),
    );
    let back = load_rig(&path).unwrap();
    assert_eq!(back.len(), rig.len());
    for ((_, a), (_, b)) in rig.channels().zip(back.channels()) {
        assert_eq!(a, b);
    }
}

#[test]
fn wrong_type_names_file_and_field() {
    let path = write(
        "bad-type.toml",
        "presets = true\n[[expressions]]\nname = \"a\"\n[[expressions]]\nname = \"b\"\nisBinary = \"yes\"\n",
    );
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(msg.contains("bad-type.toml"), "{msg}");
    assert!(msg.contains("expressions[1].isBinary"), "{msg}");
}

#[test]
fn unknown_override_mode_and_unknown_field_are_reported() {
    let path = write(
        "bad-mode.json",
        r#"{"expressions":[{"name":"a","overrideMouth":"sometimes"}]}"#,
    );
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(
        msg.contains("expressions[0].overrideMouth") && msg.contains("sometimes"),
        "{msg}"
    );
    let path = write(
        "typo.json",
        r#"{"expressions":[{"name":"a","isBinnary":true}]}"#,
    );
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(msg.contains("isBinnary"), "{msg}");
}

#[test]
fn invalid_content_is_reported() {
    let path = write("dup.json", r#"{"expressions":[{"name":"a"},{"name":"a"}]}"#);
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(
        msg.contains("dup.json") && msg.contains("`a` appears more than once"),
        "{msg}"
    );
    let m = r#"{"inputMaxValue": 90, "outputScale": -3}"#;
    let ok = r#"{"inputMaxValue": 90, "outputScale": 10}"#;
    let path = write(
        "range.json",
        &format!(
            r#"{{"lookAt":{{"type":"bone","rangeMapHorizontalInner":{ok},"rangeMapHorizontalOuter":{m},"rangeMapVerticalDown":{ok},"rangeMapVerticalUp":{ok}}}}}"#
        ),
    );
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(msg.contains("lookAt.rangeMapHorizontalOuter"), "{msg}");
    let path = write(
        "closure.json",
        r#"{"expressions":[{"name":"a","eyeClosure":1.5}]}"#,
    );
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(msg.contains("expressions[0].eyeClosure"), "{msg}");
}

#[test]
fn syntax_errors_missing_files_and_unknown_extensions() {
    let path = write("broken.toml", "name = \n");
    let msg = err_text(load_rig(&path).unwrap_err());
    assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    let path = write("broken.json", "{\"name\": ");
    assert!(err_text(load_rig(&path).unwrap_err()).contains("broken.json"));
    let msg = err_text(load_rig(Path::new("/nonexistent/rig.toml")).unwrap_err());
    assert!(msg.contains("/nonexistent/rig.toml"), "{msg}");
    let path = write("rig.yaml", "name: x");
    assert!(err_text(load_rig(&path).unwrap_err()).contains("unknown file type"));
    // A mistyped name is a missing file first, whatever its extension.
    let err = load_rig(Path::new("/nonexistent/rig.tmol")).unwrap_err();
    assert!(
        matches!(&err, omote_config::ConfigError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound),
        "{err}"
    );
    let path = write("empty.json", "");
    assert!(err_text(load_rig(&path).unwrap_err()).contains("empty.json"));
}

#[test]
fn bad_curves_name_the_key() {
    let path = write(
        "c.json",
        r#"{"keys":[{"t":0,"v":0},{"t":0.5,"v":1},{"t":0.5,"v":0}]}"#,
    );
    let msg = err_text(load_curve(&path).unwrap_err());
    assert!(msg.contains("c.json") && msg.contains("keys[2].t"), "{msg}");
    let path = write("p.toml", "keys = [{t = 0, v = 0}, {t = 1, v = \"high\"}]");
    let msg = err_text(load_curve(&path).unwrap_err());
    assert!(msg.contains("p.toml"), "{msg}");
    let path = write(
        "ok.toml",
        "keys = [{t = 0, v = 0, out = 0}, {t = 1, v = 1, in = 2}]",
    );
    let c = load_curve(&path).unwrap();
    assert!((c.eval(0.5) - 0.25).abs() < 1e-6);
}

#[test]
fn clips_resolve_against_the_rig() {
    let rig = Rig::standard();
    let path = write(
        "clip.toml",
        "[tracks]\nhappy = \"smoothstep\"\nnotAChannel = \"linear\"\n",
    );
    let msg = err_text(load_clip(&path, &rig).unwrap_err());
    assert!(msg.contains("tracks.notAChannel"), "{msg}");
}

#[test]
fn anims_are_validated() {
    let path = write(
        "a.json",
        r#"{"format":"omote-anim","version":1,"fps":30,"duration":0.1,"expressions":{"aa":[0,1]},
            "head":[[0,0,0,1],[0,0,0,1],[0,0,0,1]],"leftEye":[],"rightEye":[],"lookAt":[]}"#,
    );
    let msg = err_text(load_anim(&path).unwrap_err());
    assert!(
        msg.contains("expressions.aa has 2 frames, expected 3"),
        "{msg}"
    );
}

/// A file that is plainly something else is named for what it is, not by the first
/// field an anim does not have; an anim with a bad field still gets the field's error.
#[test]
fn a_file_that_is_not_an_anim_is_named_for_what_it_is() {
    let cases = [
        (
            write(
                "line.lipsync.json",
                r#"{"format":"omote-lipsync-track/1","source":"a.wav","fps":100.0,"frames":[]}"#,
            ),
            "a `omote-lipsync-track/1` file, not an anim",
        ),
        (
            write(
                "line.rhubarb.json",
                r#"{"metadata":{"soundFile":"a.wav","duration":1.0},"mouthCues":[]}"#,
            ),
            "a Rhubarb lip sync export, not an anim",
        ),
        (write("empty.anim.json", " \n"), "the file is empty"),
        (
            write("scene.toml", "[[character]]\nid = \"aoi\"\n"),
            "a TOML file, not an anim",
        ),
        (write("voice.wav", "RIFF"), "not an anim"),
    ];
    // A real recording (binary) is not called empty.
    let wav = write("binary.wav", "");
    let mut bytes = b"RIFF\x24\x00\x00\x00WAVEfmt ".to_vec();
    bytes.extend([
        0x10, 0, 0, 0, 1, 0, 1, 0, 0x80, 0x3e, 0, 0, 0, 0x7d, 0, 0, 2, 0, 16, 0,
    ]);
    bytes.extend([0xff, 0xfe, 0x80, 0x81]);
    std::fs::write(&wav, bytes).unwrap();
    let msg = err_text(load_anim(&wav).unwrap_err());
    assert!(msg.contains("not text") && !msg.contains("empty"), "{msg}");
    assert!(msg.contains("omote bake"), "{msg}");
    for (path, says) in cases {
        let msg = err_text(load_anim(&path).unwrap_err());
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains(says), "{msg}");
        assert!(msg.contains("omote bake"), "how an anim is made: {msg}");
    }
    let path = write(
        "typo.anim.json",
        r#"{"format":"omote-anim","version":1,"fps":30,"duration":0.1,"expresions":{}}"#,
    );
    let msg = err_text(load_anim(&path).unwrap_err());
    assert!(
        msg.contains("expresions") && !msg.contains("not an anim"),
        "{msg}"
    );
}

#[test]
fn tracking_sequences_report_the_bad_line() {
    let good = r#"{"width":640,"height":480,"faces":[]}"#;
    let path = write(
        "seq.jsonl",
        &format!("{good}\n\n{good}\n{{\"width\":640,\"height\":\"tall\",\"faces\":[]}}\n"),
    );
    let msg = err_text(omote_config::load_tracking_sequence(&path).unwrap_err());
    assert!(
        msg.contains("seq.jsonl") && msg.contains("line 4") && msg.contains("height"),
        "{msg}"
    );
    let path = write("ok.jsonl", &format!("{good}\n{good}\n"));
    assert_eq!(
        omote_config::load_tracking_sequence(&path)
            .unwrap()
            .frames
            .len(),
        2
    );
    let path = write("empty.jsonl", "\n");
    assert!(
        err_text(omote_config::load_tracking_sequence(&path).unwrap_err()).contains("no frames")
    );
    let path = write("zero.json", r#"{"width":0,"height":480,"faces":[]}"#);
    assert!(
        err_text(omote_config::load_tracking_frame(&path).unwrap_err())
            .contains("width and height")
    );
}

#[test]
fn real_mediapipe_output_loads() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let f = omote_config::load_tracking_frame(&dir.join("obama.mediapipe.json")).unwrap();
    assert_eq!((f.width, f.height, f.faces.len()), (512, 640, 1));
    assert_eq!(f.faces[0].landmarks.len(), 478);
    assert!(f.faces[0].blendshapes.get("mouthSmileLeft") > 0.9);
    let seq = omote_config::load_tracking_sequence(&dir.join("astronaut_sequence.jsonl")).unwrap();
    assert!(seq.warnings.is_empty(), "{:?}", seq.warnings);
    let seq = seq.frames;
    assert_eq!(seq.len(), 300);
    assert_eq!(seq.iter().filter(|f| !f.faces.is_empty()).count(), 253);
}

/// A take cut off mid-write (a crash, a full disk) keeps the frames before its last,
/// unfinished line, and says so; a complete line that is wrong is still an error, as is
/// an unfinished line anywhere but at the end.
#[test]
fn a_take_cut_off_mid_line_keeps_its_frames() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("astronaut_sequence.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Cut the 121st line in half, as a writer stopped inside it would leave the file.
    let cut = lines[..120].join("\n") + "\n" + &lines[120][..lines[120].len() / 2];
    let path = write("cut.jsonl", &cut);
    let seq = omote_config::load_tracking_sequence(&path).unwrap();
    assert_eq!(seq.frames.len(), 120);
    let full = omote_config::load_tracking_sequence(&dir.join("astronaut_sequence.jsonl")).unwrap();
    assert_eq!(seq.frames[119].faces.len(), full.frames[119].faces.len());
    let [warning] = &seq.warnings[..] else {
        panic!("one warning expected: {:?}", seq.warnings)
    };
    assert!(
        warning.contains("cut.jsonl")
            && warning.contains("line 121")
            && warning.contains("120 frames"),
        "{warning}"
    );

    // The same cut line followed by a newline: the writer finished it, so it is wrong.
    let path = write("cut_then_newline.jsonl", &(cut.clone() + "\n"));
    let msg = err_text(omote_config::load_tracking_sequence(&path).unwrap_err());
    assert!(msg.contains("line 121"), "{msg}");
    // An unfinished line in the middle is an error too.
    let path = write("cut_in_middle.jsonl", &(cut + "\n" + lines[121]));
    let msg = err_text(omote_config::load_tracking_sequence(&path).unwrap_err());
    assert!(msg.contains("line 121"), "{msg}");
    // A complete last line of the wrong shape, with no newline after it, is an error.
    let path = write(
        "wrong_last.jsonl",
        &(lines[..3].join("\n") + "\n{\"width\":\"tall\"}"),
    );
    let msg = err_text(omote_config::load_tracking_sequence(&path).unwrap_err());
    assert!(msg.contains("line 4"), "{msg}");
    // Cut at every byte of a line (inside a key, after a `-`, a `.`, an `e`): always
    // the frame before it and a warning; with NUL padding after the cut too.
    let line = r#"{"t":0.1,"blendshapes":{"jawOpen":0.5,"eyeBlinkLeft":2.5e-1},"head":[-0.0,0.1,-1e-3,1.0]}"#;
    for k in 1..line.len() {
        for pad in ["", "\0\0\0"] {
            let path = write("cut_arkit.jsonl", &format!("{line}\n{}{pad}", &line[..k]));
            let seq = omote_config::load_arkit_sequence(&path)
                .unwrap_or_else(|e| panic!("cut after {:?}: {e}", &line[..k]));
            assert_eq!(
                (seq.frames.len(), seq.warnings.len()),
                (1, 1),
                "{:?}",
                &line[..k]
            );
            let warning = &seq.warnings[0];
            assert!(
                warning.contains("line 2 is cut short")
                    && warning.contains("read the frame before"),
                "{warning}"
            );
        }
    }
    // A whole file with a byte order mark and NUL padding after its newline: no warning.
    let path = write("bom_pad.jsonl", &format!("\u{feff}{line}\n{line}\n\0\0"));
    let seq = omote_config::load_arkit_sequence(&path).unwrap();
    assert_eq!((seq.frames.len(), seq.warnings.len()), (2, 0));
    // Cut inside the first line: nothing to keep, and the error says why.
    let path = write("cut_first.jsonl", &lines[0][..10]);
    let msg = err_text(omote_config::load_tracking_sequence(&path).unwrap_err());
    assert!(
        msg.contains("no whole frame: line 1, its first, is cut short"),
        "{msg}"
    );
}

/// Every number of a retarget settings file is checked on load (finite, sign, limit),
/// with an error naming the file and the field — never a panic or a frozen head.
#[test]
fn retarget_settings_out_of_range_name_the_file_and_field() {
    let cases = [
        (
            "yaw.toml",
            "[limits]\nyawDeg = -10\n",
            "limits.yawDeg = -10",
        ),
        (
            "pitch.toml",
            "[limits]\npitchDeg = nan\n",
            "limits.pitchDeg = NaN",
        ),
        ("gain.json", r#"{"mouth": {"gain": -1}}"#, "mouth.gain = -1"),
        (
            "cutoff.toml",
            "[headFilter]\nminCutoff = 0\nbeta = 0.05\nderivativeCutoff = 1\n",
            "headFilter.minCutoff = 0",
        ),
        ("loss.toml", "[loss]\nblendTime = 1e30\n", "loss.blendTime"),
        (
            "rule.toml",
            "[[emotions]]\ntarget = \"happy\"\nsources = [\"mouthSmileLeft\"]\nfrom = 0.5\nto = inf\n",
            "emotions[0].to = inf",
        ),
    ];
    for (name, text, expected) in cases {
        let path = write(name, text);
        let e = err_text(omote_config::load_retarget_config(&path).unwrap_err());
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains(expected),
            "{name}: {e}"
        );
    }
    let ok = write("ok.toml", "[limits]\nyawDeg = 30\n");
    assert_eq!(
        omote_config::load_retarget_config(&ok)
            .unwrap()
            .limits
            .yaw_deg,
        30.0
    );
}
