//! A real server on loopback and real `TcpStream` clients written here: the HTTP side
//! (routes, methods, limits, the loopback `Host` check, the connection cap) and the
//! WebSocket side (handshake, greeting then messages in order, a client that never
//! reads, ping/pong, close, protocol errors, refused origins, many clients).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use omote_serve::{Broadcast, Request, Response, Server, ServerHandle, accept_key};

const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";

/// A server with a page, an echo of the request, and the hub on `/live`.
fn start(hub: &Broadcast) -> ServerHandle {
    start_on("127.0.0.1:0", hub, usize::MAX)
}

fn start_on(addr: &str, hub: &Broadcast, max_connections: usize) -> ServerHandle {
    let hub = hub.clone();
    let server = Server::bind(addr.parse().unwrap())
        .unwrap()
        .with_max_connections(max_connections);
    server
        .spawn(move |r: &Request| match r.path.as_str() {
            "/" => Response::ok("text/html; charset=utf-8", &b"<p>page</p>"[..]),
            "/echo" => Response::ok(
                "text/plain",
                format!("{:?} {}", r.method, r.query).into_bytes(),
            ),
            "/live" => Response::websocket(&hub),
            _ => Response::not_found(),
        })
        .unwrap()
}

fn loopback(server: &ServerHandle) -> SocketAddr {
    SocketAddr::new([127, 0, 0, 1].into(), server.local_addr().port())
}

/// Send a raw request; status, head and body of the answer.
fn raw(server: &ServerHandle, request: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(loopback(server)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).unwrap();
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, bytes[end + 4..].to_vec())
}

fn get(server: &ServerHandle, path: &str) -> (u16, String, Vec<u8>) {
    let port = server.local_addr().port();
    raw(
        server,
        &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    )
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Wait (up to 10 s) until `done` holds.
fn eventually(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting: {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn http_routes_methods_and_limits() {
    let server = start(&Broadcast::new());
    let port = server.local_addr().port();
    assert_eq!(server.url(), format!("http://127.0.0.1:{port}/"));

    let (status, head, body) = get(&server, "/");
    assert_eq!(status, 200);
    assert_eq!(body, b"<p>page</p>");
    assert_eq!(header(&head, "content-length"), Some("11"));
    assert_eq!(header(&head, "cache-control"), Some("no-store"));
    assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&head, "connection"), Some("close"));
    assert_eq!(get(&server, "/echo?a=1#top").2, b"Get a=1");
    let (status, head, body) = raw(
        &server,
        &format!("HEAD /echo?b HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n"),
    );
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-length"), Some("6"), "`Head b`");
    assert!(body.is_empty());
    let (status, _, body) = get(&server, "/nope");
    assert_eq!((status, body.as_slice()), (404, &b"not found\n"[..]));

    let (status, head, _) = raw(
        &server,
        &format!("POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n"),
    );
    assert_eq!(status, 405);
    assert_eq!(header(&head, "allow"), Some("GET, HEAD"));
    assert_eq!(raw(&server, "nonsense\r\n\r\n").0, 400);
    assert_eq!(raw(&server, "GET / HTTP/1.1\r\n\r\n").0, 400, "no Host");
    assert_eq!(
        raw(&server, "GET / HTTP/2.0\r\nHost: localhost\r\n\r\n").0,
        505
    );
    let rebinding = "GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n";
    assert_eq!(raw(&server, rebinding).0, 403);
    let other_port = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", port ^ 1);
    assert_eq!(raw(&server, &other_port).0, 403);
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(40_000));
    assert_eq!(raw(&server, &huge).0, 431);
    // A client that connects and says nothing does not block others.
    let _idle = TcpStream::connect(loopback(&server)).unwrap();
    assert_eq!(get(&server, "/").0, 200);
}

