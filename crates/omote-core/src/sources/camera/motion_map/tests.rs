//! Tests of the motion map: exact weights, special points, validation, and property tests
//! (partition of unity, non-negativity, continuity by fine sweeps) over random maps.

use proptest::prelude::*;

use super::*;

fn pt(name: &str, alpha: f64, beta: f64) -> MotionPointDesc {
    MotionPointDesc::new(name, alpha, beta)
}

/// Nine points in general position (like `examples/maps/anime-face.toml`).
fn nine() -> MotionMapDesc {
    MotionMapDesc::new(vec![
        pt("front", 0.0, 0.0),
        pt("left", 100.0, 0.0),
        pt("right", -100.0, 0.0),
        pt("high", 0.0, 60.0),
        pt("low", 0.0, -55.0),
        pt("high-left", 70.0, 45.0),
        pt("high-right", -70.0, 45.0),
        pt("low-left", 65.0, -40.0),
        pt("low-right", -65.0, -40.0),
    ])
}

/// A 3 × 3 grid: collinear hull points and cocircular quads (ambiguous Delaunay).
fn grid() -> MotionMapDesc {
    let mut points = Vec::new();
    for (j, beta) in [-60.0, 0.0, 60.0].into_iter().enumerate() {
        for (i, alpha) in [-90.0, 0.0, 90.0].into_iter().enumerate() {
            points.push(pt(&format!("p{i}{j}"), alpha, beta));
        }
    }
    MotionMapDesc::new(points)
}

fn assert_valid(w: &[f64], at: (f64, f64)) {
    let sum: f64 = w.iter().sum();
    assert!((sum - 1.0).abs() <= 1e-9, "sum {sum} at {at:?}: {w:?}");
    assert!(
        w.iter()
            .all(|&x| x >= 0.0 && x.is_sign_positive() && x.is_finite()),
        "{w:?} at {at:?}"
    );
}

