//! Layers: per-channel values with a mask, a weight and fades, combined by the mixer.

use crate::rig::ChannelId;
use crate::sanitize::{clamp01, finite_or_zero};

/// How a layer combines with what lies below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendMode {
    /// `out = lerp(out, value, weight · mask)`: replaces what is below.
    Override,
    /// `out += value · weight · mask`: picture-making adjustments on top of the acting.
    Additive,
}

/// Handle of a layer in a [`Face`](crate::Face) or [`Mixer`](crate::mix::Mixer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayerId(pub(crate) u16);

/// One layer: a value and a mask per channel, a weight, and an optional fade.
#[derive(Clone, Debug)]
pub struct Layer {
    name: String,
    mode: BlendMode,
    weight: f32,
    fade_target: f32,
    fade_rate: f32,
    values: Box<[f32]>,
    mask: Box<[f32]>,
}

impl Layer {
    /// A layer over `channels` channels with every mask entry 1, weight 1, values 0.
    pub fn new(name: impl Into<String>, mode: BlendMode, channels: usize) -> Self {
        Self {
            name: name.into(),
            mode,
            weight: 1.0,
            fade_target: 1.0,
            fade_rate: 0.0,
            values: vec![0.0; channels].into_boxed_slice(),
            mask: vec![1.0; channels].into_boxed_slice(),
        }
    }

    /// Builder-style: mask 1 on `channels`, 0 elsewhere.
    pub fn masked_to(mut self, channels: &[ChannelId]) -> Self {
        self.mask.fill(0.0);
        for c in channels {
            self.mask[c.index()] = 1.0;
        }
        self
    }

    /// The name given at creation.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Override or additive.
    pub fn mode(&self) -> BlendMode {
        self.mode
    }

    /// The current weight (after fades).
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Set the weight now, cancelling a fade. Clamped to [0, 1]; NaN counts as 0.
    pub fn set_weight(&mut self, weight: f32) {
        self.weight = clamp01(weight);
        self.fade_target = self.weight;
        self.fade_rate = 0.0;
    }

    /// Move the weight linearly to `target` over `seconds` (0 = at once).
    pub fn fade_to(&mut self, target: f32, seconds: f32) {
        let target = clamp01(target);
        if seconds > 0.0 && seconds.is_finite() {
            self.fade_target = target;
            self.fade_rate = (target - self.weight).abs() / seconds;
        } else {
            self.set_weight(target);
        }
    }

    /// Whether a fade is under way.
    pub fn is_fading(&self) -> bool {
        self.fade_rate > 0.0
    }

    /// Advance the fade by `dt` seconds.
    pub fn advance(&mut self, dt: f32) {
        if self.fade_rate > 0.0 {
            let step = self.fade_rate * dt;
            let diff = self.fade_target - self.weight;
            if diff.abs() <= step {
                self.weight = self.fade_target;
                self.fade_rate = 0.0;
            } else {
                self.weight += step.copysign(diff);
            }
        }
    }

    /// Set one channel's value. Non-finite values count as 0.
    pub fn set(&mut self, channel: ChannelId, value: f32) {
        self.values[channel.index()] = finite_or_zero(value);
    }

    /// One channel's value.
    pub fn get(&self, channel: ChannelId) -> f32 {
        self.values[channel.index()]
    }

    /// All values, to fill in bulk (e.g. from a clip). Non-finite entries are treated as 0
    /// by the mixer.
    pub fn values_mut(&mut self) -> &mut [f32] {
        &mut self.values
    }

    /// All values.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Set one channel's mask (0 = untouched by this layer, 1 = full).
    pub fn set_mask(&mut self, channel: ChannelId, mask: f32) {
        self.mask[channel.index()] = clamp01(mask);
    }

    /// One channel's mask.
    pub fn mask(&self, channel: ChannelId) -> f32 {
        self.mask[channel.index()]
    }

    /// Set every value to 0.
    pub fn clear(&mut self) {
        self.values.fill(0.0);
    }

