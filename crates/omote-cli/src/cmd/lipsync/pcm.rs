//! [`PcmLipsync`]: raw interleaved PCM bytes, as they come off a pipe, to lip sync frames —
//! shared by `omote lipsync live` and `omote live --voice`.

use anyhow::Context;
use clap::ValueEnum;
use omote_audio::StreamResampler;
use omote_lipsync::{Profile, SAMPLE_RATE, StreamAnalyser, VowelFrame};

/// Sample encoding of a raw PCM stream.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit little-endian integers.
    S16le,
    /// 32-bit little-endian floats in -1..1.
    F32le,
}

impl SampleFormat {
    fn bytes(self) -> usize {
        match self {
            SampleFormat::S16le => 2,
            SampleFormat::F32le => 4,
        }
    }

    fn decode(self, b: &[u8]) -> f32 {
        match self {
            SampleFormat::S16le => f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0,
            SampleFormat::F32le => {
                let x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                if x.is_finite() {
                    x.clamp(-1.0, 1.0)
                } else {
                    0.0
                }
            }
        }
    }
}

/// Bytes in, frames out: partial sample frames are carried over to the next read,
/// channels are averaged, the rate is converted to the analyser's, and the streaming
/// analyser emits a frame per 10 ms. Buffers are reused between pushes.
pub struct PcmLipsync {
    format: SampleFormat,
    channels: usize,
    resampler: StreamResampler,
    analyser: StreamAnalyser,
    carry: Vec<u8>,
    mono: Vec<f32>,
    resampled: Vec<f32>,
}

impl PcmLipsync {
    /// A pipeline for `channels` interleaved channels of `format` at `rate` Hz.
    pub fn new(
        format: SampleFormat,
        channels: u16,
        rate: u32,
        profile: Profile,
    ) -> anyhow::Result<Self> {
        anyhow::ensure!(channels > 0, "the channel count must be at least 1");
        Ok(Self {
            format,
            channels: usize::from(channels),
            resampler: StreamResampler::new(rate, SAMPLE_RATE)
                .with_context(|| format!("sample rate {rate} Hz"))?,
            analyser: StreamAnalyser::new(profile),
            carry: Vec::new(),
            mono: Vec::new(),
            resampled: Vec::new(),
        })
    }

    /// Bytes per read that hold 10 ms of input (read no more, so frames leave as soon as
    /// their audio arrives).
    pub fn chunk_bytes(&self, rate: u32) -> usize {
        (rate as usize / 100).max(1) * self.format.bytes() * self.channels
    }

    /// Algorithmic latency in seconds: the analyser's half window plus the resampler's.
    pub fn latency_s(&self) -> f64 {
        0.0125 + self.resampler.delay_s()
    }

    /// Resampler share of [`PcmLipsync::latency_s`].
    pub fn resampler_delay_s(&self) -> f64 {
        self.resampler.delay_s()
    }

    /// Appends the frames that `bytes` completes to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<VowelFrame>) {
        let frame_bytes = self.format.bytes() * self.channels;
        self.carry.extend_from_slice(bytes);
        let whole = self.carry.len() / frame_bytes * frame_bytes;
        self.mono.clear();
        let scale = 1.0 / self.channels as f32;
        for frame in self.carry[..whole].chunks_exact(frame_bytes) {
            let sum: f32 = frame
                .chunks_exact(self.format.bytes())
                .map(|b| self.format.decode(b))
                .sum();
            self.mono.push(sum * scale);
        }
        self.carry.drain(..whole);
        self.resampled.clear();
        self.resampler.push(&self.mono, &mut self.resampled);
        self.analyser.push(&self.resampled, out);
    }

    /// At the end of the stream: appends the last frames to `out`.
    pub fn finish(&mut self, out: &mut Vec<VowelFrame>) {
        self.analyser.finish(out);
    }
}
