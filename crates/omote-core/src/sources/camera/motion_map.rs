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

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The most points a map may have.
pub const MAX_MOTION_POINTS: usize = 1024;

/// Points closer than this (degrees) count as the same point.
pub const MIN_POINT_DISTANCE_DEG: f64 = 1e-6;

/// A motion map as data (what a map file holds).
///
/// In TOML:
///
/// ```toml
/// [center]            # optional, default 0, 0; must lie strictly inside the hull
/// alpha = 0
/// beta = 0
///
/// [fade]              # optional: fade the correction out away from the centre
/// start = 110         # distance from the centre on the (α, β) plane: full below …
/// end = 150           # … and none beyond
///
/// [[point]]
/// name = "left"
/// alpha = 70          # degrees, > 0 toward the avatar's left
/// beta = 0            # degrees, > 0 from above
/// clip = "left-fix"   # optional: a named clip the application supplies
/// [point.expressions] # channel weights added at this angle, each in [-1, 1]
/// mouthLeft = 0.2
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionMapDesc {
    /// The point the hull rays start from.
    #[serde(default)]
    pub center: MapCenter,
    /// Optional fade-out of the whole correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fade: Option<FadeDesc>,
    /// The correction motions and where they sit, in file order (`[[point]]`).
    #[serde(default, rename = "point")]
    pub points: Vec<MotionPointDesc>,
}

impl MotionMapDesc {
    /// A map of these points around the default centre (0, 0) with no fade.
    pub fn new(points: Vec<MotionPointDesc>) -> Self {
        Self {
            points,
            ..Self::default()
        }
    }
}

/// The centre of a motion map (`[center]`), degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapCenter {
    /// Horizontal angle α.
    #[serde(default)]
    pub alpha: f64,
    /// Vertical angle β.
    #[serde(default)]
    pub beta: f64,
}

/// Fade-out of the whole correction with the distance `r = |(α, β) − centre|` (degrees,
/// on the plane): 1 up to `start`, 0 from `end` on, smoothstep between. With
/// `end ≤ 180 − |centre α|` the correction is 0 all along the cut at α = ±180 (the camera
/// behind the head), so it stays continuous as the camera circles the head.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FadeDesc {
    /// Radius (degrees) where fading starts, in [0, 360).
    pub start: f64,
    /// Radius (degrees) where the correction is gone, in (start, 360].
    pub end: f64,
}

/// One correction motion and its place on the map (`[[point]]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionPointDesc {
    /// A unique, non-empty name (`front`, `left`, `low-left`, …).
    pub name: String,
    /// Horizontal camera angle α in [−180, 180].
    pub alpha: f64,
    /// Vertical camera angle β in [−90, 90].
    pub beta: f64,
    /// Channel weights this motion adds, by channel name, each in [−1, 1].
    #[serde(default)]
    pub expressions: BTreeMap<String, f32>,
    /// A clip, by name, played additively with this motion's weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
}

impl MotionPointDesc {
    /// A point with no expressions and no clip.
    pub fn new(name: impl Into<String>, alpha: f64, beta: f64) -> Self {
        Self {
            name: name.into(),
            alpha,
            beta,
            ..Self::default()
        }
    }

    /// Builder-style: add a channel weight.
    pub fn with(mut self, channel: impl Into<String>, weight: f32) -> Self {
        self.expressions.insert(channel.into(), weight);
        self
    }
}

/// Why a motion map could not be built: the field at fault in map-file terms
/// (`point[3].alpha`, `center`, …) and what is wrong with it.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{field}: {kind}")]
pub struct MotionMapError {
    /// Where: `point[3].alpha`, `point[1].expressions.happy`, `center`, `fade.end`, `point`.
    pub field: String,
    /// What.
    pub kind: MotionMapErrorKind,
}

