//! omote in the browser: the face driver and the lip sync analyser for JavaScript.
//!
//! The Rust API here is plain ([`analyse_voice`], [`WebSpeaker`], [`WebFace`], [`WebLiveVoice`]) and tested natively; on
//! `wasm32` the same calls are exported with wasm-bindgen (`bindings.rs`) and wrapped by
//! the npm package in `web/` (`web/build.sh` builds it; `web/README.md` has the API and
//! the three-vrm adapter). Bad arguments are errors with a message (a JavaScript
//! `Error`), never a trap or a NaN weight.

#![deny(missing_docs)]

mod analysis;
#[cfg(target_arch = "wasm32")]
mod bindings;
mod error;
mod face;
mod live;
mod speaker;

pub use analysis::{VoiceAnalysis, analyse_voice};
pub use error::WebError;
pub use face::WebFace;
pub use live::{LIVE_STRIDE, WebLiveVoice};
pub use speaker::{VOICE_SEED_LEN, WebSpeaker};
