//! The camera motion map: correction motions placed at camera angles (α, β), blended by
//! where the camera is (docs/design.md § Camera correction, 自動顔変形).
//!
//! # How weights are computed
//!
//! The points are triangulated (Delaunay). Work relative to the map's centre `c`:
//!
//! - **Inside the convex hull** the camera angle lies in a triangle; its three motions get
//!   the barycentric coordinates of the angle as weights.
//! - **Outside the hull** the rays from `c` through every hull vertex (collinear hull points
//!   included) split the plane into wedges. In the wedge bounded by hull vertices `A` and
//!   `B` (centre at the origin), the ray from `c` through the angle `P` meets the hull edge
//!   `AB` at `A + t (B − A)` with `t = (P × A) / (P × (A − B))`; `A` gets `1 − t`, `B` gets `t`.
//!   Far away the weights depend on the direction from the centre only.
//!
//! Both rules agree on the hull and along the rays, so the weights are continuous on the
//! whole (α, β) plane, never negative, sum to 1, and at most three are non-zero.
//!
//! The plane is not the sphere: it is cut at α = ±180 (behind the head) and squeezed at
//! β = ±90 (straight above or below), where a tiny camera move can change α a lot, so the
//! weights may jump across the cut and at the poles. An optional [`FadeDesc`] fades the
//! whole correction out with the distance from the centre; with `end ≤ 180 − |centre α|`
//! the correction is zero all along the cut, which hides it. Near the poles keep the
//! motions similar, or accept that α is unstable there.
//!
//! Map math is `f64`; queries allocate nothing.
//!
//! The parts: the map as data (`desc.rs`) and its checks (`validate.rs`, errors in
//! `error.rs`); the triangulation and the weights inside the hull (`delaunay.rs`); the
//! rays and the weights outside it (`rays.rs`); a query's answer (`blend.rs`). Resolved
//! against a rig, a map drives a face through
//! [`CameraCorrection`](crate::CameraCorrection) (`camera_correction.rs`).
//!
//! ```
//! use omote_core::{MotionMap, camera::{MotionMapDesc, MotionPointDesc}};
//! let point = |name: &str, alpha, beta| MotionPointDesc::new(name, alpha, beta);
//! let desc = MotionMapDesc::new(vec![
//!     point("front", 0.0, 0.0),
//!     point("left", 90.0, 0.0),
//!     point("high", 0.0, 60.0),
//!     point("low", 0.0, -60.0),
//!     point("right", -90.0, 0.0),
//! ]);
//! let map = MotionMap::new(&desc).unwrap();
//! let mut w = [0.0; 5];
//! map.weights_into(45.0, 0.0, &mut w); // halfway between front and left
//! assert!((w[0] - 0.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12);
//! map.weights_into(90.0, 60.0, &mut w); // beyond the middle of the hull edge left–high
//! assert!((w[1] - 0.5).abs() < 1e-12 && (w[2] - 0.5).abs() < 1e-12);
//! map.weights_into(180.0, 0.0, &mut w); // far out on the ray through `left`
//! assert_eq!(w, [0.0, 1.0, 0.0, 0.0, 0.0]);
//! ```

mod blend;
mod delaunay;
mod desc;
mod error;
mod rays;
mod validate;

pub use blend::{MapRegion, MotionBlend};
pub use desc::{FadeDesc, MapCenter, MotionMapDesc, MotionPointDesc};
pub use error::{MotionMapError, MotionMapErrorKind};

use delaunay::{Tri, solved_triangles, triangulate};
use rays::{Wedge, hull_wedges};
use validate::{check_center_and_fade, check_center_inside, check_points};

/// The most points a map may have.
pub const MAX_MOTION_POINTS: usize = 1024;

/// Points closer than this (degrees) count as the same point.
pub const MIN_POINT_DISTANCE_DEG: f64 = 1e-6;

/// A validated motion map, ready for queries.
///
/// Build it from a [`MotionMapDesc`] (usually read by `omote-config`), then ask for the
/// weights at a camera angle with [`MotionMap::weights_into`] or [`MotionMap::blend`]. To
/// drive a face, resolve it against a rig with
/// [`CameraCorrection`](crate::CameraCorrection).
#[derive(Clone, Debug)]
pub struct MotionMap {
    desc: MotionMapDesc,
    center: [f64; 2],
    fade: Option<FadeDesc>,
    /// Triangles, counter-clockwise, as point indices.
    triangles: Box<[[usize; 3]]>,
    /// Hull vertices, counter-clockwise, collinear ones included.
    hull: Box<[usize]>,
    tris: Box<[Tri]>,
    wedges: Box<[Wedge]>,
    /// `cross(hull ray k, p)` is evaluated against these (hull positions rel. centre).
    rays: Box<[[f64; 2]]>,
}

impl MotionMap {
    /// Validate and triangulate a map: at least three points, not all on one line, finite
    /// angles in range, unique names and positions, expression weights in [−1, 1], and the
    /// centre strictly inside the convex hull. Errors name the field at fault.
    pub fn new(desc: &MotionMapDesc) -> Result<Self, MotionMapError> {
        check_points(&desc.points)?;
        check_center_and_fade(desc)?;

        let center = [desc.center.alpha, desc.center.beta];
        let rel: Vec<[f64; 2]> = desc
            .points
            .iter()
            .map(|p| sub([p.alpha, p.beta], center))
            .collect();
        let (triangles, hull) = triangulate(&rel)?;
        check_center_inside(&rel, &hull, center)?;
        let tris = solved_triangles(&rel, &triangles)?;
        let wedges = hull_wedges(&rel, &hull);
        let rays = hull.iter().map(|&i| rel[i]).collect();
        Ok(Self {
            desc: desc.clone(),
            center,
            fade: desc.fade,
            triangles: triangles.into_boxed_slice(),
            hull: hull.into_boxed_slice(),
            tris,
            wedges,
            rays,
        })
    }

