//! Sample-rate conversion through the polyphase filter: whole buffers, and live input
//! sample by sample.

use std::path::PathBuf;

use crate::polyphase::{Polyphase, PolyphaseStream};
use crate::{AudioError, MAX_RATE, MIN_RATE};

fn memory() -> PathBuf {
    PathBuf::from("<memory>")
}

pub(crate) fn check_rate(rate: u32) -> Result<(), AudioError> {
    if (MIN_RATE..=MAX_RATE).contains(&rate) {
        Ok(())
    } else {
        Err(AudioError::SampleRate {
            path: memory(),
            rate,
            min: MIN_RATE,
            max: MAX_RATE,
        })
    }
}

/// Resamples mono `samples` from `from` Hz to `to` Hz with the polyphase filter
/// described in the crate docs: the output has `round(len · to / from)` samples aligned
/// in time with the input. Equal rates copy. Errors carry the path `<memory>`; use
/// [`AudioError::with_path`] to name the file. Many buffers at the same rates: a
/// [`crate::Loader`] keeps the filter.
pub fn resample(samples: &[f32], from: u32, to: u32) -> Result<Vec<f32>, AudioError> {
    if from == to || samples.is_empty() {
        return Ok(samples.to_vec());
    }
    check_rate(from)?;
    check_rate(to)?;
    let mut out = Vec::new();
    Polyphase::new(from, to).process_into(samples, &mut out);
    Ok(out)
}

/// A streaming resampler for live input: push chunks of any size, get resampled samples
/// appended to a caller's `Vec`. It runs the same filter as [`resample`], sample by
/// sample: each output sample is out as soon as the last input sample its window needs
/// has arrived ([`StreamResampler::delay_s`]: 1.0 ms from 48 kHz, 1.2 ms from 44.1 kHz), with
/// no block to fill, and after [`StreamResampler::flush`] the whole output equals
/// [`resample`] of the whole input, bit for bit.
///
/// ```
/// use omote_audio::{StreamResampler, resample};
/// let input: Vec<f32> = (0..4800).map(|i| (i as f32 * 0.05).sin()).collect();
/// let mut live = StreamResampler::new(48_000, 16_000).unwrap();
/// let mut out = Vec::new();
/// for quantum in input.chunks(128) {
///     live.push(quantum, &mut out);
/// }
/// live.flush(&mut out);
/// assert_eq!(out, resample(&input, 48_000, 16_000).unwrap());
/// assert!(live.delay_s() <= 0.001);
/// ```
pub struct StreamResampler {
    /// `None` when the rates are equal (samples pass through).
    inner: Option<PolyphaseStream>,
}

impl StreamResampler {
    /// A resampler from `from` Hz to `to` Hz (each within [`MIN_RATE`]..=[`MAX_RATE`]).
    pub fn new(from: u32, to: u32) -> Result<Self, AudioError> {
        check_rate(from)?;
        check_rate(to)?;
        let inner = (from != to).then(|| PolyphaseStream::new(Polyphase::new(from, to)));
        Ok(Self { inner })
    }

    /// Algorithmic latency in seconds: from an output sample's time to the arrival of the
    /// last input sample it needs (half the filter: 1.0 ms from 48 kHz, 1.2 ms from
    /// 44.1 kHz, 8 ms up from 8 kHz); 0 when the rates are equal.
    pub fn delay_s(&self) -> f64 {
        self.inner.as_ref().map_or(0.0, PolyphaseStream::delay_s)
    }

    /// Resamples `input`, appending whatever output it completes to `out`.
    pub fn push(&mut self, input: &[f32], out: &mut Vec<f32>) {
        match self.inner.as_mut() {
            Some(stream) => stream.push(input, out),
            None => out.extend_from_slice(input),
        }
    }

    /// At the end of the input: appends the last output samples (the input is taken to
    /// be followed by silence), so the stream gives `round(len · to / from)` samples in
    /// all. The resampler then starts a new stream.
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        if let Some(stream) = self.inner.as_mut() {
            stream.flush(out);
        }
    }
}
