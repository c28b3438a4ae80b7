//! How far each expression closes the eyes with its own shapes (`eyeClosure`), measured
//! against the model's blink: the share of the blink's lid movement that the
//! expression's morph targets make, `Σ d·b / Σ b·b` over the vertices the blink moves
//! (`d` the expression's displacement, `b` the blink's, each at weight 1), clamped to
//! 0–1. A closed-eye smile (VRoid's `Joy`) reads near 1, a squint a fraction, a mouth
//! shape 0 — so the automatic blink adds only what the expression leaves open, on any
//! model, not only on the built-in one whose shapes are known.
//!
//! The reader is our own, over the glTF JSON already parsed and checked: morph target
//! positions are float VEC3 accessors (dense, sparse, or sparse over zeros); anything
//! else, or any index or range outside the binary chunk, is skipped, never a panic. A
//! model with no blink, or one whose blink moves no vertex, measures nothing (0). Vertex
//! sets are told apart by their base POSITION accessor (UniVRM gives every primitive of a
//! mesh the same one: it counts once), each morph is read once, and the whole measure
//! reads at most [`MAX_TOTAL_VERTICES`]: past that (a hostile file) it measures nothing.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use gltf_json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type};
use gltf_json::mesh::Semantic;
use gltf_json::validation::Checked;
use gltf_json::{Root, accessor::Accessor};
use omote_core::ExpressionPreset;

use crate::expressions::{Expression, MorphTargetBind};

/// Morph targets larger than this many vertices are not read (real faces have tens of
/// thousands).
const MAX_VERTICES: usize = 2_000_000;

/// All the morph vertices one model's measure may read (48 MB of them; a VRoid face
/// with every expression bound reads well under a million).
pub(crate) const MAX_TOTAL_VERTICES: usize = 4_000_000;

/// Displacements of one vertex set.
type Deltas = Rc<[[f32; 3]]>;

/// Each expression's eye closure, in the order of `expressions` (blink expressions
/// themselves 0); `None` when measuring would read more than [`MAX_TOTAL_VERTICES`].
pub(crate) fn eye_closures(
    root: &Root,
    bin: Option<&[u8]>,
    expressions: &[Expression],
) -> Option<Vec<f32>> {
    let mut closures = vec![0.0; expressions.len()];
    let Some(bin) = bin else {
        return Some(closures);
    };
    let reader = Reader {
        root,
        bin,
        cache: RefCell::default(),
        budget: Cell::new(MAX_TOTAL_VERTICES),
    };
    // The blinks, and the ARKit blink shapes a perfect-sync model adds: they are what a
    // blink (or a tracked one) shows, not an expression that leaves the eyes closed.
    let arkit_blinks = ["eyeBlinkLeft", "eyeBlinkRight"].map(omote_core::tracking::arkit_index);
    let is_blink = |e: &Expression| {
        matches!(
            e.preset,
            Some(
                ExpressionPreset::Blink
                    | ExpressionPreset::BlinkLeft
                    | ExpressionPreset::BlinkRight
            )
        ) || arkit_blinks.contains(&omote_core::tracking::arkit_index_any_spelling(&e.name))
    };
    // Both eyes: the blink preset, else the two one-eye blinks together.
    let blink_binds: Vec<MorphTargetBind> = match expressions
        .iter()
        .find(|e| e.preset == Some(ExpressionPreset::Blink) && !e.morph_target_binds.is_empty())
    {
        Some(e) => e.morph_target_binds.clone(),
        None => expressions
            .iter()
            .filter(|e| {
                matches!(
                    e.preset,
                    Some(ExpressionPreset::BlinkLeft | ExpressionPreset::BlinkRight)
                )
            })
            .flat_map(|e| e.morph_target_binds.iter().copied())
            .collect(),
    };
    let blink = reader.field(&blink_binds);
    if reader.over_budget() {
        return None;
    }
    let norm: f64 = blink
        .values()
        .flat_map(|b| b.iter())
        .map(|b| dot(b, b))
        .sum();
    if !(norm.is_finite() && norm > 1e-12) {
        return Some(closures);
    }
    for (closure, e) in closures.iter_mut().zip(expressions) {
        if is_blink(e) || e.morph_target_binds.is_empty() {
            continue;
        }
        let mut along = 0.0f64;
        for bind in &e.morph_target_binds {
            for (set, prim) in reader.vertex_sets(bind.mesh) {
                let Some(b) = blink.get(&set) else { continue };
                if let Some(d) = reader.morph(bind.mesh, prim, bind.index)
                    && d.len() == b.len()
                {
                    let w = f64::from(bind.weight);
                    along += w * d.iter().zip(b.iter()).map(|(d, b)| dot(d, b)).sum::<f64>();
                }
            }
            if reader.over_budget() {
                return None;
            }
        }
        let c = (along / norm) as f32;
        *closure = if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    Some(closures)
}

fn dot(a: &[f32; 3], b: &[f32; 3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| f64::from(*a) * f64::from(*b))
        .sum()
}

struct Reader<'a> {
    root: &'a Root,
    bin: &'a [u8],
    /// Each morph accessor read so far (`None`: unreadable).
    cache: RefCell<HashMap<usize, Option<Deltas>>>,
    /// Vertices still allowed to be read.
    budget: Cell<usize>,
}

