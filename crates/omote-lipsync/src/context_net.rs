//! A small discriminative reading of a frame in its context: one hidden layer over the
//! normalised cepstra of the frame and its neighbours, six class log-posteriors out.
//!
//! Why (crate's EVALUATION.md, "Fourth stage"): the profile's Gaussians generalise to unseen voices
//! through their broad shared covariance but read real voices' vowels one step too open;
//! a net trained on the same synthetic frames plus real recorded vowels, with a few frames
//! of context, reads real voices and the synthetic groups better, and learns the training
//! voices too well alone. The product of the two (a weighted sum of log-posteriors) keeps
//! each one's strength. A profile may carry one ([`Profile::context_net`]); the
//! [`ClassScorer`] adds its logits, times [`ContextNet::weight`], to the Gaussians'
//! log-scores.
//!
//! Stored quantised: each weight matrix as 8-bit integers and one scale (the net is about
//! 3.8 k weights; as floats it would be the largest part of a profile and of the npm
//! package, and 8 bits cost nothing measurable).
//!
//! [`Profile::context_net`]: crate::Profile::context_net
//! [`ClassScorer`]: crate::ClassScorer

use serde::{Deserialize, Serialize};

use crate::degrade::SplitMix;
use crate::error::LipsyncError;
use crate::features::N_CEPS;

/// Most hidden units a net may have (the per-frame buffer is on the stack).
const MAX_HIDDEN: usize = 128;
/// Most frames a net may read around the scored one (past + 1 + future).
const MAX_WINDOW: usize = 16;
/// Largest [`ContextNet::weight`] (the Gaussians count 1).
const MAX_WEIGHT: f32 = 100.0;

/// The net: `log_softmax(W₂ · relu(W₁ · ((x − mean) · scale) + b₁) + b₂)` over the frames
/// `t − past ..= t + future`, oldest first, 12 cepstra each.
///
/// In JSON the two weight matrices are `{"scale": s, "values": [8-bit integers]}` (a
/// weight is `s · value`); [`ContextNet::quantised`] puts a net's weights on that grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredNet", from = "StoredNet")]
pub struct ContextNet {
    /// Frames before the scored one that it reads.
    pub past: usize,
    /// Frames after the scored one that it reads (a stream, which cannot wait for them,
    /// repeats the newest frame instead).
    pub future: usize,
    /// How much its logits count beside a profile's Gaussian log-scores (which count 1).
    pub weight: f32,
    /// Per input, subtracted first (the training inputs' mean).
    pub input_mean: Vec<f32>,
    /// Per input, multiplied next (one over the training inputs' spread).
    pub input_scale: Vec<f32>,
    /// Hidden × inputs, row by row.
    pub hidden_weights: Vec<f32>,
    /// Per hidden unit.
    pub hidden_bias: Vec<f32>,
    /// 6 × hidden, row by row, classes in A I U E O N order.
    pub output_weights: Vec<f32>,
    /// Per class.
    pub output_bias: [f32; 6],
}

/// One training sequence: a clip's normalised cepstra, and per frame the class it teaches
/// (A I U E O N as 0..5; `None`: context only).
#[derive(Clone, Debug, Default)]
pub struct NetSequence {
    /// Every frame of the clip, in order (the context of its neighbours).
    pub frames: Vec<[f32; N_CEPS]>,
    /// The class each frame teaches, if any.
    pub targets: Vec<Option<u8>>,
    /// How much each of its frames counts against a frame of weight 1.
    pub weight: f32,
}

/// How [`ContextNet::train`] trains.
#[derive(Clone, Debug)]
pub struct NetOptions {
    /// Frames read before the scored one.
    pub past: usize,
    /// Frames read after it.
    pub future: usize,
    /// Hidden units.
    pub hidden: usize,
    /// Passes over the frames (the step shrinks ×0.6 after each).
    pub epochs: usize,
    /// Adam's first step size.
    pub learning_rate: f32,
    /// Frames per step.
    pub batch: usize,
    /// The generator's seed (initial weights, order): the same seed, the same net.
    pub seed: u64,
    /// Nets trained side by side, member `m` from seed `seed + m`, and stored as one net
    /// of `members × hidden` units whose logits are their mean: an ensemble reads an
    /// unseen voice more steadily than any one of its members, whose errors there depend
    /// on its seed (crate's EVALUATION.md, "Fourteenth stage"). 1: one net.
    pub members: usize,
    /// The trained net's [`ContextNet::weight`].
    pub weight: f32,
    /// Added to the closed mouth's (N's) output bias after training: a log-prior against
    /// reading consonants, in the net's units.
    pub closed_logit: f32,
}

