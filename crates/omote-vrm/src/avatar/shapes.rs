//! The avatar's morph targets and which expressions bind them: dedicated shapes for the
//! vowels and emotions, the 52 ARKit shapes (44 on the face, the 8 eyeLook* on the
//! eyeballs), and presets built from them (blink = both eyeBlink*, look* = eyeballs).

use super::face::FaceParams;

/// One of an eyeball's four morph targets (index = discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EyeLook {
    /// Rotate up.
    Up = 0,
    /// Rotate down.
    Down = 1,
    /// Toward the nose.
    In = 2,
    /// Away from the nose.
    Out = 3,
}

/// Eyeball target names, in index order.
pub const EYE_TARGETS: [&str; 4] = ["lookUp", "lookDown", "lookIn", "lookOut"];

/// A morph target an expression binds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bind {
    /// Face mesh target with this name.
    Face(&'static str),
    /// Eyeball target: side 0 left, 1 right.
    Eye(usize, EyeLook),
}

fn fp(f: impl FnOnce(&mut FaceParams)) -> FaceParams {
    let mut p = FaceParams::default();
    f(&mut p);
    p
}

/// The face mesh's morph targets, in index order.
pub fn face_targets() -> Vec<(&'static str, FaceParams)> {
    let both = |v: f32| [v, v];
    let left = |v: f32| [v, 0.0];
    let right = |v: f32| [0.0, v];
    vec![
        // Vowels: a mouth that really opens, in five shapes.
        (
            "aa",
            fp(|p| {
                p.lower_open = 0.026;
                p.upper_open = 0.004;
                p.mouth_width = -0.05;
            }),
        ),
        (
            "ih",
            fp(|p| {
                p.lower_open = 0.007;
                p.upper_open = 0.002;
                p.mouth_width = 0.18;
                p.corner_up = both(0.002);
            }),
        ),
        (
            "ou",
            fp(|p| {
                p.lower_open = 0.009;
                p.upper_open = 0.004;
                p.mouth_width = -0.42;
                p.pucker = 0.01;
            }),
        ),
        (
            "ee",
            fp(|p| {
                p.lower_open = 0.011;
                p.upper_open = 0.004;
                p.mouth_width = 0.28;
                p.corner_up = both(0.002);
            }),
        ),
        (
            "oh",
            fp(|p| {
                p.lower_open = 0.02;
                p.upper_open = 0.006;
                p.mouth_width = -0.24;
                p.pucker = 0.005;
            }),
        ),
        // Emotions.
        (
            "happy",
            fp(|p| {
                p.lid_upper = both(0.45);
                p.lid_lower = both(0.55);
                p.corner_up = both(0.009);
                p.corner_out = both(0.003);
                p.mouth_width = 0.12;
                p.lower_open = 0.004;
                p.cheek_up = both(1.0);
                p.brow_inner_up = both(0.3);
                p.brow_outer_up = both(0.3);
            }),
        ),
        (
            "angry",
            fp(|p| {
                p.brow_down = both(1.0);
                p.brow_outer_up = both(0.4);
                p.lid_upper = both(0.2);
                p.corner_up = both(-0.005);
                p.mouth_width = -0.1;
                p.press = both(0.6);
            }),
        ),
        (
            "sad",
            fp(|p| {
                p.brow_inner_up = both(1.0);
                p.brow_outer_up = both(-0.5);
                p.lid_upper = both(0.3);
                p.corner_up = both(-0.007);
                p.shrug_lower = 0.002;
            }),
        ),
        (
            "relaxed",
            fp(|p| {
                p.lid_upper = both(0.55);
                p.corner_up = both(0.005);
                p.brow_inner_up = both(0.2);
            }),
        ),
        (
            "surprised",
            fp(|p| {
                p.lid_upper = both(-0.6);
                p.brow_inner_up = both(1.0);
                p.brow_outer_up = both(1.0);
                p.lower_open = 0.02;
                p.upper_open = 0.006;
                p.mouth_width = -0.25;
                p.pucker = 0.003;
            }),
        ),
        // ARKit face shapes (the eyeLook* ones are on the eyeballs).
        ("browDownLeft", fp(|p| p.brow_down = left(1.0))),
        ("browDownRight", fp(|p| p.brow_down = right(1.0))),
        ("browInnerUp", fp(|p| p.brow_inner_up = both(1.0))),
        ("browOuterUpLeft", fp(|p| p.brow_outer_up = left(1.0))),
        ("browOuterUpRight", fp(|p| p.brow_outer_up = right(1.0))),
        ("cheekPuff", fp(|p| p.cheek_puff = 1.0)),
        (
            "cheekSquintLeft",
            fp(|p| {
                p.cheek_up = left(1.0);
                p.lid_lower = left(0.15);
            }),
        ),
        (
            "cheekSquintRight",
            fp(|p| {
                p.cheek_up = right(1.0);
                p.lid_lower = right(0.15);
            }),
        ),
        ("eyeBlinkLeft", fp(|p| p.lid_upper = left(1.0))),
        ("eyeBlinkRight", fp(|p| p.lid_upper = right(1.0))),
        (
            "eyeSquintLeft",
            fp(|p| {
                p.lid_lower = left(0.5);
                p.lid_upper = left(0.15);
            }),
        ),
        (
            "eyeSquintRight",
            fp(|p| {
                p.lid_lower = right(0.5);
                p.lid_upper = right(0.15);
            }),
        ),
        ("eyeWideLeft", fp(|p| p.lid_upper = left(-0.6))),
        ("eyeWideRight", fp(|p| p.lid_upper = right(-0.6))),
        ("jawForward", fp(|p| p.jaw_forward = 0.008)),
        ("jawLeft", fp(|p| p.jaw_side = 0.008)),
        ("jawOpen", fp(|p| p.lower_open = 0.03)),
        ("jawRight", fp(|p| p.jaw_side = -0.008)),
        ("mouthClose", fp(|p| p.lower_open = -0.03)),
        ("mouthDimpleLeft", fp(|p| p.corner_out = left(0.003))),
        ("mouthDimpleRight", fp(|p| p.corner_out = right(0.003))),
        ("mouthFrownLeft", fp(|p| p.corner_up = left(-0.007))),
        ("mouthFrownRight", fp(|p| p.corner_up = right(-0.007))),
        (
            "mouthFunnel",
            fp(|p| {
                p.mouth_width = -0.3;
                p.upper_open = 0.006;
                p.lower_open = 0.006;
                p.pucker = 0.008;
            }),
        ),
        ("mouthLeft", fp(|p| p.mouth_shift = 0.01)),
        ("mouthLowerDownLeft", fp(|p| p.lower_down = left(0.008))),
        ("mouthLowerDownRight", fp(|p| p.lower_down = right(0.008))),
        ("mouthPressLeft", fp(|p| p.press = left(1.0))),
        ("mouthPressRight", fp(|p| p.press = right(1.0))),
        (
            "mouthPucker",
            fp(|p| {
                p.mouth_width = -0.45;
                p.pucker = 0.012;
            }),
        ),
        ("mouthRight", fp(|p| p.mouth_shift = -0.01)),
        ("mouthRollLower", fp(|p| p.roll_lower = 1.0)),
        ("mouthRollUpper", fp(|p| p.roll_upper = 1.0)),
        ("mouthShrugLower", fp(|p| p.shrug_lower = 0.004)),
        ("mouthShrugUpper", fp(|p| p.shrug_upper = 0.003)),
        (
            "mouthSmileLeft",
            fp(|p| {
                p.corner_up = left(0.009);
                p.corner_out = left(0.003);
            }),
        ),
        (
            "mouthSmileRight",
            fp(|p| {
                p.corner_up = right(0.009);
                p.corner_out = right(0.003);
            }),
        ),
        (
            "mouthStretchLeft",
            fp(|p| {
                p.corner_out = left(0.007);
                p.corner_up = left(-0.002);
            }),
        ),
        (
            "mouthStretchRight",
            fp(|p| {
                p.corner_out = right(0.007);
                p.corner_up = right(-0.002);
            }),
        ),
        ("mouthUpperUpLeft", fp(|p| p.upper_up = left(0.005))),
        ("mouthUpperUpRight", fp(|p| p.upper_up = right(0.005))),
        ("noseSneerLeft", fp(|p| p.sneer = left(1.0))),
        ("noseSneerRight", fp(|p| p.sneer = right(1.0))),
        ("tongueOut", fp(|p| p.tongue_out = 1.0)),
    ]
}