impl Reader<'_> {
    fn over_budget(&self) -> bool {
        self.budget.get() == 0
    }

    /// The distinct vertex sets of mesh `mesh` (their base POSITION accessor), each with
    /// its first primitive.
    fn vertex_sets(&self, mesh: usize) -> Vec<(usize, usize)> {
        let mut sets: Vec<(usize, usize)> = Vec::new();
        let Some(m) = self.root.meshes.get(mesh) else {
            return sets;
        };
        for (prim, p) in m.primitives.iter().enumerate() {
            let Some(base) = p.attributes.get(&Checked::Valid(Semantic::Positions)) else {
                continue;
            };
            if !sets.iter().any(|(set, _)| *set == base.value()) {
                sets.push((base.value(), prim));
            }
        }
        sets
    }

    /// The displacement `binds` make together, per vertex set they move.
    fn field(&self, binds: &[MorphTargetBind]) -> HashMap<usize, Deltas> {
        let mut sums: HashMap<usize, Vec<[f32; 3]>> = HashMap::new();
        for bind in binds {
            for (set, prim) in self.vertex_sets(bind.mesh) {
                let Some(d) = self.morph(bind.mesh, prim, bind.index) else {
                    continue;
                };
                let sum = sums.entry(set).or_insert_with(|| vec![[0.0; 3]; d.len()]);
                if sum.len() != d.len() {
                    continue;
                }
                for (s, d) in sum.iter_mut().zip(d.iter()) {
                    for k in 0..3 {
                        s[k] += bind.weight * d[k];
                    }
                }
            }
        }
        sums.into_iter()
            .map(|(k, v)| (k, Deltas::from(v)))
            .collect()
    }

    /// Morph target `index`'s position displacements on a primitive, if it has any we
    /// can read (each accessor read once).
    fn morph(&self, mesh: usize, prim: usize, index: usize) -> Option<Deltas> {
        let primitive = self.root.meshes.get(mesh)?.primitives.get(prim)?;
        let target = primitive.targets.as_ref()?.get(index)?;
        let at = target.positions?.value();
        if let Some(known) = self.cache.borrow().get(&at) {
            return known.clone();
        }
        let read = self
            .root
            .accessors
            .get(at)
            .and_then(|a| self.vec3(a))
            .map(Deltas::from);
        self.cache.borrow_mut().insert(at, read.clone());
        read
    }

    /// A float VEC3 accessor's values (its sparse values applied), counted against the
    /// budget; `None` for what cannot be read or moves nothing.
    fn vec3(&self, a: &Accessor) -> Option<Vec<[f32; 3]>> {
        let float = matches!(
            a.component_type,
            Checked::Valid(GenericComponentType(ComponentType::F32))
        );
        if a.type_ != Checked::Valid(Type::Vec3) || !float || a.normalized {
            return None;
        }
        let count = usize::try_from(a.count.0)
            .ok()
            .filter(|&n| (1..=MAX_VERTICES).contains(&n))?;
        // All zeros moves nothing: not worth a vertex of the budget.
        if a.buffer_view.is_none() && a.sparse.is_none() {
            return None;
        }
        // Everything is checked to lie in the file before anything is allocated.
        let dense = match a.buffer_view {
            Some(view) => {
                let (data, stride) = self.view(view.value())?;
                let stride = stride.unwrap_or(12);
                let start = usize::try_from(a.byte_offset.map_or(0, |o| o.0)).ok()?;
                let end = start
                    .checked_add((count - 1).checked_mul(stride)?)?
                    .checked_add(12)?;
                (end <= data.len()).then_some((data, start, stride))
            }
            None => None,
        };
        if a.buffer_view.is_some() && dense.is_none() {
            return None;
        }
        let sparse = match &a.sparse {
            Some(sparse) => Some(self.sparse(sparse, count)?),
            None => None,
        };
        let left = self.budget.get();
        if count > left {
            self.budget.set(0);
            return None;
        }
        self.budget.set(left - count);
        let mut out = vec![[0.0f32; 3]; count];
        if let Some((data, start, stride)) = dense {
            for (i, v) in out.iter_mut().enumerate() {
                let at = start + i * stride;
                *v = read_vec3(&data[at..at + 12]);
            }
        }
        if let Some((indices, values, width, n)) = sparse {
            for k in 0..n {
                let i = match indices[k * width..k * width + width] {
                    [a] => usize::from(a),
                    [a, b] => usize::from(u16::from_le_bytes([a, b])),
                    [a, b, c, d] => usize::try_from(u32::from_le_bytes([a, b, c, d])).ok()?,
                    _ => return None,
                };
                *out.get_mut(i)? = read_vec3(&values[k * 12..k * 12 + 12]);
            }
        }
        Some(out)
    }

    /// A sparse accessor's index bytes, value bytes, index width and count, checked to
    /// hold `count` entries.
    fn sparse(
        &self,
        sparse: &gltf_json::accessor::sparse::Sparse,
        count: usize,
    ) -> Option<(&[u8], &[u8], usize, usize)> {
        let n = usize::try_from(sparse.count.0)
            .ok()
            .filter(|&n| n <= count)?;
        let width = match sparse.indices.component_type {
            Checked::Valid(IndexComponentType(ComponentType::U8)) => 1,
            Checked::Valid(IndexComponentType(ComponentType::U16)) => 2,
            Checked::Valid(IndexComponentType(ComponentType::U32)) => 4,
            _ => return None,
        };
        let (indices, _) = self.view(sparse.indices.buffer_view.value())?;
        let indices = indices
            .get(usize::try_from(sparse.indices.byte_offset.0).ok()?..)?
            .get(..n.checked_mul(width)?)?;
        let (values, _) = self.view(sparse.values.buffer_view.value())?;
        let values = values
            .get(usize::try_from(sparse.values.byte_offset.0).ok()?..)?
            .get(..n.checked_mul(12)?)?;
        Some((indices, values, width, n))
    }

    /// A buffer view's bytes in the binary chunk, and its stride.
    fn view(&self, index: usize) -> Option<(&[u8], Option<usize>)> {
        let view = self.root.buffer_views.get(index)?;
        let buffer = self.root.buffers.get(view.buffer.value())?;
        if view.buffer.value() != 0 || buffer.uri.is_some() {
            return None;
        }
        let start = usize::try_from(view.byte_offset.map_or(0, |o| o.0)).ok()?;
        let len = usize::try_from(view.byte_length.0).ok()?;
        let bytes = self.bin.get(start..start.checked_add(len)?)?;
        let stride = view.byte_stride.map(|s| s.0).filter(|&s| s >= 12);
        Some((bytes, stride))
    }
}

