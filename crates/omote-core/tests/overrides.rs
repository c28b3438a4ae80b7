//! The VRM 1.0 override rules, table-driven, through the public API.

use std::sync::Arc;

use omote_core::rig::{ExpressionDesc, LookAtDesc, OverrideMode};
use omote_core::{ExpressionPreset, Face, FaceConfig, FaceInputs, Rig};

use OverrideMode::{Blend, Block, None as Off};

/// A rig of `happy` (overriding blink with `mode`) and `blink`, with binary flags.
fn pair(mode: OverrideMode, happy_binary: bool, blink_binary: bool) -> Rig {
    Rig::new(
        "pair",
        vec![
            ExpressionDesc::new("happy")
                .binary(happy_binary)
                .overrides(mode, Off, Off),
            ExpressionDesc::new("blink").binary(blink_binary),
        ],
        LookAtDesc::default(),
    )
    .unwrap()
}

struct Row {
    mode: OverrideMode,
    happy_binary: bool,
    blink_binary: bool,
    happy_in: f32,
    blink_in: f32,
    happy_out: f32,
    blink_out: f32,
}

const fn row(
    mode: OverrideMode,
    happy_binary: bool,
    blink_binary: bool,
    happy_in: f32,
    blink_in: f32,
    happy_out: f32,
    blink_out: f32,
) -> Row {
    Row {
        mode,
        happy_binary,
        blink_binary,
        happy_in,
        blink_in,
        happy_out,
        blink_out,
    }
}

/// Every none/block/blend × binary combination, with weights either side of the
/// thresholds (0, 0.5). Expected values worked out by hand from the VRM 1.0 rules.
const TABLE: &[Row] = &[
    // none: no interaction; binary rounding only.
    row(Off, false, false, 0.7, 0.8, 0.7, 0.8),
    row(Off, true, false, 0.7, 0.8, 1.0, 0.8),
    row(Off, false, true, 0.7, 0.8, 0.7, 1.0),
    row(Off, false, true, 0.7, 0.5, 0.7, 0.0), // 0.5 is not > 0.5
    row(Off, true, true, 0.3, 0.51, 0.0, 1.0),
    // block: any weight > 0 suppresses completely.
    row(Block, false, false, 0.7, 0.8, 0.7, 0.0),
    row(Block, false, false, 0.01, 0.8, 0.01, 0.0),
    row(Block, false, false, 0.0, 0.8, 0.0, 0.8),
    row(Block, true, false, 0.4, 0.8, 0.0, 0.8), // binarised 0 does not block
    row(Block, true, false, 0.6, 0.8, 1.0, 0.0),
    row(Block, false, true, 0.2, 0.9, 0.2, 0.0),
    row(Block, false, true, 0.0, 0.9, 0.0, 1.0),
    row(Block, true, true, 0.6, 0.9, 1.0, 0.0),
    row(Block, true, true, 0.4, 0.9, 0.0, 1.0),
    // blend: suppresses by the overrider's weight.
    row(Blend, false, false, 0.25, 0.8, 0.25, 0.6),
    row(Blend, false, false, 1.0, 0.8, 1.0, 0.0),
    row(Blend, false, false, 0.0, 0.8, 0.0, 0.8),
    row(Blend, true, false, 0.4, 0.8, 0.0, 0.8),
    row(Blend, true, false, 0.6, 0.8, 1.0, 0.0), // the binarised 1 drives the blend
    row(Blend, false, true, 0.25, 0.8, 0.25, 0.0), // overridden at all → binary goes to 0
    row(Blend, false, true, 0.0, 0.8, 0.0, 1.0),
    row(Blend, false, true, 0.0, 0.4, 0.0, 0.0),
    row(Blend, true, true, 0.4, 0.8, 0.0, 1.0),
    row(Blend, true, true, 0.6, 0.8, 1.0, 0.0),
];

#[test]
fn every_mode_and_binary_combination() {
    for (i, r) in TABLE.iter().enumerate() {
        let rig = pair(r.mode, r.happy_binary, r.blink_binary);
        let mut w = [r.happy_in, r.blink_in];
        rig.apply_overrides(&mut w);
        assert!(
            (w[0] - r.happy_out).abs() < 1e-6 && (w[1] - r.blink_out).abs() < 1e-6,
            "row {i}: {:?} happyBinary={} blinkBinary={} in ({}, {}) → got ({}, {}), want ({}, {})",
            r.mode,
            r.happy_binary,
            r.blink_binary,
            r.happy_in,
            r.blink_in,
            w[0],
            w[1],
            r.happy_out,
            r.blink_out
        );
    }
}

#[test]
fn sums_over_several_overriders_clamp_at_one() {
    let rig = Rig::new(
        "three",
        vec![
            ExpressionDesc::new("happy").overrides(Blend, Off, Off),
            ExpressionDesc::new("sad").overrides(Blend, Off, Off),
            ExpressionDesc::new("blink"),
        ],
        LookAtDesc::default(),
    )
    .unwrap();
    let mut w = [0.3, 0.4, 0.8];
    let m = rig.apply_overrides(&mut w);
    assert!((w[2] - 0.8 * 0.3).abs() < 1e-6 && (m.blink - 0.3).abs() < 1e-6);
    let mut w = [0.7, 0.6, 0.8];
    let m = rig.apply_overrides(&mut w);
    assert_eq!((w[2], m.blink), (0.0, 0.0));
}