impl NetOptions {
    /// The prototype's mix (crate's EVALUATION.md, "Fourth stage"): 0.3 times the net's
    /// log-posteriors plus 0.7 times the Gaussians', N's log-prior −1 on the net's side.
    /// Only the differences between classes matter, so this is the Gaussians at 1 and the
    /// net at 0.3 / 0.7 …
    pub const MIX_WEIGHT: f32 = 0.3 / 0.7;
    /// … with the −1, divided by the net's 0.3, in its own logits.
    pub const MIX_CLOSED_LOGIT: f32 = -1.0 / 0.3;
}

impl Default for NetOptions {
    /// The prototype's choice: 4 past frames and 1 future (a stream already holds one
    /// frame), 48 units, 4 epochs, and its mix ([`NetOptions::MIX_WEIGHT`]).
    fn default() -> Self {
        Self {
            past: 4,
            future: 1,
            hidden: 48,
            epochs: 4,
            learning_rate: 2e-3,
            batch: 512,
            seed: 7,
            members: 1,
            weight: Self::MIX_WEIGHT,
            closed_logit: Self::MIX_CLOSED_LOGIT,
        }
    }
}

impl ContextNet {
    /// Most hidden units a net may have.
    pub const MAX_HIDDEN: usize = MAX_HIDDEN;
    /// Most frames a net may read (past + 1 + future).
    pub const MAX_WINDOW: usize = MAX_WINDOW;
    /// Largest [`ContextNet::weight`].
    pub const MAX_WEIGHT: f32 = MAX_WEIGHT;

    /// Frames in its window.
    pub fn window(&self) -> usize {
        // Saturating: a hostile file's sizes must be refused, not overflow.
        self.past.saturating_add(1).saturating_add(self.future)
    }

    fn inputs(&self) -> usize {
        self.window().saturating_mul(N_CEPS)
    }

    fn hidden(&self) -> usize {
        self.hidden_bias.len()
    }

    /// Checks shapes and numbers; `name` is used in errors.
    pub fn validate(&self, name: &str) -> Result<(), LipsyncError> {
        let bad = |reason: String| LipsyncError::Profile {
            name: name.into(),
            reason: format!("context_net: {reason}"),
        };
        if self.window() > MAX_WINDOW {
            return Err(bad(format!(
                "reads {} frames, more than {MAX_WINDOW}",
                self.window()
            )));
        }
        let (n_in, n_hid) = (self.inputs(), self.hidden());
        if n_hid == 0 || n_hid > MAX_HIDDEN {
            return Err(bad(format!(
                "{n_hid} hidden units (need 1 to {MAX_HIDDEN})"
            )));
        }
        for (field, len, want) in [
            ("input_mean", self.input_mean.len(), n_in),
            ("input_scale", self.input_scale.len(), n_in),
            ("hidden_weights", self.hidden_weights.len(), n_in * n_hid),
            ("output_weights", self.output_weights.len(), 6 * n_hid),
        ] {
            if len != want {
                return Err(bad(format!("{field} has {len} numbers, not {want}")));
            }
        }
        if !(self.weight.is_finite() && (0.0..=MAX_WEIGHT).contains(&self.weight)) {
            return Err(bad(format!(
                "weight {} is not between 0 and {MAX_WEIGHT}",
                self.weight
            )));
        }
        let mut all = self
            .input_mean
            .iter()
            .chain(&self.input_scale)
            .chain(&self.hidden_weights)
            .chain(&self.hidden_bias)
            .chain(&self.output_weights)
            .chain(&self.output_bias);
        if let Some(v) = all.find(|v| !v.is_finite() || v.abs() > 1e6) {
            return Err(bad(format!("{v} is not a finite number under 1e6")));
        }
        Ok(())
    }

    /// Log-posteriors of the six classes for the frame in the middle of `window`
    /// (`past` frames before it, `future` after; a clip's edge repeats its end frame).
    /// A window of the wrong length reads as no evidence (all classes equal).
    pub fn log_posteriors(&self, window: &[[f32; N_CEPS]]) -> [f32; 6] {
        log_softmax(self.logits(window))
    }

    /// [`ContextNet::log_posteriors`] of frame `f` of a clip's `frames` (its window taken
    /// as training takes it); a frame outside the clip reads as no evidence.
    pub fn log_posteriors_at(&self, frames: &[[f32; N_CEPS]], f: usize) -> [f32; 6] {
        log_softmax(self.logits_at(frames, f))
    }

