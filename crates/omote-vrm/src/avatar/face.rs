//! The generated head: geometry described by tagged vertices, and one function,
//! [`pose`], that places every vertex for a set of [`FaceParams`]. A morph target is
//! `pose(target params) − pose(rest)`, so eyes really close, the mouth really opens, and
//! all shapes share one consistent model. Head-local coordinates: the head bone at the
//! origin, +Y up, +Z forward (the face), +X the avatar's left; metres.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::Vec3;

use crate::skeleton::EYE_OFFSET;

/// Centre of the head ellipsoid.
pub const HEAD_CENTRE: Vec3 = Vec3::new(0.0, 0.1, 0.0);
/// Radii of the head ellipsoid.
pub const HEAD_RADII: Vec3 = Vec3::new(0.085, 0.11, 0.095);
/// Mouth centre height.
const MOUTH_Y: f32 = 0.035;
/// Mouth half-width at rest.
const MOUTH_W: f32 = 0.02;
/// Lip thickness: upper, lower, sides.
const LIP_UP: f32 = 0.0045;
const LIP_LOW: f32 = 0.0055;
const LIP_SIDE: f32 = 0.003;
/// Inner opening of each lip at rest (a closed mouth).
const LIP_GAP: f32 = 0.0004;
const NOSE_Y: f32 = 0.066;
const BROW_Y: f32 = EYE_OFFSET[1] + 0.03;
/// Lid shell radius (the eyeball is 0.02).
pub const LID_RADIUS: f32 = 0.0215;
/// Eyeball radius.
pub const EYE_RADIUS: f32 = 0.02;
const UPPER_OPEN: f32 = 30.0;
const UPPER_CLOSED: f32 = -44.0;
const LOWER_OPEN: f32 = -40.0;
const LOWER_CLOSED: f32 = -5.0;

/// How far the face is from rest. Index 0 is the avatar's left (+X), 1 its right.
/// Lengths in metres; lid and brow amounts are 0..1 fractions (negative = the other way).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct FaceParams {
    /// Upper lid closure: 1 shut, negative wider than rest.
    pub lid_upper: [f32; 2],
    /// Lower lid raise: 1 meets the middle of the eye.
    pub lid_lower: [f32; 2],
    pub brow_inner_up: [f32; 2],
    pub brow_outer_up: [f32; 2],
    pub brow_down: [f32; 2],
    /// Mouth width change as a fraction of the rest width.
    pub mouth_width: f32,
    pub upper_open: f32,
    /// Lower lip / jaw drop.
    pub lower_open: f32,
    pub corner_up: [f32; 2],
    pub corner_out: [f32; 2],
    pub mouth_shift: f32,
    pub pucker: f32,
    pub roll_upper: f32,
    pub roll_lower: f32,
    pub shrug_upper: f32,
    pub shrug_lower: f32,
    pub press: [f32; 2],
    pub lower_down: [f32; 2],
    pub upper_up: [f32; 2],
    pub jaw_forward: f32,
    pub jaw_side: f32,
    pub cheek_puff: f32,
    pub cheek_up: [f32; 2],
    pub sneer: [f32; 2],
    pub tongue_out: f32,
}

/// What a vertex is, so [`pose`] can place it. `side` 0 is the avatar's left eye/brow.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Tag {
    /// Head skin at this rest position.
    Skin(Vec3),
    /// Upper (`upper`) or lower lid of eye `side`; `t` 0 at the pole, 1 at the edge.
    Lid {
        side: usize,
        upper: bool,
        t: f32,
        az: f32,
    },
    /// Lash line along the upper lid edge; `k` 0 on the edge, 1 just above.
    Lash { side: usize, az: f32, k: f32 },
    /// Brow of `side`: `u` 0 inner → 1 outer, `row` 0 lower edge, 1 upper edge.
    Brow { side: usize, u: f32, row: f32 },
    /// Lip ring at angle `a` (0 = the avatar's left corner, π/2 top); `k` 0 inner, 1 outer.
    Lip { a: f32, k: f32 },
    /// Inside of the mouth: a ring vertex at angle `a`, or the centre.
    Mouth { a: Option<f32> },
    /// Tongue: angle in the lower half, `r` 0 centre → 1 the lip.
    Tongue { a: f32, r: f32 },
    /// Nose vertex.
    Nose(Vec3),
}

