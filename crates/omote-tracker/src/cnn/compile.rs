//! From tract's decluttered graph to [`Layer`]s.
//!
//! The graph is walked in evaluation order. Convolutions (`Conv`, and the
//! `EinSum`s tract turns 1x1 convolutions into) become layers; the per-channel
//! `Add` (bias), the `Add` of two activations (residual) and `PRelu` / `Max(x, 0)`
//! that follow a convolution are folded into it when the convolution's result has
//! no other reader. Layout changes that are free in channels-last storage
//! (`NHWC -> NCHW` on the input, adding or removing unit axes) only relabel.
//! Anything else is reported as unsupported, and the caller keeps using tract.

use std::collections::HashMap;

use tract_onnx::prelude::*;
use tract_onnx::tract_core::internal::{bail, ensure, format_err};
use tract_onnx::tract_core::ops::array::{Pad as TractPad, PadMode, TypedConcat};
use tract_onnx::tract_core::ops::binary::TypedBinOp;
use tract_onnx::tract_core::ops::change_axes::AxisOp;
use tract_onnx::tract_core::ops::cnn::{Conv, KernelFormat, MaxPool as TractMaxPool, PaddingSpec};
use tract_onnx::tract_core::ops::einsum::EinSum;
use tract_onnx::tract_core::ops::element_wise::ElementWiseOp;
use tract_onnx::tract_core::ops::konst::Const;
use tract_onnx::tract_core::ops::nn::DataFormat;

use super::act::Act;
use super::depthwise::Depthwise;
use super::gemm::PackedWeights;
use super::geometry::ConvGeometry;
use super::im2col::Im2col;
use super::maxpool::MaxPool;
use super::pad::Pad;
use super::{Layer, Network};

/// How a value's logical (tract) shape relates to its channels-last storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Logical `NHWC`: storage order is the logical order.
    Nhwc,
    /// Logical `NCHW` or `CHW`, stored `HWC`.
    ChannelsFirst,
    /// Unit axes added or removed on a tensor whose storage order equals its
    /// logical row-major order (`h·w == 1` or `c == 1`); no further spatial ops.
    Flat,
}

/// A value of the graph: a tensor with its shape.
#[derive(Debug, Clone, Copy)]
struct Val {
    tensor: usize,
    c: usize,
    h: usize,
    w: usize,
    layout: Layout,
}

/// What a convolution layer has absorbed so far (fusions must come in this order:
/// bias and residual before the activation).
#[derive(Debug, Default, Clone, Copy)]
struct Fused {
    residual: bool,
    act: bool,
}

struct Builder<'m> {
    model: &'m TypedModel,
    layers: Vec<Layer>,
    fused: Vec<Fused>,
    tensor_len: Vec<usize>,
    /// Producing layer of each tensor (`None`: the network input).
    producer: Vec<Option<usize>>,
    vals: HashMap<OutletId, Val>,
}

/// Compiles `model` (typed, decluttered, input 0 of fixed `NHWC` shape).
pub(crate) fn compile(model: &TypedModel) -> TractResult<Network> {
    let mut b = Builder {
        model,
        layers: vec![],
        fused: vec![],
        tensor_len: vec![],
        producer: vec![],
        vals: HashMap::new(),
    };
    let inputs = model.input_outlets()?;
    ensure!(
        inputs.len() == 1,
        "expected one input, got {}",
        inputs.len()
    );
    for id in model.eval_order()? {
        b.node(id)?;
    }
    let input = b.val(inputs[0])?.tensor;
    let mut outputs = vec![];
    for o in model.output_outlets()? {
        let v = b.val(*o)?;
        ensure!(
            v.layout != Layout::ChannelsFirst || v.h * v.w == 1 || v.c == 1,
            "output {o:?} would need a transpose"
        );
        outputs.push(v.tensor);
    }
    Ok(Network::new(b.layers, b.tensor_len, input, outputs))
}

/// `tensor` as a flat `f32` vector.
fn floats(t: &Tensor) -> TractResult<Vec<f32>> {
    let t = t.cast_to::<f32>()?;
    let view = t.try_as_plain_ram()?;
    Ok(view.as_slice::<f32>()?.to_vec())
}

