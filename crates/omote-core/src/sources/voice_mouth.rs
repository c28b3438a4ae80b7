//! A live voice on the mouth layer: each lip-sync frame's A I U E O weights go into the
//! face's mouth layer (masked to the vowels) over whatever mouth the layers below give
//! (tracking, acting), and a [`MouthPolicy`] says how much of it shows.

use crate::mix::layer::Layer;
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};
use crate::sanitize::clamp01;

/// One frame of a live voice's lip sync, as the core takes it (`omote-lipsync`'s
/// `VowelFrame` converts to this outside the core).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VoiceFrame {
    /// Vowel weights A I U E O, each 0..1.
    pub vowels: [f32; 5],
    /// Whether the voice is sounding in this frame (not silence).
    pub voiced: bool,
}

impl VoiceFrame {
    /// A silent frame (closed mouth, not voiced).
    pub const SILENT: Self = Self {
        vowels: [0.0; 5],
        voiced: false,
    };

    /// A frame from lip sync weights `A I U E O` (a sixth, the closed mouth N, is the
    /// absence of the vowels and is not read): each clamped to 0..1, a weight that is
    /// not finite counts as 0 — the one place a live voice's numbers become a frame.
    ///
    /// ```
    /// use omote_core::VoiceFrame;
    /// let f = VoiceFrame::from_weights(&[0.5, f32::NAN, 2.0, -1.0, f32::INFINITY, 0.9], true);
    /// assert_eq!(f.vowels, [0.5, 0.0, 1.0, 0.0, 0.0]);
    /// ```
    pub fn from_weights(weights: &[f32], voiced: bool) -> Self {
        Self {
            vowels: std::array::from_fn(|j| match weights.get(j) {
                Some(w) if w.is_finite() => w.clamp(0.0, 1.0),
                _ => 0.0,
            }),
            voiced,
        }
    }
}

/// Who drives the vowels when a face has both a tracked mouth and a live voice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MouthPolicy {
    /// The voice while it is voiced, the layers below (the tracked mouth) in its
    /// silences; the switch eases over [`VoiceMouth::FADE_S`].
    VoiceFirst,
    /// Always the voice.
    Voice,
    /// Never the voice (the tracked or acted mouth only).
    Tracking,
    /// A fixed mix: this share (0..1) of the voice.
    Blend(f32),
}

/// Writes live voice frames into a mouth layer by a [`MouthPolicy`]. Allocation-free.
///
/// ```
/// use omote_core::{MouthPolicy, Rig, VoiceFrame, mix::{BlendMode, Layer}, speech::VoiceMouth};
/// let rig = Rig::standard();
/// let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
/// let mut voice = VoiceMouth::new(&rig, MouthPolicy::Voice);
/// voice.apply(&VoiceFrame { vowels: [0.8, 0.0, 0.0, 0.0, 0.0], voiced: true }, &mut mouth);
/// assert_eq!(mouth.get(rig.channel("aa").unwrap()), 0.8);
/// assert_eq!(mouth.weight(), 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct VoiceMouth {
    vowels: [Option<ChannelId>; 5],
    policy: MouthPolicy,
    voiced: Option<bool>,
}

impl VoiceMouth {
    /// Seconds the mouth layer takes to fade in or out when voicing changes
    /// ([`MouthPolicy::VoiceFirst`]).
    pub const FADE_S: f32 = 0.1;

    /// The vowel channels of `rig` (missing ones are skipped).
    pub fn new(rig: &Rig, policy: MouthPolicy) -> Self {
        Self {
            vowels: rig.presets(ExpressionPreset::VOWELS),
            policy,
            voiced: None,
        }
    }

    /// The policy in use.
    pub fn policy(&self) -> MouthPolicy {
        self.policy
    }

    /// Whether the last frame applied was voiced.
    pub fn is_voiced(&self) -> bool {
        self.voiced == Some(true)
    }

    /// Writes one frame's vowels into `mouth` and sets or fades its weight by the policy.
    pub fn apply(&mut self, frame: &VoiceFrame, mouth: &mut Layer) {
        for (c, w) in self.vowels.iter().zip(frame.vowels) {
            if let Some(c) = c {
                mouth.set(*c, clamp01(w));
            }
        }
        match self.policy {
            MouthPolicy::VoiceFirst => {
                if self.voiced != Some(frame.voiced) {
                    mouth.fade_to(if frame.voiced { 1.0 } else { 0.0 }, Self::FADE_S);
                }
            }
            MouthPolicy::Voice => mouth.set_weight(1.0),
            MouthPolicy::Tracking => mouth.set_weight(0.0),
            MouthPolicy::Blend(share) => mouth.set_weight(clamp01(share)),
        }
        self.voiced = Some(frame.voiced);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mix::layer::BlendMode;

    #[test]
    fn voice_first_fades_in_with_the_voice_and_out_in_silence() {
        let rig = Rig::standard();
        let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
        mouth.set_weight(0.0);
        let mut v = VoiceMouth::new(&rig, MouthPolicy::VoiceFirst);
        let on = VoiceFrame {
            vowels: [0.0, 0.0, 0.0, 0.0, 0.6],
            voiced: true,
        };
        v.apply(&on, &mut mouth);
        mouth.advance(0.05);
        assert!((mouth.weight() - 0.5).abs() < 1e-5, "{}", mouth.weight());
        mouth.advance(0.05);
        assert_eq!(mouth.weight(), 1.0);
        v.apply(&VoiceFrame::SILENT, &mut mouth);
        mouth.advance(0.1);
        assert_eq!(mouth.weight(), 0.0);
        let blend = VoiceFrame {
            vowels: [f32::NAN, 2.0, 0.0, 0.0, 0.0],
            voiced: true,
        };
        let mut b = VoiceMouth::new(&rig, MouthPolicy::Blend(0.3));
        b.apply(&blend, &mut mouth);
        assert_eq!(mouth.weight(), 0.3);
        assert_eq!(mouth.get(rig.channel("aa").unwrap()), 0.0);
        assert_eq!(mouth.get(rig.channel("ih").unwrap()), 1.0);
    }
}
