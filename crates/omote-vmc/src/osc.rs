//! The subset of OSC 1.0 that VMC uses: messages with int32, float32 and string
//! arguments, inside bundles. Encoding appends to a reusable buffer (no allocation once it
//! has grown); decoding flattens bundles into owned messages.

use crate::error::VmcError;

/// One argument of a message being written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OscArg<'a> {
    /// `i`: 32-bit integer.
    Int(i32),
    /// `f`: 32-bit float.
    Float(f32),
    /// `s`: string.
    Str(&'a str),
}

impl OscArg<'_> {
    fn tag(&self) -> u8 {
        match self {
            OscArg::Int(_) => b'i',
            OscArg::Float(_) => b'f',
            OscArg::Str(_) => b's',
        }
    }
}

/// Bytes of a bundle before its first element: `#bundle\0` and the time tag.
pub const BUNDLE_HEADER: usize = 16;

/// Writes OSC packets into a buffer it owns and reuses.
///
/// ```
/// use omote_vmc::osc::{OscArg, OscWriter, parse_packet};
/// let mut w = OscWriter::new();
/// w.begin_bundle();
/// w.message("/VMC/Ext/Blend/Val", &[OscArg::Str("A"), OscArg::Float(0.5)]);
/// w.message("/VMC/Ext/Blend/Apply", &[]);
/// let msgs = parse_packet(w.bytes()).unwrap();
/// assert_eq!(msgs.len(), 2);
/// assert_eq!(msgs[0].address, "/VMC/Ext/Blend/Val");
/// ```
#[derive(Clone, Debug, Default)]
pub struct OscWriter {
    buf: Vec<u8>,
    in_bundle: bool,
}

impl OscWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Clears the buffer and starts a bundle with the time tag "immediately"; the
    /// following [`OscWriter::message`] calls become its elements.
    pub fn begin_bundle(&mut self) {
        self.buf.clear();
        self.buf.extend_from_slice(b"#bundle\0");
        self.buf.extend_from_slice(&1u64.to_be_bytes());
        self.in_bundle = true;
    }

    /// Clears the buffer for a packet that is a single message.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.in_bundle = false;
    }

    /// Appends a message (as a bundle element after [`OscWriter::begin_bundle`]).
    pub fn message(&mut self, address: &str, args: &[OscArg<'_>]) {
        let size_at = self.buf.len();
        if self.in_bundle {
            self.buf.extend_from_slice(&[0; 4]);
        }
        let start = self.buf.len();
        write_padded_str(&mut self.buf, address);
        self.buf.push(b',');
        for a in args {
            self.buf.push(a.tag());
        }
        self.buf.push(0);
        pad4(&mut self.buf);
        for a in args {
            match a {
                OscArg::Int(v) => self.buf.extend_from_slice(&v.to_be_bytes()),
                OscArg::Float(v) => self.buf.extend_from_slice(&v.to_be_bytes()),
                OscArg::Str(s) => write_padded_str(&mut self.buf, s),
            }
        }
        if self.in_bundle {
            let len = (self.buf.len() - start) as u32;
            self.buf[size_at..size_at + 4].copy_from_slice(&len.to_be_bytes());
        }
    }

    /// Moves the bundle elements from byte `at` on (a length the writer had after
    /// some message) into `into` as the elements of a new bundle, keeping this one's
    /// before `at`: a bundle that grew too large is split at a message.
    pub fn move_elements_from(&mut self, at: usize, into: &mut OscWriter) {
        debug_assert!(self.in_bundle && at >= BUNDLE_HEADER && at <= self.buf.len());
        into.begin_bundle();
        into.buf.extend_from_slice(&self.buf[at..]);
        self.buf.truncate(at);
    }

    /// The packet so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Packet length in bytes.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written since the last clear.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

/// OSC string: the bytes (a NUL inside is cut off), a terminating NUL, padded to 4.
fn write_padded_str(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    buf.extend_from_slice(&bytes[..end]);
    buf.push(0);
    pad4(buf);
}

fn pad4(buf: &mut Vec<u8>) {
    while !buf.len().is_multiple_of(4) {
        buf.push(0);
    }
}

/// A decoded argument.
#[derive(Clone, Debug, PartialEq)]
pub enum OscValue {
    /// `i` (and `h`, narrowed).
    Int(i32),
    /// `f` (and `d`, narrowed).
    Float(f32),
    /// `s` or `S`.
    Str(String),
    /// Anything else that carries no value VMC uses (`T F N I b t c r m`).
    Other(u8),
}

/// A decoded message.
#[derive(Clone, Debug, PartialEq)]
pub struct OscMessage {
    /// The address pattern, e.g. `/VMC/Ext/Bone/Pos`.
    pub address: String,
    /// The arguments in order.
    pub args: Vec<OscValue>,
}

impl OscMessage {
    /// The type tags of the arguments, e.g. `"sfff"`.
    pub fn tags(&self) -> String {
        self.args
            .iter()
            .map(|a| match a {
                OscValue::Int(_) => 'i',
                OscValue::Float(_) => 'f',
                OscValue::Str(_) => 's',
                OscValue::Other(t) => char::from(*t),
            })
            .collect()
    }
}

/// Bundles nest; a hostile packet must not recurse without bound.
const MAX_BUNDLE_DEPTH: usize = 8;

/// Decodes one UDP payload (a message or a bundle, nested bundles flattened in order).
pub fn parse_packet(bytes: &[u8]) -> Result<Vec<OscMessage>, VmcError> {
    let mut out = Vec::new();
    parse_into(bytes, 0, 0, &mut out)?;
    Ok(out)
}

fn malformed(offset: usize, reason: &'static str) -> VmcError {
    VmcError::Malformed { offset, reason }
}

fn parse_into(
    bytes: &[u8],
    base: usize,
    depth: usize,
    out: &mut Vec<OscMessage>,
) -> Result<(), VmcError> {
    if bytes.starts_with(b"#bundle\0") {
        if depth >= MAX_BUNDLE_DEPTH {
            return Err(malformed(base, "bundles nested too deep"));
        }
        if bytes.len() < 16 {
            return Err(malformed(base, "bundle shorter than its header"));
        }
        let mut at = 16;
        while at < bytes.len() {
            let size =
                read_u32(bytes, at).ok_or_else(|| malformed(base + at, "truncated size"))? as usize;
            at += 4;
            if !size.is_multiple_of(4) {
                return Err(malformed(base + at, "element size not a multiple of 4"));
            }
            let end = at
                .checked_add(size)
                .filter(|e| *e <= bytes.len())
                .ok_or_else(|| malformed(base + at, "element runs past the packet"))?;
            parse_into(&bytes[at..end], base + at, depth + 1, out)?;
            at = end;
        }
        Ok(())
    } else {
        out.push(parse_message(bytes, base)?);
        Ok(())
    }
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_be_bytes(b.try_into().ok()?))
}

