//! Raw PCM bytes, as they come off a pipe, to lip sync frames: [`PcmLipsync`] (the
//! pipeline) and [`PcmVoice`] (the pipeline over a `Read`).

use std::io::Read;
use std::path::Path;

use omote_audio::{HEAD_BYTES, StreamResampler, container_kind};
use omote_lipsync::{Profile, SAMPLE_RATE, StreamAnalyser, VowelFrame};

use super::VoiceSource;
use crate::LiveError;

/// Sample encoding of a raw PCM stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit little-endian integers (`arecord -f S16_LE`).
    #[default]
    S16le,
    /// 32-bit little-endian floats in -1..1.
    F32le,
}

impl SampleFormat {
    /// Bytes per sample.
    pub fn bytes(self) -> usize {
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

/// Bytes in, frames out: partial sample frames are carried over to the next push,
/// channels are averaged, the rate is converted to the analyser's, and the streaming
/// analyser emits a frame per 10 ms. Buffers are reused between pushes.
pub struct PcmLipsync {
    format: SampleFormat,
    channels: usize,
    rate: u32,
    resampler: StreamResampler,
    analyser: StreamAnalyser,
    carry: Vec<u8>,
    /// A partial sample frame of [`PcmLipsync::push_samples`], kept for the next call.
    sample_carry: Vec<f32>,
    mono: Vec<f32>,
    resampled: Vec<f32>,
}

impl PcmLipsync {
    /// A pipeline for `channels` interleaved channels of `format` at `rate` Hz; `what`
    /// names the stream in errors.
    pub fn new(
        what: &str,
        format: SampleFormat,
        channels: u16,
        rate: u32,
        profile: Profile,
    ) -> Result<Self, LiveError> {
        if channels == 0 {
            return Err(LiveError::NoChannels { what: what.into() });
        }
        Ok(Self {
            format,
            channels: usize::from(channels),
            rate,
            resampler: StreamResampler::new(rate, SAMPLE_RATE)
                .map_err(|e| e.with_path(Path::new(what)))?,
            analyser: StreamAnalyser::new(profile),
            carry: Vec::new(),
            sample_carry: Vec::with_capacity(usize::from(channels)),
            mono: Vec::new(),
            resampled: Vec::new(),
        })
    }

    /// Bytes per read that hold 10 ms of input (read no more, so frames leave as soon as
    /// their audio arrives).
    pub fn chunk_bytes(&self) -> usize {
        (self.rate as usize / 100).max(1) * self.format.bytes() * self.channels
    }

    /// Algorithmic latency in seconds: the analyser's ([`StreamAnalyser::latency_s`]: half
    /// a window and the frame held back for the flicker filter) plus the resampler's.
    pub fn latency_s(&self) -> f64 {
        f64::from(self.analyser.latency_s()) + self.resampler.delay_s()
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
        self.analyse_mono(out);
    }

    /// Appends the frames that `samples` completes to `out`: interleaved samples of the
    /// pipeline's channel count, already decoded to -1..1 (the format given at
    /// construction is not used). Non-finite samples count as 0, others are clamped to
    /// -1..1. A partial last sample frame is carried over to the next call; the channel
    /// mixdown is the same as [`PcmLipsync::push`]'s, so the same audio gives the same
    /// frames through either.
    pub fn push_samples(&mut self, samples: &[f32], out: &mut Vec<VowelFrame>) {
        let clean = |x: f32| {
            if x.is_finite() {
                x.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        };
        let scale = 1.0 / self.channels as f32;
        self.mono.clear();
        let mut rest = samples;
        if !self.sample_carry.is_empty() {
            let take = (self.channels - self.sample_carry.len()).min(rest.len());
            self.sample_carry
                .extend(rest[..take].iter().map(|&x| clean(x)));
            rest = &rest[take..];
            if self.sample_carry.len() == self.channels {
                let sum: f32 = self.sample_carry.iter().sum();
                self.mono.push(sum * scale);
                self.sample_carry.clear();
            }
        }
        let mut frames = rest.chunks_exact(self.channels);
        for frame in &mut frames {
            let sum: f32 = frame.iter().map(|&x| clean(x)).sum();
            self.mono.push(sum * scale);
        }
        self.sample_carry
            .extend(frames.remainder().iter().map(|&x| clean(x)));
        self.analyse_mono(out);
    }

    /// The channel count.
    pub fn channels(&self) -> u16 {
        // Built from a `u16`.
        u16::try_from(self.channels).unwrap_or(u16::MAX)
    }

    /// The input rate in Hz.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Resamples and analyses `self.mono`.
    fn analyse_mono(&mut self, out: &mut Vec<VowelFrame>) {
        self.resampled.clear();
        self.resampler.push(&self.mono, &mut self.resampled);
        self.analyser.push(&self.resampled, out);
    }

    /// At the end of the stream: appends the last frames to `out` (the resampler's last
    /// samples included, so a file streamed through gives the samples `omote_audio::resample`
    /// gives it whole).
    pub fn finish(&mut self, out: &mut Vec<VowelFrame>) {
        self.resampled.clear();
        self.resampler.flush(&mut self.resampled);
        self.analyser.push(&self.resampled, out);
        self.analyser.finish(out);
    }
}

/// A [`PcmLipsync`] fed from `input` (stdin, a named pipe fed by `arecord`, a file),
/// 10 ms per read.
pub struct PcmVoice<R> {
    input: R,
    name: String,
    pipeline: PcmLipsync,
    buf: Vec<u8>,
    ended: bool,
    /// The stream's first bytes, until there are enough to tell a file header.
    head: [u8; HEAD_BYTES],
    head_len: usize,
}

impl<R: Read> PcmVoice<R> {
    /// Reads `input`, named `name` in errors, through `pipeline`.
    pub fn new(input: R, name: impl Into<String>, pipeline: PcmLipsync) -> Self {
        let buf = vec![0u8; pipeline.chunk_bytes()];
        Self {
            input,
            name: name.into(),
            pipeline,
            buf,
            ended: false,
            head: [0; HEAD_BYTES],
            head_len: 0,
        }
    }

    /// The pipeline (for its latency).
    pub fn pipeline(&self) -> &PcmLipsync {
        &self.pipeline
    }

    /// The stream's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl PcmVoice<std::fs::File> {
    /// Opens a file or named pipe of raw PCM.
    pub fn open(
        path: &Path,
        format: SampleFormat,
        channels: u16,
        rate: u32,
        profile: Profile,
    ) -> Result<Self, LiveError> {
        let name = path.display().to_string();
        let pipeline = PcmLipsync::new(&name, format, channels, rate, profile)?;
        let file = open_pcm_input(path, "the voice input")?;
        Ok(Self::new(file, name, pipeline))
    }
}

/// Opens a raw PCM stream named on the command line: a regular file (through
/// [`omote_fs::open`]) or a FIFO (a microphone fed by `arecord`: a live stream is what
/// this input is for). Anything else — `/dev/zero` (an endless stream read as fast as it
/// goes), another device, a directory, a socket — is refused by what it is, naming the
/// file, before it is opened. `what` names the input in the error ("the voice input").
pub fn open_pcm_input(path: &Path, what: &'static str) -> Result<std::fs::File, LiveError> {
    let err = |source| LiveError::Open {
        path: path.to_owned(),
        what,
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let meta = std::fs::metadata(path).map_err(err)?;
        if meta.file_type().is_fifo() {
            let file = std::fs::File::open(path).map_err(err)?;
            // A swap between the check and the open is caught on the handle.
            let meta = file.metadata().map_err(err)?;
            if meta.file_type().is_fifo() || meta.is_file() {
                return Ok(file);
            }
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file or a FIFO",
            )));
        }
    }
    omote_fs::open(path).map_err(err)
}

impl<R: Read> VoiceSource for PcmVoice<R> {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        let before = out.len();
        while !self.ended {
            let n = match self.input.read(&mut self.buf) {
                Ok(0) => {
                    self.ended = true;
                    self.pipeline.finish(out);
                    break;
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    self.ended = true;
                    return Err(LiveError::Read {
                        what: self.name.clone(),
                        source,
                    });
                }
            };
            if self.head_len < HEAD_BYTES {
                let take = n.min(HEAD_BYTES - self.head_len);
                self.head[self.head_len..self.head_len + take].copy_from_slice(&self.buf[..take]);
                self.head_len += take;
                if self.head_len == HEAD_BYTES
                    && let Some(kind) = container_kind(&self.head)
                {
                    self.ended = true;
                    return Err(LiveError::NotRawPcm {
                        what: self.name.clone(),
                        kind,
                    });
                }
            }
            self.pipeline.push(&self.buf[..n], out);
            if out.len() > before {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