#[test]
fn an_expression_never_overrides_its_own_category() {
    let rig = Rig::new(
        "own",
        vec![
            ExpressionDesc::new("blinkLeft").overrides(Block, Off, Block),
            ExpressionDesc::new("blink"),
            ExpressionDesc::new("aa"),
        ],
        LookAtDesc::default(),
    )
    .unwrap();
    let mut w = [1.0, 0.5, 0.9];
    let m = rig.apply_overrides(&mut w);
    assert_eq!(w, [1.0, 0.5, 0.0], "blink untouched, mouth blocked");
    assert_eq!((m.blink, m.mouth), (1.0, 0.0));
}

#[test]
fn custom_expressions_override_but_are_never_overridden() {
    let rig = Rig::new(
        "custom",
        vec![
            ExpressionDesc::new("wink").overrides(Block, Block, Block),
            ExpressionDesc::new("happy").overrides(Blend, Blend, Blend),
            ExpressionDesc::new("blink"),
            ExpressionDesc::new("lookLeft"),
            ExpressionDesc::new("oh"),
        ],
        LookAtDesc::default(),
    )
    .unwrap();
    let mut w = [0.2, 1.0, 1.0, 1.0, 1.0];
    rig.apply_overrides(&mut w);
    assert_eq!(w, [0.2, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn inputs_are_clamped_and_nan_is_zero() {
    let rig = pair(Blend, false, false);
    let mut w = [1.5, 0.8];
    rig.apply_overrides(&mut w);
    assert_eq!(w, [1.0, 0.0]);
    let mut w = [-1.0, f32::NAN];
    rig.apply_overrides(&mut w);
    assert_eq!(w, [0.0, 0.0]);
}

// The two VRM specification samples, as their README and three-vrm describe them
// (see ../shared/data/vrm/README.md). omote-vrm's tests read the real files.

/// `VRMC_vrm_expressions_isBinary_Overrides`: `happy` is isBinary with
/// `overrideBlink: blend`; the binarised value must drive the override.
#[test]
fn vrm_sample_is_binary_overrides() {
    let rig = pair(Blend, true, false);
    // three-vrm reports outputWeight 1 for happy at 0.6667, so blink is fully blended out.
    let mut w = [0.6667, 1.0];
    rig.apply_overrides(&mut w);
    assert_eq!(w, [1.0, 0.0]);
    // Below the threshold happy is 0 and does not override at all (a non-binarised
    // blend would have left blink at 0.6).
    let mut w = [0.4, 1.0];
    rig.apply_overrides(&mut w);
    assert_eq!(w, [0.0, 1.0]);
}

/// `VRMC_vrm_expressions_isBinary_Overridden`: `blink` is isBinary and is overridden by
/// `happy` (blend); blink must be fully suppressed once happy > 0.
#[test]
fn vrm_sample_is_binary_overridden() {
    let rig = pair(Blend, false, true);
    for happy in [0.001, 0.1, 0.5, 0.99] {
        let mut w = [happy, 1.0];
        rig.apply_overrides(&mut w);
        assert_eq!(w[1], 0.0, "happy = {happy}");
    }
    let mut w = [0.0, 1.0];
    rig.apply_overrides(&mut w);
    assert_eq!(w[1], 1.0);
}

#[test]
fn look_at_multiplier_damps_bone_gaze_and_look_expressions() {
    let mut rig_exprs: Vec<ExpressionDesc> = ExpressionPreset::ALL
        .iter()
        .map(|p| ExpressionDesc::new(p.name()))
        .collect();
    rig_exprs[0] = ExpressionDesc::new("happy").overrides(Off, Blend, Off);
    let bone = Arc::new(Rig::new("bone", rig_exprs.clone(), LookAtDesc::default_bone()).unwrap());
    let expr = Arc::new(Rig::new("expr", rig_exprs, LookAtDesc::default_expression()).unwrap());
    let inputs = FaceInputs {
        gaze_yaw_deg: 45.0,
        gaze_pitch_deg: -30.0,
        ..FaceInputs::default()
    };
    for (rig, is_bone) in [(bone, true), (expr, false)] {
        let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
        let happy = rig.channel("happy").unwrap();
        face.layer_mut(Face::BASE).set(happy, 0.5);
        let s = face.update(1.0 / 60.0, &inputs).clone();
        assert_eq!(s.multipliers.look_at, 0.5);
        assert_eq!((s.look_at_yaw_deg, s.look_at_pitch_deg), (22.5, -15.0));
        let left = rig.channel("lookLeft").unwrap();
        let up = rig.channel("lookUp").unwrap();
        if is_bone {
            // 45° → 5° on a 90→10 map, halved by the multiplier: 22.5° → 2.5°.
            let yaw = s
                .left_eye
                .to_euler(omote_core::glam::EulerRot::YXZ)
                .0
                .to_degrees();
            assert!((yaw - 2.5).abs() < 1e-3, "{yaw}");
            assert_eq!(s.weight(left), 0.0);
        } else {
            assert!((s.weight(left) - 0.25).abs() < 1e-6, "{}", s.weight(left));
            assert!((s.weight(up) - 1.0 / 6.0).abs() < 1e-6);
            assert_eq!(s.left_eye, omote_core::Quat::IDENTITY);
        }
    }
}
