//! The listener: [`Server`] accepts connections, a thread per connection reads one
//! request, checks it (method, version, size, loopback `Host`), asks the [`Handler`],
//! writes the answer and closes — or hands the connection to a WebSocket hub.

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::handshake::check_upgrade;
use crate::host::loopback_host;
use crate::request::{parse_head, read_head};
use crate::{Method, Request, Response, ServeError};

/// Connections served at once by default; more are closed unanswered. A WebSocket
/// client holds its connection's place while it is connected.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a client may take to send its whole request head (a deadline over all its
/// reads, not a timeout per read: a byte every few seconds does not keep it open).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// At the connection cap, a new connection closes the one that has been sending its
/// head longest, if that one has taken this long already: connections that trickle
/// their heads cannot shut everyone else out (a browser sends its head at once).
pub const HEAD_GRACE: Duration = Duration::from_secs(1);
/// How long a client may take to take an answer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// What answers requests. Called from many connection threads at once.
pub trait Handler: Send + Sync + 'static {
    /// The answer to `request` (GET or HEAD; for HEAD the server sends the head only).
    /// [`Response::websocket`] hands the connection to a hub.
    fn respond(&self, request: &Request) -> Response;

    /// Report something that went wrong outside any one answer (an accept failed, a
    /// write to a client failed). By default printed to stderr.
    fn warn(&self, message: &str) {
        eprintln!("warning: {message}");
    }
}

impl<F> Handler for F
where
    F: Fn(&Request) -> Response + Send + Sync + 'static,
{
    fn respond(&self, request: &Request) -> Response {
        self(request)
    }
}

/// A bound listener, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    max_connections: usize,
}

/// What the connection threads share.
struct Site<H> {
    handler: H,
    /// `Some(port)` when bound to loopback: only loopback `Host`s (and `Origin`s of
    /// WebSocket pages) are served, so a page elsewhere cannot reach the server
    /// through DNS rebinding.
    loopback_port: Option<u16>,
    active: AtomicUsize,
    max_connections: usize,
    /// Connections still sending their request head: (id, since, the socket).
    heads: Mutex<Vec<(u64, Instant, TcpStream)>>,
    next_id: AtomicU64,
}

impl Server {
    /// Listen on `addr` (port 0 picks a free port).
    pub fn bind(addr: SocketAddr) -> Result<Server, ServeError> {
        let listener =
            TcpListener::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(ServeError::LocalAddr)?;
        Ok(Server {
            listener,
            addr,
            max_connections: MAX_CONNECTIONS,
        })
    }

    /// Serve at most `n` connections at once (default [`MAX_CONNECTIONS`]).
    pub fn with_max_connections(mut self, n: usize) -> Server {
        self.max_connections = n;
        self
    }

    /// The address bound (with the port picked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of `/` for a browser on this machine (`http://127.0.0.1:8080/`; an
    /// unspecified address is shown as loopback).
    pub fn url(&self) -> String {
        url_of(self.addr)
    }

    /// Serve on this thread until the process ends.
    pub fn serve<H: Handler>(self, handler: H) -> ! {
        let site = self.site(handler);
        loop {
            accept_one(&self.listener, &site);
        }
    }

    /// Serve on a thread of its own until the handle is stopped or dropped.
    pub fn spawn<H: Handler>(self, handler: H) -> Result<ServerHandle, ServeError> {
        let site = self.site(handler);
        let stop = Arc::new(AtomicBool::new(false));
        let addr = self.addr;
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("omote-serve".into())
                .spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        accept_one(&self.listener, &site);
                    }
                })
                .map_err(ServeError::Spawn)?
        };
        Ok(ServerHandle {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    fn site<H: Handler>(&self, handler: H) -> Arc<Site<H>> {
        Arc::new(Site {
            handler,
            loopback_port: self.addr.ip().is_loopback().then_some(self.addr.port()),
            active: AtomicUsize::new(0),
            max_connections: self.max_connections,
            heads: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        })
    }
}

/// A server running on its own thread ([`Server::spawn`]); dropping it stops it.
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of `/` (see [`Server::url`]).
    pub fn url(&self) -> String {
        url_of(self.addr)
    }

    /// Stop accepting and wait for the accept thread. Connections being served (and
    /// WebSocket clients) go on until they end; [`crate::Broadcast::close_all`] ends
    /// a hub's clients.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        // The accept thread waits in `accept`: a connection wakes it to see the flag.
        let wake = SocketAddr::new(loopback_for(self.addr.ip()), self.addr.port());
        if TcpStream::connect_timeout(&wake, Duration::from_secs(5)).is_ok() {
            let _ = thread.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Where a client on this machine reaches `ip`.
fn loopback_for(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    }
}

fn url_of(addr: SocketAddr) -> String {
    match loopback_for(addr.ip()) {
        IpAddr::V4(ip) => format!("http://{ip}:{}/", addr.port()),
        IpAddr::V6(ip) => format!("http://[{ip}]:{}/", addr.port()),
    }
}

/// Accept one connection and start its thread (or close it when at the cap).
fn accept_one<H: Handler>(listener: &TcpListener, site: &Arc<Site<H>>) {
    let stream = match listener.accept() {
        Ok((stream, _)) => stream,
        Err(e) => {
            site.handler.warn(&format!("accept failed: {e}"));
            // Out of file descriptors, say: do not spin.
            std::thread::sleep(Duration::from_millis(50));
            return;
        }
    };
    if site.active.fetch_add(1, Ordering::SeqCst) >= site.max_connections && !site.evict_slow_head()
    {
        site.active.fetch_sub(1, Ordering::SeqCst);
        return; // dropping the stream closes it
    }
    let conn_site = Arc::clone(site);
    let spawned = std::thread::Builder::new()
        .name("omote-serve-conn".into())
        .spawn(move || {
            conn_site.connection(stream);
            conn_site.active.fetch_sub(1, Ordering::SeqCst);
        });
    if let Err(e) = spawned {
        site.active.fetch_sub(1, Ordering::SeqCst);
        site.handler
            .warn(&format!("cannot start a connection thread: {e}"));
    }
}

/// A connection's reads of its request head, each with the time left before
/// [`HEAD_DEADLINE`] as its timeout; past it, a read fails.
struct HeadReader<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for HeadReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        // Best effort: a socket that refuses timeouts is still served.
        let _ = self.stream.set_read_timeout(Some(left));
        (&mut &*self.stream).read(buf)
    }
}

