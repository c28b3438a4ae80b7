//! Inside the convex hull: the Delaunay triangulation of the points, and the
//! barycentric weights of the triangle a query falls in.

use super::{MapRegion, MotionBlend, MotionMap, MotionMapError, MotionMapErrorKind, cross, sub};

/// Delaunay triangles (counter-clockwise) and the hull (counter-clockwise, collinear
/// points kept) of `points`, which are distinct. Checks that every point is used and that
/// triangles and hull agree.
pub(super) fn triangulate(
    points: &[[f64; 2]],
) -> Result<(Vec<[usize; 3]>, Vec<usize>), MotionMapError> {
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

/// A triangle prepared for barycentric coordinates: `λ1 = m[0]·d.x + m[1]·d.y`,
/// `λ2 = m[2]·d.x + m[3]·d.y` with `d = P − origin`, `λ0 = 1 − λ1 − λ2`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tri {
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

/// Each triangle with the inverse of its edge matrix (barycentric coordinates of a
/// query); a triangle with no area is an error.
pub(super) fn solved_triangles(
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

impl MotionMap {
    #[inline]
    pub(super) fn inside(&self, p: [f64; 2]) -> MotionBlend {
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