/// What is wrong in a [`MotionMapError`].
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum MotionMapErrorKind {
    /// Fewer than three points.
    #[error("a motion map needs at least 3 points, found {count}")]
    TooFewPoints {
        /// How many were given.
        count: usize,
    },
    /// More than [`MAX_MOTION_POINTS`].
    #[error("{count} points; at most {max} are supported")]
    TooManyPoints {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// NaN or infinite.
    #[error("must be finite")]
    NonFinite,
    /// Outside its allowed interval.
    #[error("{value} is outside [{min}, {max}]")]
    OutOfRange {
        /// The value given.
        value: f64,
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// A point without a name.
    #[error("must not be empty")]
    EmptyName,
    /// Two points share a name.
    #[error("`{name}` is already the name of point[{first}]")]
    DuplicateName {
        /// The name.
        name: String,
        /// The earlier point with it.
        first: usize,
    },
    /// Two points at the same place.
    #[error(
        "({alpha}, {beta}) is the position of point[{first}] `{first_name}` (points must be at least {MIN_POINT_DISTANCE_DEG}° apart)"
    )]
    DuplicatePosition {
        /// α of this point.
        alpha: f64,
        /// β of this point.
        beta: f64,
        /// The earlier point there.
        first: usize,
        /// Its name.
        first_name: String,
    },
    /// All points on one line.
    #[error("all points lie on one line; at least three must not be collinear")]
    Collinear,
    /// The centre is on or outside the hull.
    #[error("({alpha}, {beta}) is not strictly inside the convex hull of the points")]
    CenterOutsideHull {
        /// α of the centre.
        alpha: f64,
        /// β of the centre.
        beta: f64,
    },
    /// `fade.end` not after `fade.start`.
    #[error("end ({end}) must be greater than start ({start})")]
    FadeOrder {
        /// `fade.start`.
        start: f64,
        /// `fade.end`.
        end: f64,
    },
    /// An expression name the rig lacks.
    #[error("no channel named `{name}` in the rig")]
    UnknownChannel {
        /// The name.
        name: String,
    },
    /// A clip name nobody supplied.
    #[error("no clip named `{name}`")]
    UnknownClip {
        /// The name.
        name: String,
    },
    /// The triangulation came out unusable (points nearly on one line or nearly equal).
    #[error("the points cannot be triangulated: {reason}")]
    Degenerate {
        /// Details.
        reason: String,
    },
}

impl MotionMapError {
    fn new(field: impl Into<String>, kind: MotionMapErrorKind) -> Self {
        Self {
            field: field.into(),
            kind,
        }
    }
}

/// Which rule produced a set of weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapRegion {
    /// Inside the hull, in triangle `index` of [`MotionMap::triangles`].
    Triangle(usize),
    /// Outside the hull, in the wedge of hull edge `index`: between hull vertices
    /// `hull[index]` and `hull[index + 1]` (cyclically) of [`MotionMap::hull`].
    Outside(usize),
}

/// The weights of one query in sparse form: at most three motions, weights summing to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionBlend {
    points: [u16; 3],
    weights: [f64; 3],
    len: u8,
    region: MapRegion,
}

impl MotionBlend {
    /// `(point index, weight)` for the motions of the triangle (three) or hull edge (two)
    /// the query fell in; some weights may be 0.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let n = self.len as usize;
        self.points[..n]
            .iter()
            .zip(&self.weights[..n])
            .map(|(&p, &w)| (p as usize, w))
    }

    /// Which rule produced the weights.
    pub fn region(&self) -> MapRegion {
        self.region
    }

    /// The weight of point `index` (0 if it does not take part).
    pub fn weight(&self, index: usize) -> f64 {
        self.iter()
            .find(|&(p, _)| p == index)
            .map_or(0.0, |(_, w)| w)
    }
}

/// A triangle prepared for barycentric coordinates: `λ1 = m[0]·d.x + m[1]·d.y`,
/// `λ2 = m[2]·d.x + m[3]·d.y` with `d = P − origin`, `λ0 = 1 − λ1 − λ2`.
#[derive(Clone, Copy, Debug)]
struct Tri {
    origin: [f64; 2],
    m: [f64; 4],
    points: [u16; 3],
}

impl Tri {
    #[inline]
    fn coords(&self, p: [f64; 2]) -> [f64; 3] {
        let (dx, dy) = (p[0] - self.origin[0], p[1] - self.origin[1]);
        let l1 = self.m[0] * dx + self.m[1] * dy;
        let l2 = self.m[2] * dx + self.m[3] * dy;
        [1.0 - l1 - l2, l1, l2]
    }
}