/// One primitive of the face mesh.
pub struct Part {
    /// Which material (index into the avatar's materials).
    pub material: usize,
    /// Vertex tags.
    pub tags: Vec<Tag>,
    /// Outward normals at rest.
    pub normals: Vec<Vec3>,
    /// Triangles.
    pub indices: Vec<u32>,
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Falloff: 1 at the centre, 0 from `radius` on.
fn falloff(d: f32, radius: f32) -> f32 {
    1.0 - smoothstep(0.0, radius, d)
}

/// Front surface depth of the head at (x, y).
pub fn surface_z(x: f32, y: f32) -> f32 {
    let u = 1.0 - (x / HEAD_RADII.x).powi(2) - ((y - HEAD_CENTRE.y) / HEAD_RADII.y).powi(2);
    HEAD_CENTRE.z + HEAD_RADII.z * u.max(0.0).sqrt()
}

/// Outward normal of the head ellipsoid at a point on (or near) it.
pub fn head_normal(p: Vec3) -> Vec3 {
    ((p - HEAD_CENTRE) / (HEAD_RADII * HEAD_RADII)).normalize_or(Vec3::Z)
}

fn side_sign(side: usize) -> f32 {
    if side == 0 { 1.0 } else { -1.0 }
}

fn eye_centre(side: usize) -> Vec3 {
    Vec3::new(
        side_sign(side) * EYE_OFFSET[0],
        EYE_OFFSET[1],
        EYE_OFFSET[2],
    )
}

fn on_sphere(c: Vec3, r: f32, el_deg: f32, az_deg: f32) -> Vec3 {
    let (el, az) = (el_deg.to_radians(), az_deg.to_radians());
    c + r * Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos())
}

fn upper_edge(p: &FaceParams, side: usize) -> f32 {
    UPPER_OPEN + (UPPER_CLOSED - UPPER_OPEN) * p.lid_upper[side]
}

/// The lip ring point at angle `a`, ring `k` (x, y only; z comes from the rest pose).
fn lip_xy(a: f32, k: f32, p: &FaceParams) -> (f32, f32) {
    let (sa, ca) = a.sin_cos();
    let (wl, wr) = ((1.0 + ca) / 2.0, (1.0 - ca) / 2.0);
    let (cl, cr) = (ca.max(0.0).powi(4), (-ca).max(0.0).powi(4));
    let w = MOUTH_W * (1.0 + p.mouth_width) + cl * p.corner_out[0] + cr * p.corner_out[1];
    let press = 1.0 - 0.7 * (wl * p.press[0] + wr * p.press[1]);
    let mut x = p.mouth_shift + ca * (w + k * LIP_SIDE);
    let mut y = MOUTH_Y + cl * p.corner_up[0] + cr * p.corner_up[1];
    if sa >= 0.0 {
        let open = LIP_GAP + p.upper_open + wl * p.upper_up[0] + wr * p.upper_up[1];
        let th = LIP_UP * (1.0 - 0.8 * p.roll_upper) * press;
        y += sa * (open + k * th) + sa * p.shrug_upper;
    } else {
        let open = LIP_GAP + p.lower_open + wl * p.lower_down[0] + wr * p.lower_down[1];
        let th = LIP_LOW * (1.0 - 0.8 * p.roll_lower) * press;
        y += sa * (open + k * th) - sa * p.shrug_lower;
        x += -sa * p.jaw_side;
    }
    (x, y)
}

/// Forward push of mouth parts (pucker, jaw forward) at angle `a`.
fn mouth_forward(a: f32, p: &FaceParams) -> f32 {
    let sa = a.sin();
    p.pucker * (0.5 + 0.5 * sa * sa) + if sa < 0.0 { -sa * p.jaw_forward } else { 0.0 }
}