    /// Combine this layer into `out` (one entry per channel).
    #[inline]
    pub fn blend_into(&self, out: &mut [f32]) {
        let w = self.weight;
        if w <= 0.0 {
            return;
        }
        // Zipped iterators (no indexing) so the loops vectorise.
        let lanes = out.iter_mut().zip(self.values.iter()).zip(self.mask.iter());
        match self.mode {
            BlendMode::Override => {
                for ((o, &v), &m) in lanes {
                    *o += (finite_or_zero(v) - *o) * (w * m);
                }
            }
            BlendMode::Additive => {
                for ((o, &v), &m) in lanes {
                    *o += finite_or_zero(v) * (w * m);
                }
            }
        }
    }
}

/// An ordered stack of layers, bottom first.
#[derive(Clone, Debug, Default)]
pub struct Mixer {
    layers: Vec<Layer>,
}

impl Mixer {
    /// An empty mixer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Put a layer on top; returns its handle.
    pub fn push(&mut self, layer: Layer) -> LayerId {
        self.layers.push(layer);
        LayerId((self.layers.len() - 1) as u16)
    }

    /// A layer by handle.
    pub fn layer(&self, id: LayerId) -> &Layer {
        &self.layers[id.0 as usize]
    }

    /// A layer by handle, to write into.
    pub fn layer_mut(&mut self, id: LayerId) -> &mut Layer {
        &mut self.layers[id.0 as usize]
    }

    /// A layer's handle by name.
    pub fn find(&self, name: &str) -> Option<LayerId> {
        self.layers
            .iter()
            .position(|l| l.name == name)
            .map(|i| LayerId(i as u16))
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there are no layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Advance every fade by `dt`.
    pub fn advance(&mut self, dt: f32) {
        for l in &mut self.layers {
            l.advance(dt);
        }
    }

    /// Combine all layers, bottom first, into `out` (which is zeroed first).
    pub fn mix_into(&self, out: &mut [f32]) {
        out.fill(0.0);
        for l in &self.layers {
            l.blend_into(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_respects_mask_and_weight_additive_adds() {
        let mut mixer = Mixer::new();
        let mut base = Layer::new("base", BlendMode::Override, 3);
        base.values_mut().copy_from_slice(&[0.2, 0.4, 0.6]);
        mixer.push(base);
        let mut mouth = Layer::new("mouth", BlendMode::Override, 3).masked_to(&[ChannelId(1)]);
        mouth.set(ChannelId(1), 1.0);
        mouth.set(ChannelId(2), 1.0); // masked out
        mouth.set_weight(0.5);
        mixer.push(mouth);
        let mut add = Layer::new("add", BlendMode::Additive, 3);
        add.set(ChannelId(0), 0.1);
        mixer.push(add);
        let mut out = [9.0; 3];
        mixer.mix_into(&mut out);
        assert!((out[0] - 0.3).abs() < 1e-6);
        assert!((out[1] - 0.7).abs() < 1e-6);
        assert!((out[2] - 0.6).abs() < 1e-6);
    }

    #[test]
    fn fades_are_linear_in_time_and_land_exactly() {
        let mut l = Layer::new("x", BlendMode::Override, 1);
        l.set_weight(0.0);
        l.fade_to(1.0, 0.5);
        l.advance(0.25);
        assert!((l.weight() - 0.5).abs() < 1e-6);
        for _ in 0..10 {
            l.advance(0.1);
        }
        assert_eq!(l.weight(), 1.0);
        assert!(!l.is_fading());
        l.fade_to(0.0, 0.0);
        assert_eq!(l.weight(), 0.0);
    }

    #[test]
    fn nan_values_and_weights_are_neutralised() {
        let mut l = Layer::new("x", BlendMode::Additive, 2);
        l.values_mut()[0] = f32::NAN;
        l.set(ChannelId(1), f32::INFINITY);
        l.set_weight(f32::NAN);
        assert_eq!(l.weight(), 0.0);
        l.set_weight(1.0);
        let mut out = [0.5, 0.5];
        l.blend_into(&mut out);
        assert_eq!(out, [0.5, 0.5]);
    }
}
