//! The streaming analyser's mouth-class smoothing, frame by frame: the [`ClassFilter`]
//! over each voiced run and, when frames are held back one frame, its look-ahead and the
//! one-frame blip filter; last, the [`StreamNucleusVote`] and the [`DecayHold`]. One place
//! for it, so the streaming analyser and the tools that take it apart
//! (`examples/stream_gap.rs`) run the same code.

use crate::analyser::{dominant, lead_with};
use crate::decay_hold::DecayHold;
use crate::nucleus_vote::StreamNucleusVote;
use crate::{AnalyserConfig, ClassFilter, N_CEPS, SpectralChange, VowelFrame};

/// Turns each frame's class log-scores and cepstrum (or its silence) into finished
/// [`VowelFrame`]s.
/// With [`AnalyserConfig::stream_hold`] a frame comes out one frame late, when its
/// successor is known; without, at once.
///
/// ```
/// use omote_lipsync::{AnalyserConfig, ClassSmoother};
/// let mut smoother = ClassSmoother::new(&AnalyserConfig::default());
/// let mut out = Vec::new();
/// let a = [0.0, -9.0, -9.0, -9.0, -9.0, -9.0];
/// let i = [-9.0, 0.0, -9.0, -9.0, -9.0, -9.0];
/// let cepstrum = [0.0; 12]; // a steady spectrum
/// for scores in [a, a, i, a, a] {
///     smoother.push_voiced(&scores, &cepstrum, -20.0, 1.0, 1.0, &mut out);
/// }
/// smoother.flush(&mut out);
/// // The lone I frame is a blip: A leads all five.
/// assert_eq!(out.len(), 5);
/// assert!(out.iter().all(|f| f.weights[0] > f.weights[1]));
/// ```
#[derive(Clone, Debug)]
pub struct ClassSmoother {
    filter: ClassFilter,
    change: SpectralChange,
    hold: bool,
    /// Class probabilities of the last voiced frame given the frames so far (`None`
    /// after silence: a new voiced run starts from its own frame).
    forward: Option<[f32; 6]>,
    /// The frame held back for the look-ahead and the blip filter.
    pending: Option<Analysed>,
    /// The class that led the last emitted frame before the vote and the decay hold (so
    /// they never feed back into the blip filter), `None` after silence.
    leading: Option<usize>,
    /// One vowel from a nucleus's peak on ([`AnalyserConfig::stream_nucleus_vote`]).
    vote: StreamNucleusVote,
    /// A fading voice keeps its vowel ([`AnalyserConfig::decay_hold_db`]).
    decay: DecayHold,
}

/// A frame analysed but not yet emitted: its weights are made when it is emitted, from
/// its filtered class probabilities and (when held) its successor's evidence.
#[derive(Clone, Copy, Debug)]
struct Analysed {
    /// Silence flag and volume; the weights are filled in on emission.
    frame: VowelFrame,
    /// Class probabilities given the frames up to this one.
    filtered: [f32; 6],
    /// This frame's own evidence ([`ClassFilter::evidence`]) …
    evidence: [f32; 6],
    /// … and its stay ([`ClassFilter::stay`] of its spectral change from the frame
    /// before; a run's first frame counts as steady).
    stay: f32,
    /// Fade-in factor of the weights (level near the voicing threshold).
    gain: f32,
    /// The frame's level (dBFS), for the decay hold.
    level_db: f32,
}

impl ClassSmoother {
    /// The smoothing of `config` (`stream_stay`, `stream_stay_at_change`,
    /// `stream_change_width`, `stream_temperature`, `stream_change_softening`,
    /// `stream_hold`, `stream_nucleus_vote`, `decay_hold_db`).
    pub fn new(config: &AnalyserConfig) -> Self {
        Self {
            filter: ClassFilter::from_config(config),
            change: SpectralChange::new(),
            hold: config.stream_hold,
            forward: None,
            pending: None,
            leading: None,
            vote: StreamNucleusVote::new(config.stream_nucleus_vote),
            decay: DecayHold::new(config.decay_hold_db),
        }
    }

