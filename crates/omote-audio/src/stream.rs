//! [`AudioStream`]: a file decoded and resampled a packet at a time, for audio too long
//! to hold (hours of voice).

use std::path::{Path, PathBuf};

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::Decoder;
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::FormatReader;
use symphonia::core::io::MediaSourceStream;

use crate::decode::{catch_unwind_silently, mono_sample_counting, open_track};
use crate::{AudioError, HEAD_BYTES, MAX_RATE, MIN_RATE, StreamResampler};

/// Bytes read ahead to find a WAV's `data` chunk header (the chunks before it — `fmt `,
/// `LIST`, `fact` — are far shorter in files recorders write).
const WAV_HEAD_BYTES: usize = 4096;

/// How many undecodable packets in a row are skipped before the file is called corrupt
/// (as [`crate::decode_file`] does).
const MAX_BAD_PACKETS: usize = 16;

/// An audio file read, decoded, mixed to mono and resampled a packet at a time: memory
/// stays flat however long the file is. The samples are those [`crate::load_mono`] gives
/// (symphonia's samples, which the direct WAV path equals; the streaming resampler,
/// which equals the whole-buffer one), in pieces.
///
/// The file is opened through [`omote_fs::open`] (a FIFO or a device is refused by what
/// it is); errors name the file. A decoder panic on a hostile header is caught and
/// reported as [`AudioError::Corrupt`], as in [`crate::decode_bytes`].
pub struct AudioStream {
    path: PathBuf,
    format: Box<dyn FormatReader>,
    decoder: Box<dyn Decoder>,
    track_id: u32,
    /// The file's own rate (0 until the first packet says, for a header without it).
    from: u32,
    to: u32,
    frames: Option<u64>,
    resampler: Option<StreamResampler>,
    buf: Option<SampleBuffer<f32>>,
    mono: Vec<f32>,
    decoded_any: bool,
    ended: bool,
    /// Samples so far that were NaN or infinite (their frames read as silence).
    non_finite: u64,
    /// How many bytes a WAV's `data` chunk is short of its header (a file cut short).
    short_by: Option<u64>,
}

impl std::fmt::Debug for AudioStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioStream")
            .field("path", &self.path)
            .field("from", &self.from)
            .field("to", &self.to)
            .finish_non_exhaustive()
    }
}

impl AudioStream {
    /// Opens `path` and reads its header; samples come out at `rate` Hz.
    pub fn open(path: &Path, rate: u32) -> Result<Self, AudioError> {
        crate::resample::check_rate(rate).map_err(|e| e.with_path(path))?;
        let run = std::panic::AssertUnwindSafe(|| Self::open_unguarded(path, rate));
        catch_unwind_silently(run).unwrap_or_else(|p| Err(panicked(path, p)))
    }

    fn open_unguarded(path: &Path, rate: u32) -> Result<Self, AudioError> {
        let io = |source| AudioError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = omote_fs::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        if file_len == 0 {
            return Err(AudioError::EmptyFile {
                path: path.to_path_buf(),
            });
        }
        // Its first bytes, for what an unreadable header is and where a WAV's `data`
        // chunk starts (then back to the start).
        let mut head = Vec::with_capacity(WAV_HEAD_BYTES);
        {
            use std::io::{Read, Seek};
            (&file)
                .take(WAV_HEAD_BYTES as u64)
                .read_to_end(&mut head)
                .map_err(io)?;
            (&file).seek(std::io::SeekFrom::Start(0)).map_err(io)?;
        }
        let mss = MediaSourceStream::new(Box::new(file), Default::default());
        let ext = path.extension().and_then(|e| e.to_str());
        let sniff = &head[..head.len().min(HEAD_BYTES)];
        let (format, track_id, params, decoder) = open_track(mss, ext, path, sniff)?;
        let mut stream = Self {
            path: path.to_path_buf(),
            format,
            decoder,
            track_id,
            from: 0,
            to: rate,
            frames: params.n_frames,
            resampler: None,
            buf: None,
            mono: Vec::new(),
            decoded_any: false,
            ended: false,
            non_finite: 0,
            short_by: crate::wav::data_shortfall_of(&head, file_len),
        };
        if let Some(from) = params.sample_rate {
            stream.set_rate(from)?;
        }
        Ok(stream)
    }