#[test]
fn connections_beyond_the_cap_are_closed_unanswered() {
    let server = start_on("127.0.0.1:0", &Broadcast::new(), 2);
    let idle: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(loopback(&server)).unwrap())
        .collect();
    // The first two are accepted first (in order) and hold both places.
    let mut third = TcpStream::connect(loopback(&server)).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let port = server.local_addr().port();
    let _ = third.write_all(format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").as_bytes());
    let mut answer = Vec::new();
    let _ = third.read_to_end(&mut answer);
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    drop(idle);
    eventually("a place is free again", || {
        let mut s = TcpStream::connect(loopback(&server)).unwrap();
        let request = format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n");
        let _ = s.write_all(request.as_bytes());
        let mut bytes = Vec::new();
        let _ = s.read_to_end(&mut bytes);
        bytes.starts_with(b"HTTP/1.1 200")
    });
}

#[test]
fn bound_to_every_address_any_host_and_origin_is_served() {
    let hub = Broadcast::new();
    let server = start_on("0.0.0.0:0", &hub, usize::MAX);
    let (status, _, _) = raw(&server, "GET / HTTP/1.1\r\nHost: my-pc.lan:1\r\n\r\n");
    assert_eq!(status, 200);
    let (status, _, _) = upgrade(&server, &[("Origin", "http://my-pc.lan")]);
    assert_eq!(status, 101);
}

/// A WebSocket client written for the test: masks its frames, reads the server's.
struct Ws {
    stream: TcpStream,
}

/// Send an upgrade request for `/live` with these headers added (a `Host` unless
/// given); the status, the answer's head and the connection.
fn upgrade(server: &ServerHandle, extra: &[(&str, &str)]) -> (u16, String, TcpStream) {
    upgrade_with(server, extra, &[])
}

