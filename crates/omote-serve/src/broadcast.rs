//! [`Broadcast`]: a WebSocket hub that pushes text messages to every connected client
//! without ever waiting for one. Each client has a small queue served by its own
//! writer thread (a full queue drops its oldest message); the connection's thread reads
//! the client's frames (pings, close) until it ends. The writer pings a client every
//! [`PING_EVERY`]; one that has not answered the previous ping by then (a browser's
//! pong comes at once) is ended and its place freed, and a hub at its cap gives the
//! place of a client that has missed a ping to a new one, so idle sockets cannot keep
//! a page out.

use std::collections::VecDeque;
use std::io::{BufReader, Cursor, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::Response;
use crate::frame::{self, ClientEvent, ClientReader};
use crate::handshake::switching_protocols;

/// Clients a hub serves at once by default; more are answered 503.
pub const MAX_CLIENTS: usize = 16;
/// Messages queued per client by default; a new one beyond drops the oldest.
pub const QUEUE_LEN: usize = 8;
/// A client that takes no bytes for this long is ended.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the hub pings each client by default; a client silent since the previous
/// ping is ended.
pub const PING_EVERY: Duration = Duration::from_secs(5);

/// A handle on a WebSocket hub; clones share it. Answer a request with
/// [`Response::websocket`] to add its connection as a client.
#[derive(Clone)]
pub struct Broadcast {
    hub: Arc<Hub>,
}

struct Hub {
    clients: Mutex<Vec<Arc<Client>>>,
    greeting: Mutex<Option<Arc<str>>>,
    dropped: AtomicU64,
    next_id: AtomicU64,
    max_clients: usize,
    queue_len: usize,
    ping_every: Duration,
}

/// One connected client, shared by its reader (the connection's thread) and its writer.
struct Client {
    id: u64,
    outbox: Mutex<Outbox>,
    ready: Condvar,
    /// The socket: the writer writes through it, either thread shuts it down.
    stream: TcpStream,
    /// When a frame last came from the client (or it connected).
    heard: Mutex<Instant>,
    ping_every: Duration,
}

/// What the writer has to send, in this order of priority.
#[derive(Default)]
struct Outbox {
    /// `Some(code)`: send a close frame (with that status code, if any), then end.
    close: Option<Option<u16>>,
    /// The payload of the latest ping not yet answered (RFC 6455 §5.5.3 allows
    /// answering only the latest).
    pong: Option<Vec<u8>>,
    /// The hub's greeting, first of all messages.
    greeting: Option<Arc<str>>,
    texts: VecDeque<Arc<str>>,
    /// The client is gone: the writer stops, nothing more is queued.
    ended: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Broadcast {
    /// A hub with the default limits ([`MAX_CLIENTS`], [`QUEUE_LEN`]).
    pub fn new() -> Broadcast {
        Broadcast::with_limits(MAX_CLIENTS, QUEUE_LEN)
    }

    /// A hub serving at most `max_clients` at once, queueing at most `queue_len`
    /// (at least 1) messages per client.
    pub fn with_limits(max_clients: usize, queue_len: usize) -> Broadcast {
        Broadcast {
            hub: Arc::new(Hub {
                clients: Mutex::new(Vec::new()),
                greeting: Mutex::new(None),
                dropped: AtomicU64::new(0),
                next_id: AtomicU64::new(0),
                max_clients,
                queue_len: queue_len.max(1),
                ping_every: PING_EVERY,
            }),
        }
    }

    /// The same limits, pinging every `every` (at least 10 ms) instead of
    /// [`PING_EVERY`]. Call before the hub is shared.
    pub fn with_ping_every(self, every: Duration) -> Broadcast {
        let hub = &self.hub;
        Broadcast {
            hub: Arc::new(Hub {
                clients: Mutex::new(Vec::new()),
                greeting: Mutex::new(lock(&hub.greeting).clone()),
                dropped: AtomicU64::new(0),
                next_id: AtomicU64::new(0),
                max_clients: hub.max_clients,
                queue_len: hub.queue_len,
                ping_every: every.max(Duration::from_millis(10)),
            }),
        }
    }

    /// Queue a text message for every connected client and return at once: a client
    /// whose queue is full loses its oldest queued message (counted by
    /// [`Broadcast::dropped`]).
    pub fn send_text(&self, msg: Arc<str>) {
        let clients = lock(&self.hub.clients);
        for client in clients.iter() {
            let mut outbox = lock(&client.outbox);
            if outbox.ended || outbox.close.is_some() {
                continue;
            }
            if outbox.texts.len() >= self.hub.queue_len {
                outbox.texts.pop_front();
                self.hub.dropped.fetch_add(1, Ordering::Relaxed);
            }
            outbox.texts.push_back(Arc::clone(&msg));
            drop(outbox);
            client.ready.notify_one();
        }
    }

    /// The message every client that connects from now on gets first (what a page
    /// needs once, e.g. the channel names). Clients already connected do not get it.
    pub fn set_greeting(&self, msg: Arc<str>) {
        *lock(&self.hub.greeting) = Some(msg);
    }

    /// Clients connected now.
    pub fn clients(&self) -> usize {
        lock(&self.hub.clients).len()
    }

    /// Messages dropped so far, over all clients, because a client's queue was full.
    pub fn dropped(&self) -> u64 {
        self.hub.dropped.load(Ordering::Relaxed)
    }

    /// The most clients served at once.
    pub fn max_clients(&self) -> usize {
        self.hub.max_clients
    }

    /// Close every client (status 1001, going away), e.g. when the session ends. The
    /// hub stays usable; clients may connect again.
    pub fn close_all(&self) {
        for client in lock(&self.hub.clients).iter() {
            client.close(Some(1001));
        }
    }

    /// Take a seat for the client on `stream`: registered (its greeting queued) until
    /// the seat is dropped. The answer to send instead when the hub is full.
    pub(crate) fn reserve(&self, stream: &TcpStream) -> Result<Seat, Response> {
        let stream = stream
            .try_clone()
            .map_err(|e| Response::text(500, format!("cannot share the connection: {e}")))?;
        let mut clients = lock(&self.hub.clients);
        if clients.len() >= self.hub.max_clients {
            // The place of the client heard from longest ago, if it has missed a ping.
            let silent = clients
                .iter()
                .enumerate()
                .map(|(i, c)| (i, *lock(&c.heard)))
                .filter(|(_, heard)| heard.elapsed() > self.hub.ping_every)
                .min_by_key(|(_, heard)| *heard)
                .map(|(i, _)| i);
            if let Some(i) = silent {
                clients.swap_remove(i).end();
            }
        }
        if clients.len() >= self.hub.max_clients {
            return Err(Response::text(
                503,
                format!(
                    "this stream already has {} clients, its most",
                    self.hub.max_clients
                ),
            ));
        }
        let client = Arc::new(Client {
            id: self.hub.next_id.fetch_add(1, Ordering::Relaxed),
            outbox: Mutex::new(Outbox {
                greeting: lock(&self.hub.greeting).clone(),
                ..Outbox::default()
            }),
            ready: Condvar::new(),
            stream,
            heard: Mutex::new(Instant::now()),
            ping_every: self.hub.ping_every,
        });
        clients.push(Arc::clone(&client));
        Ok(Seat {
            hub: Arc::clone(&self.hub),
            client,
        })
    }
}

impl Default for Broadcast {
    fn default() -> Broadcast {
        Broadcast::new()
    }
}

impl std::fmt::Debug for Broadcast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broadcast")
            .field("clients", &self.clients())
            .field("dropped", &self.dropped())
            .field("max_clients", &self.hub.max_clients)
            .field("queue_len", &self.hub.queue_len)
            .finish()
    }
}

