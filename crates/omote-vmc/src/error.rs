//! Errors of the VMC/OSC decoder.

/// A packet that is not valid OSC, or a VMC message with the wrong arguments.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum VmcError {
    /// The bytes are not a valid OSC packet.
    #[error("malformed OSC packet at byte {offset}: {reason}")]
    Malformed {
        /// Byte offset in the packet where decoding failed.
        offset: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A known VMC address with arguments of the wrong number or types.
    #[error("{address}: expected arguments {expected}, got {got}")]
    BadArguments {
        /// The OSC address, e.g. `/VMC/Ext/Blend/Val`.
        address: String,
        /// The expected OSC type tags, e.g. `sf`.
        expected: &'static str,
        /// The type tags received.
        got: String,
    },
    /// A bone message whose values are not a position and a rotation: a non-finite
    /// number, or a quaternion that cannot be normalised (all zero). The bone is not
    /// updated.
    #[error("{address} {bone}: {problem}")]
    BadBone {
        /// The OSC address (`/VMC/Ext/Bone/Pos`, `/VMC/Ext/Root/Pos`).
        address: String,
        /// The bone name as received.
        bone: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// A new blend shape or bone name beyond the receiver's cap (a sender inventing
    /// names would otherwise grow its state without end); the value is not kept.
    #[error("{address}: more than {limit} different names; `{name}` ignored")]
    TooManyNames {
        /// The OSC address.
        address: String,
        /// The name refused.
        name: String,
        /// The cap ([`VmcReceiver::MAX_NAMES`](crate::VmcReceiver::MAX_NAMES)).
        limit: usize,
    },
}