/// One wedge outside the hull, between the rays through hull vertices `a` and `b`
/// (counter-clockwise, positions relative to the centre).
#[derive(Clone, Copy, Debug)]
struct Wedge {
    a: [f64; 2],
    /// `b − a`: the hull edge.
    edge: [f64; 2],
    /// `edge × a`; a point `p` is outside the hull edge when `edge × p < edge_cross_a`.
    edge_cross_a: f64,
    points: [u16; 2],
}

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

/// Checks the points: three to [`MAX_MOTION_POINTS`] of them, each named once, at
/// finite angles in range, with expression weights in [−1, 1], none on another.
fn check_points(points: &[MotionPointDesc]) -> Result<(), MotionMapError> {
    use MotionMapErrorKind as K;
    let n = points.len();
    if n < 3 {
        return Err(MotionMapError::new("point", K::TooFewPoints { count: n }));
    }
    if n > MAX_MOTION_POINTS {
        return Err(MotionMapError::new(
            "point",
            K::TooManyPoints {
                count: n,
                max: MAX_MOTION_POINTS,
            },
        ));
    }
    for (i, p) in points.iter().enumerate() {
        if p.name.is_empty() {
            return Err(MotionMapError::new(
                format!("point[{i}].name"),
                K::EmptyName,
            ));
        }
        if let Some(first) = points[..i].iter().position(|q| q.name == p.name) {
            return Err(MotionMapError::new(
                format!("point[{i}].name"),
                K::DuplicateName {
                    name: p.name.clone(),
                    first,
                },
            ));
        }
        check_angle(format!("point[{i}].alpha"), p.alpha, 180.0)?;
        check_angle(format!("point[{i}].beta"), p.beta, 90.0)?;
        check_point_weights(i, p)?;
        let near = |q: &MotionPointDesc| {
            (q.alpha - p.alpha).hypot(q.beta - p.beta) < MIN_POINT_DISTANCE_DEG
        };
        if let Some(first) = points[..i].iter().position(near) {
            return Err(MotionMapError::new(
                format!("point[{i}]"),
                K::DuplicatePosition {
                    alpha: p.alpha,
                    beta: p.beta,
                    first,
                    first_name: points[first].name.clone(),
                },
            ));
        }
    }
    Ok(())
}

/// Checks point `i`'s expression weights: finite, in [−1, 1].
fn check_point_weights(i: usize, p: &MotionPointDesc) -> Result<(), MotionMapError> {
    use MotionMapErrorKind as K;
    for (channel, &w) in &p.expressions {
        let field = format!("point[{i}].expressions.{channel}");
        if !w.is_finite() {
            return Err(MotionMapError::new(field, K::NonFinite));
        }
        if w.abs() > 1.0 {
            return Err(MotionMapError::new(
                field,
                K::OutOfRange {
                    value: w.into(),
                    min: -1.0,
                    max: 1.0,
                },
            ));
        }
    }
    Ok(())
}

/// Checks the centre's angles and the fade: from 0 to 360°, its end past its start.
fn check_center_and_fade(desc: &MotionMapDesc) -> Result<(), MotionMapError> {
    use MotionMapErrorKind as K;
    check_angle("center.alpha".into(), desc.center.alpha, 180.0)?;
    check_angle("center.beta".into(), desc.center.beta, 90.0)?;
    if let Some(f) = desc.fade {
        check_angle("fade.start".into(), f.start, 360.0)?;
        check_angle("fade.end".into(), f.end, 360.0)?;
        if f.start < 0.0 {
            return Err(MotionMapError::new(
                "fade.start",
                K::OutOfRange {
                    value: f.start,
                    min: 0.0,
                    max: 360.0,
                },
            ));
        }
        if f.end <= f.start {
            return Err(MotionMapError::new(
                "fade",
                K::FadeOrder {
                    start: f.start,
                    end: f.end,
                },
            ));
        }
    }
    Ok(())
}

