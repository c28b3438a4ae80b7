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
}