    /// The class logits of the frame in the middle of `window`: its log-posteriors up to
    /// one number shared by the six (all that a sum of class scores needs). A window of
    /// the wrong length, or an unvalidated net of the wrong shape, gives zeros.
    pub fn logits(&self, window: &[[f32; N_CEPS]]) -> [f32; 6] {
        if window.len() != self.window() || !self.is_shaped() {
            return [0.0; 6];
        }
        let mut x = [0f32; MAX_WINDOW * N_CEPS];
        let x = &mut x[..self.inputs()];
        self.standardise(window, x);
        let mut h = [0f32; MAX_HIDDEN];
        self.infer(x, &mut h[..self.hidden()])
    }

    /// [`ContextNet::logits`] of frame `f` of a clip's `frames`; zeros outside the clip.
    pub fn logits_at(&self, frames: &[[f32; N_CEPS]], f: usize) -> [f32; 6] {
        let n = self.window();
        if f >= frames.len() || n > MAX_WINDOW {
            return [0.0; 6];
        }
        let mut window = [[0f32; N_CEPS]; MAX_WINDOW];
        fill_window(frames, f, self.past, &mut window[..n]);
        self.logits(&window[..n])
    }

    /// This net with each weight matrix on its 8-bit grid and every other number with
    /// [`STORED_DIGITS`](crate::STORED_DIGITS) significant digits (what storing it keeps):
    /// a net built to be stored is quantised first, so that it scores as it will read back.
    pub fn quantised(&self) -> ContextNet {
        ContextNet::from(StoredNet::from(self.clone()))
    }

    /// Whether the numbers fit the sizes (only an unvalidated net can fail this; it must
    /// not panic either).
    fn is_shaped(&self) -> bool {
        let (n_in, n_hid) = (self.inputs(), self.hidden());
        n_in <= MAX_WINDOW * N_CEPS
            && n_hid <= MAX_HIDDEN
            && self.input_mean.len() == n_in
            && self.input_scale.len() == n_in
            && self.hidden_weights.len() == n_in * n_hid
            && self.output_weights.len() == 6 * n_hid
    }

    /// `window`'s cepstra as the net's inputs, `x` (one per input).
    fn standardise(&self, window: &[[f32; N_CEPS]], x: &mut [f32]) {
        for (i, (x, v)) in x.iter_mut().zip(window.iter().flatten()).enumerate() {
            // A real frame lies within a few spreads; nothing may overflow into NaN.
            let t = (v - self.input_mean[i]) * self.input_scale[i];
            *x = if t.is_finite() {
                t.clamp(-1e3, 1e3)
            } else {
                0.0
            };
        }
    }

    /// [`ContextNet::forward`] for reading: the same sums taken eight products at a time,
    /// which the compiler turns into vector instructions (the batch ran 20 % slower with
    /// the plain sums). Training keeps its own order, so a build's net does not depend on
    /// this; a logit moves by a few ulps.
    fn infer(&self, x: &[f32], h: &mut [f32]) -> [f32; 6] {
        let n_hid = h.len();
        for (j, hj) in h.iter_mut().enumerate() {
            let row = &self.hidden_weights[j * x.len()..(j + 1) * x.len()];
            *hj = (dot(row, x) + self.hidden_bias[j]).max(0.0);
        }
        std::array::from_fn(|k| {
            dot(&self.output_weights[k * n_hid..(k + 1) * n_hid], h) + self.output_bias[k]
        })
    }

    /// The class logits of inputs `x`, leaving the hidden layer's outputs in `h`.
    fn forward(&self, x: &[f32], h: &mut [f32]) -> [f32; 6] {
        let n_hid = h.len();
        for (j, hj) in h.iter_mut().enumerate() {
            let row = &self.hidden_weights[j * x.len()..(j + 1) * x.len()];
            let s: f32 = row.iter().zip(x).map(|(w, v)| w * v).sum();
            *hj = (s + self.hidden_bias[j]).max(0.0);
        }
        std::array::from_fn(|k| {
            let row = &self.output_weights[k * n_hid..(k + 1) * n_hid];
            row.iter().zip(&*h).map(|(w, v)| w * v).sum::<f32>() + self.output_bias[k]
        })
    }

    /// The trainable numbers, in [`Gradient`]'s order.
    fn trainable_mut(&mut self) -> [&mut [f32]; 4] {
        [
            &mut self.hidden_weights,
            &mut self.hidden_bias,
            &mut self.output_weights,
            &mut self.output_bias,
        ]
    }

