//! Mixing: layers (values, masks, weights, fades), the mixer that stacks them, and the
//! VRM 1.0 override pass that runs once on the mixed result.

pub(crate) mod layer;
pub(crate) mod overrides;

pub use layer::{BlendMode, Layer, LayerId, Mixer};
pub use overrides::OverrideMultipliers;
