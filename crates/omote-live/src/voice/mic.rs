//! [`MicVoice`]: a real microphone through [cpal](https://docs.rs/cpal) (the `mic`
//! feature).
//!
//! Off by default, because on Linux cpal links ALSA: install its headers first, then
//! build with the feature —
//!
//! ```text
//! apt-get install -y libasound2-dev pkg-config
//! cargo build --release --features mic
//! ```
//!
//! A thread of its own opens the device and keeps the cpal stream (which may not move
//! between threads on some platforms) until the voice is dropped; the stream's callback
//! pushes into an [`AudioFeed`], and the voice reads the other end, a [`PushedVoice`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SizedSample, SupportedStreamConfig};
use omote_lipsync::{Profile, VowelFrame};

use super::{AudioFeed, PushedVoice, VoiceMeter, VoiceSource, pushed_voice};
use crate::LiveError;

/// Rates the analysis works from without much resampling cost: a device offering one
/// of them is preferred.
const GOOD_RATES: std::ops::RangeInclusive<u32> = 16_000..=48_000;

/// A microphone analysed as it speaks: a [`VoiceSource`] (give it to
/// [`ThreadedVoice::spawn`](super::ThreadedVoice::spawn) with
/// [`Overflow::DropOldest`](super::Overflow::DropOldest)), with a [`VoiceMeter`] for a
/// status line. Dropping it closes the device.
pub struct MicVoice {
    voice: PushedVoice,
    device: String,
    format: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// What the device thread reports once the stream runs.
struct Opened {
    voice: PushedVoice,
    device: String,
    format: String,
}

impl MicVoice {
    /// Audio the hand-over ring holds before the oldest is dropped: 2 s, far more than
    /// an analysis thread needs to keep up.
    pub const CAPACITY: Duration = Duration::from_secs(2);

    /// Opens the default input device (`None`) or the first input device whose name or
    /// id contains `device` (ignoring case; see [`input_device_names`]), picks its input format (mono, 16–48 kHz and
    /// `f32` preferred, else what it offers) and starts capturing.
    ///
    /// Errors: no input device at all ([`LiveError::NoInputDevice`], listing the
    /// devices there are; ALSA's `null` device, which captures silence, does not count),
    /// a default device that cannot capture ([`LiveError::Mic`], listing the inputs), no
    /// device matching ([`LiveError::MicNotFound`], listing the
    /// input devices), no format omote reads ([`LiveError::MicFormat`]), a stream that
    /// cannot be opened or started ([`LiveError::Mic`]). A stream that fails later ends
    /// the voice with [`LiveError::Mic`] from [`VoiceSource::next_frames`].
    pub fn open(device: Option<&str>, profile: Profile) -> Result<Self, LiveError> {
        let wanted = device.map(str::to_owned);
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_seen = stop.clone();
        let thread = std::thread::Builder::new()
            .name("omote-mic".into())
            .spawn(move || match start(wanted.as_deref(), profile) {
                Ok((stream, opened)) => {
                    if tx.send(Ok(opened)).is_err() {
                        return;
                    }
                    while !stop_seen.load(Ordering::Acquire) {
                        std::thread::park();
                    }
                    drop(stream);
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            })
            .map_err(|e| LiveError::Mic {
                device: device.unwrap_or("default").to_owned(),
                problem: format!("cannot start its thread: {e}"),
            })?;
        match rx.recv() {
            Ok(Ok(opened)) => Ok(Self {
                voice: opened.voice,
                device: opened.device,
                format: opened.format,
                stop,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(LiveError::ReaderPanicked {
                    what: format!("microphone {}", device.unwrap_or("default")),
                })
            }
        }
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.device
    }

    /// The format captured, e.g. `1 ch, 48000 Hz, f32`.
    pub fn format(&self) -> &str {
        &self.format
    }

    /// The level and loss counts (clone it before handing the voice to a thread).
    pub fn meter(&self) -> VoiceMeter {
        self.voice.meter()
    }

    /// Algorithmic latency in seconds (the lip sync pipeline's; the device's own
    /// buffering comes on top).
    pub fn latency_s(&self) -> f64 {
        self.voice.pipeline().latency_s()
    }
}

impl VoiceSource for MicVoice {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        self.voice.next_frames(out)
    }
}

impl Drop for MicVoice {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// The input devices of the default audio host, as `name [id]` (either part is what
/// [`MicVoice::open`] matches).
pub fn input_device_names() -> Result<Vec<String>, LiveError> {
    let host = cpal::default_host();
    Ok(inputs_of(&host, host.id().name())?
        .iter()
        .map(Named::label)
        .collect())
}

/// A device with what the errors and the matching need.
struct Named {
    device: cpal::Device,
    /// The host's name for it (ALSA: the first line of its description).
    name: String,
    /// The host's id for it (ALSA: the PCM name, `hw:CARD=…`, `default`, `null`).
    id: String,
}

impl Named {
    fn new(device: cpal::Device) -> Self {
        let id = device
            .id()
            .map_or_else(|_| String::new(), |id| id.id().to_owned());
        let name = match device.description() {
            Ok(d) => d.name().to_owned(),
            Err(_) if !id.is_empty() => id.clone(),
            Err(_) => "(unnamed)".to_owned(),
        };
        Self { device, name, id }
    }

