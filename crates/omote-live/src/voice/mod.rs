//! Voice sources: lip sync frames (A I U E O N weights, volume, silence; 100 per
//! second) as the voice arrives.
//!
//! [`VoiceSource`] is the producer side: [`PcmVoice`] runs raw PCM from any `Read`
//! through [`PcmLipsync`], [`AudioFileVoice`] plays an audio file as if it were a
//! microphone, [`MockVoice`] gives frames from memory. [`PushedVoice`] is the voice an
//! audio callback pushes samples into (through its [`AudioFeed`], over a ring of fixed
//! capacity, with a [`VoiceMeter`] for the level and losses); with the `mic` feature,
//! `MicVoice` is a real microphone through cpal, built on it (`cargo build --release
//! --features mic`; on Linux first `apt-get install -y libasound2-dev pkg-config`). [`ThreadedVoice`] runs any of
//! them on a thread into a bounded [`VoiceBuffer`], where the consumer (a video frame
//! loop) asks for the frame of a given time.

mod audio_file;
mod buffer;
#[cfg(feature = "mic")]
mod mic;
mod mock;
mod pcm;
mod pushed;
mod threaded;

pub use audio_file::AudioFileVoice;
pub use buffer::{Overflow, VoiceBuffer, VoiceFeed, voice_buffer};
#[cfg(feature = "mic")]
pub use mic::{MicVoice, input_device_names};
pub use mock::MockVoice;
pub use pcm::{PcmLipsync, PcmVoice, SampleFormat, open_pcm_input};
pub use pushed::{AudioFeed, PushedVoice, VoiceMeter, pushed_voice};
pub use threaded::ThreadedVoice;

use omote_lipsync::VowelFrame;

use crate::LiveError;

/// Lip sync frames per second (one per 10 ms of voice).
pub const VOICE_FPS: f64 = omote_lipsync::FRAME_RATE as f64;

/// The index of the lip sync frame that covers time `t_s` (frame *k* covers
/// `[k, k + 1) / 100` s); 0 for negative or non-finite times.
pub fn voice_frame_index(t_s: f64) -> u64 {
    if t_s.is_finite() && t_s > 0.0 {
        (t_s * VOICE_FPS) as u64
    } else {
        0
    }
}

/// A voice, analysed as it arrives.
pub trait VoiceSource {
    /// Appends the next lip sync frames to `out`, blocking until at least one exists
    /// or the voice ends. Returns `false` at the end (`out` may still have received the
    /// last frames); after that, further calls append nothing and return `false`.
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError>;
}

impl<V: VoiceSource + ?Sized> VoiceSource for &mut V {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        (**self).next_frames(out)
    }
}

impl<V: VoiceSource + ?Sized> VoiceSource for Box<V> {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        (**self).next_frames(out)
    }
}
