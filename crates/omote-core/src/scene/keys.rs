//! Expression keys on a scene timeline and the track that plays them into a layer.
//!
//! A key says "from time `t`, move channel `c` to weight `w` over `fade` seconds along
//! `curve`". It starts from whatever the channel shows at `t`, so a key arriving in the
//! middle of another's fade carries on from there without a jump. Channels no key has
//! touched are left alone in the layer.

use crate::mix::layer::Layer;
use crate::rig::ChannelId;

/// How a key (or a camera segment) moves from its start value to its end value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyCurve {
    /// Constant speed.
    Linear,
    /// Ease in and out (smoothstep): no velocity jump at either end.
    #[default]
    Smooth,
    /// Jump at the end of the fade (hold the old value until then).
    Step,
}

impl KeyCurve {
    /// The curve's value at `x` in [0, 1] (clamped).
    pub fn eval(self, x: f32) -> f32 {
        let x = x.clamp(0.0, 1.0);
        match self {
            Self::Linear => x,
            Self::Smooth => x * x * (3.0 - 2.0 * x),
            Self::Step => {
                if x >= 1.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// The curve named in a scene file (`"linear"`, `"smooth"`, `"step"`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linear" => Some(Self::Linear),
            "smooth" => Some(Self::Smooth),
            "step" => Some(Self::Step),
            _ => None,
        }
    }
}

/// One expression key (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpressionKey {
    /// Scene time in seconds.
    pub t: f32,
    /// The channel it moves.
    pub channel: ChannelId,
    /// The weight it moves to.
    pub weight: f32,
    /// Seconds the move takes (0: at once).
    pub fade: f32,
    /// The shape of the move.
    pub curve: KeyCurve,
    /// Whether the change is around the eyes: the scene announces such keys to the blink
    /// generator ahead of time, so no blink starts just before them.
    pub eye_area: bool,
}

/// A channel's move in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Segment {
    start: f32,
    from: f32,
    to: f32,
    fade: f32,
    curve: KeyCurve,
}

impl Segment {
    fn eval(&self, t: f32) -> f32 {
        if self.fade <= 0.0 || t >= self.start + self.fade {
            return self.to;
        }
        let x = (t - self.start) / self.fade;
        self.from + (self.to - self.from) * self.curve.eval(x)
    }
}

/// Plays [`ExpressionKey`]s into a layer as scene time moves on. Forward steps are
/// incremental (each key is looked at once); a jump ([`jump_to`](Self::jump_to))
/// re-evaluates from the start and cross-fades from what was shown. Allocates nothing
/// after construction.
#[derive(Clone, Debug)]
pub struct KeyTrack {
    keys: Box<[ExpressionKey]>,
    /// The channels some key touches, and their move in progress.
    channels: Box<[(ChannelId, Segment)]>,
    /// Index into `channels` per rig channel (`u16::MAX`: untouched).
    slot: Box<[u16]>,
    /// The next key to apply.
    cursor: usize,
    /// Scene time of the last evaluation.
    time: f32,
    /// Values shown when the last jump happened, and how far the cross-fade has come.
    jump_from: Box<[f32]>,
    jump: Option<(f32, f32)>,
}

/// How long the cross-fade after a jump takes (s): the hand-over time.
pub const JUMP_BLEND_S: f32 = 0.2;

impl KeyTrack {
    /// A track over `keys` (sorted here by time, stable) for a rig of `channels` channels.
    /// Keys must have finite times and weights (the scene checks them).
    pub fn new(mut keys: Vec<ExpressionKey>, channels: usize) -> Self {
        keys.sort_by(|a, b| a.t.total_cmp(&b.t));
        let mut slot = vec![u16::MAX; channels];
        let mut touched = Vec::new();
        for k in &keys {
            let i = k.channel.index();
            if i < channels && slot[i] == u16::MAX {
                slot[i] = touched.len() as u16;
                touched.push((k.channel, Segment::default()));
            }
        }
        let n = touched.len();
        Self {
            keys: keys.into_boxed_slice(),
            channels: touched.into_boxed_slice(),
            slot: slot.into_boxed_slice(),
            cursor: 0,
            time: f32::NEG_INFINITY,
            jump_from: vec![0.0; n].into_boxed_slice(),
            jump: None,
        }
    }

    /// Whether any key moves `channel` (the track then writes it every frame).
    pub fn keys_channel(&self, channel: ChannelId) -> bool {
        self.slot
            .get(channel.index())
            .is_some_and(|&s| s != u16::MAX)
    }

    /// The keys, sorted by time.
    pub fn keys(&self) -> &[ExpressionKey] {
        &self.keys
    }

    /// Index of the next key not yet applied.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Moves forward to scene time `t` and applies the keys with time ≤ `t`; calls
    /// `started` for each key applied (its index). A `t` before the last one is ignored
    /// (use [`jump_to`](Self::jump_to)).
    pub fn advance(&mut self, t: f32, mut started: impl FnMut(usize, &ExpressionKey)) {
        if t < self.time {
            return;
        }
        while let Some(k) = self.keys.get(self.cursor) {
            if k.t > t {
                break;
            }
            self.apply(self.cursor);
            started(self.cursor, &self.keys[self.cursor]);
            self.cursor += 1;
        }
        self.time = t;
    }

