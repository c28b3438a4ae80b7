//! Lip sync as the core's inputs: a track as a voice line ([`SpeechTrack`]), a frame as
//! a live voice's frame ([`VoiceFrame`]) — the one place each conversion is written.

use omote_core::speech::SpeechError;
use omote_core::{SpeechTrack, VoiceFrame};

use crate::{VowelFrame, VowelTrack};

impl VowelTrack {
    /// This track as a voice line for the core's player: the five vowel weights per
    /// frame and the voiced span, clipped to the frames.
    ///
    /// ```
    /// use omote_lipsync::{VowelFrame, VowelTrack, VoicedSpan};
    /// let mut frame = VowelFrame::default();
    /// frame.weights[0] = 0.7;
    /// let track = VowelTrack {
    ///     fps: 100.0,
    ///     frames: vec![frame; 50],
    ///     voiced_span: Some(VoicedSpan { start_s: 0.1, end_s: 0.4 }),
    ///     duration_s: 0.5,
    /// };
    /// let speech = track.speech_track().unwrap();
    /// assert_eq!(speech.voiced(), Some((0.1, 0.4)));
    /// assert_eq!(speech.sample(0.25)[0], 0.7);
    /// ```
    pub fn speech_track(&self) -> Result<SpeechTrack, SpeechError> {
        let vowels = self
            .frames
            .iter()
            .map(|f| std::array::from_fn(|j| f.weights[j]))
            .collect();
        let duration = (self.frames.len() as f64 / f64::from(self.fps.max(1e-3))) as f32;
        let voiced = self
            .voiced_span
            .map(|s| (s.start_s as f32, (s.end_s as f32).min(duration)));
        SpeechTrack::new(self.fps, vowels, voiced)
    }
}

impl VowelFrame {
    /// This frame as the core's live voice input: the five vowels (N, the closed mouth,
    /// is their absence) and whether the voice sounds.
    pub fn voice_frame(&self) -> VoiceFrame {
        VoiceFrame::from_weights(&self.weights, !self.silent)
    }
}
