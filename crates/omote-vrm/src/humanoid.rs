//! Humanoid bones: which glTF node is which bone, with its rest pose. omote's face needs
//! `head`, `neck`, `leftEye`, `rightEye` and `jaw`; all bones are kept (by their VRM 1.0
//! names) so tools can list them.

use serde::Serialize;

/// The VRM 1.0 humanoid bone names, in specification order.
pub const HUMAN_BONE_NAMES: [&str; 55] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "leftEye",
    "rightEye",
    "jaw",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "leftToes",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "rightToes",
    "leftShoulder",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightShoulder",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftThumbMetacarpal",
    "leftThumbProximal",
    "leftThumbDistal",
    "leftIndexProximal",
    "leftIndexIntermediate",
    "leftIndexDistal",
    "leftMiddleProximal",
    "leftMiddleIntermediate",
    "leftMiddleDistal",
    "leftRingProximal",
    "leftRingIntermediate",
    "leftRingDistal",
    "leftLittleProximal",
    "leftLittleIntermediate",
    "leftLittleDistal",
    "rightThumbMetacarpal",
    "rightThumbProximal",
    "rightThumbDistal",
    "rightIndexProximal",
    "rightIndexIntermediate",
    "rightIndexDistal",
    "rightMiddleProximal",
    "rightMiddleIntermediate",
    "rightMiddleDistal",
    "rightRingProximal",
    "rightRingIntermediate",
    "rightRingDistal",
    "rightLittleProximal",
    "rightLittleIntermediate",
    "rightLittleDistal",
];

/// The bones VRM 1.0 requires.
pub const REQUIRED_HUMAN_BONES: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
];

/// The VRM 1.0 name of a bone (`None` if unknown).
pub fn bone_name_v1(name: &str) -> Option<&'static str> {
    HUMAN_BONE_NAMES.iter().copied().find(|n| *n == name)
}

/// The VRM 1.0 name of a VRM 0.x bone: the thumbs were renamed (0.x
/// Proximal/Intermediate/Distal → 1.0 Metacarpal/Proximal/Distal); the rest are equal.
pub fn bone_name_from_v0(name: &str) -> Option<&'static str> {
    let renamed = match name {
        "leftThumbProximal" => "leftThumbMetacarpal",
        "leftThumbIntermediate" => "leftThumbProximal",
        "rightThumbProximal" => "rightThumbMetacarpal",
        "rightThumbIntermediate" => "rightThumbProximal",
        "leftThumbMetacarpal" | "rightThumbMetacarpal" => return None,
        other => other,
    };
    bone_name_v1(renamed)
}

/// One humanoid bone.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HumanBone {
    /// VRM 1.0 bone name.
    pub name: &'static str,
    /// glTF node index.
    pub node: usize,
    /// The node's rest rotation (local, `[x, y, z, w]`), from `rotation` or `matrix`.
    pub rest_rotation: [f32; 4],
    /// The node's rest translation (local, metres).
    pub rest_translation: [f32; 3],
}

/// The humanoid: bones in file order, each name at most once.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Humanoid {
    /// All bones the file maps, by VRM 1.0 name.
    pub bones: Vec<HumanBone>,
}

/// The bones a face needs; any may be missing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FaceBones {
    /// `head`.
    pub head: Option<HumanBone>,
    /// `neck`.
    pub neck: Option<HumanBone>,
    /// `leftEye`.
    pub left_eye: Option<HumanBone>,
    /// `rightEye`.
    pub right_eye: Option<HumanBone>,
    /// `jaw`.
    pub jaw: Option<HumanBone>,
}

impl Humanoid {
    /// The bone with this VRM 1.0 name.
    pub fn bone(&self, name: &str) -> Option<&HumanBone> {
        self.bones.iter().find(|b| b.name == name)
    }

    /// head, neck, eyes, jaw.
    pub fn face_bones(&self) -> FaceBones {
        FaceBones {
            head: self.bone("head").copied(),
            neck: self.bone("neck").copied(),
            left_eye: self.bone("leftEye").copied(),
            right_eye: self.bone("rightEye").copied(),
            jaw: self.bone("jaw").copied(),
        }
    }

    /// Required VRM 1.0 bones this humanoid lacks.
    pub fn missing_required(&self) -> Vec<&'static str> {
        REQUIRED_HUMAN_BONES
            .iter()
            .copied()
            .filter(|n| self.bone(n).is_none())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v0_thumbs_are_renamed() {
        assert_eq!(
            bone_name_from_v0("leftThumbProximal"),
            Some("leftThumbMetacarpal")
        );
        assert_eq!(
            bone_name_from_v0("rightThumbIntermediate"),
            Some("rightThumbProximal")
        );
        assert_eq!(
            bone_name_from_v0("leftThumbDistal"),
            Some("leftThumbDistal")
        );
        assert_eq!(bone_name_from_v0("head"), Some("head"));
        assert_eq!(bone_name_from_v0("leftThumbMetacarpal"), None);
        assert_eq!(bone_name_v1("Head"), None);
    }
}
