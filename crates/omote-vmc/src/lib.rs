//! The [VMC protocol](https://protocol.vmc.info/) for omote: the OSC-over-UDP messages
//! that VTuber tools (VSeeFace, VMagicMirror, Warudo, EVMC4U …) exchange to drive an
//! avatar. omote sends as a *performer* (blend shape values, head and eye bones) and can
//! listen as a *marionette*.
//!
//! Codec only — no sockets, threads or clocks; `omote-live` owns the UDP socket.
//!
//! * [`osc`] — the OSC 1.0 subset VMC uses: [`osc::OscWriter`], [`osc::parse_packet`].
//! * [`VmcFrameWriter`] — one face frame → bundles of at most [`MAX_PACKET_BYTES`] (one
//!   Ethernet frame each), allocation-free once warm.
//! * [`VmcReceiver`] — decoded messages → the latest blend values and bones; what it
//!   cannot use it skips and reports ([`ApplyReport`]), the rest it applies.
//! * [`tracked_face`] — a performer's ARKit-52 "perfect sync" values and `Head` bone as
//!   the core's tracking input (`omote live --vmc-in`).
//! * [`VmcRecorder`] — a receiver's state sampled into an anim, bounded against clock jumps.
//! * [`BlendNames`] — VRM 0.x clip names (`Joy`) or VRM 1.0 names (`happy`) on the wire.
//! * [`BlendWeights`] — the weights after the VRM 1.0 override rules (VRM 0.x receivers)
//!   or before them (VRM 1.0 receivers apply the rules themselves).
//! * [`coords`] — glTF ↔ Unity axes (VMC values are Unity's).

#![deny(missing_docs)]

pub mod coords;
mod error;
mod names;
pub mod osc;
mod perfect_sync;
mod receiver;
mod recorder;
mod sender;

pub use error::VmcError;
pub use names::{BlendNames, BlendWeights, channel_from_wire};
pub use perfect_sync::tracked_face;
pub use receiver::{ApplyReport, VmcReceiver};
pub use recorder::VmcRecorder;
pub use sender::{BonePose, BoneRest, MAX_PACKET_BYTES, VmcFrameWriter};

/// The port VMC marionettes listen on by default.
pub const DEFAULT_PORT: u16 = 39539;