/// What an ARKit eyeLook* shape binds (`None` for the other 44).
pub fn arkit_eye_bind(name: &str) -> Option<Bind> {
    let (side, rest) = if let Some(r) = name.strip_suffix("Left") {
        (0, r)
    } else {
        (1, name.strip_suffix("Right")?)
    };
    let look = match rest {
        "eyeLookUp" => EyeLook::Up,
        "eyeLookDown" => EyeLook::Down,
        "eyeLookIn" => EyeLook::In,
        "eyeLookOut" => EyeLook::Out,
        _ => return None,
    };
    Some(Bind::Eye(side, look))
}

/// The binds of a VRM preset.
pub fn preset_binds(name: &str) -> Vec<Bind> {
    use Bind::{Eye, Face};
    match name {
        "blink" => vec![Face("eyeBlinkLeft"), Face("eyeBlinkRight")],
        "blinkLeft" => vec![Face("eyeBlinkLeft")],
        "blinkRight" => vec![Face("eyeBlinkRight")],
        "lookUp" => vec![Eye(0, EyeLook::Up), Eye(1, EyeLook::Up)],
        "lookDown" => vec![Eye(0, EyeLook::Down), Eye(1, EyeLook::Down)],
        // Looking to the avatar's left: the left eye turns out, the right eye in.
        "lookLeft" => vec![Eye(0, EyeLook::Out), Eye(1, EyeLook::In)],
        "lookRight" => vec![Eye(0, EyeLook::In), Eye(1, EyeLook::Out)],
        "neutral" => vec![],
        other => face_targets()
            .iter()
            .find(|(n, _)| *n == other)
            .map(|(n, _)| vec![Face(n)])
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use omote_core::{ExpressionPreset, tracking::ARKIT_52};

    #[test]
    fn every_preset_but_neutral_and_every_arkit_shape_binds_something() {
        let faces = face_targets();
        for p in ExpressionPreset::ALL {
            let b = preset_binds(p.name());
            assert_eq!(b.is_empty(), p == ExpressionPreset::Neutral, "{}", p.name());
        }
        for n in ARKIT_52 {
            let face = faces.iter().any(|(f, _)| *f == n);
            assert!(face != arkit_eye_bind(n).is_some(), "{n}");
        }
        assert_eq!(faces.len(), 10 + 44);
        // Every face target moves something.
        for (n, p) in &faces {
            assert!(*p != FaceParams::default(), "{n}");
        }
    }
}