fn upgrade_with(
    server: &ServerHandle,
    extra: &[(&str, &str)],
    then: &[u8],
) -> (u16, String, TcpStream) {
    let port = server.local_addr().port();
    let host = format!("127.0.0.1:{port}");
    let mut headers = vec![
        ("Upgrade", "websocket"),
        ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", KEY),
    ];
    if !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        headers.push(("Host", &host));
    }
    let mut request = String::from("GET /live HTTP/1.1\r\n");
    for (n, v) in headers.iter().chain(extra) {
        request.push_str(&format!("{n}: {v}\r\n"));
    }
    request.push_str("\r\n");
    let mut stream = TcpStream::connect(loopback(server)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(then);
    stream.write_all(&bytes).unwrap();
    // Byte by byte: what follows the head is the first frame.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        assert_eq!(stream.read(&mut b).unwrap(), 1, "cut: {head:?}");
        head.push(b[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, stream)
}

impl Ws {
    fn connect(server: &ServerHandle) -> Ws {
        let (status, head, stream) = upgrade(server, &[("Origin", "http://localhost")]);
        assert_eq!(status, 101, "{head}");
        assert_eq!(header(&head, "upgrade"), Some("websocket"));
        assert_eq!(header(&head, "connection"), Some("Upgrade"));
        assert_eq!(
            header(&head, "sec-websocket-accept"),
            Some(accept_key(KEY).as_str())
        );
        Ws { stream }
    }

    fn send(&mut self, first: u8, payload: &[u8]) {
        self.stream.write_all(&masked(first, payload)).unwrap();
    }

    /// The next server frame: its first byte and payload. Server frames are unmasked.
    fn recv(&mut self) -> (u8, Vec<u8>) {
        let mut h = [0u8; 2];
        self.stream.read_exact(&mut h).unwrap();
        assert_eq!(h[1] & 0x80, 0, "a server frame must not be masked");
        let len = match h[1] & 0x7F {
            126 => {
                let mut b = [0u8; 2];
                self.stream.read_exact(&mut b).unwrap();
                u64::from(u16::from_be_bytes(b))
            }
            127 => {
                let mut b = [0u8; 8];
                self.stream.read_exact(&mut b).unwrap();
                u64::from_be_bytes(b)
            }
            n => u64::from(n),
        };
        let mut payload = vec![0u8; usize::try_from(len).unwrap()];
        self.stream.read_exact(&mut payload).unwrap();
        (h[0], payload)
    }

    fn recv_text(&mut self) -> String {
        let (first, payload) = self.recv();
        assert_eq!(first, 0x81, "a final text frame");
        String::from_utf8(payload).unwrap()
    }

    /// A close frame with this code, then the end of the connection.
    fn expect_close(&mut self, code: u16) {
        let (first, payload) = self.recv();
        assert_eq!(first, 0x88, "a close frame");
        assert_eq!(payload, code.to_be_bytes());
        let mut rest = Vec::new();
        let _ = self.stream.read_to_end(&mut rest);
        assert!(rest.is_empty(), "nothing after the close: {rest:?}");
    }
}

/// A client frame, masked.
fn masked(first: u8, payload: &[u8]) -> Vec<u8> {
    let key = [0xa1, 0x5c, 0x03, 0xee];
    let mut out = vec![first];
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n @ 126..=0xFFFF => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&key);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

#[test]
fn a_client_gets_the_greeting_then_every_message_in_order() {
    let hub = Broadcast::new();
    hub.set_greeting(Arc::from(r#"{"hello":["aa","blink"]}"#));
    let server = start(&hub);
    let mut ws = Ws::connect(&server);
    eventually("the client is counted", || hub.clients() == 1);
    let long = "x".repeat(70_000);
    let medium = "y".repeat(300);
    let messages: Vec<String> = (0..5)
        .map(|i| format!("frame {i}"))
        .chain([medium, long])
        .collect();
    for m in &messages {
        hub.send_text(Arc::from(m.as_str()));
    }
    assert_eq!(ws.recv_text(), r#"{"hello":["aa","blink"]}"#);
    for m in &messages {
        assert_eq!(&ws.recv_text(), m);
    }
    assert_eq!(hub.dropped(), 0);
    // A second client gets the greeting too, then only what is sent after it joined.
    let mut late = Ws::connect(&server);
    eventually("both clients are counted", || hub.clients() == 2);
    hub.send_text(Arc::from("both"));
    assert_eq!(late.recv_text(), r#"{"hello":["aa","blink"]}"#);
    assert_eq!(late.recv_text(), "both");
    assert_eq!(ws.recv_text(), "both");
}

#[test]
fn a_client_that_never_reads_blocks_nobody_and_its_drops_are_counted() {
    let hub = Broadcast::new();
    let server = start(&hub);
    let stuck = Ws::connect(&server);
    let mut reader = Ws::connect(&server);
    eventually("both clients are counted", || hub.clients() == 2);
    // 2000 × 64 KiB (128 MiB) is far more than the socket buffers hold: if sending
    // waited for the stuck client, this loop would not finish, and nothing would drop.
    let pad = "p".repeat(64 * 1024);
    let n = 2000;
    for i in 0..n {
        hub.send_text(Arc::from(format!("{i:05} {pad}")));
    }
    hub.send_text(Arc::from("last"));
    assert!(hub.dropped() >= 1000, "dropped {}", hub.dropped());
    // The reading client gets a rising run of them and the newest, last.
    let mut previous = None;
    loop {
        let text = reader.recv_text();
        if text == "last" {
            break;
        }
        let i: usize = text[..5].parse().unwrap();
        assert!(previous < Some(i), "{previous:?} then {i}");
        assert_eq!(text.len(), 6 + pad.len());
        previous = Some(i);
    }
    drop((stuck, reader));
    eventually("both clients are gone", || hub.clients() == 0);
}

#[test]
fn ping_gets_pong_and_client_data_is_ignored() {
    let hub = Broadcast::new();
    let server = start(&hub);
    let mut ws = Ws::connect(&server);
    ws.send(0x89, b"are you there");
    assert_eq!(ws.recv(), (0x8A, b"are you there".to_vec()));
    ws.send(0x81, b"text from the page");
    ws.send(0x02, &[1; 1000]);
    ws.send(0x80, &[2; 60_000]);
    ws.send(0x8A, b"unasked pong");
    ws.send(0x89, b"");
    assert_eq!(ws.recv(), (0x8A, Vec::new()));
    hub.send_text(Arc::from("still here"));
    assert_eq!(ws.recv_text(), "still here");
}

#[test]
fn a_first_frame_sent_with_the_request_head_is_read() {
    let hub = Broadcast::new();
    let server = start(&hub);
    let (status, _, stream) = upgrade_with(&server, &[], &masked(0x89, b"early"));
    assert_eq!(status, 101);
    let mut ws = Ws { stream };
    assert_eq!(ws.recv(), (0x8A, b"early".to_vec()));
}

#[test]
fn close_handshakes_from_either_side() {
    let hub = Broadcast::new();
    let server = start(&hub);
    let mut ws = Ws::connect(&server);
    eventually("the client is counted", || hub.clients() == 1);
    let mut payload = 1000u16.to_be_bytes().to_vec();
    payload.extend_from_slice(b"bye");
    ws.send(0x88, &payload);
    ws.expect_close(1000);
    eventually("the client is gone", || hub.clients() == 0);

    let mut a = Ws::connect(&server);
    let mut b = Ws::connect(&server);
    eventually("two clients", || hub.clients() == 2);
    hub.close_all();
    a.expect_close(1001);
    b.expect_close(1001);
    eventually("both are gone", || hub.clients() == 0);
    // The hub serves new clients after that.
    let mut again = Ws::connect(&server);
    eventually("a new client", || hub.clients() == 1);
    hub.send_text(Arc::from("again"));
    assert_eq!(again.recv_text(), "again");
}

#[test]
fn protocol_errors_end_the_client_with_their_code() {
    let hub = Broadcast::new();
    let server = start(&hub);
    let mut ws = Ws::connect(&server);
    ws.stream.write_all(&[0x81, 0x02, b'h', b'i']).unwrap(); // unmasked
    ws.expect_close(1002);
    // Over the frame limit: refused from its header, before the payload arrives.
    let mut ws = Ws::connect(&server);
    let mut big = vec![0x82, 0x80 | 127];
    big.extend_from_slice(&(1u64 << 30).to_be_bytes());
    big.extend_from_slice(&[0; 4]);
    ws.stream.write_all(&big).unwrap();
    ws.expect_close(1009);
    let mut ws = Ws::connect(&server);
    ws.send(0x80, b"continuation of nothing");
    ws.expect_close(1002);
    eventually("all gone", || hub.clients() == 0);
}

#[test]
fn upgrades_from_elsewhere_or_malformed_are_refused() {
    let hub = Broadcast::new();
    let server = start(&hub);
    for (extra, want) in [
        (vec![("Origin", "http://evil.example")], 403),
        (vec![("Origin", "null")], 403),
        (vec![("Host", "attacker.example")], 403),
        (vec![("Sec-WebSocket-Key", "second")], 400),
    ] {
        let (status, head, _) = upgrade(&server, &extra);
        assert_eq!(status, want, "{extra:?}: {head}");
    }
    let port = server.local_addr().port();
    let (status, head, _) = raw(
        &server,
        &format!(
            "GET /live HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: {KEY}\r\n\r\n"
        ),
    );
    assert_eq!(status, 426);
    assert_eq!(header(&head, "sec-websocket-version"), Some("13"));
    // A plain GET on the socket's path: a normal answer saying what it is.
    let (status, head, body) = get(&server, "/live");
    assert_eq!(status, 426);
    assert_eq!(header(&head, "upgrade"), Some("websocket"));
    assert!(String::from_utf8(body).unwrap().contains("WebSocket"));
    // Upgrade headers on a plain route are ignored: the page is served.
    let (status, _, _) = {
        let mut s = TcpStream::connect(loopback(&server)).unwrap();
        s.write_all(
            format!(
                "GET / HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\n\
                 Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {KEY}\r\n\r\n"
            )
            .as_bytes(),
        )
        .unwrap();
        let mut bytes = Vec::new();
        s.read_to_end(&mut bytes).unwrap();
        let head = String::from_utf8_lossy(&bytes).to_string();
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head, ())
    };
    assert_eq!(status, 200);
    assert_eq!(hub.clients(), 0);
}

#[test]
fn many_clients_come_and_go_and_the_cap_holds() {
    let hub = Broadcast::with_limits(6, 8);
    let server = start(&hub);
    for round in 0..3 {
        let mut clients: Vec<Ws> = (0..hub.max_clients())
            .map(|_| Ws::connect(&server))
            .collect();
        eventually("all are counted", || hub.clients() == hub.max_clients());
        let (status, _, _) = upgrade(&server, &[]);
        assert_eq!(status, 503, "round {round}: one past the cap");
        hub.send_text(Arc::from(format!("round {round}")));
        for (i, ws) in clients.iter_mut().enumerate() {
            assert_eq!(ws.recv_text(), format!("round {round}"));
            // Half leave with a close frame, half just hang up.
            if i % 2 == 0 {
                ws.send(0x88, &1001u16.to_be_bytes());
            }
        }
        drop(clients);
        eventually("all are gone", || hub.clients() == 0);
    }
}

/// A head trickled a byte a second is cut at the deadline for the whole head: each
/// read is quick, but the head is not.
#[test]
fn a_trickled_head_is_cut_at_the_deadline_for_the_whole_head() {
    let server = start(&Broadcast::new());
    let mut s = TcpStream::connect(loopback(&server)).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < omote_serve::HEAD_DEADLINE + Duration::from_secs(5) {
        if s.write_all(b"G").is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    // (A write after the server closed succeeds once; the next one fails.)
    let took = started.elapsed();
    assert!(
        closed,
        "still open after {took:?} of a byte every 0.5 s (deadline {:?})",
        omote_serve::HEAD_DEADLINE
    );
    assert!(took >= omote_serve::HEAD_DEADLINE, "{took:?}");
}

/// Connections at the cap that trickle their heads do not shut out a new request: it
/// closes the one that has been sending longest and is answered.
#[test]
fn slow_heads_at_the_cap_do_not_shut_out_a_new_request() {
    let server = start_on("127.0.0.1:0", &Broadcast::new(), 4);
    let mut slow: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(loopback(&server)).unwrap())
        .collect();
    for s in &mut slow {
        s.write_all(b"GET / HT").unwrap();
    }
    std::thread::sleep(omote_serve::HEAD_GRACE + Duration::from_millis(300));
    let port = server.local_addr().port();
    for _ in 0..3 {
        let started = Instant::now();
        let mut probe = TcpStream::connect(loopback(&server)).unwrap();
        probe
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        probe
            .write_all(format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").as_bytes())
            .unwrap();
        let mut answer = Vec::new();
        let _ = probe.read_to_end(&mut answer);
        assert!(
            answer.starts_with(b"HTTP/1.1 200"),
            "{:?}",
            String::from_utf8_lossy(&answer)
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }
    // The one evicted was closed (reading it ends); the places of the probes that
    // ended were free for the next ones.
    let mut ended = 0;
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut b = Vec::new();
        if s.read_to_end(&mut b).is_ok() {
            ended += 1;
        }
    }
    assert!(ended >= 1, "{ended} slow heads closed");
}

/// Clients that never answer the hub's pings are ended and their places freed; one
/// that answers stays; at the cap a new page takes the place of a client that missed
/// a ping instead of getting 503.
#[test]
fn silent_clients_are_dropped_and_a_new_page_gets_a_place() {
    let every = Duration::from_millis(300);
    let hub = Broadcast::with_limits(3, 8).with_ping_every(every);
    let server = start(&hub);
    let silent: Vec<Ws> = (0..2).map(|_| Ws::connect(&server)).collect();
    let mut answering = Ws::connect(&server);
    eventually("all three are counted", || hub.clients() == 3);
    // The answering client pongs every ping for a while.
    let started = Instant::now();
    let mut pings = 0;
    while started.elapsed() < every * 5 {
        let (first, payload) = answering.recv();
        assert_eq!(first, 0x89, "a ping");
        answering.send(0x8A, &payload);
        pings += 1;
    }
    assert!(pings >= 3, "{pings} pings");
    eventually("the silent two are dropped", || hub.clients() == 1);
    drop(silent);

    // At the cap, a silent client's place goes to a new page at once.
    let hub = Broadcast::with_limits(2, 8).with_ping_every(Duration::from_millis(500));
    let server = start(&hub);
    let idle: Vec<Ws> = (0..2).map(|_| Ws::connect(&server)).collect();
    eventually("both are counted", || hub.clients() == 2);
    let (status, _, _) = upgrade(&server, &[]);
    assert_eq!(status, 503, "both were just heard from");
    std::thread::sleep(Duration::from_millis(600));
    let (status, head, _page) = upgrade(&server, &[]);
    assert_eq!(status, 101, "{head}");
    assert_eq!(hub.clients(), 2);
    drop(idle);
}
