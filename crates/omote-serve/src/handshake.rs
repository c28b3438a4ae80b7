//! The server side of the WebSocket opening handshake (RFC 6455 §4.2): checking the
//! upgrade request and computing `Sec-WebSocket-Accept`.

use crate::host::loopback_origin;
use crate::{Method, Request, Response};

/// The GUID RFC 6455 §1.3 appends to the client's key.
pub const WEBSOCKET_GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64 of the SHA-1 of the key
/// followed by [`WEBSOCKET_GUID`].
pub fn accept_key(key: &str) -> String {
    let mut sha = sha1_smol::Sha1::new();
    sha.update(key.as_bytes());
    sha.update(WEBSOCKET_GUID.as_bytes());
    base64(&sha.digest().bytes())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648 §4) with `=` padding.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Is `key` the base64 of 16 bytes (22 characters, then `==`, the last one's unused
/// bits zero)?
fn valid_key(key: &str) -> bool {
    let b = key.as_bytes();
    let index = |c: u8| ALPHABET.iter().position(|&a| a == c);
    b.len() == 24
        && b.ends_with(b"==")
        && b[..22].iter().all(|&c| index(c).is_some())
        && index(b[21]).is_some_and(|i| i & 0b1111 == 0)
}

/// Check an upgrade request; the `Sec-WebSocket-Accept` value, or the answer refusing
/// it. `loopback`: the server is bound to loopback, so only loopback `Origin`s may
/// connect (the `Host` was checked before the handler saw the request).
pub(crate) fn check_upgrade(request: &Request, loopback: bool) -> Result<String, Response> {
    let upgrade_required = |msg: &str| {
        Response::text(426, msg)
            .with_header("Upgrade", "websocket")
            .with_header("Sec-WebSocket-Version", "13")
    };
    if request.method != Method::Get || !request.wants_websocket() {
        return Err(upgrade_required(
            "this is a WebSocket: send a GET with `Upgrade: websocket`",
        ));
    }
    if loopback
        && let Some(origin) = request.header("origin")
        && !loopback_origin(origin)
    {
        return Err(Response::text(
            403,
            format!("Origin {origin:?} is not a page on this machine"),
        ));
    }
    if !request.has_token("connection", "upgrade") {
        return Err(Response::text(400, "`Connection` does not list `upgrade`"));
    }
    if request.header("sec-websocket-version") != Some("13") {
        return Err(upgrade_required("only WebSocket version 13 is served"));
    }
    let mut keys = request.header_values("sec-websocket-key");
    match (keys.next(), keys.next()) {
        (Some(key), None) if valid_key(key) => Ok(accept_key(key)),
        _ => Err(Response::text(
            400,
            "`Sec-WebSocket-Key` is not one base64 value of 16 bytes",
        )),
    }
}

/// The `101 Switching Protocols` head that completes the handshake.
pub(crate) fn switching_protocols(accept: &str) -> String {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {accept}\r\n\r\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_6455_example_key() {
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn base64_of_the_rfc_4648_vectors() {
        for (input, output) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), output, "{input}");
        }
        assert_eq!(base64(&[0xfb, 0xff, 0xbf]), "+/+/");
    }

    #[test]
    fn keys_must_be_16_bytes_in_base64() {
        assert!(valid_key("dGhlIHNhbXBsZSBub25jZQ=="));
        assert!(valid_key(&base64(&[0xff; 16])));
        for bad in [
            "",
            "dGhlIHNhbXBsZSBub25jZQ",
            "dGhlIHNhbXBsZSBub25jZQ=",
            "dGhlIHNhbXBsZSBub25jZR==",
            "dGhlIHNhbXBsZSBub25j*Q==",
            "dGhlIHNhbXBsZSBub25jZQ===",
        ] {
            assert!(!valid_key(bad), "{bad}");
        }
    }

    fn upgrade(extra: &[(&str, &str)]) -> Request {
        let mut r = Request::get("/live");
        r.headers = [
            ("Host", "127.0.0.1:8080"),
            ("Upgrade", "websocket"),
            ("Connection", "keep-alive, Upgrade"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
        .iter()
        .chain(extra)
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
        r
    }

    fn without(mut r: Request, name: &str) -> Request {
        r.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        r
    }

    fn status(r: &Request, loopback: bool) -> u16 {
        check_upgrade(r, loopback).err().map_or(101, |e| e.status())
    }

    #[test]
    fn upgrade_requests_are_checked() {
        assert_eq!(
            check_upgrade(&upgrade(&[]), true).unwrap(),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        let local = [("Origin", "http://localhost:8080")];
        assert_eq!(status(&upgrade(&local), true), 101);
        let foreign = [("Origin", "https://evil.example")];
        assert_eq!(status(&upgrade(&foreign), true), 403);
        assert_eq!(status(&upgrade(&[("Origin", "null")]), true), 403);
        // Bound to a network address, pages elsewhere are expected.
        assert_eq!(status(&upgrade(&foreign), false), 101);

        let refused = check_upgrade(&without(upgrade(&[]), "upgrade"), true).unwrap_err();
        assert_eq!(refused.status(), 426);
        assert_eq!(refused.header("upgrade"), Some("websocket"));
        let mut head = upgrade(&[]);
        head.method = Method::Head;
        assert_eq!(status(&head, true), 426);
        assert_eq!(status(&without(upgrade(&[]), "connection"), true), 400);
        let old = upgrade(&[]);
        let mut old = without(old, "sec-websocket-version");
        old.headers
            .push(("Sec-WebSocket-Version".into(), "8".into()));
        let refused = check_upgrade(&old, true).unwrap_err();
        assert_eq!(refused.status(), 426);
        assert_eq!(refused.header("sec-websocket-version"), Some("13"));
        assert_eq!(
            status(&without(upgrade(&[]), "sec-websocket-key"), true),
            400
        );
        let twice = [("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")];
        assert_eq!(status(&upgrade(&twice), true), 400);
    }
}
