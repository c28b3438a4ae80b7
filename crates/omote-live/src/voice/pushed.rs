//! A voice pushed in by an audio callback: [`AudioFeed`] (the producer, called from the
//! audio thread) hands interleaved samples over a fixed-capacity ring to [`PushedVoice`]
//! (the [`VoiceSource`]), which mixes them down and runs them through [`PcmLipsync`].
//! [`VoiceMeter`] reads the level and the loss counts from any thread.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use omote_lipsync::{Profile, VowelFrame};

use super::{PcmLipsync, SampleFormat, VoiceSource};
use crate::LiveError;

/// The ring of interleaved samples between the two ends. Positions are absolute sample
/// counts since the start of the stream; `read` is always at the start of a sample
/// frame (a multiple of the channel count), so dropping keeps the channels in place.
struct Ring {
    /// Fixed length, allocated once: the capacity in samples.
    buf: Vec<f32>,
    read: u64,
    write: u64,
    /// The feed is gone (or failed): no more samples will come.
    ended: bool,
    /// Why it ended, if it failed; taken by the consumer.
    error: Option<LiveError>,
    /// The consumer is gone.
    closed: bool,
}

/// What both ends and the meters share.
struct Shared {
    ring: Mutex<Ring>,
    arrived: Condvar,
    channels: u16,
    rate: u32,
    /// Level of the last complete 100 ms window, as `f32` bits.
    level_bits: AtomicU32,
    /// Samples per channel pushed in all.
    received: AtomicU64,
    /// Samples per channel dropped because the consumer fell behind.
    dropped: AtomicU64,
    /// NaN or infinite samples replaced by 0.
    non_finite: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends the stream with `error` (nothing if it already ended).
    fn fail(&self, error: LiveError) {
        let mut ring = self.lock();
        if !ring.ended {
            ring.ended = true;
            ring.error = Some(error);
        }
        self.arrived.notify_all();
    }
}

/// A pushed voice: the producer end for the audio callback and the [`VoiceSource`] that
/// analyses what it pushes. `channels` interleaved channels at `rate` Hz; `what` names
/// the stream in errors; the ring holds `capacity` of audio (at least one sample frame,
/// at most [`PushedVoice::MAX_CAPACITY`]), allocated here, once.
///
/// Fails if `channels` is 0 or the rate cannot be resampled (the error names `what`).
pub fn pushed_voice(
    what: &str,
    channels: u16,
    rate: u32,
    capacity: Duration,
    profile: Profile,
) -> Result<(AudioFeed, PushedVoice), LiveError> {
    let pipeline = PcmLipsync::new(what, SampleFormat::F32le, channels, rate, profile)?;
    let ch = usize::from(channels);
    let frames = (capacity.min(PushedVoice::MAX_CAPACITY).as_secs_f64() * f64::from(rate)).ceil();
    // At most 60 s × u32::MAX Hz: fits a usize on 64-bit targets; `as` saturates anyway.
    let samples = (frames as usize).max(1).saturating_mul(ch);
    let shared = Arc::new(Shared {
        ring: Mutex::new(Ring {
            buf: vec![0.0; samples],
            read: 0,
            write: 0,
            ended: false,
            error: None,
            closed: false,
        }),
        arrived: Condvar::new(),
        channels,
        rate,
        level_bits: AtomicU32::new(VoiceMeter::FLOOR_DBFS.to_bits()),
        received: AtomicU64::new(0),
        dropped: AtomicU64::new(0),
        non_finite: AtomicU64::new(0),
    });
    let chunk = (rate as usize / 100).max(1) * ch;
    let window = (rate as usize / 10).max(1) * ch;
    Ok((
        AudioFeed {
            shared: shared.clone(),
            window,
            sum_sq: 0.0,
            in_window: 0,
            partial: 0,
        },
        PushedVoice {
            shared,
            pipeline,
            scratch: Vec::with_capacity(chunk),
            chunk,
            done: false,
        },
    ))
}

/// The producer end, for the audio callback: pushes interleaved samples, never blocks
/// for long (the ring's lock is held only to copy samples in or out) and never
/// allocates. When the ring is full the oldest audio is dropped, whole sample frames at
/// a time, and counted ([`VoiceMeter::dropped_samples`]). Dropping it ends the voice
/// (the consumer reads what is left, then ends).
pub struct AudioFeed {
    shared: Arc<Shared>,
    /// Samples (all channels) in a level window of 100 ms.
    window: usize,
    sum_sq: f64,
    in_window: usize,
    /// Samples of an incomplete sample frame pushed so far (0..channels).
    partial: usize,
}

