//! One vowel from a syllable's peak to its end: the frames of a vowel after its loudest
//! frame vote, and a frame that another vowel leads only narrowly is led by the winner
//! instead — offline over the whole nucleus ([`NucleusVote`]), streamed causally, once the
//! voice has fallen ([`StreamNucleusVote`]).
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

/// The vote's thresholds (see the module comment). No allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NucleusVote {
    /// A frame led by another vowel takes the winner's lead when its weight for the winner
    /// is at least this share of its lead's weight (0: every frame; above 1: none).
    pub ratio: f32,
    /// The winner's summed weight must be at least this many times the runner-up's (a
    /// vote closer than that is two vowels, not one misread).
    pub margin: f32,
    /// Only a frame at least this many dB under the nucleus's peak may change (0 or NaN:
    /// every frame from the peak on). The stream's vote cannot see a nucleus's end, so it
    /// waits for the voice to fall before it holds a frame to the peak's vowel.
    pub below_peak_db: f32,
}

impl NucleusVote {
    /// Whether the vote can change anything.
    pub fn is_on(&self) -> bool {
        self.ratio <= 1.0 && self.margin.is_finite()
    }

    /// The vowel whose summed weights `sum` lead, and whether the vote is decided: that
    /// sum finite and at least [`NucleusVote::margin`] times the runner-up's.
    fn count(&self, sum: &[f32; 5]) -> (usize, bool) {
        let winner = (0..5).fold(0, |b, k| if sum[k] > sum[b] { k } else { b });
        let runner_up = (0..5)
            .filter(|&k| k != winner)
            .map(|k| sum[k])
            .fold(0.0, f32::max);
        let decided = sum[winner].is_finite() && sum[winner] >= self.margin * runner_up;
        (winner, decided)
    }

    /// [`NucleusVote::below_peak_db`], NaN read as 0.
    fn below_peak_db(&self) -> f32 {
        if self.below_peak_db.is_nan() {
            0.0
        } else {
            self.below_peak_db
        }
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
        // A frame may change unless it is louder than this (a NaN level on either side
        // does not stop it, as before levels were compared).
        let below = level_db[peak] - self.below_peak_db();
        let tail = &mut post[peak..];
        let levels = &level_db[peak..];
        let mut sum = [0f32; 5];
        for p in tail.iter() {
            for (s, w) in sum.iter_mut().zip(p) {
                *s += w;
            }
        }
        let (winner, decided) = self.count(&sum);
        if !decided {
            return;
        }
        for (p, &level) in tail.iter_mut().zip(levels) {
            let lead = dominant(p);
            if lead != winner
                && lead != CLOSED
                && level.partial_cmp(&below) != Some(std::cmp::Ordering::Greater)
                && p[winner] >= self.ratio * p[lead]
            {
                lead_with(p, winner);
            }
        }
    }
}

/// The vote in a stream, frame by frame and causal (no look-ahead, so no latency): a
/// nucleus's frames after its loudest frame *so far* vote with the frames from that peak
/// to them, and a frame led only narrowly by another vowel, at least
/// [`NucleusVote::below_peak_db`] under the peak, takes the winner's lead. Early in a
/// vowel's fall few frames have voted, and a narrow frame is then held to the peak frame's
/// vowel. Offline, a close vote over the whole nucleus leaves it alone ("ai" is two
/// vowels); a stream cannot wait for that, so the first frame after the peak that another
/// vowel leads and keeps leading (it leads clearly, the vote is close, or the voice has not
/// fallen yet) stops the vote until a louder frame or the next nucleus: from there on it
/// is two vowels, and holding the first would only add flicker.
///
/// The peak has no time limit (a nucleus ends at N or silence), and the weights voted with
/// are the ones given: the streaming analyser's are faded in near the voicing threshold, so
/// its faintest frames count less. No allocation.
#[derive(Clone, Debug)]
pub struct StreamNucleusVote {
    vote: NucleusVote,
    /// The loudest level of the current nucleus (−∞ before its first frame).
    peak_db: f32,
    /// A I U E O weights summed from that peak frame to the last frame.
    sum: [f32; 5],
    /// A frame of another vowel kept its lead since the peak: the nucleus holds two vowels
    /// (until a louder frame).
    stopped: bool,
}

