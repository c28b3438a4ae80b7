//! Lip sync analysis for omote: mono audio at 16 kHz in, one [`VowelFrame`] per 10 ms out —
//! weights for the mouth classes A I U E O and N (closed / consonant), a volume, and
//! silent/voiced — plus the clip's voiced span.
//!
//! Pure DSP: no I/O, no threads, no clocks. Decode and resample with `omote-audio`.
//!
//! * [`Analyser`] — offline: centred 25 ms windows, clip-adaptive silence detection,
//!   cepstral mean normalisation over the clip, smoothing in both directions, leads
//!   shorter than 40 ms removed (mouth flicker), one vowel from each syllable's peak to
//!   its end where the frames' reading is close ([`NucleusVote`]), and a fading voice
//!   keeps its vowel ([`DecayHold`], streamed too).
//! * [`StreamAnalyser`] — live: chunks of any size in, frames out 22.5 ms after their
//!   centre (half a window and one frame held back for the flicker filter), the vote's
//!   causal form once a vowel falls ([`StreamNucleusVote`]), no allocation per frame.
//! * [`Profile`] — per-class cepstral profiles; [`Profile::builtin`] works on unseen
//!   voices, [`Profile::calibrated`] adapts it to one speaker from labelled speech,
//!   [`Profile::calibrated_from_sustained`] from held vowels ([`SustainedRecordings`]).
//!
//! [`eval`] scores the analyser on a labelled data set (what `omote lipsync eval` runs),
//! also under recording conditions made by [`degrade`] (quiet, noisy, hum, telephone);
//! [`score`] is its metric. Features and classifier are explained in this crate's
//! `README.md`.
//!
//! ```
//! use omote_lipsync::{Analyser, Profile, SAMPLE_RATE};
//! let samples = vec![0.0f32; SAMPLE_RATE as usize]; // one second of silence
//! let track = Analyser::new(Profile::builtin()).analyse(&samples);
//! assert_eq!(track.frames.len(), 100);
//! assert!(track.frames.iter().all(|f| f.silent) && track.voiced_span.is_none());
//! ```

#![deny(missing_docs)]
// DSP loops index several fixed-size arrays in parallel; index form reads clearest.
#![allow(clippy::needless_range_loop)]

mod analyser;
mod cepstral_mean;
mod class_filter;
mod class_smoother;
mod context_net;
mod core_inputs;
mod decay_hold;
pub mod degrade;
mod error;
pub mod eval;
pub mod export;
mod features;
mod fixed_arrays;
mod frame;
pub mod labels;
mod noise_floor;
mod nucleus_vote;
mod power_spectrum;
mod profile;
pub mod score;
mod scorer;
mod speaker;
mod spectral_change;
mod stream;
mod stream_mean;
mod sustained;
pub mod syllables;
mod voicing;

pub use analyser::{
    Analyser, AnalyserConfig, CMN_OFFLINE_PRIOR_FRAMES, ClipFeatures, SPEAKER_PRIOR_FRAMES,
    frame_count,
};
pub use cepstral_mean::{CepstralMean, NotASum};
pub use class_filter::{ClassFilter, SOFTENING_WIDTH};
pub use class_smoother::ClassSmoother;
pub use context_net::{ContextNet, NetOptions, NetSequence};
pub use decay_hold::{DECAY_WINDOW, DecayHold};
pub use error::LipsyncError;
pub use features::{
    FLOOR_DB, FRAME_RATE, FeatureExtractor, FrameFeatures, FrameLevel, HOP, MEL_F_MAX_HZ,
    MEL_F_MIN_HZ, N_CEPS, N_MEL, SAMPLE_RATE, VOICE_BAND_LOW_HZ, WINDOW,
};
pub use frame::{FrameInterpolator, Viseme, VoicedSpan, VowelFrame, VowelTrack};
pub use noise_floor::NoiseFloorConfig;
pub use nucleus_vote::{NucleusVote, StreamNucleusVote};
pub use profile::{
    DEFAULT_MIN_PHONE_FRAMES, DEFAULT_REAL_SHARES, MAX_BIAS, MAX_MEAN, MAX_PRECISION,
    MAX_REAL_SHARE, MAX_SUBCLASSES, MIN_REAL_FRAMES, NET_REAL_WEIGHT, PROFILE_FORMAT,
    PROFILE_FORMAT_V1, Profile, ProfileBuilder, REAL_VOICE_PHONE, SHARPNESS_RANGE, STORED_DIGITS,
    Subclass, stored_digits,
};
pub use scorer::ClassScorer;
pub use speaker::{Speaker, VOICE_SEED_LEN, VoiceSeedError};
pub use spectral_change::{SpectralChange, TYPICAL_CHANGE_START};
pub use stream::StreamAnalyser;
pub use stream_mean::{
    CMN_FRAMES, CMN_PRIOR_FRAMES, StreamCepstralMean, UTTERANCE_GAP_FRAMES, VOICE_MEMORY_FRAMES,
};
pub use sustained::SustainedRecordings;
pub use voicing::{StreamVoicing, Voicing, VoicingConfig};
