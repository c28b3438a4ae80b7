//! Sample-rate conversion: whole buffers through the polyphase filter, live input
//! through rubato's synchronous FFT resampler.

use std::path::PathBuf;

use rubato::{FftFixedIn, Resampler};

use crate::polyphase::Polyphase;
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
/// appended to a caller's `Vec`. Latency is one internal chunk (10 ms of input) plus the
/// FFT resampler's delay ([`StreamResampler::delay_s`]).
pub struct StreamResampler {
    inner: Option<FftFixedIn<f32>>,
    pending: Vec<f32>,
    chunk: usize,
    outbuf: Vec<Vec<f32>>,
    to_skip: usize,
    delay_s: f64,
}

impl StreamResampler {
    /// A resampler from `from` Hz to `to` Hz that works in blocks of 10 ms of input.
    pub fn new(from: u32, to: u32) -> Result<Self, AudioError> {
        Self::with_block(from, to, 0.010)
    }

    /// A resampler from `from` Hz to `to` Hz that works in blocks of `block_s` seconds
    /// of input (one sample to one second). Shorter blocks mean less latency (the block is
    /// buffered, and the filter, as long as a block, delays by half of it) and a
    /// shorter anti-aliasing filter: 5 ms from 48 kHz to 16 kHz is 7.5 ms in all.
    pub fn with_block(from: u32, to: u32, block_s: f64) -> Result<Self, AudioError> {
        check_rate(from)?;
        check_rate(to)?;
        if from == to {
            return Ok(Self {
                inner: None,
                pending: Vec::new(),
                chunk: 0,
                outbuf: Vec::new(),
                to_skip: 0,
                delay_s: 0.0,
            });
        }
        // At least one sample, at most a second.
        let chunk = ((f64::from(from) * block_s).round() as usize).clamp(1, from as usize);
        let r = FftFixedIn::<f32>::new(from as usize, to as usize, chunk, 1, 1).map_err(|e| {
            AudioError::Resample {
                path: memory(),
                from,
                to,
                reason: e.to_string(),
            }
        })?;
        let chunk = r.input_frames_next();
        let to_skip = r.output_delay();
        let outbuf = r.output_buffer_allocate(true);
        // The FFT works in whole blocks of `from / gcd` input samples (441 from 44.1 kHz
        // to 16 kHz, 3 from 48 kHz): a sample can wait for the rest of its block even
        // when the chunk is shorter, so the buffering is the longer of the two.
        let unit =
            (u64::from(from) / crate::polyphase::gcd(u64::from(from), u64::from(to))) as usize;
        let block = chunk.div_ceil(unit) * unit;
        let delay_s = to_skip as f64 / f64::from(to) + block as f64 / f64::from(from);
        Ok(Self {
            inner: Some(r),
            pending: Vec::with_capacity(chunk),
            chunk,
            outbuf,
            to_skip,
            delay_s,
        })
    }

    /// Algorithmic latency in seconds (buffering plus filter delay).
    pub fn delay_s(&self) -> f64 {
        self.delay_s
    }

    /// Resamples `input`, appending whatever output is ready to `out`.
    pub fn push(&mut self, input: &[f32], out: &mut Vec<f32>) {
        let Some(r) = self.inner.as_mut() else {
            out.extend_from_slice(input);
            return;
        };
        let mut rest = input;
        while !rest.is_empty() {
            let take = (self.chunk - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == self.chunk {
                // Buffers have the sizes rubato asked for, so this cannot fail.
                if let Ok((_, n)) = r.process_into_buffer(&[&self.pending], &mut self.outbuf, None)
                {
                    let skip = self.to_skip.min(n);
                    self.to_skip -= skip;
                    out.extend(
                        self.outbuf[0][skip..n]
                            .iter()
                            .map(|s| if s.is_finite() { *s } else { 0.0 }),
                    );
                }
                self.pending.clear();
            }
        }
    }
}