    /// The ensemble of `members` (the same inputs, window and standardisation) as one net:
    /// their hidden units side by side, and logits that are the mean of theirs.
    fn mean_of(members: Vec<ContextNet>) -> ContextNet {
        let k = members.len().max(1) as f32;
        let mut out = ContextNet {
            hidden_weights: Vec::new(),
            hidden_bias: Vec::new(),
            output_weights: Vec::new(),
            output_bias: [0.0; 6],
            ..members[0].clone()
        };
        let mut rows: [Vec<f32>; 6] = Default::default();
        for m in &members {
            let n_hid = m.hidden();
            out.hidden_weights.extend_from_slice(&m.hidden_weights);
            out.hidden_bias.extend_from_slice(&m.hidden_bias);
            for (c, row) in rows.iter_mut().enumerate() {
                row.extend(
                    m.output_weights[c * n_hid..(c + 1) * n_hid]
                        .iter()
                        .map(|w| w / k),
                );
                out.output_bias[c] += m.output_bias[c] / k;
            }
        }
        out.output_weights = rows.concat();
        out
    }

    /// Trains a net on `sequences` (frames whose target is `None` are context only).
    /// Deterministic: the same sequences and options give the same net. Errors when no
    /// frame teaches a class, or when a frame or weight is not finite.
    pub fn train(sequences: &[NetSequence], options: &NetOptions) -> Result<Self, LipsyncError> {
        let bad = |reason: String| LipsyncError::Profile {
            name: "context net training".into(),
            reason,
        };
        let window = options
            .past
            .saturating_add(1)
            .saturating_add(options.future);
        let units = options.hidden.saturating_mul(options.members);
        if window > MAX_WINDOW || options.hidden == 0 || options.members == 0 || units > MAX_HIDDEN
        {
            return Err(bad(format!(
                "a window of {window} frames (at most {MAX_WINDOW}) and {} members of {} hidden units (1 to {MAX_HIDDEN} in all)",
                options.members, options.hidden
            )));
        }
        // (sequence, frame) of every frame that teaches (its weight is its sequence's).
        let mut samples: Vec<(u32, u32)> = Vec::new();
        for (s, seq) in sequences.iter().enumerate() {
            if !(seq.weight.is_finite() && seq.weight >= 0.0) {
                return Err(bad(format!("sequence {s} has weight {}", seq.weight)));
            }
            if seq.targets.len() != seq.frames.len() {
                return Err(bad(format!(
                    "sequence {s} has {} frames and {} targets",
                    seq.frames.len(),
                    seq.targets.len()
                )));
            }
            if let Some(f) = seq
                .frames
                .iter()
                .position(|x| x.iter().any(|v| !v.is_finite()))
            {
                return Err(bad(format!("sequence {s}, frame {f} is not finite")));
            }
            for (f, t) in seq.targets.iter().enumerate() {
                match t {
                    Some(k) if *k < 6 && seq.weight > 0.0 => samples.push((s as u32, f as u32)),
                    Some(k) if *k >= 6 => {
                        return Err(bad(format!("sequence {s}, frame {f}: class {k} (0..5)")));
                    }
                    _ => {}
                }
            }
        }
        if samples.is_empty() {
            return Err(bad("no frame teaches a class".into()));
        }
        let n_in = window * N_CEPS;
        let mut win = vec![[0f32; N_CEPS]; window];
        let gather = |&(s, f): &(u32, u32), out: &mut [[f32; N_CEPS]]| {
            fill_window(&sequences[s as usize].frames, f as usize, options.past, out);
        };
        // Input standardisation from the teaching frames (unweighted).
        let mut mean = vec![0f64; n_in];
        let mut sq = vec![0f64; n_in];
        for smp in &samples {
            gather(smp, &mut win);
            for ((m, q), v) in mean.iter_mut().zip(&mut sq).zip(win.iter().flatten()) {
                *m += f64::from(*v);
                *q += f64::from(*v) * f64::from(*v);
            }
        }
        let n = samples.len() as f64;
        let input_mean: Vec<f32> = mean.iter().map(|m| (m / n) as f32).collect();
        let input_scale: Vec<f32> = mean
            .iter()
            .zip(&sq)
            .map(|(m, q)| {
                let var = (q / n - (m / n).powi(2)).max(0.0);
                (1.0 / (var.sqrt() + 1e-6)) as f32
            })
            .collect();
        let members = (0..options.members as u64)
            .map(|m| {
                let seed = options.seed.wrapping_add(m);
                train_member(
                    sequences,
                    &samples,
                    options,
                    seed,
                    &input_mean,
                    &input_scale,
                )
            })
            .collect();
        let mut net = ContextNet::mean_of(members);
        net.output_bias[5] += options.closed_logit;
        net.validate("context net training")?;
        Ok(net)
    }
}

