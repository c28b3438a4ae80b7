//! Where the camera is, seen from the face: two angles (α, β) in degrees.
//!
//! Axes are the head's own VRM frame: +Z out of the face (forward), +Y up, +X toward the
//! avatar's left. For a camera at direction `d` in that frame:
//!
//! - **α (horizontal)** `= atan2(d.x, d.z)`, in (−180, 180]: 0 with the camera in front,
//!   +90 at the avatar's left (+X), −90 at its right, 180 straight behind. The sign matches
//!   gaze yaw: eyes turned by yaw = α look along the camera's bearing.
//! - **β (vertical)** `= atan2(d.y, √(d.x² + d.z²))`, in [−90, 90]: positive with the camera
//!   above the face (a high angle, フカン), negative below it (a low angle, アオリ). Gaze
//!   pitch is positive *down*, so the matching pitch is −β.
//!
//! With the camera straight above or below (`d.x = d.z = 0`) α is undefined and reported as
//! 0; with the camera exactly at the head, or any input not finite, the angle is
//! [`CameraAngle::FRONT`]. Nothing here produces NaN.

use glam::{DMat4, DQuat, DVec3, Mat4, Quat, Vec3};

/// The camera's direction relative to the face, in degrees (see the module docs for axes).
///
/// ```
/// use omote_core::{Quat, Vec3, camera::CameraAngle};
/// // A head at 1.5 m looking along +Z; a camera in front, to its left, and up.
/// let head = Vec3::new(0.0, 1.5, 0.0);
/// let a = CameraAngle::from_head(Vec3::new(1.0, 2.5, 1.0), head, Quat::IDENTITY);
/// assert!((a.alpha_deg - 45.0).abs() < 1e-4);
/// assert!((a.beta_deg - 35.264).abs() < 1e-3);
/// // Turning the head 90° to its left (about +Y) puts that camera to its right.
/// let turned = Quat::from_rotation_y(90f32.to_radians());
/// let b = CameraAngle::from_head(Vec3::new(1.0, 2.5, 1.0), head, turned);
/// assert!((b.alpha_deg + 45.0).abs() < 1e-4);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CameraAngle {
    /// Horizontal angle α in (−180, 180]; > 0 toward the avatar's left.
    pub alpha_deg: f64,
    /// Vertical angle β in [−90, 90]; > 0 from above.
    pub beta_deg: f64,
}

impl CameraAngle {
    /// The camera straight in front of the face.
    pub const FRONT: Self = Self::new(0.0, 0.0);

    /// An angle from its two components (not normalised).
    pub const fn new(alpha_deg: f64, beta_deg: f64) -> Self {
        Self {
            alpha_deg,
            beta_deg,
        }
    }

    /// The angle of a direction given in the head's frame (+Z forward, +Y up, +X the
    /// avatar's left). Any length; zero or non-finite gives [`CameraAngle::FRONT`].
    ///
    /// ```
    /// use omote_core::camera::CameraAngle;
    /// use glam::DVec3;
    /// let above = CameraAngle::from_local_direction(DVec3::Y);
    /// assert_eq!((above.alpha_deg, above.beta_deg), (0.0, 90.0));
    /// let behind = CameraAngle::from_local_direction(DVec3::new(-0.0, 0.0, -1.0));
    /// assert_eq!(behind.alpha_deg, 180.0);
    /// ```
    pub fn from_local_direction(dir: DVec3) -> Self {
        if !dir.is_finite() || dir == DVec3::ZERO {
            return Self::FRONT;
        }
        let horizontal = dir.x.hypot(dir.z);
        let alpha = if horizontal == 0.0 {
            0.0
        } else {
            let a = dir.x.atan2(dir.z).to_degrees();
            // atan2 gives −180 for x = −0; report straight behind as +180 only.
            if a <= -180.0 { 180.0 } else { a }
        };
        let beta = dir.y.atan2(horizontal).to_degrees();
        Self::new(alpha, beta)
    }

    /// The angle of a camera at `camera` (world space) seen from a head at `head_position`
    /// with world rotation `head_rotation` (need not be normalised; a zero or non-finite
    /// rotation counts as identity). Computed in `f64`.
    pub fn from_head(camera: Vec3, head_position: Vec3, head_rotation: Quat) -> Self {
        let q = DQuat::from_xyzw(
            head_rotation.x.into(),
            head_rotation.y.into(),
            head_rotation.z.into(),
            head_rotation.w.into(),
        );
        let q = if q.is_finite() && q.length_squared() > 0.0 {
            q.normalize()
        } else {
            DQuat::IDENTITY
        };
        let offset = camera.as_dvec3() - head_position.as_dvec3();
        Self::from_local_direction(q.inverse() * offset)
    }

    /// The angle of a camera at `camera` (world space) seen from a head whose
    /// local-to-world matrix is `head` (scale allowed). A singular or non-finite matrix
    /// gives [`CameraAngle::FRONT`].
    ///
    /// ```
    /// use omote_core::{Quat, Vec3, camera::CameraAngle};
    /// use glam::Mat4;
    /// let head = Mat4::from_scale_rotation_translation(
    ///     Vec3::splat(2.0), Quat::from_rotation_y(std::f32::consts::PI), Vec3::new(0.0, 1.5, 0.0));
    /// // The head is turned around: a camera on world +Z sees the back of it.
    /// let a = CameraAngle::from_head_matrix(Vec3::new(0.0, 1.5, 3.0), head);
    /// assert!((a.alpha_deg.abs() - 180.0).abs() < 1e-4 && a.beta_deg.abs() < 1e-4);
    /// ```
    pub fn from_head_matrix(camera: Vec3, head: Mat4) -> Self {
        let m = DMat4::from_cols_array(&head.to_cols_array().map(f64::from));
        let det = m.determinant();
        if !det.is_finite() || det == 0.0 {
            return Self::FRONT;
        }
        let local = m.inverse().transform_point3(camera.as_dvec3());
        Self::from_local_direction(local)
    }

