//! Expressions that move to a new weight over time: what a host asks for when an
//! emotion changes ("happy, over half a second"), as a scene's keys do with `fade`.
//! Each channel has at most one fade; a new one starts from where the weight is.

use omote_core::ChannelId;
use omote_core::mix::Layer;
use omote_core::scene::KeyCurve;

/// One channel's fade under way.
#[derive(Clone, Copy, Debug)]
struct Fade {
    channel: ChannelId,
    from: f32,
    to: f32,
    elapsed_s: f32,
    length_s: f32,
}

/// The fades of one character's acting layer: a slot per channel, made once, so
/// starting and advancing them allocates nothing.
#[derive(Clone, Debug)]
pub(crate) struct ExpressionFades {
    fades: Vec<Option<Fade>>,
    active: usize,
}

impl ExpressionFades {
    /// Slots for `channels` channels.
    pub(crate) fn new(channels: usize) -> Self {
        Self {
            fades: vec![None; channels],
            active: 0,
        }
    }

    /// Sets `channel` of `acting` to `weight` at once, ending a fade under way.
    pub(crate) fn set(&mut self, acting: &mut Layer, channel: ChannelId, weight: f32) {
        if self.fades[channel.index()].take().is_some() {
            self.active -= 1;
        }
        acting.set(channel, weight);
    }

    /// Moves `channel` of `acting` from its weight now to `to` over `length_s` seconds
    /// along a smoothstep (a scene key's default curve), replacing a fade under way; 0 s
    /// is [`ExpressionFades::set`].
    pub(crate) fn fade(&mut self, acting: &mut Layer, channel: ChannelId, to: f32, length_s: f32) {
        if length_s <= 0.0 {
            return self.set(acting, channel, to);
        }
        let slot = &mut self.fades[channel.index()];
        if slot.is_none() {
            self.active += 1;
        }
        *slot = Some(Fade {
            channel,
            from: acting.get(channel),
            to,
            elapsed_s: 0.0,
            length_s,
        });
    }

    /// Advances every fade by `dt` and writes its weight into `acting`; a fade that has
    /// arrived writes its target and ends.
    pub(crate) fn advance(&mut self, dt: f32, acting: &mut Layer) {
        if self.active == 0 {
            return;
        }
        for slot in self.fades.iter_mut() {
            let Some(f) = slot else { continue };
            f.elapsed_s += dt;
            let x = f.elapsed_s / f.length_s;
            let w = if x >= 1.0 {
                f.to
            } else {
                f.from + (f.to - f.from) * KeyCurve::Smooth.eval(x)
            };
            acting.set(f.channel, w);
            if x >= 1.0 {
                *slot = None;
                self.active -= 1;
            }
        }
    }
}
