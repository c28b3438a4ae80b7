//! [`AudioFileVoice`]: an audio file played as if it were a microphone.

use std::path::Path;

use omote_lipsync::{HOP, Profile, SAMPLE_RATE, StreamAnalyser, VowelFrame};

use super::{VOICE_FPS, VoiceSource};
use crate::{LiveError, Pacer};

/// Decodes an audio file (WAV, FLAC, OGG/Vorbis, MP3; omote-audio) and feeds it to the
/// streaming analyser 10 ms at a time, each piece when it would have arrived from a
/// microphone: the same frames a live capture of the file would give, at the same
/// pace. [`AudioFileVoice::with_speed`] plays faster (tests, previews).
pub struct AudioFileVoice {
    samples: Vec<f32>,
    analyser: StreamAnalyser,
    pacer: Pacer,
    next: usize,
    ended: bool,
}

impl AudioFileVoice {
    /// Decodes `path` (mono, resampled to the analyser's rate) for real-time playback.
    pub fn open(path: &Path, profile: Profile) -> Result<Self, LiveError> {
        Self::open_warned(path, profile).map(|(voice, _)| voice)
    }

    /// [`Self::open`], with the warning for a WAV cut short of what its header declares
    /// (what is there plays; the caller says so).
    pub fn open_warned(path: &Path, profile: Profile) -> Result<(Self, Option<String>), LiveError> {
        let (audio, warning) = omote_audio::load_mono_warned(path, SAMPLE_RATE)?;
        Ok((Self::from_samples(audio.samples, profile), warning))
    }

    /// Samples already at [`SAMPLE_RATE`], mono.
    pub fn from_samples(samples: Vec<f32>, profile: Profile) -> Self {
        Self {
            samples,
            analyser: StreamAnalyser::new(profile),
            pacer: Pacer::new(1.0 / VOICE_FPS),
            next: 0,
            ended: false,
        }
    }

    /// Plays `speed` times faster than real time; infinity: as fast as it analyses.
    pub fn with_speed(mut self, speed: f64) -> Self {
        self.pacer = Pacer::new(1.0 / (VOICE_FPS * speed));
        self
    }

    /// Seconds of audio.
    pub fn duration_s(&self) -> f64 {
        self.samples.len() as f64 / f64::from(SAMPLE_RATE)
    }
}

impl VoiceSource for AudioFileVoice {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        let before = out.len();
        while !self.ended {
            if self.next >= self.samples.len() {
                self.ended = true;
                self.analyser.finish(out);
                break;
            }
            // Piece k (samples [k, k + 1) · HOP) has arrived at the end of its 10 ms.
            let k = (self.next / HOP) as u64;
            self.pacer.wait_for(k + 1);
            let end = (self.next + HOP).min(self.samples.len());
            self.analyser.push(&self.samples[self.next..end], out);
            self.next = end;
            if out.len() > before {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
