//! Audio file decoding for omote: any WAV, FLAC, OGG/Vorbis or MP3 file to mono `f32`
//! samples, optionally resampled to the rate an analyser wants.
//!
//! Decoding uses `symphonia` (the container is probed from the bytes; the file extension
//! is only a hint, so a WAV named `.mp3` still decodes), except for well-formed 16-bit
//! PCM WAV files, which are read directly with the same result (`wav.rs`). Lossy files are
//! decoded gapless: the encoder's delay and padding are trimmed, so sample 0 is the first
//! sample the encoder was given (an untrimmed LAME MP3 starts 25–50 ms late). Channels are
//! averaged to mono. Whole buffers are resampled by a polyphase windowed-sinc filter
//! ([`resample`], `polyphase.rs`), centred so that sample *n* of the output is at the
//! same time as sample *n·from/to* of the input; live input goes through the same filter
//! sample by sample ([`StreamResampler`], 1 ms of delay from 48 kHz). Accepted input
//! rates are [`MIN_RATE`]..=[`MAX_RATE`].
//!
//! ```no_run
//! let audio = omote_audio::load_mono(std::path::Path::new("voice.wav"), 16_000)?;
//! assert_eq!(audio.sample_rate, 16_000);
//! # Ok::<(), omote_audio::AudioError>(())
//! ```
//!
//! Many files in a row: a [`Loader`] keeps its buffers and filters between them. A file
//! too long to hold (hours): an [`AudioStream`] gives the same samples a packet at a time.

mod container;
mod decode;
mod error;
mod loader;
mod polyphase;
mod resample;
mod stream;
mod wav;

pub use container::{HEAD_BYTES, container_kind};
pub use decode::{decode_bytes, decode_file};
pub use error::AudioError;
pub use loader::Loader;
pub use resample::{StreamResampler, resample};
pub use stream::AudioStream;

/// Lowest input sample rate accepted (Hz).
pub const MIN_RATE: u32 = 4_000;
/// Highest input sample rate accepted (Hz).
pub const MAX_RATE: u32 = 384_000;

/// Mono audio: samples in −1..1 at `sample_rate` Hz.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MonoAudio {
    /// The samples, channels already averaged.
    pub samples: Vec<f32>,
    /// Samples per second.
    pub sample_rate: u32,
}

impl MonoAudio {
    /// Duration in seconds.
    pub fn duration_s(&self) -> f64 {
        if self.sample_rate == 0 {
            0.0
        } else {
            self.samples.len() as f64 / f64::from(self.sample_rate)
        }
    }
}

/// Decodes `path` to mono and resamples it to `rate` Hz (a [`Loader`] for one file);
/// a header without data is empty audio.
pub fn load_mono(path: &std::path::Path, rate: u32) -> Result<MonoAudio, AudioError> {
    load_one(path, rate).map(|(audio, _)| audio)
}

/// A voice file for analysis: [`load_mono`], refusing a file with no samples
/// ([`AudioError::NoSamples`]: nothing to analyse), with
/// [`Loader::warning`]'s warning for a WAV cut short of what its header declares (what
/// is there is read) or samples that are not numbers (read as silence) — what every
/// voice reader passes on.
pub fn load_mono_warned(
    path: &std::path::Path,
    rate: u32,
) -> Result<(MonoAudio, Option<String>), AudioError> {
    let (audio, warning) = load_one(path, rate)?;
    if audio.samples.is_empty() {
        return Err(AudioError::NoSamples {
            path: path.to_path_buf(),
        });
    }
    Ok((audio, warning))
}

fn load_one(path: &std::path::Path, rate: u32) -> Result<(MonoAudio, Option<String>), AudioError> {
    let mut loader = Loader::new(rate).map_err(|e| e.with_path(path))?;
    let samples = loader.load(path)?.to_vec();
    let audio = MonoAudio {
        samples,
        sample_rate: rate,
    };
    Ok((audio, loader.warning(path)))
}