/// Where a vertex is for these parameters.
pub fn pose(tag: Tag, p: &FaceParams) -> Vec3 {
    let rest = FaceParams::default();
    match tag {
        Tag::Skin(q) => q + skin_offset(q, p),
        Tag::Lid { side, upper, t, az } => {
            let (pole, edge) = if upper {
                (88.0, upper_edge(p, side))
            } else {
                (
                    -88.0,
                    LOWER_OPEN + (LOWER_CLOSED - LOWER_OPEN) * p.lid_lower[side],
                )
            };
            on_sphere(eye_centre(side), LID_RADIUS, pole + (edge - pole) * t, az)
        }
        Tag::Lash { side, az, k } => on_sphere(
            eye_centre(side),
            LID_RADIUS + 0.0009,
            upper_edge(p, side) + 7.0 * k,
            az,
        ),
        Tag::Brow { side, u, row } => {
            let s = side_sign(side);
            let x = s * (EYE_OFFSET[0] + (-0.014 + 0.032 * u));
            let y = BROW_Y + 0.005 * (PI * u).sin() + row * 0.0035;
            let lift = 0.008 * (p.brow_inner_up[side] * (1.0 - u) + p.brow_outer_up[side] * u)
                - p.brow_down[side] * (0.004 + 0.004 * (1.0 - u));
            let slide = -s * 0.003 * p.brow_down[side] * (1.0 - u);
            Vec3::new(x + slide, y + lift, surface_z(x, y) + 0.002)
        }
        Tag::Lip { a, k } => {
            let (x, y) = lip_xy(a, k, p);
            let (rx, ry) = lip_xy(a, k, &rest);
            Vec3::new(
                x,
                y,
                surface_z(rx, ry) + 0.0025 + 0.001 * k + mouth_forward(a, p),
            )
        }
        Tag::Mouth { a: Some(a) } => {
            let (x, y) = lip_xy(a, 0.0, p);
            let (rx, ry) = lip_xy(a, 0.0, &rest);
            Vec3::new(x, y, surface_z(rx, ry) + 0.0012 + mouth_forward(a, p))
        }
        Tag::Mouth { a: None } => {
            let (x, y) = mouth_centre(p);
            Vec3::new(
                x,
                y,
                surface_z(0.0, MOUTH_Y) + 0.0012 + mouth_forward(FRAC_PI_2, p) * 0.5,
            )
        }
        Tag::Tongue { a, r } => {
            let (cx, cy) = mouth_centre(p);
            let (lx, ly) = lip_xy(a, 0.0, p);
            let (rx, ry) = lip_xy(a, 0.0, &rest);
            let f = 0.8 * r;
            let x = cx + (lx - cx) * f;
            let y =
                cy - 0.2 * (cy - ly) + (ly - cy) * f * 0.8 - p.tongue_out * 0.016 * (0.6 + 0.4 * r);
            let z = surface_z(rx, ry) + 0.0018 + mouth_forward(a, p) + p.tongue_out * 0.007;
            Vec3::new(x, y, z)
        }
        Tag::Nose(q) => {
            let lift = 0.004
                * (p.sneer[0] * falloff((q.x - 0.01).abs(), 0.012)
                    + p.sneer[1] * falloff((q.x + 0.01).abs(), 0.012));
            q + Vec3::Y * lift
        }
    }
}

fn mouth_centre(p: &FaceParams) -> (f32, f32) {
    let (_, top) = lip_xy(FRAC_PI_2, 0.0, p);
    let (_, bottom) = lip_xy(3.0 * FRAC_PI_2, 0.0, p);
    (p.mouth_shift, (top + bottom) / 2.0)
}