impl AudioFeed {
    /// Pushes samples in -1..1 (NaN and infinities become 0 and are counted; others are
    /// clamped to -1..1). Returns `false` once the consumer has gone away.
    pub fn push_f32(&mut self, samples: &[f32]) -> bool {
        self.push_with(samples, |x| x)
    }

    /// Pushes signed 16-bit samples (scaled by 1/32768, as [`SampleFormat::S16le`]).
    pub fn push_i16(&mut self, samples: &[i16]) -> bool {
        self.push_with(samples, |x| f32::from(x) / 32768.0)
    }

    /// Pushes unsigned 16-bit samples (32768 is silence).
    pub fn push_u16(&mut self, samples: &[u16]) -> bool {
        self.push_with(samples, |x| (f32::from(x) - 32768.0) / 32768.0)
    }

    /// Pushes samples of any type, converted to -1..1 by `to_f32` (then treated as by
    /// [`AudioFeed::push_f32`]). Interleaved, in stream order; a push may end part-way
    /// through a sample frame (the next push continues it).
    pub fn push_with<T: Copy>(&mut self, samples: &[T], to_f32: impl Fn(T) -> f32) -> bool {
        let shared = &*self.shared;
        let ch = u64::from(shared.channels);
        let mut non_finite = 0u64;
        let mut ring = shared.lock();
        let cap = ring.buf.len() as u64;
        let end = ring.write + samples.len() as u64;
        // Keep the newest `cap` samples, starting on a sample frame.
        let keep_from = end.saturating_sub(cap).div_ceil(ch) * ch;
        let read = ring.read.max(keep_from);
        let dropped = read - ring.read;
        ring.read = read;
        let start = ring.write;
        for (i, &s) in samples.iter().enumerate() {
            let x = to_f32(s);
            let x = if x.is_finite() {
                x.clamp(-1.0, 1.0)
            } else {
                non_finite += 1;
                0.0
            };
            let at = start + i as u64;
            if at >= read {
                ring.buf[(at % cap) as usize] = x;
            }
            self.sum_sq += f64::from(x) * f64::from(x);
            self.in_window += 1;
            if self.in_window == self.window {
                let mean = self.sum_sq / self.window as f64;
                shared
                    .level_bits
                    .store(VoiceMeter::dbfs(mean).to_bits(), Ordering::Relaxed);
                self.sum_sq = 0.0;
                self.in_window = 0;
            }
        }
        ring.write = end;
        let open = !ring.closed;
        drop(ring);
        shared.arrived.notify_one();
        let pushed = self.partial as u64 + samples.len() as u64;
        self.partial = (pushed % ch) as usize;
        shared.received.fetch_add(pushed / ch, Ordering::Relaxed);
        if dropped > 0 {
            shared.dropped.fetch_add(dropped / ch, Ordering::Relaxed);
        }
        if non_finite > 0 {
            shared.non_finite.fetch_add(non_finite, Ordering::Relaxed);
        }
        open
    }

    /// Ends the voice with `error` (a failed device): the consumer reads what was pushed,
    /// then gets the error.
    pub fn fail(self, error: LiveError) {
        self.shared.fail(error);
    }

    /// The level and loss counts.
    pub fn meter(&self) -> VoiceMeter {
        VoiceMeter {
            shared: self.shared.clone(),
        }
    }