impl Builder<'_> {
    fn val(&self, o: OutletId) -> TractResult<Val> {
        self.vals
            .get(&o)
            .copied()
            .ok_or_else(|| format_err!("value {o:?} is not computed by a supported op"))
    }

    fn konst(&self, o: OutletId) -> Option<Arc<Tensor>> {
        self.model
            .node(o.node)
            .op_as::<Const>()
            .map(|c| c.val().clone())
    }

    fn new_tensor(&mut self, len: usize, producer: Option<usize>) -> usize {
        self.tensor_len.push(len);
        self.producer.push(producer);
        self.tensor_len.len() - 1
    }

    fn push(&mut self, layer_of: impl FnOnce(usize) -> Layer, len: usize) -> usize {
        let t = self.new_tensor(len, Some(self.layers.len()));
        self.layers.push(layer_of(t));
        self.fused.push(Fused::default());
        t
    }

    /// The conv/depthwise layer that produced `o`, if `o` has no other reader (so
    /// a following op can be folded into it).
    fn fusable_producer(&self, o: OutletId) -> Option<usize> {
        let model = self.model;
        let single =
            model.outlet_successors(o).len() == 1 && !model.output_outlets().ok()?.contains(&o);
        let l = self.producer[self.vals.get(&o)?.tensor]?;
        matches!(self.layers[l], Layer::Conv { .. } | Layer::Depthwise { .. })
            .then_some(l)
            .filter(|_| single && !self.fused[l].act)
    }

    fn spatial(&self, o: OutletId) -> TractResult<Val> {
        let v = self.val(o)?;
        ensure!(
            v.layout == Layout::ChannelsFirst,
            "{o:?} is not a channels-first activation"
        );
        Ok(v)
    }

    fn node(&mut self, id: usize) -> TractResult<()> {
        let model = self.model;
        let node = model.node(id);
        let out = OutletId::new(id, 0);
        let op = node.op();
        if op.is::<Const>() {
            return Ok(());
        }
        if op.name() == "Source" {
            return self.source(out);
        }
        if let Some(axis) = node.op_as::<AxisOp>() {
            return self.axis(node, axis, out);
        }
        if let Some(conv) = node.op_as::<Conv>() {
            return self.conv(node, conv);
        }
        if let Some(es) = node.op_as::<EinSum>() {
            return self.einsum(node, es);
        }
        if let Some(bin) = node.op_as::<TypedBinOp>() {
            return self.binary(node, bin);
        }
        if let Some(mp) = node.op_as::<TractMaxPool>() {
            return self.max_pool(node, mp, out);
        }
        if let Some(p) = node.op_as::<TractPad>() {
            return self.pad(node, p, out);
        }
        if let Some(cat) = node.op_as::<TypedConcat>() {
            return self.concat(node, cat, out);
        }
        if let Some(ew) = node.op_as::<ElementWiseOp>()
            && ew.0.name() == "Sigmoid"
        {
            return self.sigmoid(node, out);
        }
        bail!("unsupported op {} ({})", op.name(), node.name)
    }

    /// The shape of `out` when every dimension is known.
    fn concrete_shape(&self, out: OutletId) -> TractResult<Option<Vec<usize>>> {
        Ok(self
            .model
            .outlet_fact(out)?
            .shape
            .as_concrete()
            .map(|s| s.to_vec()))
    }

    /// The network input: NHWC with batch 1.
    fn source(&mut self, out: OutletId) -> TractResult<()> {
        let shape = self.concrete_shape(out)?;
        let Some([1, h, w, c]) = shape
            .as_deref()
            .and_then(|s| <[usize; 4]>::try_from(s).ok())
        else {
            bail!("input must be NHWC with batch 1, got {shape:?}");
        };
        let t = self.new_tensor(h * w * c, None);
        let layout = Layout::Nhwc;
        self.vals.insert(
            out,
            Val {
                tensor: t,
                c,
                h,
                w,
                layout,
            },
        );
        Ok(())
    }

    /// A layout change that is free in channels-last storage: only a relabel.
    fn axis(&mut self, node: &TypedNode, axis: &AxisOp, out: OutletId) -> TractResult<()> {
        let v = self.val(node.inputs[0])?;
        let v = match axis {
            AxisOp::Move(3, 1) if v.layout == Layout::Nhwc => Val {
                layout: Layout::ChannelsFirst,
                ..v
            },
            // Storage order is the logical row-major order: only the shape
            // changes.
            AxisOp::Add(_) | AxisOp::Rm(_) | AxisOp::Reshape(..)
                if v.layout != Layout::ChannelsFirst || v.h * v.w == 1 || v.c == 1 =>
            {
                Val {
                    layout: Layout::Flat,
                    ..v
                }
            }
            _ => bail!("unsupported axis op {axis:?} on {v:?}"),
        };
        self.vals.insert(out, v);
        Ok(())
    }

    fn max_pool(&mut self, node: &TypedNode, mp: &TractMaxPool, out: OutletId) -> TractResult<()> {
        let v = self.spatial(node.inputs[0])?;
        let ps = &mp.pool_spec;
        ensure!(
            ps.padding == PaddingSpec::Valid,
            "max pool padding {:?}",
            ps.padding
        );
        let stride = uniform(ps.strides.as_deref(), 1)?;
        let (kh, kw) = (ps.kernel_shape[0], ps.kernel_shape[1]);
        let (oh, ow) = ((v.h - kh) / stride + 1, (v.w - kw) / stride + 1);
        let op = MaxPool {
            c: v.c,
            w: v.w,
            kh,
            kw,
            stride,
            oh,
            ow,
        };
        let input = v.tensor;
        let t = self.push(|output| Layer::MaxPool { input, output, op }, oh * ow * v.c);
        self.vals.insert(
            out,
            Val {
                tensor: t,
                h: oh,
                w: ow,
                ..v
            },
        );
        Ok(())
    }

    /// Zero padding of the spatial (and channel) axes.
    fn pad(&mut self, node: &TypedNode, p: &TractPad, out: OutletId) -> TractResult<()> {
        let v = self.spatial(node.inputs[0])?;
        let PadMode::Constant(k) = &p.mode else {
            bail!("pad mode {:?}", p.mode)
        };
        ensure!(floats(k)?.iter().all(|x| *x == 0.0), "non-zero pad value");
        let pads = &p.pads;
        let rank = pads.len();
        ensure!(
            rank >= 3 && pads[..rank - 3].iter().all(|p| *p == (0, 0)),
            "pads {pads:?}"
        );
        let op = Pad {
            c: v.c,
            h: v.h,
            w: v.w,
            pads: [pads[rank - 3], pads[rank - 2], pads[rank - 1]],
        };
        let (c, h, w) = op.out_shape();
        let input = v.tensor;
        let t = self.push(|output| Layer::Pad { input, output, op }, c * h * w);
        self.vals.insert(
            out,
            Val {
                tensor: t,
                c,
                h,
                w,
                ..v
            },
        );
        Ok(())
    }

    /// A concatenation that is a plain append in storage order.
    fn concat(&mut self, node: &TypedNode, cat: &TypedConcat, out: OutletId) -> TractResult<()> {
        let shape = self
            .concrete_shape(out)?
            .ok_or_else(|| format_err!("concat of symbolic shape"))?;
        ensure!(
            shape[..cat.axis].iter().all(|d| *d == 1),
            "concat along axis {} of {shape:?} is not a plain append",
            cat.axis
        );
        let mut inputs = vec![];
        for i in &node.inputs {
            let v = self.val(*i)?;
            ensure!(
                v.layout != Layout::ChannelsFirst || v.h * v.w == 1 || v.c == 1,
                "concat input {i:?} would need a transpose"
            );
            inputs.push(v.tensor);
        }
        let len: usize = inputs.iter().map(|t| self.tensor_len[*t]).sum();
        let t = self.push(|output| Layer::Concat { inputs, output }, len);
        let v = Val {
            tensor: t,
            c: len,
            h: 1,
            w: 1,
            layout: Layout::Flat,
        };
        self.vals.insert(out, v);
        Ok(())
    }

    fn sigmoid(&mut self, node: &TypedNode, out: OutletId) -> TractResult<()> {
        let v = self.val(node.inputs[0])?;
        let input = v.tensor;
        let len = self.tensor_len[input];
        let t = self.push(|output| Layer::Sigmoid { input, output }, len);
        self.vals.insert(out, Val { tensor: t, ..v });
        Ok(())
    }

    fn conv(&mut self, node: &TypedNode, conv: &Conv) -> TractResult<()> {
        let v = self.spatial(node.inputs[0])?;
        let ps = &conv.pool_spec;
        ensure!(
            matches!(ps.data_format, DataFormat::NCHW | DataFormat::CHW)
                && conv.kernel_fmt == KernelFormat::OIHW
                && conv.q_params.is_none()
                && node.inputs.len() == 3,
            "unsupported conv {conv:?}"
        );
        uniform(ps.dilations.as_deref(), 1).and_then(|d| {
            ensure!(d == 1, "dilation {d}");
            Ok(())
        })?;
        let stride = uniform(ps.strides.as_deref(), 1)?;
        let (kh, kw) = (ps.kernel_shape[0], ps.kernel_shape[1]);
        let (pt, pl, pb, pr) = match &ps.padding {
            PaddingSpec::Valid => (0, 0, 0, 0),
            PaddingSpec::Explicit(b, a) => (b[0], b[1], a[0], a[1]),
            p => bail!("conv padding {p:?}"),
        };
        let geom = ConvGeometry::new(v.c, (v.h, v.w), (kh, kw), stride, (pt, pl, pb, pr));
        let (oh, ow) = (geom.oh, geom.ow);
        let kernel = self
            .konst(node.inputs[1])
            .ok_or_else(|| format_err!("conv kernel is not a constant"))?;
        let kernel = floats(&kernel)?;
        let (cin, cout) = (ps.input_channels, ps.output_channels);
        ensure!(cin == v.c, "conv input channels {cin} != {}", v.c);
        let bias = match self.konst(node.inputs[2]) {
            Some(b) => floats(&b)?,
            None => bail!("conv bias is not a constant"),
        };
        let bias = match bias.len() {
            0 => vec![0.0; cout],
            1 => vec![bias[0]; cout],
            n if n == cout => bias,
            n => bail!("conv bias has {n} values for {cout} channels"),
        };
        let input = v.tensor;
        let t = if conv.group == 1 {
            ensure!(kernel.len() == cout * cin * kh * kw, "conv kernel size");
            let weights = PackedWeights::new(kh * kw * cin, cout, &bias, |k, co| {
                let (tap, ci) = (k / cin, k % cin);
                kernel[((co * cin + ci) * kh + tap / kw) * kw + tap % kw]
            });
            let im2col =
                (kh * kw != 1 || stride != 1 || pt + pl + pb + pr != 0).then_some(Im2col { geom });
            self.push(
                |output| Layer::Conv {
                    input,
                    output,
                    residual: None,
                    im2col,
                    weights,
                    pixels: oh * ow,
                },
                oh * ow * cout,
            )
        } else if conv.group == cin && cin == cout {
            ensure!(kernel.len() == cout * kh * kw, "depthwise kernel size");
            let mut weights = vec![0.0; kh * kw * cin];
            for ch in 0..cin {
                for tap in 0..kh * kw {
                    weights[tap * cin + ch] = kernel[ch * kh * kw + tap];
                }
            }
            let op = Depthwise {
                geom,
                weights,
                bias,
                act: Act::None,
            };
            self.push(
                |output| Layer::Depthwise { input, output, op },
                oh * ow * cout,
            )
        } else {
            bail!("grouped conv with {} groups", conv.group)
        };
        let out = Val {
            tensor: t,
            c: cout,
            h: oh,
            w: ow,
            layout: Layout::ChannelsFirst,
        };
        self.vals.insert(OutletId::new(node.id, 0), out);
        Ok(())
    }

    fn einsum(&mut self, node: &TypedNode, es: &EinSum) -> TractResult<()> {
        let expr = es.axes.to_string();
        ensure!(
            matches!(
                expr.as_str(),
                "NIHW,OI->NOHW" | "NIHW,OI->OHW" | "IHW,OI->NOHW" | "IHW,OI->OHW" | "NIHW,OI->NHWO"
            ) && es.q_params.is_none(),
            "unsupported einsum {expr}"
        );
        let v = self.spatial(node.inputs[0])?;
        let w = self
            .konst(node.inputs[1])
            .ok_or_else(|| format_err!("einsum weights are not a constant"))?;
        let &[cout, cin] = w.shape() else {
            bail!("einsum weights shape {:?}", w.shape())
        };
        ensure!(cin == v.c, "einsum input channels {cin} != {}", v.c);
        let w = floats(&w)?;
        let weights = PackedWeights::new(cin, cout, &vec![0.0; cout], |k, n| w[n * cin + k]);
        let input = v.tensor;
        let pixels = v.h * v.w;
        let t = self.push(
            |output| Layer::Conv {
                input,
                output,
                residual: None,
                im2col: None,
                weights,
                pixels,
            },
            pixels * cout,
        );
        self.vals.insert(
            OutletId::new(node.id, 0),
            Val {
                tensor: t,
                c: cout,
                layout: if expr.ends_with("NHWO") {
                    Layout::Nhwc
                } else {
                    Layout::ChannelsFirst
                },
                ..v
            },
        );
        Ok(())
    }

    /// Per-channel constant of a value with `c` channels on axis `axis` of
    /// `rank`, if `k` broadcasts that way (or is a scalar).
    fn per_channel(
        k: &Tensor,
        c: usize,
        axis: usize,
        rank: usize,
    ) -> TractResult<Option<Vec<f32>>> {
        let vals = floats(k)?;
        if vals.len() == 1 {
            return Ok(Some(vec![vals[0]; c]));
        }
        // Align `k`'s shape to the value's rank (leading unit axes).
        let shape = k.shape();
        let ok = shape.len() <= rank
            && rank - shape.len() <= axis
            && shape[axis - (rank - shape.len())] == c
            && vals.len() == c;
        Ok(ok.then_some(vals))
    }

    fn binary(&mut self, node: &TypedNode, bin: &TypedBinOp) -> TractResult<()> {
        let name = bin.0.name();
        let out = OutletId::new(node.id, 0);
        let rank = self.model.outlet_fact(out)?.rank();
        let (a, b) = (node.inputs[0], node.inputs[1]);
        let (ka, kb) = (self.konst(a), self.konst(b));
        let (x, k) = match (&ka, &kb) {
            (None, Some(k)) => (a, Some(k.clone())),
            (Some(k), None) if bin.0.is_commutative() => (b, Some(k.clone())),
            (None, None) => (a, None),
            _ => bail!("unsupported {name} operands"),
        };
        let v = self.val(x)?;
        ensure!(v.layout != Layout::Flat, "{name} on a flattened value");
        // The channel axis: last for NHWC, third from last for (N)CHW.
        let axis = if v.layout == Layout::Nhwc {
            rank - 1
        } else {
            rank - 3
        };
        match (name, k) {
            ("Add", Some(k)) => {
                let bias = Self::per_channel(&k, v.c, axis, rank)?
                    .ok_or_else(|| format_err!("Add of a non per-channel constant"))?;
                let l = self
                    .fusable_producer(x)
                    .ok_or_else(|| format_err!("bias Add without a fusable producer"))?;
                match &mut self.layers[l] {
                    Layer::Conv { weights, .. } => weights
                        .bias
                        .iter_mut()
                        .zip(&bias)
                        .for_each(|(b, a)| *b += a),
                    Layer::Depthwise { op, .. } => {
                        op.bias.iter_mut().zip(&bias).for_each(|(b, a)| *b += a)
                    }
                    _ => unreachable!(),
                }
            }
            ("Add", None) => {
                let vb = self.spatial(b)?;
                ensure!(
                    (v.c, v.h, v.w) == (vb.c, vb.h, vb.w),
                    "residual shapes differ"
                );
                // Fold into whichever operand's conv runs later.
                let cand = [(a, vb), (b, v)]
                    .into_iter()
                    .filter_map(|(o, other)| {
                        let l = self.fusable_producer(o)?;
                        let before = self.producer[other.tensor].is_none_or(|p| p < l);
                        (before
                            && !self.fused[l].residual
                            && matches!(self.layers[l], Layer::Conv { .. }))
                        .then_some((l, other))
                    })
                    .max_by_key(|(l, _)| *l);
                let (l, other) =
                    cand.ok_or_else(|| format_err!("residual Add without a fusable conv"))?;
                if let Layer::Conv { residual, .. } = &mut self.layers[l] {
                    *residual = Some((other.tensor, other.c));
                }
                self.fused[l].residual = true;
                let tensor = self.layers[l].output();
                self.vals.insert(out, Val { tensor, ..v });
                return Ok(());
            }
            ("OmotePRelu" | "Max", Some(k)) => {
                let slopes = if name == "Max" {
                    ensure!(floats(&k)?.iter().all(|x| *x == 0.0), "Max with non-zero");
                    vec![0.0; v.c]
                } else {
                    Self::per_channel(&k, v.c, axis, rank)?
                        .ok_or_else(|| format_err!("PRelu slope is not per channel"))?
                };
                let l = self
                    .fusable_producer(x)
                    .ok_or_else(|| format_err!("{name} without a fusable producer"))?;
                match &mut self.layers[l] {
                    Layer::Conv { weights, .. } => {
                        weights.act = Act::prelu(&slopes, weights.bias.len())
                    }
                    Layer::Depthwise { op, .. } => op.act = Act::prelu(&slopes, op.geom.c),
                    _ => unreachable!(),
                }
                self.fused[l].act = true;
            }
            _ => bail!("unsupported binary op {name}"),
        }
        self.vals.insert(out, v);
        Ok(())
    }
}

/// The single value of a per-axis parameter (strides, dilations), `default` if
/// absent.
fn uniform(v: Option<&[usize]>, default: usize) -> TractResult<usize> {
    match v {
        None => Ok(default),
        Some([a, rest @ ..]) if rest.iter().all(|r| r == a) => Ok(*a),
        Some(v) => bail!("non-uniform {v:?}"),
    }
}
