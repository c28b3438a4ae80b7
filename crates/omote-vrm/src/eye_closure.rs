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
//! model with no blink, or one whose blink moves no vertex, measures nothing (0).

use std::collections::HashMap;

use gltf_json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type};
use gltf_json::validation::Checked;
use gltf_json::{Root, accessor::Accessor};
use omote_core::ExpressionPreset;

use crate::expressions::{Expression, MorphTargetBind};

/// Morph targets larger than this many vertices are not read (a bound on what a
/// hostile file can make us allocate; real faces have tens of thousands).
const MAX_VERTICES: usize = 2_000_000;

/// A displacement field per (mesh, primitive).
type Field = HashMap<(usize, usize), Vec<[f32; 3]>>;

/// Each expression's eye closure, in the order of `expressions` (blink expressions
/// themselves 0).
pub(crate) fn eye_closures(
    root: &Root,
    bin: Option<&[u8]>,
    expressions: &[Expression],
) -> Vec<f32> {
    let mut closures = vec![0.0; expressions.len()];
    let Some(bin) = bin else {
        return closures;
    };
    let reader = Reader { root, bin };
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
    let norm: f64 = blink.values().flatten().map(|b| dot(b, b)).sum();
    if !(norm.is_finite() && norm > 1e-12) {
        return closures;
    }
    for (closure, e) in closures.iter_mut().zip(expressions) {
        if is_blink(e) || e.morph_target_binds.is_empty() {
            continue;
        }
        let mut along = 0.0f64;
        for bind in &e.morph_target_binds {
            for (prim, b) in reader
                .primitives(bind.mesh)
                .filter_map(|p| blink.get(&(bind.mesh, p)).map(|b| (p, b)))
            {
                if let Some(d) = reader.morph(bind.mesh, prim, bind.index) {
                    let w = f64::from(bind.weight);
                    along += w * d.iter().zip(b).map(|(d, b)| dot(d, b)).sum::<f64>();
                }
            }
        }
        let c = (along / norm) as f32;
        *closure = if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    closures
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
}

impl Reader<'_> {
    /// The primitives of mesh `mesh` (none for a bad index).
    fn primitives(&self, mesh: usize) -> impl Iterator<Item = usize> {
        0..self.root.meshes.get(mesh).map_or(0, |m| m.primitives.len())
    }

    /// The displacement `binds` make together, per primitive they move.
    fn field(&self, binds: &[MorphTargetBind]) -> Field {
        let mut field = Field::new();
        for bind in binds {
            for prim in self.primitives(bind.mesh) {
                let Some(d) = self.morph(bind.mesh, prim, bind.index) else {
                    continue;
                };
                let sum = field
                    .entry((bind.mesh, prim))
                    .or_insert_with(|| vec![[0.0; 3]; d.len()]);
                if sum.len() != d.len() {
                    continue;
                }
                for (s, d) in sum.iter_mut().zip(&d) {
                    for k in 0..3 {
                        s[k] += bind.weight * d[k];
                    }
                }
            }
        }
        field
    }

    /// Morph target `index`'s position displacements on a primitive, if it has any we
    /// can read.
    fn morph(&self, mesh: usize, prim: usize, index: usize) -> Option<Vec<[f32; 3]>> {
        let primitive = self.root.meshes.get(mesh)?.primitives.get(prim)?;
        let target = primitive.targets.as_ref()?.get(index)?;
        let accessor = self.root.accessors.get(target.positions?.value())?;
        self.vec3(accessor)
    }

    /// A float VEC3 accessor's values (its sparse values applied).
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
            .filter(|&n| n <= MAX_VERTICES)?;
        let mut out = vec![[0.0f32; 3]; count];
        if let Some(view) = a.buffer_view {
            let (data, stride) = self.view(view.value())?;
            let stride = stride.unwrap_or(12);
            let start = usize::try_from(a.byte_offset.map_or(0, |o| o.0)).ok()?;
            for (i, v) in out.iter_mut().enumerate() {
                let at = start.checked_add(i.checked_mul(stride)?)?;
                *v = read_vec3(data.get(at..at.checked_add(12)?)?);
            }
        }
        if let Some(sparse) = &a.sparse {
            let n = usize::try_from(sparse.count.0)
                .ok()
                .filter(|&n| n <= count)?;
            let (indices, _) = self.view(sparse.indices.buffer_view.value())?;
            let indices = indices.get(usize::try_from(sparse.indices.byte_offset.0).ok()?..)?;
            let (values, _) = self.view(sparse.values.buffer_view.value())?;
            let values = values.get(usize::try_from(sparse.values.byte_offset.0).ok()?..)?;
            let width = match sparse.indices.component_type {
                Checked::Valid(IndexComponentType(ComponentType::U8)) => 1,
                Checked::Valid(IndexComponentType(ComponentType::U16)) => 2,
                Checked::Valid(IndexComponentType(ComponentType::U32)) => 4,
                _ => return None,
            };
            for k in 0..n {
                let raw = indices.get(k * width..k * width + width)?;
                let i = match *raw {
                    [a] => usize::from(a),
                    [a, b] => usize::from(u16::from_le_bytes([a, b])),
                    [a, b, c, d] => usize::try_from(u32::from_le_bytes([a, b, c, d])).ok()?,
                    _ => return None,
                };
                *out.get_mut(i)? = read_vec3(values.get(k * 12..k * 12 + 12)?);
            }
        }
        Some(out)
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

fn read_vec3(b: &[u8]) -> [f32; 3] {
    let f = |k: usize| {
        let v = f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
        if v.is_finite() { v } else { 0.0 }
    };
    [f(0), f(4), f(8)]
}