    /// Whether a frame is held back (pushed but not yet out).
    pub fn is_holding(&self) -> bool {
        self.pending.is_some()
    }

    /// A voiced frame: its class log-scores, its cepstrum (the one they were scored
    /// from: only its distance from the frame before is used), its level (dBFS), the
    /// fade-in factor of its weights and its volume. Appends the frame that is finished
    /// now, if any, to `out`.
    pub fn push_voiced(
        &mut self,
        log_scores: &[f32; 6],
        cepstrum: &[f32; N_CEPS],
        level_db: f32,
        gain: f32,
        volume: f32,
        out: &mut Vec<VowelFrame>,
    ) {
        let change = self.change.update(cepstrum).unwrap_or(0.0);
        let stay = self.filter.stay(change);
        let evidence = self.filter.evidence(log_scores, change);
        let filtered = self.filter.step(self.forward.as_ref(), &evidence, stay);
        self.forward = Some(filtered);
        self.push(
            Analysed {
                frame: VowelFrame {
                    weights: [0.0; 6],
                    volume,
                    silent: false,
                },
                filtered,
                evidence,
                stay,
                gain,
                level_db,
            },
            out,
        );
    }

    /// A silent frame of `volume`. Appends the frame that is finished now, if any.
    pub fn push_silent(&mut self, volume: f32, out: &mut Vec<VowelFrame>) {
        self.forward = None;
        self.change.silence();
        self.push(
            Analysed {
                frame: VowelFrame {
                    volume,
                    ..VowelFrame::SILENT
                },
                filtered: [0.0; 6],
                evidence: [0.0; 6],
                stay: 0.0,
                gain: 0.0,
                level_db: f32::NEG_INFINITY,
            },
            out,
        );
    }

    /// Emits the held frame, if any (the end of a stream).
    pub fn flush(&mut self, out: &mut Vec<VowelFrame>) {
        self.emit(None, out);
    }

    fn push(&mut self, frame: Analysed, out: &mut Vec<VowelFrame>) {
        if self.hold {
            self.emit(Some(frame), out);
        } else {
            let f = self.weigh(&frame, None);
            out.push(self.finish(f, frame.level_db));
        }
    }

    /// Emits the held frame now that `next` (the frame after it) is known, and holds
    /// `next`. The held frame's class probabilities take in `next`'s evidence (a
    /// one-frame HMM smoother). A held voiced frame whose class differs from the one
    /// before it and is not confirmed by the next voiced frame (another class leads it,
    /// or speech ends there) is a one-frame blip: the class that led before it leads it
    /// too (its weights are reordered, not changed). `next = None` flushes.
    fn emit(&mut self, next: Option<Analysed>, out: &mut Vec<VowelFrame>) {
        if let Some(held) = self.pending.take() {
            let next_voiced = next.filter(|n| !n.frame.silent);
            let mut f = self.weigh(&held, next_voiced.as_ref());
            if f.silent {
                self.leading = None;
            } else {
                let d = dominant(&f.weights);
                let after = next_voiced.map(|n| dominant(&n.filtered));
                if let Some(before) = self.leading
                    && before != d
                    && after != Some(d)
                {
                    lead_with(&mut f.weights, before);
                }
                self.leading = Some(dominant(&f.weights));
            }
            out.push(self.finish(f, held.level_db));
        }
        self.pending = next;
    }

    /// The last steps on an emitted frame, as offline, after the class filter and the
    /// blip filter have chosen its lead: the nucleus vote, then the decay hold.
    fn finish(&mut self, mut f: VowelFrame, level_db: f32) -> VowelFrame {
        if f.silent {
            self.vote.silence();
            self.decay.silence();
        } else {
            self.vote.apply(level_db, &mut f.weights);
            self.decay.apply(level_db, &mut f.weights);
        }
        f
    }

