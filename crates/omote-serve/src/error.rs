//! The crate's errors: starting a server, and reading a client's WebSocket frames.

use std::net::SocketAddr;

use crate::frame::MAX_CLIENT_FRAME;

/// Starting a server failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound (in use, not ours, no permission).
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The bound socket could not tell its address.
    #[error("cannot read the bound address")]
    LocalAddr(#[source] std::io::Error),
    /// The accept thread of [`crate::Server::spawn`] could not be started.
    #[error("cannot start the server thread")]
    Spawn(#[source] std::io::Error),
}

/// A client's WebSocket frames broke the protocol, hit a limit, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The connection ended cleanly between two frames.
    #[error("the client closed the connection")]
    Eof,
    /// Reading failed, or the connection ended inside a frame.
    #[error("reading a frame failed")]
    Io(#[from] std::io::Error),
    /// A client frame without a mask (RFC 6455 §5.1: clients must mask).
    #[error("a client frame is not masked")]
    Unmasked,
    /// RSV bits set: no extension was negotiated.
    #[error("reserved bits set in a frame")]
    Reserved,
    /// An opcode RFC 6455 does not define.
    #[error("unknown opcode {0:#x}")]
    Opcode(u8),
    /// A control frame that is fragmented or longer than 125 bytes.
    #[error("a control frame is fragmented or longer than 125 bytes")]
    Control,
    /// A length not in its shortest form, or with the top bit set.
    #[error("a frame length is not minimally encoded")]
    Length,
    /// A data frame longer than [`MAX_CLIENT_FRAME`].
    #[error("a frame of {0} bytes is over the limit of {MAX_CLIENT_FRAME} bytes")]
    TooLarge(u64),
    /// A continuation outside a message, or a new message inside a fragmented one.
    #[error("frames of a fragmented message out of order")]
    Fragmentation,
    /// A close frame with a 1-byte payload or a status code that may not be sent.
    #[error("a close frame with a bad status code")]
    CloseCode,
    /// A close reason that is not UTF-8.
    #[error("a close reason is not UTF-8")]
    Utf8,
}

impl FrameError {
    /// The status code to close with (RFC 6455 §7.4.1); `None` when the connection is
    /// already gone and no close frame can be sent.
    pub fn close_code(&self) -> Option<u16> {
        match self {
            FrameError::Eof | FrameError::Io(_) => None,
            FrameError::TooLarge(_) => Some(1009),
            FrameError::Utf8 => Some(1007),
            _ => Some(1002),
        }
    }
}