/// Three little-endian floats from 12 bytes; what is not finite reads as 0.
fn read_vec3(b: &[u8]) -> [f32; 3] {
    let f = |k: usize| {
        let v = f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
        if v.is_finite() { v } else { 0.0 }
    };
    [f(0), f(4), f(8)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expressions::Expression;

    /// A glTF with one mesh whose primitives share base positions accessor 0 and whose
    /// morph targets are the given accessors, over `bin`.
    fn root(accessors: &str, views: &str, targets: &str, primitives: usize) -> Root {
        let prims: Vec<String> = (0..primitives)
            .map(|_| format!(r#"{{"attributes": {{"POSITION": 0}}, "targets": [{targets}]}}"#))
            .collect();
        let json = format!(
            r#"{{"asset": {{"version": "2.0"}}, "buffers": [{{"byteLength": 4096}}],
            "bufferViews": [{views}], "accessors": [{accessors}],
            "meshes": [{{"primitives": [{}]}}]}}"#,
            prims.join(",")
        );
        serde_json::from_str(&json).unwrap()
    }

    fn expression(name: &str, binds: &[(usize, f32)]) -> Expression {
        let mut e = Expression::new(name);
        e.morph_target_binds = binds
            .iter()
            .map(|&(index, weight)| MorphTargetBind {
                node: None,
                mesh: 0,
                index,
                weight,
            })
            .collect();
        e
    }

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn dense_strided_and_sparse_targets_are_read_and_bad_ones_skipped() {
        // Four vertices. Blink (accessor 1, dense, stride 16): the lids (vertices 0, 1)
        // move 1 down. A smile (accessor 2, sparse u16 over zeros): vertex 0 down 0.5 and
        // vertex 3 (the mouth) sideways. A squint (accessor 3, sparse u8 over a dense
        // base): vertex 1 down 0.4. Accessor 4 claims 2 M vertices and has no data;
        // accessor 5 runs past its view; accessor 6 is all zeros.
        let mut bin = floats(&[0.0; 12]); // base positions, 48 bytes
        for v in [
            [0.0, -1.0, 0.0, 9.0],
            [0.0, -1.0, 0.0, 9.0],
            [0.0; 4],
            [0.0; 4],
        ] {
            bin.extend(floats(&v)); // 48..112: stride 16
        }
        bin.extend(0u16.to_le_bytes()); // 112: sparse indices (u16)
        bin.extend(3u16.to_le_bytes());
        bin.extend(floats(&[0.0, -0.5, 0.0, 1.0, 0.0, 0.0])); // 116: sparse values
        bin.push(1); // 140: sparse index (u8)
        bin.extend([0; 3]);
        bin.extend(floats(&[0.0, -0.4, 0.0])); // 144
        bin.extend(floats(&[0.0; 12])); // 156: a dense base of zeros
        bin.resize(4096, 0);
        let views = r#"{"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 64, "byteStride": 16},
            {"buffer": 0, "byteOffset": 112, "byteLength": 4},
            {"buffer": 0, "byteOffset": 116, "byteLength": 24},
            {"buffer": 0, "byteOffset": 140, "byteLength": 1},
            {"buffer": 0, "byteOffset": 144, "byteLength": 12},
            {"buffer": 0, "byteOffset": 156, "byteLength": 48},
            {"buffer": 0, "byteOffset": 0, "byteLength": 20}"#;
        let vec3 = |extra: &str| format!(r#"{{"componentType": 5126, "type": "VEC3", {extra}}}"#);
        let accessors = [
            vec3(r#""count": 4, "bufferView": 0"#),
            vec3(r#""count": 4, "bufferView": 1"#),
            vec3(
                r#""count": 4, "sparse": {"count": 2, "indices": {"bufferView": 2, "componentType": 5123}, "values": {"bufferView": 3}}"#,
            ),
            vec3(
                r#""count": 4, "bufferView": 6, "sparse": {"count": 1, "indices": {"bufferView": 4, "componentType": 5121}, "values": {"bufferView": 5}}"#,
            ),
            vec3(r#""count": 2000000"#),
            vec3(r#""count": 4, "bufferView": 7"#),
            vec3(r#""count": 4, "bufferView": 6"#),
        ]
        .join(",");
        let targets = (1..=6)
            .map(|a| format!(r#"{{"POSITION": {a}}}"#))
            .collect::<Vec<_>>()
            .join(",");
        // Three primitives share the vertex set: it counts once.
        let root = root(&accessors, views, &targets, 3);
        let expressions = [
            expression("blink", &[(0, 1.0)]),
            expression("happy", &[(1, 1.0)]),
            expression("relaxed", &[(2, 1.0)]),
            expression("huge", &[(3, 1.0)]),
            expression("broken", &[(4, 1.0)]),
            expression("zeros", &[(5, 1.0)]),
            expression("half", &[(1, 0.5), (2, 0.5)]),
        ];
        let c = eye_closures(&root, Some(&bin), &expressions).unwrap();
        // Blink b: (0,-1,0) at vertices 0 and 1, Σ b·b = 2.
        assert_eq!(c[0], 0.0, "the blink itself");
        assert!((c[1] - 0.25).abs() < 1e-6, "smile {}", c[1]); // 0.5 / 2
        assert!((c[2] - 0.2).abs() < 1e-6, "squint {}", c[2]); // 0.4 / 2
        assert_eq!(&c[3..6], &[0.0, 0.0, 0.0]);
        assert!((c[6] - 0.225).abs() < 1e-6, "{}", c[6]);
    }

    #[test]
    fn a_model_too_large_to_measure_measures_nothing() {
        // Blink morphs of 1.5 M vertices each, over real (zero) data: three are more
        // than the budget.
        let n = 1_500_000usize;
        let bin = vec![0u8; 12 * n];
        let views = format!(r#"{{"buffer": 0, "byteLength": {}}}"#, 12 * n);
        let accessor =
            format!(r#"{{"componentType": 5126, "type": "VEC3", "count": {n}, "bufferView": 0}}"#);
        let accessors = [
            accessor.clone(),
            accessor.clone(),
            accessor.clone(),
            accessor,
        ]
        .join(",");
        let targets = r#"{"POSITION": 1}, {"POSITION": 2}, {"POSITION": 3}"#;
        let mut root = root(&accessors, &views, targets, 1);
        root.buffers[0].byte_length = gltf_json::validation::USize64((12 * n) as u64);
        let expressions = [expression("blink", &[(0, 1.0), (1, 1.0), (2, 1.0)])];
        assert_eq!(eye_closures(&root, Some(&bin), &expressions), None);
    }
}