/// How skin at rest position `q` follows the jaw, mouth corners, cheeks and nose.
fn skin_offset(q: Vec3, p: &FaceParams) -> Vec3 {
    if q.z <= 0.02 {
        return Vec3::ZERO;
    }
    let mut d = Vec3::ZERO;
    // Chin and lower face follow the lower lip.
    if q.y < MOUTH_Y + 0.004 {
        let e = Vec2::new(q.x / 1.6, q.y - MOUTH_Y).length();
        let f = falloff(e, 0.07) * smoothstep(MOUTH_Y + 0.004, MOUTH_Y - 0.006, q.y);
        let drop = p.lower_open + 0.5 * (p.lower_down[0] + p.lower_down[1]) - p.shrug_lower;
        d += Vec3::new(p.jaw_side, -0.85 * drop, p.jaw_forward) * f;
    }
    // Around the corners: follow width, corner moves and shifts.
    for side in 0..2 {
        let s = side_sign(side);
        let corner = Vec2::new(s * MOUTH_W, MOUTH_Y);
        let f = falloff((Vec2::new(q.x, q.y) - corner).length(), 0.03);
        let dx = s * (MOUTH_W * p.mouth_width + p.corner_out[side]) + p.mouth_shift;
        d += Vec3::new(dx, p.corner_up[side], 0.0) * 0.7 * f;
        // Cheeks puff out, and rise with a squint.
        let cheek = Vec2::new(s * 0.05, MOUTH_Y + 0.012);
        let f = falloff((Vec2::new(q.x, q.y) - cheek).length(), 0.035);
        d += head_normal(q) * 0.012 * p.cheek_puff * f;
        let under_eye = Vec2::new(s * 0.042, EYE_OFFSET[1] - 0.035);
        let f = falloff((Vec2::new(q.x, q.y) - under_eye).length(), 0.03);
        d += Vec3::Y * 0.006 * p.cheek_up[side] * f;
        let nose_side = Vec2::new(s * 0.012, NOSE_Y);
        let f = falloff((Vec2::new(q.x, q.y) - nose_side).length(), 0.02);
        d += Vec3::Y * 0.004 * p.sneer[side] * f;
    }
    d
}

use glam::Vec2;

/// Build the face mesh parts: 0 skin (head, lids, nose), 1 lips, 2 mouth inside,
/// 3 tongue, 4 brows and lashes. `materials` gives each part's material index.
pub fn build(materials: [usize; 5]) -> Vec<Part> {
    let mut skin = Part::new(materials[0]);
    add_head(&mut skin);
    add_lids(&mut skin);
    add_nose(&mut skin);
    // The inside of the mouth fans out to the lips' steps.
    let n_lip = 40usize;
    let lips = lips(materials[1], n_lip);
    let mouth = mouth_inside(materials[2], n_lip);
    let tongue = tongue(materials[3]);
    let brows = brows_and_lashes(materials[4]);
    vec![skin, lips, mouth, tongue, brows]
}

/// Head ellipsoid: rows from top (el 90°) to bottom, columns around.
fn add_head(skin: &mut Part) {
    let (n_el, n_az) = (36usize, 56usize);
    let base = skin.tags.len() as u32;
    for i in 0..=n_el {
        let el = FRAC_PI_2 - PI * i as f32 / n_el as f32;
        for j in 0..=n_az {
            let az = TAU * j as f32 / n_az as f32;
            let dir = Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos());
            let q = HEAD_CENTRE + dir * HEAD_RADII;
            skin.tags.push(Tag::Skin(q));
            skin.normals.push(head_normal(q));
        }
    }
    grid(&mut skin.indices, base, n_el, n_az);
}

/// Lids.
fn add_lids(skin: &mut Part) {
    for side in 0..2 {
        for upper in [true, false] {
            let (n_t, n_a) = (8usize, 14usize);
            let base = skin.tags.len() as u32;
            for i in 0..=n_t {
                for j in 0..=n_a {
                    let az = -85.0 + 170.0 * j as f32 / n_a as f32;
                    let tag = Tag::Lid {
                        side,
                        upper,
                        t: i as f32 / n_t as f32,
                        az,
                    };
                    let p = pose(tag, &FaceParams::default());
                    skin.tags.push(tag);
                    skin.normals.push((p - eye_centre(side)).normalize());
                }
            }
            if upper {
                grid(&mut skin.indices, base, n_t, n_a);
            } else {
                grid_flipped(&mut skin.indices, base, n_t, n_a);
            }
        }
    }
}

