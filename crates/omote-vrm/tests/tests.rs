//! Integration tests of omote-vrm (one binary; modules in `it/`).

#[path = "it/errors.rs"]
mod errors;
#[path = "it/eye_closure.rs"]
mod eye_closure;
#[path = "it/samples.rs"]
mod samples;
#[path = "it/three_vrm.rs"]
mod three_vrm;
