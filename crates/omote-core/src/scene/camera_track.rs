//! The scene camera's path: positions at times, interpolated between them.

use glam::Vec3;

use crate::scene::keys::KeyCurve;

/// The camera at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraKey {
    /// Scene time in seconds.
    pub t: f32,
    /// Camera position in scene space (metres; +Y up).
    pub position: Vec3,
    /// How the camera moves from the previous key to this one.
    pub curve: KeyCurve,
}

/// A camera path: held before the first key and after the last, interpolated between.
#[derive(Clone, Debug, Default)]
pub struct CameraTrack {
    keys: Box<[CameraKey]>,
}

impl CameraTrack {
    /// A path through `keys` (sorted here by time).
    pub fn new(mut keys: Vec<CameraKey>) -> Self {
        keys.sort_by(|a, b| a.t.total_cmp(&b.t));
        Self {
            keys: keys.into_boxed_slice(),
        }
    }

    /// Whether the scene has a camera at all.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> &[CameraKey] {
        &self.keys
    }

    /// The camera position at scene time `t`, if there is a camera.
    ///
    /// ```
    /// use omote_core::{Vec3, scene::{CameraKey, CameraTrack, KeyCurve}};
    /// let track = CameraTrack::new(vec![
    ///     CameraKey { t: 0.0, position: Vec3::new(0.0, 1.5, 2.0), curve: KeyCurve::Linear },
    ///     CameraKey { t: 2.0, position: Vec3::new(2.0, 1.5, 2.0), curve: KeyCurve::Linear },
    /// ]);
    /// assert_eq!(track.position(1.0), Some(Vec3::new(1.0, 1.5, 2.0)));
    /// assert_eq!(track.position(9.0), Some(Vec3::new(2.0, 1.5, 2.0)));
    /// ```
    pub fn position(&self, t: f32) -> Option<Vec3> {
        let first = self.keys.first()?;
        let i = self.keys.partition_point(|k| k.t <= t);
        if i == 0 {
            return Some(first.position);
        }
        let a = &self.keys[i - 1];
        let Some(b) = self.keys.get(i) else {
            return Some(a.position);
        };
        let span = b.t - a.t;
        let x = if span > 0.0 { (t - a.t) / span } else { 1.0 };
        Some(a.position.lerp(b.position, b.curve.eval(x)))
    }
}
