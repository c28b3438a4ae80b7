//! Head rotation helpers: per-axis limits, mirroring, and the neck/head split for rigs
//! whose neck and head bones are driven separately.

use glam::{EulerRot, Quat};

use crate::sources::tracking::config::HeadLimits;

impl HeadLimits {
    /// `q` with its YXZ Euler angles clamped to the limits.
    pub fn apply(&self, q: Quat) -> Quat {
        let (y, x, z) = q.to_euler(EulerRot::YXZ);
        // A negative or NaN limit means "no movement on that axis", never a panic.
        let c = |v: f32, max_deg: f32| {
            let max = if max_deg.is_finite() {
                max_deg.abs().to_radians()
            } else {
                0.0
            };
            v.clamp(-max, max)
        };
        Quat::from_euler(
            EulerRot::YXZ,
            c(y, self.yaw_deg),
            c(x, self.pitch_deg),
            c(z, self.roll_deg),
        )
    }
}

/// How much of the head's turn the neck takes where an output drives both bones: half,
/// as the VRMA writer, the npm package's applier and the Unity glue all share it (a live
/// session's `neckShare` changes it for its recording).
pub const NECK_SHARE: f32 = 0.5;

/// Split a full head orientation into a neck rotation (`share` of it) and the head's
/// rotation relative to the neck, so `neck * head == full`.
pub fn split_neck_head(full: Quat, share: f32) -> (Quat, Quat) {
    let neck = Quat::IDENTITY.slerp(full, share.clamp(0.0, 1.0));
    (neck, (neck.inverse() * full).normalize())
}

/// The same rotation seen in a mirror across the avatar's YZ plane: yaw and roll flip.
pub fn mirror_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_flips_yaw_and_roll_only() {
        let q = Quat::from_euler(EulerRot::YXZ, 0.3, 0.2, -0.1);
        let (y, x, z) = mirror_rotation(q).to_euler(EulerRot::YXZ);
        assert!((y + 0.3).abs() < 1e-5 && (x - 0.2).abs() < 1e-5 && (z - 0.1).abs() < 1e-5);
    }

    #[test]
    fn neck_split_recomposes() {
        let q = Quat::from_euler(EulerRot::YXZ, 0.5, 0.2, 0.1);
        let (neck, head) = split_neck_head(q, 0.4);
        assert!((neck * head).angle_between(q) < 1e-5);
        assert!(
            (neck.angle_between(Quat::IDENTITY) - 0.4 * q.angle_between(Quat::IDENTITY)).abs()
                < 1e-4
        );
    }

    #[test]
    fn limits_clamp_and_bad_limits_do_not_panic() {
        let q = Quat::from_euler(EulerRot::YXZ, 1.5, 0.2, 0.0);
        let l = HeadLimits {
            yaw_deg: 30.0,
            pitch_deg: 50.0,
            roll_deg: 45.0,
        };
        let (y, x, _) = l.apply(q).to_euler(EulerRot::YXZ);
        assert!((y - 30f32.to_radians()).abs() < 1e-4 && (x - 0.2).abs() < 1e-4);
        let bad = HeadLimits {
            yaw_deg: -10.0,
            pitch_deg: f32::NAN,
            roll_deg: 45.0,
        };
        let (y, x, _) = bad.apply(q).to_euler(EulerRot::YXZ);
        assert!((y - 10f32.to_radians()).abs() < 1e-4 && x.abs() < 1e-6);
    }
}