    /// The frame's weights: its class probabilities — given the frames up to it, and
    /// `next`'s evidence when given — times its fade-in.
    fn weigh(&self, a: &Analysed, next: Option<&Analysed>) -> VowelFrame {
        if a.frame.silent {
            return a.frame;
        }
        let post = match next {
            Some(n) => self.filter.look_ahead(&a.filtered, &n.evidence, n.stay),
            None => a.filtered,
        };
        VowelFrame {
            weights: post.map(|v| v * a.gain),
            ..a.frame
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [f32; 6] = [0.0, -9.0, -9.0, -9.0, -9.0, -9.0];
    const I: [f32; 6] = [-9.0, 0.0, -9.0, -9.0, -9.0, -9.0];
    const STEADY: [f32; N_CEPS] = [0.0; N_CEPS];

    #[test]
    fn held_frames_come_out_one_late_and_unheld_at_once() {
        let mut out = Vec::new();
        let mut held = ClassSmoother::new(&AnalyserConfig::default());
        held.push_voiced(&A, &STEADY, -20.0, 1.0, 0.5, &mut out);
        assert!(out.is_empty() && held.is_holding());
        held.push_silent(0.1, &mut out);
        assert_eq!(out.len(), 1);
        assert!(!out[0].silent && out[0].volume == 0.5);
        held.flush(&mut out);
        assert!(out[1].silent && out[1].volume == 0.1 && !held.is_holding());

        let mut out = Vec::new();
        let mut now = ClassSmoother::new(&AnalyserConfig::lowest_latency());
        for scores in [A, A, I, A] {
            now.push_voiced(&scores, &STEADY, -20.0, 0.5, 1.0, &mut out);
            assert!(!now.is_holding());
        }
        assert_eq!(out.len(), 4);
        // Weights are the class probabilities times the fade-in.
        assert!((out[0].weights.iter().sum::<f32>() - 0.5).abs() < 1e-5);
        // Without the hold there is no blip filter: a clear I frame leads at once.
        assert!(out[2].weights[1] > out[2].weights[0]);
    }

    #[test]
    fn a_fading_vowel_keeps_its_lead_held_back_or_not() {
        const O: [f32; 6] = [-9.0, -9.0, -9.0, -9.0, 0.0, -9.0];
        for config in [AnalyserConfig::default(), AnalyserConfig::lowest_latency()] {
            // Five loud A frames, then five O frames at `o_level` dBFS: the leading classes.
            let leads = |o_level: f32| -> Vec<usize> {
                let mut s = ClassSmoother::new(&config);
                let mut out = Vec::new();
                for (scores, level) in [(A, -20.0); 5].into_iter().chain([(O, o_level); 5]) {
                    s.push_voiced(&scores, &STEADY, level, 1.0, 1.0, &mut out);
                }
                s.flush(&mut out);
                out.iter().map(|f| dominant(&f.weights)).collect()
            };
            // The voice fades 25 dB while the spectrum turns to O: A still leads.
            assert_eq!(leads(-45.0), [0; 10], "{config:?}");
            // As loud, O takes over.
            assert_eq!(leads(-20.0)[9], 4, "{config:?}");
        }
    }

    #[test]
    fn silence_starts_a_new_voiced_run() {
        let mut out = Vec::new();
        let mut s = ClassSmoother::new(&AnalyserConfig::default());
        for _ in 0..20 {
            s.push_voiced(&A, &STEADY, -20.0, 1.0, 1.0, &mut out);
        }
        s.push_silent(0.0, &mut out);
        // After a pause nothing of the A run is carried: a doubtful I frame leads.
        let doubtful_i = [-0.5, 0.0, -9.0, -9.0, -9.0, -9.0];
        s.push_voiced(&doubtful_i, &STEADY, -20.0, 1.0, 1.0, &mut out);
        s.push_voiced(&doubtful_i, &STEADY, -20.0, 1.0, 1.0, &mut out);
        s.flush(&mut out);
        let last = out.last().unwrap();
        assert!(last.weights[1] > last.weights[0], "{last:?}");
    }
}
