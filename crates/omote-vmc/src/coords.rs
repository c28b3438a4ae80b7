//! glTF/VRM (right-handed, Y up) ↔ Unity (left-handed, Y up), the space VMC bone values
//! are in. VMC's reference implementation runs on UniVRM, which imports VRM 1.0 by
//! mirroring the X axis: a position `(x, y, z)` becomes `(−x, y, z)` and a rotation
//! `(x, y, z, w)` becomes `(x, −y, −z, w)`. Both maps are their own inverse.

use glam::{Quat, Vec3};

/// A rotation in glTF space as VMC's Unity `(x, y, z, w)`.
pub fn quat_to_unity(q: Quat) -> [f32; 4] {
    [q.x, -q.y, -q.z, q.w]
}

/// A rotation received from VMC, in glTF space.
pub fn quat_from_unity(q: [f32; 4]) -> Quat {
    Quat::from_xyzw(q[0], -q[1], -q[2], q[3])
}

/// A position in glTF space as Unity `(x, y, z)`.
pub fn vec_to_unity(v: Vec3) -> [f32; 3] {
    [-v.x, v.y, v.z]
}

/// A position received from VMC, in glTF space.
pub fn vec_from_unity(v: [f32; 3]) -> Vec3 {
    Vec3::new(-v[0], v[1], v[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotating_mirrored_vectors_matches_mirroring_rotated_ones() {
        // The same physical rotation described in mirrored coordinates: for every vector,
        // rotate-then-mirror equals mirror-then-rotate-by-the-converted-quaternion.
        let q = Quat::from_euler(glam::EulerRot::YXZ, 0.5, -0.3, 0.2);
        let u = quat_to_unity(q);
        let uq = Quat::from_xyzw(u[0], u[1], u[2], u[3]);
        for v in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.3, -1.2, 0.7)] {
            let a = Vec3::from(vec_to_unity(q * v));
            let b = uq * Vec3::from(vec_to_unity(v));
            assert!((a - b).length() < 1e-6, "{a} vs {b}");
        }
        assert!((quat_from_unity(u).dot(q) - 1.0).abs() < 1e-6);
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(vec_from_unity(vec_to_unity(p)), p);
    }
}