/// `a · b` over their common length, in eight running sums.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut acc = [0f32; 8];
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// One net of [`ContextNet::train`], from `seed`, on inputs standardised by `input_mean`
/// and `input_scale` (the teaching frames', the same for every member).
fn train_member(
    sequences: &[NetSequence],
    samples: &[(u32, u32)],
    options: &NetOptions,
    seed: u64,
    input_mean: &[f32],
    input_scale: &[f32],
) -> ContextNet {
    let n_in = input_mean.len();
    let window = n_in / N_CEPS;
    let mut win = vec![[0f32; N_CEPS]; window];
    let gather = |&(s, f): &(u32, u32), out: &mut [[f32; N_CEPS]]| {
        fill_window(&sequences[s as usize].frames, f as usize, options.past, out);
    };
    let n_hid = options.hidden;
    let mut rng = SplitMix(seed ^ 0x6E65_745F_7365_6564);
    let he = (2.0 / n_in as f32).sqrt();
    let glorot = (1.0 / n_hid as f32).sqrt();
    let mut net = ContextNet {
        past: options.past,
        future: options.future,
        weight: options.weight,
        input_mean: input_mean.to_vec(),
        input_scale: input_scale.to_vec(),
        hidden_weights: (0..n_in * n_hid).map(|_| rng.gauss() * he).collect(),
        hidden_bias: vec![0.0; n_hid],
        output_weights: (0..6 * n_hid).map(|_| rng.gauss() * glorot).collect(),
        output_bias: [0.0; 6],
    };
    let mut adam = Adam::new(&net);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut lr = options.learning_rate;
    let batch = options.batch.max(1);
    let mut grad = Gradient::zeros(&net);
    let mut x = vec![0f32; n_in];
    let mut h = vec![0f32; n_hid];
    let mut gh = vec![0f32; n_hid];
    for _ in 0..options.epochs {
        // Fisher–Yates with the fixed generator.
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for chunk in order.chunks(batch) {
            grad.clear();
            // Positive: only frames of a positive weight teach.
            let total: f32 = chunk
                .iter()
                .map(|&i| sequences[samples[i].0 as usize].weight)
                .sum();
            for &i in chunk {
                let smp = &samples[i];
                let seq = &sequences[smp.0 as usize];
                let target = seq.targets[smp.1 as usize].unwrap_or(0) as usize;
                gather(smp, &mut win);
                net.standardise(&win, &mut x);
                let lp = log_softmax(net.forward(&x, &mut h));
                let w = seq.weight / total;
                // d(loss)/dz = softmax − one-hot, weighted.
                let gz: [f32; 6] = std::array::from_fn(|k| {
                    w * (lp[k].exp() - if k == target { 1.0 } else { 0.0 })
                });
                gh.iter_mut().for_each(|g| *g = 0.0);
                for k in 0..6 {
                    grad.output_bias[k] += gz[k];
                    let row = &net.output_weights[k * n_hid..(k + 1) * n_hid];
                    let grow = &mut grad.output_weights[k * n_hid..(k + 1) * n_hid];
                    for j in 0..n_hid {
                        grow[j] += gz[k] * h[j];
                        gh[j] += gz[k] * row[j];
                    }
                }
                for j in 0..n_hid {
                    if h[j] <= 0.0 {
                        continue;
                    }
                    grad.hidden_bias[j] += gh[j];
                    let grow = &mut grad.hidden_weights[j * n_in..(j + 1) * n_in];
                    for (g, v) in grow.iter_mut().zip(&x) {
                        *g += gh[j] * v;
                    }
                }
            }
            adam.step(&mut net, &mut grad, lr);
        }
        lr *= 0.6;
    }
    net
}

/// [`ContextNet`] as stored: its matrices quantised.
#[derive(Clone, Serialize, Deserialize)]
struct StoredNet {
    past: usize,
    future: usize,
    weight: f32,
    input_mean: Vec<f32>,
    input_scale: Vec<f32>,
    hidden_weights: StoredMatrix,
    hidden_bias: Vec<f32>,
    output_weights: StoredMatrix,
    #[serde(deserialize_with = "crate::fixed_arrays::array")]
    output_bias: [f32; 6],
}

/// A matrix as 8-bit integers and the scale that makes them weights.
#[derive(Clone, Serialize, Deserialize)]
struct StoredMatrix {
    scale: f32,
    values: Vec<i8>,
}

