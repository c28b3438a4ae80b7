//! omote in the browser: the embedding API ([`omote_embed`]) for JavaScript.
//!
//! This crate only translates: on `wasm32` the embedding API's [`Character`],
//! [`Speaker`], [`VoiceStream`] and [`analyse_voice`] are exported with wasm-bindgen
//! (`bindings.rs`: JavaScript names, typed arrays, and each error as a JavaScript `Error`
//! naming the call), wrapped by the npm package in `web/` (`web/build.sh` builds it;
//! `web/README.md` has the API and the three-vrm adapter). Every rule and every check is
//! the embedding API's, tested there natively; `tests/node.rs` and `tests/browser.rs` run
//! the built package in Node and in Chromium.
//!
//! [`Character`]: omote_embed::Character
//! [`Speaker`]: omote_embed::Speaker
//! [`VoiceStream`]: omote_embed::VoiceStream
//! [`analyse_voice`]: omote_embed::analyse_voice

#![deny(missing_docs)]

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use omote_embed;