/// Nose: a small pyramid, flat-shaded.
fn add_nose(skin: &mut Part) {
    let z = surface_z(0.0, NOSE_Y);
    let tip = Vec3::new(0.0, NOSE_Y - 0.004, z + 0.013);
    let ring = [
        Vec3::new(0.0, NOSE_Y + 0.018, surface_z(0.0, NOSE_Y + 0.018) - 0.001),
        Vec3::new(
            -0.01,
            NOSE_Y - 0.006,
            surface_z(-0.01, NOSE_Y - 0.006) - 0.001,
        ),
        Vec3::new(0.0, NOSE_Y - 0.009, surface_z(0.0, NOSE_Y - 0.009) - 0.001),
        Vec3::new(
            0.01,
            NOSE_Y - 0.006,
            surface_z(0.01, NOSE_Y - 0.006) - 0.001,
        ),
    ];
    for k in 0..4 {
        let (a, b) = (ring[k], ring[(k + 1) % 4]);
        let n = (b - tip).cross(a - tip).normalize();
        let base = skin.tags.len() as u32;
        for v in [tip, b, a] {
            skin.tags.push(Tag::Nose(v));
            skin.normals.push(n);
        }
        skin.indices.extend([base, base + 1, base + 2]);
    }
}

/// Lips: a ring strip of `n_lip` steps, inner and outer edge.
fn lips(material: usize, n_lip: usize) -> Part {
    let mut lips = Part::new(material);
    for j in 0..n_lip {
        let a = TAU * j as f32 / n_lip as f32;
        for k in [0.0, 1.0] {
            let tag = Tag::Lip { a, k };
            let p = pose(tag, &FaceParams::default());
            lips.tags.push(tag);
            lips.normals.push(head_normal(p));
        }
    }
    for j in 0..n_lip as u32 {
        let (i0, o0) = (2 * j, 2 * j + 1);
        let (i1, o1) = (
            2 * ((j + 1) % n_lip as u32),
            2 * ((j + 1) % n_lip as u32) + 1,
        );
        lips.indices.extend([i0, o0, o1, i0, o1, i1]);
    }
    lips
}

/// Inside of the mouth: a fan to the lips' `n_lip` steps.
fn mouth_inside(material: usize, n_lip: usize) -> Part {
    let mut mouth = Part::new(material);
    mouth.tags.push(Tag::Mouth { a: None });
    mouth.normals.push(Vec3::Z);
    for j in 0..n_lip {
        mouth.tags.push(Tag::Mouth {
            a: Some(TAU * j as f32 / n_lip as f32),
        });
        mouth.normals.push(Vec3::Z);
    }
    for j in 0..n_lip as u32 {
        mouth.indices.extend([0, 1 + j, 1 + (j + 1) % n_lip as u32]);
    }
    mouth
}

/// Tongue: the lower half of the opening.
fn tongue(material: usize) -> Part {
    let mut tongue = Part::new(material);
    let (n_a, n_r) = (12usize, 3usize);
    for i in 0..=n_r {
        for j in 0..=n_a {
            let a = PI + 0.15 + (PI - 0.3) * j as f32 / n_a as f32;
            tongue.tags.push(Tag::Tongue {
                a,
                r: i as f32 / n_r as f32,
            });
            tongue.normals.push(Vec3::Z);
        }
    }
    grid(&mut tongue.indices, 0, n_r, n_a);
    tongue
}

/// Brows and lashes.
fn brows_and_lashes(material: usize) -> Part {
    let mut brows = Part::new(material);
    for side in 0..2 {
        let n = 10usize;
        let base = brows.tags.len() as u32;
        for i in 0..=1 {
            for j in 0..=n {
                let tag = Tag::Brow {
                    side,
                    u: j as f32 / n as f32,
                    row: i as f32,
                };
                let p = pose(tag, &FaceParams::default());
                brows.tags.push(tag);
                brows.normals.push(head_normal(p));
            }
        }
        grid(&mut brows.indices, base, 1, n);
        let n = 14usize;
        let base = brows.tags.len() as u32;
        for i in 0..=1 {
            for j in 0..=n {
                let tag = Tag::Lash {
                    side,
                    az: -85.0 + 170.0 * j as f32 / n as f32,
                    k: 1.0 - i as f32,
                };
                let p = pose(tag, &FaceParams::default());
                brows.tags.push(tag);
                brows.normals.push((p - eye_centre(side)).normalize());
            }
        }
        grid(&mut brows.indices, base, 1, n);
    }
    brows
}

