//! omote's canonical humanoid skeleton in VRM T-pose (+Y up, facing +Z, +X the avatar's
//! left; metres; every rest rotation is identity). The generated avatar is built on it,
//! and VRMA files carry it as their rest pose.

/// One bone: VRM 1.0 name, parent (index into [`SKELETON`]), translation from the parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkeletonBone {
    /// VRM 1.0 humanoid bone name.
    pub name: &'static str,
    /// Index of the parent in [`SKELETON`] (`None` for hips).
    pub parent: Option<usize>,
    /// Translation from the parent, metres.
    pub translation: [f32; 3],
}

const fn b(name: &'static str, parent: Option<usize>, translation: [f32; 3]) -> SkeletonBone {
    SkeletonBone {
        name,
        parent,
        translation,
    }
}

/// Index of `head` in [`SKELETON`].
pub const HEAD: usize = 4;
/// Index of `neck` in [`SKELETON`].
pub const NECK: usize = 3;
/// Index of `leftEye` in [`SKELETON`].
pub const LEFT_EYE: usize = 5;
/// Index of `rightEye` in [`SKELETON`].
pub const RIGHT_EYE: usize = 6;

/// Eye centre relative to the head bone (the generated head is modelled around it).
pub const EYE_OFFSET: [f32; 3] = [0.033, 0.095, 0.0794];

/// The bones, parents before children: the 15 required by VRM 1.0 plus chest, neck and
/// the eyes.
pub const SKELETON: [SkeletonBone; 19] = [
    b("hips", None, [0.0, 0.92, 0.0]),
    b("spine", Some(0), [0.0, 0.1, 0.0]),
    b("chest", Some(1), [0.0, 0.15, 0.0]),
    b("neck", Some(2), [0.0, 0.2, 0.0]),
    b("head", Some(3), [0.0, 0.08, 0.0]),
    b("leftEye", Some(4), EYE_OFFSET),
    b(
        "rightEye",
        Some(4),
        [-EYE_OFFSET[0], EYE_OFFSET[1], EYE_OFFSET[2]],
    ),
    b("leftUpperLeg", Some(0), [0.085, -0.05, 0.0]),
    b("leftLowerLeg", Some(7), [0.0, -0.41, 0.0]),
    b("leftFoot", Some(8), [0.0, -0.4, 0.0]),
    b("rightUpperLeg", Some(0), [-0.085, -0.05, 0.0]),
    b("rightLowerLeg", Some(10), [0.0, -0.41, 0.0]),
    b("rightFoot", Some(11), [0.0, -0.4, 0.0]),
    b("leftUpperArm", Some(2), [0.17, 0.15, 0.0]),
    b("leftLowerArm", Some(13), [0.26, 0.0, 0.0]),
    b("leftHand", Some(14), [0.24, 0.0, 0.0]),
    b("rightUpperArm", Some(2), [-0.17, 0.15, 0.0]),
    b("rightLowerArm", Some(16), [-0.26, 0.0, 0.0]),
    b("rightHand", Some(17), [-0.24, 0.0, 0.0]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::humanoid::{REQUIRED_HUMAN_BONES, bone_name_v1};

    #[test]
    fn skeleton_is_a_valid_humanoid() {
        for r in REQUIRED_HUMAN_BONES {
            assert!(SKELETON.iter().any(|b| b.name == r), "{r}");
        }
        for (i, bone) in SKELETON.iter().enumerate() {
            assert!(bone_name_v1(bone.name).is_some());
            assert!(bone.parent.is_none_or(|p| p < i));
        }
        assert_eq!(SKELETON[HEAD].name, "head");
        assert_eq!(SKELETON[NECK].name, "neck");
        assert_eq!(SKELETON[LEFT_EYE].name, "leftEye");
        assert_eq!(SKELETON[RIGHT_EYE].name, "rightEye");
    }
}