/// The centre must be strictly inside every hull edge (relative coordinates: the
/// centre is the origin). Points are at most ~400° apart, so a margin of 1e-9 of the
/// edge length keeps the wedge rays well apart.
fn check_center_inside(
    rel: &[[f64; 2]],
    hull: &[usize],
    center: [f64; 2],
) -> Result<(), MotionMapError> {
    let m = hull.len();
    for k in 0..m {
        let (a, b) = (rel[hull[k]], rel[hull[(k + 1) % m]]);
        let e = sub(b, a);
        let len = e[0].hypot(e[1]);
        // Distance of the origin from the edge line, positive inside.
        let inside = cross(e, sub([0.0, 0.0], a)) / len;
        if inside.is_nan() || inside <= 1e-9 * len.max(1.0) {
            return Err(MotionMapError::new(
                "center",
                MotionMapErrorKind::CenterOutsideHull {
                    alpha: center[0],
                    beta: center[1],
                },
            ));
        }
    }
    Ok(())
}

/// Each triangle with the inverse of its edge matrix (barycentric coordinates of a
/// query); a triangle with no area is an error.
fn solved_triangles(
    rel: &[[f64; 2]],
    triangles: &[[usize; 3]],
) -> Result<Box<[Tri]>, MotionMapError> {
    let tris = triangles
        .iter()
        .map(|t| {
            let (a, b, c) = (rel[t[0]], rel[t[1]], rel[t[2]]);
            let (e1, e2) = (sub(b, a), sub(c, a));
            let det = cross(e1, e2);
            Tri {
                origin: a,
                m: [e2[1] / det, -e2[0] / det, -e1[1] / det, e1[0] / det],
                points: t.map(|i| i as u16),
            }
        })
        .collect::<Box<[Tri]>>();
    if tris.iter().any(|t| !t.m.iter().all(|v| v.is_finite())) {
        return Err(MotionMapError::new(
            "point",
            MotionMapErrorKind::Degenerate {
                reason: "a triangle has no area".into(),
            },
        ));
    }
    Ok(tris)
}

/// The wedge outside each hull edge, between the rays through its ends.
fn hull_wedges(rel: &[[f64; 2]], hull: &[usize]) -> Box<[Wedge]> {
    let m = hull.len();
    (0..m)
        .map(|k| {
            let (ia, ib) = (hull[k], hull[(k + 1) % m]);
            let (a, b) = (rel[ia], rel[ib]);
            let edge = sub(b, a);
            Wedge {
                a,
                edge,
                edge_cross_a: cross(edge, a),
                points: [ia as u16, ib as u16],
            }
        })
        .collect()
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

fn check_angle(field: String, value: f64, limit: f64) -> Result<(), MotionMapError> {
    if !value.is_finite() {
        return Err(MotionMapError::new(field, MotionMapErrorKind::NonFinite));
    }
    if value.abs() > limit {
        return Err(MotionMapError::new(
            field,
            MotionMapErrorKind::OutOfRange {
                value,
                min: -limit,
                max: limit,
            },
        ));
    }
    Ok(())
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
            Some(k) => {
                let w = &self.wedges[k];
                if cross(w.edge, p) < w.edge_cross_a {
                    return self.outside(k, p);
                }
                self.inside(p)
            }
            None => self.inside(p),
        }
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

    /// The wedge containing `p` (relative to the centre): rays `k` and `k + 1` with
    /// `ray_k × p ≥ 0 > ray_{k+1} × p`. `None` only at the centre itself.
    #[inline]
    fn wedge_of(&self, p: [f64; 2]) -> Option<usize> {
        let m = self.rays.len();
        let mut s = cross(self.rays[0], p);
        for k in 0..m {
            let next = cross(self.rays[if k + 1 == m { 0 } else { k + 1 }], p);
            if s >= 0.0 && next < 0.0 {
                return Some(k);
            }
            s = next;
        }
        None
    }

    #[inline]
    fn outside(&self, k: usize, p: [f64; 2]) -> MotionBlend {
        let w = &self.wedges[k];
        // t = (P × A) / (P × (A − B)) = (P × A) / (edge × P); both negative out here.
        let t = (cross(p, w.a) / cross(w.edge, p)).clamp(0.0, 1.0);
        // `+ 0.0` turns −0 into +0, so no weight prints as "-0".
        let t = if t.is_nan() { 0.0 } else { t + 0.0 };
        MotionBlend {
            points: [w.points[0], w.points[1], 0],
            weights: [1.0 - t, t, 0.0],
            len: 2,
            region: MapRegion::Outside(k),
        }
    }

    #[inline]
    fn inside(&self, p: [f64; 2]) -> MotionBlend {
        // The first triangle that contains p; failing that (rounding at an edge), the one
        // it is least outside of.
        let mut best = (f64::NEG_INFINITY, 0, [1.0, 0.0, 0.0]);
        for (i, t) in self.tris.iter().enumerate() {
            let l = t.coords(p);
            let min = l[0].min(l[1]).min(l[2]);
            if min >= 0.0 {
                best = (min, i, l);
                break;
            }
            if min > best.0 {
                best = (min, i, l);
            }
        }
        let (min, i, mut l) = best;
        if min >= 0.0 {
            l = l.map(|v| v + 0.0); // −0 → +0
        } else {
            for v in &mut l {
                *v = v.max(0.0);
            }
            let sum = l[0] + l[1] + l[2];
            for v in &mut l {
                *v /= sum;
            }
        }
        MotionBlend {
            points: self.tris[i].points,
            weights: l,
            len: 3,
            region: MapRegion::Triangle(i),
        }
    }
}

