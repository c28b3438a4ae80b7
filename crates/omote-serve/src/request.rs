//! The request head: read off a connection within its size limit, then parsed into a
//! [`Request`].

use std::io::Read;

use crate::Response;

/// Largest request head read (request line and headers); larger is a 431.
pub const MAX_HEAD: usize = 16 * 1024;

/// A method the server serves; any other is answered 405 before a handler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: answered like `GET`, without the body.
    Head,
}

/// One request: its method, the path and query of its target, its headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// GET or HEAD.
    pub method: Method,
    /// The target up to `?` or `#`, as sent (not percent-decoded), e.g. `/anim.json`.
    pub path: String,
    /// The target after `?` (without a `#` fragment); empty when there is none.
    pub query: String,
    /// Header names and values in the order sent, values trimmed.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// A GET of `target` (`/path?query`) without headers, e.g. to test a handler.
    pub fn get(target: &str) -> Request {
        let (path, query) = split_target(target);
        Request {
            method: Method::Get,
            path: path.to_string(),
            query: query.to_string(),
            headers: Vec::new(),
        }
    }

    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.header_values(name).next()
    }

    /// The values of every header named `name` (case-insensitive), in order.
    pub fn header_values<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether a comma-separated header (`Connection: keep-alive, Upgrade`) lists
    /// `token`, case-insensitive, over all headers of that name.
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.header_values(name)
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }

    /// Whether the request asks for a WebSocket (`Upgrade: websocket`); whether the
    /// rest of the handshake is right is checked when it is answered with
    /// [`Response::websocket`].
    pub fn wants_websocket(&self) -> bool {
        self.has_token("upgrade", "websocket")
    }
}

/// The target's path and query; a fragment is dropped.
fn split_target(target: &str) -> (&str, &str) {
    let target = target.split('#').next().unwrap_or_default();
    target.split_once('?').unwrap_or((target, ""))
}

/// A request head read off a connection.
pub(crate) struct Head {
    /// Up to, without, the blank line.
    pub text: String,
    /// Bytes read past the blank line (a WebSocket client's first frames).
    pub rest: Vec<u8>,
}

/// Read the request head (up to the blank line). `None`: the client sent nothing
/// usable and gets no answer (closed, timed out); `Err`: answer with this error.
pub(crate) fn read_head(stream: &mut impl Read) -> Option<Result<Head, Response>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = find(&buf, b"\r\n\r\n").filter(|&end| end <= MAX_HEAD) {
            let rest = buf.split_off(end + 4);
            buf.truncate(end);
            return Some(match String::from_utf8(buf) {
                Ok(text) => Ok(Head { text, rest }),
                Err(_) => Err(Response::text(400, "request head is not UTF-8")),
            });
        }
        if buf.len() > MAX_HEAD {
            return Some(Err(Response::text(431, "request head too large")));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Parse a request head; an error is the answer to send (400, 405, 505).
pub(crate) fn parse_head(head: &str) -> Result<Request, Response> {
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Response::text(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Response::text(505, "only HTTP/1.x is served"));
    }
    let method = match method {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        _ => return Err(Response::text(405, "only GET and HEAD are served")),
    };
    // Lines that are not `name: value` are skipped, as before the move to this crate.
    let headers = lines
        .filter_map(|l| {
            let (name, value) = l.split_once(':')?;
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect();
    let (path, query) = split_target(target);
    Ok(Request {
        method,
        path: path.to_string(),
        query: query.to_string(),
        headers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(bytes: &[u8]) -> Option<Result<Head, Response>> {
        read_head(&mut std::io::Cursor::new(bytes.to_vec()))
    }

    #[test]
    fn a_head_is_read_up_to_the_blank_line_and_the_rest_kept() {
        let head = head_of(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n\x81\x80").unwrap();
        let head = head.unwrap();
        assert_eq!(head.text, "GET / HTTP/1.1\r\nHost: x");
        assert_eq!(head.rest, b"\x81\x80");
    }

    #[test]
    fn heads_over_the_limit_not_utf8_or_cut_short() {
        let mut huge = b"GET / HTTP/1.1\r\nX: ".to_vec();
        huge.resize(MAX_HEAD + 10, b'a');
        huge.extend_from_slice(b"\r\n\r\n");
        assert_eq!(head_of(&huge).unwrap().err().unwrap().status(), 431);
        let bad = head_of(b"GET /\xff HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(bad.err().unwrap().status(), 400);
        assert!(head_of(b"GET / HTTP/1.1\r\nHost: x\r\n").is_none());
    }

    #[test]
    fn request_lines_methods_and_versions() {
        let r =
            parse_head("GET /a/b?x=1&y=2#frag HTTP/1.1\r\nHost: h\r\nnoise\r\nX-A:  v ").unwrap();
        assert_eq!(r.method, Method::Get);
        assert_eq!((r.path.as_str(), r.query.as_str()), ("/a/b", "x=1&y=2"));
        assert_eq!(r.header("HOST"), Some("h"));
        assert_eq!(r.header("x-a"), Some("v"));
        assert_eq!(r.headers.len(), 2);
        assert_eq!(parse_head("HEAD / HTTP/1.0").unwrap().method, Method::Head);
        let status = |h: &str| parse_head(h).err().map(|r| r.status());
        assert_eq!(status("GET / HTTP/2"), Some(505));
        assert_eq!(status("POST / HTTP/1.1"), Some(405));
        assert_eq!(status("GET /  HTTP/1.1"), Some(400));
        assert_eq!(status("GET / HTTP/1.1 x"), Some(400));
        assert_eq!(status("nonsense"), Some(400));
    }

    #[test]
    fn tokens_are_found_in_comma_lists_over_repeated_headers() {
        let mut r = Request::get("/ws");
        r.headers = vec![
            ("Connection".into(), "keep-alive".into()),
            ("connection".into(), "foo, UpGrade".into()),
            ("Upgrade".into(), "h2c, WebSocket".into()),
        ];
        assert!(r.has_token("CONNECTION", "upgrade"));
        assert!(!r.has_token("connection", "close"));
        assert!(!r.has_token("connection", "up"));
        assert!(r.wants_websocket());
        assert!(!Request::get("/ws").wants_websocket());
    }
}
