//! What a handler answers: status, content type, body; written with the headers every
//! answer carries.

use std::io::Write;
use std::sync::Arc;

use crate::Broadcast;

/// The content type of the server's own plain-text answers (errors, 404).
pub const TEXT_PLAIN: &str = "text/plain; charset=utf-8";

/// A response body: embedded, built for this answer, or shared between answers.
#[derive(Clone, Debug)]
pub enum Body {
    /// Bytes in the binary (`include_bytes!`).
    Static(&'static [u8]),
    /// Bytes made for this answer.
    Owned(Vec<u8>),
    /// Bytes kept once and served many times (a model file).
    Shared(Arc<[u8]>),
}

impl Body {
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Body::Static(b) => b,
            Body::Owned(b) => b,
            Body::Shared(b) => b,
        }
    }
}

impl From<&'static [u8]> for Body {
    fn from(b: &'static [u8]) -> Body {
        Body::Static(b)
    }
}

impl From<Vec<u8>> for Body {
    fn from(b: Vec<u8>) -> Body {
        Body::Owned(b)
    }
}

impl From<Arc<[u8]>> for Body {
    fn from(b: Arc<[u8]>) -> Body {
        Body::Shared(b)
    }
}

/// An answer to one request.
#[derive(Clone, Debug)]
pub struct Response {
    status: u16,
    content_type: &'static str,
    body: Body,
    /// Headers beyond the ones every answer has (`Allow`, `Upgrade`, …).
    headers: Vec<(&'static str, String)>,
    /// `Some`: hand the connection to this hub if the request asks for a WebSocket.
    pub(crate) upgrade: Option<Broadcast>,
}

impl Response {
    /// An answer with this status, content type and body.
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Body>) -> Response {
        Response {
            status,
            content_type,
            body: body.into(),
            headers: Vec::new(),
            upgrade: None,
        }
    }

    /// A 200 with this body.
    pub fn ok(content_type: &'static str, body: impl Into<Body>) -> Response {
        Response::new(200, content_type, body)
    }

    /// A plain-text answer: `msg` and a newline. A 405 says which methods are served.
    pub fn text(status: u16, msg: impl Into<String>) -> Response {
        let mut body = msg.into().into_bytes();
        body.push(b'\n');
        let response = Response::new(status, TEXT_PLAIN, body);
        if status == 405 {
            response.with_header("Allow", "GET, HEAD")
        } else {
            response
        }
    }

    /// `404 not found`.
    pub fn not_found() -> Response {
        Response::text(404, "not found")
    }

    /// Hand the connection to `hub` as a WebSocket client. The server checks the
    /// upgrade request (RFC 6455 §4.2.1, the loopback `Origin`); a request that does not
    /// ask for an upgrade is answered `426 Upgrade Required`, a bad one 400, 403 or 426,
    /// and one beyond the hub's client cap 503.
    pub fn websocket(hub: &Broadcast) -> Response {
        Response {
            upgrade: Some(hub.clone()),
            ..Response::new(101, TEXT_PLAIN, Vec::new())
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The content type.
    pub fn content_type(&self) -> &'static str {
        self.content_type
    }

    /// The body.
    pub fn body(&self) -> &[u8] {
        self.body.as_bytes()
    }

    /// Whether this answer hands the connection to a WebSocket hub.
    pub fn is_websocket(&self) -> bool {
        self.upgrade.is_some()
    }

    /// The value of an extra header this answer carries (`Allow`, …).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The same answer with one more header (`Retry-After`, …). Control characters in
    /// `value` are dropped, so a value can never end the header early.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        let value: String = value.into().chars().filter(|c| !c.is_control()).collect();
        self.headers.push((name, value));
        self
    }

    /// Write the answer, then `Connection: close`; the head only for a HEAD request.
    pub(crate) fn write_to(&self, out: &mut impl Write, head_only: bool) -> std::io::Result<()> {
        let body = self.body();
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            body.len()
        );
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        if !head_only {
            out.write_all(body)?;
        }
        out.flush()
    }
}

/// The reason phrase of a status code the server uses ("" for others).
pub fn reason(status: u16) -> &'static str {
    match status {
        101 => "Switching Protocols",
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(r: &Response, head_only: bool) -> String {
        let mut out = Vec::new();
        r.write_to(&mut out, head_only).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_answer_has_its_length_and_the_safety_headers() {
        let text = written(&Response::ok("application/json", b"{}".to_vec()), false);
        assert_eq!(
            text,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n\r\n{}"
        );
    }

    #[test]
    fn head_only_keeps_the_length_and_drops_the_body() {
        let body: &'static [u8] = b"hello";
        let text = written(&Response::ok("text/plain", body), true);
        assert!(text.contains("Content-Length: 5\r\n"), "{text}");
        assert!(text.ends_with("\r\n\r\n"), "{text}");
    }

    #[test]
    fn a_405_says_what_is_allowed() {
        let r = Response::text(405, "no");
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
        assert!(written(&r, false).contains("\r\nAllow: GET, HEAD\r\n"));
        assert_eq!(r.body(), b"no\n");
        assert_eq!(Response::text(404, "x").header("allow"), None);
    }

    #[test]
    fn bodies_of_every_kind_read_the_same() {
        let shared: Arc<[u8]> = Arc::from(&b"abc"[..]);
        for body in [
            Body::from(&b"abc"[..]),
            Body::from(b"abc".to_vec()),
            Body::from(shared),
        ] {
            assert_eq!(body.as_bytes(), b"abc");
        }
    }
}
