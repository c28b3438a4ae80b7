//! The analyser's output types: one [`VowelFrame`] per 10 ms and the [`VowelTrack`] of a clip.
//!
//! These are what the runtime consumes (blend per-vowel mouth shapes by `weights`). They
//! live here until the core grows its own vowel-track type.

use serde::{Deserialize, Serialize};

/// The six mouth classes, in the order used by every weight array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Viseme {
    /// Open vowel (あ, VRM `aa`).
    A,
    /// Spread vowel (い, VRM `ih`).
    I,
    /// Rounded close vowel (う, VRM `ou`).
    U,
    /// Mid front vowel (え, VRM `ee`).
    E,
    /// Rounded mid vowel (お, VRM `oh`).
    O,
    /// Closed or consonant mouth (ん and consonants).
    N,
}

impl Viseme {
    /// All six, in weight-array order.
    pub const ALL: [Viseme; 6] = [
        Viseme::A,
        Viseme::I,
        Viseme::U,
        Viseme::E,
        Viseme::O,
        Viseme::N,
    ];

    /// Index into a weight array.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The class letter (`'A'`..`'N'`).
    pub const fn letter(self) -> char {
        ['A', 'I', 'U', 'E', 'O', 'N'][self as usize]
    }

    /// Parses a class letter.
    pub fn from_letter(c: char) -> Option<Viseme> {
        Viseme::ALL.into_iter().find(|v| v.letter() == c)
    }
}

/// One analysis frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VowelFrame {
    /// Weights for A I U E O N, each in 0..=1, summing to at most 1 (0 when silent).
    pub weights: [f32; 6],
    /// Loudness 0..=1: frame RMS relative to the clip's (or stream's) speech level.
    pub volume: f32,
    /// True when the frame is silence (leading/trailing silence or a pause).
    pub silent: bool,
}

impl VowelFrame {
    /// The silent frame: all weights 0.
    pub const SILENT: VowelFrame = VowelFrame {
        weights: [0.0; 6],
        volume: 0.0,
        silent: true,
    };

    /// The class the scorer uses: `None` when silent, else the argmax viseme.
    pub fn class(&self) -> Option<Viseme> {
        if self.silent {
            return None;
        }
        let mut best = 0;
        for k in 1..6 {
            if self.weights[k] > self.weights[best] {
                best = k;
            }
        }
        Some(Viseme::ALL[best])
    }
}

/// The voiced part of a clip, in seconds from its start: from the first voiced frame's
/// start to the last voiced frame's end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoicedSpan {
    /// Start of speech (s).
    pub start_s: f64,
    /// End of speech (s).
    pub end_s: f64,
}

/// The analysis of a clip: frames every `1 / fps` s, frame *i* centred at `(i + 0.5) / fps`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VowelTrack {
    /// Frames per second (100 for the analyser's native output).
    pub fps: f32,
    /// The frames.
    pub frames: Vec<VowelFrame>,
    /// Where speech starts and ends; `None` for an all-silent clip.
    pub voiced_span: Option<VoicedSpan>,
    /// Clip duration in seconds.
    pub duration_s: f64,
}

impl VowelTrack {
    /// Centre time of frame `i` in seconds.
    pub fn time_of(&self, i: usize) -> f64 {
        (i as f64 + 0.5) / f64::from(self.fps)
    }

    /// Recomputes `voiced_span` from the frames' `silent` flags.
    pub fn update_voiced_span(&mut self) {
        let first = self.frames.iter().position(|f| !f.silent);
        let last = self.frames.iter().rposition(|f| !f.silent);
        self.voiced_span = match (first, last) {
            (Some(a), Some(b)) => Some(VoicedSpan {
                start_s: a as f64 / f64::from(self.fps),
                end_s: ((b + 1) as f64 / f64::from(self.fps)).min(self.duration_s.max(0.0)),
            }),
            _ => None,
        };
    }

    /// The track resampled to `fps` by linear interpolation of weights and volume (a frame
    /// is silent when the nearest source frame is). Frame *k* of the result is at
    /// `(k + 0.5) / fps`.
    pub fn resampled(&self, fps: f32) -> VowelTrack {
        if !(fps.is_finite() && fps > 0.0)
            || (fps - self.fps).abs() < 1e-6
            || self.frames.is_empty()
        {
            return self.clone();
        }
        let n = ((self.duration_s * f64::from(fps)).floor() as usize).max(1);
        let src_fps = f64::from(self.fps);
        let last = self.frames.len() - 1;
        let frames = (0..n)
            .map(|k| {
                let t = (k as f64 + 0.5) / f64::from(fps);
                let x = (t * src_fps - 0.5).clamp(0.0, last as f64);
                let i0 = x.floor() as usize;
                let i1 = (i0 + 1).min(last);
                let w = (x - i0 as f64) as f32;
                let (a, b) = (&self.frames[i0], &self.frames[i1]);
                let mut out = VowelFrame {
                    weights: [0.0; 6],
                    volume: a.volume * (1.0 - w) + b.volume * w,
                    silent: if w < 0.5 { a.silent } else { b.silent },
                };
                for j in 0..6 {
                    out.weights[j] = a.weights[j] * (1.0 - w) + b.weights[j] * w;
                }
                out
            })
            .collect();
        VowelTrack {
            fps,
            frames,
            voiced_span: self.voiced_span,
            duration_s: self.duration_s,
        }
    }
}