    /// `name [id]` (just the name if they are the same).
    fn label(&self) -> String {
        if self.id.is_empty() || self.id == self.name {
            self.name.clone()
        } else {
            format!("{} [{}]", self.name, self.id)
        }
    }

    /// Whether `needle` (lower case) is in its name or id, ignoring case.
    fn matches(&self, needle: &str) -> bool {
        self.name.to_lowercase().contains(needle) || self.id.to_lowercase().contains(needle)
    }

    /// ALSA's `null` device: it "captures" silence, so it is no microphone (it is still
    /// opened when asked for by name).
    fn is_silence(&self) -> bool {
        self.id == "null"
    }
}

/// Whether a device can capture (it lists at least one input format).
fn can_capture(device: &cpal::Device) -> bool {
    device
        .supported_input_configs()
        .is_ok_and(|mut c| c.next().is_some())
}

/// The host's input devices.
fn inputs_of(host: &cpal::Host, asked: &str) -> Result<Vec<Named>, LiveError> {
    let devices = host.input_devices().map_err(|e| LiveError::Mic {
        device: asked.to_owned(),
        problem: format!("cannot list the input devices of {}: {e}", host.id().name()),
    })?;
    Ok(devices.map(Named::new).collect())
}

/// The error for a machine with no input device: names every device there is.
fn no_input(host: &cpal::Host) -> LiveError {
    let devices = host
        .devices()
        .map(|all| {
            all.map(|d| {
                let named = Named::new(d);
                let what = match (
                    named.device.supports_input(),
                    named.device.supports_output(),
                ) {
                    _ if named.is_silence() => "silence only",
                    (true, true) => "input and output",
                    (true, false) => "input",
                    (false, true) => "output only",
                    (false, false) => "neither input nor output",
                };
                format!("{} ({what})", named.label())
            })
            .collect()
        })
        .unwrap_or_default();
    LiveError::NoInputDevice {
        host: host.id().name().to_owned(),
        devices,
    }
}

/// The device asked for: the default input (`None`) or the first input device whose
/// name or id contains `wanted`, ignoring case.
fn find_device(host: &cpal::Host, wanted: Option<&str>) -> Result<Named, LiveError> {
    match wanted {
        None => {
            if let Some(device) = host.default_input_device().filter(can_capture) {
                return Ok(Named::new(device));
            }
            let inputs = inputs_of(host, "default")?;
            let real: Vec<String> = inputs
                .iter()
                .filter(|d| !d.is_silence())
                .map(Named::label)
                .collect();
            if real.is_empty() {
                return Err(no_input(host));
            }
            Err(LiveError::Mic {
                device: "default".to_owned(),
                problem: format!(
                    "the default input device cannot capture; pick one of the input devices by name: {}",
                    real.join(", ")
                ),
            })
        }
        Some(text) => {
            let inputs = inputs_of(host, text)?;
            let needle = text.to_lowercase();
            let has_real = inputs.iter().any(|d| !d.is_silence());
            match inputs.iter().position(|d| d.matches(&needle)) {
                Some(i) => Ok(inputs.into_iter().nth(i).ok_or_else(|| no_input(host))?),
                None if !has_real => Err(no_input(host)),
                None => Err(LiveError::MicNotFound {
                    wanted: text.to_owned(),
                    inputs: inputs.iter().map(Named::label).collect(),
                }),
            }
        }
    }
}

/// On the device thread: finds the device, picks a format, builds and starts the stream.
fn start(wanted: Option<&str>, profile: Profile) -> Result<(cpal::Stream, Opened), LiveError> {
    let host = cpal::default_host();
    let Named { device, name, .. } = find_device(&host, wanted)?;
    let config = pick_config(&device, &name)?;
    let channels = config.channels();
    let rate = config.sample_rate();
    let format = format!("{channels} ch, {rate} Hz, {}", config.sample_format());
    let (feed, voice) = pushed_voice(&name, channels, rate, MicVoice::CAPACITY, profile)?;
    let stream_config = config.config();
    let built = match config.sample_format() {
        cpal::SampleFormat::F32 => build::<f32>(&device, stream_config, feed, &name),
        cpal::SampleFormat::F64 => build::<f64>(&device, stream_config, feed, &name),
        cpal::SampleFormat::I8 => build::<i8>(&device, stream_config, feed, &name),
        cpal::SampleFormat::I16 => build::<i16>(&device, stream_config, feed, &name),
        cpal::SampleFormat::I24 => build::<cpal::I24>(&device, stream_config, feed, &name),
        cpal::SampleFormat::I32 => build::<i32>(&device, stream_config, feed, &name),
        cpal::SampleFormat::U8 => build::<u8>(&device, stream_config, feed, &name),
        cpal::SampleFormat::U16 => build::<u16>(&device, stream_config, feed, &name),
        cpal::SampleFormat::U24 => build::<cpal::U24>(&device, stream_config, feed, &name),
        cpal::SampleFormat::U32 => build::<u32>(&device, stream_config, feed, &name),
        other => {
            return Err(LiveError::MicFormat {
                device: name,
                offered: vec![other.to_string()],
            });
        }
    };
    let stream = built.map_err(|e| LiveError::Mic {
        device: name.clone(),
        problem: format!("cannot open the input stream ({format}): {e}"),
    })?;
    stream.play().map_err(|e| LiveError::Mic {
        device: name.clone(),
        problem: format!("cannot start the input stream: {e}"),
    })?;
    Ok((
        stream,
        Opened {
            voice,
            device: name,
            format,
        },
    ))
}

/// Whether omote converts this sample format (everything but 64-bit integers and DSD).
fn readable(format: cpal::SampleFormat) -> bool {
    use cpal::SampleFormat as F;
    matches!(
        format,
        F::F32 | F::F64 | F::I8 | F::I16 | F::I24 | F::I32 | F::U8 | F::U16 | F::U24 | F::U32
    )
}

/// The device's best input format for lip sync: a readable sample format; then a rate
/// in 16–48 kHz (48 kHz if offered, else the highest there), then mono, then `f32`,
/// then fewer channels. Falls back to the device's default input format if it lists
/// none.
fn pick_config(device: &cpal::Device, name: &str) -> Result<SupportedStreamConfig, LiveError> {
    let ranges: Vec<_> = device
        .supported_input_configs()
        .map_err(|e| LiveError::Mic {
            device: name.to_owned(),
            problem: format!("cannot read its input formats: {e}"),
        })?
        .collect();
    let best = ranges
        .iter()
        .filter(|r| readable(r.sample_format()))
        .filter_map(|r| {
            let (lo, hi) = (r.min_sample_rate(), r.max_sample_rate());
            let good = hi >= *GOOD_RATES.start() && lo <= *GOOD_RATES.end();
            let rate = if good {
                hi.min(*GOOD_RATES.end())
            } else if hi < *GOOD_RATES.start() {
                hi
            } else {
                lo
            };
            let rank = (
                good,
                r.channels() == 1,
                r.sample_format() == cpal::SampleFormat::F32,
                std::cmp::Reverse(r.channels()),
            );
            Some((rank, r.try_with_sample_rate(rate)?))
        })
        .max_by_key(|(rank, _)| *rank)
        .map(|(_, c)| c);
    match best {
        Some(c) => Ok(c),
        None if ranges.is_empty() => device.default_input_config().map_err(|e| LiveError::Mic {
            device: name.to_owned(),
            problem: format!("offers no input format: {e}"),
        }),
        None => Err(LiveError::MicFormat {
            device: name.to_owned(),
            offered: ranges
                .iter()
                .map(|r| {
                    format!(
                        "{} ch {}–{} Hz {}",
                        r.channels(),
                        r.min_sample_rate(),
                        r.max_sample_rate(),
                        r.sample_format()
                    )
                })
                .collect(),
        }),
    }
}

/// Builds the input stream: samples of type `T` into `feed`; a fatal stream error ends
/// the voice with [`LiveError::Mic`] (overruns and route changes only lose audio).
fn build<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    mut feed: AudioFeed,
    name: &str,
) -> Result<cpal::Stream, cpal::Error>
where
    T: SizedSample + Send + 'static,
    f32: FromSample<T>,
{
    let failer = feed.failer();
    let name = name.to_owned();
    device.build_input_stream::<T, _, _>(
        config,
        move |data: &[T], _: &cpal::InputCallbackInfo| {
            feed.push_with(data, |s| s.to_sample::<f32>());
        },
        move |e: cpal::Error| {
            use cpal::ErrorKind as K;
            if !matches!(e.kind(), K::Xrun | K::DeviceChanged | K::RealtimeDenied) {
                failer.fail(LiveError::Mic {
                    device: name.clone(),
                    problem: format!("the input stream failed: {e}"),
                });
            }
        },
        None,
    )
}
