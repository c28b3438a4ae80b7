//! The analyser's output types: one [`VowelFrame`] per 10 ms and the [`VowelTrack`] of a clip.
//!
//! These are what the runtime consumes (blend per-vowel mouth shapes by `weights`). They
//! live here until the core grows its own vowel-track type.

use serde::{Deserialize, Serialize};

/// The six mouth classes, in the order used by every weight array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
        let mut frames = Vec::new();
        let mut at = FrameInterpolator::new(self.fps, self.frames.len(), self.duration_s, fps);
        for (j, f) in self.frames.iter().enumerate() {
            at.push(j, f, |_, out| frames.push(out));
        }
        VowelTrack {
            fps,
            frames,
            voiced_span: self.voiced_span,
            duration_s: self.duration_s,
        }
    }
}

/// [`VowelTrack::resampled`] a source frame at a time, for a track too long to hold: fed
/// the source frames in order, it gives each output frame as soon as the source frames it
/// lies between have come. The same frames, to the bit ([`VowelTrack::resampled`] runs on
/// it). It needs the source's frame count and duration up front (the last frame is held,
/// not extrapolated).
#[derive(Clone, Debug)]
pub struct FrameInterpolator {
    fps: f64,
    src_fps: f64,
    /// Output frames in all.
    n: usize,
    /// The last source frame's index.
    last: usize,
    /// The next output frame.
    k: usize,
    prev: VowelFrame,
}

impl FrameInterpolator {
    /// Resampling `src_frames` frames at `src_fps` of a clip of `duration_s` seconds to
    /// `fps`: `floor(duration_s · fps)` frames (at least 1; none for no source frames).
    pub fn new(src_fps: f32, src_frames: usize, duration_s: f64, fps: f32) -> Self {
        let n = if src_frames == 0 {
            0
        } else {
            ((duration_s * f64::from(fps)).floor() as usize).max(1)
        };
        Self {
            fps: f64::from(fps),
            src_fps: f64::from(src_fps),
            n,
            last: src_frames.saturating_sub(1),
            k: 0,
            prev: VowelFrame::SILENT,
        }
    }

    /// Output frames in all.
    pub fn frames(&self) -> usize {
        self.n
    }

    /// Source frame `j` (`0, 1, 2, …` in order): calls `emit(k, frame)` for every output
    /// frame `k` it completes.
    pub fn push(&mut self, j: usize, f: &VowelFrame, mut emit: impl FnMut(usize, VowelFrame)) {
        while self.k < self.n {
            let t = (self.k as f64 + 0.5) / self.fps;
            let x = (t * self.src_fps - 0.5).clamp(0.0, self.last as f64);
            let i0 = x.floor() as usize;
            let i1 = (i0 + 1).min(self.last);
            if i1 > j {
                break;
            }
            // Every frame ready at `j − 1` went then, so `i0` and `i1` are `j − 1` or `j`.
            let w = (x - i0 as f64) as f32;
            let a = if i0 == j { f } else { &self.prev };
            let b = if i1 == j { f } else { &self.prev };
            let mut out = VowelFrame {
                weights: [0.0; 6],
                volume: a.volume * (1.0 - w) + b.volume * w,
                silent: if w < 0.5 { a.silent } else { b.silent },
            };
            for i in 0..6 {
                out.weights[i] = a.weights[i] * (1.0 - w) + b.weights[i] * w;
            }
            emit(self.k, out);
            self.k += 1;
        }
        self.prev = *f;
    }
}
