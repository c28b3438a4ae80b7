//! The checks of a map description: point count, names, angles in range, weights,
//! centre and fade, and the centre strictly inside the hull.

use super::{
    MAX_MOTION_POINTS, MIN_POINT_DISTANCE_DEG, MotionMapDesc, MotionMapError, MotionMapErrorKind,
    MotionPointDesc, cross, sub,
};

/// Checks the points: three to [`MAX_MOTION_POINTS`] of them, each named once, at
/// finite angles in range, with expression weights in [−1, 1], none on another.
pub(super) fn check_points(points: &[MotionPointDesc]) -> Result<(), MotionMapError> {
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
pub(super) fn check_center_and_fade(desc: &MotionMapDesc) -> Result<(), MotionMapError> {
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
pub(super) fn check_center_inside(
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
