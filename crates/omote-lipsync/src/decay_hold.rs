//! A fading voice keeps its mouth shape: inside a voiced run, a frame far quieter than the
//! loudest of the run's last 200 ms may close the mouth but not switch to another vowel:
//! the vowel of the run's last loud vowel frame leads it instead.
//!
//! Why: as a vowel fades (the end of a syllable, of a phrase, a held note dying away) the
//! speaker's mouth does not move, but the spectrum loses its formants into the floor and
//! the classes read from it wander. On recorded human syllables the frames more than
//! 10 dB under the syllable's peak are read right 35–54 % of the time against 65 % for the
//! loud ones. Consonants are quiet too, so a quiet frame read as N (closed) keeps N: the
//! rule never opens a closed mouth. Both the offline and the streaming analyser run it as
//! their last step (causal: only the frames before are used). Being last, it can leave a
//! vowel's lead shorter than the flicker filters allow where a voice rises again slowly
//! (its first quiet frames held, the louder ones not).

use crate::Viseme;
use crate::analyser::{dominant, lead_with};

/// Frames of a voiced run's recent past whose loudest level a frame is compared with.
pub const DECAY_WINDOW: usize = 20;

const CLOSED: usize = Viseme::N.index();

/// The decay hold's state over one stream or one clip's voiced runs, frame by frame.
/// No allocation.
#[derive(Clone, Debug)]
pub struct DecayHold {
    below_db: f32,
    /// The last [`DECAY_WINDOW`] levels of the current voiced run (a ring; −∞ where the
    /// run is younger than that).
    levels: [f32; DECAY_WINDOW],
    next: usize,
    /// The vowel of the run's last loud vowel frame, if any.
    vowel: Option<usize>,
}

impl DecayHold {
    /// A hold for frames more than `below_db` under the loudest of the run's last
    /// [`DECAY_WINDOW`] frames (infinite or NaN: never).
    pub fn new(below_db: f32) -> Self {
        Self {
            below_db: if below_db.is_nan() {
                f32::INFINITY
            } else {
                below_db
            },
            levels: [f32::NEG_INFINITY; DECAY_WINDOW],
            next: 0,
            vowel: None,
        }
    }

    /// The next frame in order: `weights` of a voiced one at `level_db`
    /// ([`DecayHold::apply`]), `None` for a silent one ([`DecayHold::silence`]).
    pub fn frame(&mut self, level_db: f32, weights: Option<&mut [f32; 6]>) {
        match weights {
            Some(w) => self.apply(level_db, w),
            None => self.silence(),
        }
    }

    /// Silence: the next voiced frame starts a new run.
    pub fn silence(&mut self) {
        self.levels = [f32::NEG_INFINITY; DECAY_WINDOW];
        self.vowel = None;
    }

    /// A voiced frame of `level_db` with its class `weights`, in order: a quiet frame that
    /// a vowel other than the held one leads is led by the held vowel instead (the
    /// weights are reordered, not changed, as the flicker filters do).
    pub fn apply(&mut self, level_db: f32, weights: &mut [f32; 6]) {
        let level = if level_db.is_finite() {
            level_db
        } else {
            f32::NEG_INFINITY
        };
        self.levels[self.next] = level;
        self.next = (self.next + 1) % DECAY_WINDOW;
        let loudest = self.levels.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let lead = dominant(weights);
        if level >= loudest - self.below_db {
            if lead != CLOSED {
                self.vowel = Some(lead);
            }
        } else if let Some(v) = self.vowel
            && lead != CLOSED
            && lead != v
        {
            lead_with(weights, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leading(k: usize) -> [f32; 6] {
        let mut w = [0.1; 6];
        w[k] = 0.5;
        w
    }

    #[test]
    fn a_fading_vowel_keeps_its_lead_but_may_close() {
        let mut h = DecayHold::new(10.0);
        let mut out = Vec::new();
        // Loud A, then the voice fades while the spectrum wanders to O, then N.
        for (level, k) in [(-20.0, 0), (-21.0, 0), (-33.0, 4), (-40.0, 4), (-42.0, 5)] {
            let mut w = leading(k);
            h.apply(level, &mut w);
            out.push(dominant(&w));
        }
        assert_eq!(out, [0, 0, 0, 0, 5]);
        // The blend keeps its values: only the leader changed places.
        let mut w = [0.1, 0.0, 0.0, 0.0, 0.6, 0.3];
        h.apply(-45.0, &mut w);
        assert_eq!(w, [0.6, 0.0, 0.0, 0.0, 0.1, 0.3]);
    }

    #[test]
    fn loud_frames_and_new_runs_are_not_held() {
        let mut h = DecayHold::new(10.0);
        let mut w = leading(0);
        h.apply(-20.0, &mut w);
        let mut w = leading(1);
        h.apply(-25.0, &mut w);
        assert_eq!(dominant(&w), 1, "5 dB under the peak is not a decay");
        h.silence();
        let mut w = leading(2);
        h.apply(-45.0, &mut w);
        assert_eq!(dominant(&w), 2, "a new run has no held vowel");
        // The window forgets: twenty quiet frames later the peak is theirs.
        let mut h = DecayHold::new(10.0);
        let mut w = leading(0);
        h.apply(-10.0, &mut w);
        for _ in 0..DECAY_WINDOW {
            let mut w = leading(3);
            h.apply(-30.0, &mut w);
        }
        let mut w = leading(3);
        h.apply(-30.0, &mut w);
        assert_eq!(dominant(&w), 3);
    }

    #[test]
    fn off_and_bad_levels_change_nothing() {
        let mut off = DecayHold::new(f32::INFINITY);
        let mut w = leading(0);
        off.apply(-10.0, &mut w);
        let mut w = leading(1);
        off.apply(-90.0, &mut w);
        assert_eq!(dominant(&w), 1);
        let mut h = DecayHold::new(f32::NAN);
        let mut w = leading(0);
        h.apply(f32::NAN, &mut w);
        let mut w = leading(1);
        h.apply(-90.0, &mut w);
        assert!(w.iter().all(|v| v.is_finite()));
    }
}