impl<H: Handler> Site<H> {
    /// At the cap: close the connection that has been sending its head longest, if
    /// for [`HEAD_GRACE`] already (its thread then ends and frees its place). Whether
    /// one was closed.
    fn evict_slow_head(&self) -> bool {
        let mut heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = heads
            .iter()
            .enumerate()
            .filter(|(_, (_, since, _))| since.elapsed() >= HEAD_GRACE)
            .min_by_key(|(_, (_, since, _))| *since)
            .map(|(i, _)| i);
        let Some(i) = oldest else { return false };
        let (_, _, stream) = heads.swap_remove(i);
        let _ = stream.shutdown(Shutdown::Both);
        true
    }

    /// Read the request head within [`HEAD_DEADLINE`], the connection listed as one
    /// still sending its head meanwhile.
    fn head(&self, stream: &TcpStream) -> Option<Result<crate::request::Head, Response>> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        if let Ok(clone) = stream.try_clone() {
            let mut heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
            heads.push((id, Instant::now(), clone));
        }
        let mut reader = HeadReader {
            stream,
            deadline: Instant::now() + HEAD_DEADLINE,
        };
        let head = read_head(&mut reader);
        let mut heads = self.heads.lock().unwrap_or_else(|e| e.into_inner());
        heads.retain(|(other, _, _)| *other != id);
        head
    }

    /// Serve one connection: one request, then close — or a WebSocket client until it
    /// ends.
    fn connection(&self, stream: TcpStream) {
        // Best effort: a socket that refuses timeouts is still served.
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let head = match self.head(&stream) {
            None => return,
            Some(Ok(head)) => head,
            Some(Err(response)) => return self.answer(stream, &response, false),
        };
        let request = match parse_head(&head.text) {
            Ok(request) => request,
            Err(response) => return self.answer(stream, &response, false),
        };
        let head_only = request.method == Method::Head;
        if let Err(response) = self.check_host(&request) {
            return self.answer(stream, &response, head_only);
        }
        let mut response = self.handler.respond(&request);
        let Some(hub) = response.upgrade.take() else {
            return self.answer(stream, &response, head_only);
        };
        let accept = match check_upgrade(&request, self.loopback_port.is_some()) {
            Ok(accept) => accept,
            Err(response) => return self.answer(stream, &response, head_only),
        };
        match hub.reserve(&stream) {
            Ok(seat) => seat.run(stream, head.rest, &accept),
            Err(response) => self.answer(stream, &response, head_only),
        }
    }

    /// Bound to loopback, a request must name a loopback `Host`.
    fn check_host(&self, request: &Request) -> Result<(), Response> {
        let Some(port) = self.loopback_port else {
            return Ok(());
        };
        match request.header("host") {
            None => Err(Response::text(400, "missing Host header")),
            Some(h) if !loopback_host(h, port) => Err(Response::text(
                403,
                format!("Host {h:?} is not this loopback server"),
            )),
            Some(_) => Ok(()),
        }
    }

    fn answer(&self, mut stream: TcpStream, response: &Response, head_only: bool) {
        if let Err(e) = response.write_to(&mut stream, head_only) {
            // The browser went away (reload, closed tab): nothing to do.
            if !matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ) {
                self.handler
                    .warn(&format!("writing a response failed: {e}"));
            }
        }
        let _ = stream.shutdown(Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_show_unspecified_addresses_as_loopback() {
        let url = |s: &str| url_of(s.parse().unwrap());
        assert_eq!(url("127.0.0.1:8080"), "http://127.0.0.1:8080/");
        assert_eq!(url("0.0.0.0:80"), "http://127.0.0.1:80/");
        assert_eq!(url("[::]:8080"), "http://[::1]:8080/");
        assert_eq!(url("[::1]:8080"), "http://[::1]:8080/");
        assert_eq!(url("192.168.1.2:9"), "http://192.168.1.2:9/");
    }
}
