//! A small dedicated executor for the tracker's convolutional networks.
//!
//! tract runs the face-mesh network in `NCHW` layout: every 1x1 convolution packs
//! its (large) activation operand before the matrix product, and the bias,
//! PReLU and residual additions are separate passes over memory. The networks here
//! are simple (convolutions, depthwise convolutions, PReLU/ReLU, residual adds,
//! max pooling, channel padding), so this module runs them channels-last with
//! hand-written kernels instead:
//!
//! * [`compile`] reads tract's decluttered graph (tract stays the ONNX parser and
//!   the reference: the tests compare both on real images) and fuses each
//!   convolution with the bias, residual add and activation that follow it;
//! * [`gemm`] (dense convolutions as matrix products, [`im2col`] for kernels
//!   larger than 1x1), [`depthwise`], [`maxpool`], [`pad`] are the kernels; a
//!   convolution's window geometry is [`geometry`]'s `ConvGeometry`, shared by
//!   the depthwise kernel and the gather;
//! * [`isa`] picks AVX-512 / AVX2+FMA / baseline code at run time (the matrix
//!   product has intrinsics kernels for both, `gemm_avx2`, `gemm_avx512`);
//! * tensors live in a few reusable buffers (assigned by liveness at load time),
//!   so a run allocates nothing.
//!
//! The blendshape network (an MLP-Mixer, no convolutions in space) has its own
//! small runner on the same matrix product, [`mixer`].

mod act;
mod compile;
mod depthwise;
#[cfg(target_arch = "x86_64")]
mod depthwise_avx2;
mod gemm;
#[cfg(target_arch = "x86_64")]
mod gemm_avx2;
#[cfg(target_arch = "x86_64")]
mod gemm_avx512;
mod geometry;
mod im2col;
pub(crate) mod isa;
mod maxpool;
pub(crate) mod mixer;
mod pad;
#[cfg(test)]
mod tests;

pub(crate) use compile::compile;

use depthwise::Depthwise;
use gemm::PackedWeights;
use im2col::Im2col;
pub(crate) use isa::Isa;
use maxpool::MaxPool;
use pad::Pad;

/// Rows gathered per [`im2col`] block (a multiple of every tile height).
const BLOCK_ROWS: usize = 96;

/// One step of the network; tensors are indices into [`Network::tensor_slot`].
#[derive(Debug, Clone)]
pub(crate) enum Layer {
    /// A dense convolution as a matrix product, with fused bias, residual and
    /// activation.
    Conv {
        input: usize,
        output: usize,
        /// Residual tensor and its channel count (may be fewer than the output's:
        /// the missing channels are zero padding).
        residual: Option<(usize, usize)>,
        /// `None` for a 1x1 stride-1 convolution (the input rows are used as is).
        im2col: Option<Im2col>,
        weights: PackedWeights,
        /// Output pixels.
        pixels: usize,
    },
    /// A depthwise convolution with fused bias and activation.
    Depthwise {
        input: usize,
        output: usize,
        op: Depthwise,
    },
    /// Max pooling.
    MaxPool {
        input: usize,
        output: usize,
        op: MaxPool,
    },
    /// Zero padding.
    Pad {
        input: usize,
        output: usize,
        op: Pad,
    },
    /// Logistic sigmoid, element-wise.
    Sigmoid { input: usize, output: usize },
    /// Concatenation of whole tensors, one after the other (a concatenation along
    /// the first axis longer than 1, in row-major storage).
    Concat { inputs: Vec<usize>, output: usize },
}

impl Layer {
    fn output(&self) -> usize {
        match self {
            Layer::Conv { output, .. }
            | Layer::Depthwise { output, .. }
            | Layer::MaxPool { output, .. }
            | Layer::Pad { output, .. }
            | Layer::Sigmoid { output, .. }
            | Layer::Concat { output, .. } => *output,
        }
    }

    fn inputs(&self) -> Vec<usize> {
        match self {
            Layer::Conv {
                input, residual, ..
            } => std::iter::once(*input)
                .chain(residual.map(|r| r.0))
                .collect(),
            Layer::Depthwise { input, .. }
            | Layer::MaxPool { input, .. }
            | Layer::Pad { input, .. }
            | Layer::Sigmoid { input, .. } => vec![*input],
            Layer::Concat { inputs, .. } => inputs.clone(),
        }
    }
}