/// Reads a padded OSC string at `at`; returns it and the offset after its padding.
fn read_str(bytes: &[u8], at: usize, base: usize) -> Result<(&str, usize), VmcError> {
    let rest = bytes
        .get(at..)
        .ok_or_else(|| malformed(base + at, "string past the end"))?;
    let nul = rest
        .iter()
        .position(|b| *b == 0)
        .ok_or_else(|| malformed(base + at, "string without a terminating NUL"))?;
    let s = std::str::from_utf8(&rest[..nul])
        .map_err(|_| malformed(base + at, "string is not UTF-8"))?;
    let next = (at + nul + 1).next_multiple_of(4);
    if next > bytes.len() {
        return Err(malformed(base + at, "string padding past the end"));
    }
    Ok((s, next))
}

fn parse_message(bytes: &[u8], base: usize) -> Result<OscMessage, VmcError> {
    if !bytes.starts_with(b"/") {
        return Err(malformed(base, "address does not start with '/'"));
    }
    let (address, mut at) = read_str(bytes, 0, base)?;
    let address = address.to_owned();
    if at >= bytes.len() {
        // OSC 1.0 allows a message without a type tag string: no arguments.
        return Ok(OscMessage {
            address,
            args: Vec::new(),
        });
    }
    let (tags, after) = read_str(bytes, at, base)?;
    let Some(tags) = tags.strip_prefix(',') else {
        return Err(malformed(base + at, "type tags do not start with ','"));
    };
    at = after;
    let mut args = Vec::with_capacity(tags.len());
    for t in tags.bytes() {
        let need = |n: usize| {
            if at + n <= bytes.len() {
                Ok(())
            } else {
                Err(malformed(base + at, "argument past the end"))
            }
        };
        match t {
            b'i' => {
                need(4)?;
                args.push(OscValue::Int(read_u32(bytes, at).unwrap_or(0) as i32));
                at += 4;
            }
            b'f' => {
                need(4)?;
                args.push(OscValue::Float(f32::from_bits(
                    read_u32(bytes, at).unwrap_or(0),
                )));
                at += 4;
            }
            b'h' => {
                need(8)?;
                let v = read_u64(bytes, at).unwrap_or(0) as i64;
                args.push(OscValue::Int(
                    v.clamp(i32::MIN.into(), i32::MAX.into()) as i32
                ));
                at += 8;
            }
            b'd' => {
                need(8)?;
                args.push(OscValue::Float(
                    f64::from_bits(read_u64(bytes, at).unwrap_or(0)) as f32,
                ));
                at += 8;
            }
            b't' => {
                need(8)?;
                args.push(OscValue::Other(t));
                at += 8;
            }
            b'c' | b'r' | b'm' => {
                need(4)?;
                args.push(OscValue::Other(t));
                at += 4;
            }
            b's' | b'S' => {
                let (s, next) = read_str(bytes, at, base)?;
                args.push(OscValue::Str(s.to_owned()));
                at = next;
            }
            b'b' => {
                need(4)?;
                let n = read_u32(bytes, at).unwrap_or(0) as usize;
                at += 4;
                let end = at
                    .checked_add(n)
                    .map(|e| e.next_multiple_of(4))
                    .filter(|e| *e <= bytes.len())
                    .ok_or_else(|| malformed(base + at, "blob past the end"))?;
                args.push(OscValue::Other(t));
                at = end;
            }
            b'T' | b'F' | b'N' | b'I' => args.push(OscValue::Other(t)),
            _ => return Err(malformed(base + at, "unknown type tag")),
        }
    }
    Ok(OscMessage { address, args })
}