    fn apply(&mut self, index: usize) {
        let k = self.keys[index];
        let Some(&s) = self.slot.get(k.channel.index()) else {
            return;
        };
        let seg = &mut self.channels[usize::from(s)].1;
        let from = seg.eval(k.t);
        *seg = Segment {
            start: k.t,
            from,
            to: k.weight,
            fade: k.fade.max(0.0),
            curve: k.curve,
        };
    }

    /// Jumps to scene time `t` (forward or back): the keys up to `t` are re-applied
    /// from scratch, and what the layer shows cross-fades from its values now to the new
    /// ones over [`JUMP_BLEND_S`] of `dt`s given to [`write`](Self::write).
    pub fn jump_to(&mut self, t: f32) {
        for i in 0..self.channels.len() {
            let now = self.shown(i, self.channels[i].1.eval(self.time));
            self.jump_from[i] = now;
        }
        for (_, seg) in self.channels.iter_mut() {
            *seg = Segment::default();
        }
        self.cursor = 0;
        self.time = f32::NEG_INFINITY;
        self.advance(t, |_, _| {});
        self.jump = Some((0.0, JUMP_BLEND_S));
    }

    fn shown(&self, i: usize, value: f32) -> f32 {
        match self.jump {
            Some((done, over)) if done < over => {
                let a = KeyCurve::Smooth.eval(done / over);
                self.jump_from[i] + (value - self.jump_from[i]) * a
            }
            _ => value,
        }
    }

    /// Writes the touched channels' values at the current time into `layer`, advancing
    /// a jump's cross-fade by `dt`.
    pub fn write(&mut self, dt: f32, layer: &mut Layer) {
        if let Some((done, over)) = self.jump.as_mut() {
            *done += dt.max(0.0);
            if *done >= *over {
                self.jump = None;
            }
        }
        for i in 0..self.channels.len() {
            let (c, seg) = self.channels[i];
            layer.set(c, self.shown(i, seg.eval(self.time)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mix::layer::BlendMode;
    use crate::rig::Rig;

    fn key(rig: &Rig, t: f32, name: &str, weight: f32, fade: f32) -> ExpressionKey {
        ExpressionKey {
            t,
            channel: rig.channel(name).unwrap(),
            weight,
            fade,
            curve: KeyCurve::Linear,
            eye_area: false,
        }
    }

    #[test]
    fn keys_fade_from_what_is_shown_and_leave_other_channels_alone() {
        let rig = Rig::standard();
        let happy = rig.channel("happy").unwrap();
        let sad = rig.channel("sad").unwrap();
        let mut track = KeyTrack::new(
            vec![
                key(&rig, 1.0, "happy", 1.0, 1.0),
                key(&rig, 1.5, "happy", 0.0, 0.5),
            ],
            rig.len(),
        );
        let mut layer = Layer::new("l", BlendMode::Override, rig.len());
        layer.set(sad, 0.7);
        let mut at = |t: f32| {
            track.advance(t, |_, _| {});
            track.write(0.0, &mut layer);
            (layer.get(happy), layer.get(sad))
        };
        assert_eq!(at(0.5), (0.0, 0.7));
        assert!((at(1.25).0 - 0.25).abs() < 1e-6);
        // The second key starts from 0.5 (mid-fade), not from 1.0.
        assert!((at(1.5).0 - 0.5).abs() < 1e-6);
        assert!((at(1.75).0 - 0.25).abs() < 1e-6);
        assert_eq!(at(3.0), (0.0, 0.7));
    }

    #[test]
    fn a_jump_cross_fades_instead_of_snapping() {
        let rig = Rig::standard();
        let happy = rig.channel("happy").unwrap();
        let mut track = KeyTrack::new(vec![key(&rig, 5.0, "happy", 1.0, 0.0)], rig.len());
        let mut layer = Layer::new("l", BlendMode::Override, rig.len());
        track.advance(1.0, |_, _| {});
        track.write(0.0, &mut layer);
        assert_eq!(layer.get(happy), 0.0);
        track.jump_to(6.0);
        let dt = 1.0 / 60.0;
        let mut prev = 0.0;
        for _ in 0..30 {
            track.write(dt, &mut layer);
            let v = layer.get(happy);
            assert!(v >= prev && v - prev < 0.15, "{prev} → {v}");
            prev = v;
        }
        assert_eq!(prev, 1.0);
    }

    #[test]
    fn curves_meet_their_ends() {
        for c in [KeyCurve::Linear, KeyCurve::Smooth, KeyCurve::Step] {
            assert_eq!(c.eval(0.0), 0.0, "{c:?}");
            assert_eq!(c.eval(1.0), 1.0, "{c:?}");
            assert_eq!(c.eval(2.0), 1.0, "{c:?}");
        }
        assert_eq!(KeyCurve::Step.eval(0.99), 0.0);
        assert!((KeyCurve::Smooth.eval(0.5) - 0.5).abs() < 1e-6);
    }
}
