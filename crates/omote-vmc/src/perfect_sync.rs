//! "Perfect sync" in: a VMC performer's ARKit-52 blend shapes and `Head` bone as the
//! core's tracking input, so a phone tracker or another VTuber tool drives an omote face
//! through the same retargeter as the camera.
//!
//! Senders spell the ARKit names differently: `eyeBlinkLeft` (ARKit), `EyeBlinkLeft`
//! (the perfect-sync clip names of VRM 0.x avatars) and `eyeBlink_L` (iFacialMocap);
//! all are accepted. Names are the *avatar's* left and right, which is what the core's
//! unmirrored tracking input means.

use omote_core::{TrackedFace, tracking::ARKIT_52};

use crate::VmcReceiver;

/// The ARKit-52 index of a blend name as VMC senders spell it (any ASCII case; `_L` /
/// `_R` for `Left` / `Right`); `None` for other names (VRM presets, custom clips).
///
/// ```
/// use omote_vmc::arkit_index_of_wire;
/// let i = arkit_index_of_wire("eyeBlinkLeft").unwrap();
/// assert_eq!(arkit_index_of_wire("EyeBlinkLeft"), Some(i));
/// assert_eq!(arkit_index_of_wire("eyeBlink_L"), Some(i));
/// assert_eq!(arkit_index_of_wire("Blink"), None);
/// ```
pub fn arkit_index_of_wire(name: &str) -> Option<usize> {
    let (stem, side) = if let Some(s) = name.strip_suffix("_L") {
        (s, "left")
    } else if let Some(s) = name.strip_suffix("_R") {
        (s, "right")
    } else {
        (name, "")
    };
    ARKIT_52.iter().position(|arkit| {
        arkit.len() == stem.len() + side.len()
            && arkit[..stem.len()].eq_ignore_ascii_case(stem)
            && arkit[stem.len()..].eq_ignore_ascii_case(side)
    })
}

/// The performer's face as the core's tracking input: every ARKit-52 blend value
/// received (others 0) and the `Head` bone's rotation. `None` until the performer has
/// sent at least one ARKit value or a `Head` bone (a sender of VRM presets only is not a
/// face tracker).
pub fn tracked_face(receiver: &VmcReceiver) -> Option<TrackedFace> {
    let mut face = TrackedFace::default();
    let mut any = false;
    for (name, value) in receiver.blends() {
        if let Some(i) = arkit_index_of_wire(name) {
            // The receiver already clamps values to 0..1 and turns NaN into 0.
            face.blendshapes.0[i] = *value;
            any = true;
        }
    }
    face.head = receiver.bone("Head").map(|(_, q)| q);
    (any || face.head.is_some()).then_some(face)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::osc::{OscMessage, OscValue};
    use omote_core::Quat;

    fn blend(name: &str, v: f32) -> OscMessage {
        OscMessage {
            address: "/VMC/Ext/Blend/Val".into(),
            args: vec![OscValue::Str(name.into()), OscValue::Float(v)],
        }
    }

    #[test]
    fn every_arkit_name_is_found_in_each_spelling() {
        for (i, name) in ARKIT_52.iter().enumerate() {
            assert_eq!(arkit_index_of_wire(name), Some(i), "{name}");
            let pascal = format!("{}{}", name[..1].to_ascii_uppercase(), &name[1..]);
            assert_eq!(arkit_index_of_wire(&pascal), Some(i), "{pascal}");
            for (long, short) in [("Left", "_L"), ("Right", "_R")] {
                if let Some(stem) = name.strip_suffix(long) {
                    let s = format!("{stem}{short}");
                    assert_eq!(arkit_index_of_wire(&s), Some(i), "{s}");
                }
            }
        }
        for other in [
            "",
            "A",
            "Joy",
            "eyeBlink",
            "eyeBlinkLeftX",
            "_L",
            "jawOpen_L",
        ] {
            assert_eq!(arkit_index_of_wire(other), None, "{other}");
        }
    }

    #[test]
    fn a_perfect_sync_bundle_becomes_a_tracked_face() {
        let mut rx = VmcReceiver::new();
        assert_eq!(tracked_face(&rx), None);
        // VRM presets alone are not tracking.
        rx.apply(&[
            blend("Joy", 1.0),
            OscMessage {
                address: "/VMC/Ext/Blend/Apply".into(),
                args: vec![],
            },
        ])
        .unwrap();
        assert_eq!(tracked_face(&rx), None);
        let q = Quat::from_rotation_y(0.3);
        let unity = crate::coords::quat_to_unity(q);
        let mut head = vec![OscValue::Str("Head".into())];
        head.extend([0.0, 0.0, 0.0].map(OscValue::Float));
        head.extend(unity.map(OscValue::Float));
        rx.apply(&[
            blend("JawOpen", 0.6),
            blend("eyeBlink_R", 0.9),
            OscMessage {
                address: "/VMC/Ext/Bone/Pos".into(),
                args: head,
            },
            OscMessage {
                address: "/VMC/Ext/Blend/Apply".into(),
                args: vec![],
            },
        ])
        .unwrap();
        let face = tracked_face(&rx).unwrap();
        assert_eq!(face.blendshapes.get("jawOpen"), 0.6);
        assert_eq!(face.blendshapes.get("eyeBlinkRight"), 0.9);
        assert_eq!(face.blendshapes.get("eyeBlinkLeft"), 0.0);
        assert!(face.head.unwrap().dot(q).abs() > 0.99999);
    }
}