impl StreamNucleusVote {
    /// A stream's vote with `vote`'s thresholds.
    pub fn new(vote: NucleusVote) -> Self {
        Self {
            vote,
            peak_db: f32::NEG_INFINITY,
            sum: [0.0; 5],
            stopped: false,
        }
    }

    /// A silent frame: the nucleus ends.
    pub fn silence(&mut self) {
        self.peak_db = f32::NEG_INFINITY;
        self.sum = [0.0; 5];
        self.stopped = false;
    }

    /// The next voiced frame, its `weights` (A I U E O N) at `level_db`: a frame read as N
    /// ends the nucleus and keeps N; a frame louder than any before in the nucleus is its
    /// new peak and keeps its lead; any other frame votes and may take the winner's lead
    /// (the weights are reordered, not changed).
    pub fn apply(&mut self, level_db: f32, weights: &mut [f32; 6]) {
        if !self.vote.is_on() {
            return;
        }
        let lead = dominant(weights);
        if lead == CLOSED {
            self.silence();
            return;
        }
        if level_db > self.peak_db {
            self.peak_db = level_db;
            self.sum.copy_from_slice(&weights[..5]);
            self.stopped = false;
            return;
        }
        if self.stopped {
            // Until a louder frame, which restarts the sum: nothing to count.
            return;
        }
        for (s, w) in self.sum.iter_mut().zip(weights.iter()) {
            *s += w;
        }
        let (winner, decided) = self.vote.count(&self.sum);
        if lead == winner {
            return;
        }
        if decided
            && level_db <= self.peak_db - self.vote.below_peak_db()
            && weights[winner] >= self.vote.ratio * weights[lead]
        {
            lead_with(weights, winner);
        } else {
            self.stopped = true;
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
        below_peak_db: 0.0,
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
        // A nucleus whose first level is NaN still votes (its peak is that frame).
        let mut post = vec![
            frame(A, 0.8, O, 0.1),
            frame(A, 0.8, O, 0.1),
            frame(O, 0.5, A, 0.4),
        ];
        VOTE.apply(&mut post, &[true; 3], &[f32::NAN, -10.0, -12.0]);
        assert_eq!(leads(&post), [A, A, A]);
    }

    /// Streams `post` at `level` through a fresh stream vote.
    fn stream(vote: NucleusVote, post: &mut [[f32; 6]], level: &[f32]) {
        let mut s = StreamNucleusVote::new(vote);
        for (p, &l) in post.iter_mut().zip(level) {
            if p.iter().all(|&w| w == 0.0) {
                s.silence();
            } else {
                s.apply(l, p);
            }
        }
    }

    const STREAM: NucleusVote = NucleusVote {
        ratio: 0.3,
        margin: 1.5,
        below_peak_db: 6.0,
    };

    #[test]
    fn a_stream_holds_a_falling_vowel_to_its_peak_and_only_once_it_has_fallen() {
        // The peak at −10 dB, then an O flicker 2 dB under it (kept: not fallen far enough,
        // and from then on the nucleus is two vowels) ...
        let mut post = vec![
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(O, 0.5, A, 0.4),
            frame(O, 0.5, A, 0.4),
        ];
        stream(STREAM, &mut post, &[-10.0, -11.0, -12.0, -18.0]);
        assert_eq!(leads(&post), [A, A, O, O]);
        // ... while the same flickers once the voice has fallen 6 dB take the peak's vowel.
        let mut post = vec![
            frame(A, 0.7, O, 0.2),
            frame(A, 0.7, O, 0.2),
            frame(O, 0.5, A, 0.4),
            frame(A, 0.6, O, 0.3),
            frame(O, 0.5, A, 0.4),
        ];
        let before = sorted(&post);
        stream(STREAM, &mut post, &[-10.0, -14.0, -17.0, -19.0, -22.0]);
        assert_eq!(leads(&post), [A, A, A, A, A]);
        assert_eq!(sorted(&post), before, "only the lead moves");
        // A louder frame is a new peak and keeps its own vowel.
        let mut post = vec![frame(A, 0.7, O, 0.2), frame(O, 0.5, A, 0.4)];
        stream(STREAM, &mut post, &[-20.0, -10.0]);
        assert_eq!(leads(&post), [A, O]);
    }

    #[test]
    fn a_stream_stops_at_a_second_vowel_until_a_louder_frame() {
        // A clear I after the peak keeps its lead and stops the vote: the narrow I after it,
        // which the A-led sum would otherwise take, stays I.
        let mut post = vec![
            frame(A, 0.8, I, 0.1),
            frame(A, 0.8, I, 0.1),
            frame(A, 0.8, I, 0.1),
            frame(I, 0.9, A, 0.05),
            frame(I, 0.5, A, 0.4),
        ];
        stream(STREAM, &mut post, &[-10.0, -12.0, -14.0, -20.0, -22.0]);
        assert_eq!(leads(&post), [A, A, A, I, I]);
        // A louder frame is a new peak: the vote runs again from it.
        let mut post = vec![
            frame(A, 0.8, I, 0.1),
            frame(A, 0.8, I, 0.1),
            frame(I, 0.9, A, 0.05),
            frame(A, 0.8, O, 0.1),
            frame(A, 0.8, O, 0.1),
            frame(O, 0.5, A, 0.4),
        ];
        stream(STREAM, &mut post, &[-10.0, -12.0, -20.0, -5.0, -8.0, -15.0]);
        assert_eq!(leads(&post), [A, A, I, A, A, A]);
    }

    #[test]
    fn a_stream_restarts_after_n_or_silence() {
        // N keeps N and ends the nucleus: the narrow O after it is a new peak, not held to A.
        let mut post = vec![
            frame(A, 0.8, O, 0.1),
            frame(A, 0.8, O, 0.1),
            frame(N, 0.5, A, 0.4),
            frame(O, 0.5, A, 0.4),
        ];
        stream(STREAM, &mut post, &[-10.0, -12.0, -20.0, -25.0]);
        assert_eq!(leads(&post), [A, A, N, O]);
        // So does silence (all-zero weights here).
        let mut post = vec![
            frame(A, 0.8, O, 0.1),
            frame(A, 0.8, O, 0.1),
            [0.0; 6],
            frame(O, 0.5, A, 0.4),
        ];
        stream(STREAM, &mut post, &[-10.0, -12.0, -60.0, -30.0]);
        assert_eq!(leads(&post)[3], O);
        // Off: nothing moves.
        let mut post = vec![frame(A, 0.7, O, 0.2), frame(O, 0.5, A, 0.4)];
        let before = post.clone();
        let off = NucleusVote {
            ratio: 2.0,
            ..STREAM
        };
        stream(off, &mut post, &[-10.0, -30.0]);
        assert_eq!(post, before);
    }

    #[test]
    fn a_stream_takes_odd_levels_and_weights_without_panic_or_nan() {
        let mut s = StreamNucleusVote::new(STREAM);
        let mut frames = [
            (f32::NAN, frame(A, 0.7, O, 0.2)),
            (f32::NEG_INFINITY, frame(O, 0.5, A, 0.4)),
            (-30.0, [f32::NAN; 6]),
            (f32::INFINITY, frame(A, 0.7, O, 0.2)),
            (-40.0, frame(O, 0.5, A, 0.4)),
            (-45.0, [f32::INFINITY, 0.0, 0.0, 0.0, 1.0, 0.0]),
            (-50.0, frame(O, 0.5, A, 0.4)),
        ];
        for (level, w) in &mut frames {
            s.apply(*level, w);
        }
        for (k, (_, w)) in frames.iter().enumerate() {
            if k != 2 {
                assert!(w.iter().all(|v| !v.is_nan()), "frame {k}: {w:?}");
            }
        }
        // A NaN threshold reads as 0 dB: every frame after the peak may change.
        let nan = NucleusVote {
            below_peak_db: f32::NAN,
            ..STREAM
        };
        let mut post = vec![frame(A, 0.8, O, 0.1), frame(O, 0.5, A, 0.4)];
        stream(nan, &mut post, &[-10.0, -11.0]);
        assert_eq!(leads(&post), [A, A]);
    }

    #[test]
    fn offline_a_frame_nearer_the_peak_than_below_peak_db_keeps_its_lead() {
        let mut post = vec![
            frame(A, 0.8, O, 0.1),
            frame(O, 0.5, A, 0.4),
            frame(A, 0.8, O, 0.1),
            frame(O, 0.5, A, 0.4),
            frame(A, 0.8, O, 0.1),
        ];
        let vote = NucleusVote {
            below_peak_db: 6.0,
            ..VOTE
        };
        vote.apply(&mut post, &[true; 5], &[-10.0, -12.0, -14.0, -18.0, -20.0]);
        assert_eq!(leads(&post), [A, O, A, A, A]);
    }
}
