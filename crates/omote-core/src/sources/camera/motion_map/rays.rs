//! Outside the convex hull: the rays from the centre through the hull vertices cut
//! the plane into wedges; a query in a wedge blends the two motions at the ends of its
//! hull edge by where its own ray from the centre meets that edge.

use super::{MapRegion, MotionBlend, MotionMap, cross, sub};

/// One wedge outside the hull, between the rays through hull vertices `a` and `b`
/// (counter-clockwise, positions relative to the centre).
#[derive(Clone, Copy, Debug)]
pub(super) struct Wedge {
    a: [f64; 2],
    /// `b − a`: the hull edge.
    edge: [f64; 2],
    /// `edge × a`; a point `p` is outside the hull edge when `edge × p < edge_cross_a`.
    edge_cross_a: f64,
    points: [u16; 2],
}

impl Wedge {
    /// Whether `p` (relative to the centre) lies beyond the wedge's hull edge.
    #[inline]
    pub(super) fn is_outside(&self, p: [f64; 2]) -> bool {
        cross(self.edge, p) < self.edge_cross_a
    }
}

/// The wedge outside each hull edge, between the rays through its ends.
pub(super) fn hull_wedges(rel: &[[f64; 2]], hull: &[usize]) -> Box<[Wedge]> {
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

impl MotionMap {
    /// The wedge containing `p` (relative to the centre): rays `k` and `k + 1` with
    /// `ray_k × p ≥ 0 > ray_{k+1} × p`. `None` only at the centre itself.
    #[inline]
    pub(super) fn wedge_of(&self, p: [f64; 2]) -> Option<usize> {
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
    pub(super) fn outside(&self, k: usize, p: [f64; 2]) -> MotionBlend {
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
}
