//! Weighted orthogonal Procrustes (MediaPipe's `procrustes_solver.cc`): the
//! similarity transform `target ≈ s·R·source + t` minimising the weighted squared
//! error, with `R` a proper rotation. Includes the small 3x3 symmetric
//! eigen-solver it needs. All in `f64`.

// Small fixed-size matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

/// A 3x3 matrix, row-major: `m[row][column]`.
pub type Mat3 = [[f64; 3]; 3];

/// A similarity transform `p ↦ scale · rotation · p + translation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Similarity {
    /// Uniform scale.
    pub scale: f64,
    /// Proper rotation (determinant +1).
    pub rotation: Mat3,
    /// Translation.
    pub translation: [f64; 3],
}

impl Similarity {
    /// The transform as a row-major 4x4 matrix `[s·R | t; 0 0 0 1]`.
    pub fn to_matrix(&self) -> [[f64; 4]; 4] {
        let mut m = [[0.0; 4]; 4];
        for r in 0..3 {
            for c in 0..3 {
                m[r][c] = self.scale * self.rotation[r][c];
            }
            m[r][3] = self.translation[r];
        }
        m[3][3] = 1.0;
        m
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn mul_vec(m: &Mat3, v: [f64; 3]) -> [f64; 3] {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations.
/// Returns eigenvalues in descending order and the matching unit eigenvectors.
pub fn symmetric_eigen(m: &Mat3) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut a = *m;
    let mut v: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..50 {
        let off = a[0][1].powi(2) + a[0][2].powi(2) + a[1][2].powi(2);
        let diag = a[0][0].powi(2) + a[1][1].powi(2) + a[2][2].powi(2);
        if off <= 1e-30 * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // a <- Jᵀ a J, with J the rotation in the (p, q) plane.
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    let values = order.map(|i| a[i][i]);
    let vectors = order.map(|i| [v[0][i], v[1][i], v[2][i]]);
    (values, vectors)
}

/// Any unit vector perpendicular to the unit vector `a`.
fn perpendicular(a: [f64; 3]) -> [f64; 3] {
    let helper = if a[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let p = cross(a, helper);
    let n = norm(p);
    [p[0] / n, p[1] / n, p[2] / n]
}

/// The rotation `R` (det +1) maximising `trace(Rᵀ·A)`, i.e. `U·diag(1, 1, ±1)·Vᵀ`
/// from the SVD `A = U·Σ·Vᵀ`. `None` if `A` is zero or not finite.
pub fn nearest_rotation(a: &Mat3) -> Option<Mat3> {
    if !a.iter().flatten().all(|v| v.is_finite()) {
        return None;
    }
    let mut ata = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            ata[r][c] = (0..3).map(|k| a[k][r] * a[k][c]).sum();
        }
    }
    let (_, v) = symmetric_eigen(&ata);
    let av1 = mul_vec(a, v[0]);
    let n1 = norm(av1);
    if n1.is_nan() || n1 <= 0.0 {
        return None;
    }
    let u1 = av1.map(|x| x / n1);
    let av2 = mul_vec(a, v[1]);
    let proj = dot(u1, av2);
    let r2 = [
        av2[0] - proj * u1[0],
        av2[1] - proj * u1[1],
        av2[2] - proj * u1[2],
    ];
    let n2 = norm(r2);
    let u2 = if n2 > 1e-12 * n1 {
        r2.map(|x| x / n2)
    } else {
        perpendicular(u1)
    };
    let mut u3 = cross(u1, u2);
    let det_v = dot(v[0], cross(v[1], v[2]));
    if det_v < 0.0 {
        u3 = u3.map(|x| -x);
    }
    let u = [u1, u2, u3];
    let mut rot = [[0.0; 3]; 3];
    for (r, row) in rot.iter_mut().enumerate() {
        for (c, out) in row.iter_mut().enumerate() {
            *out = (0..3).map(|i| u[i][r] * v[i][c]).sum();
        }
    }
    Some(rot)
}

/// Solves `target ≈ s·R·source + t` with per-point `weights` (points with weight 0
/// are ignored). `None` when the weights sum to zero or the problem is degenerate.
pub fn weighted_procrustes(
    source: &[[f64; 3]],
    target: &[[f64; 3]],
    weights: &[f64],
) -> Option<Similarity> {
    let n = source.len().min(target.len()).min(weights.len());
    let total: f64 = weights[..n].iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    // Weighted centres.
    let mut cs = [0.0; 3];
    let mut ct = [0.0; 3];
    for i in 0..n {
        for k in 0..3 {
            cs[k] += weights[i] * source[i][k];
            ct[k] += weights[i] * target[i][k];
        }
    }
    let cs = cs.map(|v| v / total);
    let ct = ct.map(|v| v / total);
    // Cross-covariance A = Σ w·target·(source - cs)ᵀ, and the source spread.
    let mut a = [[0.0; 3]; 3];
    let mut spread = 0.0;
    for i in 0..n {
        let w = weights[i];
        if w == 0.0 {
            continue;
        }
        let ds = [
            source[i][0] - cs[0],
            source[i][1] - cs[1],
            source[i][2] - cs[2],
        ];
        for r in 0..3 {
            for c in 0..3 {
                a[r][c] += w * target[i][r] * ds[c];
            }
        }
        spread += w * dot(ds, source[i]);
    }
    let rotation = nearest_rotation(&a)?;
    // scale = Σ w·(R·(s - cs))·t / Σ w·(s - cs)·s
    let mut num = 0.0;
    for r in 0..3 {
        for c in 0..3 {
            num += rotation[r][c] * a[r][c];
        }
    }
    if spread.is_nan() || spread <= 0.0 {
        return None;
    }
    let scale = num / spread;
    let rc = mul_vec(&rotation, cs);
    let translation = [
        ct[0] - scale * rc[0],
        ct[1] - scale * rc[1],
        ct[2] - scale * rc[2],
    ];
    let sim = Similarity {
        scale,
        rotation,
        translation,
    };
    (scale.is_finite() && translation.iter().all(|v| v.is_finite())).then_some(sim)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rot_xyz(ax: f64, ay: f64, az: f64) -> Mat3 {
        let (sx, cx) = ax.sin_cos();
        let (sy, cy) = ay.sin_cos();
        let (sz, cz) = az.sin_cos();
        let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
        let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
        let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
        let mul = |a: Mat3, b: Mat3| {
            let mut m = [[0.0; 3]; 3];
            for r in 0..3 {
                for c in 0..3 {
                    m[r][c] = (0..3).map(|k| a[r][k] * b[k][c]).sum();
                }
            }
            m
        };
        mul(rz, mul(ry, rx))
    }

    #[test]
    fn eigen_of_diagonal_and_general() {
        let (vals, _) = symmetric_eigen(&[[1.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 2.0]]);
        assert_eq!(vals, [3.0, 2.0, 1.0]);
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 1.0]];
        let (vals, vecs) = symmetric_eigen(&m);
        for (l, v) in vals.iter().zip(vecs) {
            let mv = mul_vec(&m, v);
            for k in 0..3 {
                assert!((mv[k] - l * v[k]).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn recovers_a_known_similarity() {
        let r = rot_xyz(0.3, -0.5, 2.0);
        let src: Vec<[f64; 3]> = (0..20)
            .map(|i| {
                let f = i as f64;
                [f.sin() * 3.0, (f * 0.7).cos() * 2.0, (f * 1.3).sin()]
            })
            .collect();
        let t = [1.0, -2.0, -40.0];
        let dst: Vec<[f64; 3]> = src
            .iter()
            .map(|p| {
                let q = mul_vec(&r, *p);
                [2.5 * q[0] + t[0], 2.5 * q[1] + t[1], 2.5 * q[2] + t[2]]
            })
            .collect();
        let mut w = vec![1.0; 20];
        w[3] = 0.0;
        w[7] = 4.0;
        let sim = weighted_procrustes(&src, &dst, &w).unwrap();
        assert!((sim.scale - 2.5).abs() < 1e-9, "{}", sim.scale);
        for rr in 0..3 {
            for c in 0..3 {
                assert!((sim.rotation[rr][c] - r[rr][c]).abs() < 1e-9);
            }
            assert!((sim.translation[rr] - t[rr]).abs() < 1e-8);
        }
    }

    #[test]
    fn reflection_is_turned_into_a_rotation() {
        // A mirror image: the best proper rotation still has det +1.
        let src = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 1.0, 1.0],
        ];
        let dst: Vec<[f64; 3]> = src.iter().map(|p| [-p[0], p[1], p[2]]).collect();
        let sim = weighted_procrustes(&src, &dst, &[1.0; 4]).unwrap();
        let m = sim.rotation;
        let det = dot(m[0], cross(m[1], m[2]));
        assert!((det - 1.0).abs() < 1e-9);
    }

    #[test]
    fn degenerate_inputs_give_none() {
        let src = [[1.0, 2.0, 3.0]; 4];
        assert!(weighted_procrustes(&src, &src, &[1.0; 4]).is_none());
        assert!(weighted_procrustes(&src, &src, &[0.0; 4]).is_none());
        let nan = [[f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let ok = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        assert!(weighted_procrustes(&ok, &nan, &[1.0; 3]).is_none());
    }
}
