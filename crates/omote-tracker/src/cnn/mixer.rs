//! The blendshape network (MediaPipe's "GhumMarkerPoserMlpMixerGeneral", an
//! MLP-Mixer) on the executor's matrix product.
//!
//! The network: the 146 input points are centred and scaled by their mean
//! distance from the centre (then halved); a 1x1 convolution mixes the 146 points
//! into 96 tokens (separately for x and y), another embeds each token's two
//! coordinates into 64 channels, and a learned extra token is put in front.
//! Then four mixer blocks, each: layer norm over the channels (scale, no offset),
//! token-mixing MLP (97 → 384 → 97, ReLU) plus residual, layer norm, channel-mixing
//! MLP (64 → 256 → 64, ReLU) plus residual. The extra token alone goes through a
//! last 64 → 52 layer and a sigmoid.
//!
//! tract runs this graph as some 190 small operations (reductions, transposes,
//! broadcasts between the products). Here every product is one [`gemm`] call with
//! bias, ReLU and residual fused, the layer norms are one pass each, and the last
//! block computes only what the extra token needs (its channel MLP for one token,
//! its token MLP's second layer for one output token).
//!
//! The weights are read from the ONNX file's initializers by the order of the
//! nodes that use them; [`Mixer::from_onnx_bytes`] checks the graph is the one
//! described here (node counts and every weight shape) and refuses anything else,
//! so the caller falls back to tract.

use tract_onnx::pb::{ModelProto, NodeProto, TensorProto};
use tract_onnx::prelude::*;
use tract_onnx::tract_core::internal::{ensure, format_err};

use super::act::Act;
use super::gemm::{self, PackedWeights};
use super::isa::Isa;

/// One mixer block's weights.
#[derive(Debug, Clone)]
struct Block {
    /// Layer-norm scale before the token MLP, per channel.
    norm1: Vec<f32>,
    /// Token MLP, first layer (tokens → hidden, ReLU).
    token1: PackedWeights,
    /// Token MLP, second layer (hidden → tokens).
    token2: PackedWeights,
    /// Layer-norm scale before the channel MLP, per channel.
    norm2: Vec<f32>,
    /// Channel MLP, first layer (channels → hidden, ReLU).
    channel1: PackedWeights,
    /// Channel MLP, second layer (hidden → channels).
    channel2: PackedWeights,
}

/// The compiled MLP-Mixer with its buffers (a run allocates nothing).
#[derive(Debug)]
pub(crate) struct Mixer {
    isa: Isa,
    points: usize,
    /// Tokens, the extra token included.
    tokens: usize,
    channels: usize,
    eps: f32,
    scale: f32,
    /// Points → tokens (for x and y).
    token_proj: PackedWeights,
    /// Two coordinates → channels, per token.
    embed: PackedWeights,
    /// The extra token's starting value.
    extra: Vec<f32>,
    blocks: Vec<Block>,
    /// Row 0 of the last block's second token layer: only the extra token is read
    /// after the last block.
    last_token2: PackedWeights,
    head: PackedWeights,
    /// Activations, `tokens x channels`.
    x: Vec<f32>,
    /// Transposed activations or layer-norm output.
    t: Vec<f32>,
    /// Layer-norm output.
    norm: Vec<f32>,
    hidden: Vec<f32>,
    tmp: Vec<f32>,
    out: Vec<f32>,
    pack: Vec<f32>,
}

/// An initializer: its shape and its values.
type Initializer = (Vec<usize>, Vec<f32>);

/// An initializer's values as `f32`, with its shape.
fn floats(t: &TensorProto) -> TractResult<Initializer> {
    ensure!(t.data_type == 1, "initializer {} is not f32", t.name);
    let shape: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
    let vals: Vec<f32> = if !t.raw_data.is_empty() {
        t.raw_data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    } else {
        t.float_data.clone()
    };
    ensure!(
        vals.len() == shape.iter().product::<usize>(),
        "initializer {} has {} values for shape {shape:?}",
        t.name,
        vals.len()
    );
    Ok((shape, vals))
}

