//! WebSocket frames (RFC 6455 §5): the server's unmasked frames, and a reader of a
//! client's masked frames that allocates nothing for data it ignores.

use std::io::Read;

use crate::FrameError;

/// Opcode of a continuation frame.
pub const CONTINUATION: u8 = 0x0;
/// Opcode of a text frame.
pub const TEXT: u8 = 0x1;
/// Opcode of a binary frame.
pub const BINARY: u8 = 0x2;
/// Opcode of a close frame.
pub const CLOSE: u8 = 0x8;
/// Opcode of a ping frame.
pub const PING: u8 = 0x9;
/// Opcode of a pong frame.
pub const PONG: u8 = 0xA;

/// Longest data frame a client may send (bytes); longer ends it with 1009.
pub const MAX_CLIENT_FRAME: usize = 64 * 1024;
/// Longest control frame payload (RFC 6455 §5.5).
pub const MAX_CONTROL: usize = 125;

/// Append a final, unmasked frame header for a payload of `len` bytes: the length in
/// 7, 16 or 64 bits, whichever is shortest.
pub fn encode_header(opcode: u8, len: usize, out: &mut Vec<u8>) {
    out.push(0x80 | (opcode & 0x0F));
    match len {
        0..=125 => out.push(len as u8),
        126..=0xFFFF => {
            out.push(126);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            out.push(127);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
}

/// Append a final, unmasked frame (a server's frame).
pub fn encode_frame(opcode: u8, payload: &[u8], out: &mut Vec<u8>) {
    encode_header(opcode, payload.len(), out);
    out.extend_from_slice(payload);
}

/// Append a close frame with this status code (`None`: no payload).
pub fn encode_close(code: Option<u16>, out: &mut Vec<u8>) {
    match code {
        Some(code) => encode_frame(CLOSE, &code.to_be_bytes(), out),
        None => encode_frame(CLOSE, &[], out),
    }
}

/// What a client's frame asks of the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientEvent {
    /// A ping: answer with a pong carrying this payload (≤ 125 bytes).
    Ping(Vec<u8>),
    /// A pong: nothing to do.
    Pong,
    /// A close, with its status code if it had one: send a close back and end.
    Close(Option<u16>),
    /// A text, binary or continuation frame, read and discarded (the server only
    /// sends).
    Data,
}

/// Reads a client's frames one at a time, checking the protocol and the limits.
#[derive(Debug)]
pub struct ClientReader<R> {
    inner: R,
    /// Inside a fragmented data message (its first frame had no FIN).
    in_message: bool,
}

impl<R: Read> ClientReader<R> {
    /// Read frames from `inner` (buffer it: headers are read a few bytes at a time).
    pub fn new(inner: R) -> ClientReader<R> {
        ClientReader {
            inner,
            in_message: false,
        }
    }

    /// The next frame. After an error the stream is out of step: end the client (with
    /// [`FrameError::close_code`]).
    pub fn next_event(&mut self) -> Result<ClientEvent, FrameError> {
        let mut head = [0u8; 2];
        loop {
            match self.inner.read(&mut head[..1]) {
                Ok(0) => return Err(FrameError::Eof),
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.inner.read_exact(&mut head[1..])?;
        let fin = head[0] & 0x80 != 0;
        let opcode = head[0] & 0x0F;
        if head[0] & 0x70 != 0 {
            return Err(FrameError::Reserved);
        }
        if head[1] & 0x80 == 0 {
            return Err(FrameError::Unmasked);
        }
        let len = self.read_len(head[1] & 0x7F)?;
        let mut mask = [0u8; 4];
        self.inner.read_exact(&mut mask)?;

        if opcode & 0x8 != 0 {
            if !fin || len > MAX_CONTROL as u64 {
                return Err(FrameError::Control);
            }
            let mut payload = [0u8; MAX_CONTROL];
            let payload = &mut payload[..len as usize];
            self.inner.read_exact(payload)?;
            for (i, b) in payload.iter_mut().enumerate() {
                *b ^= mask[i % 4];
            }
            return match opcode {
                CLOSE => close_code(payload).map(ClientEvent::Close),
                PING => Ok(ClientEvent::Ping(payload.to_vec())),
                PONG => Ok(ClientEvent::Pong),
                _ => Err(FrameError::Opcode(opcode)),
            };
        }
        match opcode {
            CONTINUATION if !self.in_message => return Err(FrameError::Fragmentation),
            TEXT | BINARY if self.in_message => return Err(FrameError::Fragmentation),
            CONTINUATION | TEXT | BINARY => {}
            _ => return Err(FrameError::Opcode(opcode)),
        }
        if len > MAX_CLIENT_FRAME as u64 {
            return Err(FrameError::TooLarge(len));
        }
        // Discarded through a fixed buffer: a client's data never costs memory.
        let skipped = std::io::copy(&mut (&mut self.inner).take(len), &mut std::io::sink())?;
        if skipped < len {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
        }
        self.in_message = !fin;
        Ok(ClientEvent::Data)
    }

    /// The payload length after a 7-bit length field, in its shortest form only.
    fn read_len(&mut self, len7: u8) -> Result<u64, FrameError> {
        Ok(match len7 {
            126 => {
                let mut b = [0u8; 2];
                self.inner.read_exact(&mut b)?;
                let len = u64::from(u16::from_be_bytes(b));
                if len < 126 {
                    return Err(FrameError::Length);
                }
                len
            }
            127 => {
                let mut b = [0u8; 8];
                self.inner.read_exact(&mut b)?;
                let len = u64::from_be_bytes(b);
                if len <= 0xFFFF || len >> 63 != 0 {
                    return Err(FrameError::Length);
                }
                len
            }
            n => u64::from(n),
        })
    }
}

/// The status code of a close payload: none, or a code a peer may send (RFC 6455
/// §7.4) followed by a UTF-8 reason.
fn close_code(payload: &[u8]) -> Result<Option<u16>, FrameError> {
    let (code, reason) = match payload {
        [] => return Ok(None),
        [_] => return Err(FrameError::CloseCode),
        [a, b, reason @ ..] => (u16::from_be_bytes([*a, *b]), reason),
    };
    let sendable = matches!(code, 1000..=1003 | 1007..=1011 | 3000..=4999);
    if !sendable {
        return Err(FrameError::CloseCode);
    }
    std::str::from_utf8(reason).map_err(|_| FrameError::Utf8)?;
    Ok(Some(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's frame: masked with a fixed key.
    fn masked(first: u8, payload: &[u8]) -> Vec<u8> {
        let key = [0x37, 0xfa, 0x21, 0x3d];
        let mut out = vec![first];
        let mut header = Vec::new();
        encode_header(0, payload.len(), &mut header);
        out.push(header[1] | 0x80);
        out.extend_from_slice(&header[2..]);
        out.extend_from_slice(&key);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        out
    }

    fn events(bytes: &[u8]) -> (Vec<ClientEvent>, FrameError) {
        let mut reader = ClientReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match reader.next_event() {
                Ok(e) => out.push(e),
                Err(e) => return (out, e),
            }
        }
    }

    #[test]
    fn lengths_use_7_16_or_64_bits_at_the_boundaries() {
        for (len, header) in [
            (0, vec![0x81, 0]),
            (125, vec![0x81, 125]),
            (126, vec![0x81, 126, 0, 126]),
            (65535, vec![0x81, 126, 0xff, 0xff]),
            (65536, vec![0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]),
        ] {
            let mut out = Vec::new();
            encode_frame(TEXT, &vec![b'x'; len], &mut out);
            assert_eq!(out[..header.len()], header[..], "{len}");
            assert_eq!(out.len(), header.len() + len, "{len}");
        }
    }

    #[test]
    fn the_rfc_examples_read_back() {
        // RFC 6455 §5.7: a masked "Hello", and a masked ping with "Hello".
        let hello = [
            0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
        ];
        assert_eq!(masked(0x81, b"Hello"), hello);
        let ping = masked(0x89, b"Hello");
        let (got, end) = events(&[&hello[..], &ping].concat());
        assert_eq!(
            got,
            [ClientEvent::Data, ClientEvent::Ping(b"Hello".to_vec())]
        );
        assert!(matches!(end, FrameError::Eof));
    }

    #[test]
    fn client_frames_of_every_length_form_are_read() {
        for len in [0, 125, 126, 65535, 65536] {
            let frame = masked(0x82, &vec![7; len]);
            let (got, end) = events(&[frame, masked(0x8A, b"")].concat());
            assert_eq!(got, [ClientEvent::Data, ClientEvent::Pong], "{len}");
            assert!(matches!(end, FrameError::Eof), "{len}");
        }
    }

    #[test]
    fn close_frames_give_their_code() {
        let (got, _) = events(&masked(0x88, &[0x03, 0xe8, b'b', b'y', b'e']));
        assert_eq!(got, [ClientEvent::Close(Some(1000))]);
        let (got, _) = events(&masked(0x88, &[]));
        assert_eq!(got, [ClientEvent::Close(None)]);
        let (_, e) = events(&masked(0x88, &[0x03]));
        assert!(matches!(e, FrameError::CloseCode));
        let (_, e) = events(&masked(0x88, &1005u16.to_be_bytes()));
        assert!(matches!(e, FrameError::CloseCode));
        let (_, e) = events(&masked(0x88, &[0x03, 0xe8, 0xff]));
        assert_eq!(e.close_code(), Some(1007));
    }

    #[test]
    fn fragments_may_interleave_control_frames_only() {
        let ok = [
            masked(0x01, b"He"),
            masked(0x89, b"p"),
            masked(0x00, b"ll"),
            masked(0x80, b"o"),
            masked(0x81, b"!"),
        ]
        .concat();
        let (got, end) = events(&ok);
        assert_eq!(got.len(), 5);
        assert!(matches!(end, FrameError::Eof));
        let (_, e) = events(&masked(0x80, b"x"));
        assert!(matches!(e, FrameError::Fragmentation));
        let (_, e) = events(&[masked(0x01, b"a"), masked(0x81, b"b")].concat());
        assert!(matches!(e, FrameError::Fragmentation));
    }

    #[test]
    fn protocol_errors_and_limits() {
        let unmasked = [0x81, 0x01, b'x'];
        let (_, e) = events(&unmasked);
        assert!(matches!(e, FrameError::Unmasked));
        assert_eq!(e.close_code(), Some(1002));
        let (_, e) = events(&masked(0xC1, b"x"));
        assert!(matches!(e, FrameError::Reserved));
        let (_, e) = events(&masked(0x83, b"x"));
        assert!(matches!(e, FrameError::Opcode(3)));
        let (_, e) = events(&masked(0x8B, b"x"));
        assert!(matches!(e, FrameError::Opcode(0xB)));
        let (_, e) = events(&masked(0x09, b"x"));
        assert!(matches!(e, FrameError::Control));
        let (_, e) = events(&masked(0x89, &[0; 126]));
        assert!(matches!(e, FrameError::Control));
        let (_, e) = events(&[0x81, 0xFE, 0, 5, 0, 0, 0, 0]);
        assert!(matches!(e, FrameError::Length));
        let huge = [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let (_, e) = events(&huge);
        assert!(matches!(e, FrameError::Length));
        // Over the limit: refused from the header, before any payload is read.
        let big = [0x82, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3, 4];
        let (_, e) = events(&big);
        assert!(matches!(e, FrameError::TooLarge(0x4000_0000)));
        assert_eq!(e.close_code(), Some(1009));
        let mut just_over = masked(0x82, &vec![0; MAX_CLIENT_FRAME + 1]);
        just_over.truncate(20);
        let (_, e) = events(&just_over);
        assert!(matches!(e, FrameError::TooLarge(_)));
        // Cut inside a frame: an I/O error, no close frame possible.
        let (_, e) = events(&masked(0x81, b"Hello")[..8]);
        assert!(matches!(e, FrameError::Io(_)));
        assert_eq!(e.close_code(), None);
    }

    /// The fuzz target's invariants (`fuzz/fuzz_targets/websocket_frames.rs`) on
    /// stable: random bytes, masked more often than not so that reading goes past the
    /// header, never panic, and every frame consumes input.
    #[test]
    fn random_bytes_never_panic_and_always_move_on() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut frames = 0;
        for _ in 0..20_000 {
            let len = (next() % 80) as usize;
            let mut data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            for (i, b) in data.iter_mut().enumerate() {
                // Small masked lengths and few reserved bits, so many inputs parse.
                match i % 8 {
                    0 => *b &= 0x8F,
                    1 => *b = 0x80 | (*b % 24),
                    _ => {}
                }
            }
            let mut reader = ClientReader::new(data.as_slice());
            let mut events = 0;
            while let Ok(event) = reader.next_event() {
                if let ClientEvent::Ping(payload) = event {
                    assert!(payload.len() <= MAX_CONTROL);
                }
                events += 1;
                assert!(events <= len / 6, "{data:?}");
            }
            frames += events;
        }
        assert!(frames > 1000, "too few inputs parsed: {frames}");
    }
}
