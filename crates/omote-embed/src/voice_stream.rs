//! [`VoiceStream`]: live lip sync at any sample rate and chunk size — an audio callback's
//! samples in (a browser's `AudioWorklet` gives 128 at a time, an engine's audio thread
//! whatever it has), a vowel frame per 10 ms out as soon as its audio is there.

use omote_audio::StreamResampler;
use omote_lipsync::{AnalyserConfig, SAMPLE_RATE, StreamAnalyser, VowelFrame};

use crate::EmbedError;
use crate::analysis::{check_rate, check_samples};

/// Numbers per frame in [`VoiceStream::push`]'s output: A I U E O N, the volume (0–1)
/// and whether the frame is voiced (1 or 0).
pub const VOICE_FRAME_STRIDE: usize = 8;

/// Streaming lip sync at any sample rate (see the module doc).
///
/// ```
/// let mut voice = omote_embed::VoiceStream::new(48_000.0).unwrap();
/// assert!(voice.latency_s() <= 0.025);
/// let second: Vec<f32> = (0..48_000).map(|i| (i as f32 * 0.03).sin() * 0.3).collect();
/// let mut frames = 0;
/// for quantum in second.chunks(128) {
///     frames += voice.push(quantum).unwrap().len() / omote_embed::VOICE_FRAME_STRIDE;
/// }
/// assert!(frames >= 95 && frames <= 100);
/// ```
pub struct VoiceStream {
    rate: u32,
    resampler: StreamResampler,
    analyser: StreamAnalyser,
    resampled: Vec<f32>,
    frames: Vec<VowelFrame>,
    out: Vec<f32>,
    samples_in: u64,
}

impl VoiceStream {
    /// A live analyser for mono samples at `sample_rate` Hz (a whole number within
    /// omote's 4–384 kHz), for the lowest latency: frames are not held back for the
    /// flicker filter (see [`VoiceStream::with_hold`]).
    pub fn new(sample_rate: f64) -> Result<Self, EmbedError> {
        Self::with_hold(sample_rate, false)
    }

    /// As [`VoiceStream::new`]; with `hold`, each frame is held back one frame (10 ms
    /// more latency) so one-frame flickers of the mouth class are removed, as
    /// `omote lipsync live` does.
    pub fn with_hold(sample_rate: f64, hold: bool) -> Result<Self, EmbedError> {
        Self::with_profile(sample_rate, hold, None)
    }

    /// As [`VoiceStream::with_hold`], reading the voice with a lip sync profile given as
    /// JSON (one [`crate::calibrate_voice_from_card`] made for this speaker; `None`: the
    /// built-in one); a profile that is not one is refused.
    pub fn with_profile(
        sample_rate: f64,
        hold: bool,
        profile: Option<&str>,
    ) -> Result<Self, EmbedError> {
        let profile = crate::voice_profile::parse_voice_profile(profile)?;
        let rate = check_rate(sample_rate)?;
        let resampler = StreamResampler::new(rate, SAMPLE_RATE)
            .map_err(|e| EmbedError::Audio(e.to_string()))?;
        let config = if hold {
            AnalyserConfig::default()
        } else {
            AnalyserConfig::lowest_latency()
        };
        Ok(Self {
            rate,
            resampler,
            analyser: StreamAnalyser::with_config(profile, config),
            resampled: Vec::with_capacity(4096),
            frames: Vec::with_capacity(64),
            out: Vec::with_capacity(64 * VOICE_FRAME_STRIDE),
            samples_in: 0,
        })
    }

    /// Starts the stream from a character's voice: a seed from
    /// [`crate::Speaker::voice_seed`] (that speaker's lines), so the first words are
    /// read against that voice rather than the average one. Before the first push only.
    ///
    /// ```
    /// use omote_embed::{Speaker, VoiceStream};
    /// let line: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    /// let mut speaker = Speaker::new();
    /// speaker.add_line(&line, 16_000.0).unwrap();
    /// let mut voice = VoiceStream::new(48_000.0).unwrap();
    /// voice.start_from_speaker(&speaker.voice_seed()).unwrap();
    /// assert!(voice.start_from_speaker(&[0.0; 5]).is_err());
    /// ```
    pub fn start_from_speaker(&mut self, seed: &[f32]) -> Result<(), EmbedError> {
        if self.samples_in > 0 {
            return Err(EmbedError::StreamStarted);
        }
        let voice = omote_lipsync::Speaker::from_voice_seed(seed)?;
        self.analyser.start_from_speaker(&voice);
        Ok(())
    }

    /// The sample rate it was made for.
    pub fn sample_rate(&self) -> u32 {
        self.rate
    }

    /// Algorithmic latency in seconds, from a frame's centre to the moment its frame is
    /// out: the analysis' half window (12.5 ms; 22.5 ms with the hold) and the
    /// resampler's filter (1 ms from 48 kHz).
    pub fn latency_s(&self) -> f64 {
        f64::from(self.analyser.latency_s()) + self.resampler.delay_s()
    }

    /// Samples pushed so far.
    pub fn samples_in(&self) -> u64 {
        self.samples_in
    }

    /// Frames out so far; frame *i* is centred at `(i + 0.5) · 10 ms` of the stream.
    pub fn frames_out(&self) -> u64 {
        self.analyser.frames_emitted()
    }

    /// Pushes mono samples (any number); returns the frames they completed,
    /// [`VOICE_FRAME_STRIDE`] numbers each (often none: a frame is 10 ms). A NaN or
    /// infinite sample is an error and the whole push is dropped (nothing half-analysed),
    /// so the stream stays usable.
    pub fn push(&mut self, samples: &[f32]) -> Result<&[f32], EmbedError> {
        self.out.clear();
        self.push_frames(samples)?;
        let finite = |x: f32| {
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        for f in &self.frames {
            self.out.extend(f.weights.iter().map(|w| finite(*w)));
            self.out.push(finite(f.volume));
            self.out.push(if f.silent { 0.0 } else { 1.0 });
        }
        Ok(&self.out)
    }

    /// As [`VoiceStream::push`], the frames as the analyser's own type (each one's
    /// [`VowelFrame::voice_frame`] drives a [`crate::Character`]'s live voice).
    pub fn push_frames(&mut self, samples: &[f32]) -> Result<&[VowelFrame], EmbedError> {
        self.frames.clear();
        check_samples(samples)?;
        self.samples_in += samples.len() as u64;
        self.resampled.clear();
        self.resampler.push(samples, &mut self.resampled);
        self.analyser.push(&self.resampled, &mut self.frames);
        Ok(&self.frames)
    }
}