    /// Number of points (motions).
    pub fn len(&self) -> usize {
        self.desc.points.len()
    }

    /// Always false: a valid map has at least three points.
    pub fn is_empty(&self) -> bool {
        self.desc.points.is_empty()
    }

    /// The points in file order.
    pub fn points(&self) -> &[MotionPointDesc] {
        &self.desc.points
    }

    /// Name of point `index`.
    pub fn name(&self, index: usize) -> &str {
        &self.desc.points[index].name
    }

    /// Index of the point with this name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.desc.points.iter().position(|p| p.name == name)
    }

    /// The centre (α, β).
    pub fn center(&self) -> [f64; 2] {
        self.center
    }

    /// The Delaunay triangles as point indices, counter-clockwise in (α, β).
    pub fn triangles(&self) -> &[[usize; 3]] {
        &self.triangles
    }

    /// The convex hull as point indices, counter-clockwise in (α, β), collinear points
    /// included; the rays start at the centre and pass through these.
    pub fn hull(&self) -> &[usize] {
        &self.hull
    }

    /// The description the map was built from.
    pub fn desc(&self) -> &MotionMapDesc {
        &self.desc
    }

    /// The weights at (α, β) in sparse form. Non-finite input counts as the centre.
    pub fn blend(&self, alpha: f64, beta: f64) -> MotionBlend {
        let mut p = if alpha.is_finite() && beta.is_finite() {
            [alpha - self.center[0], beta - self.center[1]]
        } else {
            [0.0, 0.0]
        };
        // Far out only the direction matters; keep products of coordinates finite.
        let extent = p[0].abs().max(p[1].abs());
        if extent > FAR {
            p = [p[0] / extent * FAR, p[1] / extent * FAR];
        }
        match self.wedge_of(p) {
            Some(k) if self.wedges[k].is_outside(p) => self.outside(k, p),
            _ => self.inside(p),
        }
    }

    /// A camera direction given from outside (a query, a file) checked and made canonical:
    /// `alpha` (around the head) wrapped into [−180°, 180°) — 360° is 0° —, `beta` (above
    /// or below) refused outside [−90°, 90°], where there is no direction; NaN and
    /// infinities refused. The error names the field (`alpha`, `beta`).
    pub fn check_angles(alpha: f64, beta: f64) -> Result<(f64, f64), MotionMapError> {
        if !alpha.is_finite() {
            return Err(MotionMapError::new("alpha", MotionMapErrorKind::NonFinite));
        }
        if !beta.is_finite() {
            return Err(MotionMapError::new("beta", MotionMapErrorKind::NonFinite));
        }
        if beta.abs() > 90.0 {
            return Err(MotionMapError::new(
                "beta",
                MotionMapErrorKind::OutOfRange {
                    value: beta,
                    min: -90.0,
                    max: 90.0,
                },
            ));
        }
        let wrapped = (alpha + 180.0).rem_euclid(360.0) - 180.0;
        Ok((wrapped, beta))
    }

    /// Write the weight of every point, in file order, into `out` (length [`len`]). The
    /// weights are ≥ 0 and sum to 1. Allocates nothing.
    ///
    /// [`len`]: MotionMap::len
    ///
    /// # Panics
    /// If `out.len() != self.len()`.
    pub fn weights_into(&self, alpha: f64, beta: f64, out: &mut [f64]) {
        assert_eq!(out.len(), self.len(), "one weight per point");
        let blend = self.blend(alpha, beta);
        out.fill(0.0);
        for (i, w) in blend.iter() {
            out[i] = w;
        }
    }

    /// The weights as a new vector (allocates; for tools and tests).
    pub fn weights(&self, alpha: f64, beta: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.len()];
        self.weights_into(alpha, beta, &mut out);
        out
    }

    /// How much of the correction applies at (α, β): 1 without a fade, else 1 up to
    /// `fade.start` degrees from the centre, 0 from `fade.end`, smoothstep between (see
    /// [`FadeDesc`]). Non-finite input counts as the centre.
    ///
    /// ```
    /// use omote_core::{MotionMap, camera::{FadeDesc, MotionMapDesc, MotionPointDesc}};
    /// let mut desc = MotionMapDesc::new(vec![
    ///     MotionPointDesc::new("front", 0.0, -30.0),
    ///     MotionPointDesc::new("left", 90.0, 20.0),
    ///     MotionPointDesc::new("right", -90.0, 20.0),
    /// ]);
    /// desc.fade = Some(FadeDesc { start: 120.0, end: 160.0 });
    /// let map = MotionMap::new(&desc).unwrap();
    /// assert_eq!(map.fade(100.0, 0.0), 1.0);
    /// assert_eq!(map.fade(140.0, 0.0), 0.5);
    /// assert_eq!(map.fade(180.0, 45.0), 0.0); // behind the head
    /// ```
    pub fn fade(&self, alpha: f64, beta: f64) -> f64 {
        let Some(f) = self.fade else { return 1.0 };
        if !(alpha.is_finite() && beta.is_finite()) {
            return 1.0;
        }
        let d = (alpha - self.center[0]).hypot(beta - self.center[1]);
        let x = ((d - f.start) / (f.end - f.start)).clamp(0.0, 1.0);
        1.0 - x * x * (3.0 - 2.0 * x)
    }
}

/// Beyond this distance from the centre (degrees) queries are pulled in along their ray;
/// points are at most ~400° from the centre, so the result is unchanged.
const FAR: f64 = 1e6;

#[inline]
fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

#[inline]
fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

#[cfg(test)]
mod tests;
