//! "Perfect sync" in: a VMC performer's ARKit-52 blend shapes and `Head` bone as the
//! core's tracking input, so a phone tracker or another VTuber tool drives an omote face
//! through the same retargeter as the camera.
//!
//! Senders spell the ARKit names differently: `eyeBlinkLeft` (ARKit), `EyeBlinkLeft`
//! (the perfect-sync clip names of VRM 0.x avatars) and `eyeBlink_L` (iFacialMocap);
//! all are accepted (`omote_core::tracking::arkit_index_any_spelling`, the rule's owner). Names are the *avatar's* left and right, which is what the core's
//! unmirrored tracking input means.

use omote_core::{TrackedFace, tracking::arkit_index_any_spelling};

use crate::VmcReceiver;

/// The performer's face as the core's tracking input: every ARKit-52 blend value
/// received (others 0) and the `Head` bone's rotation. `None` until the performer has
/// sent at least one ARKit value or a `Head` bone (a sender of VRM presets only is not a
/// face tracker).
pub fn tracked_face(receiver: &VmcReceiver) -> Option<TrackedFace> {
    let mut face = TrackedFace::default();
    let mut any = false;
    for (name, value) in receiver.blends() {
        if let Some(i) = arkit_index_any_spelling(name) {
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
        .all_used()
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
        .all_used()
        .unwrap();
        let face = tracked_face(&rx).unwrap();
        assert_eq!(face.blendshapes.get("jawOpen"), 0.6);
        assert_eq!(face.blendshapes.get("eyeBlinkRight"), 0.9);
        assert_eq!(face.blendshapes.get("eyeBlinkLeft"), 0.0);
        assert!(face.head.unwrap().dot(q).abs() > 0.99999);
    }
}