impl StoredMatrix {
    /// `weights` on the grid of `scale`, which is their largest magnitude over 127,
    /// rounded up to 17 significant bits: then every `scale · value` (|value| ≤ 127, 7
    /// bits) is exact in f32, and quantising the read-back weights gives the same scale
    /// and values — storing a stored net changes nothing.
    fn quantise(weights: &[f32]) -> Self {
        let max = weights
            .iter()
            .filter(|w| w.is_finite())
            .fold(0f32, |m, w| m.max(w.abs()));
        if max == 0.0 {
            return Self {
                scale: 1.0,
                values: vec![0; weights.len()],
            };
        }
        let scale = f32::from_bits(((max / 127.0).to_bits() + 0x7F) & !0x7F);
        let values = weights
            .iter()
            .map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8)
            .collect();
        Self { scale, values }
    }

    fn weights(&self) -> Vec<f32> {
        self.values
            .iter()
            .map(|&v| f32::from(v) * self.scale)
            .collect()
    }
}

impl From<ContextNet> for StoredNet {
    fn from(n: ContextNet) -> Self {
        let digits = |v: Vec<f32>| v.into_iter().map(crate::stored_digits).collect();
        Self {
            past: n.past,
            future: n.future,
            weight: crate::stored_digits(n.weight),
            hidden_weights: StoredMatrix::quantise(&n.hidden_weights),
            output_weights: StoredMatrix::quantise(&n.output_weights),
            input_mean: digits(n.input_mean),
            input_scale: digits(n.input_scale),
            hidden_bias: digits(n.hidden_bias),
            output_bias: n.output_bias.map(crate::stored_digits),
        }
    }
}

impl From<StoredNet> for ContextNet {
    fn from(s: StoredNet) -> Self {
        Self {
            past: s.past,
            future: s.future,
            weight: s.weight,
            hidden_weights: s.hidden_weights.weights(),
            output_weights: s.output_weights.weights(),
            input_mean: s.input_mean,
            input_scale: s.input_scale,
            hidden_bias: s.hidden_bias,
            output_bias: s.output_bias,
        }
    }
}

/// `z − log Σ exp z`.
fn log_softmax(z: [f32; 6]) -> [f32; 6] {
    let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let s: f32 = z.iter().map(|v| (v - m).exp()).sum();
    let l = m + s.ln();
    z.map(|v| v - l)
}

/// The frames `f − past ..` of `frames`, as many as `out` holds, a clip's edge repeating
/// its end frame: the one window rule of training and scoring.
fn fill_window(frames: &[[f32; N_CEPS]], f: usize, past: usize, out: &mut [[f32; N_CEPS]]) {
    let last = frames.len() as isize - 1;
    for (w, o) in out.iter_mut().enumerate() {
        let i = (f as isize + w as isize - past as isize).clamp(0, last);
        *o = frames[i as usize];
    }
}

/// A gradient shaped like the net's trainable numbers.
struct Gradient {
    hidden_weights: Vec<f32>,
    hidden_bias: Vec<f32>,
    output_weights: Vec<f32>,
    output_bias: [f32; 6],
}

impl Gradient {
    fn zeros(net: &ContextNet) -> Self {
        Self {
            hidden_weights: vec![0.0; net.hidden_weights.len()],
            hidden_bias: vec![0.0; net.hidden_bias.len()],
            output_weights: vec![0.0; net.output_weights.len()],
            output_bias: [0.0; 6],
        }
    }

    /// Its parts in [`ContextNet::trainable_mut`]'s order.
    fn parts_mut(&mut self) -> [&mut [f32]; 4] {
        [
            &mut self.hidden_weights,
            &mut self.hidden_bias,
            &mut self.output_weights,
            &mut self.output_bias,
        ]
    }

    fn clear(&mut self) {
        for part in self.parts_mut() {
            part.fill(0.0);
        }
    }
}

/// Adam (β₁ 0.9, β₂ 0.999) with a small L2 pull on the weight matrices.
struct Adam {
    m: Gradient,
    v: Gradient,
    t: i32,
}

impl Adam {
    /// The L2 pull per part (weights, not biases).
    const DECAY: [f32; 4] = [1e-4, 0.0, 1e-4, 0.0];

    fn new(net: &ContextNet) -> Self {
        Self {
            m: Gradient::zeros(net),
            v: Gradient::zeros(net),
            t: 0,
        }
    }

