//! The I/O side of omote's live and streaming commands (`omote live`, `lipsync live`,
//! `vmc send`, `vmc listen`), behind small traits with in-memory mocks, so the commands
//! stay thin and their logic can be tested in-process. Threads and sockets live here
//! (std threads and `std::net`; no async runtime); the per-frame face logic stays in
//! `omote-core`.
//!
//! * **Frame sources** ([`FrameSource`] → [`Frame`]): [`RawFrames`] (raw RGB from any
//!   `Read`), [`ThreadedFrames`] (a reader thread with a [`LatePolicy`]),
//!   [`TrackedFrames`] (the face tracker over images), [`ReplayFrames`] (frames in
//!   memory: tracking results, a mock camera).
//! * **Voice sources** ([`VoiceSource`] → `VowelFrame`s): [`PcmVoice`] over
//!   [`PcmLipsync`] (raw PCM → lip sync), [`AudioFileVoice`] (a file played as if live),
//!   [`MockVoice`], [`PushedVoice`] (samples pushed by an audio callback through an
//!   [`AudioFeed`], over a fixed ring; level and losses on a [`VoiceMeter`]) and, with
//!   the `mic` feature, `MicVoice` (a real microphone through cpal, on a
//!   [`PushedVoice`]); [`ThreadedVoice`] runs one on a thread into a bounded
//!   [`VoiceBuffer`] that the video loop asks for the frame of its time.
//!
//! The `mic` feature is off by default: cpal links ALSA on Linux. Build it with
//! `apt-get install -y libasound2-dev pkg-config`, then `cargo build --release --features
//! mic` (the CLI forwards the feature: `omote-cli/mic`).
//! * **Face sinks** ([`FaceSink`] ← `&FaceState` + time): [`VmcSink`] (VMC over UDP),
//!   [`AnimSink`] (an anim recording), [`MockSink`].
//! * **VMC listener** ([`VmcListener`]): the UDP end of a marionette, feeding a
//!   [`omote_vmc::VmcReceiver`] and optionally a [`omote_vmc::VmcRecorder`].
//! * [`Pacer`]: steps on the wall clock (real-time playback).
//! * **Live sessions** (`omote live`): tracking inputs on their own threads —
//!   [`CameraInput`] (ffmpeg + the tracker), [`ReplayInput`] (a recorded sequence),
//!   [`VmcInput`] (a performer's perfect sync) — publish into a [`TrackingInbox`];
//!   [`LiveSession`] updates the face on each new result and on a steady tick, and sends
//!   it to the sinks ([`VmcSink`] at its rate, [`ViewSink`] to the live page, an
//!   [`AnimSink`] sampled by time).
//!
//! The live loop over mocks — replayed tracking frames in on their own time, faces
//! collected (`omote live` runs the same loop on the wall clock):
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use omote_core::{FaceConfig, FaceDriver, RetargetConfig, Rig, TrackedFace};
//! use omote_live::{
//!     LatePolicy, LiveSession, MockSink, ReplayFrames, SourceClock, ThreadedFrames,
//!     TrackingInbox,
//! };
//!
//! let rig = Arc::new(Rig::standard());
//! let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
//!     .with_tracking(RetargetConfig::default())
//!     .unwrap();
//! let camera = ReplayFrames::at_fps(vec![Some(TrackedFace::default()); 5], 30.0);
//! // Frames from a reader thread (or a tracked webcam), each published at its time.
//! let frames = ThreadedFrames::spawn(camera, LatePolicy::KeepAll, "replay");
//! let inbox = TrackingInbox::new(Duration::from_millis(500));
//! let mut clock = SourceClock::new(frames, &inbox, "replay", 30.0);
//! let mut sink = MockSink::new();
//! let stats = LiveSession::new(1.0)
//!     .end_with_inputs(true)
//!     .run_with_clock(&mut clock, &mut driver, &inbox, None, &mut sink, |_| {})?;
//! assert_eq!((stats.frames_out, stats.with_face), (5, 5));
//! assert_eq!(sink.frames.len(), 5);
//! # Ok::<(), omote_live::LiveError>(())
//! ```

#![deny(missing_docs)]

mod error;
mod frames;
mod pace;
mod session;
mod sinks;
mod tracking;
mod vmc_listener;
mod voice;

pub use error::LiveError;
pub use frames::{
    Frame, FrameSize, FrameSource, LatePolicy, RawFrames, ReplayFrames, ThreadedFrames,
    TrackedFrames,
};
pub use omote_vmc::BlendNames;
pub use pace::Pacer;
pub use session::{
    LatencyStats, LiveSession, LiveStatus, SessionClock, SessionStats, SourceClock, WallClock,
};
pub use sinks::{AnimSink, FaceSink, MockSink, SinkFrame, ViewFrameWriter, ViewSink, VmcSink};
pub use tracking::{
    CameraInput, CameraOptions, CameraSource, CurrentTracking, InputState, InputStats, ReplayInput,
    TrackingInbox, TrackingSender, TrackingTap, TrackingTimes, VmcInput, ffmpeg_args,
    platform_input_format,
};
pub use vmc_listener::{ListenLimits, ListenStats, Packet, VmcListener};
pub use voice::{
    AudioFeed, AudioFileVoice, MockVoice, Overflow, PcmLipsync, PcmVoice, PushedVoice,
    SampleFormat, ThreadedVoice, VOICE_FPS, VoiceBuffer, VoiceFeed, VoiceMeter, VoiceSource,
    open_pcm_input, pushed_voice, voice_buffer, voice_frame_index,
};
#[cfg(feature = "mic")]
pub use voice::{MicVoice, input_device_names};