impl Client {
    /// End the client: the writer stops, the socket is shut (which ends the reader).
    fn end(&self) {
        lock(&self.outbox).ended = true;
        self.ready.notify_all();
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Send a close frame ahead of anything queued, then end.
    fn close(&self, code: Option<u16>) {
        let mut outbox = lock(&self.outbox);
        if !outbox.ended && outbox.close.is_none() {
            outbox.close = Some(code);
        }
        drop(outbox);
        self.ready.notify_all();
    }

    fn pong(&self, payload: Vec<u8>) {
        let mut outbox = lock(&self.outbox);
        if !outbox.ended {
            outbox.pong = Some(payload);
        }
        drop(outbox);
        self.ready.notify_all();
    }

    /// The writer thread: the outbox to the socket until the client ends.
    fn write_loop(&self) {
        enum Next {
            Close(Option<u16>),
            Pong(Vec<u8>),
            Ping,
            Text(Arc<str>),
        }
        let mut buf = Vec::new();
        // The last ping sent (at first: the connection, as if answered).
        let mut pinged = *lock(&self.heard);
        loop {
            let next = {
                let mut outbox = lock(&self.outbox);
                loop {
                    if outbox.ended {
                        return;
                    }
                    let due = pinged + self.ping_every;
                    let now = Instant::now();
                    if now >= due {
                        if *lock(&self.heard) < pinged {
                            // Silent since the last ping: gone, or not a page.
                            drop(outbox);
                            return self.end();
                        }
                        pinged = now;
                        break Next::Ping;
                    }
                    if let Some(code) = outbox.close.take() {
                        break Next::Close(code);
                    }
                    if let Some(payload) = outbox.pong.take() {
                        break Next::Pong(payload);
                    }
                    if let Some(text) = outbox.greeting.take().or_else(|| outbox.texts.pop_front())
                    {
                        break Next::Text(text);
                    }
                    outbox = self
                        .ready
                        .wait_timeout(outbox, due - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            };
            buf.clear();
            let last = match &next {
                Next::Close(code) => {
                    frame::encode_close(*code, &mut buf);
                    true
                }
                Next::Pong(payload) => {
                    frame::encode_frame(frame::PONG, payload, &mut buf);
                    false
                }
                Next::Ping => {
                    frame::encode_frame(frame::PING, b"", &mut buf);
                    false
                }
                Next::Text(text) => {
                    frame::encode_frame(frame::TEXT, text.as_bytes(), &mut buf);
                    false
                }
            };
            // One write per frame: with Nagle off, a frame goes out at once, whole.
            if (&self.stream).write_all(&buf).is_err() || last {
                return self.end();
            }
        }
    }
}

/// A registered client; dropping it takes the client off the hub.
pub(crate) struct Seat {
    hub: Arc<Hub>,
    client: Arc<Client>,
}

impl Seat {
    /// Complete the handshake and serve the client on this thread until it ends:
    /// a writer thread sends the queue, this one reads the client's frames. `rest`:
    /// bytes read past the request head.
    pub(crate) fn run(self, stream: TcpStream, rest: Vec<u8>, accept: &str) {
        let client = &self.client;
        // Best effort, as for plain answers: a socket that refuses options is still served.
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        // A page may be silent for hours: reads wait until the client or its writer ends.
        let _ = stream.set_read_timeout(None);
        if (&stream)
            .write_all(switching_protocols(accept).as_bytes())
            .is_err()
        {
            return client.end();
        }
        let writer = {
            let client = Arc::clone(client);
            std::thread::Builder::new()
                .name("omote-serve-ws-writer".into())
                .spawn(move || client.write_loop())
        };
        let Ok(writer) = writer else {
            return client.end();
        };
        read_loop(client, BufReader::new(Cursor::new(rest).chain(stream)));
        let _ = writer.join();
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let id = self.client.id;
        lock(&self.hub.clients).retain(|c| c.id != id);
    }
}

/// Read the client's frames: answer pings, honour a close, end on an error or EOF.
fn read_loop(client: &Client, reader: impl Read) {
    let mut frames = ClientReader::new(reader);
    loop {
        let event = frames.next_event();
        *lock(&client.heard) = Instant::now();
        match event {
            Ok(ClientEvent::Ping(payload)) => client.pong(payload),
            Ok(ClientEvent::Pong | ClientEvent::Data) => {}
            Ok(ClientEvent::Close(code)) => return client.close(code),
            Err(e) => {
                return match e.close_code() {
                    Some(code) => client.close(Some(code)),
                    None => client.end(),
                };
            }
        }
    }
}
