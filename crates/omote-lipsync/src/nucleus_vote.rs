//! Offline, one vowel from a syllable's peak to its end: the frames of a vowel after its
//! loudest frame vote, and a frame that another vowel leads only narrowly is led by the
//! winner instead.
//!
//! Why: on recorded human syllables many wrong frames are scattered inside a vowel that most
//! of its frames read right (a vowel read A, O, A, A, O over its length), at a scale the
//! offline HMM and the short-run filter leave alone because the spectrum does move there —
//! a real voice's vowel drifts as it is held and as it fades. An animator draws one mouth
//! from the syllable's peak on. Only the part after the peak votes and is changed: before it
//! lie the consonant and the glide into the vowel, which often read as another vowel (a
//! nasal murmur reads as U) and would outvote a short vowel. Frames read as N (closed) end
//! a nucleus and are never changed, so consonants keep their mouth. A frame that leads
//! clearly (the winner's weight under [`NucleusVote::ratio`] of its lead's) keeps its
//! vowel, and a nucleus whose vote is close (the winner under [`NucleusVote::margin`] times
//! the runner-up: two vowels in a row, "ai") is left as it is.

use crate::Viseme;
use crate::analyser::{dominant, lead_with};

const CLOSED: usize = Viseme::N.index();

/// The vote's two thresholds (see the module comment). No allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NucleusVote {
    /// A frame led by another vowel takes the winner's lead when its weight for the winner
    /// is at least this share of its lead's weight (0: every frame; above 1: none).
    pub ratio: f32,
    /// The winner's summed weight must be at least this many times the runner-up's (a
    /// vote closer than that is two vowels, not one misread).
    pub margin: f32,
}

impl NucleusVote {
    /// Whether the vote can change anything.
    pub fn is_on(&self) -> bool {
        self.ratio <= 1.0 && self.margin.is_finite()
    }