    /// A handle that can fail the voice from another callback (a stream's error
    /// callback) without ending it when dropped.
    #[cfg_attr(not(feature = "mic"), allow(dead_code))]
    pub(crate) fn failer(&self) -> FeedFailer {
        FeedFailer {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for AudioFeed {
    fn drop(&mut self) {
        self.shared.lock().ended = true;
        self.shared.arrived.notify_all();
    }
}

/// Fails a feed from elsewhere ([`AudioFeed::failer`]).
#[cfg_attr(not(feature = "mic"), allow(dead_code))]
pub(crate) struct FeedFailer {
    shared: Arc<Shared>,
}

#[cfg_attr(not(feature = "mic"), allow(dead_code))]
impl FeedFailer {
    /// Ends the voice with `error` (nothing if it already ended).
    pub(crate) fn fail(&self, error: LiveError) {
        self.shared.fail(error);
    }
}

/// The consumer end: a [`VoiceSource`] over what the [`AudioFeed`] pushes. Samples are
/// taken 10 ms at a time, mixed down to mono, resampled and analysed by a
/// [`PcmLipsync`]; [`VoiceSource::next_frames`] blocks until a frame is complete or
/// the feed has ended (then it gives the last frames, and the feed's error if it
/// failed). Dropping it makes [`AudioFeed::push_f32`] return `false`.
pub struct PushedVoice {
    shared: Arc<Shared>,
    pipeline: PcmLipsync,
    scratch: Vec<f32>,
    /// Samples taken per step: 10 ms, whole sample frames.
    chunk: usize,
    done: bool,
}

impl PushedVoice {
    /// The most audio the ring holds, whatever capacity is asked for.
    pub const MAX_CAPACITY: Duration = Duration::from_secs(60);

    /// The level and loss counts.
    pub fn meter(&self) -> VoiceMeter {
        VoiceMeter {
            shared: self.shared.clone(),
        }
    }

    /// The pipeline (for its latency).
    pub fn pipeline(&self) -> &PcmLipsync {
        &self.pipeline
    }

    /// Samples per channel the ring holds at most (fixed at construction).
    pub fn capacity_samples(&self) -> usize {
        self.shared.lock().buf.len() / usize::from(self.shared.channels)
    }

    /// Samples per channel waiting in the ring now (never more than
    /// [`PushedVoice::capacity_samples`]).
    pub fn buffered_samples(&self) -> usize {
        let ring = self.shared.lock();
        ((ring.write - ring.read) / u64::from(self.shared.channels)) as usize
    }
}

/// What the consumer found in the ring.
enum Take {
    /// Samples copied into the scratch buffer.
    Samples,
    /// The feed ended (with its error, if it failed).
    End(Option<LiveError>),
}

impl PushedVoice {
    /// Waits for whole sample frames (or the end) and copies up to a chunk of them out.
    fn take(&mut self) -> Take {
        let ch = u64::from(self.shared.channels);
        let mut ring = self.shared.lock();
        loop {
            let whole = (ring.write - ring.read) / ch * ch;
            if whole > 0 {
                let n = whole.min(self.chunk as u64);
                let cap = ring.buf.len() as u64;
                self.scratch.clear();
                for at in ring.read..ring.read + n {
                    self.scratch.push(ring.buf[(at % cap) as usize]);
                }
                ring.read += n;
                return Take::Samples;
            }
            if ring.ended {
                return Take::End(ring.error.take());
            }
            ring = self
                .shared
                .arrived
                .wait(ring)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl VoiceSource for PushedVoice {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        let before = out.len();
        while !self.done {
            match self.take() {
                Take::Samples => {
                    self.pipeline.push_samples(&self.scratch, out);
                    if out.len() > before {
                        return Ok(true);
                    }
                }
                Take::End(error) => {
                    self.done = true;
                    self.pipeline.finish(out);
                    if let Some(e) = error {
                        return Err(e);
                    }
                }
            }
        }
        Ok(false)
    }
}

impl Drop for PushedVoice {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
    }
}

/// Reads a pushed voice's level and counts from any thread (a status line), without
/// taking the ring's lock. Cheap to clone.
#[derive(Clone)]
pub struct VoiceMeter {
    shared: Arc<Shared>,
}

impl VoiceMeter {
    /// The lowest level reported (digital silence, and before 100 ms have arrived).
    pub const FLOOR_DBFS: f32 = -120.0;

    fn dbfs(mean_square: f64) -> f32 {
        if mean_square > 0.0 {
            ((10.0 * mean_square.log10()) as f32).max(Self::FLOOR_DBFS)
        } else {
            Self::FLOOR_DBFS
        }
    }

    /// The RMS level of the last complete 100 ms pushed, over all channels, in dBFS (a
    /// full-scale square wave is 0, a full-scale sine −3), at least
    /// [`VoiceMeter::FLOOR_DBFS`].
    pub fn level_dbfs(&self) -> f32 {
        f32::from_bits(self.shared.level_bits.load(Ordering::Relaxed))
    }

    /// Samples per channel pushed in all.
    pub fn received_samples(&self) -> u64 {
        self.shared.received.load(Ordering::Relaxed)
    }

    /// Samples per channel dropped unread because the consumer fell behind.
    pub fn dropped_samples(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// [`VoiceMeter::dropped_samples`] in seconds.
    pub fn dropped_s(&self) -> f64 {
        self.dropped_samples() as f64 / f64::from(self.shared.rate)
    }

    /// NaN or infinite samples that were replaced by 0.
    pub fn non_finite_samples(&self) -> u64 {
        self.shared.non_finite.load(Ordering::Relaxed)
    }

    /// The channel count of the pushed audio.
    pub fn channels(&self) -> u16 {
        self.shared.channels
    }

    /// The rate of the pushed audio in Hz.
    pub fn rate(&self) -> u32 {
        self.shared.rate
    }
}