/// A 1x1 convolution `[o, i, 1, 1]` with bias `[o]`, packed as `k = i`, `n = o`.
fn conv(
    node: &NodeProto,
    init: &dyn Fn(&str) -> Option<Initializer>,
    i: usize,
    o: usize,
    relu: bool,
) -> TractResult<PackedWeights> {
    let (ws, w) = node
        .input
        .get(1)
        .and_then(|n| init(n))
        .ok_or_else(|| format_err!("conv {} has no constant weights", node.name))?;
    let (bs, b) = node
        .input
        .get(2)
        .and_then(|n| init(n))
        .ok_or_else(|| format_err!("conv {} has no constant bias", node.name))?;
    ensure!(
        ws == [o, i, 1, 1] && bs == [o],
        "conv {} has weights {ws:?} and bias {bs:?}, expected [{o}, {i}, 1, 1]",
        node.name
    );
    let mut p = PackedWeights::new(i, o, &b, |k, n| w[n * i + k]);
    if relu {
        p.act = Act::prelu(&vec![0.0; o], p.bias.len());
    }
    Ok(p)
}

impl Mixer {
    /// Reads the blendshape network from the bytes of `face_blendshapes.onnx`;
    /// an error if the graph is not the MLP-Mixer this module implements.
    pub(crate) fn from_onnx_bytes(bytes: &[u8]) -> TractResult<Self> {
        let proto: ModelProto = tract_onnx::onnx().proto_model_for_read(&mut &*bytes)?;
        let graph = proto
            .graph
            .as_ref()
            .ok_or_else(|| format_err!("no graph"))?;
        let init = |name: &str| {
            graph
                .initializer
                .iter()
                .find(|t| t.name == name)
                .and_then(|t| floats(t).ok())
        };
        // The graph must be exactly this one: these node counts, in this order of
        // products (checked below by shape).
        let count = |op: &str| graph.node.iter().filter(|n| n.op_type == op).count();
        let expected = [
            ("Conv", 19),
            ("Relu", 8),
            ("ReduceMean", 18),
            ("ReduceSum", 1),
            ("Sqrt", 9),
            ("Reciprocal", 8),
            ("Concat", 1),
            ("Sigmoid", 1),
            ("Div", 1),
            ("Sub", 9),
            ("Neg", 8),
            ("Add", 24),
            ("Mul", 34),
        ];
        for (op, n) in expected {
            ensure!(count(op) == n, "{} {op} nodes, expected {n}", count(op));
        }
        let (points, tokens, channels, token_hidden, channel_hidden, outputs) =
            (146, 96, 64, 384, 256, 52);
        let convs: Vec<&NodeProto> = graph.node.iter().filter(|n| n.op_type == "Conv").collect();
        let token_proj = conv(convs[0], &init, points, tokens, false)?;
        let embed = conv(convs[1], &init, 2, channels, false)?;
        let t = tokens + 1;
        // Per-node constants: the extra token (Concat), the layer norms' epsilon
        // (Add of a [1,1,1,1]), their scales (Mul by a [64]) and the input
        // scale (Mul by a scalar).
        let consts = |n: &NodeProto| -> Vec<Initializer> {
            n.input.iter().filter_map(|i| init(i)).collect()
        };
        let mut extra = None;
        let mut eps = None;
        let mut scale = None;
        let mut norms = vec![];
        for n in &graph.node {
            for (shape, v) in consts(n) {
                match (n.op_type.as_str(), shape.as_slice()) {
                    ("Concat", [1, c, 1, 1]) if *c == channels => extra = Some(v),
                    ("Add", [1, 1, 1, 1]) => {
                        ensure!(eps.is_none_or(|e| e == v[0]), "layer norms differ");
                        eps = Some(v[0]);
                    }
                    ("Mul", [c]) if *c == channels => norms.push(v),
                    ("Mul", []) => {
                        ensure!(scale.is_none(), "two input scales");
                        scale = Some(v[0]);
                    }
                    _ => {}
                }
            }
        }
        let blocks_n = (convs.len() - 3) / 4;
        ensure!(
            blocks_n == 4 && norms.len() == 2 * blocks_n,
            "{blocks_n} blocks, {} norms",
            norms.len()
        );
        let mut blocks = vec![];
        for (b, norm) in norms.chunks_exact(2).enumerate() {
            let c = &convs[2 + 4 * b..];
            blocks.push(Block {
                norm1: norm[0].clone(),
                token1: conv(c[0], &init, t, token_hidden, true)?,
                token2: conv(c[1], &init, token_hidden, t, false)?,
                norm2: norm[1].clone(),
                channel1: conv(c[2], &init, channels, channel_hidden, true)?,
                channel2: conv(c[3], &init, channel_hidden, channels, false)?,
            });
        }
        let head = conv(convs[18], &init, channels, outputs, false)?;
        // Row 0 of the last second token layer, read back from its packing.
        let last = &blocks[blocks_n - 1].token2;
        let w0: Vec<f32> = (0..token_hidden).map(|k| last.data[k * last.nr]).collect();
        let last_token2 = PackedWeights::new(token_hidden, 1, &last.bias[..1], |k, _| w0[k]);
        let big = t * channel_hidden.max(token_hidden).max(t);
        Ok(Self {
            isa: Isa::detect(),
            points,
            tokens: t,
            channels,
            eps: eps.ok_or_else(|| format_err!("no layer-norm epsilon"))?,
            scale: scale.ok_or_else(|| format_err!("no input scale"))?,
            token_proj,
            embed,
            extra: extra.ok_or_else(|| format_err!("no extra token"))?,
            blocks,
            last_token2,
            head,
            x: vec![0.0; t * channels],
            t: vec![0.0; t * channels],
            norm: vec![0.0; t * channels],
            hidden: vec![0.0; big],
            tmp: vec![0.0; t * channels.max(points)],
            out: vec![0.0; outputs],
            pack: vec![0.0; gemm::MAX_MR * channel_hidden.max(token_hidden).max(points)],
        })
    }