    /// The unit direction of this angle in the head's frame (the inverse of
    /// [`CameraAngle::from_local_direction`]).
    pub fn to_local_direction(self) -> DVec3 {
        let (a, b) = (self.alpha_deg.to_radians(), self.beta_deg.to_radians());
        DVec3::new(b.cos() * a.sin(), b.sin(), b.cos() * a.cos())
    }

    /// The angle in degrees, in [0, 180], between the two directions on the sphere. Unlike
    /// distances on the (α, β) plane it does not jump at α = ±180 or at the poles.
    ///
    /// ```
    /// use omote_core::camera::CameraAngle;
    /// let d = CameraAngle::new(179.0, 0.0).angle_to(CameraAngle::new(-179.0, 0.0));
    /// assert!((d - 2.0).abs() < 1e-9);
    /// ```
    pub fn angle_to(self, other: Self) -> f64 {
        let (u, v) = (self.to_local_direction(), other.to_local_direction());
        u.cross(v).length().atan2(u.dot(v)).to_degrees()
    }

    /// Whether both components are finite.
    pub fn is_finite(self) -> bool {
        self.alpha_deg.is_finite() && self.beta_deg.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: CameraAngle, alpha: f64, beta: f64) -> bool {
        (a.alpha_deg - alpha).abs() < 1e-5 && (a.beta_deg - beta).abs() < 1e-5
    }

    #[test]
    fn axes_follow_the_vrm_frame() {
        let head = Vec3::new(0.0, 1.0, 0.0);
        let at = |x: f32, y: f32, z: f32| {
            CameraAngle::from_head(Vec3::new(x, y, z) + head, head, Quat::IDENTITY)
        };
        assert!(close(at(0.0, 0.0, 2.0), 0.0, 0.0), "front");
        assert!(close(at(2.0, 0.0, 0.0), 90.0, 0.0), "avatar's left is +α");
        assert!(
            close(at(-2.0, 0.0, 0.0), -90.0, 0.0),
            "avatar's right is −α"
        );
        assert!(close(at(0.0, 0.0, -2.0), 180.0, 0.0), "behind");
        assert!(close(at(0.0, 1.0, 1.0), 0.0, 45.0), "above is +β");
        assert!(close(at(0.0, -1.0, 1.0), 0.0, -45.0), "below is −β");
    }

    #[test]
    fn poles_behind_and_degenerate_inputs_give_finite_angles() {
        let h = Vec3::ZERO;
        let up = CameraAngle::from_head(Vec3::Y, h, Quat::IDENTITY);
        assert_eq!((up.alpha_deg, up.beta_deg), (0.0, 90.0));
        let down = CameraAngle::from_head(-Vec3::Y, h, Quat::IDENTITY);
        assert_eq!((down.alpha_deg, down.beta_deg), (0.0, -90.0));
        for z in [-0.0f64, 0.0] {
            let d = CameraAngle::from_local_direction(DVec3::new(z, 0.0, -1.0));
            assert_eq!(d.alpha_deg, 180.0);
        }
        assert_eq!(
            CameraAngle::from_head(h, h, Quat::IDENTITY),
            CameraAngle::FRONT
        );
        let nan = Vec3::new(f32::NAN, 0.0, 1.0);
        assert_eq!(
            CameraAngle::from_head(nan, h, Quat::IDENTITY),
            CameraAngle::FRONT
        );
        let zero_q = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        assert!(close(CameraAngle::from_head(Vec3::X, h, zero_q), 90.0, 0.0));
        assert_eq!(
            CameraAngle::from_head_matrix(Vec3::X, Mat4::ZERO),
            CameraAngle::FRONT
        );
        // Far away and tiny offsets still work.
        assert!(close(
            CameraAngle::from_head(Vec3::new(1e30, 0.0, 1e30), h, Quat::IDENTITY),
            45.0,
            0.0
        ));
        assert!(close(
            CameraAngle::from_head(Vec3::new(0.0, 1e-30, 1e-30), h, Quat::IDENTITY),
            0.0,
            45.0
        ));
    }

    #[test]
    fn head_rotation_is_undone() {
        // Head pitched down 30° (rotation about +X turns +Z toward −Y): a camera level in
        // front now looks at the face from 30° above.
        let q = Quat::from_rotation_x(30f32.to_radians());
        let a = CameraAngle::from_head(Vec3::Z * 3.0, Vec3::ZERO, q);
        assert!(close(a, 0.0, 30.0), "{a:?}");
        let m = Mat4::from_rotation_translation(q, Vec3::new(0.0, 1.0, 0.0));
        let b = CameraAngle::from_head_matrix(Vec3::new(0.0, 1.0, 3.0), m);
        assert!(close(b, 0.0, 30.0), "{b:?}");
    }

    #[test]
    fn direction_round_trips_and_sphere_distance() {
        for (a, b) in [(0.0, 0.0), (30.0, 20.0), (-120.0, -60.0), (180.0, 10.0)] {
            let angle = CameraAngle::new(a, b);
            let back = CameraAngle::from_local_direction(angle.to_local_direction());
            assert!(close(back, a, b), "{angle:?} → {back:?}");
        }
        let top_a = CameraAngle::new(0.0, 90.0);
        let top_b = CameraAngle::new(135.0, 90.0);
        assert!(top_a.angle_to(top_b) < 1e-9);
        assert!((CameraAngle::FRONT.angle_to(CameraAngle::new(180.0, 0.0)) - 180.0).abs() < 1e-9);
    }
}