    /// Applies the vote to class weights `post` (A I U E O N per frame), `voiced` and
    /// `level_db` per frame: each maximal run of voiced frames that a vowel leads is one
    /// nucleus.
    pub fn apply(&self, post: &mut [[f32; 6]], voiced: &[bool], level_db: &[f32]) {
        if !self.is_on() {
            return;
        }
        let n = post.len().min(voiced.len()).min(level_db.len());
        let mut i = 0;
        while i < n {
            if !voiced[i] || dominant(&post[i]) == CLOSED {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && voiced[i] && dominant(&post[i]) != CLOSED {
                i += 1;
            }
            self.vote(&mut post[start..i], &level_db[start..i]);
        }
    }

    /// One nucleus: its frames from the loudest (the first of equals) to its end vote.
    fn vote(&self, post: &mut [[f32; 6]], level_db: &[f32]) {
        let peak =
            (0..level_db.len()).fold(0, |p, j| if level_db[j] > level_db[p] { j } else { p });
        let tail = &mut post[peak..];
        let mut sum = [0f32; 5];
        for p in tail.iter() {
            for (s, w) in sum.iter_mut().zip(p) {
                *s += w;
            }
        }
        let winner = (0..5).fold(0, |b, k| if sum[k] > sum[b] { k } else { b });
        let runner_up = (0..5)
            .filter(|&k| k != winner)
            .map(|k| sum[k])
            .fold(0.0, f32::max);
        if !sum[winner].is_finite() || sum[winner] < self.margin * runner_up {
            return;
        }
        for p in tail {
            let lead = dominant(p);
            if lead != winner && lead != CLOSED && p[winner] >= self.ratio * p[lead] {
                lead_with(p, winner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights led by `k` with `lead`, `second` on `s`, the rest spread.
    fn frame(k: usize, lead: f32, s: usize, second: f32) -> [f32; 6] {
        let mut w = [0.02; 6];
        w[k] = lead;
        w[s] = second;
        w
    }

    const VOTE: NucleusVote = NucleusVote {
        ratio: 0.3,
        margin: 2.0,
    };
    const A: usize = 0;
    const I: usize = 1;
    const U: usize = 2;
    const O: usize = 4;
    const N: usize = 5;

    fn leads(post: &[[f32; 6]]) -> Vec<usize> {
        post.iter().map(dominant).collect()
    }

    /// Each frame's weights in order: equal before and after when only the lead moved.
    fn sorted(post: &[[f32; 6]]) -> Vec<[f32; 6]> {
        post.iter()
            .map(|w| {
                let mut w = *w;
                w.sort_by(f32::total_cmp);
                w
            })
            .collect()
    }

    #[test]
    fn a_flicker_after_the_peak_takes_the_nucleus_vowel() {
        // U-read consonant glide, then A at its peak, A with O flickers as it fades.
        let mut post = vec![
            frame(U, 0.6, A, 0.3),
            frame(U, 0.5, A, 0.4),
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(O, 0.5, A, 0.4),
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(A, 0.6, O, 0.3),
        ];
        let level = [-30.0, -25.0, -12.0, -14.0, -18.0, -20.0, -24.0, -28.0];
        let before = sorted(&post);
        VOTE.apply(&mut post, &[true; 8], &level);
        // Before the peak nothing changes; after it, one vowel.
        assert_eq!(leads(&post), [U, U, A, A, A, A, A, A]);
        assert_eq!(sorted(&post), before, "only the lead moves");
    }

    #[test]
    fn a_clear_lead_a_close_vote_and_closed_frames_are_kept() {
        let voiced = [true; 6];
        let level = [-10.0, -11.0, -12.0, -13.0, -14.0, -15.0];
        // A clear I (A's weight under 0.3 of I's) keeps its lead.
        let mut post = vec![frame(A, 0.8, I, 0.1); 4];
        post.push(frame(I, 0.9, A, 0.05));
        post.push(frame(A, 0.8, I, 0.1));
        VOTE.apply(&mut post, &voiced, &level);
        assert_eq!(leads(&post), [A, A, A, A, I, A]);
        // Two vowels in a row ("ai"): the vote is close, nothing moves.
        let mut post = vec![frame(A, 0.6, I, 0.3); 3];
        post.extend(vec![frame(I, 0.6, A, 0.3); 3]);
        VOTE.apply(&mut post, &voiced, &level);
        assert_eq!(leads(&post), [A, A, A, I, I, I]);
        // N ends a nucleus and is never opened; the frames after it are their own nucleus.
        let mut post = vec![
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(N, 0.5, A, 0.4),
            frame(O, 0.5, A, 0.4),
            frame(O, 0.6, A, 0.3),
            frame(O, 0.6, A, 0.3),
        ];
        VOTE.apply(&mut post, &voiced, &level);
        assert_eq!(leads(&post), [A, A, N, O, O, O]);
        // Off: nothing moves.
        let mut post = vec![frame(A, 0.7, O, 0.2), frame(O, 0.5, A, 0.4)];
        post.push(frame(A, 0.7, O, 0.2));
        post.push(frame(A, 0.7, O, 0.2));
        let before = post.clone();
        let off = NucleusVote { ratio: 2.0, ..VOTE };
        off.apply(&mut post, &[true; 4], &[-10.0, -12.0, -14.0, -16.0]);
        assert_eq!(post, before);
        VOTE.apply(&mut post, &[true; 4], &[-10.0, -12.0, -14.0, -16.0]);
        assert_eq!(leads(&post), [A, A, A, A]);
    }

    #[test]
    fn silence_splits_and_short_or_odd_input_is_safe() {
        let mut post = vec![
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(O, 0.5, A, 0.4),
            [0.0; 6],
            frame(O, 0.7, A, 0.2),
        ];
        let voiced = [true, true, true, false, true];
        VOTE.apply(&mut post, &voiced, &[-10.0, -11.0, -12.0, -40.0, -10.0]);
        // The silent frame's zeros read as A; the O after the pause is its own nucleus.
        assert_eq!(leads(&post), [A, A, A, A, O]);
        // Lengths that disagree and non-finite levels do not panic.
        VOTE.apply(&mut post, &[true], &[f32::NAN, 0.0]);
        VOTE.apply(&mut [], &[], &[]);
        let mut post = vec![frame(A, 0.7, O, 0.2), frame(O, 0.5, A, 0.4)];
        VOTE.apply(&mut post, &[true, true], &[f32::NAN, f32::NEG_INFINITY]);
        assert!(post.iter().flatten().all(|w| w.is_finite()));
    }
}