    /// Input values (`points x 2`).
    pub(crate) fn input_len(&self) -> usize {
        self.points * 2
    }

    /// The scores of the last run.
    pub(crate) fn output(&self) -> &[f32] {
        &self.out
    }

    /// Forces an instruction set (tests compare them; must be supported).
    #[cfg(test)]
    pub(crate) fn force_isa(&mut self, isa: Isa) {
        self.isa = isa;
    }

    /// Runs the network on `input` (`points x 2` pixel coordinates).
    ///
    /// # Panics
    /// If `input` does not have [`Mixer::input_len`] values.
    pub(crate) fn run(&mut self, input: &[f32]) {
        assert_eq!(input.len(), self.input_len(), "mixer input");
        let (isa, n, c, t) = (self.isa, self.points, self.channels, self.tokens);
        // Centre, then divide by the mean distance from the centre (and scale).
        let mut mean = [0f32; 2];
        for p in input.chunks_exact(2) {
            mean[0] += p[0];
            mean[1] += p[1];
        }
        mean = mean.map(|m| m / n as f32);
        let mut dist = 0f32;
        for p in input.chunks_exact(2) {
            let (dx, dy) = (p[0] - mean[0], p[1] - mean[1]);
            dist += (dx * dx + dy * dy).sqrt();
        }
        let dist = dist / n as f32;
        // Coordinates as two rows of `n` points.
        let a = &mut self.tmp[..2 * n];
        for (i, p) in input.chunks_exact(2).enumerate() {
            a[i] = (p[0] - mean[0]) / dist * self.scale;
            a[n + i] = (p[1] - mean[1]) / dist * self.scale;
        }
        let proj = &mut self.t[..2 * (t - 1)];
        gemm::gemm(isa, a, 2, &self.token_proj, None, proj, &mut self.pack);
        // Tokens as rows of two coordinates.
        let a = &mut self.tmp[..2 * (t - 1)];
        let (xs, ys) = proj.split_at(t - 1);
        for ((pair, &px), &py) in a.chunks_exact_mut(2).zip(xs).zip(ys) {
            pair[0] = px;
            pair[1] = py;
        }
        self.x[..c].copy_from_slice(&self.extra);
        gemm::gemm(
            isa,
            a,
            t - 1,
            &self.embed,
            None,
            &mut self.x[c..],
            &mut self.pack,
        );

        let last = self.blocks.len() - 1;
        for (b, block) in self.blocks.iter().enumerate() {
            // Token mixing, on the transposed activations (channels x tokens).
            layer_norm(&self.x, c, &block.norm1, self.eps, &mut self.norm);
            transpose(&self.norm, t, c, &mut self.t);
            let h = block.token1.n;
            gemm::gemm(
                isa,
                &self.t,
                c,
                &block.token1,
                None,
                &mut self.hidden[..c * h],
                &mut self.pack,
            );
            let rows = if b == last {
                // Only the extra token is read after the last block.
                let y0 = &mut self.tmp[..c];
                gemm::gemm(
                    isa,
                    &self.hidden[..c * h],
                    c,
                    &self.last_token2,
                    None,
                    y0,
                    &mut self.pack,
                );
                for (x, y) in self.x[..c].iter_mut().zip(y0.iter()) {
                    *x += *y;
                }
                1
            } else {
                transpose(&self.x, t, c, &mut self.norm);
                gemm::gemm(
                    isa,
                    &self.hidden[..c * h],
                    c,
                    &block.token2,
                    Some((&self.norm, t)),
                    &mut self.t,
                    &mut self.pack,
                );
                transpose(&self.t, c, t, &mut self.x);
                t
            };
            // Channel mixing, per token.
            let x = &self.x[..rows * c];
            layer_norm(x, c, &block.norm2, self.eps, &mut self.norm);
            let h = block.channel1.n;
            gemm::gemm(
                isa,
                &self.norm[..rows * c],
                rows,
                &block.channel1,
                None,
                &mut self.hidden[..rows * h],
                &mut self.pack,
            );
            gemm::gemm(
                isa,
                &self.hidden[..rows * h],
                rows,
                &block.channel2,
                Some((x, c)),
                &mut self.tmp[..rows * c],
                &mut self.pack,
            );
            self.x[..rows * c].copy_from_slice(&self.tmp[..rows * c]);
        }
        gemm::gemm(
            isa,
            &self.x[..c],
            1,
            &self.head,
            None,
            &mut self.out,
            &mut self.pack,
        );
        for o in &mut self.out {
            *o = 1.0 / (1.0 + (-*o).exp());
        }
    }
}

/// Layer norm of each `c`-long row of `x` (scale `gamma`, no offset) into `out`.
fn layer_norm(x: &[f32], c: usize, gamma: &[f32], eps: f32, out: &mut [f32]) {
    for (row, o) in x.chunks_exact(c).zip(out.chunks_exact_mut(c)) {
        let mean = row.iter().sum::<f32>() / c as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / c as f32;
        let r = 1.0 / (var + eps).sqrt();
        for ((o, v), g) in o.iter_mut().zip(row).zip(gamma) {
            *o = (v - mean) * (r * g);
        }
    }
}

/// `a` (`rows x cols`) transposed into `out` (`cols x rows`).
fn transpose(a: &[f32], rows: usize, cols: usize, out: &mut [f32]) {
    for r in 0..rows {
        for k in 0..cols {
            out[k * rows + r] = a[r * cols + k];
        }
    }
}