/// A compiled network: layers, buffers and the instruction set to run them with.
#[derive(Debug)]
pub(crate) struct Network {
    isa: Isa,
    layers: Vec<Layer>,
    /// Element count of each tensor.
    tensor_len: Vec<usize>,
    /// Buffer holding each tensor.
    tensor_slot: Vec<usize>,
    slots: Vec<Vec<f32>>,
    input: usize,
    outputs: Vec<usize>,
    /// [`im2col`] block buffer.
    scratch: Vec<f32>,
    /// [`gemm`] tile packing buffer.
    pack: Vec<f32>,
}

impl Network {
    /// Builds the network from its layers; tensor `input` is fed by
    /// [`Network::run`], `outputs` are read back with [`Network::output`].
    fn new(layers: Vec<Layer>, tensor_len: Vec<usize>, input: usize, outputs: Vec<usize>) -> Self {
        // Last layer reading each tensor (outputs: never freed).
        let mut last_use = vec![0usize; tensor_len.len()];
        for (i, l) in layers.iter().enumerate() {
            for t in l.inputs() {
                last_use[t] = i;
            }
        }
        for &t in &outputs {
            last_use[t] = usize::MAX;
        }
        // Greedy slot assignment: a layer's output never shares a buffer with its
        // inputs (inputs are released after the output is placed).
        let mut tensor_slot = vec![usize::MAX; tensor_len.len()];
        let mut slot_len: Vec<usize> = Vec::new();
        let mut free: Vec<usize> = Vec::new();
        let mut place = |t: usize, tensor_slot: &mut [usize], free: &mut Vec<usize>| {
            let s = free.pop().unwrap_or_else(|| {
                slot_len.push(0);
                slot_len.len() - 1
            });
            slot_len[s] = slot_len[s].max(tensor_len[t]);
            tensor_slot[t] = s;
        };
        place(input, &mut tensor_slot, &mut free);
        for (i, l) in layers.iter().enumerate() {
            place(l.output(), &mut tensor_slot, &mut free);
            for t in l.inputs() {
                if last_use[t] == i && !free.contains(&tensor_slot[t]) {
                    free.push(tensor_slot[t]);
                }
            }
        }
        let scratch_len = layers
            .iter()
            .filter_map(|l| match l {
                Layer::Conv {
                    im2col: Some(g), ..
                } => Some(BLOCK_ROWS * g.k()),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let max_k = layers
            .iter()
            .filter_map(|l| match l {
                Layer::Conv { weights, .. } => Some(weights.k),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        Self {
            isa: Isa::detect(),
            layers,
            tensor_len,
            tensor_slot,
            slots: slot_len.into_iter().map(|n| vec![0.0; n]).collect(),
            input,
            outputs,
            scratch: vec![0.0; scratch_len],
            pack: vec![0.0; gemm::MAX_MR * max_k],
        }
    }

    /// Element count of the input.
    pub fn input_len(&self) -> usize {
        self.tensor_len[self.input]
    }

    /// Runs the network on `input` (`H x W x C`, as the model's NHWC input).
    ///
    /// # Panics
    /// If `input` does not have [`Network::input_len`] values.
    pub fn run(&mut self, input: &[f32]) {
        let len = self.input_len();
        self.slots[self.tensor_slot[self.input]][..len].copy_from_slice(input);
        let mut ctx = Ctx {
            layers: &self.layers,
            tensor_len: &self.tensor_len,
            tensor_slot: &self.tensor_slot,
            slots: &mut self.slots,
            scratch: &mut self.scratch,
            pack: &mut self.pack,
        };
        ctx.run(self.isa);
    }

    /// Output `index` of the last run, in the model's row-major order.
    pub fn output(&self, index: usize) -> &[f32] {
        let t = self.outputs[index];
        &self.slots[self.tensor_slot[t]][..self.tensor_len[t]]
    }

    /// Number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Per-layer run times in ms (tests, to see where the time goes).
    #[cfg(test)]
    pub fn profile(&mut self, input: &[f32], iters: usize) -> Vec<(String, f64)> {
        let len = self.input_len();
        self.slots[self.tensor_slot[self.input]][..len].copy_from_slice(input);
        let mut times = vec![0.0; self.layers.len()];
        let mut ctx = Ctx {
            layers: &self.layers,
            tensor_len: &self.tensor_len,
            tensor_slot: &self.tensor_slot,
            slots: &mut self.slots,
            scratch: &mut self.scratch,
            pack: &mut self.pack,
        };
        for _ in 0..iters {
            for (i, l) in ctx.layers.iter().enumerate() {
                let t = std::time::Instant::now();
                ctx.layer(self.isa, l);
                times[i] += t.elapsed().as_secs_f64() * 1e3 / iters as f64;
            }
        }
        self.layers
            .iter()
            .zip(times)
            .map(|(l, t)| {
                let d = match l {
                    Layer::Conv {
                        weights,
                        pixels,
                        im2col,
                        residual,
                        ..
                    } => format!(
                        "conv px {pixels} k {} n {} im2col {} res {}",
                        weights.k,
                        weights.n,
                        im2col.is_some(),
                        residual.is_some()
                    ),
                    Layer::Depthwise { op, .. } => {
                        format!("dw {}x{}x{}", op.geom.h, op.geom.w, op.geom.c)
                    }
                    Layer::MaxPool { op, .. } => format!("maxpool {}x{}x{}", op.oh, op.ow, op.c),
                    Layer::Pad { op, .. } => format!("pad {}x{}x{}", op.h, op.w, op.c),
                    Layer::Sigmoid { .. } => "sigmoid".into(),
                    Layer::Concat { .. } => "concat".into(),
                };
                (d, t)
            })
            .collect()
    }

    /// Forces an instruction set (tests compare them; must be supported).
    #[cfg(test)]
    pub fn force_isa(&mut self, isa: Isa) {
        self.isa = isa;
    }
}

/// Borrowed state of one run.
struct Ctx<'a> {
    layers: &'a [Layer],
    tensor_len: &'a [usize],
    tensor_slot: &'a [usize],
    slots: &'a mut [Vec<f32>],
    scratch: &'a mut [f32],
    pack: &'a mut [f32],
}

impl Ctx<'_> {
    /// Runs every layer with the kernels for `isa`.
    fn run(&mut self, isa: Isa) {
        for layer in self.layers {
            self.layer(isa, layer);
        }
    }

    /// Runs one layer.
    fn layer(&mut self, isa: Isa, layer: &Layer) {
        {
            let out_slot = self.tensor_slot[layer.output()];
            let out_len = self.tensor_len[layer.output()];
            let mut out = std::mem::take(&mut self.slots[out_slot]);
            let slot = |t: usize| &self.slots[self.tensor_slot[t]][..self.tensor_len[t]];
            let o = &mut out[..out_len];
            match layer {
                Layer::Conv {
                    input,
                    residual,
                    im2col,
                    weights,
                    pixels,
                    ..
                } => {
                    let a = slot(*input);
                    let res = residual.map(|(t, n)| (slot(t), n));
                    match im2col {
                        None => gemm::gemm(isa, a, *pixels, weights, res, o, self.pack),
                        Some(g) => {
                            let (k, n) = (weights.k, weights.n);
                            for p0 in (0..*pixels).step_by(BLOCK_ROWS) {
                                let rows = BLOCK_ROWS.min(pixels - p0);
                                g.gather(a, p0, rows, self.scratch);
                                let res = res.map(|(r, rn)| (&r[p0 * rn..], rn));
                                gemm::gemm(
                                    isa,
                                    &self.scratch[..rows * k],
                                    rows,
                                    weights,
                                    res,
                                    &mut o[p0 * n..],
                                    self.pack,
                                );
                            }
                        }
                    }
                }
                Layer::Depthwise { input, op, .. } => op.run(isa, slot(*input), o),
                Layer::MaxPool { input, op, .. } => op.run(slot(*input), o),
                Layer::Pad { input, op, .. } => op.run(slot(*input), o),
                Layer::Sigmoid { input, .. } => {
                    for (o, i) in o.iter_mut().zip(slot(*input)) {
                        *o = 1.0 / (1.0 + (-*i).exp());
                    }
                }
                Layer::Concat { inputs, .. } => {
                    let mut at = 0;
                    for &t in inputs {
                        let src = slot(t);
                        o[at..at + src.len()].copy_from_slice(src);
                        at += src.len();
                    }
                }
            }
            self.slots[out_slot] = out;
        }
    }
}
