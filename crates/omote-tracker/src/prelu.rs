//! A one-pass PRelu for tract.
//!
//! tract-onnx expands ONNX `PRelu(x, slope)` into three broadcast passes
//! (`x·slope`, `x > 0`, select) with two temporary tensors; the face-mesh model has
//! a PRelu after most of its convolutions, so that expansion is a large part of its
//! run time. [`PreluOp`] computes `x > 0 ? x : x·slope` in place, in one pass, as a
//! binary operator that tract's optimiser treats like any other broadcasting
//! binary op (it is registered for `PRelu` by [`crate::model`]).

use tract_onnx::prelude::*;
use tract_onnx::tract_core::internal::ensure;
use tract_onnx::tract_core::ops::binary::BinMiniOp;

/// `PRelu(a, b) = a > 0 ? a : a·b`, `b` broadcast to `a`'s shape (ONNX's
/// unidirectional broadcasting). `f32` only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreluOp;

/// Row-major strides of `shape`, with 0 where `shape` is 1 (a broadcast axis).
fn broadcast_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut s = 1;
    for (i, &d) in shape.iter().enumerate().rev() {
        strides[i] = if d == 1 { 0 } else { s };
        s *= d;
    }
    strides
}

/// PRelu with one slope over a run of values; branch-free so it vectorises.
#[inline]
fn prelu_run(xs: &mut [f32], slope: f32) {
    for v in xs.iter_mut() {
        let x = *v;
        *v = if x > 0.0 { x } else { x * slope };
    }
}

/// Applies PRelu to `x` (shape `x_shape`) in place, with `slope` of shape
/// `slope_shape` (same rank; every axis 1 or equal to `x`'s).
pub(crate) fn prelu_in_place(
    x: &mut [f32],
    x_shape: &[usize],
    slope: &[f32],
    slope_shape: &[usize],
) -> TractResult<()> {
    let rank = x_shape.len();
    ensure!(
        slope_shape.len() <= rank,
        "PRelu slope rank {} exceeds input rank {rank}",
        slope_shape.len()
    );
    // Align the slope's shape to the input's rank (leading 1s).
    let mut bshape = vec![1; rank - slope_shape.len()];
    bshape.extend_from_slice(slope_shape);
    for (a, b) in x_shape.iter().zip(&bshape) {
        ensure!(
            *b == 1 || a == b,
            "PRelu slope {slope_shape:?} does not broadcast to {x_shape:?}"
        );
    }
    if slope.len() == 1 {
        prelu_run(x, slope[0]);
        return Ok(());
    }
    if rank == 0 || x.is_empty() {
        return Ok(());
    }
    let strides = broadcast_strides(&bshape);
    let inner = x_shape[rank - 1];
    let inner_stride = strides[rank - 1];
    let mut coords = vec![0usize; rank.saturating_sub(1)];
    for chunk in x.chunks_exact_mut(inner) {
        let base: usize = coords.iter().zip(&strides).map(|(c, s)| c * s).sum();
        if inner_stride == 0 {
            prelu_run(chunk, slope[base]);
        } else {
            let row = &slope[base..base + inner];
            for (v, s) in chunk.iter_mut().zip(row) {
                let x = *v;
                *v = if x > 0.0 { x } else { x * *s };
            }
        }
        // Advance the outer coordinates (row-major).
        for axis in (0..coords.len()).rev() {
            coords[axis] += 1;
            if coords[axis] < x_shape[axis] {
                break;
            }
            coords[axis] = 0;
        }
    }
    Ok(())
}

impl BinMiniOp for PreluOp {
    fn name(&self) -> &'static str {
        "OmotePRelu"
    }

    fn result_datum_type(&self, a: DatumType, _b: DatumType) -> TractResult<DatumType> {
        Ok(a)
    }

    fn is_commutative(&self) -> bool {
        false
    }

    fn eval_in_a(&self, a: &mut Tensor, b: &Tensor) -> TractResult<()> {
        let a_shape: TVec<usize> = a.shape().into();
        let b_shape: TVec<usize> = b.shape().into();
        let b_view = b.try_as_plain_ram()?;
        let slope = b_view.as_slice::<f32>()?;
        let mut a_view = a.try_as_plain_ram_mut()?;
        prelu_in_place(a_view.as_slice_mut::<f32>()?, &a_shape, slope, &b_shape)
    }

    fn eval_out_of_place(&self, c: &mut Tensor, a: &Tensor, b: &Tensor) -> TractResult<()> {
        ensure!(
            c.shape() == a.shape(),
            "PRelu output shape {:?} differs from input {:?}",
            c.shape(),
            a.shape()
        );
        {
            let a_view = a.try_as_plain_ram()?;
            let mut c_view = c.try_as_plain_ram_mut()?;
            c_view
                .as_slice_mut::<f32>()?
                .copy_from_slice(a_view.as_slice::<f32>()?);
        }
        self.eval_in_a(c, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_channel_slopes_broadcast() {
        // NCHW: 1 x 2 x 1 x 3, slope per channel (2 x 1 x 1)
        let mut x = vec![-1.0, 2.0, -3.0, -1.0, 0.5, -2.0];
        prelu_in_place(&mut x, &[1, 2, 1, 3], &[0.5, 0.25], &[2, 1, 1]).unwrap();
        assert_eq!(x, vec![-0.5, 2.0, -1.5, -0.25, 0.5, -0.5]);
        // NHWC: slope on the last axis
        let mut x = vec![-1.0, -1.0, 4.0, -2.0];
        prelu_in_place(&mut x, &[1, 2, 2], &[0.1, 0.2], &[1, 1, 2]).unwrap();
        assert_eq!(x, vec![-0.1, -0.2, 4.0, -0.4]);
        // scalar slope
        let mut x = vec![-1.0, 3.0];
        prelu_in_place(&mut x, &[2], &[0.5], &[1]).unwrap();
        assert_eq!(x, vec![-0.5, 3.0]);
        assert!(prelu_in_place(&mut x, &[2], &[0.5, 0.1, 0.2], &[3]).is_err());
    }
}