    fn set_rate(&mut self, from: u32) -> Result<(), AudioError> {
        if !(MIN_RATE..=MAX_RATE).contains(&from) {
            return Err(AudioError::SampleRate {
                path: self.path.clone(),
                rate: from,
                min: MIN_RATE,
                max: MAX_RATE,
            });
        }
        self.from = from;
        self.resampler =
            Some(StreamResampler::new(from, self.to).map_err(|e| e.with_path(&self.path))?);
        Ok(())
    }

    /// The file's length in seconds as its header declares it, if it does (a WAV's or a
    /// FLAC's does; some MP3 and OGG files do not).
    pub fn declared_duration_s(&self) -> Option<f64> {
        match (self.frames, self.from) {
            (Some(n), from) if from > 0 => Some(n as f64 / f64::from(from)),
            _ => None,
        }
    }

    /// The warning [`crate::Loader::warning`] gives: a WAV cut short of what its header
    /// declares (known from the start), samples read so far that are not numbers (NaN or
    /// infinite, read as silence); `None` for neither.
    pub fn warning(&self) -> Option<String> {
        crate::loader::reading_note(self.short_by, self.non_finite)
            .map(|note| format!("{}: {note}", self.path.display()))
    }

    /// Appends the next piece of samples (one packet's, resampled) to `out`; `false` once
    /// the file has ended (the resampler's tail is then appended).
    pub fn next_chunk(&mut self, out: &mut Vec<f32>) -> Result<bool, AudioError> {
        if self.ended {
            return Ok(false);
        }
        let path = self.path.clone();
        let run = std::panic::AssertUnwindSafe(|| self.next_unguarded(out));
        catch_unwind_silently(run).unwrap_or_else(|p| Err(panicked(&path, p)))
    }

    fn corrupt(&self, reason: String) -> AudioError {
        AudioError::Corrupt {
            path: self.path.clone(),
            reason,
        }
    }

    fn end(&mut self, out: &mut Vec<f32>) -> Result<bool, AudioError> {
        self.ended = true;
        if let Some(r) = self.resampler.as_mut() {
            r.flush(out);
        }
        Ok(false)
    }

    fn next_unguarded(&mut self, out: &mut Vec<f32>) -> Result<bool, AudioError> {
        let mut bad_in_a_row = 0usize;
        loop {
            let packet = match self.format.next_packet() {
                Ok(p) => p,
                Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return self.end(out);
                }
                Err(SymError::ResetRequired) => return self.end(out),
                Err(SymError::DecodeError(e)) => {
                    bad_in_a_row += 1;
                    if bad_in_a_row > MAX_BAD_PACKETS {
                        return Err(self.corrupt(e.to_string()));
                    }
                    continue;
                }
                Err(e) => {
                    if self.decoded_any {
                        // A truncated tail: keep what decoded.
                        return self.end(out);
                    }
                    return Err(self.corrupt(e.to_string()));
                }
            };
            if packet.track_id() != self.track_id {
                continue;
            }
            match self.decoder.decode(&packet) {
                Ok(decoded) => {
                    self.decoded_any = true;
                    let spec = *decoded.spec();
                    let channels = spec.channels.count().max(1);
                    let frames = decoded.frames();
                    let sb = match &mut self.buf {
                        Some(b) if b.capacity() >= frames * channels => b,
                        _ => self
                            .buf
                            .insert(SampleBuffer::<f32>::new(decoded.capacity() as u64, spec)),
                    };
                    sb.copy_interleaved_ref(decoded);
                    let scale = 1.0 / channels as f32;
                    self.mono.clear();
                    let non_finite = &mut self.non_finite;
                    self.mono.extend(
                        sb.samples()
                            .chunks_exact(channels)
                            .map(|f| mono_sample_counting(f, scale, non_finite)),
                    );
                    if self.from == 0 {
                        self.set_rate(spec.rate)?;
                    }
                    if let Some(r) = self.resampler.as_mut() {
                        r.push(&self.mono, out);
                    }
                    return Ok(true);
                }
                Err(SymError::DecodeError(e)) => {
                    bad_in_a_row += 1;
                    if bad_in_a_row > MAX_BAD_PACKETS {
                        return Err(self.corrupt(e.to_string()));
                    }
                }
                Err(SymError::IoError(_)) if self.decoded_any => return self.end(out),
                Err(e) => return Err(self.corrupt(e.to_string())),
            }
        }
    }
}

fn panicked(path: &Path, payload: Box<dyn std::any::Any + Send>) -> AudioError {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    AudioError::Corrupt {
        path: path.to_path_buf(),
        reason: format!("the decoder rejected the header ({what})"),
    }
}
