//! The 52 ARKit blendshape names (also MediaPipe's blendshape output names, minus `_neutral`).

/// ARKit's 52 face blendshape names, in Apple's documentation order.
pub const ARKIT_52: [&str; 52] = [
    "eyeBlinkLeft",
    "eyeLookDownLeft",
    "eyeLookInLeft",
    "eyeLookOutLeft",
    "eyeLookUpLeft",
    "eyeSquintLeft",
    "eyeWideLeft",
    "eyeBlinkRight",
    "eyeLookDownRight",
    "eyeLookInRight",
    "eyeLookOutRight",
    "eyeLookUpRight",
    "eyeSquintRight",
    "eyeWideRight",
    "jawForward",
    "jawLeft",
    "jawRight",
    "jawOpen",
    "mouthClose",
    "mouthFunnel",
    "mouthPucker",
    "mouthLeft",
    "mouthRight",
    "mouthSmileLeft",
    "mouthSmileRight",
    "mouthFrownLeft",
    "mouthFrownRight",
    "mouthDimpleLeft",
    "mouthDimpleRight",
    "mouthStretchLeft",
    "mouthStretchRight",
    "mouthRollLower",
    "mouthRollUpper",
    "mouthShrugLower",
    "mouthShrugUpper",
    "mouthPressLeft",
    "mouthPressRight",
    "mouthLowerDownLeft",
    "mouthLowerDownRight",
    "mouthUpperUpLeft",
    "mouthUpperUpRight",
    "browDownLeft",
    "browDownRight",
    "browInnerUp",
    "browOuterUpLeft",
    "browOuterUpRight",
    "cheekPuff",
    "cheekSquintLeft",
    "cheekSquintRight",
    "noseSneerLeft",
    "noseSneerRight",
    "tongueOut",
];

/// Whether `name` is one of the 52 ARKit blendshape names.
pub fn is_arkit_name(name: &str) -> bool {
    arkit_index(name).is_some()
}

/// The index of an ARKit name in [`ARKIT_52`] (the layout of
/// [`Blendshapes`](crate::tracking::Blendshapes)); the one name → index lookup every crate uses.
pub fn arkit_index(name: &str) -> Option<usize> {
    ARKIT_52.iter().position(|n| *n == name)
}

/// The ARKit-52 index of a name as avatars and senders spell it: `eyeBlinkLeft` (ARKit),
/// `EyeBlinkLeft` (the perfect-sync clips of many VRM 0.x avatars, any ASCII case) and
/// `eyeBlink_L` (Apple's raw keys, iFacialMocap); `None` for other names (VRM presets,
/// custom clips). The one owner of that rule: the VMC receiver reads a performer's
/// blends with it, the retargeter finds an avatar's perfect-sync channels with it.
///
/// ```
/// use omote_core::rig::arkit_index_any_spelling;
/// let i = arkit_index_any_spelling("eyeBlinkLeft").unwrap();
/// assert_eq!(arkit_index_any_spelling("EyeBlinkLeft"), Some(i));
/// assert_eq!(arkit_index_any_spelling("eyeBlink_L"), Some(i));
/// assert_eq!(arkit_index_any_spelling("Blink_L"), None);
/// ```
pub fn arkit_index_any_spelling(name: &str) -> Option<usize> {
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

/// [`arkit_index`] at compile time, for constants (a misspelt name fails the build).
pub(crate) const fn arkit_const(name: &str) -> usize {
    let mut i = 0;
    while i < ARKIT_52.len() {
        if const_eq(ARKIT_52[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("not an ARKit name");
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut v = ARKIT_52.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 52);
        assert!(is_arkit_name("jawOpen"));
        assert!(!is_arkit_name("aa"));
        assert_eq!(arkit_index("tongueOut"), Some(51));
        assert_eq!(arkit_const("jawOpen"), arkit_index("jawOpen").unwrap());
    }

    #[test]
    fn every_arkit_name_is_found_in_each_spelling() {
        for (i, name) in ARKIT_52.iter().enumerate() {
            assert_eq!(arkit_index_any_spelling(name), Some(i), "{name}");
            let pascal = format!("{}{}", name[..1].to_ascii_uppercase(), &name[1..]);
            assert_eq!(arkit_index_any_spelling(&pascal), Some(i), "{pascal}");
            assert_eq!(
                arkit_index_any_spelling(&name.to_ascii_lowercase()),
                Some(i),
                "{name} in lower case"
            );
            for (long, short) in [("Left", "_L"), ("Right", "_R")] {
                if let Some(stem) = name.strip_suffix(long) {
                    let s = format!("{stem}{short}");
                    assert_eq!(arkit_index_any_spelling(&s), Some(i), "{s}");
                }
            }
        }
        for other in [
            "",
            "A",
            "Joy",
            "Blink_L",
            "eyeBlink",
            "eyeBlinkLeftX",
            "_L",
            "jawOpen_L",
        ] {
            assert_eq!(arkit_index_any_spelling(other), None, "{other}");
        }
    }
}