    fn step(&mut self, net: &mut ContextNet, g: &mut Gradient, lr: f32) {
        self.t += 1;
        let (c1, c2) = (1.0 - 0.9f32.powi(self.t), 1.0 - 0.999f32.powi(self.t));
        let parts = net
            .trainable_mut()
            .into_iter()
            .zip(g.parts_mut())
            .zip(self.m.parts_mut())
            .zip(self.v.parts_mut())
            .zip(Self::DECAY);
        for ((((p, g), m), v), decay) in parts {
            for (((p, g), m), v) in p.iter_mut().zip(&*g).zip(m).zip(v) {
                let g = g + decay * *p;
                *m = 0.9 * *m + 0.1 * g;
                *v = 0.999 * *v + 0.001 * g * g;
                *p -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of class k sit around a centre that also moves with the frame before it, so
    /// the class is only readable with context: c1 ≈ 2k, shifted by +6 when the previous
    /// frame's c2 is +1 (so 2k + 6 of a k ≤ 2 looks like 2(k + 3) unshifted).
    fn sequences(seed: u64, n: usize) -> Vec<NetSequence> {
        let mut rng = SplitMix(seed);
        (0..n)
            .map(|_| {
                let mut frames = Vec::new();
                let mut targets = Vec::new();
                let mut shift_next = false;
                for _ in 0..40 {
                    let k = (rng.next() % 6) as u8;
                    let mut x = [0f32; N_CEPS];
                    for v in x.iter_mut() {
                        *v = 0.3 * rng.gauss();
                    }
                    x[0] += 2.0 * f32::from(k) + if shift_next { 6.0 } else { 0.0 };
                    shift_next = rng.unit() < 0.5;
                    x[1] = if shift_next { 1.0 } else { -1.0 };
                    frames.push(x);
                    targets.push(Some(k));
                }
                NetSequence {
                    frames,
                    targets,
                    weight: 1.0,
                }
            })
            .collect()
    }

    fn accuracy(net: &ContextNet, seqs: &[NetSequence]) -> f32 {
        let (mut right, mut total) = (0, 0);
        for s in seqs {
            for f in 0..s.frames.len() {
                let lp = net.log_posteriors_at(&s.frames, f);
                let best = (0..6).max_by(|&a, &b| lp[a].total_cmp(&lp[b])).unwrap_or(0);
                right += usize::from(Some(best as u8) == s.targets[f]);
                total += 1;
            }
        }
        right as f32 / total as f32
    }

    fn small() -> NetOptions {
        NetOptions {
            past: 1,
            future: 0,
            hidden: 16,
            epochs: 10,
            batch: 32,
            learning_rate: 1e-2,
            seed: 3,
            closed_logit: 0.0,
            ..NetOptions::default()
        }
    }

    #[test]
    fn a_net_learns_what_only_the_context_tells() {
        let train = sequences(1, 400);
        let test = sequences(2, 20);
        let with = ContextNet::train(&train, &small()).unwrap();
        let without = ContextNet::train(&train, &NetOptions { past: 0, ..small() }).unwrap();
        let (a, b) = (accuracy(&with, &test), accuracy(&without, &test));
        // Without the frame before, half the frames are ambiguous (k or k + 3): 75 % at best.
        assert!(a > 0.9, "with context {a}");
        assert!(b < 0.8, "without context {b}");
    }

    #[test]
    fn the_same_seed_gives_the_same_net_and_another_a_different_one() {
        let train = sequences(1, 10);
        let a = ContextNet::train(&train, &small()).unwrap();
        let b = ContextNet::train(&train, &small()).unwrap();
        let c = ContextNet::train(&train, &NetOptions { seed: 4, ..small() }).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn an_ensemble_reads_the_mean_of_its_members_logits() {
        let train = sequences(1, 40);
        let one = ContextNet::train(&train, &small()).unwrap();
        let other = ContextNet::train(&train, &NetOptions { seed: 4, ..small() }).unwrap();
        let both = ContextNet::train(
            &train,
            &NetOptions {
                members: 2,
                ..small()
            },
        )
        .unwrap();
        assert_eq!(both.hidden(), 2 * one.hidden());
        // Member m is the net of seed + m, and the ensemble's logits are their mean.
        for s in &sequences(2, 3) {
            for f in 0..s.frames.len() {
                let (a, b, e) = (
                    one.logits_at(&s.frames, f),
                    other.logits_at(&s.frames, f),
                    both.logits_at(&s.frames, f),
                );
                for k in 0..6 {
                    assert!(
                        (e[k] - (a[k] + b[k]) / 2.0).abs() < 1e-4,
                        "{e:?} {a:?} {b:?}"
                    );
                }
            }
        }
        // One member is the net itself.
        let single = ContextNet::train(
            &train,
            &NetOptions {
                members: 1,
                ..small()
            },
        )
        .unwrap();
        assert_eq!(single, one);
        // Members × units beyond the largest net are refused, not truncated.
        let big = NetOptions {
            members: 9,
            ..small()
        };
        let e = ContextNet::train(&train, &big).unwrap_err().to_string();
        assert!(e.contains("9 members of 16 hidden units"), "{e}");
    }

    #[test]
    fn frames_of_weight_zero_teach_nothing() {
        let mut train = sequences(1, 10);
        let other = sequences(5, 10);
        let a = ContextNet::train(&train, &small()).unwrap();
        train.extend(other.into_iter().map(|s| NetSequence { weight: 0.0, ..s }));
        let b = ContextNet::train(&train, &small()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_training_input_is_refused_with_its_place() {
        let mut train = sequences(1, 2);
        train[1].frames[3][2] = f32::NAN;
        let e = ContextNet::train(&train, &small()).unwrap_err().to_string();
        assert!(e.contains("sequence 1, frame 3 is not finite"), "{e}");
        let none = vec![NetSequence {
            frames: vec![[0.0; N_CEPS]; 3],
            targets: vec![None; 3],
            weight: 1.0,
        }];
        let e = ContextNet::train(&none, &small()).unwrap_err().to_string();
        assert!(e.contains("no frame teaches"), "{e}");
    }

    #[test]
    fn a_stored_net_reads_back_as_its_quantised_self_and_stores_the_same_again() {
        let net = ContextNet::train(&sequences(1, 40), &small()).unwrap();
        let q = net.quantised();
        assert_ne!(net, q, "quantising moves weights");
        // On the grid: within half a step of the float weights; the other numbers keep
        // their first five digits.
        let step = net.hidden_weights.iter().fold(0f32, |m, w| m.max(w.abs())) / 127.0;
        for (a, b) in net.hidden_weights.iter().zip(&q.hidden_weights) {
            assert!((a - b).abs() <= 0.5 * step * 1.001, "{a} {b}");
        }
        for (a, b) in net.hidden_bias.iter().zip(&q.hidden_bias) {
            assert!((a - b).abs() <= 5e-5 * a.abs(), "{a} {b}");
            assert_eq!(*b, crate::stored_digits(*b));
        }
        let json = serde_json::to_string(&net).unwrap();
        let back: ContextNet = serde_json::from_str(&json).unwrap();
        assert_eq!(back, q);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert!(
            json.contains(r#""hidden_weights":{"scale":"#),
            "{json:.200}"
        );
        // Eight bits cost the toy nothing.
        let test = sequences(2, 20);
        assert!((accuracy(&net, &test) - accuracy(&q, &test)).abs() < 0.02);
        // An out-of-range integer is refused by the reader, naming the value.
        let bad = json.replacen(r#""values":["#, r#""values":[300,"#, 1);
        let e = serde_json::from_str::<ContextNet>(&bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("300"), "{e}");
    }

    #[test]
    fn a_broken_net_is_refused_and_scores_stay_finite() {
        let net = ContextNet::train(&sequences(1, 4), &small()).unwrap();
        net.validate("x").unwrap();
        let mut short = net.clone();
        short.hidden_weights.pop();
        let e = short.validate("net.json").unwrap_err().to_string();
        assert!(
            e.contains("net.json") && e.contains("hidden_weights"),
            "{e}"
        );
        // Even unvalidated, it reads as no evidence rather than panicking.
        let lp = short.log_posteriors(&[[0.0; N_CEPS]; 2]);
        assert!(lp.iter().all(|v| (v + 6f32.ln()).abs() < 1e-6));
        let mut nan = net.clone();
        nan.output_bias[2] = f32::NAN;
        assert!(nan.validate("x").is_err());
        // A frame outside the clip, or a window of the wrong length, is no evidence.
        let lp = net.log_posteriors_at(&[[0.0; N_CEPS]; 3], 3);
        assert!(lp.iter().all(|v| (v + 6f32.ln()).abs() < 1e-6));
        let lp = net.log_posteriors(&[[0.0; N_CEPS]; 5]);
        assert!(lp.iter().all(|v| (v + 6f32.ln()).abs() < 1e-6));
        let lp = net.log_posteriors(&[[1e30; N_CEPS]; 2]);
        assert!(lp.iter().all(|v| !v.is_nan()), "{lp:?}");
    }
}