/// Delaunay triangles (counter-clockwise) and the hull (counter-clockwise, collinear
/// points kept) of `points`, which are distinct. Checks that every point is used and that
/// triangles and hull agree.
fn triangulate(points: &[[f64; 2]]) -> Result<(Vec<[usize; 3]>, Vec<usize>), MotionMapError> {
    let degenerate =
        |reason: String| MotionMapError::new("point", MotionMapErrorKind::Degenerate { reason });
    let input: Vec<delaunator::Point> = points
        .iter()
        .map(|p| delaunator::Point { x: p[0], y: p[1] })
        .collect();
    let tri = delaunator::triangulate(&input);
    if tri.is_empty() {
        return Err(MotionMapError::new("point", MotionMapErrorKind::Collinear));
    }
    let mut triangles: Vec<[usize; 3]> = tri
        .triangles
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    let mut area = 0.0;
    for t in &mut triangles {
        let a = cross(
            sub(points[t[1]], points[t[0]]),
            sub(points[t[2]], points[t[0]]),
        );
        if a < 0.0 {
            t.swap(1, 2);
        }
        area += a.abs() / 2.0;
    }
    let mut used = vec![false; points.len()];
    for &i in triangles.iter().flatten() {
        used[i] = true;
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(MotionMapError::new(
            format!("point[{i}]"),
            MotionMapErrorKind::Degenerate {
                reason: "the point is too close to another to be triangulated".into(),
            },
        ));
    }

    let mut hull = tri.hull;
    let polygon_area = |h: &[usize]| {
        (0..h.len())
            .map(|k| cross(points[h[k]], points[h[(k + 1) % h.len()]]))
            .sum::<f64>()
            / 2.0
    };
    if polygon_area(&hull) < 0.0 {
        hull.reverse();
    }
    let hull_area = polygon_area(&hull);
    if (hull_area - area).abs() > 1e-9 * hull_area.max(1.0) {
        return Err(degenerate(format!(
            "triangles cover {area} square degrees, the hull {hull_area}"
        )));
    }
    // Every hull edge must be a triangle edge with the triangle on its left.
    let m = hull.len();
    for k in 0..m {
        let (a, b) = (hull[k], hull[(k + 1) % m]);
        let has = triangles
            .iter()
            .any(|t| (0..3).any(|j| t[j] == a && t[(j + 1) % 3] == b));
        if !has {
            return Err(degenerate(format!(
                "hull edge point[{a}]–point[{b}] is not a triangle edge"
            )));
        }
    }
    Ok((triangles, hull))
}

#[cfg(test)]
mod tests;