impl Part {
    fn new(material: usize) -> Self {
        Self {
            material,
            tags: Vec::new(),
            normals: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// Rest positions.
    pub fn rest(&self) -> Vec<Vec3> {
        let rest = FaceParams::default();
        self.tags.iter().map(|t| pose(*t, &rest)).collect()
    }

    /// Sparse offsets of a target: (vertex, delta) for every vertex that moves.
    pub fn offsets(&self, params: &FaceParams, rest: &[Vec3]) -> (Vec<u32>, Vec<[f32; 3]>) {
        let mut idx = Vec::new();
        let mut val = Vec::new();
        for (i, (t, r)) in self.tags.iter().zip(rest).enumerate() {
            let d = pose(*t, params) - *r;
            if d.length_squared() > 1e-14 {
                idx.push(i as u32);
                val.push(d.to_array());
            }
        }
        (idx, val)
    }
}

/// Triangles of a (rows+1) × (cols+1) vertex grid, wound counter-clockwise seen from
/// outside when rows go downward and columns go toward +X on the front.
fn grid(out: &mut Vec<u32>, base: u32, rows: usize, cols: usize) {
    let w = cols as u32 + 1;
    for i in 0..rows as u32 {
        for j in 0..cols as u32 {
            let a = base + i * w + j;
            let (b, c, d) = (a + 1, a + w, a + w + 1);
            out.extend([a, c, b, b, c, d]);
        }
    }
}

fn grid_flipped(out: &mut Vec<u32>, base: u32, rows: usize, cols: usize) {
    let w = cols as u32 + 1;
    for i in 0..rows as u32 {
        for j in 0..cols as u32 {
            let a = base + i * w + j;
            let (b, c, d) = (a + 1, a + w, a + w + 1);
            out.extend([a, b, c, b, d, c]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blink_closes_the_lids_over_the_eye() {
        let closed = FaceParams {
            lid_upper: [1.0, 0.0],
            ..FaceParams::default()
        };
        // Upper lid edge at the eye's front goes below the lower lid edge: the eye is covered.
        let edge = |p: &FaceParams| {
            pose(
                Tag::Lid {
                    side: 0,
                    upper: true,
                    t: 1.0,
                    az: 0.0,
                },
                p,
            )
            .y
        };
        let lower = pose(
            Tag::Lid {
                side: 0,
                upper: false,
                t: 1.0,
                az: 0.0,
            },
            &closed,
        )
        .y;
        let rest = FaceParams::default();
        assert!(edge(&rest) > EYE_OFFSET[1] + 0.005, "open at rest");
        assert!(
            edge(&closed) < lower,
            "closed: {} vs {lower}",
            edge(&closed)
        );
        // The other eye stays open.
        let other = pose(
            Tag::Lid {
                side: 1,
                upper: true,
                t: 1.0,
                az: 0.0,
            },
            &closed,
        )
        .y;
        assert!(other > EYE_OFFSET[1]);
    }

    #[test]
    fn jaw_opens_the_mouth() {
        let open = FaceParams {
            lower_open: 0.03,
            ..FaceParams::default()
        };
        let gap = |p: &FaceParams| lip_xy(FRAC_PI_2, 0.0, p).1 - lip_xy(3.0 * FRAC_PI_2, 0.0, p).1;
        assert!(gap(&FaceParams::default()) < 0.001);
        assert!(gap(&open) > 0.03);
        // The chin follows.
        let chin = Tag::Skin(Vec3::new(
            0.0,
            MOUTH_Y - 0.02,
            surface_z(0.0, MOUTH_Y - 0.02),
        ));
        assert!(pose(chin, &open).y < pose(chin, &FaceParams::default()).y - 0.01);
    }
}