/// Barycentric coordinates of `p` in triangle `abc`, by signed areas (independent of the
/// map's own precomputed form).
fn barycentric(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> [f64; 3] {
    let area = cross(sub(b, a), sub(c, a));
    [
        cross(sub(b, p), sub(c, p)) / area,
        cross(sub(c, p), sub(a, p)) / area,
        cross(sub(a, p), sub(b, p)) / area,
    ]
}

fn pos(map: &MotionMap, i: usize) -> [f64; 2] {
    let p = &map.points()[i];
    [p.alpha, p.beta]
}

/// A Lipschitz constant of all weights (per degree): inside, 1 / the smallest triangle
/// altitude; outside, max(|A|, |B|) / (|AB| · distance from the centre to line AB) per
/// hull edge AB (centre at the origin).
fn lipschitz(map: &MotionMap) -> f64 {
    let c = map.center();
    let rel = |i: usize| sub(pos(map, i), c);
    let mut k: f64 = 0.0;
    for t in map.triangles() {
        let (a, b, cc) = (rel(t[0]), rel(t[1]), rel(t[2]));
        let area2 = cross(sub(b, a), sub(cc, a)).abs();
        for (p, q) in [(a, b), (b, cc), (cc, a)] {
            let len = sub(q, p)[0].hypot(sub(q, p)[1]);
            k = k.max(len / area2); // 1 / altitude onto this side
        }
    }
    let h = map.hull();
    for j in 0..h.len() {
        let (a, b) = (rel(h[j]), rel(h[(j + 1) % h.len()]));
        let e = sub(b, a);
        let len = e[0].hypot(e[1]);
        let dist = cross(e, sub([0.0, 0.0], a)).abs() / len;
        let r = a[0].hypot(a[1]).max(b[0].hypot(b[1]));
        k = k.max(r / (len * dist));
    }
    k
}

/// Sweep from `from` to `to` in steps of `step` degrees; return the largest change of any
/// weight between neighbouring samples, checking every sample is a valid weight vector.
fn sweep(map: &MotionMap, from: [f64; 2], to: [f64; 2], step: f64) -> f64 {
    let d = sub(to, from);
    let len = d[0].hypot(d[1]);
    let n = (len / step).ceil() as usize;
    let mut prev = map.weights(from[0], from[1]);
    let mut cur = vec![0.0; map.len()];
    let mut worst: f64 = 0.0;
    for s in 1..=n {
        let f = s as f64 / n as f64;
        let p = [from[0] + d[0] * f, from[1] + d[1] * f];
        map.weights_into(p[0], p[1], &mut cur);
        assert_valid(&cur, (p[0], p[1]));
        for (a, b) in cur.iter().zip(&prev) {
            worst = worst.max((a - b).abs());
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    worst
}

/// Segments of length 2 × `half` crossing every hull edge (at 10 %, 50 %, 90 %), every ray
/// (at its hull vertex and 5°, 50°, 500° beyond), and every triangle edge (at 25 %, 50 %,
/// 75 %), perpendicular to each.
fn crossings(map: &MotionMap, half: f64) -> Vec<([f64; 2], [f64; 2])> {
    let c = map.center();
    let mut out = Vec::new();
    let mut across = |p: [f64; 2], dir: [f64; 2]| {
        let len = dir[0].hypot(dir[1]);
        let n = [-dir[1] / len * half, dir[0] / len * half];
        out.push(([p[0] - n[0], p[1] - n[1]], [p[0] + n[0], p[1] + n[1]]));
    };
    let h = map.hull();
    for j in 0..h.len() {
        let (a, b) = (pos(map, h[j]), pos(map, h[(j + 1) % h.len()]));
        let e = sub(b, a);
        for f in [0.1, 0.5, 0.9] {
            across([a[0] + e[0] * f, a[1] + e[1] * f], e);
        }
        let r = sub(a, c);
        let rl = r[0].hypot(r[1]);
        for beyond in [0.0, 5.0, 50.0, 500.0] {
            let s = 1.0 + beyond / rl;
            across([c[0] + r[0] * s, c[1] + r[1] * s], r);
        }
    }
    for t in map.triangles() {
        for k in 0..3 {
            let (a, b) = (pos(map, t[k]), pos(map, t[(k + 1) % 3]));
            let e = sub(b, a);
            for f in [0.25, 0.5, 0.75] {
                across([a[0] + e[0] * f, a[1] + e[1] * f], e);
            }
        }
    }
    out
}

const STEP: f64 = 0.01;

/// Check every crossing sweep against the map's Lipschitz bound; returns the bound used.
fn check_continuity(map: &MotionMap) -> f64 {
    let bound = lipschitz(map) * STEP * (1.0 + 1e-6) + 1e-12;
    for (from, to) in crossings(map, 1.0) {
        let worst = sweep(map, from, to, STEP);
        assert!(
            worst <= bound,
            "jump {worst} > {bound} sweeping {from:?} → {to:?}"
        );
    }
    bound
}

#[test]
fn inside_weights_are_barycentric() {
    for desc in [nine(), grid()] {
        let map = MotionMap::new(&desc).unwrap();
        for (ti, t) in map.triangles().iter().enumerate() {
            let (a, b, c) = (pos(&map, t[0]), pos(&map, t[1]), pos(&map, t[2]));
            for l in [
                [1.0 / 3.0; 3],
                [0.7, 0.2, 0.1],
                [0.05, 0.05, 0.9],
                [0.5, 0.5, 0.0],
            ] {
                let p = [
                    l[0] * a[0] + l[1] * b[0] + l[2] * c[0],
                    l[0] * a[1] + l[1] * b[1] + l[2] * c[1],
                ];
                let want = barycentric(p, a, b, c);
                let w = map.weights(p[0], p[1]);
                assert_valid(&w, (p[0], p[1]));
                for k in 0..3 {
                    assert!(
                        (w[t[k]] - want[k]).abs() < 1e-9,
                        "triangle {ti} at {p:?}: {w:?} vs {want:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn outside_weights_follow_the_hull_edge_formula() {
    let map = MotionMap::new(&nine()).unwrap();
    let (left, high_left) = (1, 5);
    // The ray from the centre through (150, 60) crosses edge left (100, 0) – high-left
    // (70, 45): s·(150, 60) = (100, 0) + t·(−30, 45) → t = 2/9… solved generally below.
    let (p, a, b) = ([150.0, 60.0], pos(&map, left), pos(&map, high_left));
    let t = cross(p, a) / cross(p, sub(a, b));
    let blend = map.blend(p[0], p[1]);
    assert!(matches!(blend.region(), MapRegion::Outside(_)));
    assert!((blend.weight(left) - (1.0 - t)).abs() < 1e-12);
    assert!((blend.weight(high_left) - t).abs() < 1e-12);
    // The intersection really lies on the ray.
    let q = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    assert!(cross(q, p).abs() < 1e-9);
}

#[test]
fn special_points_give_valid_weights() {
    for desc in [nine(), grid()] {
        let map = MotionMap::new(&desc).unwrap();
        let c = map.center();
        let mut w = vec![0.0; map.len()];
        // Every vertex: all weight on its own motion.
        for i in 0..map.len() {
            let p = pos(&map, i);
            map.weights_into(p[0], p[1], &mut w);
            assert_valid(&w, (p[0], p[1]));
            assert!((w[i] - 1.0).abs() < 1e-12, "vertex {i}: {w:?}");
        }
        // On the hull and far along each ray: all weight on the hull vertex.
        let h = map.hull();
        for j in 0..h.len() {
            let (a, b) = (pos(&map, h[j]), pos(&map, h[(j + 1) % h.len()]));
            for f in [0.0, 0.3, 0.5, 1.0] {
                let q = [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
                map.weights_into(q[0], q[1], &mut w);
                assert_valid(&w, (q[0], q[1]));
                assert!((w[h[j]] - (1.0 - f)).abs() < 1e-9, "{q:?}: {w:?}");
            }
            for s in [1.0 + 1e-12, 2.0, 1e3, 1e9, 1e300] {
                let q = [c[0] + (a[0] - c[0]) * s, c[1] + (a[1] - c[1]) * s];
                map.weights_into(q[0], q[1], &mut w);
                assert_valid(&w, (q[0], q[1]));
                assert!((w[h[j]] - 1.0).abs() < 1e-9, "ray {j} × {s}: {w:?}");
            }
        }
        // The centre, far away in every direction, infinities and NaN.
        for q in [
            c,
            [1e9, 0.0],
            [-1e9, 1e9],
            [0.0, -1e308],
            [f64::MAX, f64::MAX],
            [f64::INFINITY, 0.0],
            [f64::NAN, 5.0],
        ] {
            map.weights_into(q[0], q[1], &mut w);
            assert_valid(&w, (q[0], q[1]));
        }
    }
}

#[test]
fn collinear_hull_points_are_kept_and_get_their_own_rays() {
    let map = MotionMap::new(&grid()).unwrap();
    assert_eq!(map.hull().len(), 8, "all eight boundary points of the grid");
    assert_eq!(map.triangles().len(), 8);
    // Straight out to the side: the middle of the side gets everything.
    let mid_right = map.index_of("p01").unwrap();
    let w = map.weights(-180.0, 0.0);
    assert_eq!(w[mid_right], 1.0);
    // Between the rays through (−90, 0) and (−90, 60) the two share along their edge.
    let top_right = map.index_of("p02").unwrap();
    let w = map.weights(-180.0, 60.0); // direction (−180, 60) meets x = −90 at β = 30
    assert!((w[mid_right] - 0.5).abs() < 1e-12 && (w[top_right] - 0.5).abs() < 1e-12);
}

#[test]
fn sweeps_are_continuous_on_the_fixed_maps() {
    for desc in [nine(), grid()] {
        let map = MotionMap::new(&desc).unwrap();
        let bound = check_continuity(&map);
        assert!(bound < 0.002, "the fixed maps are well shaped: {bound}");
        // A full horizontal pass at several heights, and vertical passes.
        for beta in [-90.0, -60.0, -20.0, 0.0, 45.0, 90.0] {
            assert!(sweep(&map, [-180.0, beta], [180.0, beta], STEP) <= bound);
        }
        for alpha in [-180.0, -90.0, 0.0, 33.3, 180.0] {
            assert!(sweep(&map, [alpha, -90.0], [alpha, 90.0], STEP) <= bound);
        }
    }
}

#[test]
fn a_jump_would_be_caught() {
    // The sweep check must be able to fail: a step function sampled the same way.
    let map = MotionMap::new(&nine()).unwrap();
    let bound = lipschitz(&map) * STEP;
    let a = map.weights(0.0, 0.0);
    let b = map.weights(100.0, 0.0);
    let jump = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    assert!(jump > bound * 100.0);
}

#[test]
fn off_centre_maps_and_fade() {
    let mut desc = nine();
    desc.center = MapCenter {
        alpha: 20.0,
        beta: 10.0,
    };
    desc.fade = Some(FadeDesc {
        start: 120.0,
        end: 160.0,
    });
    let map = MotionMap::new(&desc).unwrap();
    check_continuity(&map);
    assert_eq!(map.fade(20.0, 10.0), 1.0);
    assert_eq!(map.fade(-160.0, -10.0), 0.0, "opposite the centre");
    // end = 160 = 180 − |centre α|: zero all along the cut behind the head.
    for beta in [-90.0, -45.0, 0.0, 10.0, 45.0, 90.0] {
        assert_eq!(map.fade(180.0, beta), 0.0);
        assert_eq!(map.fade(-180.0, beta), 0.0);
    }
    // Halfway through the fade band (r = 140) it is one half.
    assert!((map.fade(20.0 + 140.0, 10.0) - 0.5).abs() < 1e-12);
    let mut prev = 1.0;
    for i in 0..=4000 {
        let f = map.fade(20.0 + 100.0 + i as f64 * 0.01, 10.0);
        assert!(
            f <= prev && prev - f < 0.001,
            "fade is monotone and continuous"
        );
        prev = f;
    }
    assert_eq!(map.fade(f64::NAN, 0.0), 1.0);
    let no_fade = MotionMap::new(&nine()).unwrap();
    assert_eq!(no_fade.fade(180.0, 0.0), 1.0);
}

mod validation {
    use super::*;

    fn err(desc: &MotionMapDesc) -> MotionMapError {
        MotionMap::new(desc).unwrap_err()
    }

    #[test]
    fn too_few_and_too_many_points() {
        let e = err(&MotionMapDesc::new(vec![
            pt("a", 0.0, 0.0),
            pt("b", 1.0, 0.0),
        ]));
        assert_eq!(
            e.to_string(),
            "point: a motion map needs at least 3 points, found 2"
        );
        let many = (0..=MAX_MOTION_POINTS)
            .map(|i| {
                pt(
                    &i.to_string(),
                    (i % 300) as f64 * 0.5 - 75.0,
                    (i / 300) as f64,
                )
            })
            .collect();
        assert!(matches!(
            err(&MotionMapDesc::new(many)).kind,
            MotionMapErrorKind::TooManyPoints { .. }
        ));
    }

    #[test]
    fn duplicates() {
        let mut d = nine();
        d.points[4].name = "left".into();
        let e = err(&d);
        assert_eq!(e.field, "point[4].name");
        assert_eq!(
            e.to_string(),
            "point[4].name: `left` is already the name of point[1]"
        );
        let mut d = nine();
        d.points[7].alpha = 100.0;
        d.points[7].beta = 0.0;
        let e = err(&d);
        assert_eq!(e.field, "point[7]");
        assert!(e.to_string().contains("point[1] `left`"), "{e}");
        let mut d = nine();
        d.points[3].name.clear();
        assert_eq!(err(&d).to_string(), "point[3].name: must not be empty");
    }

    #[test]
    fn collinear_sets() {
        let d = MotionMapDesc::new(vec![
            pt("a", -90.0, -30.0),
            pt("b", 0.0, 0.0),
            pt("c", 90.0, 30.0),
            pt("d", 45.0, 15.0),
        ]);
        let e = err(&d);
        assert_eq!(e.field, "point");
        assert_eq!(e.kind, MotionMapErrorKind::Collinear);
    }

    #[test]
    fn centre_outside_or_on_the_hull() {
        let tri = |c: MapCenter| MotionMapDesc {
            center: c,
            ..MotionMapDesc::new(vec![
                pt("a", 0.0, 10.0),
                pt("b", 90.0, 10.0),
                pt("c", 0.0, 60.0),
            ])
        };
        let e = err(&tri(MapCenter::default()));
        assert_eq!(
            e.to_string(),
            "center: (0, 0) is not strictly inside the convex hull of the points"
        );
        let on_edge = MapCenter {
            alpha: 45.0,
            beta: 10.0,
        };
        assert_eq!(err(&tri(on_edge)).field, "center");
        let at_vertex = MapCenter {
            alpha: 90.0,
            beta: 10.0,
        };
        assert_eq!(err(&tri(at_vertex)).field, "center");
        let inside = MapCenter {
            alpha: 20.0,
            beta: 20.0,
        };
        assert!(MotionMap::new(&tri(inside)).is_ok());
    }

    #[test]
    fn numbers_must_be_finite_and_in_range() {
        let mut d = nine();
        d.points[3].alpha = f64::NAN;
        assert_eq!(err(&d).to_string(), "point[3].alpha: must be finite");
        let mut d = nine();
        d.points[2].beta = 95.0;
        assert_eq!(
            err(&d).to_string(),
            "point[2].beta: 95 is outside [-90, 90]"
        );
        let mut d = nine();
        d.points[0] = d.points[0].clone().with("happy", f32::INFINITY);
        assert_eq!(
            err(&d).to_string(),
            "point[0].expressions.happy: must be finite"
        );
        let mut d = nine();
        d.points[0] = d.points[0].clone().with("happy", 1.5);
        assert_eq!(err(&d).field, "point[0].expressions.happy");
        let mut d = nine();
        d.center.beta = f64::INFINITY;
        assert_eq!(err(&d).to_string(), "center.beta: must be finite");
        let mut d = nine();
        d.fade = Some(FadeDesc {
            start: 90.0,
            end: 90.0,
        });
        assert_eq!(err(&d).field, "fade");
        d.fade = Some(FadeDesc {
            start: -1.0,
            end: 90.0,
        });
        assert_eq!(err(&d).field, "fade.start");
    }
}

/// A random map: 3–12 points, either anywhere or snapped to a 15° lattice (collinear and
/// cocircular sets), the centre at the mean of the points. Maps that fail validation or
/// whose triangles are slivers (Lipschitz bound above 5 per degree) are skipped.
fn random_map() -> impl Strategy<Value = MotionMap> {
    let coord = prop_oneof![
        (-180.0..=180.0f64, -90.0..=90.0f64),
        ((-12i32..=12), (-6i32..=6)).prop_map(|(a, b)| (f64::from(a) * 15.0, f64::from(b) * 15.0)),
    ];
    proptest::collection::vec(coord, 3..=12).prop_filter_map("invalid or sliver map", |ps| {
        let n = ps.len() as f64;
        let center = MapCenter {
            alpha: ps.iter().map(|p| p.0).sum::<f64>() / n,
            beta: ps.iter().map(|p| p.1).sum::<f64>() / n,
        };
        let desc = MotionMapDesc {
            center,
            ..MotionMapDesc::new(
                ps.iter()
                    .enumerate()
                    .map(|(i, &(a, b))| pt(&format!("m{i}"), a, b))
                    .collect(),
            )
        };
        let map = MotionMap::new(&desc).ok()?;
        (lipschitz(&map) <= 5.0).then_some(map)
    })
}

fn query() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        4 => (-180.0..=180.0f64, -90.0..=90.0f64),
        1 => (-1e7..=1e7f64, -1e7..=1e7f64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn weights_are_a_partition_of_unity(map in random_map(), qs in proptest::collection::vec(query(), 64)) {
        let mut w = vec![0.0; map.len()];
        for (a, b) in qs {
            map.weights_into(a, b, &mut w);
            let sum: f64 = w.iter().sum();
            prop_assert!((sum - 1.0).abs() <= 1e-9, "sum {} at ({}, {})", sum, a, b);
            prop_assert!(w.iter().all(|&x| x >= 0.0 && x.is_sign_positive()), "{:?}", w);
            prop_assert!(w.iter().filter(|&&x| x > 0.0).count() <= 3);
        }
    }

    #[test]
    fn weights_inside_triangles_are_barycentric(
        map in random_map(),
        pick in 0usize..1000,
        l in (0.0..=1.0f64, 0.0..=1.0f64),
    ) {
        let t = map.triangles()[pick % map.triangles().len()];
        let (l1, l2) = if l.0 + l.1 > 1.0 { (1.0 - l.0, 1.0 - l.1) } else { l };
        let (a, b, c) = (pos(&map, t[0]), pos(&map, t[1]), pos(&map, t[2]));
        let p = [
            a[0] + l1 * (b[0] - a[0]) + l2 * (c[0] - a[0]),
            a[1] + l1 * (b[1] - a[1]) + l2 * (c[1] - a[1]),
        ];
        let want = barycentric(p, a, b, c);
        let w = map.weights(p[0], p[1]);
        for k in 0..3 {
            prop_assert!((w[t[k]] - want[k]).abs() < 1e-9, "{:?} vs {:?}", w, want);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sweeps_across_every_edge_and_ray_are_continuous(map in random_map()) {
        check_continuity(&map);
    }
}

#[test]
fn query_angles_wrap_alpha_and_refuse_beta_past_the_poles() {
    assert_eq!(MotionMap::check_angles(360.0, 10.0).unwrap(), (0.0, 10.0));
    assert_eq!(MotionMap::check_angles(190.0, 0.0).unwrap(), (-170.0, 0.0));
    assert_eq!(
        MotionMap::check_angles(-180.0, 90.0).unwrap(),
        (-180.0, 90.0)
    );
    let e = MotionMap::check_angles(0.0, 100.0).unwrap_err();
    assert!(e.to_string().contains("beta"), "{e}");
    let e = MotionMap::check_angles(f64::NAN, 0.0).unwrap_err();
    assert!(e.to_string().contains("alpha"), "{e}");
}
